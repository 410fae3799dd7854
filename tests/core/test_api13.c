/* test_api13.c — StarPU 1.3 API pieces applications use (issue 23, group
 * 4), each with its error paths: task bundles, starpu_tree, iteration
 * push/pop, starpu_task_get_current_data_node, starpu_interface_data_copy,
 * starpu_malloc_on_node_set_default_flags, component pump_to, the parallel
 * code helpers of contexts, starpu_data_cpy, progression and idle hooks,
 * and starpu_bound (with GLPK).
 */
#include <starpu.h>
#include <starpu_sched_component.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vtest.h"

static int start_runtime(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.sched_policy_name = "dmda";
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf) == 0 ? 0 : -1;
}

static int stop_runtime(void)
{
	starpu_task_wait_for_all();
	starpu_shutdown();
	return 0;
}

#define CHECK_MSG(msg, fn, why) do { \
	const char *m_ = (msg); \
	CU_ASSERT(strstr(m_, fn) != NULL); \
	CU_ASSERT(strstr(m_, why) != NULL); \
} while (0)

static double fixed_cost(struct starpu_task *task, unsigned nimpl)
{
	(void) nimpl;
	return (double) (intptr_t) task->cl_arg;	/* µs */
}

static void nothing_cpu(void *b[], void *arg)
{
	(void) b;
	(void) arg;
}

static struct starpu_perfmodel fixed_model = { .type = STARPU_COMMON, .cost_function = fixed_cost, .symbol = "api13_fixed" };
static struct starpu_codelet fixed_cl = { .cpu_funcs = { nothing_cpu }, .nbuffers = 0, .model = &fixed_model, .name = "fixed" };
/* No prediction, ever: a history model would become calibrated after ten
 * runs sharing the test home. */
static double no_cost(struct starpu_task *task, unsigned nimpl)
{
	(void) task;
	(void) nimpl;
	return NAN;
}
static struct starpu_perfmodel empty_model = { .type = STARPU_COMMON, .cost_function = no_cost, .symbol = "api13_no_prediction" };
static struct starpu_codelet other_cl = { .cpu_funcs = { nothing_cpu }, .nbuffers = 0, .model = &empty_model, .name = "uncalibrated" };

static struct starpu_task *fixed_task(int us)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = &fixed_cl;
	t->cl_arg = (void *) (intptr_t) us;
	t->destroy = 0;
	t->detach = 0;
	return t;
}

/* ---- bundles ---- */

static void test_bundles(void)
{
	starpu_task_bundle_t b;
	starpu_task_bundle_create(&b);
	struct starpu_task *t[3] = { fixed_task(100), fixed_task(200), fixed_task(300) };
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(starpu_task_bundle_insert(b, t[i]), 0);
	CU_ASSERT_EQUAL(starpu_task_bundle_insert(b, t[0]), 0);	/* already there: once */
	struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(0, 0);
	CU_ASSERT_DOUBLE_EQUAL(starpu_task_bundle_expected_length(b, arch, 0), 600.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(starpu_task_bundle_expected_data_transfer_time(b, STARPU_MAIN_RAM), 0.0, 1e-9);
	CU_ASSERT_EQUAL(starpu_task_bundle_remove(b, t[1]), 0);
	CU_ASSERT_PTR_NULL(t[1]->bundle);
	CU_ASSERT_EQUAL(starpu_task_bundle_remove(b, t[1]), -ENOENT);
	CU_ASSERT_DOUBLE_EQUAL(starpu_task_bundle_expected_length(b, arch, 0), 400.0, 1e-9);

	/* in another bundle, submitted, closed */
	starpu_task_bundle_t other;
	starpu_task_bundle_create(&other);
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_task_bundle_insert(other, t[0]), -EINVAL);
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_task_bundle_insert", "another bundle");
	CU_ASSERT_EQUAL(starpu_task_submit(t[1]), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(t[1]), 0);
	CU_ASSERT_EQUAL(starpu_task_bundle_insert(other, t[1]), 0);	/* done: may be bundled again */
	starpu_task_bundle_close(other);
	struct starpu_task *late = fixed_task(1);
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_task_bundle_insert(other, late), -EPERM);
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_task_bundle_insert", "closed");
	CU_ASSERT_PTR_NULL(late->bundle);
	starpu_task_destroy(late);

	/* the dm* policy runs them; they stay in the bundle (StarPU 1.3) */
	CU_ASSERT_EQUAL(starpu_task_submit(t[0]), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(t[2]), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(t[0]), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(t[2]), 0);
	CU_ASSERT_PTR_EQUAL(t[0]->bundle, b);
	starpu_task_bundle_close(b);
	/* freed tasks leave their bundles, which go once empty (ASan checks) */
	for (int i = 0; i < 3; i++)
		starpu_task_destroy(t[i]);
}

/* ---- tree ---- */

static void test_tree(void)
{
	/* root(0) -> a(10) [pu 1, pu 2], b(20) [pu 3] */
	struct starpu_tree root;
	starpu_tree_insert(&root, 0, 0, 0, 2, NULL);
	starpu_tree_prepare_children(2, &root);
	starpu_tree_insert(&root.nodes[0], 10, 1, 0, 2, &root);
	starpu_tree_insert(&root.nodes[1], 20, 1, 0, 1, &root);
	starpu_tree_prepare_children(2, &root.nodes[0]);
	starpu_tree_prepare_children(1, &root.nodes[1]);
	starpu_tree_insert(&root.nodes[0].nodes[0], 1, 2, 1, 0, &root.nodes[0]);
	starpu_tree_insert(&root.nodes[0].nodes[1], 2, 2, 1, 0, &root.nodes[0]);
	starpu_tree_insert(&root.nodes[1].nodes[0], 3, 2, 1, 0, &root.nodes[1]);
	CU_ASSERT_PTR_EQUAL(starpu_tree_get(&root, 3), &root.nodes[1].nodes[0]);
	CU_ASSERT_PTR_NULL(starpu_tree_get(&root, 4));

	char visited[32], present[32];
	memset(visited, 1, sizeof(visited));
	memset(present, 1, sizeof(present));
	starpu_tree_reset_visited(&root, visited);
	CU_ASSERT(!visited[0] && !visited[10] && !visited[3]);
	present[2] = 0;
	/* from pu 1: its sibling 2 is absent, so 3 in the next subtree */
	struct starpu_tree *n = starpu_tree_get_neighbour(&root, &root.nodes[0].nodes[0], visited, present);
	CU_ASSERT_PTR_EQUAL(n, &root.nodes[1].nodes[0]);
	CU_ASSERT(visited[3]);
	visited[1] = 1;
	CU_ASSERT_PTR_NULL(starpu_tree_get_neighbour(&root, &root.nodes[0].nodes[0], visited, present));
	starpu_tree_free(&root);
	CU_ASSERT_PTR_NULL(root.nodes);
}

/* ---- iterations, data nodes ---- */

static void test_iterations(void)
{
	starpu_iteration_push(3);
	starpu_iteration_push(4);
	starpu_iteration_pop();
	starpu_iteration_pop();
	vtest_capture_stderr_begin();
	starpu_iteration_pop();
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_iteration_pop", "no starpu_iteration_push");
}

static void node_cpu(void *b[], void *arg)
{
	(void) b;
	int *out = arg;
	out[0] = starpu_task_get_current_data_node(0);
	out[1] = starpu_task_get_current_data_node(1);
	out[2] = (int) starpu_worker_get_local_memory_node();
}

static struct starpu_codelet node_cl = { .cpu_funcs = { node_cpu }, .nbuffers = 1, .modes = { STARPU_R } };

static void test_current_data_node(void)
{
	int x = 1, out[3] = { -5, -5, -5 };
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	CU_ASSERT_EQUAL(starpu_task_insert(&node_cl, STARPU_R, h, STARPU_CL_ARGS_NFREE, out, (size_t) 0, 0), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(out[0], out[2]);
	CU_ASSERT_EQUAL(out[1], -1);		/* beyond the task's buffers */
	CU_ASSERT_EQUAL(starpu_task_get_current_data_node(0), -1);
	starpu_data_unregister(h);
}

/* ---- memory ---- */

static void test_memory(void)
{
	char dir[] = "/tmp/vela_api13_XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	int disk = starpu_disk_register(&starpu_disk_unistd_ops, dir, 16 * 1024 * 1024);
	CU_ASSERT_FATAL(disk > 0);
	starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
	int bus = starpu_bus_get_id(STARPU_MAIN_RAM, disk);
	CU_ASSERT_FATAL(bus >= 0);
	struct starpu_profiling_bus_info before, after;
	CU_ASSERT_EQUAL(starpu_bus_get_profiling_info(bus, &before), 0);
	starpu_interface_data_copy(STARPU_MAIN_RAM, (unsigned) disk, 12345);
	CU_ASSERT_EQUAL(starpu_bus_get_profiling_info(bus, &after), 0);
	CU_ASSERT_EQUAL(after.transferred_bytes - before.transferred_bytes, 12345);
	CU_ASSERT_EQUAL(after.transfer_count - before.transfer_count, 1);
	starpu_profiling_status_set(STARPU_PROFILING_DISABLE);
	vtest_capture_stderr_begin();
	starpu_interface_data_copy(STARPU_MAIN_RAM, 99, 1);
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_interface_data_copy", "99");

	starpu_malloc_on_node_set_default_flags(STARPU_MAIN_RAM, STARPU_MALLOC_COUNT);
	uintptr_t p = starpu_malloc_on_node(STARPU_MAIN_RAM, 1 << 20);
	CU_ASSERT_FATAL(p != 0);
	memset((void *) p, 7, 1 << 20);
	starpu_free_on_node(STARPU_MAIN_RAM, p, 1 << 20);
	starpu_malloc_on_node_set_default_flags(STARPU_MAIN_RAM, STARPU_MALLOC_PINNED | STARPU_MALLOC_COUNT);
	vtest_capture_stderr_begin();
	starpu_malloc_on_node_set_default_flags(STARPU_MAXNODES, 0);
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_malloc_on_node_set_default_flags", "does not exist");
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void) system(cmd);
}

static void set_flag(void *arg)
{
	*(int *) arg = 1;
}

static void test_data_cpy(void)
{
	double a[8], b[8], c[4];
	for (int i = 0; i < 8; i++)
		a[i] = i + 0.5, b[i] = 0;
	starpu_data_handle_t ha, hb, hc;
	starpu_vector_data_register(&ha, STARPU_MAIN_RAM, (uintptr_t) a, 8, sizeof(double));
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) b, 8, sizeof(double));
	starpu_vector_data_register(&hc, STARPU_MAIN_RAM, (uintptr_t) c, 4, sizeof(double));
	int called = 0;
	CU_ASSERT_EQUAL(starpu_data_cpy(hb, ha, 1, set_flag, &called), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(called, 1);
	CU_ASSERT_EQUAL(starpu_data_acquire(hb, STARPU_R), 0);
	CU_ASSERT(memcmp(a, b, sizeof(a)) == 0);
	starpu_data_release(hb);
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_cpy(hc, ha, 0, NULL, NULL), -EINVAL);
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_data_cpy", "differ");
	starpu_data_unregister(ha);
	starpu_data_unregister(hb);
	starpu_data_unregister(hc);
}

/* ---- components ---- */

static struct starpu_task *src_tasks[3];
static int src_next, sink_taken;

static struct starpu_task *src_pull(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	(void) c;
	(void) to;
	return src_next < 3 ? src_tasks[src_next++] : NULL;
}

static int sink_push(struct starpu_sched_component *c, struct starpu_task *t)
{
	(void) c;
	(void) t;
	if (sink_taken == 2)
		return -1;
	sink_taken++;
	return 0;
}

static void test_pump_to(void)
{
	struct starpu_sched_component *src = starpu_sched_component_create(NULL, "src");
	struct starpu_sched_component *sink = starpu_sched_component_create(NULL, "sink");
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sink);
	src->pull_task = src_pull;
	sink->push_task = sink_push;
	for (int i = 0; i < 3; i++)
		src_tasks[i] = fixed_task(1);
	int success = 0;
	CU_ASSERT_PTR_EQUAL(starpu_sched_component_pump_to(src, sink, &success), src_tasks[2]);
	CU_ASSERT_EQUAL(success, 1);
	CU_ASSERT_EQUAL(sink_taken, 2);
	success = 0;
	CU_ASSERT_PTR_NULL(starpu_sched_component_pump_to(src, sink, &success));	/* nothing left */
	CU_ASSERT_EQUAL(success, 0);
	vtest_capture_stderr_begin();
	CU_ASSERT_PTR_NULL(starpu_sched_component_pump_downstream(src, &success));
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_sched_component_pump_downstream", "not 1");
	starpu_sched_component_connect(src, sink);
	src_next = 2;
	sink_taken = 0;
	CU_ASSERT_PTR_NULL(starpu_sched_component_pump_downstream(src, &success));
	CU_ASSERT_EQUAL(sink_taken, 1);
	for (int i = 0; i < 3; i++)
		starpu_task_destroy(src_tasks[i]);
	starpu_sched_component_destroy(src);
	starpu_sched_component_destroy(sink);
}

/* ---- contexts ---- */

static int holding, overlaps, ran;

static void *parallel_code(void *arg)
{
	__atomic_store_n(&holding, 1, __ATOMIC_SEQ_CST);
	usleep(30000);
	__atomic_store_n(&holding, 0, __ATOMIC_SEQ_CST);
	return (char *) arg + 2;
}

static void probe_cpu(void *b[], void *arg)
{
	(void) b;
	(void) arg;
	if (__atomic_load_n(&holding, __ATOMIC_SEQ_CST))
		__atomic_fetch_add(&overlaps, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&ran, 1, __ATOMIC_SEQ_CST);
	usleep(1000);
}

static struct starpu_codelet probe_cl = { .cpu_funcs = { probe_cpu }, .nbuffers = 0 };

static void test_parallel_code(void)
{
	int *cpuids = NULL, n = 0;
	starpu_sched_ctx_get_available_cpuids(0, &cpuids, &n);
	CU_ASSERT_EQUAL(n, 2);
	for (int i = 0; i < n; i++)
		CU_ASSERT(cpuids[i] == starpu_worker_get_bindid(0) || cpuids[i] == starpu_worker_get_bindid(1));
	free(cpuids);
	vtest_capture_stderr_begin();
	starpu_sched_ctx_bind_current_thread_to_cpuid(100000);
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_sched_ctx_bind_current_thread_to_cpuid", "100000");

	for (int i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&probe_cl, 0), 0);
	char base[4];
	CU_ASSERT_PTR_EQUAL(starpu_sched_ctx_exec_parallel_code(parallel_code, base, 0), base + 2);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(ran, 40);
	CU_ASSERT_EQUAL(overlaps, 0);
	vtest_capture_stderr_begin();
	CU_ASSERT_PTR_NULL(starpu_sched_ctx_exec_parallel_code(NULL, NULL, 0));
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_sched_ctx_exec_parallel_code", "NULL");
}

/* ---- hooks ---- */

static unsigned progress_calls, idle_calls;

static unsigned count_hook(void *arg)
{
	__atomic_fetch_add((unsigned *) arg, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void test_hooks(void)
{
	int p = starpu_progression_hook_register(count_hook, &progress_calls);
	int i = starpu_idle_hook_register(count_hook, &idle_calls);
	CU_ASSERT(p >= 0 && i >= 0);
	starpu_wake_all_blocked_workers();
	for (int k = 0; k < 200 && !(__atomic_load_n(&progress_calls, __ATOMIC_SEQ_CST) &&
				     __atomic_load_n(&idle_calls, __ATOMIC_SEQ_CST)); k++)
	{
		CU_ASSERT_EQUAL(starpu_task_insert(&probe_cl, 0), 0);
		usleep(5000);
	}
	CU_ASSERT(progress_calls > 0);
	CU_ASSERT(idle_calls > 0);
	starpu_progression_hook_deregister(p);
	starpu_idle_hook_deregister(i);
	starpu_task_wait_for_all();
	unsigned after = __atomic_load_n(&progress_calls, __ATOMIC_SEQ_CST);
	usleep(20000);
	starpu_wake_all_blocked_workers();
	usleep(20000);
	CU_ASSERT_EQUAL(__atomic_load_n(&progress_calls, __ATOMIC_SEQ_CST), after);
	vtest_capture_stderr_begin();
	starpu_idle_hook_deregister(i);
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_idle_hook_deregister", "not registered");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_progression_hook_register(NULL, NULL), -EINVAL);
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_progression_hook_register", "NULL");
}

/* ---- bound ---- */

static char *print_to_string(void (*print)(FILE *))
{
	static char buf[8192];
	FILE *f = tmpfile();
	if (!f)
		return NULL;
	print(f);
	rewind(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_bound(void)
{
#ifndef STARPU_HAVE_GLPK_H
	CU_PASS("built without GLPK");
	return;
#else
	starpu_bound_start(0, 0);
	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&fixed_cl, STARPU_CL_ARGS_NFREE, (void *) (intptr_t) 1000, (size_t) 0, 0), 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&fixed_cl, STARPU_CL_ARGS_NFREE, (void *) (intptr_t) 3000, (size_t) 0, 0), 0);
	starpu_task_wait_for_all();
	starpu_bound_stop();
	/* not recorded after stop */
	CU_ASSERT_EQUAL(starpu_task_insert(&fixed_cl, STARPU_CL_ARGS_NFREE, (void *) (intptr_t) 50000, (size_t) 0, 0), 0);
	starpu_task_wait_for_all();
	double res = -1, ires = -1;
	starpu_bound_compute(&res, &ires, 1);
	/* 10 x 1 ms + 3 x 3 ms on 2 identical workers: 9.5 ms; whole tasks
	 * do not change the area bound on one class of workers */
	CU_ASSERT_DOUBLE_EQUAL(res, 9.5, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(ires, 9.5, 1e-6);
	char *lp = print_to_string(starpu_bound_print_lp);
	CU_ASSERT(lp && strstr(lp, "Minimize") && strstr(lp, "time_class0"));
	char *mps = print_to_string(starpu_bound_print_mps);
	CU_ASSERT(mps && strstr(mps, "ROWS") && strstr(mps, "COLUMNS"));
	char *dot = print_to_string(starpu_bound_print_dot);
	CU_ASSERT(dot && strstr(dot, "digraph") && strstr(dot, "x10") && strstr(dot, "x3"));
	FILE *f = tmpfile();
	if (f)
	{
		starpu_bound_print(f, 1);
		rewind(f);
		char line[256];
		CU_ASSERT(fgets(line, sizeof(line), f) && strstr(line, "9.5"));
		fclose(f);
	}

	/* a task with no prediction: no bound, said so */
	starpu_bound_start(0, 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&other_cl, 0), 0);
	starpu_task_wait_for_all();
	starpu_bound_stop();
	vtest_capture_stderr_begin();
	starpu_bound_compute(&res, NULL, 0);
	CHECK_MSG(vtest_capture_stderr_end(), "starpu_bound_compute", "no performance prediction");
	CU_ASSERT_DOUBLE_EQUAL(res, -1.0, 1e-9);
#endif
}

static const struct vtest_case cases[] = {
	{ "bundles", test_bundles },
	{ "tree", test_tree },
	{ "iterations", test_iterations },
	{ "current_data_node", test_current_data_node },
	{ "memory", test_memory },
	{ "data_cpy", test_data_cpy },
	{ "pump_to", test_pump_to },
	{ "parallel_code", test_parallel_code },
	{ "hooks", test_hooks },
	{ "bound", test_bound },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "api13", start_runtime, stop_runtime, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
