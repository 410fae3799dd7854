/* test_policies: each predefined policy named in starpu_conf (eager, prio,
 * random, ws, lws) runs a data-dependent graph correctly, spreads
 * independent work over the CPU workers, and lets starpu_task_wait_for_all
 * return only once every task (and its callback) is done.
 *
 * A policy only decides where and when ready tasks run, so the results of a
 * graph must not depend on it: each run is compared with a sequential replay.
 * The ordering checks (FIFO for eager, priority order for prio) run with one
 * worker and paused workers, so the whole queue is in place before anything
 * is popped and the order is decided by the policy alone.
 */
#include "vtest.h"

#include <starpu.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define NHANDLES	4
#define DAG_TASKS	2000
#define SPREAD_TASKS	200
#define ORDER_TASKS	40
#define PRIME		1000003u

/* ---- helpers ---- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void busy_wait(double seconds)
{
	double end = now() + seconds;
	while (now() < end)
		;
}

static int start(const char *policy, int ncpus)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = policy;
	conf.ncuda = 0;
	conf.nopencl = 0;
	if (ncpus > 0)
		conf.ncpus = ncpus;
	return starpu_init(&conf);
}

/* ---- a random graph over a few handles, checked against program order ---- */

struct dag_task
{
	unsigned nbuf;
	unsigned handle[2];
	enum starpu_data_access_mode mode[2];
	unsigned mul, add;
};

static struct dag_task dag[DAG_TASKS];
static atomic_uint dag_runs, dag_callbacks;

static void dag_apply(const struct dag_task *d, uint64_t *v0, uint64_t *v1)
{
	/* Order-sensitive: x = mul * x + add + (value read), mod a prime. */
	uint64_t in = d->nbuf == 2 ? *v1 : 0;
	if (d->mode[0] == STARPU_RW)
		*v0 = (d->mul * *v0 + d->add + in) % PRIME;
	else if (d->mode[0] == STARPU_W)	/* must not read the old value */
		*v0 = (d->mul * in + d->add) % PRIME;
	if (d->nbuf == 2 && d->mode[1] == STARPU_RW)
		*v1 = (*v1 * 3 + d->add) % PRIME;
}

static void dag_cpu(void *buffers[], void *arg)
{
	const struct dag_task *d = arg;
	uint64_t *v0 = (uint64_t *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	uint64_t *v1 = d->nbuf == 2 ? (uint64_t *) STARPU_VARIABLE_GET_PTR(buffers[1]) : NULL;
	/* A little work so that tasks overlap and the policy has choices. */
	busy_wait(20e-6);
	dag_apply(d, v0, v1);
	atomic_fetch_add(&dag_runs, 1);
}

static void dag_callback(void *arg)
{
	(void) arg;
	atomic_fetch_add(&dag_callbacks, 1);
}

static struct starpu_codelet dag_cl =
{
	.cpu_funcs = { dag_cpu },
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
	.name = "policy_dag",
};

static void check_dag(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	for (unsigned i = 0; i < DAG_TASKS; i++)
	{
		/* xorshift64, fixed seed: the same graph for every policy. */
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		struct dag_task *d = &dag[i];
		d->nbuf = 1 + seed % 2;
		d->handle[0] = (seed >> 8) % NHANDLES;
		d->handle[1] = (d->handle[0] + 1 + (seed >> 16) % (NHANDLES - 1)) % NHANDLES;
		static const enum starpu_data_access_mode first[4] =
			{ STARPU_R, STARPU_W, STARPU_RW, STARPU_RW };
		d->mode[0] = first[(seed >> 24) % 4];
		d->mode[1] = (seed >> 28) % 2 ? STARPU_R : STARPU_RW;
		d->mul = 2 + (seed >> 32) % 1000;
		d->add = (seed >> 44) % 1000;
	}

	uint64_t ref[NHANDLES], val[NHANDLES];
	for (unsigned h = 0; h < NHANDLES; h++)
		ref[h] = val[h] = h + 1;
	for (unsigned i = 0; i < DAG_TASKS; i++)
		dag_apply(&dag[i], &ref[dag[i].handle[0]],
			  dag[i].nbuf == 2 ? &ref[dag[i].handle[1]] : NULL);

	starpu_data_handle_t handles[NHANDLES];
	for (unsigned h = 0; h < NHANDLES; h++)
		starpu_variable_data_register(&handles[h], STARPU_MAIN_RAM,
					      (uintptr_t) &val[h], sizeof(val[h]));
	atomic_store(&dag_runs, 0);
	atomic_store(&dag_callbacks, 0);

	for (unsigned i = 0; i < DAG_TASKS; i++)
	{
		const struct dag_task *d = &dag[i];
		int ret;
		if (d->nbuf == 1)
			ret = starpu_task_insert(&dag_cl,
						 d->mode[0], handles[d->handle[0]],
						 STARPU_CL_ARGS_NFREE, d, sizeof(*d),
						 STARPU_CALLBACK, dag_callback,
						 0);
		else
			ret = starpu_task_insert(&dag_cl,
						 d->mode[0], handles[d->handle[0]],
						 d->mode[1], handles[d->handle[1]],
						 STARPU_CL_ARGS_NFREE, d, sizeof(*d),
						 STARPU_CALLBACK, dag_callback,
						 0);
		CU_ASSERT_EQUAL_FATAL(ret, 0);
	}

	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	/* wait_for_all covers callbacks too: nothing may still be pending. */
	CU_ASSERT_EQUAL(atomic_load(&dag_runs), DAG_TASKS);
	CU_ASSERT_EQUAL(atomic_load(&dag_callbacks), DAG_TASKS);

	for (unsigned h = 0; h < NHANDLES; h++)
		starpu_data_unregister(handles[h]);
	for (unsigned h = 0; h < NHANDLES; h++)
		CU_ASSERT_EQUAL(val[h], ref[h]);
}

/* ---- independent tasks must not all land on one worker ---- */

static atomic_uint per_worker[STARPU_NMAXWORKERS];
static atomic_uint spread_runs, spread_bad_worker;
static atomic_uint distinct_workers;
static atomic_uint seen[STARPU_NMAXWORKERS];
static double spread_deadline;		/* written before the tasks exist */

static void spread_cpu(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	int w = starpu_worker_get_id();
	if (w < 0 || w >= STARPU_NMAXWORKERS || starpu_worker_get_type(w) != STARPU_CPU_WORKER)
	{
		atomic_fetch_add(&spread_bad_worker, 1);
		return;
	}
	atomic_fetch_add(&per_worker[w], 1);
	if (atomic_exchange(&seen[w], 1) == 0)
		atomic_fetch_add(&distinct_workers, 1);

	/* 1 ms of work each; besides, until a second worker has shown up,
	 * hold on (until one shared deadline, 5 s after submission started)
	 * so that a briefly descheduled worker thread on a loaded machine
	 * still gets its share instead of failing the test. A policy that
	 * never feeds another worker fails once, after those 5 s. */
	busy_wait(1e-3);
	while (atomic_load(&distinct_workers) < 2 && now() < spread_deadline)
		;
	atomic_fetch_add(&spread_runs, 1);
}

static struct starpu_codelet spread_cl =
{
	.cpu_funcs = { spread_cpu },
	.nbuffers = 0,
	.name = "policy_spread",
};

static void check_spread(void)
{
	for (unsigned w = 0; w < STARPU_NMAXWORKERS; w++)
	{
		atomic_store(&per_worker[w], 0);
		atomic_store(&seen[w], 0);
	}
	atomic_store(&distinct_workers, 0);
	atomic_store(&spread_runs, 0);
	atomic_store(&spread_bad_worker, 0);
	/* With a single worker there is nothing to wait for. */
	spread_deadline = now() + (starpu_cpu_worker_get_count() >= 2 ? 5.0 : 0.0);

	for (unsigned i = 0; i < SPREAD_TASKS; i++)
	{
		int ret = starpu_task_insert(&spread_cl, 0);
		CU_ASSERT_EQUAL_FATAL(ret, 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&spread_runs), SPREAD_TASKS);
	CU_ASSERT_EQUAL(atomic_load(&spread_bad_worker), 0);

	unsigned total = 0, used = 0;
	for (unsigned w = 0; w < STARPU_NMAXWORKERS; w++)
	{
		total += atomic_load(&per_worker[w]);
		used += atomic_load(&per_worker[w]) > 0;
	}
	CU_ASSERT_EQUAL(total, SPREAD_TASKS);
	if (starpu_cpu_worker_get_count() >= 2)
		CU_ASSERT(used >= 2);
}

/* ---- one worker, paused: the order the policy hands tasks out ---- */

static int order_prio[ORDER_TASKS];
static unsigned order_seen[ORDER_TASKS];
static atomic_uint order_n;

static void order_cpu(void *buffers[], void *arg)
{
	(void) buffers;
	unsigned k = atomic_fetch_add(&order_n, 1);
	if (k < ORDER_TASKS)
		order_seen[k] = (unsigned) (uintptr_t) arg;
}

static struct starpu_codelet order_cl =
{
	.cpu_funcs = { order_cpu },
	.nbuffers = 0,
	.name = "policy_order",
};

/* Submits ORDER_TASKS independent tasks with scrambled priorities while the
 * single worker is paused, then lets it drain the queue. */
static void run_order(void)
{
	atomic_store(&order_n, 0);
	starpu_pause();
	for (unsigned i = 0; i < ORDER_TASKS; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &order_cl;
		t->cl_arg = (void *) (uintptr_t) i;
		order_prio[i] = (int) ((i * 7) % 11) - 5;	/* -5 .. 5, shuffled */
		t->priority = order_prio[i];
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	starpu_resume();
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL_FATAL(atomic_load(&order_n), ORDER_TASKS);
}

/* ---- the tests ---- */

static void run_policy(const char *policy)
{
	int ret = start(policy, -1);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT(starpu_cpu_worker_get_count() >= 1);
	check_dag();
	check_spread();
	starpu_shutdown();
}

static void test_eager(void) { run_policy("eager"); }
static void test_prio(void) { run_policy("prio"); }
static void test_random(void) { run_policy("random"); }
static void test_ws(void) { run_policy("ws"); }
static void test_lws(void) { run_policy("lws"); }

/* eager is one central FIFO: with a single worker, submission order. */
static void test_eager_fifo_order(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager", 1), 0);
	run_order();
	for (unsigned k = 0; k < ORDER_TASKS; k++)
		CU_ASSERT_EQUAL(order_seen[k], k);
	starpu_shutdown();
}

/* prio sorts its central queue by priority: never a lower priority task
 * before a higher one. */
static void test_prio_priority_order(void)
{
	CU_ASSERT_EQUAL_FATAL(start("prio", 1), 0);
	run_order();
	unsigned used[ORDER_TASKS] = { 0 };
	for (unsigned k = 0; k < ORDER_TASKS; k++)
	{
		CU_ASSERT_FATAL(order_seen[k] < ORDER_TASKS);
		used[order_seen[k]]++;
		if (k > 0)
			CU_ASSERT(order_prio[order_seen[k - 1]] >= order_prio[order_seen[k]]);
	}
	for (unsigned i = 0; i < ORDER_TASKS; i++)
		CU_ASSERT_EQUAL(used[i], 1);
	starpu_shutdown();
}

static const struct vtest_case policy_cases[] =
{
	{ "eager", test_eager },
	{ "prio", test_prio },
	{ "random", test_random },
	{ "ws", test_ws },
	{ "lws", test_lws },
	{ "eager_fifo_order", test_eager_fifo_order },
	{ "prio_priority_order", test_prio_priority_order },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "policies", NULL, NULL, policy_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	/* STARPU_SCHED overrides conf.sched_policy_name; these tests name
	 * their policy on purpose. */
	unsetenv("STARPU_SCHED");
	return vtest_run(argc, argv, suites);
}
