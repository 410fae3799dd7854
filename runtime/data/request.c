/* request.c — prefetches: copies of data to a node ahead of need.
 *
 * A prefetch is queued on its destination node and run by a worker that
 * makes transfers progress (the "data transfer processing" step of the
 * worker cycle, drivers/driver_loop.c): regular prefetches whenever a
 * worker looks for work, idle ones only when it has none. A prefetch takes
 * a buffer only if the node has room (it never evicts), holds a reference
 * on the handle so that it cannot be unregistered meanwhile, and needs no
 * access right: if the data is written while it is copied, the copy is
 * marked stale and dropped (coherency.c).
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>
#include <stdlib.h>

struct request
{
	starpu_data_handle_t handle;
	struct request *next;
};

struct request_queue
{
	os_mutex_t lock;
	struct request *head[2], *tail[2];	/* [0] regular, [1] idle */
};

static struct request_queue queues[STARPU_MAXNODES];
static _Atomic int npending;

int data_prefetch(starpu_data_handle_t h, unsigned node, int idle)
{
	if (node >= mem_nnodes)
		return -EINVAL;
	struct request *r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	os_mutex_lock(&h->lock);
	struct data_replicate *rep = &h->rep[node];
	if (rep_valid(rep) || rep->requested || rep->transferring)
	{
		os_mutex_unlock(&h->lock);
		free(r);
		return 0;
	}
	rep->requested = 1;
	h->nrefs++;	/* unregistration waits for the prefetch */
	os_mutex_unlock(&h->lock);

	r->handle = h;
	r->next = NULL;
	struct request_queue *q = &queues[node];
	os_mutex_lock(&q->lock);
	if (q->tail[idle])
		q->tail[idle]->next = r;
	else
		q->head[idle] = r;
	q->tail[idle] = r;
	os_mutex_unlock(&q->lock);
	atomic_fetch_add(&npending, 1);
	/* An idle worker can run it. */
	if (rt.nworkers)
		worker_wake_one_idle(STARPU_NMAX_SCHED_CTXS, ~0u, 1);
	return 0;
}

static void run_request(struct request *r, unsigned node)
{
	starpu_data_handle_t h = r->handle;
	int free_handle = 0;
	os_mutex_lock(&h->lock);
	struct data_replicate *rep = &h->rep[node];
	rep->requested = 0;
	if (!rep_valid(rep) && !rep->transferring && !rep->allocating)
	{
		/* Only if there is room: a prefetch never evicts. */
		struct memory_node *n = &mem_nodes[node];
		size_t size = h->ops->get_alloc_size ? h->ops->get_alloc_size(h) : h->ops->get_size(h);
		int room = n->total < 0 || starpu_memory_get_available(node) >= (ssize_t) size;
		if (rep->allocated || room)
		{
			if (!rep->allocated && h->ops->allocate_data_on_node)
			{
				int ret = data_allocate_replicate(h, node);
				if (ret)
					goto done;
			}
			if (rep->allocated && !rep_valid(rep))
				data_transfer_locked(h, node);
		}
	}
done:
	free_handle = data_unref_locked(h);
	os_mutex_unlock(&h->lock);
	if (free_handle)
		data_handle_free_deferred(h);
	free(r);
}

int data_progress(unsigned node, int idle)
{
	if (atomic_load_explicit(&npending, memory_order_relaxed) == 0 || node >= mem_nnodes)
		return 0;
	struct request_queue *q = &queues[node];
	int ran = 0;
	for (int level = 0; level <= idle; level++)
	{
		/* A few at a time: a worker must get back to its tasks. */
		for (int k = 0; k < 4; k++)
		{
			os_mutex_lock(&q->lock);
			struct request *r = q->head[level];
			if (r)
			{
				q->head[level] = r->next;
				if (!q->head[level])
					q->tail[level] = NULL;
			}
			os_mutex_unlock(&q->lock);
			if (!r)
				break;
			atomic_fetch_sub(&npending, 1);
			run_request(r, node);
			ran++;
		}
	}
	return ran;
}

int data_progress_for_worker(unsigned node, int idle)
{
	if (atomic_load_explicit(&npending, memory_order_relaxed) == 0)
		return 0;
	int ran = data_progress(node, idle);
	/* Nodes without workers (disks) are served by the RAM workers. */
	if (mem_nodes[node].kind == STARPU_CPU_RAM)
		for (unsigned n = 0; n < mem_nnodes; n++)
			if (mem_nodes[n].kind == STARPU_DISK_RAM)
				ran += data_progress(n, idle);
	return ran;
}

void data_requests_fini(void)
{
	/* Run what is left: each request holds a reference on its handle. */
	for (unsigned node = 0; node < mem_nnodes; node++)
		while (data_progress(node, 1))
			;
}

/* ------------------------------------------------------------------ */
/* Prefetching a task's input (for scheduling policies). */

static int prefetch_task(struct starpu_task *task, unsigned node, int idle)
{
	if (!task->cl || node >= mem_nnodes)
		return node >= mem_nnodes ? -EINVAL : 0;
	unsigned n = STARPU_TASK_GET_NBUFFERS(task);
	for (unsigned i = 0; i < n; i++)
	{
		enum starpu_data_access_mode mode = STARPU_TASK_GET_MODE(task, i);
		/* Only data the task reads is worth copying ahead. */
		if (!(mode & STARPU_R) || (mode & (STARPU_SCRATCH | STARPU_REDUX)))
			continue;
		starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
		if (data_handle_valid(h))
			data_prefetch(h, node, idle);
	}
	return 0;
}

int starpu_prefetch_task_input_on_node_prio(struct starpu_task *task, unsigned node, int prio)
{
	(void) prio;
	return prefetch_task(task, node, 0);
}

int starpu_prefetch_task_input_on_node(struct starpu_task *task, unsigned node)
{
	return prefetch_task(task, node, 0);
}

int starpu_idle_prefetch_task_input_on_node_prio(struct starpu_task *task, unsigned node, int prio)
{
	(void) prio;
	return prefetch_task(task, node, 1);
}

int starpu_idle_prefetch_task_input_on_node(struct starpu_task *task, unsigned node)
{
	return prefetch_task(task, node, 1);
}

int starpu_prefetch_task_input_for_prio(struct starpu_task *task, unsigned worker, int prio)
{
	return starpu_prefetch_task_input_on_node_prio(task, starpu_worker_get_memory_node(worker), prio);
}

int starpu_prefetch_task_input_for(struct starpu_task *task, unsigned worker)
{
	return starpu_prefetch_task_input_on_node(task, starpu_worker_get_memory_node(worker));
}

int starpu_idle_prefetch_task_input_for_prio(struct starpu_task *task, unsigned worker, int prio)
{
	return starpu_idle_prefetch_task_input_on_node_prio(task, starpu_worker_get_memory_node(worker), prio);
}

int starpu_idle_prefetch_task_input_for(struct starpu_task *task, unsigned worker)
{
	return starpu_idle_prefetch_task_input_on_node(task, starpu_worker_get_memory_node(worker));
}
