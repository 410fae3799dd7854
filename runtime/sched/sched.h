/* sched.h — the scheduling layer: the table of predefined policies, the
 * runtime's push/pop entry points, and helpers policies share.
 *
 * Policies implement struct starpu_sched_policy (starpu_scheduler.h) with
 * the public API only, exactly as an application's own policy would; the
 * runtime calls push_task when a job is ready and its data access granted,
 * and pop_task from each worker's driver loop.
 */
#ifndef VELA_SCHED_H
#define VELA_SCHED_H

#include <starpu.h>

struct job;
struct worker;

/* NULL-terminated table of the built-in policies, default first. */
extern struct starpu_sched_policy *const sched_predefined[];
extern struct starpu_sched_policy sched_policy_eager;
extern struct starpu_sched_policy sched_policy_prio;
extern struct starpu_sched_policy sched_policy_random;
extern struct starpu_sched_policy sched_policy_ws;
extern struct starpu_sched_policy sched_policy_lws;
extern struct starpu_sched_policy sched_policy_dm;
extern struct starpu_sched_policy sched_policy_dmda;
extern struct starpu_sched_policy sched_policy_dmdar;
extern struct starpu_sched_policy sched_policy_dmdas;
extern struct starpu_sched_policy sched_policy_heteroprio;

#define SCHED_DEFAULT_POLICY "lws"

/* Picks the policy (conf, then STARPU_SCHED, then the default), prints the
 * list for STARPU_SCHED=help, and sets up the global context. */
int sched_setup(void);
void sched_teardown(void);

struct starpu_sched_policy *sched_find_policy(const char *name);
void sched_print_policies(FILE *f);

/* Hands a ready job whose data access is granted to its policy. */
void sched_push_job(struct job *job);
/* A task for worker w (its local queue first), or NULL. */
struct starpu_task *sched_pop_task(struct worker *w);
/* The policy's pre_exec_hook / post_exec_hook, on worker w's thread just
 * before and after the kernel runs (data already fetched). */
void sched_pre_exec(struct worker *w, struct job *job);
void sched_post_exec(struct worker *w, struct job *job);

#endif /* VELA_SCHED_H */
