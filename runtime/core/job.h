/* job.h — the runtime's side of a task, and its life cycle.
 *
 *   submit → (dependencies) → ready → (data access granted) → pushed to the
 *   policy → popped by a worker → executed → terminated
 *
 * A job counts what it still waits for in ndeps: one "not yet submitted"
 * guard, plus one per unfinished predecessor (explicit task deps, implicit
 * data deps, the task's tag). When ndeps drops to zero the job is ready.
 * Termination needs term_calls to drop to zero: one for the execution plus
 * one per end dependency (starpu_task_end_dep_add / declare_end_deps).
 *
 * Successors are recorded on the predecessor (succ), under its lock; the
 * predecessor releases them once it terminates. Lock order: a data handle's
 * lock before a job's lock; a job's lock is otherwise a leaf.
 *
 * starpu_task_create() allocates the task and its job together; tasks set up
 * with starpu_task_init() get their job on first use (task->starpu_private).
 */
#ifndef VELA_JOB_H
#define VELA_JOB_H

#include <starpu.h>
#include <stdatomic.h>
#include "os/os.h"

struct tag;
struct worker;

/* One distinct handle accessed by a job (duplicates merged), sorted by
 * handle address so that data access is always requested in one order. */
struct job_buffer
{
	starpu_data_handle_t handle;
	enum starpu_data_access_mode mode;	/* merged over duplicates */
	unsigned index;				/* first position in the task */
	struct job *job;
	/* Implicit dependencies: membership in handle->readers (data/). */
	struct job_buffer *rd_prev;
	struct job_buffer *rd_next;
	unsigned char in_readers;
	unsigned char seq_consistent;		/* takes part in implicit deps */
	unsigned char granted;			/* data access held */
	/* Data access requests waiting on the handle. */
	struct job_buffer *wait_next;
	/* STARPU_SCRATCH: the private interface given to the task, owned by
	 * the job between fetch and the end of execution. */
	void *scratch;
};

enum job_kind
{
	JOB_TASK = 0,		/* a task to execute (or a sync point) */
	JOB_ACQUIRE		/* the application's starpu_data_acquire */
};

/* An entry of a successor list: a job whose start (or end) waits for us. */
struct job_succ
{
	struct job *job;
	unsigned char end_dep;	/* releases an end dependency, not a start one */
};

struct job
{
	struct starpu_task *task;
	unsigned long id;
	enum job_kind kind;

	_Atomic int ndeps;		/* see header comment */
	_Atomic int term_calls;		/* see header comment */

	/* Protected by lock. */
	os_mutex_t lock;
	os_cond_t cond;			/* starpu_task_wait() sleeps here */
	int submitted;			/* between submit and termination */
	int released;			/* successors released: no new ones */
	int terminated;			/* done, as starpu_task_wait sees it */
	int nwaiters;
	struct job_succ *succ;
	unsigned nsucc;
	unsigned succ_cap;
	struct job_succ succ_inline[4];

	struct tag *tag;		/* the task's tag, if use_tag */
	int counted;			/* counted in rt.nsubmitted */

	/* Data: distinct handles in address order. */
	unsigned nbuffers;
	unsigned nacquired;		/* access granted for buffers[0..nacquired) */
	struct job_buffer *buffers;
	struct job_buffer buffers_inline[STARPU_NMAXBUFS];

	unsigned nimpl;
	struct worker *worker;		/* the worker running/that ran it */
	unsigned sched_ctx;
	int embedded;			/* allocated with its task by starpu_task_create */
	int owns_dyn_interfaces;	/* task->dyn_interfaces allocated by the runtime */
	int owns_dyn_handles;		/* task->dyn_handles/dyn_modes from task_insert */
	int dead;			/* destroyed (for misuse detection) */

	/* JOB_ACQUIRE: called once access is granted (data/acquire.c). */
	void (*acquire_cb)(struct job *job);
	void (*user_cb)(void *arg);	/* starpu_data_acquire_cb's callback */
	void *user_arg;
	void *acquire_sync;		/* blocking acquire: what the caller sleeps on */
	int acquire_node;
	struct job *acquire_next;	/* the handle's stack of acquisitions */

	struct job *deferred_next;	/* rt_thread deferred list */
};

static inline struct job *job_of(struct starpu_task *task)
{
	return (struct job *) task->starpu_private;
}

/* The job of task, created (and attached) if needed. */
struct job *job_get(struct starpu_task *task);
void job_init(struct job *job, struct starpu_task *task);
void job_fini(struct job *job);
/* Prepares a job for a new submission of its task. */
void job_reset(struct job *job);

/* Records that job waits for pred to terminate (start dependency) or, with
 * end_dep, that job's termination waits for pred's. Returns 1 if recorded,
 * 0 if pred had already released its successors. */
int job_add_succ(struct job *pred, struct job *job, int end_dep);

/* One start dependency of job is satisfied (may make it ready). */
void job_dep_release(struct job *job);
/* The job's dependencies are all met. */
void job_ready(struct job *job);
/* Continues requesting data access; pushes the job once all is granted. */
void job_acquire_data_and_push(struct job *job);
/* One termination call (execution or end dep) is done. */
void job_term_release(struct job *job);

/* Whether a codelet has nothing to execute (NULL codelet, STARPU_NOWHERE). */
int job_is_noop(const struct job *job);

/* Allocates a task with its job (starpu_task_create). */
struct starpu_task *job_alloc_task(void);
/* Destroys a task created by starpu_task_create (or frees the job of an
 * initialised one). */
void job_destroy_task(struct starpu_task *task);
/* The task was destroyed (its memory is still in the recycling pool). */
int job_task_is_dead(const struct starpu_task *task);

#endif /* VELA_JOB_H */
