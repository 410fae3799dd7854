/* tree.c — the predefined tree-* policies: component trees built by
 * sched_tree_build_simple (component/simple.c) around one decision
 * component, plus tree-ws. "-prefetching" variants keep a reservoir at the
 * root and bounded queues per worker: tasks are mapped a few ahead, and
 * each queue prefetches the input of the tasks it accepts.
 */
#include "sched/sched.h"
#include <starpu_sched_component.h>

#define S(x) STARPU_SCHED_SIMPLE_##x

static struct starpu_sched_component *make_heft(struct starpu_sched_tree *t, void *arg)
{
	(void) arg;
	return starpu_sched_component_heft_create(t, NULL);
}

static struct starpu_sched_component *make_mct(struct starpu_sched_tree *t, void *arg)
{
	(void) arg;
	return starpu_sched_component_mct_create(t, NULL);
}

static void init_eager(unsigned ctx)
{
	sched_tree_build_simple(starpu_sched_component_eager_create, NULL, S(DECIDE_WORKERS) | S(FIFO_ABOVE), ctx, 0);
}

static void init_eager_pf(unsigned ctx)
{
	sched_tree_build_simple(starpu_sched_component_eager_create, NULL,
				S(DECIDE_WORKERS) | S(FIFO_ABOVE) | S(FIFOS_BELOW), ctx, 1);
}

static void init_prio(unsigned ctx)
{
	sched_tree_build_simple(starpu_sched_component_eager_create, NULL, S(DECIDE_WORKERS) | S(FIFO_ABOVE_PRIO), ctx, 0);
}

static void init_prio_pf(unsigned ctx)
{
	sched_tree_build_simple(starpu_sched_component_eager_create, NULL,
				S(DECIDE_WORKERS) | S(FIFO_ABOVE_PRIO) | S(FIFOS_BELOW_PRIO), ctx, 1);
}

static void init_random(unsigned ctx)
{
	sched_tree_build_simple(starpu_sched_component_random_create, NULL, S(DECIDE_WORKERS) | S(FIFOS_BELOW), ctx, 0);
}

static void init_random_pf(unsigned ctx)
{
	sched_tree_build_simple(starpu_sched_component_random_create, NULL,
				S(DECIDE_WORKERS) | S(FIFO_ABOVE) | S(FIFOS_BELOW), ctx, 1);
}

static void init_ws(unsigned ctx)
{
	sched_tree_build_simple(starpu_sched_component_work_stealing_create, NULL, S(DECIDE_WORKERS), ctx, 0);
}

static void init_heft(unsigned ctx)
{
	sched_tree_build_simple(make_mct, NULL,
				S(DECIDE_WORKERS) | S(PERFMODEL) | S(FIFO_ABOVE_PRIO) | S(FIFOS_BELOW_PRIO) | S(IMPL), ctx, 1);
}

static void init_heft2(unsigned ctx)
{
	/* heft keeps the tasks itself and sends them down as room appears. */
	sched_tree_build_simple(make_heft, NULL, S(DECIDE_WORKERS) | S(FIFOS_BELOW_PRIO) | S(IMPL), ctx, 1);
}

#define TREE_POLICY(var, init, push, name, descr) \
	struct starpu_sched_policy var = { \
		.init_sched = init, \
		.deinit_sched = starpu_sched_tree_deinitialize, \
		.add_workers = starpu_sched_tree_add_workers, \
		.remove_workers = starpu_sched_tree_remove_workers, \
		.push_task = push, \
		.pop_task = starpu_sched_tree_pop_task, \
		.pre_exec_hook = starpu_sched_component_worker_pre_exec_hook, \
		.post_exec_hook = starpu_sched_component_worker_post_exec_hook, \
		.policy_name = name, \
		.policy_description = descr, \
		.worker_type = STARPU_WORKER_LIST, \
	}

TREE_POLICY(sched_policy_tree_eager, init_eager, starpu_sched_tree_push_task, "tree-eager",
	    "component tree: one central FIFO, workers pull from it");
TREE_POLICY(sched_policy_tree_eager_prefetching, init_eager_pf, starpu_sched_tree_push_task, "tree-eager-prefetching",
	    "component tree: central FIFO feeding small per-worker FIFOs that prefetch");
TREE_POLICY(sched_policy_tree_prio, init_prio, starpu_sched_tree_push_task, "tree-prio",
	    "component tree: one central priority queue, workers pull from it");
TREE_POLICY(sched_policy_tree_prio_prefetching, init_prio_pf, starpu_sched_tree_push_task, "tree-prio-prefetching",
	    "component tree: central priority queue feeding small per-worker priority queues that prefetch");
TREE_POLICY(sched_policy_tree_random, init_random, starpu_sched_tree_push_task, "tree-random",
	    "component tree: each task to a random worker's FIFO, weighted by speed");
TREE_POLICY(sched_policy_tree_random_prefetching, init_random_pf, starpu_sched_tree_push_task, "tree-random-prefetching",
	    "component tree: central FIFO, random mapping to small per-worker FIFOs that prefetch");
TREE_POLICY(sched_policy_tree_ws, init_ws, starpu_sched_tree_work_stealing_push_task, "tree-ws",
	    "component tree: per-worker queues with work stealing");
TREE_POLICY(sched_policy_tree_heft, init_heft, starpu_sched_tree_push_task, "tree-heft",
	    "component tree: HEFT (minimum completion time from performance models) below a central priority queue");
TREE_POLICY(sched_policy_tree_heft2, init_heft2, starpu_sched_tree_push_task, "tree-heft2",
	    "component tree: HEFT component that keeps tasks by priority and maps them as workers free up");
TREE_POLICY(sched_policy_tree_heft_prio, init_heft2, starpu_sched_tree_push_task, "tree-heft-prio",
	    "component tree: alias of tree-heft2");
