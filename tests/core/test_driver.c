/* test_driver: CPU drivers run by the application.
 *
 * With conf.not_launched_drivers naming a CPU driver, StarPU creates no
 * thread for that worker: the application runs it, either step by step
 * (starpu_driver_init, starpu_driver_run_once in a loop,
 * starpu_driver_deinit) or whole (starpu_driver_run in a thread of its own,
 * stopped with starpu_drivers_request_termination). The tasks must run on the
 * thread that drives the worker, which the codelet checks with pthread_self.
 * The driving thread, bound to the worker's core meanwhile, gets its own
 * CPU binding back when the driver stops (the next starpu_init reads it:
 * STARPU_WORKERS_GETBIND).
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vtest.h"

static atomic_int done_count;
static atomic_int wrong_thread;
static atomic_int wrong_worker;
static pthread_t driver_thread;	/* written before any task is submitted */

static void on_driver_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	if (!pthread_equal(pthread_self(), driver_thread))
		atomic_fetch_add(&wrong_thread, 1);
	if (starpu_worker_get_id() != 0)
		atomic_fetch_add(&wrong_worker, 1);
	atomic_fetch_add(&done_count, 1);
}

static struct starpu_codelet on_driver_cl =
{
	.cpu_funcs = { on_driver_cpu },
	.nbuffers = 0,
};

static struct starpu_driver cpu_driver =
{
	.type = STARPU_CPU_WORKER,
	.id.cpu_id = 0,
};

/* One CPU worker, driven by the application. */
static int start_with_app_driver(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	conf.not_launched_drivers = &cpu_driver;
	conf.n_not_launched_drivers = 1;
	return starpu_init(&conf);
}

static void reset_counters(void)
{
	atomic_store(&done_count, 0);
	atomic_store(&wrong_thread, 0);
	atomic_store(&wrong_worker, 0);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_run_once_loop(void)
{
	reset_counters();
	driver_thread = pthread_self();
	cpu_set_t before, after;
	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(before), &before), 0);
	CU_ASSERT_EQUAL_FATAL(start_with_app_driver(), 0);
	CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), 1);

	CU_ASSERT_EQUAL(starpu_driver_init(&cpu_driver), 0);
	enum { N = 30 };
	for (int i = 0; i < N; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &on_driver_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	}
	/* nobody else can run them */
	CU_ASSERT_EQUAL(atomic_load(&done_count), 0);

	/* bounded, so that a broken driver fails instead of hanging */
	double deadline = now_s() + 10.0;
	while (starpu_task_nsubmitted() > 0 && now_s() < deadline)
		CU_ASSERT_EQUAL(starpu_driver_run_once(&cpu_driver), 0);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 0);
	CU_ASSERT_EQUAL(atomic_load(&done_count), N);
	CU_ASSERT_EQUAL(atomic_load(&wrong_thread), 0);
	CU_ASSERT_EQUAL(atomic_load(&wrong_worker), 0);

	/* a second batch, with dependencies, through the same driver */
	struct starpu_task *first = starpu_task_create();
	first->cl = &on_driver_cl;
	struct starpu_task *second = starpu_task_create();
	second->cl = &on_driver_cl;
	starpu_task_declare_deps_array(second, 1, &first);
	CU_ASSERT_EQUAL(starpu_task_submit(second), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(first), 0);
	deadline = now_s() + 10.0;
	while (starpu_task_nsubmitted() > 0 && now_s() < deadline)
		CU_ASSERT_EQUAL(starpu_driver_run_once(&cpu_driver), 0);
	CU_ASSERT_EQUAL(atomic_load(&done_count), N + 2);

	CU_ASSERT_EQUAL(starpu_driver_deinit(&cpu_driver), 0);
	/* everything is terminated: this returns at once */
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_shutdown();
	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(after), &after), 0);
	CU_ASSERT(CPU_EQUAL(&before, &after));
}

struct run_args
{
	int ret;
	atomic_int started;
};

static void *driver_main(void *arg)
{
	struct run_args *a = arg;
	atomic_store(&a->started, 1);
	a->ret = starpu_driver_run(&cpu_driver);
	return NULL;
}

static void test_driver_run_thread(void)
{
	reset_counters();
	CU_ASSERT_EQUAL_FATAL(start_with_app_driver(), 0);

	struct run_args args = { .ret = -1 };
	atomic_store(&args.started, 0);
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, driver_main, &args), 0);
	driver_thread = th;

	enum { N = 50 };
	for (int i = 0; i < N; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &on_driver_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	}
	/* the driver thread executes them while the main thread waits */
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&done_count), N);

	/* a synchronous task from the main thread also goes through it */
	struct starpu_task *task = starpu_task_create();
	task->cl = &on_driver_cl;
	task->synchronous = 1;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(atomic_load(&done_count), N + 1);

	starpu_drivers_request_termination();
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(args.ret, 0);
	CU_ASSERT_EQUAL(atomic_load(&wrong_thread), 0);
	CU_ASSERT_EQUAL(atomic_load(&wrong_worker), 0);
	starpu_shutdown();
}

/* Two CPU workers, only the first driven by the application: the other one
 * runs its tasks on its own, the first one's wait for the application. */
static atomic_int per_worker[2];

static void count_per_worker_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	int id = starpu_worker_get_id();
	if (id == 0 && !pthread_equal(pthread_self(), driver_thread))
		atomic_fetch_add(&wrong_thread, 1);
	if (id == 1 && pthread_equal(pthread_self(), driver_thread))
		atomic_fetch_add(&wrong_thread, 1);
	if (id >= 0 && id < 2)
		atomic_fetch_add(&per_worker[id], 1);
}

static struct starpu_codelet count_per_worker_cl =
{
	.cpu_funcs = { count_per_worker_cpu },
	.nbuffers = 0,
};

static int submit_on(int workerid)
{
	struct starpu_task *task = starpu_task_create();
	task->cl = &count_per_worker_cl;
	task->execute_on_a_specific_worker = 1;
	task->workerid = (unsigned) workerid;
	return starpu_task_submit(task);
}

static void test_mixed_drivers(void)
{
	reset_counters();
	atomic_store(&per_worker[0], 0);
	atomic_store(&per_worker[1], 0);
	driver_thread = pthread_self();

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	conf.not_launched_drivers = &cpu_driver;
	conf.n_not_launched_drivers = 1;
	CU_ASSERT_EQUAL_FATAL(starpu_init(&conf), 0);
	CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), 2);
	CU_ASSERT_EQUAL(starpu_driver_init(&cpu_driver), 0);

	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(submit_on(1), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&per_worker[1]), 10);
	CU_ASSERT_EQUAL(atomic_load(&per_worker[0]), 0);

	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(submit_on(0), 0);
	struct timespec ts = { 0, 50 * 1000000L };
	nanosleep(&ts, NULL);
	CU_ASSERT_EQUAL(atomic_load(&per_worker[0]), 0);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 10);
	double deadline = now_s() + 10.0;
	while (starpu_task_nsubmitted() > 0 && now_s() < deadline)
		CU_ASSERT_EQUAL(starpu_driver_run_once(&cpu_driver), 0);
	CU_ASSERT_EQUAL(atomic_load(&per_worker[0]), 10);
	CU_ASSERT_EQUAL(atomic_load(&wrong_thread), 0);

	CU_ASSERT_EQUAL(starpu_driver_deinit(&cpu_driver), 0);
	starpu_shutdown();
}

static const struct vtest_case driver_cases[] =
{
	{ "run_once_loop", test_run_once_loop },
	{ "driver_run_thread", test_driver_run_thread },
	{ "mixed_drivers", test_mixed_drivers },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "driver", NULL, NULL, driver_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
