/* components_common.h — what the component tests (test_components.c,
 * test_components_machine.c) share: a runtime with a policy or a custom
 * tree, tasks pushed and pulled by hand in a context no test starts, a
 * policy made of a tree, and counted no-op tasks. */
#ifndef VELA_TESTS_COMPONENTS_COMMON_H
#define VELA_TESTS_COMPONENTS_COMMON_H

#include <starpu.h>
#include <starpu_sched_component.h>
#include <stdatomic.h>
#include "vtest.h"
#define TCTX 5	/* a context id no test starts: its leaves are ours */

static inline void noop(void *buffers[], void *arg)
{
	(void) buffers; (void) arg;
}

__attribute__((unused)) static struct starpu_codelet cl_noop = {
	.cpu_funcs = { noop },
	.nbuffers = 0,
	.name = "noop",
};

static inline int start(const char *policy, struct starpu_sched_policy *custom, int ncpus)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = policy;
	conf.sched_policy = custom;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.ncpus = ncpus;
	return starpu_init(&conf);
}

#define NT 16
__attribute__((unused)) static struct starpu_task tasks[NT];

static inline void tasks_init(void)
{
	for (unsigned i = 0; i < NT; i++)
	{
		starpu_task_init(&tasks[i]);
		tasks[i].cl = &cl_noop;
		tasks[i].priority = 0;
	}
}

static inline struct starpu_sched_tree *tree_new(void)
{
	return starpu_sched_tree_create(TCTX);
}

static inline int index_of(struct starpu_task *t)
{
	return t ? (int) (t - tasks) : -1;
}

static inline struct starpu_task *pull(struct starpu_sched_component *leaf)
{
	return leaf->pull_task(leaf, NULL);
}

/* A test policy whose init_sched builds a component tree: the tree's entry
 * points and the worker components' exec hooks. */
#define TREE_TEST_POLICY(init, name, description) \
	{ \
		.init_sched = init, \
		.deinit_sched = starpu_sched_tree_deinitialize, \
		.add_workers = starpu_sched_tree_add_workers, \
		.remove_workers = starpu_sched_tree_remove_workers, \
		.push_task = starpu_sched_tree_push_task, \
		.pop_task = starpu_sched_tree_pop_task, \
		.pre_exec_hook = starpu_sched_component_worker_pre_exec_hook, \
		.post_exec_hook = starpu_sched_component_worker_post_exec_hook, \
		.policy_name = name, \
		.policy_description = description, \
	}


__attribute__((unused)) static atomic_int ran;

static inline void count(void *buffers[], void *arg)
{
	(void) buffers; (void) arg;
	atomic_fetch_add(&ran, 1);
}

__attribute__((unused)) static struct starpu_codelet cl_count = { .cpu_funcs = { count }, .nbuffers = 0, .name = "count" };

/* Submits n tasks of cl_count, waits for them, checks that all ran. */
static inline void run_counted(int n)
{
	atomic_store(&ran, 0);
	for (int i = 0; i < n; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &cl_count;
		CU_ASSERT(starpu_task_submit(task) == 0);
	}
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&ran), n);
}

#endif
