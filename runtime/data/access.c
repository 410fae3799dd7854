/* access.c — a job's data: building its buffer list, arbitrating access to
 * each handle (readers share, writers are exclusive, requests served in
 * arrival order), making the buffers valid on the worker's node, and
 * releasing everything at termination.
 *
 * A job requests its handles in address order, holding those granted while
 * it waits for the next: two jobs can therefore never wait for each other.
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int is_writer(enum starpu_data_access_mode mode)
{
	return (mode & (STARPU_W | STARPU_REDUX | STARPU_COMMUTE)) != 0;
}

static int cmp_buffer(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) ((const struct job_buffer *) a)->handle;
	uintptr_t y = (uintptr_t) ((const struct job_buffer *) b)->handle;
	if (x != y)
		return x < y ? -1 : 1;
	unsigned i = ((const struct job_buffer *) a)->index, j = ((const struct job_buffer *) b)->index;
	return i < j ? -1 : i > j;
}

static void sort_buffers(struct job_buffer *v, unsigned n)
{
	if (n > 16)
	{
		qsort(v, n, sizeof(*v), cmp_buffer);
		return;
	}
	for (unsigned i = 1; i < n; i++)
	{
		struct job_buffer x = v[i];
		unsigned j = i;
		while (j > 0 && cmp_buffer(&v[j - 1], &x) > 0)
		{
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

int data_prepare_job(struct job *job)
{
	struct starpu_task *task = job->task;
	unsigned n = STARPU_TASK_GET_NBUFFERS(task);
	if (job->buffers != job->buffers_inline)
	{
		free(job->buffers);
		job->buffers = job->buffers_inline;
	}
	if (n > JOB_INLINE_BUFFERS)
	{
		job->buffers = malloc(sizeof(*job->buffers) * n);
		if (!job->buffers)
		{
			job->buffers = job->buffers_inline;
			rt_error("starpu_task_submit: out of memory for the %u buffers of task '%s'", n, starpu_task_get_name(task));
			return -ENOMEM;
		}
	}
	if (task->dyn_handles && !task->dyn_interfaces)
	{
		/* The runtime fills the interfaces; free()d with the task's job. */
		task->dyn_interfaces = calloc(n ? n : 1, sizeof(void *));
		if (!task->dyn_interfaces)
			return -ENOMEM;
		job->owns_dyn_interfaces = 1;
	}
	for (unsigned i = 0; i < n; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		b->handle = STARPU_TASK_GET_HANDLE(task, i);
		b->mode = (unsigned short) STARPU_TASK_GET_MODE(task, i);
		b->index = (unsigned short) i;
		b->job = job;
		b->rd_prev = b->rd_next = NULL;
		b->in_readers = 0;
		b->granted = 0;
		b->wait_next = NULL;
	}
	sort_buffers(job->buffers, n);
	/* Merge repeated handles: one access with the union of the modes. */
	unsigned m = 0;
	for (unsigned i = 0; i < n; i++)
	{
		if (m && job->buffers[m - 1].handle == job->buffers[i].handle)
		{
			job->buffers[m - 1].mode |= job->buffers[i].mode;
			continue;
		}
		if (m != i)
			job->buffers[m] = job->buffers[i];
		m++;
	}
	for (unsigned i = 0; i < m; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		starpu_data_handle_t h = b->handle;
		/* Reading and scratch together make no sense: keep the read. */
		if ((b->mode & STARPU_SCRATCH) && (b->mode & STARPU_RW))
			b->mode &= ~STARPU_SCRATCH;
		b->seq_consistent = task->sequential_consistency && h->seq_consistency &&
			(!task->handles_sequential_consistency || task->handles_sequential_consistency[b->index]);
	}
	job->nbuffers = m;
	job->nacquired = 0;
	return 0;
}

/* Caller holds h->lock. */
static int can_grant(starpu_data_handle_t h, struct job_buffer *b)
{
	if (is_writer(b->mode))
		return !h->busy_writer && h->busy_readers == 0;
	return !h->busy_writer;
}

static void grant(starpu_data_handle_t h, struct job_buffer *b)
{
	if (is_writer(b->mode))
		h->busy_writer = 1;
	else
		h->busy_readers++;
	b->granted = 1;
}

int data_access_acquire(struct job *job)
{
	while (job->nacquired < job->nbuffers)
	{
		struct job_buffer *b = &job->buffers[job->nacquired];
		if (b->mode & STARPU_SCRATCH)
		{
			/* Scratch space is private to the task: nothing to share. */
			job->nacquired++;
			continue;
		}
		starpu_data_handle_t h = b->handle;
		os_mutex_lock(&h->lock);
		if (!h->wait_head && can_grant(h, b))
		{
			grant(h, b);
			os_mutex_unlock(&h->lock);
			job->nacquired++;
			continue;
		}
		b->wait_next = NULL;
		if (h->wait_tail)
			h->wait_tail->wait_next = b;
		else
			h->wait_head = b;
		h->wait_tail = b;
		os_mutex_unlock(&h->lock);
		return 0;
	}
	return 1;
}

int data_access_try_locked(starpu_data_handle_t h, struct job_buffer *b)
{
	if (h->wait_head || !can_grant(h, b))
		return 0;
	grant(h, b);
	return 1;
}

void data_release_job(struct job *job)
{
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		starpu_data_handle_t h = b->handle;
		struct job_buffer *resume = NULL, *resume_tail = NULL;
		int free_handle = 0;

		os_mutex_lock(&h->lock);
		if (b->granted)
		{
			if (is_writer(b->mode))
				h->busy_writer = 0;
			else
				h->busy_readers--;
			b->granted = 0;
			/* Serve waiting requests in order while they fit. */
			while (h->wait_head && can_grant(h, h->wait_head))
			{
				struct job_buffer *w = h->wait_head;
				h->wait_head = w->wait_next;
				if (!h->wait_head)
					h->wait_tail = NULL;
				grant(h, w);
				w->wait_next = NULL;
				if (resume_tail)
					resume_tail->wait_next = w;
				else
					resume = w;
				resume_tail = w;
			}
		}
		data_implicit_forget(b);
		if (--h->nrefs == 0)
		{
			if (h->unregister_waiting == 2)
				free_handle = 1;
			else if (h->unregister_waiting)
				os_cond_broadcast(&h->busy_cond);
		}
		os_mutex_unlock(&h->lock);

		while (resume)
		{
			struct job_buffer *next = resume->wait_next;
			struct job *rj = resume->job;
			rj->nacquired++;
			job_acquire_data_and_push(rj);
			resume = next;
		}
		if (free_handle)
			data_handle_free_deferred(h);
	}
}

/* Makes sure the replicate on node has a buffer (data registered with home
 * node -1, allocated on first use). Caller holds h->lock. */
static int ensure_allocated(starpu_data_handle_t h, unsigned node)
{
	struct data_replicate *r = &h->rep[node];
	if (r->allocated)
		return 0;
	if (!h->ops->allocate_data_on_node)
	{
		rt_error("data handle %p: its interface cannot allocate memory on node %u", (void *) h, node);
		return -ENODEV;
	}
	starpu_ssize_t got = h->ops->allocate_data_on_node(r->interface, node);
	if (got < 0)
	{
		rt_error("data handle %p: cannot allocate %zu bytes on node %u", (void *) h, starpu_data_get_size(h), node);
		return -ENOMEM;
	}
	r->allocated = 1;
	r->allocated_by_runtime = 1;
	r->state = REP_OWNER;
	return 0;
}

int data_fetch_for_job(struct job *job, unsigned node)
{
	struct starpu_task *task = job->task;
	unsigned n = STARPU_TASK_GET_NBUFFERS(task);
	void **ifaces = task->dyn_interfaces ? task->dyn_interfaces : task->interfaces;

	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		starpu_data_handle_t h = b->handle;
		if (b->mode & STARPU_SCRATCH)
		{
			/* A private buffer of the handle's shape, freed after the task. */
			if (!job->scratch && !(job->scratch = calloc(job->nbuffers, sizeof(void *))))
				return -ENOMEM;
			void *iface = malloc(h->ops->interface_size);
			if (!iface)
				return -ENOMEM;
			memcpy(iface, h->rep[node].interface, h->ops->interface_size);
			if (!h->ops->allocate_data_on_node || h->ops->allocate_data_on_node(iface, node) < 0)
			{
				free(iface);
				rt_error("task '%s': cannot allocate the scratch buffer of handle %p", starpu_task_get_name(task), (void *) h);
				return -ENOMEM;
			}
			job->scratch[i] = iface;
			continue;
		}
		if (!h->rep[node].allocated)
		{
			os_mutex_lock(&h->lock);
			int ret = ensure_allocated(h, node);
			os_mutex_unlock(&h->lock);
			if (ret)
				return ret;
		}
	}
	/* Fill the interfaces in task order; repeated handles share one. */
	for (unsigned i = 0; i < n; i++)
	{
		starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
		struct job_buffer *b;
		/* buffers[] is sorted by handle: binary search. */
		unsigned lo = 0, hi = job->nbuffers;
		while (lo < hi)
		{
			unsigned mid = (lo + hi) / 2;
			if ((uintptr_t) job->buffers[mid].handle < (uintptr_t) h)
				lo = mid + 1;
			else
				hi = mid;
		}
		b = &job->buffers[lo];
		ifaces[i] = job->scratch && job->scratch[lo] ? job->scratch[lo] : h->rep[node].interface;
		(void) b;
	}
	return 0;
}

void data_job_done_on_node(struct job *job, unsigned node)
{
	if (!job->scratch)
		return;
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		if (!job->scratch[i])
			continue;
		if (b->handle->ops->free_data_on_node)
			b->handle->ops->free_data_on_node(job->scratch[i], node);
		free(job->scratch[i]);
		job->scratch[i] = NULL;
	}
}
