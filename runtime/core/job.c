/* job.c — the life cycle of a job: dependencies, readiness, data access,
 * push, termination. See job.h for the counters and the lock order.
 */
#include "core/job.h"
#include "core/sched_ctx.h"
#include "core/rt.h"
#include "core/tags.h"
#include "core/task_pool.h"
#include "core/workers.h"
#include "data/data.h"
#include "sched/sched.h"
#include "trace/trace.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct job_stripe job_stripes[JOB_STRIPES];

_Static_assert(sizeof(struct job) <= VELA_TASK_JOB_STORAGE, "struct job does not fit in starpu_task.vela_job");

void job_init(struct job *job, struct starpu_task *task)
{
	/* The inline buffers are filled on submission; skip clearing them. */
	memset(job, 0, offsetof(struct job, buffers_inline));
	job->task = task;
	job->kind = JOB_TASK;
	atomic_store_explicit(&job->ndeps, 1, memory_order_relaxed);	/* not yet submitted */
	atomic_store_explicit(&job->term_calls, 1, memory_order_relaxed);
	job->succ = job->succ_inline;
	job->succ_cap = sizeof(job->succ_inline) / sizeof(job->succ_inline[0]);
	job->buffers = job->buffers_inline;
	job->sched_ctx = STARPU_NMAX_SCHED_CTXS;
}

void job_fini(struct job *job)
{
	trace_on_job_fini(job);	/* observers: free the profiling record they allocated */
	if (job->task && job->task->bundle)
		bundle_task_gone(job->task);
	tag_job_forget(job);
	deps_job_fini(job);
	if (job->owns_dyn_interfaces && job->task)
	{
		free(job->task->dyn_interfaces);
		job->task->dyn_interfaces = NULL;
		job->owns_dyn_interfaces = 0;
	}
	if (job->owns_dyn_handles && job->task)
	{
		free(job->task->dyn_handles);
		free(job->task->dyn_modes);
		job->task->dyn_handles = NULL;
		job->task->dyn_modes = NULL;
		job->owns_dyn_handles = 0;
	}
	if (job->succ != job->succ_inline)
		free(job->succ);
	if (job->buffers != job->buffers_inline)
		free(job->buffers);
	free(job->scratch);
	job->succ = job->succ_inline;
	job->buffers = job->buffers_inline;
	job->scratch = NULL;
}

struct job *job_get(struct starpu_task *task)
{
	struct job *job = job_of(task);
	if (job)
		return job;
	job = (struct job *) (void *) task->vela_job.bytes;
	job_init(job, task);
	task->starpu_private = job;
	return job;
}

int job_reset(struct job *job, int new_submission)
{
	unsigned long id = new_submission ? atomic_fetch_add_explicit(&rt.next_job_id, 1, memory_order_relaxed) + 1 : 0;
	os_mutex_lock(job_lock(job));
	if (new_submission && job->submitted)
	{
		os_mutex_unlock(job_lock(job));
		return -EBUSY;
	}
	job->submitted = 1;
	job->released = 0;
	job->terminated = 0;
	if (new_submission)
		job->id = id;
	os_mutex_unlock(job_lock(job));
	job->nacquired = 0;
	job->worker = NULL;
	job->error = 0;
	job->combined = 0;
	__atomic_store_n(&job->data_fp_state, 1, __ATOMIC_RELAXED);	/* footprint: compute again, then keep */
	return 0;
}

void job_unsubmit(struct job *job)
{
	os_mutex_lock(job_lock(job));
	job->submitted = 0;
	os_mutex_unlock(job_lock(job));
}

int job_in_flight(struct job *job)
{
	os_mutex_lock(job_lock(job));
	int busy = job->submitted || job->ending;
	os_mutex_unlock(job_lock(job));
	return busy;
}

int job_add_succ(struct job *pred, struct job *job, int end_dep)
{
	/* Observers: a DAG edge, even when pred is already done (the
	 * dependency is part of the graph whether or not it made job wait). */
	trace_on_dep(pred, job, end_dep);
	os_mutex_t *lock = job_lock(pred);
	os_mutex_lock(lock);
	if (pred->released)
	{
		os_mutex_unlock(lock);
		return 0;
	}
	if (pred->nsucc == pred->succ_cap)
	{
		unsigned cap = pred->succ_cap * 2;
		struct job_succ *s = malloc(sizeof(*s) * cap);
		if (!s)
		{
			os_mutex_unlock(lock);
			rt_error("out of memory recording a dependency on job %lu", pred->id);
			abort();
		}
		memcpy(s, pred->succ, sizeof(*s) * pred->nsucc);
		if (pred->succ != pred->succ_inline)
			free(pred->succ);
		pred->succ = s;
		pred->succ_cap = cap;
	}
	pred->succ[pred->nsucc] = job_succ_make(job, end_dep);
	pred->nsucc++;
	os_mutex_unlock(lock);
	return 1;
}

void job_dep_release(struct job *job)
{
	if (atomic_fetch_sub_explicit(&job->ndeps, 1, memory_order_acq_rel) == 1)
		job_ready(job);
}

int job_is_noop(const struct job *job)
{
	const struct starpu_codelet *cl = job->task->cl;
	return job->kind == JOB_TASK && (!cl || cl->where == STARPU_NOWHERE);
}

/* Jobs with nothing to execute terminate in the thread that made them
 * ready. Doing it through a per-thread list instead of a direct call keeps
 * a chain of a million sync points from growing the stack. */
static void job_run_noop(struct job *job)
{
	struct rt_thread *t = rt_thread();
	job->deferred_next = NULL;
	if (t->deferred_tail)
		t->deferred_tail->deferred_next = job;
	else
		t->deferred_head = job;
	t->deferred_tail = job;
	if (t->draining)
		return;
	t->draining = 1;
	struct job *j;
	while ((j = t->deferred_head))
	{
		t->deferred_head = j->deferred_next;
		if (!t->deferred_head)
			t->deferred_tail = NULL;
		j->task->status = STARPU_TASK_RUNNING;
		/* As in StarPU, the pop prologue runs for tasks that go
		 * through no worker too. */
		if (j->kind == JOB_TASK && j->task->prologue_callback_pop_func)
		{
			int was = t->in_callback;
			t->in_callback = 1;
			j->task->prologue_callback_pop_func(j->task->prologue_callback_pop_arg);
			t->in_callback = was;
		}
		job_term_release(j);
	}
	t->draining = 0;
}

/* The job holds access to all its data. */
static void job_granted(struct job *job)
{
	if (job->kind == JOB_ACQUIRE)
	{
		job->acquire_cb(job);
		return;
	}
	if (job_is_noop(job))
		job_run_noop(job);
	else
		sched_push_job(job);
}

void job_acquire_data_and_push(struct job *job)
{
	if (data_access_acquire(job))
		job_granted(job);
}

void job_ready(struct job *job)
{
	struct starpu_task *task = job->task;
	if (job->kind == JOB_TASK)
	{
		job_prefetch_task(task);
		task->status = STARPU_TASK_READY;
		atomic_fetch_add_explicit(&rt.nready, 1, memory_order_relaxed);
		if (task->prologue_callback_func)
		{
			struct rt_thread *t = rt_thread();
			int was = t->in_callback;
			t->in_callback = 1;
			task->prologue_callback_func(task->prologue_callback_arg);
			t->in_callback = was;
		}
	}
	job_acquire_data_and_push(job);
}

/* Runs a task's callback, read before the task could be submitted again;
 * returns trace_stamp()'s value before it (0: not observed, or none). */
static uint64_t run_callback(struct starpu_task *task, void (*cb)(void *), void *arg)
{
	if (!cb)
		return 0;
	struct rt_thread *t = rt_thread();
	struct starpu_task *was_task = t->current_task;
	int was_cb = t->in_callback;
	t->current_task = task;
	t->in_callback = 1;
	uint64_t t0 = trace_stamp();
	cb(arg);
	t->in_callback = was_cb;
	t->current_task = was_task;
	return t0;
}

/* The successors a terminating job releases, taken off it under its lock
 * (the inline ones copied: once the job may be submitted again, new
 * successors fill its inline array). */
struct succ_batch
{
	struct job_succ *succ;
	unsigned n;
	struct job_succ *extra;		/* declared successors (deps.c), malloc'ed */
	unsigned nextra;
	struct job_succ small[sizeof(((struct job *) 0)->succ_inline) / sizeof(struct job_succ)];
};

/* Caller holds job_lock(job): no successor can be added from now on. */
static void take_successors_locked(struct job *job, struct succ_batch *b)
{
	deps_job_terminated_locked(job, &b->extra, &b->nextra);
	job->released = 1;
	b->n = job->nsucc;
	job->nsucc = 0;
	if (job->succ == job->succ_inline)
	{
		memcpy(b->small, job->succ_inline, sizeof(*b->small) * b->n);
		b->succ = b->small;
	}
	else
	{
		b->succ = job->succ;
		job->succ = job->succ_inline;
		job->succ_cap = sizeof(job->succ_inline) / sizeof(job->succ_inline[0]);
	}
}

static void release_batch(struct succ_batch *b)
{
	/* The successors' counters, asked for together (job_prefetch_task). */
	for (unsigned i = 0; i < b->n; i++)
		__builtin_prefetch(&job_succ_job(b->succ[i])->ndeps, 1);
	for (unsigned i = 0; i < b->n; i++)
	{
		if (job_succ_end_dep(b->succ[i]))
			job_term_release(job_succ_job(b->succ[i]));
		else
			job_dep_release(job_succ_job(b->succ[i]));
	}
	if (b->succ != b->small)
		free(b->succ);
	for (unsigned i = 0; i < b->nextra; i++)
		job_dep_release(job_succ_job(b->extra[i]));
	free(b->extra);
}

/* A regenerated task goes through submission again without leaving the
 * submitted count, so that starpu_task_wait_for_all keeps waiting for it. */
static void job_resubmit(struct job *job)
{
	struct starpu_task *task = job->task;
	job_reset(job, 0);	/* the same submission goes on: same id */
	atomic_store_explicit(&job->term_calls, 1, memory_order_relaxed);
	atomic_store_explicit(&job->ndeps, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&rt.nready, 1, memory_order_relaxed);
	task->status = STARPU_TASK_BLOCKED;
	if (watchdog_enabled() && job->counted)
		watchdog_track(job);
	if (data_prepare_job(job))
	{
		rt_error("regenerated task '%s' could not be resubmitted", starpu_task_get_name(task));
		return;
	}
	if (__atomic_load_n(&job->tag, __ATOMIC_ACQUIRE))
		tag_job_restart(job);
	deps_job_submitted(job);
	data_implicit_deps(job);
	job_dep_release(job);
}

/* Caller holds job_lock(job): this submission is over as far as
 * submitting again goes. The counters start afresh for the next one. */
static void job_close_locked(struct job *job)
{
	job->submitted = 0;
	job->ending++;
	job->counted = 0;
	atomic_store_explicit(&job->term_calls, 1, memory_order_relaxed);
	atomic_store_explicit(&job->ndeps, 1, memory_order_relaxed);
	/* The application may change the task's handles from now on. */
	__atomic_store_n(&job->data_fp_state, 0, __ATOMIC_RELAXED);
}

/* The step of a termination after which the task may be submitted again
 * (job locked): no successor can be added any more, and unless the task is
 * regenerated, the job is closed. */
struct end_step
{
	int regenerate;
	struct succ_batch succ;
};

static void end_step_locked(struct job *job, void *arg)
{
	struct end_step *step = arg;
	take_successors_locked(job, &step->succ);
	if (!step->regenerate)
		job_close_locked(job);
}

/* Termination, in StarPU's order: the data is released, then the task's
 * tag and its successors, then the callback runs; the task counts as done
 * (starpu_task_wait, starpu_task_wait_for_all) once the callback returned.
 *
 * As in StarPU, the task may be submitted again as soon as its dependents
 * may run: from its own callback, from a successor's, or by a thread that
 * waited for its tag. So the job is "closed" (submitted cleared, counters
 * reset) before the tag and the successors are released, and everything
 * the rest of the termination needs is read before: the new submission
 * owns the job. Several terminations may overlap that way (job->ending
 * counts them); each one ends its own submission (the counters), the
 * last submission's sets terminated, and the last one out may free the
 * task. A regenerated task is not closed: the runtime submits it again
 * after the callback, unless the callback cleared task->regenerate. */
static void job_terminate(struct job *job)
{
	struct starpu_task *task = job->task;

	if (job->kind == JOB_ACQUIRE)
	{
		/* The application released its acquisition (data/acquire.c owns
		 * the memory). */
		data_release_job(job);
		struct succ_batch b;
		os_mutex_lock(job_lock(job));
		take_successors_locked(job, &b);
		os_mutex_unlock(job_lock(job));
		release_batch(&b);
		job_fini(job);
		data_acquire_free(job);
		return;
	}

	data_release_job(job);
	trace_on_terminate(job);	/* observers: the task is done (its callback comes after) */
	task->status = STARPU_TASK_FINISHED;
	if (watchdog_enabled() && job->counted)
		watchdog_untrack(job);

	/* What this submission's end needs, read while the job is still its. */
	unsigned long id = job->id;
	int counted = job->counted;
	unsigned ctx_id = job->sched_ctx;
	struct tag *tag = task->use_tag ? __atomic_load_n(&job->tag, __ATOMIC_ACQUIRE) : NULL;
	int regenerate = task->regenerate;
	void (*cb)(void *) = task->callback_func;
	if (!cb && task->cl)
		cb = task->cl->callback_func;
	void *cb_arg = task->callback_arg;
	struct end_step step = { .regenerate = regenerate };
	if (tag)
		tag_job_done(tag, job, end_step_locked, &step);	/* the tag is done once the job is closed */
	else
	{
		os_mutex_lock(job_lock(job));
		end_step_locked(job, &step);
		os_mutex_unlock(job_lock(job));
	}
	release_batch(&step.succ);
	uint64_t t0 = run_callback(task, cb, cb_arg);
	uint64_t t1 = t0 ? trace_now() : 0;

	if (regenerate)
	{
		if (task->regenerate)
		{
			trace_on_callback_times(task->profiling_info, t0, t1);
			trace_on_callback(id, t0, t1);
			job_resubmit(job);
			return;
		}
		/* The callback stopped the regeneration: this is the end. */
		os_mutex_lock(job_lock(job));
		job_close_locked(job);
		os_mutex_unlock(job_lock(job));
	}

	os_mutex_lock(job_lock(job));
	job->ending--;
	int mine = job->id == id && !job->submitted;	/* not submitted again meanwhile */
	if (mine)
	{
		trace_on_callback_times(task->profiling_info, t0, t1);
		job->terminated = 1;
	}
	/* From the moment the last termination is out, a waiter may free a
	 * task that is not detached: touch nothing of it afterwards. */
	int last = job->ending == 0;
	int destroy_now = last && job->terminated && !job->submitted && task->detach && task->destroy;
	if (last && job->nwaiters)
		os_cond_broadcast(job_cond(job));
	os_mutex_unlock(job_lock(job));

	trace_on_callback(id, t0, t1);
	if (destroy_now)
		job_release_task(task);
	if (counted)
	{
		sched_ctx_job_terminated(ctx_id);
		rt_task_counters_done(1);
	}
}

void job_term_release(struct job *job)
{
	if (atomic_fetch_sub_explicit(&job->term_calls, 1, memory_order_acq_rel) == 1)
		job_terminate(job);
}

/* ------------------------------------------------------------------ */
/* Tasks from starpu_task_create(), their memory from task_pool.c. A
 * destroyed task's magic is dead: a task used after its destruction is
 * usually caught (the pool keeps freed tasks a while before reuse). */

#define TASK_DEAD_MAGIC 0x0dead

struct starpu_task *job_alloc_task(void)
{
	struct starpu_task *task = task_pool_get();
	if (!task)
		return NULL;
	starpu_task_init(task);
	job_get(task)->created = 1;
	return task;
}

static void free_task_args(struct starpu_task *task)
{
	if (task->cl_arg_free)
		free(task->cl_arg);
	if (task->callback_arg_free)
		free(task->callback_arg);
	if (task->prologue_callback_arg_free)
		free(task->prologue_callback_arg);
	if (task->prologue_callback_pop_arg_free)
		free(task->prologue_callback_pop_arg);
	task->cl_arg = NULL;
	task->callback_arg = NULL;
	task->prologue_callback_arg = NULL;
	task->prologue_callback_pop_arg = NULL;
}

void job_destroy_task(struct starpu_task *task)
{
	struct job *job = job_of(task);
	free_task_args(task);
	if (job)
	{
		job_fini(job);
		job->dead = 1;
	}
	/* As in StarPU, a created task owns the dyn_* arrays it was given. */
	free(task->dyn_handles);
	free(task->dyn_modes);
	task->dyn_handles = NULL;
	task->dyn_modes = NULL;
	task->magic = TASK_DEAD_MAGIC;
	task_pool_put(task);
}

int job_task_is_dead(const struct starpu_task *task)
{
	return task->magic == TASK_DEAD_MAGIC;
}

void job_release_task(struct starpu_task *task)
{
	struct job *job = job_of(task);
	if (job && job->created)
		job_destroy_task(task);
	else if (job)
	{
		/* An application-allocated task: free what we hold, leave the
		 * memory to its owner. */
		free_task_args(task);
		job_fini(job);
		task->starpu_private = NULL;
	}
}

