/* arbiter.c — arbiters: all-or-nothing access to a set of handles.
 *
 * Handles assigned to an arbiter (starpu_data_assign_arbiter) are granted
 * to a job all at once, or not at all: a job never holds some of them while
 * waiting for the others. Typical use: tasks that commute on several
 * handles (e.g. contributions to overlapping regions) can then run in any
 * order without one holding a handle another needs.
 *
 * A job asks for its arbitered handles before any other (access.c), so a
 * job waiting for an arbiter holds nothing; that keeps the combination of
 * arbiters and ordinary handles free of deadlock. Each arbiter keeps its
 * waiting jobs in arrival order. Lock order: an arbiter's lock, then the
 * handles' locks.
 */
#include "data/data.h"
#include "core/job.h"
#include "core/rt.h"

#include <stdlib.h>

struct starpu_arbiter
{
	os_mutex_t lock;
	struct job *wait_head, *wait_tail;	/* jobs waiting, in order */
	unsigned nhandles;			/* handles assigned (checked at destroy) */
};

starpu_arbiter_t starpu_arbiter_create(void)
{
	struct starpu_arbiter *a = calloc(1, sizeof(*a));
	if (!a)
	{
		rt_error("starpu_arbiter_create: out of memory");
		return NULL;
	}
	os_mutex_init(&a->lock);
	return a;
}

void starpu_data_assign_arbiter(starpu_data_handle_t handle, starpu_arbiter_t arbiter)
{
	struct starpu_arbiter *a = arbiter;
	if (!data_handle_valid(handle) || !a)
	{
		rt_error("starpu_data_assign_arbiter: %s is invalid", a ? "handle" : "arbiter");
		return;
	}
	os_mutex_lock(&a->lock);
	os_mutex_lock(&handle->lock);
	if (handle->nrefs || handle->acquisitions)
		rt_error("starpu_data_assign_arbiter: handle %p is in use; assign arbiters before submitting tasks on it", (void *) handle);
	else if (handle->arbiter)
		rt_error("starpu_data_assign_arbiter: handle %p already has an arbiter", (void *) handle);
	else
	{
		handle->arbiter = a;
		a->nhandles++;
	}
	os_mutex_unlock(&handle->lock);
	os_mutex_unlock(&a->lock);
}

void starpu_arbiter_destroy(starpu_arbiter_t arbiter)
{
	struct starpu_arbiter *a = arbiter;
	if (!a)
		return;
	os_mutex_lock(&a->lock);
	int busy = a->nhandles != 0 || a->wait_head != NULL;
	os_mutex_unlock(&a->lock);
	if (busy)
	{
		rt_error("starpu_arbiter_destroy: %u handle(s) still use this arbiter; unregister them first", a->nhandles);
		return;
	}
	os_mutex_destroy(&a->lock);
	free(a);
}

void arbiter_forget_handle(starpu_data_handle_t h)
{
	struct starpu_arbiter *a = h->arbiter;
	if (!a)
		return;
	os_mutex_lock(&a->lock);
	a->nhandles--;
	os_mutex_unlock(&a->lock);
	h->arbiter = NULL;
}

/* Grants job every buffer it has under a, if all fit now (a->lock held). */
static int try_grant_all(struct starpu_arbiter *a, struct job *job)
{
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		if (b->handle->arbiter != a || b->granted || (b->mode & STARPU_SCRATCH))
			continue;
		os_mutex_lock(&b->handle->lock);
		int ok = data_access_can_grant_locked(b->handle, b);
		os_mutex_unlock(&b->handle->lock);
		if (!ok)
			return 0;
	}
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		if (b->handle->arbiter != a || b->granted || (b->mode & STARPU_SCRATCH))
			continue;
		os_mutex_lock(&b->handle->lock);
		data_access_grant_locked(b->handle, b);
		os_mutex_unlock(&b->handle->lock);
	}
	return 1;
}

int arbiter_acquire(struct job *job, unsigned *nbuffers_done)
{
	(void) nbuffers_done;
	/* Each arbiter the job uses, in address order (arbiters, unlike
	 * handles, have no registration number; the order only has to be the
	 * same for every job): find them and take the smallest not done. */
	for (;;)
	{
		struct starpu_arbiter *next = NULL;
		for (unsigned i = 0; i < job->nbuffers; i++)
		{
			struct job_buffer *b = &job->buffers[i];
			struct starpu_arbiter *a = b->handle->arbiter;
			if (a && !b->granted && !(b->mode & STARPU_SCRATCH) && (!next || (uintptr_t) a < (uintptr_t) next))
				next = a;
		}
		if (!next)
			return 1;
		os_mutex_lock(&next->lock);
		if (!try_grant_all(next, job))
		{
			job->arbiter_next = NULL;
			if (next->wait_tail)
				next->wait_tail->arbiter_next = job;
			else
				next->wait_head = job;
			next->wait_tail = job;
			os_mutex_unlock(&next->lock);
			return 0;
		}
		os_mutex_unlock(&next->lock);
	}
}

void arbiter_release(struct starpu_arbiter *a)
{
	struct job *resume = NULL, **tail = &resume;
	os_mutex_lock(&a->lock);
	/* Serve waiting jobs in order, each that fits now: jobs on disjoint
	 * handles proceed in parallel. */
	struct job **pp = &a->wait_head, *prev = NULL;
	while (*pp)
	{
		struct job *j = *pp;
		if (!try_grant_all(a, j))
		{
			prev = j;
			pp = &j->arbiter_next;
			continue;
		}
		*pp = j->arbiter_next;
		if (a->wait_tail == j)
			a->wait_tail = prev;
		j->arbiter_next = NULL;
		*tail = j;
		tail = &j->arbiter_next;
	}
	os_mutex_unlock(&a->lock);
	while (resume)
	{
		struct job *next = resume->arbiter_next;
		resume->arbiter_next = NULL;
		/* Continue: other arbiters, then the ordinary handles. */
		job_acquire_data_and_push(resume);
		resume = next;
	}
}
