/* test_os_faults.c — error paths reached through a fault-injecting OS
 * backend (the SQLite testvfs idea): a backend that wraps the POSIX one and
 * fails chosen calls. starpu_init must fail cleanly when a worker thread
 * cannot be created, and the runtime must start normally afterwards.
 * Internal: links libvela-internal to install the backend. */
#include <starpu.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include "vtest.h"
#include "os/os.h"

static struct os_ops faulty;
static _Atomic int creates_before_failure;
static _Atomic int creates;

static int faulty_thread_create(os_thread_t *thread, const struct os_thread_attr *attr, void *(*fn)(void *), void *arg)
{
	if (atomic_fetch_add(&creates, 1) >= atomic_load(&creates_before_failure))
		return EAGAIN;
	return os_posix_ops.thread_create(thread, attr, fn, arg);
}

static _Atomic int ran;

static void count_cpu(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	atomic_fetch_add(&ran, 1);
}

static struct starpu_codelet count_cl = { .cpu_funcs = { count_cpu }, .nbuffers = 0, .name = "count" };

static int init_ncpus(int n)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = n;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf);
}

static void test_thread_create_fails(void)
{
	faulty = os_posix_ops;
	faulty.name = "faulty";
	faulty.thread_create = faulty_thread_create;

	for (int allowed = 0; allowed < 3; allowed++)
	{
		atomic_store(&creates, 0);
		atomic_store(&creates_before_failure, allowed);
		const struct os_ops *old = os_set_backend(&faulty);
		vtest_capture_stderr_begin();
		int ret = init_ncpus(3);
		const char *msg = vtest_capture_stderr_end();
		os_set_backend(old);
		/* The failure is reported, naming the worker that could not start,
		 * and the workers already started were stopped. */
		CU_ASSERT_EQUAL(ret, -EAGAIN);
		CU_ASSERT(strstr(msg, "cannot start the thread of CPU") != NULL);
		CU_ASSERT_FALSE(starpu_is_initialized());
	}

	/* The real backend works again, in the same process. */
	CU_ASSERT_EQUAL_FATAL(init_ncpus(2), 0);
	atomic_store(&ran, 0);
	for (int i = 0; i < 50; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&count_cl, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&ran), 50);
	starpu_shutdown();
}

static const struct vtest_case cases[] =
{
	{ "thread_create_fails", test_thread_create_fails },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "os_faults", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
