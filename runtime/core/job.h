/* job.h — the runtime's side of a task, and its life cycle.
 *
 *   submit → (dependencies) → ready → (data access granted) → pushed to the
 *   policy → popped by a worker → executed → terminated
 *
 * A job counts what it still waits for in ndeps: one "not yet submitted"
 * guard, plus one per unfinished predecessor through the data (implicit
 * deps), one for its declared predecessors (deps.c, kept across
 * submissions) and one for its tag's dependencies (tags.c). When ndeps
 * drops to zero the job is ready.
 * Termination needs term_calls to drop to zero: one for the execution plus
 * one per end dependency (starpu_task_end_dep_add / declare_end_deps).
 *
 * Successors are recorded on the predecessor (succ), under its lock; the
 * predecessor releases them once it terminates. Lock order: a data handle's
 * lock before a job's lock, a tag's lock (tags.h) before a job's lock; under
 * a job's lock only deps.c's xdeps_lock (a leaf) may be taken.
 *
 * The job lives inside its task (starpu_task.vela_job), so submitting
 * allocates nothing; task->starpu_private points to it once initialised.
 */
#ifndef VELA_JOB_H
#define VELA_JOB_H

#include <starpu.h>
#include <stdatomic.h>
#include <stdint.h>
#include "os/os.h"
#include "trace/trace_times.h"

struct tag;
struct worker;
struct job_xdeps;

/* One distinct handle accessed by a job (duplicates merged), sorted by
 * handle address so that data access is always requested in one order. */
struct job_buffer
{
	starpu_data_handle_t handle;
	struct job *job;
	/* Implicit dependencies: membership in handle->readers (data/). */
	struct job_buffer *rd_prev;
	struct job_buffer *rd_next;
	/* Data access requests waiting on the handle. */
	struct job_buffer *wait_next;
	unsigned short mode;			/* enum starpu_data_access_mode, merged */
	unsigned short index;			/* first position in the task */
	unsigned char in_readers;
	unsigned char seq_consistent;		/* takes part in implicit deps */
	unsigned char granted;			/* data access held */
	unsigned char flags;			/* JOB_BUFFER_* */
};

/* The buffer orders the job (dependencies, access) but is not fetched: the
 * job handles its data itself (partitioning). */
#define JOB_BUFFER_NOFETCH 0x1

/* A buffer of job on h, in no list, not granted (seq_consistent: 0). */
static inline void job_buffer_init(struct job_buffer *b, struct job *job, starpu_data_handle_t h, unsigned mode, unsigned index)
{
	*b = (struct job_buffer) { .handle = h, .job = job, .mode = (unsigned short) mode, .index = (unsigned short) index };
}

enum job_kind
{
	JOB_TASK = 0,		/* a task to execute (or a sync point) */
	JOB_ACQUIRE		/* the application's starpu_data_acquire (data/acquire.c) */
};

/* An entry of a successor list: a job whose start (or end) waits for us,
 * in one word: the job's address, its low bit set for an end dependency
 * (jobs are pointer-aligned). A task keeps four inline. */
struct job_succ
{
	uintptr_t word;
};

static inline struct job_succ job_succ_make(struct job *job, int end_dep)
{
	return (struct job_succ) { (uintptr_t) job | (end_dep ? 1u : 0u) };
}

static inline struct job *job_succ_job(struct job_succ s)
{
	return (struct job *) (s.word & ~(uintptr_t) 1);
}

/* Releases an end dependency, not a start one. */
static inline int job_succ_end_dep(struct job_succ s)
{
	return (int) (s.word & 1u);
}

/* Buffers kept inside the job; tasks with more get a heap array. */
#define JOB_INLINE_BUFFERS 3

struct job
{
	struct starpu_task *task;	/* NULL for JOB_ACQUIRE */
	unsigned long id;

	_Atomic int ndeps;		/* see header comment */
	_Atomic int term_calls;		/* see header comment */

	/* Protected by job_lock(job). */
	unsigned char submitted;	/* from submission until it may be submitted again (see job_terminate) */
	unsigned char released;		/* successors released: no new ones */
	unsigned char terminated;	/* done, as starpu_task_wait sees it */
	unsigned char kind;		/* enum job_kind */
	/* Owned by the submitting thread, then by the worker running it. */
	unsigned char counted;		/* counted in rt.nsubmitted */
	unsigned char in_policy;	/* counted in its context's nactive (sched/policy.c) */
	unsigned char owns_dyn_interfaces;	/* task->dyn_interfaces is ours */
	unsigned char owns_dyn_handles;	/* task->dyn_handles/dyn_modes are ours */
	unsigned char dead;		/* destroyed (misuse detection) */
	unsigned char created;		/* the task comes from starpu_task_create */
	unsigned char owns_profiling_info;	/* task->profiling_info is ours (trace/) */
	/* starpu_task_data_footprint's value, computed once per submission
	 * (perfmodel/footprint.c; a scheduler asks it for every candidate
	 * worker): data_fp_state is 0 outside a submission (no caching: the
	 * application may change the handles), 1 from submission on, 2 once
	 * data_fp holds the value. Atomics only: whichever thread computes it
	 * first stores data_fp, then moves 1 to 2 (release). */
	unsigned char data_fp_state;
	/* Protected by job_lock(job): terminations between their release of
	 * the dependents and their end (callback included); the task may be
	 * submitted again meanwhile (job.c, job_terminate). */
	unsigned char ending;
	unsigned short nwaiters;	/* threads in starpu_task_wait; under job_lock */
	struct job_succ *succ;
	unsigned nsucc;
	unsigned succ_cap;
	struct job_succ succ_inline[4];

	struct tag *tag;		/* the tag the task carries (or carried last: starpu_tag_get_task) */
	/* Declared start dependencies, kept across submissions (deps.c; its
	 * lock protects what this points to). NULL: none, either way. */
	struct job_xdeps *xdeps;

	/* Data: distinct handles in registration order (handle->order). */
	unsigned nbuffers;
	unsigned nacquired;		/* access granted for buffers[0..nacquired) */
	unsigned char has_arbiter;	/* some handle is managed by an arbiter */
	unsigned char arbiters_done;	/* ...and those are granted */
	/* The combined worker (id >= starpu_worker_get_count()) whose team
	 * runs it, or 0: set by whoever queues it for one (core/combined.h),
	 * cleared at submission. (A short: it fills padding.) */
	unsigned short combined;
	uint32_t data_fp;			/* see data_fp_state */
	struct job *arbiter_next;	/* an arbiter's waiting list */
	struct job_buffer *buffers;	/* buffers_inline or a heap array */
	void **scratch;			/* STARPU_SCRATCH interfaces during execution */

	unsigned nimpl;
	unsigned sched_ctx;
	struct worker *worker;		/* the worker running/that ran it */
	short error;			/* 0, or why the last submission failed (-errno; core/failures.c) */
	/* 1 + the job's slot in the watchdog's table of unfinished tasks,
	 * 0 if none (core/watchdog.c, under its lock). */
	int wd_slot;

	/* JOB_ACQUIRE: called once access is granted. */
	void (*acquire_cb)(struct job *job);

	struct job *deferred_next;	/* rt_thread deferred list */
	/* Observers' timestamps (trace/trace.h); written by the thread doing
	 * each step, cleared at submission. */
	struct trace_job_times tt;
	struct job_buffer buffers_inline[JOB_INLINE_BUFFERS];
};

/* The job's lock and condition: striped over the jobs (taken after a data
 * handle's or a tag's lock, never with another job's; only xdeps_lock may
 * be taken under it). */
struct job_stripe
{
	os_mutex_t lock;
	os_cond_t cond;
};
#define JOB_STRIPES 256
extern struct job_stripe job_stripes[JOB_STRIPES];

static inline struct job_stripe *job_stripe_of(const struct job *job)
{
	uintptr_t a = (uintptr_t) job;
	return &job_stripes[((a >> 6) * 0x9e3779b97f4a7c15ULL) >> 56];
}

static inline os_mutex_t *job_lock(const struct job *job)
{
	return &job_stripe_of(job)->lock;
}

static inline os_cond_t *job_cond(const struct job *job)
{
	return &job_stripe_of(job)->cond;
}

/* The task's job, or NULL if it was never initialised. A task copied with
 * a plain struct copy carries a pointer to the original's job: ignored. */
static inline struct job *job_of(struct starpu_task *task)
{
	struct job *job = task->starpu_private;
	return job == (struct job *) (void *) task->vela_job.bytes ? job : NULL;
}

/* Asks the memory system for the lines of task and its job at once, a
 * hint with no effect on what the code does. A job made ready long after
 * its submission has left the caches (a simulation of 150k tasks keeps
 * them all submitted at once), and making it ready reads the task's
 * codelet and handles and the job's buffers: one miss after another
 * without it, fetched side by side with it. */
static inline void job_prefetch_task(const struct starpu_task *task)
{
	uintptr_t end = (uintptr_t) task + sizeof(*task);
	for (uintptr_t a = (uintptr_t) task & ~(uintptr_t) 63; a < end; a += 64)
		__builtin_prefetch((const void *) a, 1);
}

/* The job of task, created (and attached) if needed. */
struct job *job_get(struct starpu_task *task);
void job_init(struct job *job, struct starpu_task *task);
/* Frees what the job holds (heap arrays, its tag's reference). */
void job_fini(struct job *job);
/* Prepares a job for a submission of its task: a new one (new id; -EBUSY
 * if the task is still submitted), or, new_submission 0, the same one
 * going round again (regenerate). */
int job_reset(struct job *job, int new_submission);
/* A submission failed before the job was let go: it is not submitted. */
void job_unsubmit(struct job *job);
/* Whether the task is submitted or still terminating (its callback may
 * run): it may not be cleaned or freed yet. */
int job_in_flight(struct job *job);

/* Records that job waits for pred to terminate (start dependency) or, with
 * end_dep, that job's termination waits for pred's. Returns 1 if recorded,
 * 0 if pred had already released its successors. */
int job_add_succ(struct job *pred, struct job *job, int end_dep);

/* Declared dependencies (deps.c). At submission: the job waits for those
 * of its groups of predecessors not done yet. At termination, under the
 * job's lock: the groups waiting for it count it; the jobs that can start
 * are returned in *extra (malloc'ed, or NULL) to be let go after unlocking.
 * At job_fini: groups are dropped on both sides. */
void deps_job_submitted(struct job *job);
/* The declared predecessors job still waits for: their names into buf,
 * their number returned (the watchdog's report). */
unsigned deps_pending_names(struct job *job, char *buf, size_t size);
void deps_job_terminated_locked(struct job *job, struct job_succ **extra, unsigned *nextra);
void deps_job_fini(struct job *job);

/* One start dependency of job is satisfied (may make it ready). */
void job_dep_release(struct job *job);
/* The job's dependencies are all met. */
void job_ready(struct job *job);
/* Continues requesting data access; pushes the job once all is granted. */
void job_acquire_data_and_push(struct job *job);
/* One termination call (execution or end dep) is done. */
void job_term_release(struct job *job);

/* Fills in what a codelet leaves implicit (where, deprecated fields); done
 * once per codelet, at its first submission (task.c). */
void task_codelet_check(struct starpu_codelet *cl);

/* Whether a codelet has nothing to execute (NULL codelet, STARPU_NOWHERE). */
int job_is_noop(const struct job *job);

/* Allocates a task (starpu_task_create). */
struct starpu_task *job_alloc_task(void);
/* Frees a task created by starpu_task_create. */
void job_destroy_task(struct starpu_task *task);
/* Destroys a created task, or cleans an application-allocated one (what
 * task->destroy means for each). */
void job_release_task(struct starpu_task *task);
/* The task was destroyed (its memory is still in the recycling pool). */
int job_task_is_dead(const struct starpu_task *task);
/* bundle.c: the task leaves its bundle, if any (it is being freed, or a
 * policy placed it). */
void bundle_task_gone(struct starpu_task *task);

#endif /* VELA_JOB_H */
