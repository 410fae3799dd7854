/* test_sched_ctx: scheduling contexts through the public API — creation
 * with each argument type, confinement of a context's tasks to its workers
 * for every built-in policy, the thread's context, nesting, deletion with
 * queued and not-yet-ready tasks (each runs exactly once, on the heir),
 * empty contexts, finished_submit, waiting for one context's tasks while
 * another's still run, list and tree iterators, the membership
 * queries, and the one-line errors of bad input.
 *
 * Runs with 4 CPU workers (fewer cores is fine: workers share them).
 */
#include "vtest.h"

#include <starpu.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NW 4
#define NTASKS 200

static const char *const policies[] = { "eager", "prio", "random", "ws", "lws", NULL };

static int start(const char *policy)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = policy;
	conf.ncpus = NW;
	conf.ncuda = 0;
	conf.nopencl = 0;
	return starpu_init(&conf);
}

/* Each task records where it ran; runs[i] counts executions of task i. */
static atomic_int runs[NTASKS];
static atomic_int ran_on[NTASKS];

static void record(void *buffers[], void *arg)
{
	(void) buffers;
	int i = (int) (intptr_t) arg;
	atomic_store(&ran_on[i], starpu_worker_get_id());
	atomic_fetch_add(&runs[i], 1);
}

static struct starpu_codelet record_cl = {
	.cpu_funcs = { record },
	.nbuffers = 0,
	.name = "record",
};

static void reset_runs(void)
{
	for (int i = 0; i < NTASKS; i++)
	{
		atomic_store(&runs[i], 0);
		atomic_store(&ran_on[i], -1);
	}
}

/* Submits task i to ctx (NMAX: the thread's/global context), with an
 * optional tag dependency. */
static int submit(int i, unsigned ctx, int dep_tag)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = &record_cl;
	t->cl_arg = (void *) (intptr_t) i;
	if (ctx != STARPU_NMAX_SCHED_CTXS)
		t->sched_ctx = ctx;
	if (dep_tag)
	{
		starpu_tag_t tag = (starpu_tag_t) dep_tag;
		t->use_tag = 1;
		t->tag_id = 1000 + i;
		starpu_tag_declare_deps_array(t->tag_id, 1, &tag);
	}
	return starpu_task_submit(t);
}

static int in_set(int w, const int *set, int n)
{
	for (int i = 0; i < n; i++)
		if (set[i] == w)
			return 1;
	return 0;
}

static void check_ran_once_on(int n, const int *set, int nset)
{
	for (int i = 0; i < n; i++)
	{
		CU_ASSERT_EQUAL(atomic_load(&runs[i]), 1);
		if (!in_set(atomic_load(&ran_on[i]), set, nset))
		{
			fprintf(stderr, "task %d ran on worker %d\n", i, atomic_load(&ran_on[i]));
			CU_FAIL("task ran outside its context");
		}
	}
}

/* ---- creation ---- */

static atomic_int init_called;
static void my_policy_init(unsigned ctx)
{
	atomic_store(&init_called, (int) ctx + 1);
}

static void test_create_varargs(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
	int ids[] = { 1, 2 };
	int sub[] = { 0 };
	int data = 42;
	unsigned ctx = starpu_sched_ctx_create(ids, 2, "varargs",
		STARPU_SCHED_CTX_POLICY_NAME, "prio",
		STARPU_SCHED_CTX_POLICY_MIN_PRIO, -5,
		STARPU_SCHED_CTX_POLICY_MAX_PRIO, 7,
		STARPU_SCHED_CTX_USER_DATA, &data,
		STARPU_SCHED_CTX_POLICY_INIT, my_policy_init,
		STARPU_SCHED_CTX_AWAKE_WORKERS,
		STARPU_SCHED_CTX_HIERARCHY_LEVEL, 3,
		STARPU_SCHED_CTX_CUDA_NSMS, 4,
		STARPU_SCHED_CTX_SUB_CTXS, sub, 1,
		0);
	CU_ASSERT_FATAL(ctx > 0 && ctx < STARPU_NMAX_SCHED_CTXS);
	CU_ASSERT_STRING_EQUAL(starpu_sched_ctx_get_sched_policy(ctx)->policy_name, "prio");
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_min_priority(ctx), -5);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_max_priority(ctx), 7);
	CU_ASSERT_PTR_EQUAL(starpu_sched_ctx_get_user_data(ctx), &data);
	CU_ASSERT_EQUAL(atomic_load(&init_called), (int) ctx + 1);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_hierarchy_level(ctx), 3);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_nworkers(ctx), 2);
	CU_ASSERT(starpu_sched_ctx_contains_worker(1, ctx));
	CU_ASSERT(!starpu_sched_ctx_contains_worker(0, ctx));

	struct starpu_sched_policy *ws = NULL;
	struct starpu_sched_policy **pre = starpu_sched_get_predefined_policies();
	for (unsigned i = 0; pre[i]; i++)
		if (!strcmp(pre[i]->policy_name, "ws"))
			ws = pre[i];
	unsigned c2 = starpu_sched_ctx_create(NULL, -1, "all", STARPU_SCHED_CTX_POLICY_STRUCT, ws, 0);
	CU_ASSERT_FATAL(c2 < STARPU_NMAX_SCHED_CTXS);
	CU_ASSERT_PTR_EQUAL(starpu_sched_ctx_get_sched_policy(c2), ws);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_nworkers(c2), NW);
	/* No policy argument: the default one. */
	unsigned c3 = starpu_sched_ctx_create(ids, 1, "default", 0);
	CU_ASSERT_FATAL(c3 < STARPU_NMAX_SCHED_CTXS);
	CU_ASSERT_PTR_NOT_NULL(starpu_sched_ctx_get_sched_policy(c3));

	CU_ASSERT_EQUAL(starpu_sched_ctx_get_nshared_workers(ctx, c2), 2);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_nshared_workers(ctx, c3), 1);
	CU_ASSERT(starpu_sched_ctx_overlapping_ctxs_on_worker(1));
	unsigned *list;
	unsigned n = starpu_worker_get_sched_ctx_list(1, &list);
	CU_ASSERT_EQUAL(n, 4);	/* global, ctx, c2, c3 */
	free(list);
	n = starpu_worker_get_sched_ctx_list(3, &list);
	CU_ASSERT_EQUAL(n, 2);	/* global, c2 */
	free(list);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	starpu_sched_ctx_display_workers(ctx, f);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "varargs"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "CPU 2"));
	free(buf);

	starpu_sched_ctx_delete(ctx);
	starpu_sched_ctx_delete(c2);
	starpu_sched_ctx_delete(c3);
	CU_ASSERT(!starpu_sched_ctx_overlapping_ctxs_on_worker(1));
	starpu_shutdown();
}

/* ---- confinement, for every policy ---- */

static void test_confinement(void)
{
	for (unsigned p = 0; policies[p]; p++)
	{
		CU_ASSERT_EQUAL_FATAL(start("lws"), 0);
		int ids[] = { 1, 3 };
		unsigned ctx = starpu_sched_ctx_create(ids, 2, policies[p], STARPU_SCHED_CTX_POLICY_NAME, policies[p], 0);
		CU_ASSERT_FATAL(ctx < STARPU_NMAX_SCHED_CTXS);
		reset_runs();
		/* Half through task->sched_ctx, half through the thread's context. */
		for (int i = 0; i < NTASKS / 2; i++)
			CU_ASSERT_EQUAL(submit(i, ctx, 0), 0);
		starpu_sched_ctx_set_context(&ctx);
		CU_ASSERT_EQUAL(starpu_sched_ctx_get_context(), ctx);
		for (int i = NTASKS / 2; i < NTASKS; i++)
			CU_ASSERT_EQUAL(submit(i, STARPU_NMAX_SCHED_CTXS, 0), 0);
		starpu_sched_ctx_set_context(NULL);
		CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
		check_ran_once_on(NTASKS, ids, 2);
		starpu_sched_ctx_delete(ctx);
		starpu_shutdown();
	}
}

/* ---- nesting ---- */

static void test_nested(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
	int three = 3, two = 2;
	/* Worker 3 leaves the global context: it will belong to the child only. */
	starpu_sched_ctx_remove_workers(&three, 1, 0);
	CU_ASSERT(!starpu_sched_ctx_contains_worker(3, 0));
	unsigned parent = starpu_sched_ctx_create(&two, 1, "parent", STARPU_SCHED_CTX_POLICY_NAME, "eager", 0);
	unsigned child = starpu_sched_ctx_create(&three, 1, "child", STARPU_SCHED_CTX_POLICY_NAME, "ws",
						 STARPU_SCHED_CTX_NESTED, parent, 0);
	CU_ASSERT_FATAL(child < STARPU_NMAX_SCHED_CTXS);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_hierarchy_level(parent), 0);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_hierarchy_level(child), 1);
	reset_runs();
	for (int i = 0; i < 50; i++)
		submit(i, child, 0);
	starpu_task_wait_for_all();
	check_ran_once_on(50, &three, 1);
	/* Deleting the child gives worker 3 (in no other context) to the parent. */
	starpu_sched_ctx_delete(child);
	CU_ASSERT(starpu_sched_ctx_contains_worker(3, parent));
	CU_ASSERT(!starpu_sched_ctx_contains_worker(3, 0));
	reset_runs();
	for (int i = 0; i < 50; i++)
		submit(i, parent, 0);
	starpu_task_wait_for_all();
	int both[] = { 2, 3 };
	check_ran_once_on(50, both, 2);
	starpu_sched_ctx_delete(parent);
	/* ...and deleting the parent gives it back to the global context. */
	CU_ASSERT(starpu_sched_ctx_contains_worker(3, 0));
	starpu_shutdown();
}

/* ---- deletion with pending tasks ---- */

static void delete_with_pending(const char *policy)
{
	CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
	int one = 1, two = 2;
	unsigned heir = starpu_sched_ctx_create(&two, 1, "heir", STARPU_SCHED_CTX_POLICY_NAME, "eager", 0);
	/* An empty context: its tasks are parked. */
	unsigned empty = starpu_sched_ctx_create(NULL, 0, "empty", STARPU_SCHED_CTX_POLICY_NAME, policy, 0);
	CU_ASSERT_FATAL(empty < STARPU_NMAX_SCHED_CTXS);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_nworkers(empty), 0);
	/* A context whose worker is held back by the runtime pause, so that its
	 * tasks stay queued in the policy. */
	unsigned busy = starpu_sched_ctx_create(&one, 1, "busy", STARPU_SCHED_CTX_POLICY_NAME, policy, 0);
	reset_runs();
	for (int i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(submit(i, empty, 0), 0);
	/* Not ready yet: wait for tag 7, triggered after the deletion. */
	for (int i = 40; i < 80; i++)
		CU_ASSERT_EQUAL(submit(i, empty, 7), 0);
	starpu_pause();
	for (int i = 80; i < 140; i++)
		CU_ASSERT_EQUAL(submit(i, busy, 0), 0);
	for (int i = 0; i < 140; i++)
		CU_ASSERT_EQUAL(atomic_load(&runs[i]), 0);

	/* A context left without workers while its policy holds tasks. */
	int three = 3;
	unsigned stranded = starpu_sched_ctx_create(&three, 1, "stranded", STARPU_SCHED_CTX_POLICY_NAME, policy, 0);
	for (int i = 140; i < 170; i++)
		CU_ASSERT_EQUAL(submit(i, stranded, 0), 0);
	starpu_sched_ctx_remove_workers(&three, 1, stranded);
	starpu_sched_ctx_set_inheritor(empty, heir);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_inheritor(empty), heir);
	starpu_sched_ctx_set_inheritor(busy, heir);
	starpu_sched_ctx_set_inheritor(stranded, heir);
	starpu_sched_ctx_delete(empty);
	starpu_resume();
	starpu_sched_ctx_delete(busy);
	/* Nobody can pop its tasks: the heir's worker is lent to run them. */
	starpu_sched_ctx_delete(stranded);
	starpu_tag_notify_from_apps(7);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	check_ran_once_on(80, &two, 1);	/* the empty context's tasks went to the heir */
	for (int i = 80; i < 140; i++)
		CU_ASSERT_EQUAL(atomic_load(&runs[i]), 1);
	for (int i = 140; i < 170; i++)
	{
		CU_ASSERT_EQUAL(atomic_load(&runs[i]), 1);
		CU_ASSERT_EQUAL(atomic_load(&ran_on[i]), 2);
	}
	/* A deleted context takes no new task. */
	struct starpu_task *t = starpu_task_create();
	t->cl = &record_cl;
	t->sched_ctx = busy;
	vtest_capture_stderr_begin();
	int ret = starpu_task_submit(t);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "task->sched_ctx"));
	starpu_task_destroy(t);
	starpu_sched_ctx_delete(heir);
	starpu_shutdown();
}

static void test_delete_pending(void)
{
	for (unsigned p = 0; policies[p]; p++)
		delete_with_pending(policies[p]);
}

/* ---- an empty context keeps its tasks until workers come ---- */

static void test_empty_ctx(void)
{
	for (unsigned p = 0; policies[p]; p++)
	{
		CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
		unsigned ctx = starpu_sched_ctx_create(NULL, 0, "empty", STARPU_SCHED_CTX_POLICY_NAME, policies[p], 0);
		reset_runs();
		for (int i = 0; i < 50; i++)
			submit(i, ctx, 0);
		vtest_sleep_ms(20);
		for (int i = 0; i < 50; i++)
			CU_ASSERT_EQUAL(atomic_load(&runs[i]), 0);
		int zero = 0;
		starpu_sched_ctx_add_workers(&zero, 1, ctx);
		starpu_task_wait_for_all();
		check_ran_once_on(50, &zero, 1);
		/* Emptied again with tasks queued in the policy: kept, then run
		 * by the workers added later. */
		starpu_pause();
		reset_runs();
		for (int i = 0; i < 50; i++)
			submit(i, ctx, 0);
		starpu_sched_ctx_remove_workers(&zero, 1, ctx);
		int three = 3;
		starpu_sched_ctx_add_workers(&three, 1, ctx);
		starpu_resume();
		starpu_task_wait_for_all();
		check_ran_once_on(50, &three, 1);
		starpu_sched_ctx_delete(ctx);
		starpu_shutdown();
	}
}

/* ---- finished_submit ---- */

static atomic_int closed;
static void on_close(unsigned ctx, void *arg)
{
	(void) arg;
	atomic_store(&closed, (int) ctx + 1);
}

static void test_finished_submit(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
	int one = 1, two = 2;
	unsigned a = starpu_sched_ctx_create(&one, 1, "a", STARPU_SCHED_CTX_POLICY_NAME, "ws", 0);
	unsigned b = starpu_sched_ctx_create(&two, 1, "b", STARPU_SCHED_CTX_POLICY_NAME, "eager", 0);
	starpu_sched_ctx_set_inheritor(a, b);
	starpu_sched_ctx_register_close_callback(a, on_close, NULL);
	reset_runs();
	for (int i = 0; i < 30; i++)
		submit(i, a, 0);
	starpu_sched_ctx_finished_submit(a);
	starpu_task_wait_for_all();
	check_ran_once_on(30, &one, 1);
	/* The move happens on the thread ending the last task, just after it
	 * counts as done: give it a moment. */
	for (int k = 0; k < 1000 && !atomic_load(&closed); k++)
		vtest_sleep_ms(1);
	CU_ASSERT_EQUAL(atomic_load(&closed), (int) a + 1);
	CU_ASSERT(starpu_sched_ctx_contains_worker(1, b));
	CU_ASSERT(!starpu_sched_ctx_contains_worker(1, a));
	starpu_sched_ctx_delete(a);
	starpu_sched_ctx_delete(b);
	starpu_shutdown();
}

/* ---- iterators ---- */

static struct starpu_sched_policy tree_policy;

static void iterate(unsigned ctx, int *out, int *n)
{
	struct starpu_worker_collection *c = starpu_sched_ctx_get_worker_collection(ctx);
	struct starpu_sched_ctx_iterator it;
	*n = 0;
	c->init_iterator(c, &it);
	while (c->has_next(c, &it))
		out[(*n)++] = c->get_next(c, &it);
}

static void test_iterators(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
	int ids[] = { 3, 1, 2 };
	unsigned l = starpu_sched_ctx_create(ids, 3, "list", STARPU_SCHED_CTX_POLICY_NAME, "eager", 0);
	int out[STARPU_NMAXWORKERS], n;
	iterate(l, out, &n);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_worker_collection(l)->type, STARPU_WORKER_LIST);
	for (int i = 0; i < n; i++)
		CU_ASSERT(in_set(out[i], ids, 3));

	/* The same policy with a tree collection: hwloc order. */
	struct starpu_sched_policy **pre = starpu_sched_get_predefined_policies();
	tree_policy = *pre[0];
	tree_policy.worker_type = STARPU_WORKER_TREE;
	unsigned t = starpu_sched_ctx_create(ids, 3, "tree", STARPU_SCHED_CTX_POLICY_STRUCT, &tree_policy, 0);
	CU_ASSERT_FATAL(t < STARPU_NMAX_SCHED_CTXS);
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_worker_collection(t)->type, STARPU_WORKER_TREE);
	iterate(t, out, &n);
	CU_ASSERT_EQUAL(n, 3);
	for (int i = 0; i < n; i++)
		CU_ASSERT(in_set(out[i], ids, 3));
	for (int i = 1; i < n; i++)
	{
		int b0 = starpu_worker_get_bindid(out[i - 1]), b1 = starpu_worker_get_bindid(out[i]);
		CU_ASSERT(b0 < b1 || (b0 == b1 && out[i - 1] < out[i]));
	}
	/* Resizing keeps the order. */
	int zero = 0;
	starpu_sched_ctx_add_workers(&zero, 1, t);
	iterate(t, out, &n);
	CU_ASSERT_EQUAL(n, 4);
	for (int i = 1; i < n; i++)
		CU_ASSERT(starpu_worker_get_bindid(out[i - 1]) <= starpu_worker_get_bindid(out[i]));
	int *list;
	unsigned nl = starpu_sched_ctx_get_workers_list(t, &list);
	CU_ASSERT_EQUAL(nl, 4);
	for (unsigned i = 0; i < nl; i++)
		CU_ASSERT_EQUAL(list[i], out[i]);
	free(list);
	starpu_sched_ctx_delete(l);
	starpu_sched_ctx_delete(t);
	starpu_shutdown();
}

/* ---- bad input ---- */

#define EXPECT_MSG(call, needle) do { \
		vtest_capture_stderr_begin(); \
		call; \
		const char *m_ = vtest_capture_stderr_end(); \
		if (!strstr(m_, needle)) \
			fprintf(stderr, "expected '%s' in: %s\n", needle, m_); \
		CU_ASSERT_PTR_NOT_NULL(strstr(m_, needle)); \
	} while (0)

static void test_bad_input(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
	unsigned c = 0;
	int ids[] = { 0, 99 };
	EXPECT_MSG(c = starpu_sched_ctx_create(ids, 1, "x", STARPU_SCHED_CTX_POLICY_NAME, "nope", 0),
		   "unknown scheduling policy 'nope'");
	CU_ASSERT_EQUAL(c, STARPU_NMAX_SCHED_CTXS);
	EXPECT_MSG(c = starpu_sched_ctx_create(ids, 2, "x", 0), "workerids[1] = 99");
	CU_ASSERT_EQUAL(c, STARPU_NMAX_SCHED_CTXS);
	EXPECT_MSG(c = starpu_sched_ctx_create(ids, 1, "x", 12345, 0), "unknown argument type 12345");
	CU_ASSERT_EQUAL(c, STARPU_NMAX_SCHED_CTXS);
	EXPECT_MSG(c = starpu_sched_ctx_create(ids, 1, "x", STARPU_SCHED_CTX_NESTED, 77u, 0), "STARPU_SCHED_CTX_NESTED");
	CU_ASSERT_EQUAL(c, STARPU_NMAX_SCHED_CTXS);

	c = starpu_sched_ctx_create(ids, 1, "ok", 0);
	CU_ASSERT_FATAL(c < STARPU_NMAX_SCHED_CTXS);
	int two = 2;
	EXPECT_MSG(starpu_sched_ctx_remove_workers(&two, 1, c), "workerids[0] = 2 is not in scheduling context");
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_nworkers(c), 1);
	EXPECT_MSG(starpu_sched_ctx_add_workers(ids, 2, c), "workerids[1] = 99");
	CU_ASSERT_EQUAL(starpu_sched_ctx_get_nworkers(c), 1);
	EXPECT_MSG(starpu_sched_ctx_add_workers(&two, 1, 55), "sched_ctx_id 55");
	EXPECT_MSG(starpu_sched_ctx_delete(0), "global context");
	EXPECT_MSG(starpu_sched_ctx_delete(STARPU_NMAX_SCHED_CTXS + 3), "is not a scheduling context");
	EXPECT_MSG(starpu_sched_ctx_set_inheritor(c, 66), "inheritor 66");

	/* Too many contexts. */
	unsigned made[STARPU_NMAX_SCHED_CTXS];
	unsigned nmade = 0;
	for (;;)
	{
		unsigned x;
		vtest_capture_stderr_begin();
		x = starpu_sched_ctx_create(NULL, 0, "many", 0);
		const char *m = vtest_capture_stderr_end();
		if (x == STARPU_NMAX_SCHED_CTXS)
		{
			CU_ASSERT_PTR_NOT_NULL(strstr(m, "STARPU_NMAX_SCHED_CTXS"));
			break;
		}
		made[nmade++] = x;
		CU_ASSERT_FATAL(nmade < STARPU_NMAX_SCHED_CTXS);
	}
	CU_ASSERT_EQUAL(nmade, STARPU_NMAX_SCHED_CTXS - 2);	/* global and c exist */
	for (unsigned i = 0; i < nmade; i++)
		starpu_sched_ctx_delete(made[i]);

	/* Never-created context, and a deleted one set as the thread's. */
	struct starpu_task *t = starpu_task_create();
	t->cl = &record_cl;
	t->sched_ctx = 9;
	int ret;
	EXPECT_MSG(ret = starpu_task_submit(t), "task->sched_ctx 9");
	CU_ASSERT_EQUAL(ret, -EINVAL);
	t->sched_ctx = STARPU_NMAX_SCHED_CTXS;
	starpu_sched_ctx_delete(c);
	starpu_sched_ctx_set_context(&c);
	EXPECT_MSG(ret = starpu_task_submit(t), "starpu_sched_ctx_set_context");
	CU_ASSERT_EQUAL(ret, -EINVAL);
	starpu_sched_ctx_set_context(NULL);
	starpu_task_destroy(t);
	starpu_shutdown();
}

/* ---- waiting for one context's tasks ---- */

/* A task that holds its worker until released, or for 3 s (so that a wait
 * that wrongly waits for it fails instead of hanging). */
static atomic_int long_started, long_release, long_done;

static void long_kernel(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	atomic_store(&long_started, 1);
	for (int k = 0; k < 3000 && !atomic_load(&long_release); k++)
		vtest_sleep_ms(1);
	atomic_store(&long_done, 1);
}

static struct starpu_codelet long_cl = { .cpu_funcs = { long_kernel }, .name = "long" };

static void test_wait_in_ctx(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
	int wa[] = { 0, 1 }, wb[] = { 2, 3 };
	unsigned a = starpu_sched_ctx_create(wa, 2, "a", STARPU_SCHED_CTX_POLICY_NAME, "eager", 0);
	unsigned b = starpu_sched_ctx_create(wb, 2, "b", STARPU_SCHED_CTX_POLICY_NAME, "ws", 0);
	atomic_store(&long_started, 0);
	atomic_store(&long_release, 0);
	atomic_store(&long_done, 0);
	struct starpu_task *lt = starpu_task_create();
	lt->cl = &long_cl;
	lt->sched_ctx = b;
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(lt), 0);
	reset_runs();
	for (int i = 0; i < 50; i++)
		CU_ASSERT_EQUAL(submit(i, a, 0), 0);

	CU_ASSERT_EQUAL(starpu_task_wait_for_all_in_ctx(a), 0);
	/* Every task of a has run, the long task of b still runs. */
	check_ran_once_on(50, wa, 2);
	CU_ASSERT_EQUAL(atomic_load(&long_done), 0);
	CU_ASSERT_TRUE(starpu_task_nsubmitted() >= 1);

	/* n submitted: b has one task left, so waiting for <= 1 returns;
	 * a has none. */
	CU_ASSERT_EQUAL(starpu_task_wait_for_n_submitted_in_ctx(b, 1), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_n_submitted_in_ctx(a, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&long_done), 0);

	/* Now b's own wait covers its long task. */
	while (!atomic_load(&long_started))
		vtest_sleep_ms(1);
	atomic_store(&long_release, 1);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all_in_ctx(b), 0);
	CU_ASSERT_EQUAL(atomic_load(&long_done), 1);

	int ret;
	EXPECT_MSG(ret = starpu_task_wait_for_all_in_ctx(9), "starpu_task_wait_for_all_in_ctx: sched_ctx_id 9");
	CU_ASSERT_EQUAL(ret, -EINVAL);
	EXPECT_MSG(ret = starpu_task_wait_for_n_submitted_in_ctx(STARPU_NMAX_SCHED_CTXS, 0), "starpu_task_wait_for_n_submitted_in_ctx: sched_ctx_id");
	CU_ASSERT_EQUAL(ret, -EINVAL);
	starpu_sched_ctx_delete(a);
	starpu_sched_ctx_delete(b);
	starpu_shutdown();
}

/* ---- a poller of another context does not stand in for a sleeper ---- */

static atomic_int flag_ran;

static void set_flag(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	atomic_store(&flag_ran, 1);
}

static struct starpu_codelet flag_cl = { .cpu_funcs = { set_flag }, .name = "flag" };

/* Worker 0 alone in the global context, worker 1 alone in ctx. A task
 * for the global context leaves worker 0 polling for a while; a task
 * pushed to ctx meanwhile must still wake worker 1 (the poller never looks
 * at ctx's queue). Each round waits 2 s for it, then unblocks it. */
static void test_poller_outside_ctx(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
	int others[] = { 1, 2, 3 }, one = 1;
	starpu_sched_ctx_remove_workers(others, 3, 0);
	unsigned ctx = starpu_sched_ctx_create(&one, 1, "x", STARPU_SCHED_CTX_POLICY_NAME, "eager", 0);
	int lost = 0;
	for (int round = 0; round < 100 && !lost; round++)
	{
		vtest_sleep_ms(1);	/* worker 1 goes to sleep */
		struct starpu_task *t0 = starpu_task_create();
		t0->cl = &record_cl;
		t0->cl_arg = (void *) (intptr_t) 0;
		t0->sched_ctx = 0;
		t0->synchronous = 1;
		CU_ASSERT_EQUAL(starpu_task_submit(t0), 0);
		/* Worker 0 is polling now, for up to 100 µs. */
		atomic_store(&flag_ran, 0);
		struct starpu_task *t1 = starpu_task_create();
		t1->cl = &flag_cl;
		t1->sched_ctx = ctx;
		CU_ASSERT_EQUAL(starpu_task_submit(t1), 0);
		for (int k = 0; k < 2000 && !atomic_load(&flag_ran); k++)
			vtest_sleep_ms(1);
		if (!atomic_load(&flag_ran))
		{
			lost = 1;
			/* Unblock it: a backlog of two wakes a worker anyway. */
			for (int i = 0; i < 2; i++)
			{
				struct starpu_task *t = starpu_task_create();
				t->cl = &flag_cl;
				t->sched_ctx = ctx;
				CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
			}
		}
		starpu_task_wait_for_all();
	}
	CU_ASSERT_EQUAL(lost, 0);
	starpu_sched_ctx_delete(ctx);
	starpu_shutdown();
}

static const struct vtest_case cases[] = {
	{ "create_varargs", test_create_varargs },
	{ "confinement", test_confinement },
	{ "nested", test_nested },
	{ "delete_pending", test_delete_pending },
	{ "empty_ctx", test_empty_ctx },
	{ "finished_submit", test_finished_submit },
	{ "wait_in_ctx", test_wait_in_ctx },
	{ "poller_outside_ctx", test_poller_outside_ctx },
	{ "iterators", test_iterators },
	{ "bad_input", test_bad_input },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "sched_ctx", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
