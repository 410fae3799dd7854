/* tree.c — the predefined tree-* policies: component trees built by
 * sched_tree_build_simple (component/simple.c) around one decision
 * component, plus tree-ws. "-prefetching" variants keep a reservoir at the
 * root and bounded queues per worker: tasks are mapped a few ahead, and
 * each queue prefetches the input of the tasks it accepts.
 *
 * tree-eager-prefetching and tree-prio-prefetching are shaped after the
 * machine (starpu_sched_component_make_scheduler): the reservoir and an
 * eager component at the root, another eager component per NUMA node and
 * per package that holds only some of the workers, then the bounded queue
 * of each worker. A task is thus mapped to a package first, then to a
 * worker of it, and each eager component weighs a handful of children
 * instead of every worker. On a machine with one package and one NUMA
 * node the tree is exactly the flat one (reservoir, eager, worker queues).
 */
#include "sched/sched.h"
#include <starpu_sched_component.h>
#include "os/os.h"

#include <limits.h>
#include <stdlib.h>

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

static void init_prio(unsigned ctx)
{
	sched_tree_build_simple(starpu_sched_component_eager_create, NULL, S(DECIDE_WORKERS) | S(FIFO_ABOVE_PRIO), ctx, 0);
}

/* ---- the machine-shaped prefetching trees ---- */

static struct starpu_sched_component *make_fifo(struct starpu_sched_tree *t, void *arg)
{
	return starpu_sched_component_fifo_create(t, arg);
}

static struct starpu_sched_component *make_prio(struct starpu_sched_tree *t, void *arg)
{
	return starpu_sched_component_prio_create(t, arg);
}

static struct starpu_sched_component *make_eager(struct starpu_sched_tree *t, void *arg)
{
	return starpu_sched_component_eager_create(t, arg);
}

/* The worker recipe of the tree being built: make_scheduler asks for it
 * through a function without arguments. Serialised by hier_mutex. */
static os_mutex_t hier_mutex = OS_MUTEX_INITIALIZER;
static struct starpu_sched_component_composed_recipe *hier_worker_recipe;

static struct starpu_sched_component_composed_recipe *hier_recipe_for(enum starpu_worker_archtype arch)
{
	(void) arch;
	return hier_worker_recipe;
}

static void init_hier_pf(unsigned ctx, int prio)
{
	/* The bounded queues of the simple builder (simple.c), same
	 * environment. fifo_data and prio_data have the same fields. */
	struct starpu_sched_component_fifo_data fd = {
		.ntasks_threshold = (unsigned) starpu_get_env_number_default("STARPU_NTASKS_THRESHOLD", 2),
		.exp_len_threshold = starpu_get_env_float_default("STARPU_EXP_LEN_THRESHOLD", 0.0),
	};
	struct starpu_sched_component_prio_data pd = { fd.ntasks_threshold, fd.exp_len_threshold, 0 };
	starpu_sched_component_create_t queue = prio ? make_prio : make_fifo;
	struct starpu_sched_component_composed_recipe *machine = starpu_sched_component_composed_recipe_create_singleton(queue, NULL);
	struct starpu_sched_component_composed_recipe *level = starpu_sched_component_composed_recipe_create_singleton(make_eager, NULL);
	if (!machine || !level)
		abort();
	starpu_sched_component_composed_recipe_add(machine, make_eager, NULL);
	struct starpu_sched_component_specs specs = {
		.hwloc_machine_composed_sched_component = machine,
		.hwloc_component_composed_sched_component = level,
		.hwloc_socket_composed_sched_component = level,
		.worker_composed_sched_component = hier_recipe_for,
		.mix_heterogeneous_workers = 0,
	};
	os_mutex_lock(&hier_mutex);
	hier_worker_recipe = starpu_sched_component_composed_recipe_create_singleton(queue, prio ? (void *) &pd : (void *) &fd);
	if (!hier_worker_recipe)
		abort();
	struct starpu_sched_tree *t = starpu_sched_component_make_scheduler(ctx, specs);
	starpu_sched_component_composed_recipe_destroy(hier_worker_recipe);
	hier_worker_recipe = NULL;
	os_mutex_unlock(&hier_mutex);
	starpu_sched_component_composed_recipe_destroy(machine);
	starpu_sched_component_composed_recipe_destroy(level);
	if (!t)
		abort();
	if (prio)
	{
		/* Any int is a valid priority, as in the prio policy. */
		if (!starpu_sched_ctx_min_priority_is_set(ctx))
			starpu_sched_ctx_set_min_priority(ctx, INT_MIN);
		if (!starpu_sched_ctx_max_priority_is_set(ctx))
			starpu_sched_ctx_set_max_priority(ctx, INT_MAX);
	}
	starpu_sched_ctx_set_policy_data(ctx, t);
}

static void init_eager_pf(unsigned ctx)
{
	init_hier_pf(ctx, 0);
}

static void init_prio_pf(unsigned ctx)
{
	init_hier_pf(ctx, 1);
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
