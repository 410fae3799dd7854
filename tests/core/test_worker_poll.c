/* test_worker_poll.c — whether idle workers poll before sleeping
 * (rt.workers_poll, drivers/driver_loop.c): not in a process that may run
 * on one PU only (mpirun --bind-to core, taskset -c N, a one-PU machine:
 * a polling worker would take that core from whoever submits), yes
 * otherwise. The binding is the one of the thread calling starpu_init,
 * read at each init.
 * Internal: links libvela-internal for rt. */
#define _GNU_SOURCE
#include "vtest.h"
#include "core/rt.h"

#include <sched.h>
#include <unistd.h>

static void noop(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static struct starpu_codelet noop_cl = { .cpu_funcs = { noop }, .nbuffers = 0, .name = "noop" };

static cpu_set_t saved;

static int suite_init(void)
{
	return sched_getaffinity(0, sizeof(saved), &saved);
}

static int suite_clean(void)
{
	return sched_setaffinity(0, sizeof(saved), &saved);
}

/* The first CPU this thread may run on, or -1. */
static int first_cpu(void)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &saved))
			return c;
	return -1;
}

static void test_one_pu(void)
{
	int c = first_cpu();
	CU_ASSERT_FATAL(c >= 0);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(c, &one);
	CU_ASSERT_FATAL(sched_setaffinity(0, sizeof(one), &one) == 0);
	CU_ASSERT_FATAL(vtest_start_cpus(1) == 0);
	CU_ASSERT_EQUAL(rt.workers_poll, 0);
	/* Work still gets done: a worker that sleeps is woken by pushes. */
	for (int i = 0; i < 50; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&noop_cl, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	vtest_stop();
	CU_ASSERT_FATAL(sched_setaffinity(0, sizeof(saved), &saved) == 0);
}

static void test_several_pus(void)
{
	CU_ASSERT_FATAL(vtest_start_cpus(1) == 0);
	/* The binding the test started with: polling unless it is one PU. */
	CU_ASSERT_EQUAL(rt.workers_poll, CPU_COUNT(&saved) != 1);
	vtest_stop();
}

int main(int argc, char **argv)
{
	static const struct vtest_case cases[] = {
		{ "bound to one PU: idle workers do not poll", test_one_pu },
		{ "the whole binding: idle workers poll", test_several_pus },
		VTEST_END
	};
	static const struct vtest_suite suites[] = {
		{ "worker polling", suite_init, suite_clean, cases },
		{ NULL, NULL, NULL, NULL }
	};
	return vtest_run(argc, argv, suites);
}
