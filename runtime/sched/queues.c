/* queues.c — FIFO and priority task queues for the built-in policies
 * (see queues.h). */
#include "sched/queues.h"
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void *sched_zalloc_aligned(size_t size)
{
	size = (size + 63) & ~(size_t) 63;
	void *p = aligned_alloc(64, size);
	if (p)
		memset(p, 0, size);
	return p;
}

void fifo_init(struct task_fifo *q)
{
	os_mutex_init(&q->lock);
	starpu_task_list_init(&q->list);
	atomic_store(&q->ntasks, 0);
}

void fifo_destroy(struct task_fifo *q)
{
	os_mutex_destroy(&q->lock);
}

void fifo_push_back(struct task_fifo *q, struct starpu_task *task)
{
	os_mutex_lock(&q->lock);
	starpu_task_list_push_back(&q->list, task);
	atomic_fetch_add_explicit(&q->ntasks, 1, memory_order_relaxed);
	os_mutex_unlock(&q->lock);
}

void fifo_push_front(struct task_fifo *q, struct starpu_task *task)
{
	os_mutex_lock(&q->lock);
	starpu_task_list_push_front(&q->list, task);
	atomic_fetch_add_explicit(&q->ntasks, 1, memory_order_relaxed);
	os_mutex_unlock(&q->lock);
}

struct starpu_task *fifo_pop_front(struct task_fifo *q)
{
	if (fifo_ntasks(q) == 0)
		return NULL;
	os_mutex_lock(&q->lock);
	struct starpu_task *t = starpu_task_list_pop_front(&q->list);
	if (t)
		atomic_fetch_sub_explicit(&q->ntasks, 1, memory_order_relaxed);
	os_mutex_unlock(&q->lock);
	return t;
}

struct starpu_task *fifo_pop_back(struct task_fifo *q)
{
	if (fifo_ntasks(q) == 0)
		return NULL;
	os_mutex_lock(&q->lock);
	struct starpu_task *t = starpu_task_list_pop_back(&q->list);
	if (t)
		atomic_fetch_sub_explicit(&q->ntasks, 1, memory_order_relaxed);
	os_mutex_unlock(&q->lock);
	return t;
}

struct starpu_task *fifo_pop_for_worker(struct task_fifo *q, int workerid, int from_back)
{
	if (fifo_ntasks(q) == 0)
		return NULL;
	os_mutex_lock(&q->lock);
	struct starpu_task *t = from_back ? q->list.tail : q->list.head;
	while (t && !starpu_worker_can_execute_task_first_impl((unsigned) workerid, t, NULL))
		t = from_back ? t->prev : t->next;
	if (t)
	{
		starpu_task_list_erase(&q->list, t);
		atomic_fetch_sub_explicit(&q->ntasks, 1, memory_order_relaxed);
	}
	os_mutex_unlock(&q->lock);
	return t;
}

/* ------------------------------------------------------------------ */
/* Priority queue: levels sorted by decreasing priority, created on demand
 * (policies declare the whole int range, so levels cannot be preallocated).
 * Empty levels are dropped, keeping the array as short as the number of
 * priorities in use. */

struct prio_level
{
	int prio;
	struct starpu_task_list list;
};

void prioq_init(struct task_prioq *q)
{
	os_mutex_init(&q->lock);
	q->nlevels = 0;
	q->cap = 0;
	q->levels = NULL;
	atomic_store(&q->ntasks, 0);
}

void prioq_destroy(struct task_prioq *q)
{
	free(q->levels);
	q->levels = NULL;
	os_mutex_destroy(&q->lock);
}

/* Caller holds q->lock. Index of the level with priority prio, created if
 * missing; -1 if memory runs out. */
static int level_index(struct task_prioq *q, int prio)
{
	struct prio_level *lv = q->levels;
	int lo = 0, hi = q->nlevels;
	while (lo < hi)
	{
		int mid = (lo + hi) / 2;
		if (lv[mid].prio == prio)
			return mid;
		if (lv[mid].prio > prio)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Insert at lo. */
	if (q->nlevels == q->cap)
	{
		int cap = q->cap ? q->cap * 2 : 4;
		struct prio_level *n = realloc(lv, sizeof(*n) * (size_t) cap);
		if (!n)
			return -1;
		lv = n;
		q->levels = n;
		q->cap = cap;
	}
	memmove(&lv[lo + 1], &lv[lo], sizeof(*lv) * (size_t) (q->nlevels - lo));
	lv[lo].prio = prio;
	starpu_task_list_init(&lv[lo].list);
	q->nlevels++;
	return lo;
}

void prioq_push(struct task_prioq *q, struct starpu_task *task)
{
	os_mutex_lock(&q->lock);
	int i = level_index(q, task->priority);
	if (i < 0)
	{
		os_mutex_unlock(&q->lock);
		rt_error("out of memory queueing task '%s'", starpu_task_get_name(task));
		abort();
	}
	struct prio_level *lv = q->levels;
	starpu_task_list_push_back(&lv[i].list, task);
	atomic_fetch_add_explicit(&q->ntasks, 1, memory_order_relaxed);
	os_mutex_unlock(&q->lock);
}

struct starpu_task *prioq_pop_for_worker(struct task_prioq *q, int workerid)
{
	if (prioq_ntasks(q) == 0)
		return NULL;
	os_mutex_lock(&q->lock);
	struct prio_level *lv = q->levels;
	struct starpu_task *found = NULL;
	for (int i = 0; i < q->nlevels && !found; i++)
	{
		for (struct starpu_task *t = lv[i].list.head; t; t = t->next)
			if (starpu_worker_can_execute_task_first_impl((unsigned) workerid, t, NULL))
			{
				found = t;
				starpu_task_list_erase(&lv[i].list, t);
				if (starpu_task_list_empty(&lv[i].list))
				{
					memmove(&lv[i], &lv[i + 1], sizeof(*lv) * (size_t) (q->nlevels - i - 1));
					q->nlevels--;
				}
				break;
			}
	}
	if (found)
		atomic_fetch_sub_explicit(&q->ntasks, 1, memory_order_relaxed);
	os_mutex_unlock(&q->lock);
	return found;
}

/* ------------------------------------------------------------------ */
/* Tasks stranded on workers that left a context. */

void sched_rebalance_orphans(unsigned ctx, void *policy_data, const struct worker_queues_ops *ops)
{
	int *ids;
	unsigned n = starpu_sched_ctx_get_workers_list_raw(ctx, &ids);
	if (n == 0)
		return;
	unsigned next = 0;
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
	{
		void *q = ops->queue(policy_data, (int) w);
		if (ops->ntasks(q) == 0 || starpu_sched_ctx_contains_worker((int) w, ctx))
			continue;
		/* Deal the tasks out; stop after a round where nobody took one. */
		unsigned idle_rounds = 0;
		while (ops->ntasks(q) && idle_rounds < n)
		{
			int to = ids[next++ % n];
			struct starpu_task *t = ops->pop_for(q, to);
			if (!t)
			{
				idle_rounds++;
				continue;
			}
			idle_rounds = 0;
			ops->push(ops->queue(policy_data, to), t);
			worker_wake(worker_get(to));
		}
	}
}
