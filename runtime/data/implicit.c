/* implicit.c — implicit dependencies from sequential consistency.
 *
 * For each handle we remember the last job that wrote it and the readers
 * submitted since. A new job
 *   - reading the handle depends on the last writer and joins the readers;
 *   - writing it (W, RW, and for now REDUX and COMMUTE, which serialising
 *     in submission order satisfies) depends on the readers since the last
 *     writer, or on that writer if there were none, and becomes the writer.
 * SCRATCH accesses carry no dependency. A terminating job removes itself
 * (data_implicit_forget), so the handle never points to a finished job.
 */
#include "data/data.h"
#include "core/job.h"
#include "core/rt.h"

/* Records that job starts after pred (lock order: handle, then job). */
static void add_dep(struct job *job, struct job *pred)
{
	if (pred == job)
		return;
	atomic_fetch_add_explicit(&job->ndeps, 1, memory_order_relaxed);
	if (!job_add_succ(pred, job, 0))
		atomic_fetch_sub_explicit(&job->ndeps, 1, memory_order_relaxed);
}

static void readers_unlink(starpu_data_handle_t h, struct job_buffer *b)
{
	if (b->rd_prev)
		b->rd_prev->rd_next = b->rd_next;
	else
		h->readers = b->rd_next;
	if (b->rd_next)
		b->rd_next->rd_prev = b->rd_prev;
	b->rd_prev = b->rd_next = NULL;
	b->in_readers = 0;
}

/* Caller holds h->lock. */
static void implicit_deps_locked(starpu_data_handle_t h, struct job_buffer *b)
{
	struct job *job = b->job;
	enum starpu_data_access_mode mode = b->mode;
	if (mode & STARPU_SCRATCH)
		return;
	if (!(mode & (STARPU_W | STARPU_REDUX | STARPU_COMMUTE)))
	{
		if (h->last_writer)
			add_dep(job, h->last_writer);
		b->rd_prev = NULL;
		b->rd_next = h->readers;
		if (h->readers)
			h->readers->rd_prev = b;
		h->readers = b;
		b->in_readers = 1;
		return;
	}
	if (h->readers)
	{
		while (h->readers)
		{
			struct job_buffer *r = h->readers;
			add_dep(job, r->job);
			readers_unlink(h, r);
		}
	}
	else if (h->last_writer)
		add_dep(job, h->last_writer);
	h->last_writer = job;
}

void data_implicit_deps(struct job *job)
{
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		starpu_data_handle_t h = b->handle;
		os_mutex_lock(&h->lock);
		h->nrefs++;
		if (b->seq_consistent)
			implicit_deps_locked(h, b);
		os_mutex_unlock(&h->lock);
	}
}

/* Caller holds b->handle->lock. */
void data_implicit_forget(struct job_buffer *b)
{
	starpu_data_handle_t h = b->handle;
	if (b->in_readers)
		readers_unlink(h, b);
	if (h->last_writer == b->job)
		h->last_writer = NULL;
}

/* Whether a new access in mode would depend on nothing (for the try
 * variant of acquire). Caller holds h->lock. */
int data_implicit_would_wait(starpu_data_handle_t h, enum starpu_data_access_mode mode)
{
	if (!h->seq_consistency)
		return 0;
	if (h->last_writer)
		return 1;
	return (mode & STARPU_W) && h->readers != NULL;
}

/* Registers b as if data_implicit_deps ran, when it is known that it has no
 * predecessor. Caller holds h->lock. */
void data_implicit_register_locked(struct job_buffer *b)
{
	starpu_data_handle_t h = b->handle;
	h->nrefs++;
	if (b->seq_consistent)
		implicit_deps_locked(h, b);
}
