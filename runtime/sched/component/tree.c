/* tree.c — struct starpu_sched_tree: the policy-facing side of a component
 * tree (push, pop, worker changes), and its validation.
 *
 * Validation (seed 001's rules, as far as they can be checked from the
 * shape and from which methods each component uses):
 *   - the tree has a root, no component is its own ancestor, and every
 *     path from the root ends at a worker leaf;
 *   - "a pump per scheduling area": every reservoir is drained. A
 *     reservoir is a component that keeps tasks: it has push_task and a
 *     pull_task of its own (not the default one, which only pulls from the
 *     parents), and it is neither a worker leaf (its worker's pop drains
 *     it) nor the front of a composed chain (which forwards both). fifo,
 *     prio, heft and work_stealing are reservoirs, and so is any user
 *     component that overrides pull_task. Tasks leave a reservoir only two
 *     ways, so it is drained if either holds:
 *       (a) it is a pump: it has a can_push of its own (not the default,
 *           which only forwards the call to the parents), which pushes
 *           stored tasks into its children when one of them has room, as
 *           fifo, prio and heft do;
 *       (b) workers' pulls reach it: every path from it down to a worker
 *           leaf goes only through components whose pull_task is known to
 *           pull from their parents when they have nothing for the
 *           requester — the default pull, the worker leaves, a composed
 *           front (its chain is checked as part of the path), fifo, prio,
 *           heft and work_stealing. A user pull_task is not known to do
 *           so, so it stops the pulls of the workers below it.
 *     What cannot be known from the shape is whether something ever calls
 *     a pump's can_push (the built-in bounded fifo/prio call their parents'
 *     after each pull; the default can_push forwards it upwards), nor
 *     whether a user pull_task does what its name says: the rule rejects
 *     the trees that certainly lose tasks, not every tree that might.
 * A tree that breaks a rule would lose tasks or loop forever, so it is
 * reported once (naming the rule and the component) and the context runs
 * from one shared queue instead.
 */
#include "sched/component/component_internal.h"
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct starpu_sched_tree *starpu_sched_tree_create(unsigned sched_ctx_id)
{
	struct tree_priv *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pub.sched_ctx_id = sched_ctx_id;
	t->pub.workers = starpu_bitmap_create();
	if (!t->pub.workers)
	{
		free(t);
		return NULL;
	}
	starpu_pthread_mutex_init(&t->pub.lock, NULL);
	os_rwlock_init(&t->rw);
	os_mutex_init(&t->fallback_lock);
	starpu_task_list_init(&t->fallback);
	return &t->pub;
}

/* ---- walking the tree ---- */

struct walk
{
	struct starpu_sched_component **seen;	/* every component reached */
	unsigned char *on_path;			/* parallel to seen */
	unsigned n, cap;
	const char *why;			/* first rule broken, or NULL */
	char buf[256];
	int nleaves;
};

static int find(struct walk *w, struct starpu_sched_component *c)
{
	for (unsigned i = 0; i < w->n; i++)
		if (w->seen[i] == c)
			return (int) i;
	return -1;
}

static void visit(struct walk *w, struct starpu_sched_component *c, unsigned depth)
{
	if (w->why)
		return;
	int i = find(w, c);
	if (i >= 0)
	{
		if (w->on_path[i])
		{
			snprintf(w->buf, sizeof(w->buf), "it has a cycle through component '%s'", c->name);
			w->why = w->buf;
		}
		return;
	}
	if (w->n == w->cap)
	{
		w->cap = w->cap ? 2 * w->cap : 32;
		w->seen = realloc(w->seen, sizeof(*w->seen) * w->cap);
		w->on_path = realloc(w->on_path, w->cap);
		if (!w->seen || !w->on_path)
			abort();
	}
	i = (int) w->n++;
	w->seen[i] = c;
	w->on_path[i] = 1;
	if (starpu_sched_component_is_worker(c))
		w->nleaves++;
	else if (c->nchildren == 0)
	{
		snprintf(w->buf, sizeof(w->buf), "component '%s' has no children and is not a worker component", c->name);
		w->why = w->buf;
	}
	else if (!c->push_task)
	{
		snprintf(w->buf, sizeof(w->buf), "component '%s' has no push_task", c->name);
		w->why = w->buf;
	}
	for (unsigned k = 0; k < c->nchildren && !w->why; k++)
		visit(w, c->children[k], depth + 1);
	w->on_path[i] = 0;
}

/* ---- a pump per scheduling area ---- */

static int is_front(struct starpu_sched_component *c)
{
	struct starpu_sched_component *top, *bottom;
	return composed_comp_chain(c, &top, &bottom);
}

static int is_reservoir(struct starpu_sched_component *c)
{
	return !starpu_sched_component_is_worker(c) && c->push_task && c->pull_task &&
	       !comp_pull_is_generic(c) && !is_front(c);
}

static int is_pump(struct starpu_sched_component *c)
{
	return c->can_push && c->can_push != starpu_sched_component_can_push;
}

/* Whether c's pull_task asks c's parents when c has nothing to give. */
static int pull_climbs(struct starpu_sched_component *c)
{
	return starpu_sched_component_is_worker(c) || comp_pull_is_generic(c) || is_front(c) ||
	       starpu_sched_component_is_fifo(c) || starpu_sched_component_is_prio(c) ||
	       starpu_sched_component_is_heft(c) || starpu_sched_component_is_work_stealing(c);
}

/* Whether the pulls of every worker under c climb through c (the tree is
 * known to be acyclic with worker leaves at the bottom). */
static int pulls_reach(struct starpu_sched_component *c)
{
	if (starpu_sched_component_is_worker(c))
		return 1;
	if (!pull_climbs(c))
		return 0;
	for (unsigned k = 0; k < c->nchildren; k++)
		if (!pulls_reach(c->children[k]))
			return 0;
	return 1;
}

static int drained(struct starpu_sched_component *c)
{
	if (is_pump(c))
		return 1;
	for (unsigned k = 0; k < c->nchildren; k++)
		if (!pulls_reach(c->children[k]))
			return 0;
	return 1;
}

static void check_areas(struct walk *w)
{
	for (unsigned i = 0; i < w->n && !w->why; i++)
	{
		struct starpu_sched_component *c = w->seen[i];
		if (is_reservoir(c) && !drained(c))
		{
			snprintf(w->buf, sizeof(w->buf),
				 "component '%s' keeps tasks but nothing drains it (no can_push pump, and not every worker below pulls through to it)",
				 c->name);
			w->why = w->buf;
		}
	}
}

/* Children before parents, for a valid tree: the bitmaps are computed
 * bottom-up. */
static void postorder(struct starpu_sched_component *c, struct starpu_sched_component **out, unsigned *n, unsigned char *done,
		      struct walk *w)
{
	int i = find(w, c);
	if (done[i])
		return;
	done[i] = 1;
	for (unsigned k = 0; k < c->nchildren; k++)
		postorder(c->children[k], out, n, done, w);
	out[(*n)++] = c;
}

static void set_properties(struct starpu_sched_component *c)
{
	int homogeneous = 1, single_node = 1;
	int first = starpu_bitmap_first(c->workers);
	for (int x = first; x >= 0; x = starpu_bitmap_next(c->workers, x))
	{
		if (starpu_worker_get_type(x) != starpu_worker_get_type(first))
			homogeneous = 0;
		if (starpu_worker_get_memory_node((unsigned) x) != starpu_worker_get_memory_node((unsigned) first))
			single_node = 0;
	}
	c->properties = (homogeneous ? STARPU_SCHED_COMPONENT_HOMOGENEOUS : 0) |
			(single_node ? STARPU_SCHED_COMPONENT_SINGLE_MEMORY_NODE : 0);
}

/* Walks the tree; NULL and *order filled (bottom-up) when valid, else the
 * reason. */
static const char *check(struct starpu_sched_tree *t, struct walk *w, struct starpu_sched_component ***order)
{
	memset(w, 0, sizeof(*w));
	*order = NULL;
	if (!t->root)
		return "it has no root component";
	visit(w, t->root, 0);
	if (w->why)
		return w->why;
	if (w->nleaves == 0)
		return "no path from the root reaches a worker component";
	check_areas(w);
	if (w->why)
		return w->why;
	*order = malloc(sizeof(**order) * w->n);
	unsigned char *done = calloc(w->n, 1);
	if (!*order || !done)
		abort();
	unsigned n = 0;
	postorder(t->root, *order, &n, done, w);
	free(done);
	return NULL;
}

static void walk_free(struct walk *w)
{
	free(w->seen);
	free(w->on_path);
}

static void mark_invalid(struct tree_priv *t, const char *why)
{
	if (!t->invalid)
		rt_error("starpu_sched_tree_update_workers: the scheduling tree of context %u is invalid: %s; "
			 "its tasks go to one shared queue instead", t->pub.sched_ctx_id, why);
	t->invalid = 1;
}

static void update_in_ctx(struct starpu_sched_tree *t, struct starpu_sched_component **order, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		starpu_bitmap_unset_and(order[i]->workers_in_ctx, order[i]->workers, t->workers);
}

/* Under the tree's write lock (or before the tree is in use). */
static int update_locked(struct starpu_sched_tree *t)
{
	struct walk w;
	struct starpu_sched_component **order;
	const char *why = check(t, &w, &order);
	if (why)
	{
		mark_invalid(tree_priv(t), why);
		walk_free(&w);
		return -EINVAL;
	}
	tree_priv(t)->invalid = 0;
	for (unsigned i = 0; i < w.n; i++)
	{
		struct starpu_sched_component *c = order[i];
		c->tree = t;
		if (!starpu_sched_component_is_worker(c))
		{
			starpu_bitmap_unset_all(c->workers);
			for (unsigned k = 0; k < c->nchildren; k++)
				starpu_bitmap_or(c->workers, c->children[k]->workers);
		}
		set_properties(c);
	}
	update_in_ctx(t, order, w.n);
	for (unsigned i = 0; i < w.n; i++)
		if (order[i]->notify_change_workers)
			order[i]->notify_change_workers(order[i]);
	free(order);
	walk_free(&w);
	return 0;
}

void starpu_sched_tree_update_workers(struct starpu_sched_tree *t)
{
	if (!t)
		return;
	/* Until the context adds its workers (starpu_sched_tree_add_workers),
	 * the tree takes every worker of the machine as its own. */
	if (!tree_priv(t)->ctx_workers_known)
		for (unsigned i = 0; i < starpu_worker_get_count(); i++)
			starpu_bitmap_set(t->workers, (int) i);
	update_locked(t);
}

void starpu_sched_tree_update_workers_in_ctx(struct starpu_sched_tree *t)
{
	struct walk w;
	struct starpu_sched_component **order;
	if (!t || check(t, &w, &order))
	{
		walk_free(&w);
		return;
	}
	update_in_ctx(t, order, w.n);
	free(order);
	walk_free(&w);
}

/* ---- push and pop ---- */

struct starpu_sched_tree *starpu_sched_tree_get(unsigned sched_ctx_id)
{
	return starpu_sched_ctx_get_policy_data(sched_ctx_id);
}

static void fallback_push(struct tree_priv *t, struct starpu_task *task)
{
	uint32_t where = worker_task_where(task);
	os_mutex_lock(&t->fallback_lock);
	starpu_task_list_push_back(&t->fallback, task);
	__atomic_store_n(&t->nfallback, t->nfallback + 1, __ATOMIC_RELAXED);
	os_mutex_unlock(&t->fallback_lock);
	worker_wake_one_idle(t->pub.sched_ctx_id, where, 1);
}

static int push_locked(struct tree_priv *t, struct starpu_task *task)
{
	struct starpu_sched_component *root = t->pub.root;
	if (t->invalid || !root)
	{
		fallback_push(t, task);
		return 0;
	}
	int ret = root->push_task(root, task);
	if (ret)
		/* The root refused (a bounded root queue): keep the task
		 * rather than lose it. */
		fallback_push(t, task);
	return 0;
}

int starpu_sched_tree_push_task(struct starpu_task *task)
{
	struct tree_priv *t = (struct tree_priv *) starpu_sched_tree_get(task->sched_ctx);
	if (!t)
		return -EINVAL;
	os_rwlock_rdlock(&t->rw);
	int ret = push_locked(t, task);
	os_rwlock_unlock(&t->rw);
	return ret;
}

static struct starpu_task *fallback_pop(struct tree_priv *t, int workerid)
{
	struct starpu_task *task = NULL;
	os_mutex_lock(&t->fallback_lock);
	for (struct starpu_task *x = starpu_task_list_front(&t->fallback); x; x = x->next)
		if (workerid < 0 || starpu_worker_can_execute_task_first_impl((unsigned) workerid, x, NULL))
		{
			starpu_task_list_erase(&t->fallback, x);
			__atomic_store_n(&t->nfallback, t->nfallback - 1, __ATOMIC_RELAXED);
			task = x;
			break;
		}
	os_mutex_unlock(&t->fallback_lock);
	return task;
}

struct starpu_task *starpu_sched_tree_pop_task(unsigned sched_ctx)
{
	struct tree_priv *t = (struct tree_priv *) starpu_sched_tree_get(sched_ctx);
	int w = starpu_worker_get_id();
	if (!t || w < 0)
		return NULL;
	os_rwlock_rdlock(&t->rw);
	struct starpu_task *task = NULL;
	if (__atomic_load_n(&t->nfallback, __ATOMIC_RELAXED))
		task = fallback_pop(t, w);
	if (!task && !t->invalid)
	{
		struct starpu_sched_component *leaf = starpu_sched_component_worker_get(sched_ctx, w);
		if (leaf && leaf->tree == &t->pub)
			task = leaf->pull_task(leaf, NULL);
	}
	os_rwlock_unlock(&t->rw);
	return task;
}

int starpu_sched_tree_work_stealing_push_task(struct starpu_task *task)
{
	struct tree_priv *t = (struct tree_priv *) starpu_sched_tree_get(task->sched_ctx);
	if (!t)
		return -EINVAL;
	os_rwlock_rdlock(&t->rw);
	int w = starpu_worker_get_id();
	struct starpu_sched_component *ws = (!t->invalid && w >= 0) ? ws_comp_find(t->pub.root) : NULL;
	int ret = (ws && ws_comp_push_local(ws, task, w) == 0) ? 0 : push_locked(t, task);
	os_rwlock_unlock(&t->rw);
	return ret;
}

/* ---- worker changes ---- */

static void drain_all(struct starpu_sched_tree *t, struct starpu_task_list *out, int only_orphans)
{
	struct walk w;
	struct starpu_sched_component **order;
	if (check(t, &w, &order))
	{
		walk_free(&w);
		return;
	}
	for (unsigned i = 0; i < w.n; i++)
	{
		struct starpu_sched_component *c = order[i];
		if (only_orphans && starpu_bitmap_cardinal(c->workers_in_ctx))
			continue;
		if (!fifo_comp_drain(c, out) && !worker_comp_drain(c, out) && !ws_comp_drain(c, out))
			heft_comp_drain(c, out);
	}
	free(order);
	walk_free(&w);
}

static void change_workers(unsigned sched_ctx_id, int *workerids, unsigned nworkers, int add)
{
	struct tree_priv *t = (struct tree_priv *) starpu_sched_tree_get(sched_ctx_id);
	if (!t)
		return;
	STARPU_PTHREAD_MUTEX_LOCK(&t->pub.lock);
	os_rwlock_wrlock(&t->rw);
	if (!t->ctx_workers_known)
	{
		/* From now on the context says which workers are in. */
		starpu_bitmap_unset_all(t->pub.workers);
		if (!add)
			for (unsigned i = 0; i < starpu_worker_get_count(); i++)
				starpu_bitmap_set(t->pub.workers, (int) i);
		t->ctx_workers_known = 1;
	}
	for (unsigned i = 0; i < nworkers; i++)
	{
		if (add)
			starpu_bitmap_set(t->pub.workers, workerids[i]);
		else
			starpu_bitmap_unset(t->pub.workers, workerids[i]);
	}
	struct starpu_task_list moved;
	starpu_task_list_init(&moved);
	if (update_locked(&t->pub) == 0 && !add)
		/* Tasks queued where no worker of the context can reach
		 * them any more go back through the root. */
		drain_all(&t->pub, &moved, 1);
	while (!starpu_task_list_empty(&moved))
		push_locked(t, starpu_task_list_pop_front(&moved));
	os_rwlock_unlock(&t->rw);
	STARPU_PTHREAD_MUTEX_UNLOCK(&t->pub.lock);
}

void starpu_sched_tree_add_workers(unsigned sched_ctx_id, int *workerids, unsigned nworkers)
{
	change_workers(sched_ctx_id, workerids, nworkers, 1);
}

void starpu_sched_tree_remove_workers(unsigned sched_ctx_id, int *workerids, unsigned nworkers)
{
	change_workers(sched_ctx_id, workerids, nworkers, 0);
}

/* ---- destruction ---- */

void starpu_sched_tree_destroy(struct starpu_sched_tree *tree)
{
	if (!tree)
		return;
	struct tree_priv *t = tree_priv(tree);
	starpu_sched_component_destroy_rec(tree->root);
	starpu_bitmap_destroy(tree->workers);
	starpu_pthread_mutex_destroy(&tree->lock);
	os_rwlock_destroy(&t->rw);
	os_mutex_destroy(&t->fallback_lock);
	free(t);
}

void starpu_sched_tree_deinitialize(unsigned sched_ctx_id)
{
	struct starpu_sched_tree *t = starpu_sched_tree_get(sched_ctx_id);
	starpu_sched_tree_destroy(t);
	starpu_sched_ctx_set_policy_data(sched_ctx_id, NULL);
}
