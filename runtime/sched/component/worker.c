/* worker.c — the worker leaves of a tree. One leaf per (context, worker),
 * found again with starpu_sched_component_worker_get. A leaf keeps a small
 * queue for tasks a decision component mapped straight to it; the worker's
 * pop takes from it first, then pulls from the leaf's parents. can_pull
 * wakes the worker. The pre/post exec hooks keep the leaf's estimate of
 * when its worker is free, which estimated_end (mct, heft) reads.
 */
#include "sched/component/component_internal.h"
#include "core/workers.h"

#include <stdio.h>
#include <stdlib.h>

struct worker_comp
{
	struct comp_queue q;
	int workerid;
	unsigned ctx;
	double busy_until;	/* µs; end of the running task's prediction */
};

/* Leaves by context and worker; under leaves_lock. */
static struct starpu_sched_component *leaves[STARPU_NMAX_SCHED_CTXS][STARPU_NMAXWORKERS];
static os_mutex_t leaves_lock;

static int worker_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	struct worker_comp *d = c->data;
	os_mutex_lock(&d->q.lock);
	cq_insert(&d->q, task);
	cq_count(&d->q, 1, comp_task_len(task));
	os_mutex_unlock(&d->q.lock);
	worker_wake(worker_get(d->workerid));
	return 0;
}

static struct starpu_task *worker_pull(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	(void) to;
	struct worker_comp *d = c->data;
	struct starpu_task *t = NULL;
	if (__atomic_load_n(&d->q.ntasks, __ATOMIC_RELAXED))
	{
		os_mutex_lock(&d->q.lock);
		t = cq_take_for(&d->q, NULL, 0);
		os_mutex_unlock(&d->q.lock);
	}
	for (unsigned i = 0; !t && i < c->nparents; i++)
	{
		struct starpu_sched_component *p = c->parents[i];
		if (p->pull_task)
			t = p->pull_task(p, c);
	}
	return t;
}

static int worker_can_pull(struct starpu_sched_component *c)
{
	struct worker_comp *d = c->data;
	if (c->tree && !starpu_bitmap_get(c->tree->workers, d->workerid))
		return 0;
	return worker_wake(worker_get(d->workerid));
}

static int worker_can_push(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	(void) c; (void) to;
	return 0;
}

static double worker_estimated_end(struct starpu_sched_component *c)
{
	struct worker_comp *d = c->data;
	double now = starpu_timing_now();
	double busy = load_d(&d->busy_until);
	return (busy > now ? busy : now) + load_d(&d->q.exp_len);
}

static double worker_estimated_load(struct starpu_sched_component *c)
{
	struct worker_comp *d = c->data;
	return __atomic_load_n(&d->q.ntasks, __ATOMIC_RELAXED);
}

static void worker_deinit(struct starpu_sched_component *c)
{
	struct worker_comp *d = c->data;
	os_mutex_lock(&leaves_lock);
	if (leaves[d->ctx][d->workerid] == c)
		leaves[d->ctx][d->workerid] = NULL;
	os_mutex_unlock(&leaves_lock);
	os_mutex_destroy(&d->q.lock);
	free(d);
}

struct starpu_sched_component *starpu_sched_component_worker_get(unsigned sched_ctx, int workerid)
{
	if (sched_ctx >= STARPU_NMAX_SCHED_CTXS || workerid < 0 || workerid >= STARPU_NMAXWORKERS ||
	    (unsigned) workerid >= starpu_worker_get_count())
		return NULL;
	os_mutex_lock(&leaves_lock);
	struct starpu_sched_component *c = leaves[sched_ctx][workerid];
	if (!c)
	{
		char name[32];
		snprintf(name, sizeof(name), "worker %d", workerid);
		c = starpu_sched_component_create(NULL, name);
		struct worker_comp *d = calloc(1, sizeof(*d));
		if (!c || !d)
			abort();
		cq_init(&d->q, 1);
		d->workerid = workerid;
		d->ctx = sched_ctx;
		c->data = d;
		c->push_task = worker_push;
		c->pull_task = worker_pull;
		c->can_pull = worker_can_pull;
		c->can_push = worker_can_push;
		c->estimated_end = worker_estimated_end;
		c->estimated_load = worker_estimated_load;
		c->deinit_data = worker_deinit;
		starpu_bitmap_set(c->workers, workerid);
		starpu_bitmap_set(c->workers_in_ctx, workerid);
		c->properties = STARPU_SCHED_COMPONENT_HOMOGENEOUS | STARPU_SCHED_COMPONENT_SINGLE_MEMORY_NODE;
		leaves[sched_ctx][workerid] = c;
	}
	os_mutex_unlock(&leaves_lock);
	return c;
}

struct starpu_sched_component *starpu_sched_component_worker_new(unsigned sched_ctx, int workerid)
{
	return starpu_sched_component_worker_get(sched_ctx, workerid);
}

int starpu_sched_component_is_worker(struct starpu_sched_component *c)
{
	return c && c->push_task == worker_push;
}

int starpu_sched_component_is_simple_worker(struct starpu_sched_component *c)
{
	return starpu_sched_component_is_worker(c);
}

int starpu_sched_component_is_combined_worker(struct starpu_sched_component *c)
{
	(void) c;
	return 0;
}

int starpu_sched_component_worker_get_workerid(struct starpu_sched_component *c)
{
	return worker_comp_id(c);
}

int worker_comp_id(struct starpu_sched_component *c)
{
	return starpu_sched_component_is_worker(c) ? ((struct worker_comp *) c->data)->workerid : -1;
}

int worker_comp_drain(struct starpu_sched_component *c, struct starpu_task_list *out)
{
	if (!starpu_sched_component_is_worker(c))
		return 0;
	cq_drain(&((struct worker_comp *) c->data)->q, out);
	return 1;
}

static struct worker_comp *self_leaf(unsigned ctx)
{
	int w = starpu_worker_get_id();
	if (w < 0 || ctx >= STARPU_NMAX_SCHED_CTXS)
		return NULL;
	struct starpu_sched_component *c = __atomic_load_n(&leaves[ctx][w], __ATOMIC_ACQUIRE);
	return c ? c->data : NULL;
}

void starpu_sched_component_worker_pre_exec_hook(struct starpu_task *task, unsigned sched_ctx_id)
{
	struct worker_comp *d = self_leaf(sched_ctx_id);
	if (d)
		store_d(&d->busy_until, starpu_timing_now() + comp_task_len(task));
}

void starpu_sched_component_worker_post_exec_hook(struct starpu_task *task, unsigned sched_ctx_id)
{
	(void) task;
	struct worker_comp *d = self_leaf(sched_ctx_id);
	if (d)
		store_d(&d->busy_until, 0.0);
}
