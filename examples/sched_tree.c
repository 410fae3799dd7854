/*
 * sched_tree.c — an application that brings its own modular scheduler.
 *
 * Shows: building a scheduling policy from components with the public API
 * of starpu_sched_component.h, in the init_sched of a struct
 * starpu_sched_policy passed through starpu_conf. The tree is the
 * eager-with-prefetching shape:
 *
 *                 fifo            (the runtime pushes here: a reservoir)
 *                   |
 *                 eager           (maps each task to a worker queue)
 *              /    |    \
 *           fifo  fifo  fifo      (at most 2 tasks each: mapped ahead and
 *             |     |     |        their input prefetched)
 *           worker worker worker  (each worker pulls from its leaf)
 *
 * The program then scales a set of vectors, each in a chain of dependent
 * tasks, and checks every element.
 *
 * STARPU_SCHED, when set, wins over the policy given in starpu_conf (as
 * Vela does): that is how `vela sched-eval` compares this program's own
 * policy, "app-tree-eager-prefetching", with the built-in ones (README.md,
 * tools/README.md). Simulated (STARPU_SIMGRID=1 in Vela), the kernels do
 * not run, so nothing is checked; the tasks have no performance model, so
 * give them a duration (STARPU_SIMGRID_DEFAULT_TASK_US).
 *
 * Usage: sched_tree [-n NVECTORS]
 * Exit: 0 success, 1 mismatch or error, 77 no CPU worker available.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>
#include <starpu_sched_component.h>

#define NTASKS_AHEAD	2
#define CHAIN		8
#define NELEMS		256

static void init_tree_policy(unsigned sched_ctx_id)
{
	struct starpu_sched_tree *tree = starpu_sched_tree_create(sched_ctx_id);
	tree->root = starpu_sched_component_fifo_create(tree, NULL);
	struct starpu_sched_component *eager = starpu_sched_component_eager_create(tree, NULL);
	starpu_sched_component_connect(tree->root, eager);

	struct starpu_sched_component_fifo_data ahead = {
		.ntasks_threshold = NTASKS_AHEAD,
		.exp_len_threshold = 0.0,	/* no limit on predicted work */
	};
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
	{
		struct starpu_sched_component *worker = starpu_sched_component_worker_new(sched_ctx_id, (int) w);
		struct starpu_sched_component *fifo = starpu_sched_component_fifo_create(tree, &ahead);
		/* The long form of starpu_sched_component_connect. */
		fifo->add_child(fifo, worker);
		worker->add_parent(worker, fifo);
		eager->add_child(eager, fifo);
		fifo->add_parent(fifo, eager);
	}
	starpu_sched_ctx_set_policy_data(sched_ctx_id, tree);
	starpu_sched_tree_update_workers(tree);
}

static void deinit_tree_policy(unsigned sched_ctx_id)
{
	struct starpu_sched_tree *tree = starpu_sched_ctx_get_policy_data(sched_ctx_id);
	starpu_sched_tree_destroy(tree);
	starpu_sched_ctx_set_policy_data(sched_ctx_id, NULL);
}

static struct starpu_sched_policy app_policy = {
	.init_sched = init_tree_policy,
	.deinit_sched = deinit_tree_policy,
	.add_workers = starpu_sched_tree_add_workers,
	.remove_workers = starpu_sched_tree_remove_workers,
	.push_task = starpu_sched_tree_push_task,
	.pop_task = starpu_sched_tree_pop_task,
	.pre_exec_hook = starpu_sched_component_worker_pre_exec_hook,
	.post_exec_hook = starpu_sched_component_worker_post_exec_hook,
	.policy_name = "app-tree-eager-prefetching",
	.policy_description = "eager with prefetching, built by the application",
};

static void add_cpu(void *buffers[], void *cl_arg)
{
	int32_t *v = (int32_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
	uint32_t n = STARPU_VECTOR_GET_NX(buffers[0]);
	int32_t step;
	memcpy(&step, cl_arg, sizeof(step));
	for (uint32_t i = 0; i < n; i++)
		v[i] = 2 * v[i] + step;
}

static struct starpu_codelet add_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { add_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "double_and_add",
};

int main(int argc, char **argv)
{
	unsigned nvec = 32;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			nvec = (unsigned) strtoul(argv[++i], NULL, 10);

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy = &app_policy;
	int ret = starpu_init(&conf);
	if (ret == -ENODEV)
		return 77;
	if (ret)
	{
		fprintf(stderr, "starpu_init: %s\n", strerror(-ret));
		return 1;
	}
	if (starpu_cpu_worker_get_count() == 0)
	{
		starpu_shutdown();
		return 77;
	}

	int32_t (*vec)[NELEMS] = calloc(nvec, sizeof(*vec));
	starpu_data_handle_t *h = calloc(nvec, sizeof(*h));
	int32_t *steps = calloc(CHAIN, sizeof(*steps));
	if (!vec || !h || !steps)
		return 1;
	for (unsigned v = 0; v < nvec; v++)
	{
		for (unsigned i = 0; i < NELEMS; i++)
			vec[v][i] = (int32_t) (v + i);
		starpu_vector_data_register(&h[v], STARPU_MAIN_RAM, (uintptr_t) vec[v], NELEMS, sizeof(int32_t));
	}
	for (unsigned s = 0; s < CHAIN; s++)
		steps[s] = (int32_t) s + 1;

	/* Step by step over all vectors: the chains interleave, so several
	 * tasks are ready at once and the tree has something to map. */
	for (unsigned s = 0; s < CHAIN; s++)
		for (unsigned v = 0; v < nvec; v++)
		{
			struct starpu_task *task = starpu_task_create();
			task->cl = &add_cl;
			task->handles[0] = h[v];
			task->cl_arg = &steps[s];
			task->cl_arg_size = sizeof(steps[s]);
			ret = starpu_task_submit(task);
			if (ret)
			{
				fprintf(stderr, "starpu_task_submit: %s\n", strerror(-ret));
				return 1;
			}
		}
	starpu_task_wait_for_all();

#ifdef VELA_VERSION_STRING
	const int simulated = vela_is_simulated();
#else
	const int simulated = 0;
#endif
	int bad = 0;
	for (unsigned v = 0; v < nvec; v++)
	{
		starpu_data_unregister(h[v]);
		for (unsigned i = 0; i < NELEMS && !bad && !simulated; i++)
		{
			int64_t x = (int32_t) (v + i);
			for (unsigned s = 0; s < CHAIN; s++)
				x = 2 * x + steps[s];
			if (vec[v][i] != (int32_t) x)
			{
				fprintf(stderr, "vector %u element %u: %d, expected %lld\n", v, i, vec[v][i], (long long) x);
				bad = 1;
			}
		}
	}
	free(vec);
	free(h);
	free(steps);
	starpu_shutdown();
	if (!bad)
		printf("sched_tree: %u vectors x %d tasks through the application's tree: %s\n", nvec, CHAIN,
		       simulated ? "simulated, not checked" : "ok");
	return bad;
}
