/* ws.c — the work_stealing decision component: one queue per child, filled
 * round-robin (or, for a task a worker submits, that worker's own queue
 * through starpu_sched_tree_work_stealing_push_task). A worker takes from
 * its own queue's front, and when it is empty steals from the back of the
 * others', starting after its own.
 */
#include "sched/component/component_internal.h"

#include <stdlib.h>

#define WS_MAX_CHILDREN STARPU_NMAXWORKERS

struct ws_comp
{
	unsigned rr;	/* atomic: next child for round-robin */
	struct comp_queue q[WS_MAX_CHILDREN];
	/* The generic pull, for when every queue is empty. */
	struct starpu_task *(*pull_up)(struct starpu_sched_component *, struct starpu_sched_component *);
};

static void store(struct starpu_sched_component *c, unsigned i, struct starpu_task *task)
{
	struct ws_comp *d = c->data;
	os_mutex_lock(&d->q[i].lock);
	cq_insert(&d->q[i], task);
	cq_count(&d->q[i], 1, comp_task_len(task));
	os_mutex_unlock(&d->q[i].lock);
	/* The owner first; if it is busy, any idle worker may steal. */
	struct starpu_sched_component *ch = c->children[i];
	if (!(ch->can_pull && ch->can_pull(ch)))
		starpu_sched_component_can_pull(c);
}

static int ws_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	struct ws_comp *d = c->data;
	unsigned n = c->nchildren < WS_MAX_CHILDREN ? c->nchildren : WS_MAX_CHILDREN;
	if (!n)
		return 1;
	unsigned start = __atomic_fetch_add(&d->rr, 1, __ATOMIC_RELAXED) % n;
	for (unsigned k = 0; k < n; k++)
	{
		unsigned i = (start + k) % n;
		if (comp_can_run(c->children[i], task))
		{
			store(c, i, task);
			return 0;
		}
	}
	return 1;
}

static int child_of(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	unsigned n = c->nchildren < WS_MAX_CHILDREN ? c->nchildren : WS_MAX_CHILDREN;
	int wid = to ? worker_comp_id(to) : -1;
	for (unsigned i = 0; i < n; i++)
		if (c->children[i] == to || (wid >= 0 && starpu_bitmap_get(c->children[i]->workers, wid)))
			return (int) i;
	return -1;
}

static struct starpu_task *ws_pull(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	struct ws_comp *d = c->data;
	unsigned n = c->nchildren < WS_MAX_CHILDREN ? c->nchildren : WS_MAX_CHILDREN;
	int own = child_of(c, to);
	for (unsigned k = 0; k < n; k++)
	{
		unsigned i = own >= 0 ? (own + k) % n : k;
		if (!__atomic_load_n(&d->q[i].ntasks, __ATOMIC_RELAXED))
			continue;
		os_mutex_lock(&d->q[i].lock);
		struct starpu_task *t = cq_take_for(&d->q[i], to, (int) i != own);
		os_mutex_unlock(&d->q[i].lock);
		if (t)
			return t;
	}
	return d->pull_up(c, to);
}

static double ws_estimated_load(struct starpu_sched_component *c)
{
	struct ws_comp *d = c->data;
	double sum = 0.0;
	for (unsigned i = 0; i < c->nchildren && i < WS_MAX_CHILDREN; i++)
		sum += __atomic_load_n(&d->q[i].ntasks, __ATOMIC_RELAXED);
	int nw = starpu_bitmap_cardinal(c->workers_in_ctx);
	return sum / (nw ? nw : 1) + starpu_sched_component_estimated_load(c);
}

static void ws_deinit(struct starpu_sched_component *c)
{
	struct ws_comp *d = c->data;
	for (unsigned i = 0; i < WS_MAX_CHILDREN; i++)
		os_mutex_destroy(&d->q[i].lock);
	free(d);
}

struct starpu_sched_component *starpu_sched_component_work_stealing_create(struct starpu_sched_tree *tree, void *arg)
{
	(void) arg;
	struct starpu_sched_component *c = starpu_sched_component_create(tree, "work_stealing");
	struct ws_comp *d = calloc(1, sizeof(*d));
	if (!c || !d)
		abort();
	for (unsigned i = 0; i < WS_MAX_CHILDREN; i++)
		cq_init(&d->q[i], 1);
	d->pull_up = c->pull_task;
	c->data = d;
	c->push_task = ws_push;
	c->pull_task = ws_pull;
	c->estimated_load = ws_estimated_load;
	c->deinit_data = ws_deinit;
	return c;
}

int starpu_sched_component_is_work_stealing(struct starpu_sched_component *c)
{
	return c && c->push_task == ws_push;
}

struct starpu_sched_component *ws_comp_find(struct starpu_sched_component *root)
{
	/* Trees are shallow; the first one on a depth-first walk. */
	if (!root)
		return NULL;
	if (starpu_sched_component_is_work_stealing(root))
		return root;
	for (unsigned i = 0; i < root->nchildren; i++)
	{
		struct starpu_sched_component *f = ws_comp_find(root->children[i]);
		if (f)
			return f;
	}
	return NULL;
}

int ws_comp_push_local(struct starpu_sched_component *ws, struct starpu_task *task, int workerid)
{
	struct starpu_sched_component *leaf = starpu_sched_component_worker_get(ws->tree ? ws->tree->sched_ctx_id : 0, workerid);
	int i = child_of(ws, leaf);
	if (i < 0 || !starpu_worker_can_execute_task_first_impl((unsigned) workerid, task, NULL))
		return 1;
	store(ws, (unsigned) i, task);
	return 0;
}

int ws_comp_drain(struct starpu_sched_component *c, struct starpu_task_list *out)
{
	if (!starpu_sched_component_is_work_stealing(c))
		return 0;
	struct ws_comp *d = c->data;
	for (unsigned i = 0; i < WS_MAX_CHILDREN; i++)
		cq_drain(&d->q[i], out);
	return 1;
}
