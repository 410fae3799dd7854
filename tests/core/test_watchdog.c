/* test_watchdog: STARPU_WATCHDOG_TIMEOUT turns a hang into a report.
 *
 * A deliberate stall: a task whose tag depends on a tag nobody notifies, a
 * task declared to depend on it, a task whose codelet blocks, and a task
 * waiting for data the application holds. With a 0.2 s timeout, the report
 * must name each of them and what it waits for; once the test lets them
 * go, everything completes. STARPU_WATCHDOG_CRASH=1 aborts after the
 * report (in a child process); malformed values make starpu_init fail
 * with -EINVAL; without the variable there is no report.
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vtest.h"

static _Atomic int hold = 1;
static _Atomic int holding;

static void blocker(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	holding = 1;
	while (hold)
		usleep(1000);
}

static void nothing(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static struct starpu_codelet block_cl = { .cpu_funcs = { blocker }, .nbuffers = 0, .name = "stuck_kernel" };
static struct starpu_codelet tag_cl = { .cpu_funcs = { nothing }, .nbuffers = 0, .name = "on_tag" };
static struct starpu_codelet after_cl = { .cpu_funcs = { nothing }, .nbuffers = 0, .name = "after_tagged" };
static struct starpu_codelet read_cl = { .cpu_funcs = { nothing }, .nbuffers = 1, .modes = { STARPU_R }, .name = "reader" };

static int start(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.nmpi_ms = 0;
	return starpu_init(&conf);
}

/* Submits the stall; returns the tasks to release later. */
static void make_stall(starpu_data_handle_t h)
{
	struct starpu_task *k = starpu_task_create();
	k->cl = &block_cl;
	CU_ASSERT_EQUAL(starpu_task_submit(k), 0);

	starpu_tag_declare_deps((starpu_tag_t) 7, 1, (starpu_tag_t) 8);
	struct starpu_task *t = starpu_task_create();
	t->cl = &tag_cl;
	t->use_tag = 1;
	t->tag_id = 7;
	struct starpu_task *a = starpu_task_create();
	a->cl = &after_cl;
	starpu_task_declare_deps_array(a, 1, &t);
	CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(a), 0);

	/* The application holds h for writing: a reader waits. */
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_W), 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&read_cl, STARPU_R, h, 0), 0);
}

static void test_report(void)
{
	vtest_setenv("STARPU_WATCHDOG_TIMEOUT", "200000");
	vtest_setenv("STARPU_WATCHDOG_CRASH", NULL);
	vtest_setenv("STARPU_WATCHDOG_DELAY", NULL);
	vtest_setenv("STARPU_SILENT", "1");
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	int v = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	starpu_data_set_name(h, "held");
	hold = 1;
	vtest_capture_stderr_begin();
	make_stall(h);
	while (!holding)
		usleep(1000);
	vtest_sleep_ms(700);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "watchdog: no task completed in the last"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "4 task(s) submitted and not done"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "task 'stuck_kernel'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "running on CPU"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "it carries tag 7"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "task 'after_tagged'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "declared dependencies on task(s) 'on_tag'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "task 'reader'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "data 'held'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "which the application holds"));

	/* Let everything go: it completes, and the watchdog stops. */
	hold = 0;
	starpu_data_release(h);
	starpu_tag_notify_from_apps((starpu_tag_t) 8);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_data_unregister(h);
	starpu_shutdown();
	vtest_env_restore();
}

/* Without the variable, nothing is reported. */
static void test_off(void)
{
	vtest_setenv("STARPU_WATCHDOG_TIMEOUT", NULL);
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	hold = 1;
	holding = 0;
	vtest_capture_stderr_begin();
	struct starpu_task *k = starpu_task_create();
	k->cl = &block_cl;
	CU_ASSERT_EQUAL(starpu_task_submit(k), 0);
	while (!holding)
		usleep(1000);
	vtest_sleep_ms(300);
	hold = 0;
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NULL(strstr(err, "watchdog"));
	starpu_shutdown();
	vtest_env_restore();
}

static void test_crash(void)
{
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
	{
		setenv("STARPU_WATCHDOG_TIMEOUT", "100000", 1);
		setenv("STARPU_WATCHDOG_CRASH", "1", 1);
		setenv("STARPU_WATCHDOG_DELAY", "50000", 1);
		/* No core file for the deliberate abort. */
		signal(SIGABRT, SIG_DFL);
		if (start())
			_exit(3);
		hold = 1;
		struct starpu_task *k = starpu_task_create();
		k->cl = &block_cl;
		if (starpu_task_submit(k))
			_exit(4);
		sleep(20);
		_exit(5);	/* the watchdog did not abort */
	}
	int status;
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

static void test_bad_values(void)
{
	const char *bad[][2] = {
		{ "STARPU_WATCHDOG_TIMEOUT", "abc" },
		{ "STARPU_WATCHDOG_TIMEOUT", "-5" },
		{ "STARPU_WATCHDOG_DELAY", "1s" },
		{ "STARPU_WATCHDOG_CRASH", "yes" },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		vtest_setenv(bad[i][0], bad[i][1]);
		vtest_capture_stderr_begin();
		int ret = start();
		const char *err = vtest_capture_stderr_end();
		CU_ASSERT_EQUAL(ret, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i][0]));
		if (ret == 0)
			starpu_shutdown();
		vtest_env_restore();
	}
}

static const struct vtest_case cases[] =
{
	{ "report", test_report },
	{ "off", test_off },
	{ "crash", test_crash },
	{ "bad_values", test_bad_values },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "watchdog", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
