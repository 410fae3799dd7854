/* coherency.c — keeping replicates coherent across memory nodes (MSI).
 *
 * Reading on a node needs a valid replicate there: it is copied from a valid
 * one, preferably the owner, through RAM when the two nodes cannot copy
 * directly. Writing on a node makes its replicate the owner and invalidates
 * the others (their buffers stay allocated, as clean candidates for reuse
 * or eviction). A replicate in use is pinned (refcnt) so that eviction
 * leaves it alone.
 *
 * Copies themselves, and those still in flight on devices, are
 * transfer.c's: a thread that finds a replicate transferring ends the copy
 * if it is in flight, else waits for whoever runs it (busy_cond).
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/sim_loader.h"
#include "core/workers.h"
#include "drivers/driver.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void data_invalidate_others_locked(starpu_data_handle_t h, unsigned node)
{
	for (unsigned n = 0; n < mem_nnodes; n++)
	{
		if (n == node)
			continue;
		struct data_replicate *r = data_rep(h, n);
		if (r->transferring)
			r->stale = 1;
		r->state = REP_INVALID;
	}
	data_rep(h, node)->state = REP_OWNER;
}

/* Makes the replicate on node valid (h->lock held); no pin. */
int data_make_valid_locked_nopin(starpu_data_handle_t h, unsigned node)
{
	return data_make_valid_locked_copy(h, node, 0);
}

int data_make_valid_locked_copy(starpu_data_handle_t h, unsigned node, unsigned how)
{
	struct data_replicate *r = data_rep(h, node);
	for (;;)
	{
		if (r->transferring || r->allocating)
		{
			data_wait_busy_locked(h);
			continue;
		}
		if (rep_valid(r))
			return 0;
		if (!r->allocated)
		{
			int ret = data_allocate_replicate(h, node);
			if (ret)
				return ret;
			continue;
		}
		int ret = data_transfer_locked(h, node, how);
		if (ret)
			return ret;
	}
}

/* Pins h on node for an access in mode (h->lock held). */
static int make_valid_locked(starpu_data_handle_t h, unsigned node, enum starpu_data_access_mode mode)
{
	struct data_replicate *r = data_rep(h, node);
	int ret;
	for (;;)
	{
		if (mode & STARPU_R)
			ret = data_make_valid_locked_nopin(h, node);
		else
		{
			/* Write-only: a buffer is enough, its content is
			 * overwritten. */
			ret = 0;
			while (!ret && (r->transferring || r->allocating || !r->allocated))
			{
				if (r->transferring || r->allocating)
					data_wait_busy_locked(h);
				else
					ret = data_allocate_replicate(h, node);
			}
		}
		if (ret)
			return ret;
		/* A writer waits for the copies still reading the buffer
		 * (eviction, prefetch): they would read it half written. */
		if (!(mode & (STARPU_W | STARPU_COMMUTE)) || !r->reading)
			break;
		data_wait_busy_locked(h);
	}
	if (mode & (STARPU_W | STARPU_COMMUTE))
	{
		data_invalidate_others_locked(h, node);
		r->writing++;
	}
	r->refcnt++;
	data_lru_touch(r);
	return 0;
}

int data_make_valid(starpu_data_handle_t h, unsigned node, enum starpu_data_access_mode mode)
{
	os_mutex_lock(&h->lock);
	int ret = make_valid_locked(h, node, mode);
	os_mutex_unlock(&h->lock);
	return ret;
}

/* The writer of h on node is done: copies may read it again (h->lock held). */
static void end_write_locked(starpu_data_handle_t h, unsigned node)
{
	if (!--data_rep(h, node)->writing)
		os_cond_broadcast(&h->busy_cond);
}

void data_unpin(starpu_data_handle_t h, unsigned node, enum starpu_data_access_mode mode)
{
	os_mutex_lock(&h->lock);
	struct data_replicate *r = data_rep(h, node);
	if (mode & (STARPU_W | STARPU_COMMUTE))
		end_write_locked(h, node);
	int released = --r->refcnt == 0;
	if (released)
		data_memory_releasing(node);
	os_mutex_unlock(&h->lock);
	if (released)
		data_memory_released(node);
}

/* Copies written data to the nodes of its write-through mask: the writer
 * is done, its replicate stays pinned until data_unpin. */
static void write_through(starpu_data_handle_t h, unsigned node)
{
	os_mutex_lock(&h->lock);
	end_write_locked(h, node);
	uint32_t mask = h->wt_mask;
	for (unsigned n = 0; n < mem_nnodes && mask; n++)
		if (n != node && (mask & (1u << n)))
		{
			int ret = data_make_valid_locked_nopin(h, n);
			if (ret)
				rt_warn("data %p: write-through copy to node %u failed (%d)", (void *) h, n, ret);
		}
	os_mutex_unlock(&h->lock);
}

/* Whether buffer b goes through the normal coherency path. */
static int coherent_buffer(const struct job_buffer *b)
{
	return !(b->mode & (STARPU_SCRATCH | STARPU_REDUX)) && !(b->flags & JOB_BUFFER_NOFETCH);
}

int data_job_pins(struct job *job, unsigned n, starpu_data_handle_t h)
{
	for (unsigned i = 0; i < n; i++)
		if (job->buffers[i].handle == h && coherent_buffer(&job->buffers[i]))
			return 1;
	return 0;
}

/* Lets go of what buffers[0..n) hold (pins, scratch space), so that other
 * tasks can use the memory while this one waits or gives up. */
static void unpin_first(struct job *job, unsigned n, unsigned node)
{
	for (unsigned i = 0; i < n; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		if (coherent_buffer(b))
			data_unpin(b->handle, node, (enum starpu_data_access_mode) b->mode);
		else if ((b->mode & STARPU_REDUX) && job->scratch && job->scratch[i])
		{
			/* At rest while we wait: may go to the swap disk, and
			 * comes back when we start over. */
			data_redux_release(b->handle, job->worker ? job->worker->id : 0);
			job->scratch[i] = NULL;
		}
		else if ((b->mode & STARPU_SCRATCH) && job->scratch && job->scratch[i])
		{
			data_free_private(b->handle, job->scratch[i], node);
			free(job->scratch[i]);
			job->scratch[i] = NULL;
		}
	}
}

/* Whether all of job's buffers can be on node at once (else waiting for
 * memory would be endless): 0, or -ENOMEM with a message. */
static int job_fits(struct job *job, unsigned node)
{
	ssize_t total = mem_nodes[node].total;
	if (total < 0)
		return 0;
	size_t need = 0;
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		if (b->flags & JOB_BUFFER_NOFETCH)
			continue;
		starpu_data_handle_t h = b->handle;
		os_mutex_lock(&h->lock);
		struct data_replicate *r = data_rep(h, node);
		/* Application buffers and views do not count. */
		int counted = (b->mode & (STARPU_SCRATCH | STARPU_REDUX)) || !r->allocated || r->allocated_by_runtime;
		os_mutex_unlock(&h->lock);
		size_t size = counted ? starpu_data_get_alloc_size(h) : 0;
		if ((ssize_t) size > total)
			return 0;	/* the allocation says that this datum can never fit */
		need += size;
	}
	if ((ssize_t) need <= total)
		return 0;
	rt_error("task '%s' needs %zu bytes of data on memory node %u (%s) at once, more than its %zd (-ENOMEM)",
		 starpu_task_get_name(job->task), need, node, mem_nodes[node].name, total);
	return -ENOMEM;
}

/* The private buffer of a SCRATCH buffer (of the handle's shape, freed
 * after the task) or of a REDUX one (the worker's contribution, kept with
 * the handle until reduced). 0 and *iface set, or a negative errno. */
static int private_buffer(struct job *job, struct job_buffer *b, unsigned node, void **iface)
{
	starpu_data_handle_t h = b->handle;
	int ret;
	if (b->mode & STARPU_REDUX)
		ret = data_redux_contribution(h, job->worker ? job->worker->id : 0, node, iface);
	else if (!(*iface = malloc(h->ops->interface_size)))
		ret = -ENOMEM;
	else
	{
		memcpy(*iface, data_rep(h, node)->interface, h->ops->interface_size);
		if ((ret = data_allocate_private(h, *iface, node)))
		{
			free(*iface);
			*iface = NULL;
		}
	}
	if (ret && ret != -EAGAIN)
		rt_error("task '%s': cannot allocate the %s buffer of handle %p (%d)", starpu_task_get_name(job->task),
			 b->mode & STARPU_REDUX ? "reduction" : "scratch", (void *) h, ret);
	return ret;
}

/* turn: set once the job holds node's waiting turn (given back by the
 * caller). */
static int fetch(struct job *job, unsigned node, int *turn)
{
	struct starpu_task *task = job->task;
	unsigned n = STARPU_TASK_GET_NBUFFERS(task);
	void **ifaces = task->dyn_interfaces ? task->dyn_interfaces : task->interfaces;
	/* Under a memory limit, a task whose data cannot be there at once is
	 * told so first (rather than which of its data found no room). */
	int ret0;
	if (mem_nodes[node].total >= 0 && (ret0 = job_fits(job, node)))
		return ret0;

	/* A device queues the copies of every input at once: they overlap one
	 * another and the kernels still running there. */
	if (mem_copy_queues(STARPU_MAIN_RAM, node))
		for (unsigned i = 0; i < job->nbuffers; i++)
		{
			struct job_buffer *b = &job->buffers[i];
			if (coherent_buffer(b) && (b->mode & STARPU_R))
				data_start_copy(b->handle, node);
		}

restart:
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		int ret;
		if (b->mode & (STARPU_SCRATCH | STARPU_REDUX))
		{
			if (!job->scratch && !(job->scratch = calloc(job->nbuffers, sizeof(void *))))
				return -ENOMEM;
			if (job->scratch[i])
				continue;
			ret = private_buffer(job, b, node, &job->scratch[i]);
		}
		else if (b->flags & JOB_BUFFER_NOFETCH)
			continue;
		else
		{
			/* Simulation: behind the prefetches already started, as
			 * on a device's copy stream (request.c). */
			if (b->mode & STARPU_R)
				data_requests_wait_started(b->handle, node);
			struct rt_thread *t = rt_thread();
			t->fetching = job;
			t->fetching_npinned = i;
			ret = data_make_valid(b->handle, node, (enum starpu_data_access_mode) b->mode);
			t->fetching = NULL;
		}
		if (ret == -EAGAIN && !(ret = job_fits(job, node)))
		{
			/* The node is full of pinned data: let go of ours so that
			 * other tasks can finish, wait, and start over. */
			unpin_first(job, i, node);
			/* A device worker's tasks in flight and the copies into
			 * the node hold memory only ending them gives back. */
			if (job->worker)
				drv_pipeline_drain(job->worker);
			data_xfer_progress(node, 1);
			/* One waiting task at a time (data.h, the waiting turn):
			 * a newcomer first waits for its turn, pinning nothing,
			 * then tries again at once. */
			if (*turn)
				data_wait_memory(node);
			else
			{
				data_memory_turn_take(node);
				*turn = 1;
			}
			goto restart;
		}
		if (ret)
		{
			unpin_first(job, i, node);
			return ret;
		}
	}
	/* Fill the interfaces in task order; repeated handles share one. */
	for (unsigned i = 0; i < n; i++)
	{
		starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
		/* buffers[] is sorted by registration number: binary search. */
		unsigned lo = 0, hi = job->nbuffers;
		while (lo < hi)
		{
			unsigned mid = (lo + hi) / 2;
			if (job->buffers[mid].handle->order < h->order)
				lo = mid + 1;
			else
				hi = mid;
		}
		ifaces[i] = job->scratch && job->scratch[lo] ? job->scratch[lo] : data_rep(h, node)->interface;
	}
	return 0;
}

int data_fetch_for_job(struct job *job, unsigned node)
{
	int turn = 0;
	int ret = fetch(job, node, &turn);
	if (turn)
		data_memory_turn_give(node);
	return ret;
}

void data_job_done_on_node(struct job *job, unsigned node)
{
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		starpu_data_handle_t h = b->handle;
		if (b->mode & STARPU_SCRATCH)
		{
			if (job->scratch && job->scratch[i])
			{
				data_free_private(h, job->scratch[i], node);
				free(job->scratch[i]);
				job->scratch[i] = NULL;
			}
			continue;
		}
		if (b->mode & STARPU_REDUX)
		{
			/* The contribution stays with the handle until reduced,
			 * at rest until this worker's next REDUX task. */
			if (job->scratch && job->scratch[i])
			{
				data_redux_release(h, job->worker ? job->worker->id : 0);
				job->scratch[i] = NULL;
			}
			continue;
		}
		if (b->flags & JOB_BUFFER_NOFETCH)
			continue;
		enum starpu_data_access_mode mode = (enum starpu_data_access_mode) b->mode;
		if ((mode & STARPU_W) && h->wt_mask)
		{
			write_through(h, node);	/* ends the write */
			mode = STARPU_R;
		}
		data_unpin(h, node, mode);
	}
}

int data_write_back_home(starpu_data_handle_t h)
{
	if (h->home_node < 0)
		return 0;
	os_mutex_lock(&h->lock);
	int ret = 0;
	struct data_replicate *home = data_rep(h, (unsigned) h->home_node);
	if (home->allocated && !rep_valid(home))
		ret = data_make_valid_locked_nopin(h, (unsigned) h->home_node);
	os_mutex_unlock(&h->lock);
	return ret;
}
