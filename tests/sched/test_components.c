/* test_components: the component framework of starpu_sched_component.h,
 * one component at a time, through the public API only.
 *
 * Protocol cases build small trees for an unused context id (TCTX) while
 * the runtime itself runs a classic policy, and play the worker's part by
 * calling the leaves' pull_task: nothing runs, so every queue content and
 * order is decided by the components alone. Runtime cases (calibrated
 * models, bad trees as a policy, workers leaving a tree) start the runtime
 * with a tree. Trees from recipes and from the machine's topology
 * (make_scheduler) are test_components_machine.c's.
 */
#define _GNU_SOURCE
#include "vtest.h"

#include <starpu.h>
#include <starpu_sched_component.h>

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "components_common.h"

/* ---- flow control ---- */

static void test_fifo_threshold_and_pump(void)
{
	CU_ASSERT_FATAL(start("eager", NULL, 1) == 0);
	tasks_init();
	struct starpu_sched_tree *t = tree_new();
	struct starpu_sched_component_fifo_data bounded = { .ntasks_threshold = 2 };
	struct starpu_sched_component *above = starpu_sched_component_fifo_create(t, NULL);
	struct starpu_sched_component *below = starpu_sched_component_fifo_create(t, &bounded);
	struct starpu_sched_component *leaf = starpu_sched_component_worker_get(TCTX, 0);
	starpu_sched_component_connect(above, below);
	starpu_sched_component_connect(below, leaf);
	t->root = above;
	starpu_sched_tree_update_workers(t);
	CU_ASSERT(starpu_sched_component_is_fifo(above));
	CU_ASSERT(starpu_sched_component_is_worker(leaf));
	CU_ASSERT(starpu_sched_component_worker_get_workerid(leaf) == 0);
	CU_ASSERT(starpu_bitmap_get(above->workers, 0) && starpu_bitmap_cardinal(above->workers) == 1);

	CU_ASSERT(below->push_task(below, &tasks[0]) == 0);
	CU_ASSERT(below->push_task(below, &tasks[1]) == 0);
	CU_ASSERT(below->push_task(below, &tasks[2]) != 0);	/* full: refused, still ours */
	CU_ASSERT(above->push_task(above, &tasks[2]) == 0);	/* the reservoir keeps it */
	CU_ASSERT(above->push_task(above, &tasks[3]) == 0);
	/* The worker takes t0; the bounded queue asks for more (can_push)
	 * and the reservoir above pumps t2 down. */
	CU_ASSERT(index_of(pull(leaf)) == 0);
	CU_ASSERT(index_of(pull(leaf)) == 1);
	CU_ASSERT(index_of(pull(leaf)) == 2);
	CU_ASSERT(index_of(pull(leaf)) == 3);
	CU_ASSERT(pull(leaf) == NULL);
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
}

static void test_exp_len_threshold(void)
{
	CU_ASSERT_FATAL(start("eager", NULL, 1) == 0);
	tasks_init();
	struct starpu_sched_tree *t = tree_new();
	struct starpu_sched_component_fifo_data d = { .exp_len_threshold = 10.0 };
	struct starpu_sched_component *f = starpu_sched_component_fifo_create(t, &d);
	starpu_sched_component_connect(f, starpu_sched_component_worker_get(TCTX, 0));
	t->root = f;
	starpu_sched_tree_update_workers(t);
	tasks[0].predicted = 6.0;
	tasks[1].predicted = 6.0;
	tasks[2].predicted = 3.0;
	CU_ASSERT(f->push_task(f, &tasks[0]) == 0);	/* an empty queue always accepts */
	CU_ASSERT(f->push_task(f, &tasks[1]) != 0);	/* 12 µs > 10 */
	CU_ASSERT(f->push_task(f, &tasks[2]) == 0);	/* 9 µs */
	double before = starpu_timing_now();
	double end = f->estimated_end(f);
	CU_ASSERT(end >= before + 8.0);
	if (end < before + 8.0)
		fprintf(stderr, "end %f before %f\n", end, before);
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
}

static void test_prio_order(void)
{
	CU_ASSERT_FATAL(start("eager", NULL, 1) == 0);
	tasks_init();
	struct starpu_sched_tree *t = tree_new();
	struct starpu_sched_component *p = starpu_sched_component_prio_create(t, NULL);
	struct starpu_sched_component *leaf = starpu_sched_component_worker_get(TCTX, 0);
	starpu_sched_component_connect(p, leaf);
	t->root = p;
	starpu_sched_tree_update_workers(t);
	CU_ASSERT(starpu_sched_component_is_prio(p));
	int prios[5] = { 1, 5, 3, 5, -2 };
	for (int i = 0; i < 5; i++)
	{
		tasks[i].priority = prios[i];
		CU_ASSERT(p->push_task(p, &tasks[i]) == 0);
	}
	int expect[5] = { 1, 3, 2, 0, 4 };
	for (int i = 0; i < 5; i++)
		CU_ASSERT(index_of(pull(leaf)) == expect[i]);
	CU_ASSERT(pull(leaf) == NULL);
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
}

/* ---- resource mapping ---- */

/* decision → (fifo with threshold thr, or nothing) → leaf, per worker. */
static struct starpu_sched_tree *two_way(struct starpu_sched_component *(*mk)(struct starpu_sched_tree *, void *), unsigned thr,
					 struct starpu_sched_component **leaves)
{
	struct starpu_sched_tree *t = tree_new();
	struct starpu_sched_component *d = mk(t, NULL);
	for (int w = 0; w < 2; w++)
	{
		leaves[w] = starpu_sched_component_worker_get(TCTX, w);
		if (thr != (unsigned) -1)
		{
			struct starpu_sched_component_fifo_data fd = { .ntasks_threshold = thr };
			struct starpu_sched_component *f = starpu_sched_component_fifo_create(t, &fd);
			starpu_sched_component_connect(f, leaves[w]);
			starpu_sched_component_connect(d, f);
		}
		else
			starpu_sched_component_connect(d, leaves[w]);
	}
	t->root = d;
	starpu_sched_tree_update_workers(t);
	return t;
}

static void test_eager_spreads(void)
{
	CU_ASSERT_FATAL(start("eager", NULL, 2) == 0);
	tasks_init();
	struct starpu_sched_component *leaves[2];
	struct starpu_sched_tree *t = two_way(starpu_sched_component_eager_create, 1, leaves);
	CU_ASSERT(starpu_sched_component_is_eager(t->root));
	CU_ASSERT(t->root->push_task(t->root, &tasks[0]) == 0);
	CU_ASSERT(t->root->push_task(t->root, &tasks[1]) == 0);
	CU_ASSERT(t->root->push_task(t->root, &tasks[2]) != 0);	/* both queues full */
	CU_ASSERT(index_of(pull(leaves[0])) == 0);
	CU_ASSERT(index_of(pull(leaves[1])) == 1);
	CU_ASSERT(pull(leaves[0]) == NULL && pull(leaves[1]) == NULL);
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
}

static void test_random_spreads(void)
{
	CU_ASSERT_FATAL(start("eager", NULL, 2) == 0);
	tasks_init();
	struct starpu_sched_component *leaves[2];
	struct starpu_sched_tree *t = two_way(starpu_sched_component_random_create, 0, leaves);
	CU_ASSERT(starpu_sched_component_is_random(t->root));
	int n[2] = { 0, 0 };
	for (int round = 0; round < 20; round++)
	{
		for (int i = 0; i < NT; i++)
			CU_ASSERT(t->root->push_task(t->root, &tasks[i]) == 0);
		for (int w = 0; w < 2; w++)
			while (pull(leaves[w]))
				n[w]++;
	}
	CU_ASSERT(n[0] + n[1] == 20 * NT);
	CU_ASSERT(n[0] > 20 * NT / 4 && n[1] > 20 * NT / 4);
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
}

static void test_work_stealing(void)
{
	CU_ASSERT_FATAL(start("eager", NULL, 2) == 0);
	tasks_init();
	struct starpu_sched_component *leaves[2];
	struct starpu_sched_tree *t = two_way(starpu_sched_component_work_stealing_create, (unsigned) -1, leaves);
	CU_ASSERT(starpu_sched_component_is_work_stealing(t->root));
	for (int i = 0; i < 4; i++)
		CU_ASSERT(t->root->push_task(t->root, &tasks[i]) == 0);
	/* Round robin: 0 and 2 for worker 0, 1 and 3 for worker 1. Worker 0
	 * takes its own from the front, then steals from the back. */
	CU_ASSERT(index_of(pull(leaves[0])) == 0);
	CU_ASSERT(index_of(pull(leaves[0])) == 2);
	CU_ASSERT(index_of(pull(leaves[0])) == 3);
	CU_ASSERT(index_of(pull(leaves[1])) == 1);
	CU_ASSERT(pull(leaves[0]) == NULL && pull(leaves[1]) == NULL);
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
}

/* ---- performance-model driven components ---- */

static char model_dir[128];

static void spin(void *buffers[], void *arg)
{
	(void) buffers; (void) arg;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3 < 200.0);
}

static struct starpu_perfmodel model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "vtest_components_spin",
};

static struct starpu_codelet cl_model = {
	.cpu_funcs = { spin },
	.nbuffers = 0,
	.model = &model,
	.name = "spin",
};

static struct starpu_perfmodel fresh_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "vtest_components_fresh",
};

static struct starpu_codelet cl_fresh = {
	.cpu_funcs = { spin },
	.nbuffers = 0,
	.model = &fresh_model,
	.name = "fresh",
};

static void calibrate(void)
{
	for (int i = 0; i < 8; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &cl_model;
		CU_ASSERT(starpu_task_submit(task) == 0);
	}
	starpu_task_wait_for_all();
}

static void model_env(void)
{
	snprintf(model_dir, sizeof(model_dir), "/tmp/vtest_components_%d", (int) getpid());
	vtest_setenv("STARPU_PERF_MODEL_DIR", model_dir);
	vtest_setenv("STARPU_HOSTNAME", "vtestcomp");
	vtest_setenv("STARPU_CALIBRATE_MINIMUM", "3");
}

static void model_env_done(void)
{
	vtest_env_restore();
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", model_dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", model_dir);
}

static void test_mct_and_heft(void)
{
	model_env();
	CU_ASSERT_FATAL(start("eager", NULL, 2) == 0);
	calibrate();
	tasks_init();
	for (int i = 0; i < NT; i++)
		tasks[i].cl = &cl_model;

	struct starpu_sched_component *leaves[2];
	struct starpu_sched_tree *t = two_way((struct starpu_sched_component *(*)(struct starpu_sched_tree *, void *)) starpu_sched_component_mct_create,
					      (unsigned) -1, leaves);
	CU_ASSERT(starpu_sched_component_is_mct(t->root));
	double len;
	CU_ASSERT(starpu_sched_component_execute_preds(t->root, &tasks[0], &len));
	CU_ASSERT(!isnan(len) && len > 0.0);
	/* Equal workers: each task goes where the queue ends first, so the
	 * work alternates between them. */
	for (int i = 0; i < 4; i++)
	{
		CU_ASSERT(t->root->push_task(t->root, &tasks[i]) == 0);
		CU_ASSERT(!isnan(tasks[i].predicted) && tasks[i].predicted > 0.0);
	}
	int n0 = 0, n1 = 0;
	while (pull(leaves[0]))
		n0++;
	while (pull(leaves[1]))
		n1++;
	CU_ASSERT(n0 == 2 && n1 == 2);
	/* A model without measurements: the task goes where it calibrates. */
	tasks[5].cl = &cl_fresh;
	CU_ASSERT(t->root->push_task(t->root, &tasks[5]) == 0);
	CU_ASSERT(isnan(tasks[5].predicted));
	CU_ASSERT(pull(leaves[0]) != NULL || pull(leaves[1]) != NULL);
	starpu_sched_tree_destroy(t);

	/* heft keeps what its bounded children refuse and sends it down as
	 * they empty. */
	t = two_way((struct starpu_sched_component *(*)(struct starpu_sched_tree *, void *)) starpu_sched_component_heft_create, 1, leaves);
	CU_ASSERT(starpu_sched_component_is_heft(t->root));
	for (int i = 0; i < 4; i++)
		CU_ASSERT(t->root->push_task(t->root, &tasks[i]) == 0);
	int got = 0;
	for (int k = 0; k < 8; k++)
		if (pull(leaves[k % 2]))
			got++;
	CU_ASSERT(got == 4);
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
	model_env_done();
}

static void test_perfmodel_select(void)
{
	model_env();
	CU_ASSERT_FATAL(start("eager", NULL, 1) == 0);
	calibrate();
	tasks_init();
	struct starpu_sched_tree *t = tree_new();
	struct starpu_sched_component *q[3], *leaf = starpu_sched_component_worker_get(TCTX, 0);
	for (int i = 0; i < 3; i++)
	{
		q[i] = starpu_sched_component_fifo_create(t, NULL);
		starpu_sched_component_connect(q[i], leaf);
	}
	struct starpu_sched_component_perfmodel_select_data sd = { q[0], q[1], q[2] };
	struct starpu_sched_component *s = starpu_sched_component_perfmodel_select_create(t, &sd);
	CU_ASSERT(starpu_sched_component_is_perfmodel_select(s));
	t->root = s;
	starpu_sched_tree_update_workers(t);
	tasks[0].cl = &cl_fresh;	/* needs calibration → q[0] */
	tasks[1].cl = &cl_noop;		/* no model → q[1] */
	tasks[2].cl = &cl_model;	/* calibrated → q[2] */
	for (int i = 0; i < 3; i++)
		CU_ASSERT(s->push_task(s, &tasks[i]) == 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT(index_of(q[i]->pull_task(q[i], leaf)) == i);
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
	model_env_done();
}

/* best_implementation: calibrates each implementation, then runs the
 * fastest. */
static atomic_int impl_runs[2];
static atomic_int last_impl;

static void spin_for(double us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3 < us);
}

static void slow_impl(void *buffers[], void *arg)
{
	(void) buffers; (void) arg;
	spin_for(400.0);
	atomic_fetch_add(&impl_runs[0], 1);
	atomic_store(&last_impl, 0);
}

static void fast_impl(void *buffers[], void *arg)
{
	(void) buffers; (void) arg;
	spin_for(40.0);
	atomic_fetch_add(&impl_runs[1], 1);
	atomic_store(&last_impl, 1);
}

static struct starpu_perfmodel impl_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "vtest_components_impl",
};

static struct starpu_codelet cl_two_impls = {
	.cpu_funcs = { slow_impl, fast_impl },
	.nbuffers = 0,
	.model = &impl_model,
	.name = "two_impls",
};

static void best_impl_init(unsigned ctx)
{
	struct starpu_sched_tree *t = starpu_sched_tree_create(ctx);
	struct starpu_sched_component *bi = starpu_sched_component_best_implementation_create(t, NULL);
	starpu_sched_component_connect(bi, starpu_sched_component_worker_get(ctx, 0));
	t->root = bi;
	starpu_sched_ctx_set_policy_data(ctx, t);
	starpu_sched_tree_update_workers(t);
}

static struct starpu_sched_policy best_impl_policy = TREE_TEST_POLICY(best_impl_init, "vtest-best-impl",
								 "best_implementation above one worker");

static void run_two_impls(int n, int *fast_runs)
{
	for (int i = 0; i < n; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &cl_two_impls;
		task->synchronous = 1;
		CU_ASSERT(starpu_task_submit(task) == 0);
		if (fast_runs)
			*fast_runs += atomic_load(&last_impl) == 1;
	}
}

/* Which implementation runs once both are calibrated depends on measured
 * times, which a loaded machine distorts (a preempted 40 us kernel can
 * measure longer than the 400 us one): so the calibration order is checked
 * on its own, and the choice of the fastest from samples given through
 * starpu_perfmodel_update_history. */
static void test_best_implementation(void)
{
	model_env();	/* STARPU_CALIBRATE_MINIMUM=3 */
	CU_ASSERT_FATAL(start(NULL, &best_impl_policy, 1) == 0);
	atomic_store(&impl_runs[0], 0);
	atomic_store(&impl_runs[1], 0);
	/* Uncalibrated first: each implementation gets its 3 samples, whatever
	 * they measure, before any choice by speed (4 runs: the first run of
	 * a footprint in a process is not a sample, perfmodel/measure.c). */
	run_two_impls(8, NULL);
	CU_ASSERT_EQUAL(atomic_load(&impl_runs[0]), 4);
	CU_ASSERT_EQUAL(atomic_load(&impl_runs[1]), 4);
	/* Both calibrated, the fast one clearly so (its mean 40 us against
	 * 400 us; measurements far from a settled mean are set aside): only
	 * the fast one runs. */
	struct starpu_task *probe = starpu_task_create();
	probe->cl = &cl_two_impls;
	probe->destroy = 0;
	struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(0, 0);
	for (int i = 0; i < 200; i++)
	{
		starpu_perfmodel_update_history(&impl_model, probe, arch, 0, 0, 400.0);
		starpu_perfmodel_update_history(&impl_model, probe, arch, 0, 1, 40.0);
	}
	starpu_task_destroy(probe);
	int fast_at_end = 0;
	run_two_impls(10, &fast_at_end);
	CU_ASSERT_EQUAL(fast_at_end, 10);
	CU_ASSERT_EQUAL(atomic_load(&impl_runs[0]), 4);
	starpu_shutdown();
	model_env_done();
}

/* ---- invalid trees ---- */

static void test_bad_tree_cycle(void)
{
	CU_ASSERT_FATAL(start("eager", NULL, 1) == 0);
	struct starpu_sched_tree *t = tree_new();
	struct starpu_sched_component *f = starpu_sched_component_fifo_create(t, NULL);
	struct starpu_sched_component *e = starpu_sched_component_eager_create(t, NULL);
	starpu_sched_component_connect(f, e);
	starpu_sched_component_connect(e, starpu_sched_component_worker_get(TCTX, 0));
	starpu_sched_component_connect(e, f);	/* the cycle */
	t->root = f;
	vtest_capture_stderr_begin();
	starpu_sched_tree_update_workers(t);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT(strstr(err, "starpu_sched_tree_update_workers") != NULL);
	CU_ASSERT(strstr(err, "cycle through component") != NULL);
	CU_ASSERT(strchr(err, '\n') == strrchr(err, '\n'));	/* one line */
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
}

/* A policy whose tree has a queue with no way to a worker. */
static void bad_init(unsigned ctx)
{
	struct starpu_sched_tree *t = starpu_sched_tree_create(ctx);
	struct starpu_sched_component *f = starpu_sched_component_fifo_create(t, NULL);
	struct starpu_sched_component *e = starpu_sched_component_eager_create(t, NULL);
	starpu_sched_component_connect(f, e);
	t->root = f;
	starpu_sched_ctx_set_policy_data(ctx, t);
	starpu_sched_tree_update_workers(t);
}

static struct starpu_sched_policy bad_policy = TREE_TEST_POLICY(bad_init, "vtest-bad-tree",
								 "a tree without worker leaves");


static void test_bad_tree_no_worker_runs_anyway(void)
{
	vtest_capture_stderr_begin();
	int ret = start(NULL, &bad_policy, 2);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_FATAL(ret == 0);
	CU_ASSERT(strstr(err, "component 'eager' has no children and is not a worker component") != NULL);
	run_counted(50);
	starpu_shutdown();
}

/* ---- a pump per scheduling area ---- */

/* A user-defined reservoir: push stores, pull hands the oldest task to
 * anyone and never asks the parents; no can_push of its own. */
struct stash
{
	pthread_mutex_t lock;
	struct starpu_task_list list;
};

static int stash_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	struct stash *s = c->data;
	pthread_mutex_lock(&s->lock);
	starpu_task_list_push_back(&s->list, task);
	pthread_mutex_unlock(&s->lock);
	starpu_sched_component_can_pull(c);	/* wake the workers below */
	return 0;
}

static struct starpu_task *stash_pull(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	(void) to;
	struct stash *s = c->data;
	pthread_mutex_lock(&s->lock);
	struct starpu_task *t = starpu_task_list_empty(&s->list) ? NULL : starpu_task_list_pop_front(&s->list);
	pthread_mutex_unlock(&s->lock);
	return t;
}

static void stash_deinit(struct starpu_sched_component *c)
{
	struct stash *s = c->data;
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static struct starpu_sched_component *stash_create(struct starpu_sched_tree *t, const char *name)
{
	struct starpu_sched_component *c = starpu_sched_component_create(t, name);
	struct stash *s = calloc(1, sizeof(*s));
	CU_ASSERT_FATAL(c && s);
	pthread_mutex_init(&s->lock, NULL);
	starpu_task_list_init(&s->list);
	c->data = s;
	c->push_task = stash_push;
	c->pull_task = stash_pull;
	c->deinit_data = stash_deinit;
	return c;
}

/* A pump for the stash: hands stored tasks to the child with room. */
static int stash_can_push(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	struct stash *s = c->data;
	int moved = 0;
	for (;;)
	{
		pthread_mutex_lock(&s->lock);
		struct starpu_task *t = starpu_task_list_empty(&s->list) ? NULL : starpu_task_list_pop_front(&s->list);
		pthread_mutex_unlock(&s->lock);
		if (!t)
			return moved;
		if (to->push_task(to, t))
		{
			pthread_mutex_lock(&s->lock);
			starpu_task_list_push_front(&s->list, t);
			pthread_mutex_unlock(&s->lock);
			return moved;
		}
		moved = 1;
	}
}

/* Updates t's workers; returns what was written on stderr (static). */
static const char *update_capture(struct starpu_sched_tree *t)
{
	vtest_capture_stderr_begin();
	starpu_sched_tree_update_workers(t);
	return vtest_capture_stderr_end();
}

/* Above a second stash, the first one has no pump and the worker's pulls
 * stop at the second (its pull never asks its parents): rejected. */
static void test_area_undrained_reservoir(void)
{
	CU_ASSERT_FATAL(start("eager", NULL, 1) == 0);
	struct starpu_sched_tree *t = tree_new();
	struct starpu_sched_component *top = stash_create(t, "stash-top");
	struct starpu_sched_component *low = stash_create(t, "stash-low");
	starpu_sched_component_connect(top, low);
	starpu_sched_component_connect(low, starpu_sched_component_worker_get(TCTX, 0));
	t->root = top;
	const char *err = update_capture(t);
	CU_ASSERT(strstr(err, "starpu_sched_tree_update_workers") != NULL);
	CU_ASSERT(strstr(err, "component 'stash-top' keeps tasks but nothing drains it") != NULL);
	CU_ASSERT(strstr(err, "stash-low") == NULL);	/* the worker drains that one */
	CU_ASSERT(strchr(err, '\n') == strrchr(err, '\n'));	/* one line */
	starpu_sched_tree_destroy(t);

	/* A component without pull_task stops the pulls as well: the fifo
	 * below it is drained (the worker pulls it), the stash above is not. */
	t = tree_new();
	top = stash_create(t, "stash-over-pusher");
	struct starpu_sched_component *pusher = starpu_sched_component_eager_create(t, NULL);
	pusher->pull_task = NULL;
	struct starpu_sched_component *f = starpu_sched_component_fifo_create(t, NULL);
	starpu_sched_component_connect(top, pusher);
	starpu_sched_component_connect(pusher, f);
	starpu_sched_component_connect(f, starpu_sched_component_worker_get(TCTX, 0));
	t->root = top;
	err = update_capture(t);
	CU_ASSERT(strstr(err, "component 'stash-over-pusher' keeps tasks but nothing drains it") != NULL);
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
}

/* The same stash with workers pulling through (directly, through eager,
 * through a fifo) or above a pump of its own is accepted. */
static void test_area_drained_reservoir_accepted(void)
{
	CU_ASSERT_FATAL(start("eager", NULL, 1) == 0);
	struct starpu_sched_tree *t = tree_new();
	struct starpu_sched_component *top = stash_create(t, "stash");
	struct starpu_sched_component *e = starpu_sched_component_eager_create(t, NULL);
	struct starpu_sched_component *f = starpu_sched_component_fifo_create(t, NULL);
	starpu_sched_component_connect(top, e);
	starpu_sched_component_connect(e, f);
	starpu_sched_component_connect(f, starpu_sched_component_worker_get(TCTX, 0));
	t->root = top;
	const char *err = update_capture(t);
	CU_ASSERT_STRING_EQUAL(err, "");
	/* The accepted tree works: a push is pulled by the worker. */
	tasks_init();
	CU_ASSERT(t->root->push_task(t->root, &tasks[0]) == 0);
	CU_ASSERT(index_of(pull(starpu_sched_component_worker_get(TCTX, 0))) == 0);
	starpu_sched_tree_destroy(t);

	/* Over a user component without a pull, but with a pump of its own. */
	t = tree_new();
	top = stash_create(t, "stash-pump");
	top->can_push = starpu_sched_component_can_push;	/* the default: no pump */
	struct starpu_sched_component *pusher = starpu_sched_component_eager_create(t, NULL);
	pusher->pull_task = NULL;
	starpu_sched_component_connect(top, pusher);
	starpu_sched_component_connect(pusher, starpu_sched_component_worker_get(TCTX, 0));
	t->root = top;
	err = update_capture(t);
	CU_ASSERT(strstr(err, "'stash-pump' keeps tasks") != NULL);
	top->can_push = stash_can_push;
	err = update_capture(t);
	CU_ASSERT_STRING_EQUAL(err, "");
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
}

/* A policy whose root is the stash, workers pulling through eager. */
static void stash_init(unsigned ctx)
{
	struct starpu_sched_tree *t = starpu_sched_tree_create(ctx);
	struct starpu_sched_component *top = stash_create(t, "stash");
	struct starpu_sched_component *e = starpu_sched_component_eager_create(t, NULL);
	starpu_sched_component_connect(top, e);
	for (unsigned i = 0; i < starpu_worker_get_count(); i++)
		starpu_sched_component_connect(e, starpu_sched_component_worker_get(ctx, (int) i));
	t->root = top;
	starpu_sched_ctx_set_policy_data(ctx, t);
	starpu_sched_tree_update_workers(t);
}

static struct starpu_sched_policy stash_policy = TREE_TEST_POLICY(stash_init, "vtest-stash",
								 "a user reservoir drained by the workers' pulls");

static void test_area_drained_reservoir_runs(void)
{
	vtest_capture_stderr_begin();
	int ret = start(NULL, &stash_policy, 2);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_FATAL(ret == 0);
	CU_ASSERT(strstr(err, "invalid") == NULL);
	run_counted(50);
	starpu_shutdown();
}

/* Every built-in tree policy passes the validation, area rule included,
 * and runs its tasks. */
static void test_area_builtin_trees_valid(void)
{
	struct starpu_sched_policy **all = starpu_sched_get_predefined_policies();
	int ntree = 0;
	for (unsigned i = 0; all[i]; i++)
	{
		const char *name = all[i]->policy_name;
		if (strncmp(name, "tree-", 5))
			continue;
		ntree++;
		vtest_capture_stderr_begin();
		int ret = start(name, NULL, 2);
		const char *err = vtest_capture_stderr_end();
		CU_ASSERT_FATAL(ret == 0);
		if (strstr(err, "is invalid"))
			fprintf(stderr, "%s: %s", name, err);
		CU_ASSERT(strstr(err, "is invalid") == NULL);
		run_counted(20);
		starpu_shutdown();
	}
	CU_ASSERT(ntree >= 5);
}

/* ---- workers leaving a tree ---- */

static atomic_int ran_on[2];

static void count_where(void *buffers[], void *arg)
{
	(void) buffers; (void) arg;
	int w = starpu_worker_get_id();
	if (w >= 0 && w < 2)
		atomic_fetch_add(&ran_on[w], 1);
}

static struct starpu_codelet cl_where = { .cpu_funcs = { count_where }, .nbuffers = 0, .name = "where" };

static void test_remove_worker_keeps_tasks(void)
{
	CU_ASSERT_FATAL(start("tree-random", NULL, 2) == 0);
	atomic_store(&ran_on[0], 0);
	atomic_store(&ran_on[1], 0);
	starpu_pause();
	for (int i = 0; i < 100; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &cl_where;
		CU_ASSERT(starpu_task_submit(task) == 0);
	}
	/* Worker 1 leaves the tree with its queue full: its tasks must go
	 * to worker 0. */
	int w1 = 1;
	starpu_sched_tree_remove_workers(0, &w1, 1);
	starpu_resume();
	starpu_task_wait_for_all();
	CU_ASSERT(atomic_load(&ran_on[0]) == 100);
	CU_ASSERT(atomic_load(&ran_on[1]) == 0);
	starpu_sched_tree_add_workers(0, &w1, 1);
	for (int i = 0; i < 20; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &cl_where;
		CU_ASSERT(starpu_task_submit(task) == 0);
	}
	starpu_task_wait_for_all();
	CU_ASSERT(atomic_load(&ran_on[0]) + atomic_load(&ran_on[1]) == 120);
	starpu_shutdown();
}

static void test_bitmap(void)
{
	struct starpu_bitmap *a = starpu_bitmap_create(), *b = starpu_bitmap_create(), *c = starpu_bitmap_create();
	CU_ASSERT(starpu_bitmap_first(a) == -1 && starpu_bitmap_cardinal(a) == 0);
	starpu_bitmap_set(a, 3);
	starpu_bitmap_set(a, 70);
	starpu_bitmap_set(a, 200);
	CU_ASSERT(starpu_bitmap_get(a, 70) && !starpu_bitmap_get(a, 71) && !starpu_bitmap_get(a, 5000));
	CU_ASSERT(starpu_bitmap_first(a) == 3 && starpu_bitmap_next(a, 3) == 70 && starpu_bitmap_next(a, 70) == 200);
	CU_ASSERT(starpu_bitmap_last(a) == 200 && !starpu_bitmap_has_next(a, 200));
	starpu_bitmap_set(b, 70);
	starpu_bitmap_set(b, 4);
	starpu_bitmap_unset_and(c, a, b);
	CU_ASSERT(starpu_bitmap_cardinal(c) == 1 && starpu_bitmap_get(c, 70));
	starpu_bitmap_or(b, a);
	CU_ASSERT(starpu_bitmap_cardinal(b) == 4 && starpu_bitmap_and_get(a, b, 200));
	starpu_bitmap_unset(a, 70);
	CU_ASSERT(starpu_bitmap_cardinal(a) == 2);
	starpu_bitmap_unset_all(a);
	CU_ASSERT(starpu_bitmap_cardinal(a) == 0);
	starpu_bitmap_destroy(a);
	starpu_bitmap_destroy(b);
	starpu_bitmap_destroy(c);
}

static const struct vtest_case flow_cases[] = {
	{ "bitmap", test_bitmap },
	{ "fifo_threshold_and_pump", test_fifo_threshold_and_pump },
	{ "exp_len_threshold", test_exp_len_threshold },
	{ "prio_order", test_prio_order },
	VTEST_END
};

static const struct vtest_case mapping_cases[] = {
	{ "eager_spreads", test_eager_spreads },
	{ "random_spreads", test_random_spreads },
	{ "work_stealing", test_work_stealing },
	{ "mct_and_heft", test_mct_and_heft },
	{ "perfmodel_select", test_perfmodel_select },
	{ "best_implementation", test_best_implementation },
	VTEST_END
};

static const struct vtest_case tree_cases[] = {
	{ "bad_tree_cycle", test_bad_tree_cycle },
	{ "bad_tree_no_worker_runs_anyway", test_bad_tree_no_worker_runs_anyway },
	{ "area_undrained_reservoir", test_area_undrained_reservoir },
	{ "area_drained_reservoir_accepted", test_area_drained_reservoir_accepted },
	{ "area_drained_reservoir_runs", test_area_drained_reservoir_runs },
	{ "area_builtin_trees_valid", test_area_builtin_trees_valid },
	{ "remove_worker_keeps_tasks", test_remove_worker_keeps_tasks },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "flow_control", NULL, NULL, flow_cases },
	{ "mapping", NULL, NULL, mapping_cases },
	{ "trees", NULL, NULL, tree_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
