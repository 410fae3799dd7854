/* sched_ctx.h — scheduling contexts, runtime side.
 *
 * A context binds a set of workers to one policy instance. The runtime
 * starts with the global context (id 0) holding every worker. Fields are
 * written at init/shutdown (and, later, by context changes under rwlock
 * following seed 000); the hot paths only read them.
 */
#ifndef VELA_SCHED_CTX_H
#define VELA_SCHED_CTX_H

#include <starpu.h>
#include "os/os.h"

#define GLOBAL_SCHED_CTX 0

struct sched_ctx
{
	unsigned id;
	int in_use;
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
	/* Readers: anyone using the context; writer: membership changes. */
	os_rwlock_t rwlock;
	unsigned nworkers;
	int workerids[STARPU_NMAXWORKERS];
};

extern struct sched_ctx sched_ctxs[STARPU_NMAX_SCHED_CTXS];

static inline struct sched_ctx *sched_ctx_get(unsigned id)
{
	return &sched_ctxs[id];
}

/* Creates the global context with the policy and every worker. */
int sched_ctx_setup_global(struct starpu_sched_policy *policy, int min_prio, int max_prio);
void sched_ctx_teardown_all(void);

/* The context a task submitted now by the calling thread goes to. */
unsigned sched_ctx_for_submission(struct starpu_task *task);

#endif /* VELA_SCHED_CTX_H */
