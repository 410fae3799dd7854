/* test_hwloc_tree: starpu_sched_component_make_scheduler on a machine
 * described to hwloc (HWLOC_SYNTHETIC, set before the runtime loads the
 * topology): 2 packages of 2 L3 caches of 2 cores, one worker per core.
 * The tree must be: the machine recipe, one socket component per package,
 * one cache component per L3 (each splits its package's workers), no
 * component for the L2/L1/core levels (one worker each: the worker recipe
 * covers them), then each worker's queue and leaf. The machine-shaped
 * tree-eager-prefetching and tree-prio-prefetching run tasks on it.
 */
#include "vtest.h"

#include <starpu.h>
#include <starpu_sched_component.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NPKG 2
#define NL3 2	/* per package */
#define NCORE 2	/* per L3 */
#define NW (NPKG * NL3 * NCORE)

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

static struct starpu_sched_component *make_fifo(struct starpu_sched_tree *t, void *arg)
{
	return starpu_sched_component_fifo_create(t, arg);
}

static struct starpu_sched_component *make_eager(struct starpu_sched_tree *t, void *arg)
{
	return starpu_sched_component_eager_create(t, arg);
}

static struct starpu_sched_component *make_prio(struct starpu_sched_tree *t, void *arg)
{
	return starpu_sched_component_prio_create(t, arg);
}

static struct starpu_sched_component_composed_recipe *worker_recipe;

static struct starpu_sched_component_composed_recipe *recipe_for(enum starpu_worker_archtype arch)
{
	(void) arch;
	return worker_recipe;
}

/* Checks the parent chain of worker w's leaf: worker queue, L3 component,
 * package component, machine eager, machine fifo. */
static void check_path(struct starpu_sched_tree *t, int w)
{
	struct starpu_sched_component *c = starpu_sched_component_worker_get(t->sched_ctx_id, w);
	hwloc_obj_t pu = starpu_worker_get_hwloc_obj(w);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pu);
	CU_ASSERT_EQUAL_FATAL(c->nparents, 1);
	c = c->parents[0];
	CU_ASSERT(starpu_sched_component_is_prio(c));
	CU_ASSERT_EQUAL(starpu_bitmap_cardinal(c->workers), 1);
	CU_ASSERT_EQUAL_FATAL(c->nparents, 1);
	c = c->parents[0];
	CU_ASSERT(starpu_sched_component_is_eager(c));
	CU_ASSERT(c->obj && c->obj->type == HWLOC_OBJ_L3CACHE);
	CU_ASSERT_EQUAL(starpu_bitmap_cardinal(c->workers), NCORE);
	CU_ASSERT_EQUAL_FATAL(c->nchildren, NCORE);
	CU_ASSERT_EQUAL_FATAL(c->nparents, 1);
	c = c->parents[0];
	CU_ASSERT(starpu_sched_component_is_eager(c));
	CU_ASSERT(c->obj && c->obj->type == HWLOC_OBJ_PACKAGE);
	CU_ASSERT_EQUAL(starpu_bitmap_cardinal(c->workers), NL3 * NCORE);
	CU_ASSERT_EQUAL(c->nchildren, NL3);
	CU_ASSERT_EQUAL_FATAL(c->nparents, 1);
	c = c->parents[0];
	CU_ASSERT(starpu_sched_component_is_eager(c));
	CU_ASSERT(c->obj && c->obj->type == HWLOC_OBJ_MACHINE);
	CU_ASSERT_EQUAL(c->nchildren, NPKG);
	CU_ASSERT_EQUAL_FATAL(c->nparents, 1);
	c = c->parents[0];
	CU_ASSERT_PTR_EQUAL(c, t->root);
	CU_ASSERT(starpu_sched_component_is_fifo(c));
	CU_ASSERT_EQUAL(starpu_bitmap_cardinal(c->workers), NW);
}

static void test_shape(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_worker_get_count(), NW);
	struct starpu_sched_component_composed_recipe *machine = starpu_sched_component_composed_recipe_create_singleton(make_fifo, NULL);
	starpu_sched_component_composed_recipe_add(machine, make_eager, NULL);
	struct starpu_sched_component_composed_recipe *level = starpu_sched_component_composed_recipe_create_singleton(make_eager, NULL);
	struct starpu_sched_component_prio_data pd = { .ntasks_threshold = 2 };
	worker_recipe = starpu_sched_component_composed_recipe_create_singleton(make_prio, &pd);
	struct starpu_sched_component_specs specs = {
		.hwloc_machine_composed_sched_component = machine,
		.hwloc_component_composed_sched_component = level,
		.hwloc_socket_composed_sched_component = level,
		.hwloc_cache_composed_sched_component = level,
		.worker_composed_sched_component = recipe_for,
	};
	struct starpu_sched_tree *t = starpu_sched_component_make_scheduler(5, specs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (int w = 0; w < NW; w++)
		check_path(t, w);
	/* Without cache recipe, the packages hold the workers' queues. */
	struct starpu_sched_tree *t2;
	specs.hwloc_cache_composed_sched_component = NULL;
	starpu_sched_tree_destroy(t);
	t2 = starpu_sched_component_make_scheduler(5, specs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t2);
	struct starpu_sched_component *top = t2->root->children[0];
	CU_ASSERT_EQUAL_FATAL(top->nchildren, NPKG);
	for (int p = 0; p < NPKG; p++)
	{
		CU_ASSERT_EQUAL(top->children[p]->nchildren, NL3 * NCORE);
		CU_ASSERT(top->children[p]->obj && top->children[p]->obj->type == HWLOC_OBJ_PACKAGE);
	}
	starpu_sched_tree_destroy(t2);
	starpu_sched_component_composed_recipe_destroy(machine);
	starpu_sched_component_composed_recipe_destroy(level);
	starpu_sched_component_composed_recipe_destroy(worker_recipe);
	starpu_shutdown();
}

static atomic_int ran[NW];

static void count(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	atomic_fetch_add(&ran[starpu_worker_get_id()], 1);
}

static void run_policy(const char *policy)
{
	CU_ASSERT_EQUAL_FATAL(start(policy), 0);
	/* The machine eager splits between the packages. */
	struct starpu_sched_tree *t = starpu_sched_tree_get(0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->root->nchildren, 1);
	CU_ASSERT_EQUAL(t->root->children[0]->nchildren, NPKG);
	struct starpu_codelet cl = { .cpu_funcs = { count }, .name = "count" };
	for (int w = 0; w < NW; w++)
		atomic_store(&ran[w], 0);
	for (int i = 0; i < 400; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&cl, STARPU_PRIORITY, i % 7, 0), 0);
	starpu_task_wait_for_all();
	int total = 0;
	for (int w = 0; w < NW; w++)
		total += atomic_load(&ran[w]);
	CU_ASSERT_EQUAL(total, 400);
	starpu_shutdown();
}

static void test_eager_prefetching(void)
{
	run_policy("tree-eager-prefetching");
}

static void test_prio_prefetching(void)
{
	run_policy("tree-prio-prefetching");
}

static const struct vtest_case cases[] = {
	{ "shape", test_shape },
	{ "eager_prefetching", test_eager_prefetching },
	{ "prio_prefetching", test_prio_prefetching },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "hwloc_tree", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	/* Before the first starpu_init: the topology is loaded once. */
	setenv("HWLOC_SYNTHETIC", "pack:2 l3:2 core:2 pu:1", 1);
	setenv("STARPU_WORKERS_NOBIND", "1", 1);	/* these units do not exist */
	unsetenv("STARPU_SCHED");
	unsetenv("STARPU_NCPU");
	setenv("STARPU_SILENT", "1", 1);
	return vtest_run(argc, argv, suites);
}
