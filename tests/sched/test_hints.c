/* test_hints: the scheduling hints a task carries, as StarPU 1.3 has them.
 *
 * task->workerids / workerids_len (the workers allowed to run the task) are
 * honoured by every predefined policy (starpu_worker_can_execute_task says
 * no for the others, so custom policies honour them too), and a task no
 * allowed worker can run is refused at submission. task->workerorder
 * (STARPU_WORKER_ORDER) orders the tasks given to one worker: they run in
 * order 1, 2, 3... whatever the order of submission, while the worker's
 * other tasks do not wait. The pop prologue callback runs for tasks without
 * a codelet (or with a STARPU_NOWHERE one) too.
 */
#include "vtest.h"

#include <starpu.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int start(const char *policy, int ncpus)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = policy;
	conf.ncpus = ncpus;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf);
}

#define NTASKS 24
static atomic_int ran_on[NTASKS];
static atomic_int nran;

static void where_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	atomic_store(&ran_on[(intptr_t) cl_arg], starpu_worker_get_id());
	atomic_fetch_add(&nran, 1);
}

static struct starpu_codelet where_cl =
{
	.cpu_funcs = { where_cpu },
	.nbuffers = 0,
	.name = "where",
};

/* ---- workerids --------------------------------------------------------- */

static void test_workerids_every_policy(void)
{
	struct starpu_sched_policy **policies = starpu_sched_get_predefined_policies();
	for (unsigned p = 0; policies[p]; p++)
	{
		const char *name = policies[p]->policy_name;
		CU_ASSERT_EQUAL_FATAL(start(name, 3), 0);
		atomic_store(&nran, 0);
		/* Alternately: worker 1 only, workers 0 and 2. */
		static uint32_t only1 = 1u << 1, not1 = (1u << 0) | (1u << 2);
		for (int i = 0; i < NTASKS; i++)
		{
			atomic_store(&ran_on[i], -1);
			struct starpu_task *t = starpu_task_create();
			t->cl = &where_cl;
			t->cl_arg = (void *) (intptr_t) i;
			t->workerids = i % 2 ? &not1 : &only1;
			t->workerids_len = 1;
			CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
		}
		CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
		CU_ASSERT_EQUAL(atomic_load(&nran), NTASKS);
		int wrong = 0;
		for (int i = 0; i < NTASKS; i++)
		{
			int w = atomic_load(&ran_on[i]);
			if (i % 2 ? (w != 0 && w != 2) : w != 1)
				wrong++;
		}
		if (wrong)
			fprintf(stderr, "policy %s: %d tasks ran on a worker they did not allow\n", name, wrong);
		CU_ASSERT_EQUAL(wrong, 0);
		starpu_shutdown();
	}
}

static void test_workerids_queries(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager", 2), 0);
	static uint32_t only1 = 1u << 1, none = 1u << 7;
	struct starpu_task *t = starpu_task_create();
	t->cl = &where_cl;
	t->destroy = 0;
	t->workerids = &only1;
	t->workerids_len = 1;
	CU_ASSERT_EQUAL(starpu_worker_can_execute_task(0, t, 0), 0);
	CU_ASSERT_NOT_EQUAL(starpu_worker_can_execute_task(1, t, 0), 0);
	CU_ASSERT_EQUAL(starpu_worker_can_execute_task_first_impl(0, t, NULL), 0);
	/* execute_on_a_specific_worker takes precedence */
	t->execute_on_a_specific_worker = 1;
	t->workerid = 0;
	CU_ASSERT_NOT_EQUAL(starpu_worker_can_execute_task(0, t, 0), 0);
	t->execute_on_a_specific_worker = 0;
	/* nobody allowed: refused (StarPU would wait forever) */
	t->workerids = &none;
	vtest_capture_stderr_begin();
	int ret = starpu_task_submit(t);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -ENODEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "workerids"));
	starpu_task_destroy(t);
	starpu_shutdown();
}

/* ---- workerorder ------------------------------------------------------- */

static int order_seen[16];
static atomic_int norder;

static void order_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	int i = atomic_fetch_add(&norder, 1);
	if (i < 16)
		__atomic_store_n(&order_seen[i], (int) (intptr_t) cl_arg, __ATOMIC_SEQ_CST);
}

static struct starpu_codelet order_cl =
{
	.cpu_funcs = { order_cpu },
	.nbuffers = 0,
	.name = "order",
};

static int insert_ordered(int worker, int order, int tag)
{
	if (order)
		return starpu_task_insert(&order_cl, STARPU_EXECUTE_ON_WORKER, worker, STARPU_WORKER_ORDER, (unsigned) order,
					  STARPU_CL_ARGS_NFREE, (void *) (intptr_t) tag, (size_t) 0, 0);
	return starpu_task_insert(&order_cl, STARPU_EXECUTE_ON_WORKER, worker,
				  STARPU_CL_ARGS_NFREE, (void *) (intptr_t) tag, (size_t) 0, 0);
}

static void test_workerorder(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager", 2), 0);
	atomic_store(&norder, 0);
	/* out of order, with pauses so that each could run at once */
	const int ord[] = { 3, 1, 2, 5, 4 };
	for (int i = 0; i < 5; i++)
	{
		CU_ASSERT_EQUAL(insert_ordered(0, ord[i], ord[i]), 0);
		vtest_sleep_ms(5);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&norder), 5);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(__atomic_load_n(&order_seen[i], __ATOMIC_SEQ_CST), i + 1);

	/* order 7 waits for 6; a task without order does not */
	atomic_store(&norder, 0);
	CU_ASSERT_EQUAL(insert_ordered(0, 7, 7), 0);
	CU_ASSERT_EQUAL(insert_ordered(0, 0, 100), 0);
	vtest_sleep_ms(30);
	CU_ASSERT_EQUAL(atomic_load(&norder), 1);
	CU_ASSERT_EQUAL(__atomic_load_n(&order_seen[0], __ATOMIC_SEQ_CST), 100);
	CU_ASSERT_EQUAL(insert_ordered(0, 6, 6), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&norder), 3);
	CU_ASSERT_EQUAL(__atomic_load_n(&order_seen[1], __ATOMIC_SEQ_CST), 6);
	CU_ASSERT_EQUAL(__atomic_load_n(&order_seen[2], __ATOMIC_SEQ_CST), 7);

	/* an order already used: run anyway, with a message */
	vtest_capture_stderr_begin();
	int ret = insert_ordered(0, 2, 2);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "order 2"));
	/* without execute_on_a_specific_worker, workerorder is ignored */
	CU_ASSERT_EQUAL(starpu_task_insert(&order_cl, STARPU_WORKER_ORDER, 50u, STARPU_CL_ARGS_NFREE, (void *) 50, (size_t) 0, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_shutdown();
}

/* ---- pop prologue ------------------------------------------------------ */

static atomic_int pops;

static void pop_prologue(void *arg)
{
	(void) arg;
	atomic_fetch_add(&pops, 1);
}

static void test_pop_prologue_without_codelet(void)
{
	CU_ASSERT_EQUAL_FATAL(start("lws", 2), 0);
	atomic_store(&pops, 0);
	static struct starpu_codelet nowhere_cl = { .where = STARPU_NOWHERE, .nbuffers = 0, .name = "nowhere" };
	struct starpu_codelet *cls[3] = { NULL, &nowhere_cl, &where_cl };
	for (int i = 0; i < 3; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = cls[i];
		t->cl_arg = 0;
		t->prologue_callback_pop_func = pop_prologue;
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&pops), 3);
	starpu_shutdown();
}

static const struct vtest_case cases[] =
{
	{ "workerids_every_policy", test_workerids_every_policy },
	{ "workerids_queries", test_workerids_queries },
	{ "workerorder", test_workerorder },
	{ "pop_prologue_without_codelet", test_pop_prologue_without_codelet },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "hints", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
