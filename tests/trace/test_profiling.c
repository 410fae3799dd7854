/* test_profiling: StarPU's profiling API on real runs.
 *
 * Status on/off (API and STARPU_PROFILING), task->profiling_info (allocated
 * by the runtime or by the application, times in order, complete when the
 * callback runs, freed with the task), per-worker counters (executed tasks,
 * executing + sleeping <= total, reset by reading), buses on a RAM-only
 * machine, the timespec helpers, and the STARPU_*_STATS reports printed at
 * shutdown. Results are checked, never durations.
 */
#include <starpu.h>

#include <stdatomic.h>
#include <string.h>

#include "vtest.h"

static void work(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	volatile double x = 0;
	for (int i = 0; i < 2000; i++)
		x += i * 0.5;
}

static struct starpu_codelet work_cl = {
	.cpu_funcs = { work },
	.nbuffers = 0,
	.name = "work",
};

static int start(unsigned ncpus)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = (int) ncpus;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf);
}

static int ts_le(const struct timespec *a, const struct timespec *b)
{
	return starpu_timespec_cmp(a, b, <=);
}

static void test_status(void)
{
	starpu_profiling_status_set(STARPU_PROFILING_DISABLE);
	CU_ASSERT_EQUAL(starpu_profiling_status_get(), 0);
	CU_ASSERT_EQUAL(starpu_profiling_status_set(STARPU_PROFILING_ENABLE), 0);
	CU_ASSERT_EQUAL(starpu_profiling_status_get(), 1);
	CU_ASSERT_EQUAL(starpu_profiling_status_set(STARPU_PROFILING_DISABLE), 1);
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_profiling_status_set(7), -EINVAL);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "starpu_profiling_status_set"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "7"));
	CU_ASSERT_EQUAL(starpu_profiling_status_get(), 0);

	/* STARPU_PROFILING=1 switches it on at init. */
	vtest_setenv("STARPU_PROFILING", "1");
	CU_ASSERT_EQUAL_FATAL(start(1), 0);
	CU_ASSERT_EQUAL(starpu_profiling_status_get(), 1);
	starpu_shutdown();
	vtest_env_restore();
	starpu_profiling_status_set(STARPU_PROFILING_DISABLE);
}

static void test_profiling_off_leaves_tasks_alone(void)
{
	starpu_profiling_status_set(STARPU_PROFILING_DISABLE);
	CU_ASSERT_EQUAL_FATAL(start(1), 0);
	struct starpu_task *t = starpu_task_create();
	t->cl = &work_cl;
	t->detach = 0;
	t->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(t), 0);
	CU_ASSERT_PTR_NULL(t->profiling_info);
	starpu_task_destroy(t);
	starpu_shutdown();
}

/* What the callback saw of the task's record. */
static struct starpu_profiling_task_info seen_in_callback;
static _Atomic int callback_saw_info;

static void callback(void *arg)
{
	struct starpu_task *t = starpu_task_get_current();
	(void) arg;
	if (t && t->profiling_info)
	{
		seen_in_callback = *t->profiling_info;
		atomic_store(&callback_saw_info, 1);
	}
}

static void test_task_info(void)
{
	CU_ASSERT_EQUAL_FATAL(start(2), 0);
	starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
	double before = starpu_timing_now();

	/* The runtime allocates the record; complete in the callback. */
	struct starpu_task *t = starpu_task_create();
	t->cl = &work_cl;
	t->detach = 0;
	t->destroy = 0;
	t->callback_func = callback;
	atomic_store(&callback_saw_info, 0);
	CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(t), 0);
	double after = starpu_timing_now();
	struct starpu_profiling_task_info *pi = t->profiling_info;
	CU_ASSERT_PTR_NOT_NULL_FATAL(pi);
	CU_ASSERT(pi->workerid >= 0 && pi->workerid < (int) starpu_worker_get_count());
	CU_ASSERT(ts_le(&pi->submit_time, &pi->push_start_time));
	CU_ASSERT(ts_le(&pi->push_end_time, &pi->pop_end_time));
	CU_ASSERT(ts_le(&pi->pop_start_time, &pi->pop_end_time));
	CU_ASSERT(ts_le(&pi->pop_end_time, &pi->start_time));
	CU_ASSERT(ts_le(&pi->start_time, &pi->end_time));
	CU_ASSERT(ts_le(&pi->end_time, &pi->callback_start_time));
	CU_ASSERT(ts_le(&pi->callback_start_time, &pi->callback_end_time));
	/* On the clock starpu_timing_now() reads (task stamps come from a
	 * calibrated cycle counter: allow its drift, well under 1 ms). */
	CU_ASSERT(starpu_timing_timespec_to_us(&pi->submit_time) >= before - 1000.0);
	CU_ASSERT(starpu_timing_timespec_to_us(&pi->end_time) <= after + 1000.0);
	CU_ASSERT(starpu_timing_timespec_delay_us(&pi->start_time, &pi->end_time) >= 0);
	CU_ASSERT_EQUAL(atomic_load(&callback_saw_info), 1);
	CU_ASSERT_EQUAL(seen_in_callback.workerid, pi->workerid);
	CU_ASSERT(starpu_timespec_cmp(&seen_in_callback.end_time, &pi->end_time, ==));
	starpu_task_destroy(t);	/* frees the record too (ASan checks) */

	/* An application-provided record is filled, not replaced. */
	struct starpu_profiling_task_info mine;
	memset(&mine, 0, sizeof(mine));
	struct starpu_task task;
	starpu_task_init(&task);
	task.cl = &work_cl;
	task.detach = 0;
	task.profiling_info = &mine;
	CU_ASSERT_EQUAL(starpu_task_submit(&task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(&task), 0);
	CU_ASSERT_PTR_EQUAL(task.profiling_info, &mine);
	CU_ASSERT(mine.workerid >= 0);
	CU_ASSERT(mine.end_time.tv_sec > 0 || mine.end_time.tv_nsec > 0);
	starpu_task_clean(&task);
	CU_ASSERT_PTR_EQUAL(task.profiling_info, &mine);

	/* Detached tasks free their record when destroyed. */
	for (int i = 0; i < 50; i++)
	{
		struct starpu_task *d = starpu_task_create();
		d->cl = &work_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(d), 0);
	}
	starpu_task_wait_for_all();

	/* A task without codelet gets a record too. */
	struct starpu_task *sync = starpu_task_create();
	sync->cl = NULL;
	sync->detach = 0;
	sync->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(sync), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(sync), 0);
	CU_ASSERT_PTR_NOT_NULL(sync->profiling_info);
	if (sync->profiling_info)
		CU_ASSERT_EQUAL(sync->profiling_info->workerid, -1);
	starpu_task_destroy(sync);

	starpu_profiling_status_set(STARPU_PROFILING_DISABLE);
	starpu_shutdown();
}

static void test_worker_info(void)
{
	CU_ASSERT_EQUAL_FATAL(start(2), 0);
	starpu_profiling_status_set(STARPU_PROFILING_ENABLE);	/* resets the counters */
	const int n = 100;
	for (int i = 0; i < n; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &work_cl;
		t->flops = 1000.0;
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	starpu_task_wait_for_all();
	int total = 0;
	double flops = 0;
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
	{
		struct starpu_profiling_worker_info info;
		CU_ASSERT_EQUAL(starpu_profiling_worker_get_info((int) w, &info), 0);
		total += info.executed_tasks;
		flops += info.flops;
		double tot = starpu_timing_timespec_to_us(&info.total_time);
		double busy = starpu_timing_timespec_to_us(&info.executing_time) + starpu_timing_timespec_to_us(&info.sleeping_time);
		CU_ASSERT(busy <= tot + 1.0);
		/* Reading reset the counters. */
		CU_ASSERT_EQUAL(starpu_profiling_worker_get_info((int) w, &info), 0);
		CU_ASSERT_EQUAL(info.executed_tasks, 0);
		CU_ASSERT_EQUAL(starpu_profiling_worker_get_info((int) w, NULL), 0);
	}
	CU_ASSERT_EQUAL(total, n);
	CU_ASSERT_DOUBLE_EQUAL(flops, n * 1000.0, 1e-6);

	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_profiling_worker_get_info(99, NULL), -EINVAL);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "starpu_profiling_worker_get_info"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "99"));
	starpu_profiling_status_set(STARPU_PROFILING_DISABLE);
	starpu_shutdown();
}

static void test_bus(void)
{
	CU_ASSERT_EQUAL_FATAL(start(1), 0);
	/* One memory node: no bus. */
	CU_ASSERT_EQUAL(starpu_bus_get_count(), 0);
	CU_ASSERT_EQUAL(starpu_bus_get_id(0, 0), -1);
	CU_ASSERT_EQUAL(starpu_bus_get_id(0, 1), -1);
	CU_ASSERT_EQUAL(starpu_bus_get_src(0), -1);
	CU_ASSERT_EQUAL(starpu_bus_get_dst(0), -1);
	struct starpu_profiling_bus_info info;
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_bus_get_profiling_info(0, &info), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(vtest_capture_stderr_end(), "starpu_bus_get_profiling_info"));
	starpu_shutdown();
}

static void test_timespec_helpers(void)
{
	struct timespec a = { 1, 900000000 }, b = { 2, 200000000 }, r;
	starpu_timespec_add(&a, &b, &r);
	CU_ASSERT_EQUAL(r.tv_sec, 4);
	CU_ASSERT_EQUAL(r.tv_nsec, 100000000);
	starpu_timespec_sub(&b, &a, &r);
	CU_ASSERT_EQUAL(r.tv_sec, 0);
	CU_ASSERT_EQUAL(r.tv_nsec, 300000000);
	starpu_timespec_accumulate(&r, &a);
	CU_ASSERT_EQUAL(r.tv_sec, 2);
	CU_ASSERT_EQUAL(r.tv_nsec, 200000000);
	CU_ASSERT(starpu_timespec_cmp(&a, &b, <));
	CU_ASSERT_DOUBLE_EQUAL(starpu_timing_timespec_delay_us(&a, &b), 300000.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(starpu_timing_timespec_to_us(&a), 1900000.0, 1e-6);
	starpu_timespec_clear(&a);
	CU_ASSERT(a.tv_sec == 0 && a.tv_nsec == 0);
}

/* The reports at shutdown. */
static void test_stats_at_shutdown(void)
{
	vtest_setenv("STARPU_SILENT", "0");
	vtest_setenv("STARPU_WORKER_STATS", "1");
	vtest_setenv("STARPU_BUS_STATS", "1");
	vtest_setenv("STARPU_MEMORY_STATS", "1");
	CU_ASSERT_EQUAL_FATAL(start(2), 0);
	for (int i = 0; i < 20; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &work_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	starpu_task_wait_for_all();
	vtest_capture_stderr_begin();
	starpu_shutdown();
	const char *out = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "Worker stats:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "CPU 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "task(s)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "Data transfer stats:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "Memory stats:"));
	vtest_env_restore();

	vtest_setenv("STARPU_PROFILING_STATS", "1");
	CU_ASSERT_EQUAL_FATAL(start(2), 0);
	for (int i = 0; i < 20; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &work_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	starpu_task_wait_for_all();
	vtest_capture_stderr_begin();
	starpu_shutdown();
	out = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "Codelet stats:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "work"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "Worker stats:"));
	vtest_env_restore();
	starpu_profiling_status_set(STARPU_PROFILING_DISABLE);
}

static const struct vtest_case cases[] = {
	{ "status on and off", test_status },
	{ "profiling off: no record", test_profiling_off_leaves_tasks_alone },
	{ "task->profiling_info", test_task_info },
	{ "per-worker counters", test_worker_info },
	{ "buses", test_bus },
	{ "timespec helpers", test_timespec_helpers },
	{ "STARPU_*_STATS at shutdown", test_stats_at_shutdown },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "profiling", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
