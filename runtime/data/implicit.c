/* implicit.c — implicit dependencies from sequential consistency.
 *
 * For each handle we remember the last job that wrote it, the readers
 * submitted since, and an open "group" of accesses that may run in any
 * order among themselves. A new job
 *   - reading the handle depends on the last writer and joins the readers;
 *   - writing it depends on the readers since the last writer, or on that
 *     writer if there were none, and becomes the writer;
 *   - commuting (W|COMMUTE) or reducing (REDUX) joins the group of its
 *     kind: it depends on what came before the group (like a writer), but
 *     not on the other members. The first access that is not part of the
 *     group closes it: a synchronisation job depending on every member (for
 *     a reduction, the job folding the contributions) becomes the writer.
 * SCRATCH accesses carry no dependency. A terminating job removes itself
 * (data_implicit_forget), so the handle never points to a finished job.
 *
 * Recording (trace/) wants the whole graph, edges to tasks that finished
 * before their successor was submitted included: while a trace is
 * recorded, a terminating task leaves its id behind as a "ghost" (the last
 * writer, or one of the readers since), and a new access reports the
 * edges it would have had to ghosts (trace_on_ghost_dep) without waiting.
 */
#include "data/data.h"
#include "core/job.h"
#include "core/sched_ctx.h"
#include "core/rt.h"
#include "perfmodel/bound.h"
#include "trace/trace.h"

#include <stdlib.h>

/* Whether terminated jobs leave ghosts: for the trace's graph, and for
 * starpu_bound's with deps (the graph must not depend on timing). */
static int ghosts_wanted(void)
{
	return trace_recording() || bound_deps_recording();
}

/* job would have waited for the terminated job ghost. */
static void ghost_dep(uint64_t ghost, struct job *job)
{
	trace_on_ghost_dep(ghost, job);
	bound_on_dep((unsigned long) ghost, job->id);
}

/* Records that job starts after pred (lock order: handle, then job). */
static void add_dep(struct job *job, struct job *pred)
{
	if (pred == job)
		return;
	bound_on_dep(pred->id, job->id);
	atomic_fetch_add_explicit(&job->ndeps, 1, memory_order_relaxed);
	if (!job_add_succ(pred, job, 0))
		atomic_fetch_sub_explicit(&job->ndeps, 1, memory_order_relaxed);
}

static void list_unlink(struct job_buffer **head, struct job_buffer *b)
{
	if (b->rd_prev)
		b->rd_prev->rd_next = b->rd_next;
	else
		*head = b->rd_next;
	if (b->rd_next)
		b->rd_next->rd_prev = b->rd_prev;
	b->rd_prev = b->rd_next = NULL;
	b->in_readers = 0;
}

static void list_push(struct job_buffer **head, struct job_buffer *b, unsigned char where)
{
	b->rd_prev = NULL;
	b->rd_next = *head;
	if (*head)
		(*head)->rd_prev = b;
	*head = b;
	b->in_readers = where;
}

/* in_readers tells which list a buffer is in. */
#define IN_READERS 1
#define IN_GROUP 2

/* Ghosts (recording only; see the header comment). */
static void ghost_clear(starpu_data_handle_t h)
{
	h->ghost_writer = 0;
	h->nghost_readers = 0;
}

static void ghost_add_reader(starpu_data_handle_t h, struct job *job)
{
	if (h->nghost_readers == h->capghost_readers)
	{
		unsigned cap = h->capghost_readers ? h->capghost_readers * 2 : 8;
		uint64_t *p = realloc(h->ghost_readers, cap * sizeof(*p));
		if (!p)
			return;	/* the recorded graph misses an edge, nothing else */
		h->ghost_readers = p;
		h->capghost_readers = cap;
	}
	h->ghost_readers[h->nghost_readers++] = job->id;
}

/* What a writer (or the first member of a group) waits for. */
static void depend_like_writer(starpu_data_handle_t h, struct job *job)
{
	if (h->readers)
		for (struct job_buffer *r = h->readers; r; r = r->rd_next)
			add_dep(job, r->job);
	else if (h->last_writer)
		add_dep(job, h->last_writer);
	if (!ghosts_wanted())
		return;
	/* The readers since the last writer cover it, finished or not. */
	for (unsigned i = 0; i < h->nghost_readers; i++)
		ghost_dep(h->ghost_readers[i], job);
	if (!h->readers && !h->nghost_readers && !h->last_writer && h->ghost_writer)
		ghost_dep(h->ghost_writer, job);
}

struct job *data_internal_job_locked(starpu_data_handle_t h, struct starpu_task *t, unsigned mode, unsigned char flags)
{
	t->detach = 1;
	t->destroy = 1;
	t->sched_ctx = 0;
	struct job *job = job_get(t);
	job_reset(job, 1);	/* a fresh task: it cannot be submitted already */
	job->sched_ctx = 0;
	job->nbuffers = 1;
	struct job_buffer *b = &job->buffers[0];
	job_buffer_init(b, job, h, mode, 0);
	b->seq_consistent = 1;
	b->flags = flags;
	job->counted = 1;
	atomic_fetch_add_explicit(&rt.nsubmitted, 1, memory_order_relaxed);
	sched_ctx_job_submitted(job);
	h->nrefs++;
	return job;
}

/* A job with no code ordering the accesses after a commute group. */
static struct job *sync_job_locked(starpu_data_handle_t h)
{
	struct starpu_task *t = job_alloc_task();
	if (!t)
	{
		rt_error("out of memory closing a commute group on handle %p", (void *) h);
		abort();
	}
	t->cl = NULL;
	t->name = "commute_sync";
	return data_internal_job_locked(h, t, STARPU_W, JOB_BUFFER_NOFETCH);
}

/* Closes the open group (h->lock held): a job depending on every member
 * becomes the last writer. Returns that job: the caller lets it go (its
 * submission guard) after unlocking. */
static struct job *close_group_locked(starpu_data_handle_t h)
{
	struct job *closer = h->group == GROUP_REDUX ? data_redux_job_locked(h) : sync_job_locked(h);
	while (h->group_members)
	{
		struct job_buffer *m = h->group_members;
		add_dep(closer, m->job);
		list_unlink(&h->group_members, m);
	}
	/* The members covered the readers before them. */
	while (h->readers)
		list_unlink(&h->readers, h->readers);
	h->last_writer = closer;
	ghost_clear(h);
	h->group = GROUP_NONE;
	return closer;
}

static enum group_kind group_of(unsigned mode)
{
	if (mode & STARPU_REDUX)
		return GROUP_REDUX;
	if ((mode & STARPU_COMMUTE) && (mode & STARPU_W))
		return GROUP_COMMUTE;
	return GROUP_NONE;
}

/* Caller holds h->lock. Returns a group closer to release, or NULL. */
static struct job *implicit_deps_locked(starpu_data_handle_t h, struct job_buffer *b)
{
	struct job *job = b->job;
	unsigned mode = b->mode;
	struct job *closer = NULL;
	if (mode & STARPU_SCRATCH)
		return NULL;
	enum group_kind kind = group_of(mode);
	if (h->group != GROUP_NONE && h->group != kind)
		closer = close_group_locked(h);
	if (kind != GROUP_NONE)
	{
		/* Members wait for what came before the group, not for each
		 * other (readers and last writer are kept while it is open). */
		depend_like_writer(h, job);
		h->group = kind;
		list_push(&h->group_members, b, IN_GROUP);
		return closer;
	}
	if (!(mode & STARPU_W))
	{
		if (h->last_writer)
			add_dep(job, h->last_writer);
		else if (h->ghost_writer && ghosts_wanted())
			ghost_dep(h->ghost_writer, job);
		list_push(&h->readers, b, IN_READERS);
		return closer;
	}
	depend_like_writer(h, job);
	while (h->readers)
		list_unlink(&h->readers, h->readers);
	h->last_writer = job;
	ghost_clear(h);
	return closer;
}

/* A writer defines the data, in submission order (h->lock held). */
static void note_access_locked(starpu_data_handle_t h, unsigned mode)
{
	if ((mode & STARPU_W) && !(mode & (STARPU_REDUX | STARPU_SCRATCH)))
		h->seq_undefined = 0;
}

void data_implicit_deps(struct job *job)
{
	struct job *closers[8];
	unsigned nclosers = 0;
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		starpu_data_handle_t h = b->handle;
		os_mutex_lock(&h->lock);
		h->nrefs++;
		struct job *closer = b->seq_consistent ? implicit_deps_locked(h, b) : NULL;
		note_access_locked(h, b->mode);
		os_mutex_unlock(&h->lock);
		if (closer)
		{
			if (nclosers < sizeof(closers) / sizeof(closers[0]))
				closers[nclosers++] = closer;
			else
				job_dep_release(closer);
		}
	}
	/* Closers may run as soon as their guard goes: after the loop, so
	 * that this job is already recorded behind them. */
	for (unsigned i = 0; i < nclosers; i++)
		job_dep_release(closers[i]);
}

/* Caller holds b->handle->lock. */
void data_implicit_forget(struct job_buffer *b)
{
	starpu_data_handle_t h = b->handle;
	/* Only tasks are in the recorded graph; an acquisition leaves no
	 * ghost (nor the one before it: it cleared them as a writer). */
	int ghost = b->job->kind == JOB_TASK && ghosts_wanted();
	if (b->in_readers == IN_READERS)
	{
		list_unlink(&h->readers, b);
		if (ghost)
			ghost_add_reader(h, b->job);
	}
	else if (b->in_readers == IN_GROUP)
		list_unlink(&h->group_members, b);
	if (h->last_writer == b->job)
	{
		h->last_writer = NULL;
		h->ghost_writer = ghost ? b->job->id : 0;
	}
	if (!h->group_members && h->group == GROUP_COMMUTE)
		h->group = GROUP_NONE;
}

int data_implicit_would_wait(starpu_data_handle_t h, enum starpu_data_access_mode mode)
{
	if (!h->seq_consistency)
		return 0;
	if (h->last_writer || h->group != GROUP_NONE)
		return 1;
	return (mode & STARPU_W) && h->readers != NULL;
}

void data_implicit_register_locked(struct job_buffer *b)
{
	starpu_data_handle_t h = b->handle;
	h->nrefs++;
	if (b->seq_consistent)
	{
		struct job *closer = implicit_deps_locked(h, b);
		/* would_wait() said there was no open group. */
		if (closer)
			job_dep_release(closer);
	}
	note_access_locked(h, b->mode);
}

void data_implicit_free(starpu_data_handle_t h)
{
	free(h->ghost_readers);
	h->ghost_readers = NULL;
	h->nghost_readers = h->capghost_readers = 0;
}
