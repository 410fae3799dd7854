/* compat_hints: scheduling hints (issue 23, group 5). task->workerids under
 * several policies, task->workerorder (STARPU_WORKER_ORDER), the pop
 * prologue of a task without codelet.
 */
#include "compat.h"

#define NTASKS 24
static int ran_on[NTASKS];

static void where_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	__atomic_store_n(&ran_on[(intptr_t) cl_arg], starpu_worker_get_id(), __ATOMIC_SEQ_CST);
}

static struct starpu_codelet where_cl = { .cpu_funcs = { where_cpu }, .nbuffers = 0 };

/* Policies both libraries have and that StarPU 1.3 runs restricted tasks
 * with (its heteroprio asserts, its modular-heft crashes without models). */
static const char *const policies[] = { "eager", "prio", "random", "ws", "lws", "dm", "dmda", "modular-eager", NULL };

static void workerids(const char *policy)
{
	if (compat_start(3, policy))
	{
		CHECK(!"starpu_init");
		return;
	}
	static uint32_t only1 = 1u << 1, not1 = (1u << 0) | (1u << 2);
	for (int i = 0; i < NTASKS; i++)
	{
		ran_on[i] = -1;
		struct starpu_task *t = starpu_task_create();
		t->cl = &where_cl;
		t->cl_arg = (void *) (intptr_t) i;
		t->workerids = i % 2 ? &not1 : &only1;
		t->workerids_len = 1;
		CHECK(starpu_task_submit(t) == 0);
	}
	starpu_task_wait_for_all();
	int wrong = 0;
	for (int i = 0; i < NTASKS; i++)
		if (i % 2 ? (ran_on[i] != 0 && ran_on[i] != 2) : ran_on[i] != 1)
			wrong++;
	if (wrong)
		fprintf(stderr, "%s: %d tasks on workers they leave out\n", policy, wrong);
	CHECK(wrong == 0);
	struct starpu_task *t = starpu_task_create();
	t->cl = &where_cl;
	t->destroy = 0;
	t->workerids = &only1;
	t->workerids_len = 1;
	CHECK(!starpu_worker_can_execute_task(0, t, 0));
	CHECK(starpu_worker_can_execute_task(1, t, 0));
	starpu_task_destroy(t);
	starpu_shutdown();
}

static int seen[16], nseen;

static void order_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	int i = __atomic_fetch_add(&nseen, 1, __ATOMIC_SEQ_CST);
	if (i < 16)
		seen[i] = (int) (intptr_t) cl_arg;
}

static struct starpu_codelet order_cl = { .cpu_funcs = { order_cpu }, .nbuffers = 0 };

static int insert(int order, int tag)
{
	if (order)
		return starpu_task_insert(&order_cl, STARPU_EXECUTE_ON_WORKER, 0, STARPU_WORKER_ORDER, (unsigned) order,
					  STARPU_CL_ARGS_NFREE, (void *) (intptr_t) tag, (size_t) 0, 0);
	return starpu_task_insert(&order_cl, STARPU_EXECUTE_ON_WORKER, 0, STARPU_CL_ARGS_NFREE, (void *) (intptr_t) tag, (size_t) 0, 0);
}

static void workerorder(void)
{
	if (compat_start(2, "eager"))
	{
		CHECK(!"starpu_init");
		return;
	}
	nseen = 0;
	const int ord[] = { 3, 1, 2, 5, 4 };
	for (int i = 0; i < 5; i++)
	{
		CHECK(insert(ord[i], ord[i]) == 0);
		compat_sleep_ms(5);
	}
	starpu_task_wait_for_all();
	CHECK(nseen == 5);
	for (int i = 0; i < 5; i++)
		CHECK(seen[i] == i + 1);
	/* 7 waits for 6; a task without order does not wait: submitted
	 * synchronously, it returns while 7 still waits (were it held behind
	 * 7, the submission would never return and the test time out) */
	nseen = 0;
	CHECK(insert(7, 7) == 0);
	struct starpu_task *free_task = starpu_task_create();
	free_task->cl = &order_cl;
	free_task->cl_arg = (void *) (intptr_t) 100;
	free_task->execute_on_a_specific_worker = 1;
	free_task->workerid = 0;
	free_task->synchronous = 1;
	CHECK(starpu_task_submit(free_task) == 0);
	CHECK(__atomic_load_n(&nseen, __ATOMIC_SEQ_CST) == 1 && seen[0] == 100);
	CHECK(insert(6, 6) == 0);
	starpu_task_wait_for_all();
	CHECK(nseen == 3 && seen[1] == 6 && seen[2] == 7);
	starpu_shutdown();
}

static int pops;

static void pop_prologue(void *arg)
{
	(void) arg;
	__atomic_fetch_add(&pops, 1, __ATOMIC_SEQ_CST);
}

static void pop_prologue_without_codelet(void)
{
	if (compat_start(2, NULL))
	{
		CHECK(!"starpu_init");
		return;
	}
	pops = 0;
	struct starpu_task *t = starpu_task_create();
	t->prologue_callback_pop_func = pop_prologue;
	CHECK(starpu_task_submit(t) == 0);
	t = starpu_task_create();
	t->cl = &where_cl;
	t->cl_arg = 0;
	t->prologue_callback_pop_func = pop_prologue;
	CHECK(starpu_task_submit(t) == 0);
	starpu_task_wait_for_all();
	CHECK(pops == 2);
	starpu_shutdown();
}

int main(void)
{
	for (int p = 0; policies[p]; p++)
		workerids(policies[p]);
	workerorder();
	pop_prologue_without_codelet();
	return compat_result("compat_hints");
}
