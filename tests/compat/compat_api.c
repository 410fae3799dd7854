/* compat_api: API pieces StarPU 1.3 applications use (issue 23, group 4):
 * the headers they include and the configuration macros they test; task
 * bundles with a dm* policy; starpu_task_get_current_data_node;
 * starpu_interface_data_copy; starpu_malloc_on_node_set_default_flags;
 * starpu_iteration_push/pop; the parallel-code helpers of scheduling
 * contexts; starpu_tree; starpu_data_cpy; progression hooks;
 * starpu_cublas_init/shutdown without CUDA; starpu_bound.
 */
#include "compat.h"

#include <starpu_bound.h>
#include <starpu_task_bundle.h>
#include <starpu_tree.h>
#include <starpu_helper.h>
#include <starpu_expert.h>
#include <starpu_deprecated_api.h>
#include <starpu_simgrid_wrap.h>
#include <starpu_cuda.h>
#include <starpu_opencl.h>
#include <starpu_cublas.h>
#include <starpu_cusparse.h>
#include <starpu_sched_component.h>

#include <math.h>

#if !defined(STARPU_CACHELINE_SIZE) || STARPU_CACHELINE_SIZE < 16
#error "STARPU_CACHELINE_SIZE"
#endif
#if !defined(STARPU_HAVE_NEARBYINTF) || !defined(STARPU_HAVE_RINTF) || !defined(STARPU_HAVE_UNISTD_H) || \
    !defined(STARPU_HAVE_PTHREAD_BARRIER) || !defined(STARPU_HAVE_STRUCT_TIMESPEC) || !defined(STARPU_HAVE_SETENV)
#error "STARPU_HAVE_* of starpu_config.h"
#endif

/* Links: what an application may take the address of. */
static void *const used[] = {
	(void *) starpu_sched_component_pump_to, (void *) starpu_sched_component_pump_downstream,
	(void *) starpu_bound_print_lp, (void *) starpu_bound_print_mps, (void *) starpu_bound_print_dot,
	(void *) starpu_idle_hook_register, (void *) starpu_wake_all_blocked_workers,
	(void *) starpu_tree_get_neighbour, (void *) starpu_tree_reset_visited,
	(void *) starpu_task_bundle_expected_energy,
};

static struct starpu_task_bundle_s_dummy *unused_pointer;

static void node_cpu(void *b[], void *arg)
{
	(void) b;
	int *out = arg;
	out[0] = starpu_task_get_current_data_node(0);
	out[1] = (int) starpu_worker_get_local_memory_node();
	out[2] = starpu_task_get_current_data_node(1);
}

static struct starpu_codelet node_cl = { .cpu_funcs = { node_cpu }, .nbuffers = 2, .modes = { STARPU_R, STARPU_R } };

static void current_data_node(void)
{
	int x = 0, y = 0, out[3] = { -5, -5, -5 };
	starpu_data_handle_t hx, hy;
	starpu_variable_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	starpu_variable_data_register(&hy, STARPU_MAIN_RAM, (uintptr_t) &y, sizeof(y));
	CHECK(starpu_task_insert(&node_cl, STARPU_R, hx, STARPU_R, hy, STARPU_CL_ARGS_NFREE, out, (size_t) 0, 0) == 0);
	starpu_task_wait_for_all();
	CHECK(out[0] == out[1] && out[2] == out[1] && out[1] >= 0);
	CHECK(starpu_task_get_current_data_node(0) == -1);
	starpu_data_unregister(hx);
	starpu_data_unregister(hy);
}

/* ---- bundles ---- */

static starpu_task_bundle_t the_bundle;
static int in_bundle_in_kernel[4];

static void bundle_cpu(void *b[], void *arg)
{
	(void) b;
	int i = (int) (intptr_t) arg;
	/* still in its bundle while it runs (the dm* policies leave it there) */
	__atomic_store_n(&in_bundle_in_kernel[i], starpu_task_get_current()->bundle == the_bundle, __ATOMIC_RELAXED);
}

static struct starpu_perfmodel bundle_model = { .type = STARPU_HISTORY_BASED, .symbol = "compat_api_bundle" };
static struct starpu_codelet bundle_cl = { .cpu_funcs = { bundle_cpu }, .nbuffers = 0, .model = &bundle_model };

static void bundles(void)
{
	/* calibrate the model first: the policy then predicts for the bundle */
	for (int i = 0; i < 30; i++)
		CHECK(starpu_task_insert(&bundle_cl, STARPU_CL_ARGS_NFREE, (void *) (intptr_t) 3, (size_t) 0, 0) == 0);
	starpu_task_wait_for_all();
	starpu_task_bundle_create(&the_bundle);
	struct starpu_task *t[3];
	for (int i = 0; i < 3; i++)
	{
		t[i] = starpu_task_create();
		t[i]->cl = &bundle_cl;
		t[i]->cl_arg = (void *) (intptr_t) i;
		CHECK(starpu_task_bundle_insert(the_bundle, t[i]) == 0);
	}
	struct starpu_task *extra = starpu_task_create();
	extra->cl = &bundle_cl;
	extra->destroy = 0;
	CHECK(starpu_task_bundle_insert(the_bundle, extra) == 0);
	CHECK(starpu_task_bundle_remove(the_bundle, extra) == 0);
	CHECK(extra->bundle == NULL);
	starpu_task_destroy(extra);
	for (int i = 0; i < 3; i++)
		CHECK(starpu_task_submit(t[i]) == 0);
	starpu_task_wait_for_all();
	for (int i = 0; i < 3; i++)
		CHECK(in_bundle_in_kernel[i]);
	starpu_task_bundle_close(the_bundle);

	/* a closed bundle takes no task */
	starpu_task_bundle_t b;
	starpu_task_bundle_create(&b);
	struct starpu_task *keep = starpu_task_create();
	keep->cl = &bundle_cl;
	keep->destroy = 0;
	keep->cl_arg = (void *) (intptr_t) 0;
	CHECK(starpu_task_bundle_insert(b, keep) == 0);
	starpu_task_bundle_close(b);
	struct starpu_task *late = starpu_task_create();
	late->cl = &bundle_cl;
	late->destroy = 0;
	CHECK(starpu_task_bundle_insert(b, late) != 0);
	starpu_task_destroy(late);
	CHECK(starpu_task_bundle_remove(b, keep) == 0);	/* the last: frees the bundle */
	starpu_task_destroy(keep);
}

/* ---- memory ---- */

static void memory(void)
{
	starpu_interface_data_copy(STARPU_MAIN_RAM, STARPU_MAIN_RAM, 64);
	starpu_malloc_on_node_set_default_flags(STARPU_MAIN_RAM, STARPU_MALLOC_COUNT);
	uintptr_t p = starpu_malloc_on_node(STARPU_MAIN_RAM, 4096);
	CHECK(p != 0);
	if (p)
	{
		memset((void *) p, 1, 4096);
		starpu_free_on_node(STARPU_MAIN_RAM, p, 4096);
	}
	starpu_malloc_on_node_set_default_flags(STARPU_MAIN_RAM, STARPU_MALLOC_PINNED | STARPU_MALLOC_COUNT);

	int a[16], b[16];
	for (int i = 0; i < 16; i++)
	{
		a[i] = i * i;
		b[i] = -1;
	}
	starpu_data_handle_t ha, hb;
	starpu_vector_data_register(&ha, STARPU_MAIN_RAM, (uintptr_t) a, 16, sizeof(int));
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) b, 16, sizeof(int));
	CHECK(starpu_data_cpy(hb, ha, 0, NULL, NULL) == 0);
	starpu_data_unregister(ha);
	starpu_data_unregister(hb);
	CHECK(memcmp(a, b, sizeof(a)) == 0);
}

/* ---- contexts ---- */

static volatile int in_parallel;
static int overlaps;

static void *parallel_code(void *arg)
{
	in_parallel = 1;
	compat_sleep_ms(50);
	in_parallel = 0;
	return (char *) arg + 1;
}

static void busy_cpu(void *b[], void *arg)
{
	(void) b;
	(void) arg;
	if (in_parallel)
		__sync_fetch_and_add(&overlaps, 1);
	compat_sleep_ms(2);
}

static struct starpu_codelet busy_cl = { .cpu_funcs = { busy_cpu }, .nbuffers = 0 };

static void contexts(void)
{
	int *cpuids = NULL, n = -1;
	starpu_sched_ctx_get_available_cpuids(0, &cpuids, &n);
	CHECK(n == (int) starpu_cpu_worker_get_count());
	int workers[STARPU_NMAXWORKERS];
	int nw = starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, workers, STARPU_NMAXWORKERS);
	for (int i = 0; i < n && cpuids; i++)
	{
		int found = 0;
		for (int w = 0; w < nw; w++)
			found |= starpu_worker_get_bindid(workers[w]) == cpuids[i];
		CHECK(found);
	}
	if (n > 0)
		starpu_sched_ctx_bind_current_thread_to_cpuid((unsigned) cpuids[0]);
	free(cpuids);

	for (int i = 0; i < 20; i++)
		CHECK(starpu_task_insert(&busy_cl, 0) == 0);
	char base[2];
	void *ret = starpu_sched_ctx_exec_parallel_code(parallel_code, base, 0);
	CHECK(ret == base + 1);
	starpu_task_wait_for_all();
	CHECK(overlaps == 0);
}

/* ---- tree, iterations, hooks, cublas, bound ---- */

static void tree(void)
{
	struct starpu_tree root;
	starpu_tree_insert(&root, 0, 0, 0, 2, NULL);
	starpu_tree_prepare_children(2, &root);
	starpu_tree_insert(&root.nodes[0], 1, 1, 1, 0, &root);
	starpu_tree_insert(&root.nodes[1], 2, 1, 1, 0, &root);
	CHECK(starpu_tree_get(&root, 2) == &root.nodes[1]);
	CHECK(starpu_tree_get(&root, 1) == &root.nodes[0]);
	CHECK(starpu_tree_get(&root, 7) == NULL);
	CHECK(root.nodes[1].father == &root && root.nodes[1].is_pu && root.nodes[1].level == 1);
	starpu_tree_free(&root);
}

static unsigned hook_calls;

static unsigned progression_hook(void *arg)
{
	__sync_fetch_and_add((unsigned *) arg, 1);
	return 0;
}

static void misc(void)
{
	starpu_iteration_push(1);
	starpu_iteration_push(10);
	CHECK(starpu_task_insert(&busy_cl, 0) == 0);
	starpu_iteration_pop();
	starpu_iteration_pop();

	int id = starpu_progression_hook_register(progression_hook, &hook_calls);
	CHECK(id >= 0);
	for (int i = 0; i < 10; i++)
		CHECK(starpu_task_insert(&busy_cl, 0) == 0);
	starpu_task_wait_for_all();
	for (int i = 0; i < 100 && !__sync_fetch_and_add(&hook_calls, 0); i++)
		compat_sleep_ms(10);
	if (id >= 0)
		starpu_progression_hook_deregister(id);
	CHECK(hook_calls > 0);

	starpu_cublas_init();
	starpu_cublas_shutdown();

	CHECK(starpu_get_hwloc_topology() != NULL);
	CHECK(STARPU_MIN(3, 4) == 3 && STARPU_MAX(3, 4) == 4);
	CHECK(used[0] != NULL && unused_pointer == NULL);
}

/* ---- bound ---- */

static void sleep_cpu(void *b[], void *arg)
{
	(void) b;
	(void) arg;
	compat_sleep_ms(4);
}

static struct starpu_perfmodel sleep_model = { .type = STARPU_HISTORY_BASED, .symbol = "compat_api_bound" };
static struct starpu_codelet sleep_cl = { .cpu_funcs = { sleep_cpu }, .nbuffers = 0, .model = &sleep_model };

static void bound(void)
{
	/* calibrate (StarPU's bound reads history-based models), until the
	 * model predicts (a loaded machine may take more samples) */
	struct starpu_task *probe = starpu_task_create();
	probe->cl = &sleep_cl;
	probe->destroy = 0;
	double length = NAN;
	for (int round = 0; round < 10 && isnan(length); round++)
	{
		for (int i = 0; i < 15; i++)
			CHECK(starpu_task_insert(&sleep_cl, 0) == 0);
		starpu_task_wait_for_all();
		length = starpu_task_expected_length(probe, starpu_worker_get_perf_archtype(0, 0), 0);
	}
	CHECK(!isnan(length) && length > 1000);

	starpu_bound_start(0, 0);
	for (int i = 0; i < 10; i++)
		CHECK(starpu_task_insert(&sleep_cl, 0) == 0);
	starpu_task_wait_for_all();
	starpu_bound_stop();
	double res = -1, ires = -1;
	starpu_bound_compute(&res, &ires, 0);
	/* The bound uses the model as it is now, with the 10 new samples
	 * (on a loaded machine they move the mean): compare with that. */
	length = starpu_task_expected_length(probe, starpu_worker_get_perf_archtype(0, 0), 0);
	starpu_task_destroy(probe);
	CHECK(!isnan(length) && length > 1000);
	/* 10 tasks of about `length` µs over the CPU workers, in ms */
	double want = 10 * length / 1000.0 / starpu_cpu_worker_get_count();
	if (!(fabs(res - want) < 0.2 * want))
		fprintf(stderr, "bound: %f ms, expected about %f ms\n", res, want);
	CHECK(fabs(res - want) < 0.2 * want);
}

int main(void)
{
	int ret = compat_start(2, "dmda");
	if (ret == -ENODEV)
		return 77;
	if (ret)
		return 1;
	current_data_node();
	bundles();
	memory();
	contexts();
	tree();
	misc();
	bound();
	starpu_shutdown();
	return compat_result("compat_api");
}
