/* test_components_machine: component trees shaped like the machine
 * (starpu_sched_component_make_scheduler) checked against what hwloc says
 * of this machine, composed components, and such a tree run as a policy.
 * The other components, one at a time, are test_components.c's.
 */
#define _GNU_SOURCE
#include "components_common.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- trees shaped like the machine (make_scheduler) ---- */

static struct starpu_sched_component_composed_recipe *worker_recipe;

static struct starpu_sched_component_composed_recipe *recipe_for(enum starpu_worker_archtype arch)
{
	return arch == STARPU_CPU_WORKER ? worker_recipe : NULL;
}

static struct starpu_sched_component *make_fifo(struct starpu_sched_tree *t, void *arg)
{
	return starpu_sched_component_fifo_create(t, arg);
}

static struct starpu_sched_component *make_eager(struct starpu_sched_tree *t, void *arg)
{
	return starpu_sched_component_eager_create(t, arg);
}

static struct starpu_sched_component *make_null(struct starpu_sched_tree *t, void *arg)
{
	(void) t;
	(void) arg;
	return NULL;
}

static int is_cache(hwloc_obj_t o)
{
	return o->type >= HWLOC_OBJ_L1CACHE && o->type <= HWLOC_OBJ_L3ICACHE;
}

/* Whether o is a (or the) hwloc ancestor of pu; a NUMA node counts as its
 * parent (the object it is attached to). */
static int obj_covers(hwloc_obj_t o, hwloc_obj_t pu)
{
	if (o->type == HWLOC_OBJ_NUMANODE)
		o = o->parent;
	for (hwloc_obj_t x = pu; x; x = x->parent)
		if (x == o)
			return 1;
	return 0;
}

/* The workers (ids, as a mask: the test runs with at most 8) below hwloc
 * object o. */
static unsigned mask_under(hwloc_obj_t o)
{
	unsigned m = 0;
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
		if (obj_covers(o, starpu_worker_get_hwloc_obj((int) w)))
			m |= 1u << w;
	return m;
}

/* The expected level components, counted per kind (0: NUMA, 1: package,
 * 2: cache) by walking each worker's hwloc ancestors from the top: an
 * object of a level with a recipe gets one when it covers two workers or
 * more and not the same workers as the last object above that got one.
 * Each object is counted once. */
static void expected_levels(int count[3])
{
	hwloc_obj_t seen[256];
	unsigned nseen = 0;
	count[0] = count[1] = count[2] = 0;
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
	{
		hwloc_obj_t path[64];
		unsigned n = 0;
		for (hwloc_obj_t x = starpu_worker_get_hwloc_obj((int) w); x && n < 64; x = x->parent)
			path[n++] = x;
		unsigned above = mask_under(path[n - 1]);	/* the machine */
		for (unsigned i = n - 1; i-- > 0;)
		{
			hwloc_obj_t o = path[i];
			unsigned m = mask_under(o);
			int kinds[3] = { o->memory_arity > 0, o->type == HWLOC_OBJ_PACKAGE, is_cache(o) };
			if (__builtin_popcount(m) < 2 || m == above || !(kinds[0] || kinds[1] || kinds[2]))
				continue;
			above = m;
			int fresh = 1;
			for (unsigned k = 0; k < nseen; k++)
				fresh &= seen[k] != o;
			if (!fresh || nseen == 256)
				continue;
			seen[nseen++] = o;
			for (int k = 0; k < 3; k++)
				count[k] += kinds[k];
		}
	}
}

static void count_tree(struct starpu_sched_component *c, struct starpu_sched_component **seen, unsigned *nseen,
		       int count[3], int *nleaves)
{
	for (unsigned i = 0; i < *nseen; i++)
		if (seen[i] == c)
			return;
	seen[(*nseen)++] = c;
	if (starpu_sched_component_is_worker(c))
	{
		(*nleaves)++;
		return;
	}
	if (c->obj && c->obj->type == HWLOC_OBJ_NUMANODE)
		count[0]++;
	else if (c->obj && c->obj->type == HWLOC_OBJ_PACKAGE)
		count[1]++;
	else if (c->obj && is_cache(c->obj))
		count[2]++;
	for (unsigned k = 0; k < c->nchildren; k++)
		count_tree(c->children[k], seen, nseen, count, nleaves);
}

static struct starpu_sched_component_specs full_specs(struct starpu_sched_component_composed_recipe *machine,
							struct starpu_sched_component_composed_recipe *level)
{
	struct starpu_sched_component_specs s = {
		.hwloc_machine_composed_sched_component = machine,
		.hwloc_component_composed_sched_component = level,
		.hwloc_socket_composed_sched_component = level,
		.hwloc_cache_composed_sched_component = level,
		.worker_composed_sched_component = recipe_for,
	};
	return s;
}

static void test_make_scheduler_shape(void)
{
	/* Two workers per processing unit (or more): shared cores, caches
	 * and packages hold several workers, so levels appear even here. */
	CU_ASSERT_FATAL(start("eager", NULL, 8) == 0);
	unsigned nw = starpu_worker_get_count();
	CU_ASSERT_FATAL(nw == 8);
	struct starpu_sched_component_composed_recipe *machine = starpu_sched_component_composed_recipe_create();
	starpu_sched_component_composed_recipe_add(machine, make_fifo, NULL);
	starpu_sched_component_composed_recipe_add(machine, make_eager, NULL);
	struct starpu_sched_component_composed_recipe *level = starpu_sched_component_composed_recipe_create_singleton(make_eager, NULL);
	struct starpu_sched_component_fifo_data fd = { .ntasks_threshold = 2 };
	worker_recipe = starpu_sched_component_composed_recipe_create_singleton(make_fifo, &fd);

	struct starpu_sched_tree *t = starpu_sched_component_make_scheduler(TCTX, full_specs(machine, level));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	/* The machine recipe at the root, in order. */
	struct starpu_sched_component *root = t->root;
	CU_ASSERT(starpu_sched_component_is_fifo(root));
	CU_ASSERT(root->obj && root->obj->type == HWLOC_OBJ_MACHINE);
	CU_ASSERT_EQUAL_FATAL(root->nchildren, 1);
	CU_ASSERT(starpu_sched_component_is_eager(root->children[0]));
	CU_ASSERT_EQUAL(starpu_bitmap_cardinal(root->workers), (int) nw);

	/* The levels hwloc says there should be, and one leaf per worker. */
	int expect[3], got[3] = { 0, 0, 0 }, nleaves = 0;
	expected_levels(expect);
	struct starpu_sched_component *seen[512];
	unsigned nseen = 0;
	count_tree(root, seen, &nseen, got, &nleaves);
	for (int k = 0; k < 3; k++)
		CU_ASSERT_EQUAL(got[k], expect[k]);
	CU_ASSERT_EQUAL(nleaves, (int) nw);
	/* With 8 workers on this machine's processing units, at least one
	 * shared object covers some but not all of them, unless the machine
	 * has a single processing unit. */
	if (starpu_worker_get_hwloc_obj(0) != starpu_worker_get_hwloc_obj(1))
		CU_ASSERT(expect[0] + expect[1] + expect[2] >= 1);

	/* Each leaf: under a queue of 2 (the worker recipe), below
	 * components whose hwloc objects contain the worker's unit. */
	for (unsigned w = 0; w < nw; w++)
	{
		struct starpu_sched_component *leaf = starpu_sched_component_worker_get(TCTX, (int) w);
		CU_ASSERT_EQUAL_FATAL(leaf->nparents, 1);
		struct starpu_sched_component *q = leaf->parents[0];
		CU_ASSERT(starpu_sched_component_is_fifo(q));
		CU_ASSERT_EQUAL(starpu_bitmap_cardinal(q->workers), 1);
		for (struct starpu_sched_component *c = q; c; c = c->nparents ? c->parents[0] : NULL)
		{
			CU_ASSERT(starpu_bitmap_get(c->workers, (int) w));
			if (c->obj)
				CU_ASSERT(obj_covers(c->obj, starpu_worker_get_hwloc_obj((int) w)));
			if (!c->nparents)
				CU_ASSERT_PTR_EQUAL(c, root);
		}
	}

	/* Tasks pushed at the root reach the leaves: pull every one. */
	tasks_init();
	for (unsigned i = 0; i < NT; i++)
		CU_ASSERT_EQUAL(root->push_task(root, &tasks[i]), 0);
	int pulled = 0;
	for (int round = 0; round < NT && pulled < NT; round++)
		for (unsigned w = 0; w < nw; w++)
		{
			struct starpu_task *task = pull(starpu_sched_component_worker_get(TCTX, (int) w));
			if (task)
				pulled++;
		}
	CU_ASSERT_EQUAL(pulled, NT);
	starpu_sched_tree_destroy(t);

	/* Bad specs: one line each, no tree. */
	struct starpu_sched_component_specs bad = full_specs(NULL, level);
	vtest_capture_stderr_begin();
	CU_ASSERT_PTR_NULL(starpu_sched_component_make_scheduler(TCTX, bad));
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT(strstr(err, "starpu_sched_component_make_scheduler: specs.hwloc_machine_composed_sched_component is NULL") != NULL);
	struct starpu_sched_component_composed_recipe *broken = starpu_sched_component_composed_recipe_create_singleton(make_null, NULL);
	vtest_capture_stderr_begin();
	CU_ASSERT_PTR_NULL(starpu_sched_component_make_scheduler(TCTX, full_specs(broken, NULL)));
	err = vtest_capture_stderr_end();
	CU_ASSERT(strstr(err, "returned NULL") != NULL);
	starpu_sched_component_composed_recipe_destroy(broken);

	starpu_sched_component_composed_recipe_destroy(machine);
	starpu_sched_component_composed_recipe_destroy(level);
	starpu_sched_component_composed_recipe_destroy(worker_recipe);
	starpu_shutdown();
}

/* A composed component of two steps stands for its chain in a tree. */
static void test_composed_component(void)
{
	CU_ASSERT_FATAL(start("eager", NULL, 2) == 0);
	struct starpu_sched_tree *t = tree_new();
	struct starpu_sched_component_composed_recipe *r = starpu_sched_component_composed_recipe_create();
	starpu_sched_component_composed_recipe_add(r, make_fifo, NULL);
	starpu_sched_component_composed_recipe_add(r, make_eager, NULL);
	struct starpu_sched_component *c = starpu_sched_component_composed_component_create(t, r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT(!starpu_sched_component_is_fifo(c) && !starpu_sched_component_is_eager(c));
	struct starpu_sched_component *l0 = starpu_sched_component_worker_get(TCTX, 0);
	struct starpu_sched_component *l1 = starpu_sched_component_worker_get(TCTX, 1);
	starpu_sched_component_connect(c, l0);
	starpu_sched_component_connect(c, l1);
	t->root = c;
	vtest_capture_stderr_begin();
	starpu_sched_tree_update_workers(t);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_STRING_EQUAL(err, "");	/* a valid tree */
	CU_ASSERT_EQUAL(starpu_bitmap_cardinal(c->workers), 2);
	/* A one-step recipe is the component itself. */
	struct starpu_sched_component_composed_recipe *one = starpu_sched_component_composed_recipe_create_singleton(make_fifo, NULL);
	struct starpu_sched_component *f = starpu_sched_component_composed_component_create(t, one);
	CU_ASSERT(starpu_sched_component_is_fifo(f));
	starpu_sched_component_destroy(f);
	starpu_sched_component_composed_recipe_destroy(one);
	/* The fifo in the chain keeps what the leaves do not take. */
	tasks_init();
	for (unsigned i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(c->push_task(c, &tasks[i]), 0);
	int got = 0;
	for (int k = 0; k < 4; k++)
	{
		got += pull(l0) != NULL;
		got += pull(l1) != NULL;
	}
	CU_ASSERT_EQUAL(got, 4);
	CU_ASSERT_PTR_NULL(pull(l0));
	vtest_capture_stderr_begin();
	struct starpu_sched_component_composed_recipe *empty = starpu_sched_component_composed_recipe_create();
	CU_ASSERT_PTR_NULL(starpu_sched_component_composed_component_create(t, empty));
	err = vtest_capture_stderr_end();
	CU_ASSERT(strstr(err, "starpu_sched_component_composed_component_create: the recipe is NULL or empty") != NULL);
	starpu_sched_component_composed_recipe_destroy(empty);
	starpu_sched_component_composed_recipe_destroy(r);
	starpu_sched_tree_destroy(t);
	starpu_shutdown();
}

/* A policy built from specs runs tasks. */
static void hier_init(unsigned ctx)
{
	struct starpu_sched_component_composed_recipe *machine = starpu_sched_component_composed_recipe_create();
	starpu_sched_component_composed_recipe_add(machine, make_fifo, NULL);
	starpu_sched_component_composed_recipe_add(machine, make_eager, NULL);
	struct starpu_sched_component_composed_recipe *level = starpu_sched_component_composed_recipe_create_singleton(make_eager, NULL);
	struct starpu_sched_component_fifo_data fd = { .ntasks_threshold = 2 };
	worker_recipe = starpu_sched_component_composed_recipe_create_singleton(make_fifo, &fd);
	struct starpu_sched_tree *t = starpu_sched_component_make_scheduler(ctx, full_specs(machine, level));
	starpu_sched_component_composed_recipe_destroy(machine);
	starpu_sched_component_composed_recipe_destroy(level);
	starpu_sched_component_composed_recipe_destroy(worker_recipe);
	worker_recipe = NULL;
	starpu_sched_ctx_set_policy_data(ctx, t);
}

static struct starpu_sched_policy hier_policy = TREE_TEST_POLICY(hier_init, "vtest-hier",
								 "a tree from make_scheduler");

static void test_make_scheduler_runs(void)
{
	CU_ASSERT_FATAL(start(NULL, &hier_policy, 4) == 0);
	run_counted(200);
	starpu_shutdown();
}


static const struct vtest_case machine_cases[] = {
	{ "composed_component", test_composed_component },
	{ "make_scheduler_shape", test_make_scheduler_shape },
	{ "make_scheduler_runs", test_make_scheduler_runs },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "machine_trees", NULL, NULL, machine_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
