/* access.c — a job's data: building its buffer list, and arbitrating access
 * to each handle: readers share, writers (W, RW, commuting writes) are
 * exclusive, reduction contributors share among themselves (each writes its
 * own contribution) but exclude the others; waiting requests are served in
 * arrival order.
 *
 * A job requests its handles in registration order (handle->order),
 * holding those granted while it waits for the next, so two jobs never
 * wait for each other. Handles
 * managed by an arbiter are requested first, all at once (arbiter.c): a job
 * waiting for an arbiter holds nothing.
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int is_writer(unsigned mode)
{
	return (mode & (STARPU_W | STARPU_COMMUTE)) && !(mode & STARPU_REDUX);
}

static int cmp_buffer(const void *a, const void *b)
{
	uint64_t x = ((const struct job_buffer *) a)->handle->order;
	uint64_t y = ((const struct job_buffer *) b)->handle->order;
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
		/* The runtime fills the interfaces; freed with the task's job. */
		task->dyn_interfaces = calloc(n ? n : 1, sizeof(void *));
		if (!task->dyn_interfaces)
			return -ENOMEM;
		job->owns_dyn_interfaces = 1;
	}
	job->has_arbiter = 0;
	for (unsigned i = 0; i < n; i++)
		job_buffer_init(&job->buffers[i], job, STARPU_TASK_GET_HANDLE(task, i), STARPU_TASK_GET_MODE(task, i), i);
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
		if (b->mode & DATA_MODE_NOFETCH)
		{
			b->mode &= (unsigned short) ~DATA_MODE_NOFETCH;
			b->flags |= JOB_BUFFER_NOFETCH;
		}
		/* Reading and scratch together make no sense: keep the read. */
		if ((b->mode & STARPU_SCRATCH) && (b->mode & STARPU_RW))
			b->mode &= ~STARPU_SCRATCH;
		/* A reduction mixed with another access is that access. */
		if ((b->mode & STARPU_REDUX) && (b->mode & (STARPU_RW | STARPU_SCRATCH)))
			b->mode &= ~STARPU_REDUX;
		b->seq_consistent = task->sequential_consistency && h->seq_consistency &&
			(!task->handles_sequential_consistency || task->handles_sequential_consistency[b->index]);
		if (h->arbiter)
			job->has_arbiter = 1;
	}
	job->nbuffers = m;
	job->nacquired = 0;
	job->arbiters_done = 0;
	return 0;
}

/* Caller holds h->lock. */
static int can_grant(starpu_data_handle_t h, const struct job_buffer *b)
{
	if (b->mode & STARPU_REDUX)
		return !h->busy_writer && h->busy_readers == 0;
	if (is_writer(b->mode))
		return !h->busy_writer && h->busy_readers == 0 && h->busy_redux == 0;
	return !h->busy_writer && h->busy_redux == 0;
}

static void grant(starpu_data_handle_t h, struct job_buffer *b)
{
	if (b->mode & STARPU_REDUX)
		h->busy_redux++;
	else if (is_writer(b->mode))
		h->busy_writer = 1;
	else
		h->busy_readers++;
	b->granted = 1;
}

static void ungrant(starpu_data_handle_t h, struct job_buffer *b)
{
	if (b->mode & STARPU_REDUX)
		h->busy_redux--;
	else if (is_writer(b->mode))
		h->busy_writer = 0;
	else
		h->busy_readers--;
	b->granted = 0;
}

int data_access_can_grant_locked(starpu_data_handle_t h, struct job_buffer *b)
{
	return !h->wait_head && can_grant(h, b);
}

void data_access_grant_locked(starpu_data_handle_t h, struct job_buffer *b)
{
	grant(h, b);
}

int data_access_acquire(struct job *job)
{
	if (job->has_arbiter && !job->arbiters_done)
	{
		unsigned dummy;
		if (!arbiter_acquire(job, &dummy))
			return 0;
		job->arbiters_done = 1;
	}
	while (job->nacquired < job->nbuffers)
	{
		struct job_buffer *b = &job->buffers[job->nacquired];
		if ((b->mode & STARPU_SCRATCH) || b->granted)
		{
			/* Scratch space is private; arbitered handles were
			 * granted above. */
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
	/* Arbiters to re-examine once every handle is released (a handle may
	 * be freed in the loop, so keep the arbiters, not the handles). */
	struct starpu_arbiter *arbs[8];
	unsigned narbs = 0;
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		starpu_data_handle_t h = b->handle;
		struct job_buffer *resume = NULL, *resume_tail = NULL;
		int free_handle = 0;

		os_mutex_lock(&h->lock);
		if (b->granted)
		{
			ungrant(h, b);
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
		if (h->arbiter)
		{
			unsigned k = 0;
			while (k < narbs && arbs[k] != h->arbiter)
				k++;
			if (k == narbs && narbs < sizeof(arbs) / sizeof(arbs[0]))
				arbs[narbs++] = h->arbiter;
		}
		free_handle = data_unref_locked(h);
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
	for (unsigned k = 0; k < narbs; k++)
		arbiter_release(arbs[k]);
}
