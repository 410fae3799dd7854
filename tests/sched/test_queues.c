/* test_queues.c — the task queues the built-in policies share
 * (runtime/sched/queues.c): FIFO order, priority order with FIFO among
 * equals, levels created and dropped on demand, tasks a worker cannot run
 * left in place. Internal module: linked against libvela-internal. */
#include <starpu.h>
#include <limits.h>
#include <stdlib.h>
#include "vtest.h"
#include "sched/queues.h"

static void nop(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static struct starpu_codelet cpu_cl = { .cpu_funcs = { nop }, .nbuffers = 0 };
static struct starpu_codelet cuda_cl = { .cuda_funcs = { nop }, .nbuffers = 0, .where = STARPU_CUDA };

static int start(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	conf.precedence_over_environment_variables = 1;
	/* No worker may take the tasks we queue by hand. */
	return starpu_init(&conf);
}

static struct starpu_task *mk(int prio, struct starpu_codelet *cl)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->priority = prio;
	return t;
}

static void test_fifo_order(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct task_fifo *q = sched_zalloc_aligned(sizeof(*q));
	fifo_init(q);
	struct starpu_task *t[5];
	for (int i = 0; i < 5; i++)
	{
		t[i] = mk(0, &cpu_cl);
		fifo_push_back(q, t[i]);
	}
	CU_ASSERT_EQUAL(fifo_ntasks(q), 5);
	CU_ASSERT_PTR_EQUAL(fifo_pop_back(q), t[4]);
	struct starpu_task *front = mk(0, &cpu_cl);
	fifo_push_front(q, front);
	CU_ASSERT_PTR_EQUAL(fifo_pop_front(q), front);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_PTR_EQUAL(fifo_pop_for_worker(q, 0, 0), t[i]);
	CU_ASSERT_PTR_NULL(fifo_pop_front(q));
	CU_ASSERT_EQUAL(fifo_ntasks(q), 0);
	for (int i = 0; i < 5; i++)
		starpu_task_destroy(t[i]);
	starpu_task_destroy(front);
	fifo_destroy(q);
	free(q);
	starpu_shutdown();
}

static void test_fifo_skips_what_worker_cannot_run(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct task_fifo *q = sched_zalloc_aligned(sizeof(*q));
	fifo_init(q);
	struct starpu_task *gpu = mk(0, &cuda_cl), *cpu = mk(0, &cpu_cl);
	fifo_push_back(q, gpu);
	fifo_push_back(q, cpu);
	/* Worker 0 is a CPU: it skips the CUDA-only task, which stays. */
	CU_ASSERT_PTR_EQUAL(fifo_pop_for_worker(q, 0, 0), cpu);
	CU_ASSERT_PTR_NULL(fifo_pop_for_worker(q, 0, 0));
	CU_ASSERT_EQUAL(fifo_ntasks(q), 1);
	CU_ASSERT_PTR_EQUAL(fifo_pop_front(q), gpu);
	starpu_task_destroy(gpu);
	starpu_task_destroy(cpu);
	fifo_destroy(q);
	free(q);
	starpu_shutdown();
}

static void test_prio_order(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct task_prioq *q = sched_zalloc_aligned(sizeof(*q));
	prioq_init(q);
	/* Extreme and repeated priorities; FIFO among equals. */
	int prios[] = { 0, 5, INT_MIN, 5, INT_MAX, -3, 0, 5, 2 };
	enum { N = sizeof(prios) / sizeof(prios[0]) };
	struct starpu_task *t[N];
	for (int i = 0; i < N; i++)
	{
		t[i] = mk(prios[i], &cpu_cl);
		prioq_push(q, t[i]);
	}
	CU_ASSERT_EQUAL(prioq_ntasks(q), N);
	int expected[] = { 4, 1, 3, 7, 8, 0, 6, 5, 2 };
	for (int i = 0; i < N; i++)
		CU_ASSERT_PTR_EQUAL(prioq_pop_for_worker(q, 0), t[expected[i]]);
	CU_ASSERT_PTR_NULL(prioq_pop_for_worker(q, 0));
	CU_ASSERT_EQUAL(q->nlevels, 0);
	/* Levels come back after being emptied. */
	prioq_push(q, t[0]);
	CU_ASSERT_EQUAL(q->nlevels, 1);
	CU_ASSERT_PTR_EQUAL(prioq_pop_for_worker(q, 0), t[0]);
	for (int i = 0; i < N; i++)
		starpu_task_destroy(t[i]);
	prioq_destroy(q);
	free(q);
	starpu_shutdown();
}

static void test_prio_many_levels(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct task_prioq *q = sched_zalloc_aligned(sizeof(*q));
	prioq_init(q);
	enum { N = 1000 };
	struct starpu_task **t = malloc(sizeof(*t) * N);
	srand(7);
	for (int i = 0; i < N; i++)
	{
		t[i] = mk(rand() % 200 - 100, &cpu_cl);
		prioq_push(q, t[i]);
	}
	int last = INT_MAX, n = 0;
	struct starpu_task *got;
	while ((got = prioq_pop_for_worker(q, 0)))
	{
		CU_ASSERT(got->priority <= last);
		last = got->priority;
		n++;
	}
	CU_ASSERT_EQUAL(n, N);
	for (int i = 0; i < N; i++)
		starpu_task_destroy(t[i]);
	free(t);
	prioq_destroy(q);
	free(q);
	starpu_shutdown();
}

static const struct vtest_case cases[] =
{
	{ "fifo_order", test_fifo_order },
	{ "fifo_skips_what_worker_cannot_run", test_fifo_skips_what_worker_cannot_run },
	{ "prio_order", test_prio_order },
	{ "prio_many_levels", test_prio_many_levels },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "queues", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
