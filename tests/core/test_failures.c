/* test_failures: tasks that can never run fail visibly, and the run ends.
 *
 * RAM is limited (STARPU_LIMIT_CPU_MEM) and there is no swap disk, so data
 * the runtime allocates (home node -1) stays in RAM once written: when RAM
 * is full of it, a task on other such data can never get its memory. Each
 * of those tasks must fail with -ENOMEM, naming the task, the data and the
 * node; the others complete; starpu_task_wait_for_all returns. Two buffers
 * per task used to livelock: each worker saw the other's pins as memory
 * that waiting could free, forever.
 *
 * A failed task is visible: vela_task_get_error and starpu_task_wait give
 * its error, vela_task_failed_count counts it, its callback still runs,
 * each cause is printed once however many tasks fail for it, and
 * starpu_shutdown reports the count per cause.
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vtest.h"

#define NDATA 64
#define NTASKS 500
#define MIB (1u << 20)

static _Atomic int ran;
static _Atomic int called_back;

static void touch(void *buffers[], void *arg)
{
	(void) arg;
	char *p = (char *) STARPU_VECTOR_GET_PTR(buffers[0]);
	p[0]++;
	ran++;
}

static struct starpu_codelet rw_r_cl =
{
	.cpu_funcs = { touch },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_R },
	.name = "rw_r",
};

static struct starpu_codelet w_cl =
{
	.cpu_funcs = { touch },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "fill",
};

static void count_callback(void *arg)
{
	(void) arg;
	called_back++;
}

/* A hang fails the test at once, with a reason, rather than at the
 * harness's time limit. */
static void *stall_guard(void *arg)
{
	sleep(*(unsigned *) arg);
	fprintf(stderr, "test_failures: still waiting after %u s: the run does not end (livelock)\n", *(unsigned *) arg);
	_exit(1);
	return NULL;
}

static int start(const char *limit_mib)
{
	vtest_setenv("STARPU_LIMIT_CPU_MEM", limit_mib);
	vtest_setenv("STARPU_DISK_SWAP", NULL);
	vtest_setenv("STARPU_SILENT", "1");
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.nmpi_ms = 0;
	ran = 0;
	called_back = 0;
	return starpu_init(&conf);
}

static unsigned count_lines(const char *text, const char *needle)
{
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_never_fits_ends(void)
{
	if (start("8"))
	{
		CU_FAIL("starpu_init");
		return;
	}
	static unsigned guard_s = 120;
	pthread_t guard;
	pthread_create(&guard, NULL, stall_guard, &guard_s);

	starpu_data_handle_t h[NDATA];
	char names[NDATA][16];
	for (int i = 0; i < NDATA; i++)
	{
		starpu_vector_data_register(&h[i], -1, 0, MIB, 1);
		snprintf(names[i], sizeof(names[i]), "v%d", i);
		starpu_data_set_name(h[i], names[i]);
	}
	static struct starpu_task *tasks[NTASKS];
	vtest_capture_stderr_begin();
	for (int i = 0; i < NTASKS; i++)
	{
		tasks[i] = starpu_task_create();
		tasks[i]->cl = &rw_r_cl;
		tasks[i]->handles[0] = h[i % NDATA];
		tasks[i]->handles[1] = h[(i * 7 + 1) % NDATA];
		tasks[i]->callback_func = count_callback;
		tasks[i]->destroy = 0;
		tasks[i]->detach = 0;
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(tasks[i]), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	const char *err = vtest_capture_stderr_end();
	pthread_cancel(guard);
	pthread_join(guard, NULL);

	int failed = 0, others = 0;
	for (int i = 0; i < NTASKS; i++)
	{
		int e = vela_task_get_error(tasks[i]);
		failed += e == -ENOMEM;
		others += e != 0 && e != -ENOMEM;
		CU_ASSERT_EQUAL(starpu_task_wait(tasks[i]), e);
		starpu_task_destroy(tasks[i]);
	}
	printf("never_fits: %d tasks ran, %d failed with -ENOMEM\n", (int) ran, failed);
	CU_ASSERT(ran > 0);
	CU_ASSERT(failed > 0);
	CU_ASSERT_EQUAL(others, 0);
	CU_ASSERT_EQUAL(ran + failed, NTASKS);
	CU_ASSERT_EQUAL((int) vela_task_failed_count(), failed);
	CU_ASSERT_EQUAL((int) called_back, NTASKS);
	/* Task, data and node named; one line per cause (a datum here), not
	 * two per task. */
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "task 'rw_r' not executed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "data 'v"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot be allocated on memory node 0 (RAM 0)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "-ENOMEM"));
	unsigned lines = count_lines(err, "[vela] error:");
	CU_ASSERT(lines <= NDATA);
	CU_ASSERT(lines < (unsigned) failed);

	for (int i = 0; i < NDATA; i++)
		starpu_data_unregister(h[i]);
	vtest_capture_stderr_begin();
	starpu_shutdown();
	err = vtest_capture_stderr_end();
	char expect[64];
	snprintf(expect, sizeof(expect), "starpu_shutdown: %d task(s) failed", failed);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, expect));
	vtest_env_restore();
}

/* A datum larger than RAM's limit: every task on it fails at once, the
 * waiter gets the error, one message for the lot. */
static void test_failed_task_visible(void)
{
	if (start("1"))
	{
		CU_FAIL("starpu_init");
		return;
	}
	starpu_data_handle_t big;
	starpu_vector_data_register(&big, -1, 0, 2 * MIB, 1);
	starpu_data_set_name(big, "big");
	vtest_capture_stderr_begin();
	struct starpu_task *t = starpu_task_create();
	t->cl = &w_cl;
	t->handles[0] = big;
	t->callback_func = count_callback;
	t->detach = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(t), -ENOMEM);	/* destroys it */
	for (int i = 0; i < 50; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&w_cl, STARPU_W, big, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(vela_task_failed_count(), 51);
	CU_ASSERT_EQUAL((int) called_back, 1);
	CU_ASSERT_EQUAL((int) ran, 0);
	CU_ASSERT_EQUAL(count_lines(err, "[vela] error:"), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "data 'big'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "can never fit"));

	/* A task that ran has no error. */
	starpu_data_handle_t small;
	starpu_vector_data_register(&small, -1, 0, 1024, 1);
	t = starpu_task_create();
	t->cl = &w_cl;
	t->handles[0] = small;
	t->detach = 0;
	t->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(t), 0);
	CU_ASSERT_EQUAL(vela_task_get_error(t), 0);
	starpu_task_destroy(t);
	CU_ASSERT_EQUAL(vela_task_get_error(NULL), -EINVAL);

	starpu_data_unregister(big);
	starpu_data_unregister(small);
	vtest_capture_stderr_begin();
	starpu_shutdown();
	err = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "starpu_shutdown: 51 task(s) failed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "  51 task(s): data 'big'"));
	/* A new run starts from zero. */
	CU_ASSERT_EQUAL(start("1"), 0);
	CU_ASSERT_EQUAL(vela_task_failed_count(), 0);
	starpu_shutdown();
	vtest_env_restore();
}

static const struct vtest_case cases[] =
{
	{ "never_fits_ends", test_never_fits_ends },
	{ "failed_task_visible", test_failed_task_visible },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "failures", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
