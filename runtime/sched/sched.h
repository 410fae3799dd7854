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
struct starpu_sched_tree;
struct starpu_sched_component;

/* NULL-terminated table of the built-in policies; the default is the one
 * SCHED_DEFAULT_POLICY names. */
extern struct starpu_sched_policy *const sched_predefined[];
extern struct starpu_sched_policy sched_policy_eager;
extern struct starpu_sched_policy sched_policy_prio;
extern struct starpu_sched_policy sched_policy_random;
extern struct starpu_sched_policy sched_policy_ws;
extern struct starpu_sched_policy sched_policy_lws;
/* Component-tree policies (policies/tree.c). */
extern struct starpu_sched_policy sched_policy_tree_eager;
extern struct starpu_sched_policy sched_policy_tree_eager_prefetching;
extern struct starpu_sched_policy sched_policy_tree_prio;
extern struct starpu_sched_policy sched_policy_tree_prio_prefetching;
extern struct starpu_sched_policy sched_policy_tree_random;
extern struct starpu_sched_policy sched_policy_tree_random_prefetching;
extern struct starpu_sched_policy sched_policy_tree_ws;
extern struct starpu_sched_policy sched_policy_tree_heft;
extern struct starpu_sched_policy sched_policy_tree_heft2;
extern struct starpu_sched_policy sched_policy_tree_heft_prio;
/* Parallel tasks on combined workers (policies/parallel.c). */
extern struct starpu_sched_policy sched_policy_peager;
extern struct starpu_sched_policy sched_policy_pheft;
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
/* The predefined policies' names, comma-separated, into buf. */
void sched_policy_names(char *buf, size_t len);

/* Hands a ready job whose data access is granted to its policy. */
void sched_push_job(struct job *job);
/* The same without the push event: a parked task given to its policy. */
void sched_push_job_again(struct job *job);
/* A job popped from its context's policy has finished executing (or is
 * being pushed again): its context's deletion need not wait for it. */
void sched_job_done(struct job *job);
/* A task for worker w (its local queue first), or NULL. */
struct starpu_task *sched_pop_task(struct worker *w);
/* The policy's pre_exec_hook / post_exec_hook, on worker w's thread just
 * before and after the kernel runs (data already fetched). */
void sched_pre_exec(struct worker *w, struct job *job);
void sched_post_exec(struct worker *w, struct job *job);

/* Builds the tree of starpu_sched_component_initialize_simple_scheduler
 * for context ctx (component/simple.c); bounded_below: the per-worker
 * queues get STARPU_NTASKS_THRESHOLD / STARPU_EXP_LEN_THRESHOLD. */
typedef struct starpu_sched_component *(*sched_component_create_fn)(struct starpu_sched_tree *tree, void *data);
void sched_tree_build_simple(sched_component_create_fn create_decision, void *data, unsigned flags, unsigned ctx, int bounded_below);

#endif /* VELA_SCHED_H */
