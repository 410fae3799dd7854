/* starpu_worker.h — workers, memory nodes, and worker collections.
 *
 * A worker is a thread driving one processing unit (a CPU core, a device).
 * Workers are numbered 0..starpu_worker_get_count()-1; each has a kind
 * (archtype), a device index among workers of its kind, and the memory node
 * its computations read and write. Memory node 0 is the main RAM.
 *
 * The relax/lock functions implement the worker state protocol scheduling
 * policies rely on: a worker's sched mutex may be held only briefly, and no
 * thread ever holds two workers' sched mutexes at once.
 */
#ifndef STARPU_WORKER_H
#define STARPU_WORKER_H

#include <starpu_config.h>
#include <starpu_thread.h>
#include <stdio.h>
#include <stdlib.h>
#include <hwloc.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_task;

enum starpu_node_kind
{
	STARPU_UNUSED = 0,
	STARPU_CPU_RAM = 1,
	STARPU_CUDA_RAM = 2,
	STARPU_OPENCL_RAM = 3,
	STARPU_DISK_RAM = 4,
	STARPU_MIC_RAM = 5,
	STARPU_MPI_MS_RAM = 6
};

enum starpu_worker_archtype
{
	STARPU_CPU_WORKER = 0,
	STARPU_CUDA_WORKER = 1,
	STARPU_OPENCL_WORKER = 2,
	STARPU_MIC_WORKER = 3,
	STARPU_MPI_MS_WORKER = 5,
	STARPU_ANY_WORKER = 6
};

/* Iterator over a worker collection. */
struct starpu_sched_ctx_iterator
{
	int cursor;
	void *value;
	void *possible_value;
	char visited[STARPU_NMAXWORKERS];
	int possibly_parallel;
};

enum starpu_worker_collection_type
{
	STARPU_WORKER_TREE,
	STARPU_WORKER_LIST
};

/* The workers of a scheduling context, with the iteration methods a
 * policy uses:
 *	struct starpu_sched_ctx_iterator it;
 *	workers->init_iterator(workers, &it);
 *	while (workers->has_next(workers, &it)) { int w = workers->get_next(workers, &it); ... }
 */
struct starpu_worker_collection
{
	int *workerids;
	void *collection_private;
	unsigned nworkers;
	void *unblocked_workers;
	unsigned nunblocked_workers;
	void *masters;
	unsigned nmasters;
	char present[STARPU_NMAXWORKERS];
	char is_unblocked[STARPU_NMAXWORKERS];
	char is_master[STARPU_NMAXWORKERS];
	enum starpu_worker_collection_type type;
	unsigned (*has_next)(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it);
	int (*get_next)(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it);
	int (*add)(struct starpu_worker_collection *workers, int worker);
	int (*remove)(struct starpu_worker_collection *workers, int worker);
	void (*init)(struct starpu_worker_collection *workers);
	void (*deinit)(struct starpu_worker_collection *workers);
	void (*init_iterator)(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it);
	void (*init_iterator_for_parallel_tasks)(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it, struct starpu_task *task);
};

extern struct starpu_worker_collection starpu_worker_list;
/* Iterates in hwloc topology order (the order of the machine's PUs). */
extern struct starpu_worker_collection starpu_worker_tree;

unsigned starpu_worker_get_count(void);
unsigned starpu_cpu_worker_get_count(void);
unsigned starpu_cuda_worker_get_count(void);
unsigned starpu_opencl_worker_get_count(void);
unsigned starpu_mic_worker_get_count(void);
unsigned starpu_mpi_ms_worker_get_count(void);

/* The calling thread's worker id, or -1 outside a worker. */
int starpu_worker_get_id(void);
/* Same, but aborts (naming the caller) outside a worker. */
unsigned vela_worker_get_id_check(const char *f, int l);
#define starpu_worker_get_id_check() vela_worker_get_id_check(__FILE__, __LINE__)

/* The logical PU the worker is bound to, or -1. */
int starpu_worker_get_bindid(int workerid);
enum starpu_worker_archtype starpu_worker_get_type(int id);
int starpu_worker_get_count_by_type(enum starpu_worker_archtype type);
/* Fills workerids with up to maxsize workers of the kind; returns the count. */
unsigned starpu_worker_get_ids_by_type(enum starpu_worker_archtype type, int *workerids, unsigned maxsize);
/* The num-th worker of the kind, or -1. */
int starpu_worker_get_by_type(enum starpu_worker_archtype type, int num);
int starpu_worker_get_by_devid(enum starpu_worker_archtype type, int devid);
void starpu_worker_get_name(int id, char *dst, size_t maxlen);
void starpu_worker_display_names(FILE *output, enum starpu_worker_archtype type);
int starpu_worker_get_devid(int id);
char *starpu_worker_get_type_as_string(enum starpu_worker_archtype type);
unsigned starpu_worker_get_sched_ctx_list(int worker, unsigned **sched_ctx);
unsigned starpu_worker_is_blocked_in_parallel(int workerid);
unsigned starpu_worker_is_slave_somewhere(int workerid);
hwloc_cpuset_t starpu_worker_get_hwloc_cpuset(int workerid);
hwloc_obj_t starpu_worker_get_hwloc_obj(int workerid);

int starpu_memory_node_get_devid(unsigned node);
unsigned starpu_worker_get_local_memory_node(void);
unsigned starpu_worker_get_memory_node(unsigned workerid);
unsigned starpu_memory_nodes_get_count(void);
int starpu_memory_node_get_name(unsigned node, char *name, size_t size);
int starpu_memory_nodes_get_numa_count(void);
enum starpu_node_kind starpu_node_get_kind(unsigned node);

/* Worker state protocol (see the header comment). */
int starpu_worker_sched_op_pending(void);
void starpu_worker_relax_on(void);
void starpu_worker_relax_off(void);
int starpu_worker_get_relax_state(void);
void starpu_worker_lock(int workerid);
int starpu_worker_trylock(int workerid);
void starpu_worker_unlock(int workerid);
void starpu_worker_lock_self(void);
void starpu_worker_unlock_self(void);

/* Combined workers: teams of CPU workers that run parallel tasks
 * (STARPU_SPMD, STARPU_FORKJOIN codelets). Their ids follow the workers'
 * (id >= starpu_worker_get_count()). Inside a kernel, get_id/size/rank
 * describe the team running it (a lone worker: its id, 1 and 0). */
unsigned starpu_combined_worker_get_count(void);
unsigned starpu_worker_is_combined_worker(int id);
int starpu_combined_worker_get_id(void);
int starpu_combined_worker_get_size(void);
int starpu_combined_worker_get_rank(void);
int starpu_combined_worker_assign_workerid(int nworkers, int workerid_array[]);
int starpu_combined_worker_get_description(int workerid, int *worker_size, int **combined_workerid);
int starpu_combined_worker_can_execute_task(unsigned workerid, struct starpu_task *task, unsigned nimpl);
/* Marks task for the team of combined worker workerid (push it then with
 * starpu_push_local_task to that id); _n is accepted for compatibility
 * and does nothing: a team is always a combined worker here. */
void starpu_parallel_task_barrier_init(struct starpu_task *task, int workerid);
void starpu_parallel_task_barrier_init_n(struct starpu_task *task, int worker_size);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_WORKER_H */
