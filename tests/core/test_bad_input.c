/* test_bad_input.c — every misuse the foundation must meet with a clear
 * error: the documented error code, a one-line message naming the offending
 * argument, and a runtime that keeps working (no crash, no hang, nothing
 * lost). Messages are captured from stderr and checked for the name of
 * what is wrong.
 */
#include <starpu.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include "vtest.h"

static _Atomic int ran;

static void count_cpu(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	atomic_fetch_add(&ran, 1);
}

static void inc_var(void *buffers[], void *arg)
{
	(void) arg;
	int *x = (int *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	(*x)++;
}

static struct starpu_codelet count_cl = {
	.cpu_funcs = { count_cpu },
	.nbuffers = 0,
	.name = "count",
};

static struct starpu_codelet two_buffers_cl = {
	.cpu_funcs = { count_cpu },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_R },
	.name = "two_buffers",
};

static struct starpu_codelet inc_cl = {
	.cpu_funcs = { inc_var },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "inc",
};

static void cuda_only(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

/* A codelet with only a CUDA implementation, on a machine with CPUs only. */
static struct starpu_codelet cuda_only_cl = {
	.cuda_funcs = { cuda_only },
	.nbuffers = 0,
	.name = "cuda_only",
};

/* CPU code, but restricted to CUDA by its where mask. */
static struct starpu_codelet where_cuda_cl = {
	.where = STARPU_CUDA,
	.cpu_funcs = { count_cpu },
	.nbuffers = 0,
	.name = "where_cuda",
};

static int start(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.precedence_over_environment_variables = 1;
	conf.sched_policy_name = "eager";
	conf.ncpus = 2;
	return starpu_init(&conf);
}

static int contains(const char *text, const char *what)
{
	return strstr(text, what) != NULL;
}

/* The runtime still runs tasks after an error. */
static void check_still_works(void)
{
	atomic_store(&ran, 0);
	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&count_cl, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&ran), 10);
}

/* ---------------------------------------------------------------- submit */

static void test_submit_before_init(void)
{
	struct starpu_task *task = starpu_task_create();
	CU_ASSERT_PTR_NOT_NULL_FATAL(task);
	task->cl = &count_cl;
	vtest_capture_stderr_begin();
	int ret = starpu_task_submit(task);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "starpu_task_submit"));
	CU_ASSERT(contains(msg, "not initialised"));
	starpu_task_destroy(task);

	/* starpu_task_insert too, and wait_for_all. */
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_task_insert(&count_cl, 0), -EINVAL);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), -EINVAL);
	vtest_capture_stderr_end();
}

static void test_submit_after_shutdown(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	starpu_shutdown();
	struct starpu_task task;
	starpu_task_init(&task);
	task.cl = &count_cl;
	vtest_capture_stderr_begin();
	int ret = starpu_task_submit(&task);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "not initialised"));
	starpu_task_clean(&task);
	/* And the runtime can be started again. */
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	check_still_works();
	starpu_shutdown();
}

static void test_no_implementation(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	vtest_capture_stderr_begin();
	int ret = starpu_task_insert(&cuda_only_cl, 0);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -ENODEV);
	CU_ASSERT(contains(msg, "cuda_only"));
	CU_ASSERT(contains(msg, "-ENODEV"));
	check_still_works();
	starpu_shutdown();
}

static void test_where_excludes_all(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	vtest_capture_stderr_begin();
	int ret = starpu_task_insert(&where_cuda_cl, 0);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -ENODEV);
	CU_ASSERT(contains(msg, "where_cuda"));

	/* The task's own where mask can exclude every worker too. */
	struct starpu_task *task = starpu_task_create();
	task->cl = &count_cl;
	task->where = STARPU_CUDA;
	vtest_capture_stderr_begin();
	ret = starpu_task_submit(task);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -ENODEV);
	CU_ASSERT(contains(msg, "count"));
	starpu_task_destroy(task);

	/* STARPU_EXECUTE_WHERE through task_insert. */
	vtest_capture_stderr_begin();
	ret = starpu_task_insert(&count_cl, STARPU_EXECUTE_WHERE, (unsigned long long) STARPU_OPENCL, 0);
	vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -ENODEV);
	check_still_works();
	starpu_shutdown();
}

static void test_nbuffers_mismatch(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	int x = 0, y = 0;
	starpu_data_handle_t hx, hy;
	starpu_variable_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	starpu_variable_data_register(&hy, STARPU_MAIN_RAM, (uintptr_t) &y, sizeof(y));

	/* The codelet declares two buffers, the task gives one. */
	struct starpu_task *task = starpu_task_create();
	task->cl = &two_buffers_cl;
	task->handles[0] = hx;
	vtest_capture_stderr_begin();
	int ret = starpu_task_submit(task);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "buffer 1"));
	CU_ASSERT(contains(msg, "two_buffers"));
	starpu_task_destroy(task);

	/* task_insert with too few and too many handles. */
	vtest_capture_stderr_begin();
	ret = starpu_task_insert(&two_buffers_cl, STARPU_RW, hx, 0);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "two_buffers"));
	vtest_capture_stderr_begin();
	ret = starpu_task_insert(&two_buffers_cl, STARPU_RW, hx, STARPU_R, hy, STARPU_R, hy, 0);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "takes 2 buffers"));

	/* A mode that contradicts the codelet's. */
	vtest_capture_stderr_begin();
	ret = starpu_task_insert(&two_buffers_cl, STARPU_R, hx, STARPU_R, hy, 0);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "mode"));

	/* More buffers than STARPU_NMAXBUFS without dyn_handles. */
	struct starpu_codelet many_cl = { .cpu_funcs = { count_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "many" };
	task = starpu_task_create();
	task->cl = &many_cl;
	task->nbuffers = STARPU_NMAXBUFS + 1;
	vtest_capture_stderr_begin();
	ret = starpu_task_submit(task);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "STARPU_NMAXBUFS"));
	starpu_task_destroy(task);

	/* Nothing was lost: the data is intact and usable. */
	CU_ASSERT_EQUAL(starpu_task_insert(&inc_cl, STARPU_RW, hx, 0), 0);
	starpu_data_unregister(hx);
	starpu_data_unregister(hy);
	CU_ASSERT_EQUAL(x, 1);
	starpu_shutdown();
}

static void test_null_handle(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	vtest_capture_stderr_begin();
	int ret = starpu_task_insert(&inc_cl, STARPU_RW, (starpu_data_handle_t) NULL, 0);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "NULL"));
	CU_ASSERT(contains(msg, "buffer 0"));

	/* Registering data with no address on a home node leaves no handle. */
	starpu_data_handle_t h = (starpu_data_handle_t) 0x1;
	vtest_capture_stderr_begin();
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, 0, sizeof(int));
	msg = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NULL(h);
	CU_ASSERT(contains(msg, "ptr is NULL"));
	check_still_works();
	starpu_shutdown();
}

static void test_bad_worker(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	vtest_capture_stderr_begin();
	int ret = starpu_task_insert(&count_cl, STARPU_EXECUTE_ON_WORKER, 99, 0);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "worker 99"));
	check_still_works();
	starpu_shutdown();
}

/* A STARPU_VALUE with a NULL pointer and a size (issue 22 item 10:
 * memcpy from NULL, a segfault, in Vela and in StarPU 1.3): -EINVAL naming
 * the argument, from every entry point that packs values. A NULL value of
 * size 0 is no value at all, and fine. */
static void test_null_value(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	int one = 1;
	vtest_capture_stderr_begin();
	int r1 = starpu_task_insert(&count_cl, STARPU_VALUE, NULL, (size_t) 16, 0);
	int r2 = starpu_insert_task(&count_cl, STARPU_VALUE, &one, sizeof(one), STARPU_VALUE, NULL, (size_t) 8, 0);
	struct starpu_task *t = starpu_task_build(&count_cl, STARPU_VALUE, NULL, (size_t) 4, 0);
	struct starpu_task *u = starpu_task_create();
	int r3 = starpu_task_set(u, &count_cl, STARPU_VALUE, NULL, (size_t) 4, 0);
	void *buf = (void *) 0x1;
	size_t size = 99;
	starpu_codelet_pack_args(&buf, &size, STARPU_VALUE, &one, sizeof(one), STARPU_VALUE, NULL, (size_t) 32, 0);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(r1, -EINVAL);
	CU_ASSERT_EQUAL(r2, -EINVAL);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_EQUAL(r3, -EINVAL);
	CU_ASSERT_PTR_NULL(buf);
	CU_ASSERT_EQUAL(size, 0);
	CU_ASSERT(contains(msg, "starpu_task_insert: STARPU_VALUE argument 1 is NULL with a size of 16 bytes"));
	CU_ASSERT(contains(msg, "starpu_insert_task: STARPU_VALUE argument 2 is NULL with a size of 8 bytes"));
	CU_ASSERT(contains(msg, "starpu_task_build: STARPU_VALUE argument 1 is NULL"));
	CU_ASSERT(contains(msg, "starpu_task_set: STARPU_VALUE argument 1 is NULL"));
	CU_ASSERT(contains(msg, "starpu_codelet_pack_args: STARPU_VALUE argument 2 is NULL with a size of 32 bytes"));
	starpu_task_destroy(u);

	/* One at a time: no error return, so zeros keep the layout. */
	struct starpu_codelet_pack_arg_data st;
	starpu_codelet_pack_arg_init(&st);
	vtest_capture_stderr_begin();
	starpu_codelet_pack_arg(&st, NULL, sizeof(double));
	msg = vtest_capture_stderr_end();
	int seven = 7;
	starpu_codelet_pack_arg(&st, &seven, sizeof(seven));
	void *arg;
	size_t argsize;
	starpu_codelet_pack_arg_fini(&st, &arg, &argsize);
	CU_ASSERT(contains(msg, "starpu_codelet_pack_arg: argument 1 is NULL"));
	double d = -1;
	int i = 0;
	starpu_codelet_unpack_args(arg, &d, &i);
	CU_ASSERT_EQUAL(d, 0.0);
	CU_ASSERT_EQUAL(i, 7);
	free(arg);

	/* Size 0: nothing to copy. */
	CU_ASSERT_EQUAL(starpu_task_insert(&count_cl, STARPU_VALUE, NULL, (size_t) 0, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	check_still_works();
	starpu_shutdown();
}

static void test_uninitialised_task_and_conf(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct starpu_task task;
	memset(&task, 0, sizeof(task));	/* not through starpu_task_init */
	task.cl = &count_cl;
	vtest_capture_stderr_begin();
	int ret = starpu_task_submit(&task);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "starpu_task_init"));
	starpu_shutdown();

	struct starpu_conf conf;
	memset(&conf, 0, sizeof(conf));	/* not through starpu_conf_init */
	vtest_capture_stderr_begin();
	ret = starpu_init(&conf);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "starpu_conf_init"));
	CU_ASSERT_FALSE(starpu_is_initialized());
}

/* ---------------------------------------------------------------- wait */

static void test_wait_detached(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct starpu_task *task = starpu_task_create();
	task->cl = &count_cl;
	task->detach = 1;
	task->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	vtest_capture_stderr_begin();
	int ret = starpu_task_wait(task);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "detach"));
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_task_destroy(task);
	starpu_shutdown();
}

static void test_wait_destroyed(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct starpu_task *task = starpu_task_create();
	task->cl = &count_cl;
	task->detach = 0;	/* destroy=1: the first wait destroys it */
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(task), 0);
	vtest_capture_stderr_begin();
	int ret = starpu_task_wait(task);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "destroyed"));
	check_still_works();
	starpu_shutdown();
}

static void test_wait_never_submitted(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct starpu_task task;
	starpu_task_init(&task);
	task.cl = &count_cl;
	task.detach = 0;
	vtest_capture_stderr_begin();
	int ret = starpu_task_wait(&task);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "never submitted"));
	starpu_task_clean(&task);
	starpu_shutdown();
}

/* ---------------------------------------------------------------- -EDEADLK */

static starpu_data_handle_t dl_handle;
static struct starpu_task *dl_other;
static _Atomic int dl_wait_ret, dl_all_ret, dl_acquire_ret, dl_tag_ret, dl_cb_wait_ret, dl_cb_acquire_ret, dl_sync_ret;

static void deadlock_cpu(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	atomic_store(&dl_wait_ret, starpu_task_wait(dl_other));
	atomic_store(&dl_all_ret, starpu_task_wait_for_all());
	atomic_store(&dl_acquire_ret, starpu_data_acquire(dl_handle, STARPU_R));
	atomic_store(&dl_tag_ret, starpu_tag_wait(4242));
}

static struct starpu_codelet deadlock_cl = {
	.cpu_funcs = { deadlock_cpu },
	.nbuffers = 0,
	.name = "deadlock_probe",
};

static void deadlock_callback(void *arg)
{
	(void) arg;
	atomic_store(&dl_cb_wait_ret, starpu_task_wait(dl_other));
	atomic_store(&dl_cb_acquire_ret, starpu_data_acquire(dl_handle, STARPU_RW));
	struct starpu_task *t = starpu_task_create();
	t->cl = &count_cl;
	t->synchronous = 1;
	atomic_store(&dl_sync_ret, starpu_task_submit(t));
	starpu_task_destroy(t);
}

static void test_deadlock_from_codelet_and_callback(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	int x = 0;
	starpu_variable_data_register(&dl_handle, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	dl_other = starpu_task_create();
	dl_other->cl = &count_cl;
	dl_other->detach = 0;
	dl_other->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(dl_other), 0);

	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_task_insert(&deadlock_cl, STARPU_CALLBACK, deadlock_callback, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	const char *msg = vtest_capture_stderr_end();

	CU_ASSERT_EQUAL(atomic_load(&dl_wait_ret), -EDEADLK);
	CU_ASSERT_EQUAL(atomic_load(&dl_all_ret), -EDEADLK);
	CU_ASSERT_EQUAL(atomic_load(&dl_acquire_ret), -EDEADLK);
	CU_ASSERT_EQUAL(atomic_load(&dl_tag_ret), -EDEADLK);
	CU_ASSERT_EQUAL(atomic_load(&dl_cb_wait_ret), -EDEADLK);
	CU_ASSERT_EQUAL(atomic_load(&dl_cb_acquire_ret), -EDEADLK);
	CU_ASSERT_EQUAL(atomic_load(&dl_sync_ret), -EDEADLK);
	CU_ASSERT(contains(msg, "starpu_task_wait called from the codelet of task 'deadlock_probe'"));
	CU_ASSERT(contains(msg, "starpu_data_acquire called from a callback"));

	/* The handle was not left acquired: the application can take it. */
	CU_ASSERT_EQUAL(starpu_data_acquire(dl_handle, STARPU_RW), 0);
	starpu_data_release(dl_handle);
	CU_ASSERT_EQUAL(starpu_task_wait(dl_other), 0);
	starpu_task_destroy(dl_other);
	starpu_data_unregister(dl_handle);
	starpu_shutdown();
}

/* ---------------------------------------------------------------- env */

/* An unknown policy is refused like any malformed value (issue 22 item
 * 12; StarPU 1.3 warns and runs with its default instead), naming the
 * variable or the conf field and listing the valid names. */
static void test_unknown_sched(void)
{
	vtest_setenv("STARPU_SCHED", "no-such-policy");
	vtest_capture_stderr_begin();
	int ret = starpu_init(NULL);
	const char *msg = vtest_capture_stderr_end();
	vtest_env_restore();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_FALSE(starpu_is_initialized());
	if (ret == 0)
		starpu_shutdown();
	CU_ASSERT(contains(msg, "STARPU_SCHED='no-such-policy'"));
	/* The message lists the valid names. */
	CU_ASSERT(contains(msg, "eager"));
	CU_ASSERT(contains(msg, "prio"));
	CU_ASSERT(contains(msg, "lws"));
	CU_ASSERT(contains(msg, "dmdas"));

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = "dmdaa";
	vtest_capture_stderr_begin();
	ret = starpu_init(&conf);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_FALSE(starpu_is_initialized());
	if (ret == 0)
		starpu_shutdown();
	CU_ASSERT(contains(msg, "conf.sched_policy_name='dmdaa'"));

	/* StarPU's names of the component policies are accepted. */
	vtest_setenv("STARPU_SCHED", "modular-eager");
	ret = starpu_init(NULL);
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	check_still_works();
	starpu_shutdown();
}

static void test_sched_help(void)
{
	vtest_setenv("STARPU_SCHED", "help");
	vtest_capture_stderr_begin();
	int ret = starpu_init(NULL);
	const char *msg = vtest_capture_stderr_end();
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	const char *names[] = { "eager", "prio", "random", "ws", "lws" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CU_ASSERT(contains(msg, names[i]));
	check_still_works();
	starpu_shutdown();
}

static void expect_init_rejects(const char *var, const char *value, const char *expected_in_message)
{
	vtest_setenv(var, value);
	vtest_capture_stderr_begin();
	int ret = starpu_init(NULL);
	const char *msg = vtest_capture_stderr_end();
	vtest_env_restore();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, var));
	CU_ASSERT(contains(msg, expected_in_message));
	CU_ASSERT_FALSE(starpu_is_initialized());
	if (ret == 0)
		starpu_shutdown();
}

/* Submission limits: not a count, or a minimum above the maximum. */
static void test_bad_submission_limits(void)
{
	expect_init_rejects("STARPU_LIMIT_MAX_SUBMITTED_TASKS", "many", "many");
	expect_init_rejects("STARPU_LIMIT_MIN_SUBMITTED_TASKS", "-3", "-3");
	vtest_setenv("STARPU_LIMIT_MAX_SUBMITTED_TASKS", "10");
	expect_init_rejects("STARPU_LIMIT_MIN_SUBMITTED_TASKS", "20", "exceeds");
	/* A minimum alone does nothing, and says so. */
	vtest_setenv("STARPU_LIMIT_MIN_SUBMITTED_TASKS", "5");
	vtest_setenv("STARPU_SILENT", "0");	/* the warning is what we check */
	vtest_capture_stderr_begin();
	int ret = starpu_init(NULL);
	const char *msg = vtest_capture_stderr_end();
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT(contains(msg, "STARPU_LIMIT_MIN_SUBMITTED_TASKS=5 has no effect"));
	starpu_shutdown();
	/* Nothing left behind: the next init has no limit. */
	CU_ASSERT_EQUAL_FATAL(starpu_init(NULL), 0);
	starpu_shutdown();
}

static void test_malformed_ncpu(void)
{
	expect_init_rejects("STARPU_NCPU", "abc", "abc");
	expect_init_rejects("STARPU_NCPU", "-1", "-1");
	expect_init_rejects("STARPU_NCPU", "2x", "2x");
	expect_init_rejects("STARPU_NCPUS", "lots", "lots");
	expect_init_rejects("STARPU_NCPU", "100000", "100000");
	/* A well-formed value afterwards works. */
	vtest_setenv("STARPU_NCPU", "1");
	CU_ASSERT_EQUAL_FATAL(starpu_init(NULL), 0);
	vtest_env_restore();
	CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), 1);
	check_still_works();
	starpu_shutdown();
}

static void test_malformed_workers_cpuid(void)
{
	expect_init_rejects("STARPU_WORKERS_CPUID", "a b", "a b");
	expect_init_rejects("STARPU_WORKERS_CPUID", "0,,x", "0,,x");
	expect_init_rejects("STARPU_WORKERS_CPUID", "3-1", "3-1");
	expect_init_rejects("STARPU_WORKERS_CPUID", "", "STARPU_WORKERS_CPUID");
	/* A processing unit this machine does not have. */
	expect_init_rejects("STARPU_WORKERS_CPUID", "0 4096", "4096");
	expect_init_rejects("STARPU_WORKERS_GETBIND", "yes", "yes");
	expect_init_rejects("STARPU_WORKERS_GETBIND", "-1", "-1");
}

/* ---------------------------------------------------------------- cycles */

static void test_tag_cycle(void)
{
	vtest_setenv("STARPU_SILENT", "0");	/* the warning is what we check */
	int ret = start();
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	/* 11 waits for 12, 12 for 13: 13 waiting for 11 closes a cycle. As in
	 * StarPU the dependency is kept (regenerated tasks go round such
	 * cycles); Vela warns, since nothing but a notification from the
	 * application can start it. Depending on itself is an error. */
	starpu_tag_declare_deps(11, 1, (starpu_tag_t) 12);
	starpu_tag_declare_deps(12, 1, (starpu_tag_t) 13);
	vtest_capture_stderr_begin();
	starpu_tag_declare_deps(13, 1, (starpu_tag_t) 11);
	starpu_tag_declare_deps(14, 1, (starpu_tag_t) 14);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT(contains(msg, "cycle"));
	CU_ASSERT(contains(msg, "tag 13"));
	CU_ASSERT(contains(msg, "tag 14 cannot depend on itself"));

	/* The cycle holds: none of its tasks runs until the application
	 * breaks it by notifying one of its tags. */
	atomic_store(&ran, 0);
	for (starpu_tag_t tag = 11; tag <= 14; tag++)
		CU_ASSERT_EQUAL(starpu_task_insert(&count_cl, STARPU_TAG, tag, 0), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(14), 0);
	vtest_sleep_ms(50);
	CU_ASSERT_EQUAL(atomic_load(&ran), 1);
	starpu_tag_notify_restart_from_apps(11);
	starpu_tag_t tags[] = { 11, 12, 13, 14 };
	CU_ASSERT_EQUAL(starpu_tag_wait_array(4, tags), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&ran), 4);
	starpu_shutdown();
}

static void test_task_cycle(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct starpu_task *a = starpu_task_create(), *b = starpu_task_create(), *c = starpu_task_create();
	a->cl = b->cl = c->cl = &count_cl;
	a->name = "A";
	b->name = "B";
	c->name = "C";
	starpu_task_declare_deps_array(b, 1, &a);	/* B after A */
	starpu_task_declare_deps_array(c, 1, &b);	/* C after B */
	vtest_capture_stderr_begin();
	starpu_task_declare_deps_array(a, 1, &c);	/* A after C: a cycle */
	starpu_task_declare_deps_array(a, 1, &a);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT(contains(msg, "cycle"));
	CU_ASSERT(contains(msg, "'A'"));
	CU_ASSERT(contains(msg, "cannot depend on itself"));
	atomic_store(&ran, 0);
	CU_ASSERT_EQUAL(starpu_task_submit(c), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(b), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(a), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&ran), 3);
	starpu_shutdown();
}

/* ---------------------------------------------------------------- data */

static void test_acquire_bad_mode(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	int x = 5;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	vtest_capture_stderr_begin();
	int r1 = starpu_data_acquire(h, STARPU_SCRATCH);
	int r2 = starpu_data_acquire(h, STARPU_REDUX);
	int r3 = starpu_data_acquire(NULL, STARPU_R);
	int r4 = starpu_data_acquire_on_node(h, 7, STARPU_R);
	starpu_data_release(h);	/* not acquired */
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(r1, -EINVAL);
	CU_ASSERT_EQUAL(r2, -EINVAL);
	CU_ASSERT_EQUAL(r3, -EINVAL);
	CU_ASSERT_EQUAL(r4, -EINVAL);
	CU_ASSERT(contains(msg, "access mode"));
	CU_ASSERT(contains(msg, "handle is NULL"));
	CU_ASSERT(contains(msg, "memory node 7"));
	CU_ASSERT(contains(msg, "not acquired"));
	/* The handle is intact. */
	CU_ASSERT_EQUAL(starpu_task_insert(&inc_cl, STARPU_RW, h, 0), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, 6);
	starpu_shutdown();
}

static void test_driver_not_left_to_app(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct starpu_driver d = { .type = STARPU_CPU_WORKER, .id.cpu_id = 0 };
	vtest_capture_stderr_begin();
	int r1 = starpu_driver_init(&d);
	int r2 = starpu_driver_run_once(&d);
	int r3 = starpu_driver_init(NULL);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(r1, -EINVAL);
	CU_ASSERT_EQUAL(r2, -EINVAL);
	CU_ASSERT_EQUAL(r3, -EINVAL);
	CU_ASSERT(contains(msg, "not_launched_drivers"));
	check_still_works();
	starpu_shutdown();

	/* Naming a worker that does not exist in conf.not_launched_drivers. */
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	struct starpu_driver bad = { .type = STARPU_CPU_WORKER, .id.cpu_id = 77 };
	conf.not_launched_drivers = &bad;
	conf.n_not_launched_drivers = 1;
	vtest_capture_stderr_begin();
	int ret = starpu_init(&conf);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(contains(msg, "not_launched_drivers[0]"));
	CU_ASSERT_FALSE(starpu_is_initialized());
}

static const struct vtest_case submit_cases[] =
{
	{ "submit_before_init", test_submit_before_init },
	{ "submit_after_shutdown", test_submit_after_shutdown },
	{ "no_implementation", test_no_implementation },
	{ "where_excludes_all", test_where_excludes_all },
	{ "nbuffers_mismatch", test_nbuffers_mismatch },
	{ "null_handle", test_null_handle },
	{ "bad_worker", test_bad_worker },
	{ "null_value", test_null_value },
	{ "uninitialised_task_and_conf", test_uninitialised_task_and_conf },
	VTEST_END
};

static const struct vtest_case wait_cases[] =
{
	{ "wait_detached", test_wait_detached },
	{ "wait_destroyed", test_wait_destroyed },
	{ "wait_never_submitted", test_wait_never_submitted },
	{ "deadlock_from_codelet_and_callback", test_deadlock_from_codelet_and_callback },
	VTEST_END
};

static const struct vtest_case env_cases[] =
{
	{ "unknown_sched", test_unknown_sched },
	{ "sched_help", test_sched_help },
	{ "malformed_ncpu", test_malformed_ncpu },
	{ "bad_submission_limits", test_bad_submission_limits },
	{ "malformed_workers_cpuid", test_malformed_workers_cpuid },
	VTEST_END
};

static const struct vtest_case graph_cases[] =
{
	{ "tag_cycle", test_tag_cycle },
	{ "task_cycle", test_task_cycle },
	{ "acquire_bad_mode", test_acquire_bad_mode },
	{ "driver_not_left_to_app", test_driver_not_left_to_app },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "submit", NULL, NULL, submit_cases },
	{ "wait", NULL, NULL, wait_cases },
	{ "environment", NULL, NULL, env_cases },
	{ "graph_and_data", NULL, NULL, graph_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	/* The tests set the variables they need; inherited ones must not
	 * interfere. */
	unsetenv("STARPU_SCHED");
	unsetenv("STARPU_NCPU");
	unsetenv("STARPU_NCPUS");
	unsetenv("STARPU_WORKERS_CPUID");
	return vtest_run(argc, argv, suites);
}
