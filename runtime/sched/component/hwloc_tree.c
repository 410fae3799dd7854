/* hwloc_tree.c — starpu_sched_component_make_scheduler: a component tree
 * shaped like the machine, from a starpu_sched_component_specs (one recipe
 * per level: machine, NUMA node, package, cache, and per worker kind).
 *
 * The machine's hwloc tree (core/topology.c) is walked from the root; each
 * worker hangs below the processing unit it is bound to. The machine
 * recipe makes the root. A NUMA node, package or cache gets its level's
 * recipe (NUMA node first, on the object the node is attached to) only if
 * it covers more than one worker and not exactly the workers of the
 * nearest object above that got components: such a component would only
 * add a hop, deciding nothing (on a one-package machine the package level
 * adds nothing; a cache private to one worker is that worker's business).
 * So the same specs give a flat tree on a small machine and a hierarchy
 * (e.g. a queue per package or per shared cache) on a larger one.
 *
 * Below the last component of its branch, each worker gets the recipe
 * specs.worker_composed_sched_component returns for its kind (called once
 * per kind; the recipe stays the caller's), then its leaf. Workers with no
 * processing unit (simulated ones, devices), and devices when
 * specs.mix_heterogeneous_workers is 0, hang below the machine components.
 * Every worker of the machine gets a leaf; the context's own workers are
 * the leaves' workers_in_ctx, as with the simple builder (simple.c).
 */
#include "sched/component/component_internal.h"
#include "core/conf.h"
#include "core/rt.h"

#include <stdint.h>
#include <string.h>

/* A set of worker ids. */
struct wset
{
	uint64_t bits[(STARPU_NMAXWORKERS + 63) / 64];
};

static void wset_add(struct wset *s, unsigned w)
{
	s->bits[w / 64] |= UINT64_C(1) << (w % 64);
}

static unsigned wset_count(const struct wset *s)
{
	unsigned n = 0;
	for (unsigned i = 0; i < sizeof(s->bits) / sizeof(s->bits[0]); i++)
		n += (unsigned) __builtin_popcountll(s->bits[i]);
	return n;
}

static int wset_eq(const struct wset *a, const struct wset *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

struct build
{
	struct starpu_sched_tree *t;
	const struct starpu_sched_component_specs *specs;
	hwloc_topology_t topo;
	unsigned nworkers;
	hwloc_obj_t pu[STARPU_NMAXWORKERS];	/* where each worker hangs; NULL: below the machine */
	/* Per worker kind: whether the recipe was asked for, and which. */
	int asked[STARPU_NARCH];
	struct starpu_sched_component_composed_recipe *worker_recipe[STARPU_NARCH];
	int failed;
};

static struct starpu_sched_component_composed_recipe *recipe_for_worker(struct build *b, enum starpu_worker_archtype arch)
{
	if (!b->specs->worker_composed_sched_component || (unsigned) arch >= STARPU_NARCH)
		return NULL;
	if (!b->asked[arch])
	{
		b->asked[arch] = 1;
		b->worker_recipe[arch] = b->specs->worker_composed_sched_component(arch);
	}
	return b->worker_recipe[arch];
}

/* Links the components of recipe (for obj) below *attach; *attach becomes
 * the last one. Returns whether something was added. */
static int add_level(struct build *b, const struct starpu_sched_component_composed_recipe *recipe, hwloc_obj_t obj,
		     struct starpu_sched_component **attach)
{
	if (sched_recipe_length(recipe) == 0)
		return 0;
	struct starpu_sched_component *top, *bottom;
	int ret = sched_recipe_instantiate(b->t, recipe, obj, &top, &bottom);
	if (top)
		starpu_sched_component_connect(*attach, top);
	if (ret)
	{
		b->failed = 1;
		return 0;
	}
	*attach = bottom;
	return 1;
}

static void add_worker(struct build *b, unsigned w, struct starpu_sched_component *attach)
{
	struct starpu_sched_component *leaf = starpu_sched_component_worker_new(b->t->sched_ctx_id, (int) w);
	if (!leaf)
	{
		b->failed = 1;
		return;
	}
	add_level(b, recipe_for_worker(b, starpu_worker_get_type((int) w)), b->pu[w], &attach);
	starpu_sched_component_connect(attach, leaf);
}

static void workers_under(struct build *b, hwloc_obj_t obj, struct wset *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned w = 0; w < b->nworkers; w++)
		if (b->pu[w] && (b->pu[w] == obj || hwloc_obj_is_in_subtree(b->topo, b->pu[w], obj)))
			wset_add(s, w);
}

static void build_obj(struct build *b, hwloc_obj_t obj, struct starpu_sched_component *attach, const struct wset *above)
{
	struct wset mine;
	workers_under(b, obj, &mine);
	unsigned n = wset_count(&mine);
	if (n == 0 || b->failed)
		return;
	if (n > 1 && !wset_eq(&mine, above))
	{
		int added = 0;
		/* NUMA nodes are memory children of the object whose cores
		 * they serve (hwloc 2): their level comes first. */
		if (obj->memory_arity > 0)
			added |= add_level(b, b->specs->hwloc_component_composed_sched_component, obj->memory_first_child, &attach);
		if (obj->type == HWLOC_OBJ_PACKAGE)
			added |= add_level(b, b->specs->hwloc_socket_composed_sched_component, obj, &attach);
		if (hwloc_obj_type_is_cache(obj->type))
			added |= add_level(b, b->specs->hwloc_cache_composed_sched_component, obj, &attach);
		if (added)
			above = &mine;
	}
	for (unsigned i = 0; i < obj->arity; i++)
		build_obj(b, obj->children[i], attach, above);
	for (unsigned w = 0; w < b->nworkers && !b->failed; w++)
		if (b->pu[w] == obj)
			add_worker(b, w, attach);
}

struct starpu_sched_tree *starpu_sched_component_make_scheduler(unsigned sched_ctx_id, struct starpu_sched_component_specs specs)
{
	if (sched_ctx_id >= STARPU_NMAX_SCHED_CTXS)
	{
		rt_error("starpu_sched_component_make_scheduler: sched_ctx_id %u is not a scheduling context id", sched_ctx_id);
		return NULL;
	}
	if (sched_recipe_length(specs.hwloc_machine_composed_sched_component) == 0)
	{
		rt_error("starpu_sched_component_make_scheduler: specs.hwloc_machine_composed_sched_component is %s "
			 "(it makes the root of the tree)", specs.hwloc_machine_composed_sched_component ? "empty" : "NULL");
		return NULL;
	}
	struct build *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->specs = &specs;
	b->topo = topo_hwloc();
	b->nworkers = starpu_worker_get_count();
	b->t = starpu_sched_tree_create(sched_ctx_id);
	if (!b->t)
	{
		free(b);
		return NULL;
	}
	hwloc_obj_t root = b->topo ? hwloc_get_root_obj(b->topo) : NULL;
	for (unsigned w = 0; w < b->nworkers; w++)
	{
		int cpu = starpu_worker_get_type((int) w) == STARPU_CPU_WORKER;
		if (root && (cpu || specs.mix_heterogeneous_workers))
			b->pu[w] = starpu_worker_get_hwloc_obj((int) w);
	}

	struct starpu_sched_component *top, *bottom;
	if (sched_recipe_instantiate(b->t, specs.hwloc_machine_composed_sched_component, root, &top, &bottom))
		b->failed = 1;
	b->t->root = top;
	if (!b->failed && root)
	{
		struct wset all;
		workers_under(b, root, &all);
		build_obj(b, root, bottom, &all);
	}
	for (unsigned w = 0; w < b->nworkers && !b->failed; w++)
		if (!b->pu[w])
			add_worker(b, w, bottom);
	if (b->failed)
	{
		rt_error("starpu_sched_component_make_scheduler: a component constructor of the specs returned NULL");
		starpu_sched_tree_destroy(b->t);
		free(b);
		return NULL;
	}
	struct starpu_sched_tree *t = b->t;
	free(b);
	starpu_sched_tree_update_workers(t);
	return t;
}
