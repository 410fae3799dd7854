/* starpu_sched_ctx.h — scheduling contexts.
 *
 * A scheduling context is a set of workers governed by one instance of a
 * policy. The runtime starts with the global context (id 0) holding every
 * worker; policies keep their per-instance state in the context's policy
 * data and enumerate its workers through its worker collection.
 *
 * Contexts are created, resized and deleted at run time while tasks run; a
 * worker may belong to several. Calls returning a context id return
 * STARPU_NMAX_SCHED_CTXS on error (reported on stderr); void calls report
 * an invalid argument and change nothing. A context may be empty: its
 * tasks wait until workers are added, or go to its heir when it is deleted.
 * A task submitted to a deleted or never-created context is refused by
 * starpu_task_submit with -EINVAL.
 */
#ifndef STARPU_SCHED_CTX_H
#define STARPU_SCHED_CTX_H

#include <stdio.h>
#include <starpu_config.h>
#include <starpu_worker.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_sched_policy;

#define STARPU_SCHED_CTX_POLICY_NAME (1 << 16)
#define STARPU_SCHED_CTX_POLICY_STRUCT (2 << 16)
#define STARPU_SCHED_CTX_POLICY_MIN_PRIO (3 << 16)
#define STARPU_SCHED_CTX_POLICY_MAX_PRIO (4 << 16)
#define STARPU_SCHED_CTX_HIERARCHY_LEVEL (5 << 16)
#define STARPU_SCHED_CTX_NESTED (6 << 16)
#define STARPU_SCHED_CTX_AWAKE_WORKERS (7 << 16)
#define STARPU_SCHED_CTX_POLICY_INIT (8 << 16)
#define STARPU_SCHED_CTX_USER_DATA (9 << 16)
#define STARPU_SCHED_CTX_CUDA_NSMS (10 << 16)
#define STARPU_SCHED_CTX_SUB_CTXS (11 << 16)

/* Creation: the arguments after the name are pairs (type, value) from the
 * constants above ended by 0; STARPU_SCHED_CTX_AWAKE_WORKERS takes no
 * value, STARPU_SCHED_CTX_SUB_CTXS two (int *, int). nworkers -1 means
 * every worker. Without a policy: STARPU_SCHED, else the default one. */
unsigned starpu_sched_ctx_create(int *workerids_ctx, int nworkers_ctx, const char *sched_ctx_name, ...);
unsigned starpu_sched_ctx_create_inside_interval(const char *policy_name, const char *sched_ctx_name, int min_ncpus, int max_ncpus, int min_ngpus, int max_ngpus, unsigned allow_overlap);
void starpu_sched_ctx_register_close_callback(unsigned sched_ctx_id, void (*close_callback)(unsigned sched_ctx_id, void *args), void *args);
void starpu_sched_ctx_add_workers(int *workerids_ctx, unsigned nworkers_ctx, unsigned sched_ctx_id);
void starpu_sched_ctx_remove_workers(int *workerids_ctx, unsigned nworkers_ctx, unsigned sched_ctx_id);
void starpu_sched_ctx_display_workers(unsigned sched_ctx_id, FILE *f);
/* Waits until the tasks queued in the context have run (its workers, or
 * the heir's lent to it, run them), moves tasks not yet ready to the heir
 * (the inheritor, else the parent of a nested context, else the global
 * one), and gives workers left in no context to the parent or global one. */
void starpu_sched_ctx_delete(unsigned sched_ctx_id);
void starpu_sched_ctx_set_inheritor(unsigned sched_ctx_id, unsigned inheritor);
unsigned starpu_sched_ctx_get_inheritor(unsigned sched_ctx_id);
unsigned starpu_sched_ctx_get_hierarchy_level(unsigned sched_ctx_id);
void starpu_sched_ctx_stop_task_submission(void);
/* Once every task submitted to the context has terminated, its workers
 * move to the inheritor (if any) and the close callback runs. */
void starpu_sched_ctx_finished_submit(unsigned sched_ctx_id);
unsigned starpu_sched_ctx_get_nshared_workers(unsigned sched_ctx_id, unsigned sched_ctx_id2);
unsigned starpu_sched_ctx_get_ctx_for_task(struct starpu_task *task);
unsigned starpu_sched_ctx_overlapping_ctxs_on_worker(int workerid);

/* The context tasks of the calling thread go to (set_context), and the
 * context a task was submitted to. */
void starpu_sched_ctx_set_context(unsigned *sched_ctx_id);
unsigned starpu_sched_ctx_get_context(void);

unsigned starpu_sched_ctx_get_workers_list(unsigned sched_ctx_id, int **workerids);
unsigned starpu_sched_ctx_get_workers_list_raw(unsigned sched_ctx_id, int **workerids);
unsigned starpu_sched_ctx_get_nworkers(unsigned sched_ctx_id);
unsigned starpu_sched_ctx_contains_worker(int workerid, unsigned sched_ctx_id);
unsigned starpu_sched_ctx_contains_type_of_worker(enum starpu_worker_archtype arch, unsigned sched_ctx_id);
unsigned starpu_sched_ctx_worker_get_id(unsigned sched_ctx_id);

void *starpu_sched_ctx_get_user_data(unsigned sched_ctx_id);
void starpu_sched_ctx_set_user_data(unsigned sched_ctx_id, void *user_data);
void starpu_sched_ctx_set_policy_data(unsigned sched_ctx_id, void *policy_data);
void *starpu_sched_ctx_get_policy_data(unsigned sched_ctx_id);
struct starpu_sched_policy *starpu_sched_ctx_get_sched_policy(unsigned sched_ctx_id);

/* Runs func(param) on the calling thread, bound to the processing units of
 * the context's CPU workers, while those workers are held (they run no
 * task); returns what func returned. Not from a codelet or callback. */
void *starpu_sched_ctx_exec_parallel_code(void *(*func)(void *), void *param, unsigned sched_ctx_id);
/* The processing units (bind ids) of the context's CPU workers in a new
 * array *cpuids (the caller frees it), *ncpuids of them. */
void starpu_sched_ctx_get_available_cpuids(unsigned sched_ctx_id, int **cpuids, int *ncpuids);
/* Binds the calling thread to processing unit cpuid (hwloc logical index,
 * as starpu_worker_get_bindid). */
void starpu_sched_ctx_bind_current_thread_to_cpuid(unsigned cpuid);
/* The configuration callback given with the context (conf.sched_policy_init
 * for the global one, STARPU_SCHED_CTX_POLICY_INIT otherwise), or NULL. */
void (*starpu_sched_ctx_get_sched_policy_init(unsigned sched_ctx_id))(unsigned);

int starpu_sched_ctx_get_min_priority(unsigned sched_ctx_id);
int starpu_sched_ctx_get_max_priority(unsigned sched_ctx_id);
int starpu_sched_ctx_set_min_priority(unsigned sched_ctx_id, int min_prio);
int starpu_sched_ctx_set_max_priority(unsigned sched_ctx_id, int max_prio);
int starpu_sched_ctx_min_priority_is_set(unsigned sched_ctx_id);
int starpu_sched_ctx_max_priority_is_set(unsigned sched_ctx_id);

int starpu_sched_ctx_get_nready_tasks(unsigned sched_ctx_id);

#define STARPU_MIN_PRIO (starpu_sched_get_min_priority())
#define STARPU_MAX_PRIO (starpu_sched_get_max_priority())

/* Policies create their collection in init_sched and delete it in
 * deinit_sched (the runtime fills it with the context's workers). */
struct starpu_worker_collection *starpu_sched_ctx_create_worker_collection(unsigned sched_ctx_id, enum starpu_worker_collection_type type) STARPU_ATTRIBUTE_MALLOC;
void starpu_sched_ctx_delete_worker_collection(unsigned sched_ctx_id);
struct starpu_worker_collection *starpu_sched_ctx_get_worker_collection(unsigned sched_ctx_id);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_SCHED_CTX_H */
