/* component.c — the generic scheduling component: creation, links between
 * components, the default (recursive) methods, the prediction helpers
 * decision components share, and the task queue of the storing components.
 */
#include "sched/component/component_internal.h"
#include "core/workers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- links ---- */

static int grow_append(struct starpu_sched_component ***v, unsigned *n, struct starpu_sched_component *c)
{
	for (unsigned i = 0; i < *n; i++)
		if ((*v)[i] == c)
			return 0;
	struct starpu_sched_component **nv = realloc(*v, sizeof(*nv) * (*n + 1));
	if (!nv)
		abort();
	nv[(*n)++] = c;
	*v = nv;
	return 1;
}

static void drop(struct starpu_sched_component **v, unsigned *n, struct starpu_sched_component *c)
{
	for (unsigned i = 0; i < *n; i++)
		if (v[i] == c)
		{
			memmove(v + i, v + i + 1, sizeof(*v) * (*n - i - 1));
			(*n)--;
			return;
		}
}

void starpu_sched_component_add_child(struct starpu_sched_component *component, struct starpu_sched_component *child)
{
	grow_append(&component->children, &component->nchildren, child);
}

void starpu_sched_component_remove_child(struct starpu_sched_component *component, struct starpu_sched_component *child)
{
	drop(component->children, &component->nchildren, child);
}

void starpu_sched_component_add_parent(struct starpu_sched_component *component, struct starpu_sched_component *parent)
{
	grow_append(&component->parents, &component->nparents, parent);
}

void starpu_sched_component_remove_parent(struct starpu_sched_component *component, struct starpu_sched_component *parent)
{
	drop(component->parents, &component->nparents, parent);
}

void starpu_sched_component_connect(struct starpu_sched_component *parent, struct starpu_sched_component *child)
{
	parent->add_child(parent, child);
	child->add_parent(child, parent);
}

/* ---- default methods ---- */

struct starpu_task *starpu_sched_component_pull_task(struct starpu_sched_component *from, struct starpu_sched_component *to)
{
	return from->pull_task ? from->pull_task(from, to) : NULL;
}

int starpu_sched_component_push_task(struct starpu_sched_component *from, struct starpu_sched_component *to, struct starpu_task *task)
{
	(void) from;
	return to->push_task(to, task);
}

struct starpu_task *starpu_sched_component_pump_to(struct starpu_sched_component *component, struct starpu_sched_component *to,
						   int *success)
{
	if (!component || !to || !to->push_task)
	{
		rt_error("starpu_sched_component_pump_to: %s is NULL (-EINVAL)", component ? "the target component" : "component");
		return NULL;
	}
	for (;;)
	{
		struct starpu_task *task = component->pull_task ? component->pull_task(component, NULL) : NULL;
		if (!task)
			return NULL;
		if (to->push_task(to, task))
			return task;
		if (success)
			*success = 1;
	}
}

struct starpu_task *starpu_sched_component_pump_downstream(struct starpu_sched_component *component, int *success)
{
	if (!component || component->nchildren != 1)
	{
		rt_error("starpu_sched_component_pump_downstream: component %p has %u children, not 1 (-EINVAL)",
			 (void *) component, component ? component->nchildren : 0);
		return NULL;
	}
	return starpu_sched_component_pump_to(component, component->children[0], success);
}

/* Pull from the parents on behalf of the original requester, so that any
 * queue above hands only a task the requester can run. */
static struct starpu_task *generic_pull(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	struct starpu_sched_component *who = to ? to : c;
	for (unsigned i = 0; i < c->nparents; i++)
	{
		struct starpu_sched_component *p = c->parents[i];
		struct starpu_task *t = p->pull_task ? p->pull_task(p, who) : NULL;
		if (t)
			return t;
	}
	return NULL;
}

int comp_pull_is_generic(struct starpu_sched_component *c)
{
	return c->pull_task == generic_pull;
}

int starpu_sched_component_send_can_push_to_parents(struct starpu_sched_component *component)
{
	int moved = 0;
	for (unsigned i = 0; i < component->nparents; i++)
	{
		struct starpu_sched_component *p = component->parents[i];
		if (p->can_push && p->can_push(p, component))
			moved = 1;
	}
	return moved;
}

int starpu_sched_component_can_push(struct starpu_sched_component *component, struct starpu_sched_component *to)
{
	(void) to;
	return starpu_sched_component_send_can_push_to_parents(component);
}

int starpu_sched_component_can_pull(struct starpu_sched_component *component)
{
	for (unsigned i = 0; i < component->nchildren; i++)
	{
		struct starpu_sched_component *c = component->children[i];
		if (c->can_pull && c->can_pull(c))
			return 1;
	}
	return 0;
}

int starpu_sched_component_can_pull_all(struct starpu_sched_component *component)
{
	int any = 0;
	for (unsigned i = 0; i < component->nchildren; i++)
	{
		struct starpu_sched_component *c = component->children[i];
		if (c->can_pull && c->can_pull(c))
			any = 1;
	}
	return any;
}

double starpu_sched_component_estimated_load(struct starpu_sched_component *component)
{
	double load = 0.0;
	for (unsigned i = 0; i < component->nchildren; i++)
	{
		struct starpu_sched_component *c = component->children[i];
		if (c->estimated_load)
			load += c->estimated_load(c);
	}
	return load;
}

double starpu_sched_component_estimated_end_min(struct starpu_sched_component *component)
{
	double best = INFINITY;
	for (unsigned i = 0; i < component->nchildren; i++)
	{
		struct starpu_sched_component *c = component->children[i];
		if (!c->estimated_end)
			continue;
		double e = c->estimated_end(c);
		if (e < best)
			best = e;
	}
	return isinf(best) ? starpu_timing_now() : best;
}

static int nworkers_in_ctx(struct starpu_sched_component *c)
{
	int n = c->workers_in_ctx ? starpu_bitmap_cardinal(c->workers_in_ctx) : 0;
	return n ? n : 1;
}

double starpu_sched_component_estimated_end_min_add(struct starpu_sched_component *component, double exp_len)
{
	return starpu_sched_component_estimated_end_min(component) + exp_len / nworkers_in_ctx(component);
}

double starpu_sched_component_estimated_end_average(struct starpu_sched_component *component)
{
	double sum = 0.0;
	unsigned n = 0;
	for (unsigned i = 0; i < component->nchildren; i++)
	{
		struct starpu_sched_component *c = component->children[i];
		if (c->estimated_end)
		{
			sum += c->estimated_end(c);
			n++;
		}
	}
	return n ? sum / n : starpu_timing_now();
}

/* ---- creation ---- */

struct starpu_sched_component *starpu_sched_component_create(struct starpu_sched_tree *tree, const char *name)
{
	struct starpu_sched_component *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->tree = tree;
	c->workers = starpu_bitmap_create();
	c->workers_in_ctx = starpu_bitmap_create();
	c->name = strdup(name ? name : "component");
	if (!c->workers || !c->workers_in_ctx || !c->name)
		abort();
	c->add_child = starpu_sched_component_add_child;
	c->remove_child = starpu_sched_component_remove_child;
	c->add_parent = starpu_sched_component_add_parent;
	c->remove_parent = starpu_sched_component_remove_parent;
	c->pull_task = generic_pull;
	c->can_push = starpu_sched_component_can_push;
	c->can_pull = starpu_sched_component_can_pull;
	c->estimated_load = starpu_sched_component_estimated_load;
	c->estimated_end = starpu_sched_component_estimated_end_min;
	return c;
}

void starpu_sched_component_destroy(struct starpu_sched_component *component)
{
	if (!component)
		return;
	while (component->nchildren)
	{
		struct starpu_sched_component *ch = component->children[component->nchildren - 1];
		component->remove_child(component, ch);
		ch->remove_parent(ch, component);
	}
	while (component->nparents)
	{
		struct starpu_sched_component *p = component->parents[component->nparents - 1];
		component->remove_parent(component, p);
		p->remove_child(p, component);
	}
	if (component->deinit_data)
		component->deinit_data(component);
	starpu_bitmap_destroy(component->workers);
	starpu_bitmap_destroy(component->workers_in_ctx);
	free(component->children);
	free(component->parents);
	free(component->name);
	free(component);
}

static void collect(struct starpu_sched_component *c, struct starpu_sched_component ***v, unsigned *n, unsigned *cap)
{
	for (unsigned i = 0; i < *n; i++)
		if ((*v)[i] == c)
			return;
	if (*n == *cap)
	{
		*cap = *cap ? 2 * *cap : 32;
		*v = realloc(*v, sizeof(**v) * *cap);
		if (!*v)
			abort();
	}
	(*v)[(*n)++] = c;
	for (unsigned k = 0; k < c->nchildren; k++)
		collect(c->children[k], v, n, cap);
}

static int in_set(struct starpu_sched_component **v, unsigned n, struct starpu_sched_component *c)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == c)
			return 1;
	return 0;
}

void starpu_sched_component_destroy_rec(struct starpu_sched_component *component)
{
	if (!component)
		return;
	/* Everything reachable is collected first, so that a cycle (an
	 * invalid tree) is freed once like the rest; a component that a
	 * parent outside the subtree still links to is kept. */
	struct starpu_sched_component **v = NULL;
	unsigned n = 0, cap = 0;
	collect(component, &v, &n, &cap);
	for (int again = 1; again;)
	{
		again = 0;
		for (unsigned i = 1; i < n; i++)
			for (unsigned k = 0; k < v[i]->nparents; k++)
				if (!in_set(v, n, v[i]->parents[k]))
				{
					v[i--] = v[--n];
					again = 1;
					break;
				}
	}
	for (unsigned i = 0; i < n; i++)
		starpu_sched_component_destroy(v[i]);
	free(v);
}

/* ---- predictions ---- */

/* The workers a component may hand tasks to: those of its context once it
 * belongs to a tree (a queue whose workers all left the context is not
 * usable, or tasks pushed there would never be pulled), else all below it. */
static struct starpu_bitmap *usable_workers(struct starpu_sched_component *c)
{
	if (c->tree && c->workers_in_ctx)
		return c->workers_in_ctx;
	return c->workers;
}

static unsigned ctx_of(struct starpu_sched_component *c)
{
	return c->tree ? c->tree->sched_ctx_id : 0;
}

int comp_can_run(struct starpu_sched_component *to, struct starpu_task *task)
{
	if (!to)
		return 1;
	int wid = worker_comp_id(to);
	if (wid >= 0)
		return starpu_bitmap_get(usable_workers(to), wid) &&
			starpu_worker_can_execute_task_first_impl((unsigned) wid, task, NULL);
	return starpu_sched_component_can_execute_task(to, task);
}

int starpu_sched_component_can_execute_task(struct starpu_sched_component *component, struct starpu_task *task)
{
	struct starpu_bitmap *ws = usable_workers(component);
	for (int w = starpu_bitmap_first(ws); w >= 0; w = starpu_bitmap_next(ws, w))
		if (starpu_worker_can_execute_task_first_impl((unsigned) w, task, NULL))
			return 1;
	return 0;
}

int starpu_sched_component_execute_preds(struct starpu_sched_component *component, struct starpu_task *task, double *length)
{
	struct starpu_bitmap *ws = usable_workers(component);
	unsigned ctx = ctx_of(component);
	int can = 0;
	double best = INFINITY;
	for (int w = starpu_bitmap_first(ws); w >= 0; w = starpu_bitmap_next(ws, w))
	{
		for (unsigned impl = 0; impl < STARPU_MAXIMPLEMENTATIONS; impl++)
		{
			if (!starpu_worker_can_execute_task((unsigned) w, task, impl))
				continue;
			can = 1;
			double l = starpu_task_expected_length(task, starpu_worker_get_perf_archtype(w, ctx), impl);
			if (isnan(l))
			{
				if (length)
					*length = NAN;
				return 1;
			}
			if (l < best)
				best = l;
		}
		/* Workers of one kind predict alike. */
		if (can && STARPU_SCHED_COMPONENT_IS_HOMOGENEOUS(component))
			break;
	}
	if (length)
		*length = can ? best : INFINITY;
	return can;
}

double starpu_sched_component_transfer_length(struct starpu_sched_component *component, struct starpu_task *task)
{
	struct starpu_bitmap *ws = usable_workers(component);
	double sum = 0.0;
	int n = 0;
	for (int w = starpu_bitmap_first(ws); w >= 0; w = starpu_bitmap_next(ws, w))
	{
		double t = starpu_task_expected_data_transfer_time_for(task, (unsigned) w);
		if (!isnan(t))
			sum += t;
		n++;
		if (STARPU_SCHED_COMPONENT_IS_SINGLE_MEMORY_NODE(component))
			break;
	}
	return n ? sum / n : 0.0;
}

void starpu_sched_component_prefetch_on_node(struct starpu_sched_component *component, struct starpu_task *task)
{
	if (!STARPU_SCHED_COMPONENT_IS_SINGLE_MEMORY_NODE(component))
		return;
	int w = starpu_bitmap_first(usable_workers(component));
	if (w >= 0)
		starpu_prefetch_task_input_on_node(task, starpu_worker_get_memory_node((unsigned) w));
}

double comp_task_len(struct starpu_task *task)
{
	double l = task->predicted;
	return (isnan(l) || isinf(l) || l < 0) ? 0.0 : l;
}

/* ---- the queue of storing components ---- */

void cq_init(struct comp_queue *q, int by_prio)
{
	memset(q, 0, sizeof(*q));
	os_mutex_init(&q->lock);
	starpu_task_list_init(&q->list);
	q->by_prio = by_prio;
}

void cq_insert(struct comp_queue *q, struct starpu_task *task)
{
	if (!q->by_prio || starpu_task_list_empty(&q->list) || starpu_task_list_back(&q->list)->priority >= task->priority)
	{
		starpu_task_list_push_back(&q->list, task);
		return;
	}
	/* Behind the last task of priority >= its own. */
	struct starpu_task *t = starpu_task_list_back(&q->list);
	while (t && t->priority < task->priority)
		t = t->prev;
	if (!t)
		starpu_task_list_push_front(&q->list, task);
	else
	{
		task->prev = t;
		task->next = t->next;
		t->next->prev = task;
		t->next = task;
	}
}

struct starpu_task *cq_take_for(struct comp_queue *q, struct starpu_sched_component *to, int from_back)
{
	for (struct starpu_task *t = from_back ? starpu_task_list_back(&q->list) : starpu_task_list_front(&q->list);
	     t; t = from_back ? t->prev : t->next)
		if (comp_can_run(to, t))
		{
			starpu_task_list_erase(&q->list, t);
			cq_count(q, -1, -comp_task_len(t));
			return t;
		}
	return NULL;
}

void cq_drain(struct comp_queue *q, struct starpu_task_list *out)
{
	int moved = 0;
	os_mutex_lock(&q->lock);
	while (!starpu_task_list_empty(&q->list))
	{
		starpu_task_list_push_back(out, starpu_task_list_pop_front(&q->list));
		moved++;
	}
	cq_count(q, -moved, -q->exp_len);
	os_mutex_unlock(&q->lock);
}
