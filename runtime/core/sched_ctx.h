/* sched_ctx.h — scheduling contexts, runtime side.
 *
 * A context binds a set of workers to one policy instance. The runtime
 * starts with the global context (id 0) holding every worker; the
 * application creates, resizes and deletes others (starpu_sched_ctx.h).
 * How membership changes while workers run is described at the top of
 * sched_ctx.c.
 *
 * Locks, outermost first:
 *   sched_ctx_change_mutex (sched_ctx.c) serialises every membership
 *     change, creation and deletion, and each worker's sched_ctxs[] list;
 *   ctx->rwlock: read by every push into the context's policy, written
 *     while the worker set, collection and policy membership change;
 *   a worker's sched_mutex (workers.h);
 *   queue locks inside policies, ctx->parked_mutex: leaves.
 * A thread holding a sched_mutex takes no context lock (seed 000).
 */
#ifndef VELA_SCHED_CTX_H
#define VELA_SCHED_CTX_H

#include <starpu.h>
#include <stdatomic.h>
#include "os/os.h"

#define GLOBAL_SCHED_CTX 0

struct job;

struct sched_ctx
{
	unsigned id;
	/* Written under sched_ctx_change_mutex; read without it by submission. */
	_Atomic int in_use;
	/* Set once deletion has started: pushes go to redirect instead. */
	_Atomic int deleting;
	unsigned redirect;
	char name[64];
	struct starpu_sched_policy *policy;
	/* The application's configuration callback for the policy
	 * (conf.sched_policy_init, STARPU_SCHED_CTX_POLICY_INIT), or NULL;
	 * policies that take one (heteroprio) call it from init_sched. */
	void (*policy_init)(unsigned);
	void *policy_data;
	void *user_data;
	/* Created by the policy in init_sched, or by the runtime. */
	struct starpu_worker_collection *workers;
	int collection_by_runtime;
	int min_prio, max_prio;
	int min_prio_set, max_prio_set;
	unsigned inheritor;		/* STARPU_NMAX_SCHED_CTXS: none */
	unsigned nesting;		/* parent context, or STARPU_NMAX_SCHED_CTXS */
	unsigned hierarchy_level;
	int awake_workers;
	int finished_submit;
	void (*close_callback)(unsigned, void *);
	void *close_args;
	/* Readers: pushes into the policy; writer: membership changes. */
	os_rwlock_t rwlock;
	/* Written under rwlock (write) and sched_ctx_change_mutex. */
	unsigned nworkers;
	int workerids[STARPU_NMAXWORKERS];

	/* Tasks pushed while the context had no worker: handed to the policy
	 * once workers are added (or to the heir when it is deleted). */
	os_mutex_t parked_mutex;
	struct starpu_task_list parked;

	/* Submitted to this context and not terminated (slot reuse,
	 * finished_submit), and pushed to its policy and not yet done
	 * executing (deletion waits for it to drop to 0). */
	_Alignas(64) _Atomic long nsubmitted;
	/* Threads in starpu_task_wait_for_*_in_ctx on this context, and the
	 * largest nsubmitted one of them waits for (-1: none); on nsubmitted's
	 * line, read right after each decrement. Written under the wait mutex
	 * of sched_ctx.c. */
	_Atomic int nwaiters;
	_Atomic long wait_threshold;
	_Alignas(64) _Atomic long nactive;
};

extern struct sched_ctx sched_ctxs[STARPU_NMAX_SCHED_CTXS];

static inline struct sched_ctx *sched_ctx_get(unsigned id)
{
	return &sched_ctxs[id];
}

/* Creates the global context with the policy and every worker. */
int sched_ctx_setup_global(struct starpu_sched_policy *policy, int min_prio, int max_prio);
void sched_ctx_teardown_all(void);

/* The context a task submitted now by the calling thread goes to, in *id;
 * -EINVAL (reported, naming task->sched_ctx) when the task or the thread
 * names a context that does not exist (never created, or deleted). */
int sched_ctx_for_submission(struct starpu_task *task, unsigned *id);

/* Per-context task accounting: a counted job entering the runtime in
 * job->sched_ctx, and one terminating there (may move the context's
 * workers to its inheritor after starpu_sched_ctx_finished_submit). */
void sched_ctx_job_submitted(struct job *job);
void sched_ctx_job_terminated(unsigned ctx_id);

/* Parks task on ctx (which has no worker; the caller holds its rwlock for
 * reading): it goes to the policy once workers are added. */
void sched_ctx_park(struct sched_ctx *ctx, struct starpu_task *task);

/* Serialises creations, deletions and membership changes, and guards the
 * workers' sched_ctxs[] lists. Outermost lock of the scheduling layer. */
extern os_mutex_t sched_ctx_change_mutex;

/* Whether workerid is among ctx's members (read as they are: callers hold
 * sched_ctx_change_mutex for an exact answer). */
int sched_ctx_has_worker(const struct sched_ctx *ctx, int workerid);

#endif /* VELA_SCHED_CTX_H */
