/* starpu_task.h — codelets and tasks.
 *
 * A codelet describes a computation and its implementations per kind of
 * processing unit; a task applies a codelet to a list of data handles, each
 * with an access mode. Tasks are submitted asynchronously; the runtime runs
 * each one when its dependencies are met, on a worker chosen by the
 * scheduling policy, then calls its callback and releases what depends on it.
 */
#ifndef STARPU_TASK_H
#define STARPU_TASK_H

#include <starpu_config.h>
#include <starpu_util.h>
#include <starpu_data.h>
#include <starpu_task_dep.h>
#include <errno.h>
#include <assert.h>
#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Where a codelet or task may run (bit masks). */
#define STARPU_NOWHERE ((1ULL) << 0)
#define STARPU_CPU ((1ULL) << 1)
#define STARPU_CUDA ((1ULL) << 3)
#define STARPU_OPENCL ((1ULL) << 6)
#define STARPU_MIC ((1ULL) << 7)
#define STARPU_MPI_MS ((1ULL) << 9)

/* Codelet flags. */
#define STARPU_CODELET_SIMGRID_EXECUTE (1 << 0)
#define STARPU_CODELET_SIMGRID_EXECUTE_AND_INJECT (1 << 1)
#define STARPU_CODELET_NOPLANS (1 << 2)

#define STARPU_CUDA_ASYNC (1 << 0)
#define STARPU_OPENCL_ASYNC (1 << 0)

#define STARPU_MAIN_RAM 0

enum starpu_codelet_type
{
	STARPU_SEQ = 0,		/* one worker runs the task */
	STARPU_SPMD,		/* every worker of a combined worker runs it */
	STARPU_FORKJOIN		/* one worker runs it and spawns its own threads */
};

enum starpu_task_status
{
	STARPU_TASK_INIT,
#define STARPU_TASK_INIT 0
#define STARPU_TASK_INVALID STARPU_TASK_INIT
	STARPU_TASK_BLOCKED,		/* submitted, dependencies not yet met */
	STARPU_TASK_READY,		/* handed to the scheduler */
	STARPU_TASK_RUNNING,		/* executing on a worker */
	STARPU_TASK_FINISHED,		/* done */
	STARPU_TASK_BLOCKED_ON_TAG,
	STARPU_TASK_BLOCKED_ON_TASK,
	STARPU_TASK_BLOCKED_ON_DATA,
	STARPU_TASK_STOPPED
};

/* Every implementation takes the task's buffers (one data interface per
 * handle, in task order) and its cl_arg. */
typedef void (*starpu_cpu_func_t)(void **, void *);
typedef void (*starpu_cuda_func_t)(void **, void *);
typedef void (*starpu_opencl_func_t)(void **, void *);
typedef void (*starpu_mic_kernel_t)(void **, void *);
typedef starpu_mic_kernel_t (*starpu_mic_func_t)(void);
typedef void (*starpu_mpi_ms_kernel_t)(void **, void *);
typedef starpu_mpi_ms_kernel_t (*starpu_mpi_ms_func_t)(void);

#define STARPU_MULTIPLE_CPU_IMPLEMENTATIONS ((starpu_cpu_func_t) -1)
#define STARPU_MULTIPLE_CUDA_IMPLEMENTATIONS ((starpu_cuda_func_t) -1)
#define STARPU_MULTIPLE_OPENCL_IMPLEMENTATIONS ((starpu_opencl_func_t) -1)

/* codelet->nbuffers value for codelets whose tasks say how many buffers
 * they have (task->nbuffers, task->modes or task->dyn_modes). */
#define STARPU_VARIABLE_NBUFFERS (-1)

#define STARPU_SPECIFIC_NODE_LOCAL (-1)
#define STARPU_SPECIFIC_NODE_CPU (-2)
#define STARPU_SPECIFIC_NODE_SLOW (-3)
#define STARPU_SPECIFIC_NODE_FAST (-4)

struct starpu_task;
struct starpu_perfmodel;
struct starpu_profiling_task_info;

/* Bytes reserved in each task for the runtime's bookkeeping (see
 * starpu_task.vela_job). */
#define VELA_TASK_JOB_STORAGE 368
typedef struct starpu_task_bundle_s *starpu_task_bundle_t;

/* A codelet must be zero-filled before use (static storage, a designated
 * initializer, or starpu_codelet_init()). */
struct starpu_codelet
{
	/* Kinds of worker that may run it; derived from the *_funcs arrays
	 * when left at 0. STARPU_NOWHERE: nothing to run (a sync point). */
	uint32_t where;
	/* Optional veto per worker and implementation: return 0 to refuse. */
	int (*can_execute)(unsigned workerid, struct starpu_task *task, unsigned nimpl);
	enum starpu_codelet_type type;
	int max_parallelism;

	/* Old single-implementation fields, still honoured. */
	starpu_cpu_func_t cpu_func STARPU_DEPRECATED;
	starpu_cuda_func_t cuda_func STARPU_DEPRECATED;
	starpu_opencl_func_t opencl_func STARPU_DEPRECATED;

	/* Implementations; a NULL entry ends each list. */
	starpu_cpu_func_t cpu_funcs[STARPU_MAXIMPLEMENTATIONS];
	starpu_cuda_func_t cuda_funcs[STARPU_MAXIMPLEMENTATIONS];
	char cuda_flags[STARPU_MAXIMPLEMENTATIONS];
	starpu_opencl_func_t opencl_funcs[STARPU_MAXIMPLEMENTATIONS];
	char opencl_flags[STARPU_MAXIMPLEMENTATIONS];
	starpu_mic_func_t mic_funcs[STARPU_MAXIMPLEMENTATIONS];
	starpu_mpi_ms_func_t mpi_ms_funcs[STARPU_MAXIMPLEMENTATIONS];
	/* Symbol names of the CPU implementations; a CPU implementation given
	 * only by name is looked up in the process with dlsym(). */
	const char *cpu_funcs_name[STARPU_MAXIMPLEMENTATIONS];

	/* Number of data buffers, or STARPU_VARIABLE_NBUFFERS. */
	int nbuffers;
	enum starpu_data_access_mode modes[STARPU_NMAXBUFS];
	/* Used instead of modes[] when there are more than STARPU_NMAXBUFS. */
	enum starpu_data_access_mode *dyn_modes;

	/* When set, nodes[] (or dyn_nodes) says where each buffer goes. */
	unsigned specific_nodes;
	int nodes[STARPU_NMAXBUFS];
	int *dyn_nodes;

	struct starpu_perfmodel *model;
	struct starpu_perfmodel *energy_model;

	/* Tasks of this codelet run by each worker (filled by the runtime). */
	unsigned long per_worker_stats[STARPU_NMAXWORKERS];

	const char *name;
	unsigned color;
	/* Called after each task of this codelet that has no callback. */
	void (*callback_func)(void *);
	int flags;
	/* Set by the runtime once the codelet has been checked. */
	int checked;
};

struct starpu_data_descr
{
	starpu_data_handle_t handle;
	enum starpu_data_access_mode mode;
};

struct starpu_task
{
	const char *name;
	/* NULL: no computation, the task is a synchronisation point. */
	struct starpu_codelet *cl;
	/* Restricts cl->where for this task when not -1. */
	int32_t where;
	/* Buffer count when cl->nbuffers is STARPU_VARIABLE_NBUFFERS. */
	int nbuffers;

	/* Used instead of handles/interfaces/modes beyond STARPU_NMAXBUFS;
	 * owned by the application. */
	starpu_data_handle_t *dyn_handles;
	void **dyn_interfaces;
	enum starpu_data_access_mode *dyn_modes;

	starpu_data_handle_t handles[STARPU_NMAXBUFS];
	/* Filled by the runtime before the task runs. */
	void *interfaces[STARPU_NMAXBUFS];
	/* Per-task modes, for codelets with STARPU_VARIABLE_NBUFFERS. */
	enum starpu_data_access_mode modes[STARPU_NMAXBUFS];
	/* Optional per-buffer override of sequential consistency. */
	unsigned char *handles_sequential_consistency;

	void *cl_arg;
	size_t cl_arg_size;

	void (*callback_func)(void *);
	void *callback_arg;
	/* Called when the task becomes ready, before it is pushed. */
	void (*prologue_callback_func)(void *);
	void *prologue_callback_arg;
	/* Called when a worker pops the task. */
	void (*prologue_callback_pop_func)(void *);
	void *prologue_callback_pop_arg;

	starpu_tag_t tag_id;

	unsigned cl_arg_free:1;		/* free(cl_arg) when the task is destroyed */
	unsigned callback_arg_free:1;
	unsigned prologue_callback_arg_free:1;
	unsigned prologue_callback_pop_arg_free:1;
	unsigned use_tag:1;		/* the task carries tag_id */
	unsigned sequential_consistency:1;
	unsigned synchronous:1;		/* submit blocks until the task is done */
	unsigned execute_on_a_specific_worker:1;	/* run on workerid */
	unsigned detach:1;		/* nobody will starpu_task_wait() it */
	unsigned destroy:1;		/* free it once done (or once waited) */
	unsigned regenerate:1;		/* resubmit it once done */
	unsigned no_submitorder:1;

	unsigned char mf_skip;
	unsigned char scheduled;
	unsigned char prefetched;

	unsigned workerid;
	unsigned workerorder;
	uint32_t *workerids;
	unsigned workerids_len;

	int priority;
	enum starpu_task_status status;
	/* 42 once initialised by starpu_task_init() or starpu_task_create(). */
	int magic;
	unsigned type;
	unsigned color;
	unsigned sched_ctx;
	int hypervisor_tag;
	unsigned possibly_parallel;
	starpu_task_bundle_t bundle;
	struct starpu_profiling_task_info *profiling_info;
	double flops;
	double predicted;
	double predicted_transfer;
	double predicted_start;

	/* Links for scheduling policies (starpu_task_list). */
	struct starpu_task *prev;
	struct starpu_task *next;
	/* The runtime's job for this task. */
	void *starpu_private;
	void *omp_task;
	unsigned nb_termination_call_required;
	/* Free for the scheduling policy's use. */
	void *sched_data;

	/* Vela: room for the runtime's bookkeeping of the task (its "job"), so
	 * that submitting a task allocates nothing. Opaque; not copied by
	 * starpu_task_dup(). */
	union
	{
		unsigned char bytes[VELA_TASK_JOB_STORAGE];
		void *align_ptr_;
		long long align_ll_;
	} vela_job;
};

#define STARPU_TASK_TYPE_NORMAL 0
#define STARPU_TASK_TYPE_INTERNAL (1 << 0)
#define STARPU_TASK_TYPE_DATA_ACQUIRE (1 << 1)

/* Static initializer giving the same defaults as starpu_task_init(). */
#define STARPU_TASK_INITIALIZER \
{ \
	.cl = NULL, \
	.where = -1, \
	.cl_arg = NULL, \
	.cl_arg_size = 0, \
	.callback_func = NULL, \
	.callback_arg = NULL, \
	.priority = STARPU_DEFAULT_PRIO, \
	.use_tag = 0, \
	.sequential_consistency = 1, \
	.synchronous = 0, \
	.execute_on_a_specific_worker = 0, \
	.workerorder = 0, \
	.bundle = NULL, \
	.detach = 1, \
	.destroy = 0, \
	.regenerate = 0, \
	.status = STARPU_TASK_INIT, \
	.profiling_info = NULL, \
	.predicted = NAN, \
	.predicted_transfer = NAN, \
	.predicted_start = NAN, \
	.starpu_private = NULL, \
	.magic = 42, \
	.type = 0, \
	.color = 0, \
	.sched_ctx = STARPU_NMAX_SCHED_CTXS, \
	.hypervisor_tag = 0, \
	.flops = 0.0, \
	.scheduled = 0, \
	.prefetched = 0, \
	.dyn_handles = NULL, \
	.dyn_interfaces = NULL, \
	.dyn_modes = NULL, \
	.name = NULL, \
	.possibly_parallel = 0 \
}

#define STARPU_DEFAULT_PRIO 0

#define STARPU_TASK_GET_NBUFFERS(task) \
	((unsigned)((task)->cl->nbuffers == STARPU_VARIABLE_NBUFFERS ? ((task)->nbuffers) : ((task)->cl->nbuffers)))
#define STARPU_TASK_GET_HANDLE(task, i) (((task)->dyn_handles) ? (task)->dyn_handles[i] : (task)->handles[i])
#define STARPU_TASK_GET_HANDLES(task) (((task)->dyn_handles) ? (task)->dyn_handles : (task)->handles)
#define STARPU_TASK_SET_HANDLE(task, handle, i) do { \
	if ((task)->dyn_handles) (task)->dyn_handles[i] = (handle); else (task)->handles[i] = (handle); \
} while (0)
#define STARPU_CODELET_GET_MODE(codelet, i) \
	(((codelet)->dyn_modes) ? (codelet)->dyn_modes[i] : (assert((i) < STARPU_NMAXBUFS), (codelet)->modes[i]))
#define STARPU_CODELET_SET_MODE(codelet, mode, i) do { \
	if ((codelet)->dyn_modes) (codelet)->dyn_modes[i] = (mode); else (codelet)->modes[i] = (mode); \
} while (0)
#define STARPU_TASK_GET_MODE(task, i) \
	((task)->cl->nbuffers == STARPU_VARIABLE_NBUFFERS || (task)->dyn_modes ? \
	 (((task)->dyn_modes) ? (task)->dyn_modes[i] : (task)->modes[i]) : \
	 STARPU_CODELET_GET_MODE((task)->cl, i))
#define STARPU_TASK_SET_MODE(task, mode, i) do { \
	if ((task)->cl->nbuffers == STARPU_VARIABLE_NBUFFERS || (task)->cl->nbuffers > STARPU_NMAXBUFS) { \
		if ((task)->dyn_modes) (task)->dyn_modes[i] = (mode); else (task)->modes[i] = (mode); \
	} else \
		STARPU_CODELET_SET_MODE((task)->cl, mode, i); \
} while (0)
#define STARPU_CODELET_GET_NODE(codelet, i) (((codelet)->dyn_nodes) ? (codelet)->dyn_nodes[i] : (codelet)->nodes[i])
#define STARPU_CODELET_SET_NODE(codelet, node_, i) do { \
	if ((codelet)->dyn_nodes) (codelet)->dyn_nodes[i] = (node_); else (codelet)->nodes[i] = (node_); \
} while (0)

void starpu_task_init(struct starpu_task *task);
/* Releases what the runtime attached to a task built with starpu_task_init,
 * so that the structure can be freed or initialised again. */
void starpu_task_clean(struct starpu_task *task);
struct starpu_task *starpu_task_create(void) STARPU_ATTRIBUTE_MALLOC;
void starpu_task_destroy(struct starpu_task *task);

/* 0 on success; -ENODEV when no worker can run the task; -EINVAL for an
 * ill-formed task or when the runtime is not initialised; -EDEADLK for a
 * synchronous task submitted from a codelet or callback. */
int starpu_task_submit(struct starpu_task *task) STARPU_WARN_UNUSED_RESULT;
int starpu_task_submit_to_ctx(struct starpu_task *task, unsigned sched_ctx_id);
int starpu_task_finished(struct starpu_task *task) STARPU_WARN_UNUSED_RESULT;

/* Blocks until the task is done. -EINVAL for a detached task (nobody may
 * wait for it) or one already destroyed; -EDEADLK from a codelet or
 * callback. Destroys the task afterwards if task->destroy is set.
 * Vela: a task that failed (vela_task_get_error) returns its error. */
int starpu_task_wait(struct starpu_task *task) STARPU_WARN_UNUSED_RESULT;
int starpu_task_wait_array(struct starpu_task **tasks, unsigned nb_tasks) STARPU_WARN_UNUSED_RESULT;
int starpu_task_wait_for_all(void);

/* Vela (StarPU 1.3 has no such status): whether a task failed. A task
 * whose data could not be made available on its worker (-ENOMEM: it can
 * never fit under the memory limits), or whose implementation returned an
 * error (a simulated task without a usable model: -ENOENT), still
 * terminates, so that its dependents, callback and waiters go on; its
 * error tells it apart. vela_task_get_error: 0, or the negative errno of
 * its last submission's failure, readable from its callback on until it
 * is destroyed (starpu_task_wait also returns it). vela_task_failed_count:
 * how many tasks failed since starpu_init (starpu_shutdown reports them,
 * one line per cause). */
int vela_task_get_error(struct starpu_task *task);
unsigned long vela_task_failed_count(void);
int starpu_task_wait_for_n_submitted(unsigned n);
int starpu_task_wait_for_all_in_ctx(unsigned sched_ctx_id);
int starpu_task_wait_for_n_submitted_in_ctx(unsigned sched_ctx_id, unsigned n);
int starpu_task_wait_for_no_ready(void);
int starpu_task_nready(void);
int starpu_task_nsubmitted(void);

void starpu_iteration_push(unsigned long iteration);
void starpu_iteration_pop(void);
/* The memory node where buffer i of the task running on this thread is,
 * or -1 outside a task (or i beyond its buffers). */
int starpu_task_get_current_data_node(unsigned i);
void starpu_do_schedule(void);

void starpu_codelet_init(struct starpu_codelet *cl);
void starpu_codelet_display_stats(struct starpu_codelet *cl);

/* The task the calling worker is running, or NULL. */
struct starpu_task *starpu_task_get_current(void);
const char *starpu_task_get_model_name(struct starpu_task *task);
const char *starpu_task_get_name(struct starpu_task *task);
struct starpu_task *starpu_task_dup(struct starpu_task *task);
void starpu_task_set_implementation(struct starpu_task *task, unsigned impl);
unsigned starpu_task_get_implementation(struct starpu_task *task);

/* A task with no codelet carrying sync_tag and depending on deps. */
void starpu_create_sync_task(starpu_tag_t sync_tag, unsigned ndeps, starpu_tag_t *deps, void (*callback)(void *), void *callback_arg);
void starpu_create_callback_task(void (*callback)(void *), void *callback_arg);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_TASK_H */
