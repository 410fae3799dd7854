/* test_sched_ctx_stress: workers move between two contexts every
 * millisecond while many small tasks run in both; every task must run
 * exactly once, within its context, and nothing may hang.
 *
 * Workers: 0 stays in context A, 1 in context B, the others move back and
 * forth; so a task of A must never run on worker 1 nor one of B on worker
 * 0 (the moving workers may run either: membership is checked when they
 * pop). A third thread also creates, feeds and deletes a short-lived
 * context now and then, whose tasks must all run once too.
 *
 * VELA_CTX_STRESS_POLICY=name limits the "other builtins" case to one policy.
 * VELA_CTX_STRESS_TASKS sets the number of tasks per policy (default
 * 100,000: about 0.1 s per policy on 2 cores).
 */
#include "vtest.h"

#include <starpu.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NW 4

static int ntasks;
static atomic_uchar *runs;
static atomic_int outside, twice;
static atomic_int stop;
static atomic_long moves;
static unsigned ctx_a, ctx_b;

static void kernel(void *buffers[], void *arg)
{
	(void) buffers;
	uintptr_t v = (uintptr_t) arg;
	int i = (int) (v >> 2), which = (int) (v & 3);
	int w = starpu_worker_get_id();
	if ((which == 0 && w == 1) || (which == 1 && w == 0))
		atomic_fetch_add(&outside, 1);
	if (atomic_fetch_add(&runs[i], 1) != 0)
		atomic_fetch_add(&twice, 1);
}

static struct starpu_codelet cl = {
	.cpu_funcs = { kernel },
	.nbuffers = 0,
	.name = "tiny",
};

static int submit(int i, unsigned ctx, int which)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = &cl;
	t->cl_arg = (void *) (((uintptr_t) i << 2) | (uintptr_t) which);
	t->sched_ctx = ctx;
	return starpu_task_submit(t);
}

/* Moves workers 2.. between A and B, one step per millisecond. */
static void *mover(void *arg)
{
	(void) arg;
	int k = 0;
	while (!atomic_load(&stop))
	{
		int w = 2 + k % (NW - 2);
		if (starpu_sched_ctx_contains_worker(w, ctx_a))
		{
			starpu_sched_ctx_remove_workers(&w, 1, ctx_a);
			starpu_sched_ctx_add_workers(&w, 1, ctx_b);
		}
		else
		{
			starpu_sched_ctx_add_workers(&w, 1, ctx_a);
			starpu_sched_ctx_remove_workers(&w, 1, ctx_b);
		}
		atomic_fetch_add(&moves, 1);
		k++;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void run(const char *policy)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = "eager";
	conf.ncpus = NW;
	conf.ncuda = 0;
	conf.nopencl = 0;
	CU_ASSERT_EQUAL_FATAL(starpu_init(&conf), 0);

	int a[] = { 0, 2 }, b[] = { 1, 3 };
	ctx_a = starpu_sched_ctx_create(a, 2, "A", STARPU_SCHED_CTX_POLICY_NAME, policy, 0);
	ctx_b = starpu_sched_ctx_create(b, 2, "B", STARPU_SCHED_CTX_POLICY_NAME, policy, 0);
	CU_ASSERT_FATAL(ctx_a < STARPU_NMAX_SCHED_CTXS && ctx_b < STARPU_NMAX_SCHED_CTXS);
	/* Keep the global context out of the way: only A and B run tasks. */
	int all[NW];
	for (int i = 0; i < NW; i++)
		all[i] = i;
	starpu_sched_ctx_remove_workers(all, NW, 0);

	runs = calloc((size_t) ntasks, sizeof(*runs));
	atomic_store(&outside, 0);
	atomic_store(&twice, 0);
	atomic_store(&stop, 0);
	atomic_store(&moves, 0);
	pthread_t th;
	pthread_create(&th, NULL, mover, NULL);

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned shortlived = STARPU_NMAX_SCHED_CTXS;
	for (int i = 0; i < ntasks; i++)
	{
		/* Every 2,000 tasks, a short-lived context over worker 2 gets a
		 * few of them and is deleted (its tasks run on it or its heir). */
		if (i % 2000 == 1000)
		{
			int w = 2;
			shortlived = starpu_sched_ctx_create(&w, 1, "short", STARPU_SCHED_CTX_POLICY_NAME, policy, 0);
			starpu_sched_ctx_set_inheritor(shortlived, ctx_a);
		}
		int which = i & 1;
		unsigned ctx = which ? ctx_b : ctx_a;
		if (shortlived != STARPU_NMAX_SCHED_CTXS && i % 2000 >= 1000 && i % 2000 < 1050)
		{
			ctx = shortlived;
			which = 2;
		}
		if (submit(i, ctx, which))
			CU_FAIL("submit failed");
		if (shortlived != STARPU_NMAX_SCHED_CTXS && i % 2000 == 1050)
		{
			starpu_sched_ctx_delete(shortlived);
			shortlived = STARPU_NMAX_SCHED_CTXS;
		}
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	if (shortlived != STARPU_NMAX_SCHED_CTXS)
		starpu_sched_ctx_delete(shortlived);

	int missing = 0;
	for (int i = 0; i < ntasks; i++)
		missing += atomic_load(&runs[i]) == 0;
	double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("\n  %s: %d tasks in %.3f s (%.0f tasks/s), %ld moves, %d missing, %d twice, %d outside\n", policy, ntasks,
	       s, ntasks / s, atomic_load(&moves), missing, atomic_load(&twice), atomic_load(&outside));
	CU_ASSERT_EQUAL(missing, 0);
	CU_ASSERT_EQUAL(atomic_load(&twice), 0);
	CU_ASSERT_EQUAL(atomic_load(&outside), 0);
	free(runs);
	starpu_sched_ctx_delete(ctx_a);
	starpu_sched_ctx_delete(ctx_b);
	starpu_shutdown();
}

static void test_eager(void) { run("eager"); }
static void test_prio(void) { run("prio"); }
static void test_random(void) { run("random"); }
static void test_ws(void) { run("ws"); }
static void test_lws(void) { run("lws"); }

/* Every other built-in policy (component trees, dm family, ...): each must
 * keep its queued tasks when workers come and go. */
static void test_other_builtins(void)
{
	static const char *const covered[] = { "eager", "prio", "random", "ws", "lws", NULL };
	/* VELA_CTX_STRESS_POLICY=name: only that one (to chase a failure). */
	const char *only = getenv("VELA_CTX_STRESS_POLICY");
	struct starpu_sched_policy **all = starpu_sched_get_predefined_policies();
	for (unsigned i = 0; all[i]; i++)
	{
		if (only && strcmp(only, all[i]->policy_name) != 0)
			continue;
		int seen = 0;
		for (unsigned j = 0; covered[j]; j++)
			seen |= strcmp(all[i]->policy_name, covered[j]) == 0;
		if (!seen)
			run(all[i]->policy_name);
	}
}

static const struct vtest_case cases[] = {
	{ "resize_eager", test_eager },
	{ "resize_prio", test_prio },
	{ "resize_random", test_random },
	{ "resize_ws", test_ws },
	{ "resize_lws", test_lws },
	{ "resize_other_builtins", test_other_builtins },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "sched_ctx_stress", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	const char *env = getenv("VELA_CTX_STRESS_TASKS");
	ntasks = env ? atoi(env) : 100000;
	if (ntasks < 1)
		ntasks = 1;
	return vtest_run(argc, argv, suites);
}
