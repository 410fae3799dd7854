/* fifo.c — the flow-control components: fifo (arrival order) and prio
 * (highest priority first). They are reservoirs: a push stores the task
 * and tells the children work is there (can_pull); a pull hands the first
 * task the requester can run. With a threshold they refuse pushes when
 * full, and after each pull they ask their parents for more (can_push):
 * that is how a reservoir above keeps them filled, a few tasks ahead of
 * their workers. A bounded queue in front of a single worker also prefetches
 * the input of each task it accepts.
 */
#include "sched/component/component_internal.h"

#include <stdlib.h>

struct fifo_comp
{
	struct comp_queue q;
	unsigned ntasks_threshold;
	double exp_len_threshold;
	int ready;
	/* The generic pull (from the parents), used when the queue is empty. */
	struct starpu_task *(*pull_up)(struct starpu_sched_component *, struct starpu_sched_component *);
};

static int bounded(const struct fifo_comp *d)
{
	return d->ntasks_threshold > 0 || d->exp_len_threshold > 0.0;
}

static void putback(struct comp_queue *q, struct starpu_task *t)
{
	os_mutex_lock(&q->lock);
	if (!q->by_prio)
		starpu_task_list_push_front(&q->list, t);
	else
	{
		struct starpu_task *u = starpu_task_list_front(&q->list);
		while (u && u->priority > t->priority)
			u = u->next;
		if (!u)
			starpu_task_list_push_back(&q->list, t);
		else if (!u->prev)
			starpu_task_list_push_front(&q->list, t);
		else
		{
			t->next = u;
			t->prev = u->prev;
			u->prev->next = t;
			u->prev = t;
		}
	}
	cq_count(q, 1, comp_task_len(t));
	os_mutex_unlock(&q->lock);
}

static int fifo_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	struct fifo_comp *d = c->data;
	double len = comp_task_len(task);
	os_mutex_lock(&d->q.lock);
	if (d->q.ntasks > 0 &&
	    ((d->ntasks_threshold && (unsigned) d->q.ntasks >= d->ntasks_threshold) ||
	     (d->exp_len_threshold > 0.0 && d->q.exp_len + len > d->exp_len_threshold)))
	{
		os_mutex_unlock(&d->q.lock);
		return 1;
	}
	cq_count(&d->q, 1, len);	/* the slot is ours from now on */
	int prefetch_for = -1;
	if (bounded(d) && starpu_bitmap_cardinal(c->workers) == 1)
		prefetch_for = starpu_bitmap_first(c->workers);
	if (prefetch_for >= 0)
	{
		/* Not queued yet, so still ours: no lock held while the data
		 * layer works. */
		os_mutex_unlock(&d->q.lock);
		starpu_prefetch_task_input_for(task, (unsigned) prefetch_for);
		os_mutex_lock(&d->q.lock);
	}
	cq_insert(&d->q, task);
	os_mutex_unlock(&d->q.lock);
	/* task may be running already: only the queue is ours now. */
	if (c->can_pull)
		c->can_pull(c);
	return 0;
}

static int prio_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	return fifo_push(c, task);
}

static struct starpu_task *fifo_pull(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	struct fifo_comp *d = c->data;
	os_mutex_lock(&d->q.lock);
	struct starpu_task *t = cq_take_for(&d->q, to, 0);
	os_mutex_unlock(&d->q.lock);
	if (!t)
		t = d->pull_up(c, to);
	if (bounded(d))
		starpu_sched_component_send_can_push_to_parents(c);
	return t;
}

/* The pump: send stored tasks to the child that has room, until it is
 * full again. */
static int fifo_can_push(struct starpu_sched_component *c, struct starpu_sched_component *child)
{
	struct fifo_comp *d = c->data;
	int moved = 0;
	for (;;)
	{
		os_mutex_lock(&d->q.lock);
		struct starpu_task *t = cq_take_for(&d->q, child, 0);
		os_mutex_unlock(&d->q.lock);
		if (!t)
			break;
		if (child->push_task(child, t))
		{
			putback(&d->q, t);
			return moved;
		}
		moved = 1;
	}
	if (!moved)
		moved = starpu_sched_component_send_can_push_to_parents(c);
	return moved;
}

static double fifo_estimated_end(struct starpu_sched_component *c)
{
	struct fifo_comp *d = c->data;
	return starpu_sched_component_estimated_end_min_add(c, load_d(&d->q.exp_len));
}

static double fifo_estimated_load(struct starpu_sched_component *c)
{
	struct fifo_comp *d = c->data;
	int n = starpu_bitmap_cardinal(c->workers_in_ctx);
	double own = __atomic_load_n(&d->q.ntasks, __ATOMIC_RELAXED);
	return own / (n ? n : 1) + starpu_sched_component_estimated_load(c);
}

static void fifo_deinit(struct starpu_sched_component *c)
{
	struct fifo_comp *d = c->data;
	os_mutex_destroy(&d->q.lock);
	free(d);
}

static struct starpu_sched_component *create(struct starpu_sched_tree *tree, const char *name, int by_prio,
					     unsigned ntasks_threshold, double exp_len_threshold, int ready)
{
	struct starpu_sched_component *c = starpu_sched_component_create(tree, name);
	struct fifo_comp *d = calloc(1, sizeof(*d));
	if (!c || !d)
		abort();
	cq_init(&d->q, by_prio);
	d->ntasks_threshold = ntasks_threshold;
	d->exp_len_threshold = exp_len_threshold;
	d->ready = ready;
	d->pull_up = c->pull_task;
	c->data = d;
	c->push_task = by_prio ? prio_push : fifo_push;
	c->pull_task = fifo_pull;
	c->can_push = fifo_can_push;
	c->estimated_end = fifo_estimated_end;
	c->estimated_load = fifo_estimated_load;
	c->deinit_data = fifo_deinit;
	return c;
}

struct starpu_sched_component *starpu_sched_component_fifo_create(struct starpu_sched_tree *tree, struct starpu_sched_component_fifo_data *p)
{
	return create(tree, "fifo", 0, p ? p->ntasks_threshold : 0, p ? p->exp_len_threshold : 0.0, p ? p->ready : 0);
}

struct starpu_sched_component *starpu_sched_component_prio_create(struct starpu_sched_tree *tree, struct starpu_sched_component_prio_data *p)
{
	return create(tree, "prio", 1, p ? p->ntasks_threshold : 0, p ? p->exp_len_threshold : 0.0, p ? p->ready : 0);
}

int starpu_sched_component_is_fifo(struct starpu_sched_component *c)
{
	return c && c->push_task == fifo_push;
}

int starpu_sched_component_is_prio(struct starpu_sched_component *c)
{
	return c && c->push_task == prio_push;
}

int fifo_comp_drain(struct starpu_sched_component *c, struct starpu_task_list *out)
{
	if (!starpu_sched_component_is_fifo(c) && !starpu_sched_component_is_prio(c))
		return 0;
	cq_drain(&((struct fifo_comp *) c->data)->q, out);
	return 1;
}
