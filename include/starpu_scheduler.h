/* starpu_scheduler.h — the scheduling policy interface.
 *
 * A policy is a table of callbacks. The runtime calls push_task when a task's
 * dependencies are met, and each idle worker calls pop_task to get work. A
 * policy that queues tasks must wake the worker(s) that may take them
 * (starpu_wake_worker_relax_light() and friends); a worker that found nothing
 * goes to sleep until woken. The built-in policies (eager, prio, random, ws,
 * lws, ...) are written against this same interface, so an application's own
 * policy, passed in starpu_conf.sched_policy, is a first-class citizen.
 */
#ifndef STARPU_SCHEDULER_H
#define STARPU_SCHEDULER_H

#include <starpu_config.h>
#include <starpu_thread.h>
#include <starpu_worker.h>
#include <starpu_data.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_task;
struct starpu_perfmodel;
struct starpu_perfmodel_arch;

struct starpu_sched_policy
{
	/* Called when a context using the policy is created / deleted. */
	void (*init_sched)(unsigned sched_ctx_id);
	void (*deinit_sched)(unsigned sched_ctx_id);
	/* Takes a ready task (task->sched_ctx tells the context). Returns 0. */
	int (*push_task)(struct starpu_task *);
	double (*simulate_push_task)(struct starpu_task *);
	/* Told which worker a task went to when it did not go through push. */
	void (*push_task_notify)(struct starpu_task *, int workerid, int perf_workerid, unsigned sched_ctx_id);
	/* Called by a worker (starpu_worker_get_id()) to get a task, or NULL. */
	struct starpu_task *(*pop_task)(unsigned sched_ctx_id);
	struct starpu_task *(*pop_every_task)(unsigned sched_ctx_id);
	void (*submit_hook)(struct starpu_task *task);
	void (*pre_exec_hook)(struct starpu_task *, unsigned sched_ctx_id);
	void (*post_exec_hook)(struct starpu_task *, unsigned sched_ctx_id);
	void (*do_schedule)(unsigned sched_ctx_id);
	void (*add_workers)(unsigned sched_ctx_id, int *workerids, unsigned nworkers);
	void (*remove_workers)(unsigned sched_ctx_id, int *workerids, unsigned nworkers);
	const char *policy_name;
	const char *policy_description;
	enum starpu_worker_collection_type worker_type;
};

/* NULL-terminated array of the built-in policies. */
struct starpu_sched_policy **starpu_sched_get_predefined_policies(void);

/* The mutex and condition a worker sleeps on; a policy takes the mutex to
 * wake the worker or to observe its state. */
void starpu_worker_get_sched_condition(int workerid, starpu_pthread_mutex_t **sched_mutex, starpu_pthread_cond_t **sched_cond);
unsigned long starpu_task_get_job_id(struct starpu_task *task);

int starpu_sched_get_min_priority(void);
int starpu_sched_get_max_priority(void);
int starpu_sched_set_min_priority(int min_prio);
int starpu_sched_set_max_priority(int max_prio);

/* Whether the worker can run the nimpl-th implementation of the task. */
int starpu_worker_can_execute_task(unsigned workerid, struct starpu_task *task, unsigned nimpl);
/* Same for any implementation; *impl_mask gets one bit per usable one. */
int starpu_worker_can_execute_task_impl(unsigned workerid, struct starpu_task *task, unsigned *impl_mask);
int starpu_worker_can_execute_task_first_impl(unsigned workerid, struct starpu_task *task, unsigned *nimpl);

/* Puts the task in the worker's own queue, bypassing the policy. */
int starpu_push_local_task(int workerid, struct starpu_task *task, int back);
int starpu_push_task_end(struct starpu_task *task);

int starpu_get_prefetch_flag(void);
/* Starts copying the task's input to a node (or a worker's node) ahead of
 * its execution; idle_ variants only use otherwise idle time. */
int starpu_prefetch_task_input_on_node_prio(struct starpu_task *task, unsigned node, int prio);
int starpu_prefetch_task_input_on_node(struct starpu_task *task, unsigned node);
int starpu_idle_prefetch_task_input_on_node_prio(struct starpu_task *task, unsigned node, int prio);
int starpu_idle_prefetch_task_input_on_node(struct starpu_task *task, unsigned node);
int starpu_prefetch_task_input_for_prio(struct starpu_task *task, unsigned worker, int prio);
int starpu_prefetch_task_input_for(struct starpu_task *task, unsigned worker);
int starpu_idle_prefetch_task_input_for_prio(struct starpu_task *task, unsigned worker, int prio);
int starpu_idle_prefetch_task_input_for(struct starpu_task *task, unsigned worker);

/* Waking workers: each returns 1 if the worker was asleep and is now woken.
 * _relax_light and _relax may be called from anywhere; _no_relax and
 * _locked when the caller follows the protocol of starpu_worker.h. */
int starpu_wake_worker_relax(int workerid);
int starpu_wake_worker_no_relax(int workerid);
int starpu_wake_worker_locked(int workerid);
int starpu_wake_worker_relax_light(int workerid);

/* Performance predictions for schedulers (runtime/perfmodel/). Durations
 * are in microseconds. expected_length is 0.0 when the codelet has no
 * model, and NAN when its model needs more measurements on that arch (a
 * policy should then run the task there, which calibrates the model). */
uint32_t starpu_task_footprint(struct starpu_perfmodel *model, struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl);
uint32_t starpu_task_data_footprint(struct starpu_task *task);
double starpu_task_expected_length(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl);
double starpu_worker_get_relative_speedup(struct starpu_perfmodel_arch *perf_arch);
double starpu_task_expected_data_transfer_time(unsigned memory_node, struct starpu_task *task);
double starpu_task_expected_data_transfer_time_for(struct starpu_task *task, unsigned worker);
double starpu_data_expected_transfer_time(starpu_data_handle_t handle, unsigned memory_node, enum starpu_data_access_mode mode);
/* In joules, from the codelet's energy_model (NAN when uncalibrated). */
double starpu_task_expected_energy(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl);
/* Multiformat conversions are not modelled (they run within the task they
 * precede): 0.0. */
double starpu_task_expected_conversion_time(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_SCHEDULER_H */
