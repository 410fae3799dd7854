/* workers.h — workers and their scheduling state (seed 000's protocol).
 *
 * A worker is a thread (or an application thread, for drivers in
 * conf.not_launched_drivers) running the driver loop of drivers/driver.h for
 * one processing unit. Its identity is fixed at init; its scheduling state is
 * protected by its sched_mutex.
 *
 * Locking rules (from seed 000):
 *   - no thread holds two workers' sched_mutex at once;
 *   - a thread holding a sched_mutex takes no scheduling-context lock;
 *   - while a worker is in a scheduling operation (state_sched_op_pending)
 *     another thread may lock its sched_mutex only when the worker has
 *     relaxed (state_relax_refcnt > 0); worker_lock() waits for that.
 * sched_mutex is otherwise a leaf: nothing else is locked while holding it.
 *
 * Idling: a worker that finds no task first polls for a short while (real
 * runs only), counted in rt_npolling; then it announces itself idle (status
 * WS_SLEEP_PENDING, rt_nidle incremented), tries once more to get a task,
 * and sleeps on sched_cond. A thread that makes work available calls
 * worker_wake(), which either signals a sleeping worker or sets
 * state_keep_awake so that a worker about to sleep retries instead.
 * worker_wake_one_idle() skips all of this when no worker is idle, or when
 * polling workers of the context are enough for the queued work: a wake-up
 * costs the pushing thread a system call, polling costs nothing to it. A
 * poller only looks at its own contexts' queues, so for a context that not
 * every worker belongs to, only its members' polling counts.
 */
#ifndef VELA_WORKERS_H
#define VELA_WORKERS_H

#include <starpu.h>
#include <stdatomic.h>
#include "os/os.h"
#include "core/rt.h"

struct drv_ops;
struct drv_device_kind;
struct drv_pipeline;
struct team;

enum worker_status
{
	WS_INIT = 0,
	WS_RUNNING,		/* looking for or running tasks */
	WS_SLEEP_PENDING,	/* announced idle, last look for work */
	WS_SLEEPING,		/* waiting on sched_cond */
	WS_STOPPED
};

struct worker
{
	/* Identity: set by starpu_init, read-only afterwards. */
	int id;
	enum starpu_worker_archtype arch;
	int devid;			/* the device it drives (CPU: its index) */
	unsigned device_rank;		/* among the workers sharing that device */
	int bindid;			/* hwloc logical PU index, -1 if unbound */
	unsigned memory_node;
	char name[64];
	char short_name[16];
	const struct drv_ops *drv;
	int app_driven;			/* in conf.not_launched_drivers */
	void *app_binding;		/* the driving application thread's binding before ours (topo_binding_save) */
	os_thread_t thread;
	int thread_started;

	/* Scheduling state, protected by sched_mutex (see header comment). */
	os_mutex_t sched_mutex;
	os_cond_t sched_cond;
	_Atomic int status;		/* enum worker_status; written under sched_mutex */
	/* The three flags below are atomics so that entering and leaving a
	 * scheduling operation costs no lock when no context change is
	 * pending (see worker_enter_sched_op); they change under sched_mutex
	 * otherwise. */
	_Atomic int state_sched_op_pending;
	int state_relax_refcnt;
	int state_keep_awake;
	_Atomic int state_changing_ctx_notice;	/* a context change waits to update us */
	_Atomic int state_changing_ctx_waiting;	/* someone sleeps on sched_cond until we leave the op */
	/* Idle polling (drivers/driver_loop.c), written by the worker: set
	 * while it polls, and when it started running the task its polling
	 * found (µs, 0: not running one). Read by worker_wake_one_idle for
	 * contexts that not every worker belongs to. */
	_Atomic int polling;
	_Atomic long long poll_exec_start;
	/* Tasks pushed to this very worker (starpu_push_local_task,
	 * execute_on_a_specific_worker), highest priority first. */
	struct starpu_task_list local_tasks;
	/* Those with a task->workerorder (StarPU's static scheduling), by
	 * order: the one numbered next_order (from 1) is popped before the
	 * local queue; the others wait for their turn. */
	struct starpu_task_list ordered_tasks;
	unsigned next_order;
	_Atomic int nlocal_tasks;	/* in both lists */
	/* Set while the worker pops a task: starpu_pause() waits for it to be
	 * clear, so that no pop started before the pause can take a task
	 * submitted after it. */
	_Atomic int popping;

	/* Parallel teams (seed 000; core/combined.h). The request is set by a
	 * master under sched_mutex (readable without it, to notice it cheaply);
	 * ack and blocked_in_parallel under sched_mutex; blocked_in_parallel_
	 * observed is set by starpu_worker_is_blocked_in_parallel. */
	struct team *_Atomic state_block_in_parallel_req;
	int state_block_in_parallel_ack;
	int state_blocked_in_parallel;
	int state_blocked_in_parallel_observed;
	int state_block_in_parallel_rank;	/* rank offered with the request */
	int team_rank;			/* owned by the worker's thread: its rank in the team it runs */

	/* Scheduling contexts the worker belongs to. Written only by a context
	 * change, while the worker is held out of scheduling operations
	 * (state_changing_ctx_notice) and under sched_ctx_change_mutex; read
	 * by the worker in its scheduling operations. */
	unsigned nsched_ctxs;
	unsigned sched_ctxs[STARPU_NMAX_SCHED_CTXS];

	/* Owned by the worker's thread. */
	struct rt_thread tstate;
	struct starpu_task *current_task;
	unsigned current_impl;
	struct team *team;		/* the team whose kernel runs here, or NULL */
	int driver_initialized;		/* app-driven: starpu_driver_init done */
	struct rt_thread *app_tstate;	/* app-driven: the thread's own state, put back at deinit */
	unsigned long executed;		/* tasks run, for statistics */
	/* Devices: the kind, and the tasks in flight (drivers/device.c, owned
	 * by the worker's thread); NULL for CPU workers. */
	const struct drv_device_kind *device_kind;
	struct drv_pipeline *pipeline;
} __attribute__((aligned(64)));

/* Idle workers (announced WS_SLEEP_PENDING or WS_SLEEPING), and workers
 * polling for work before they go idle. */
extern _Atomic int rt_nidle;
extern _Atomic int rt_npolling;
/* When the polling worker started running the task its polling found (µs,
 * 0 when it is not running one): it will be back polling soon, unless the
 * task is long. */
extern _Atomic long long rt_poll_exec_start;

/* Until when (µs) polling workers keep polling although no task came:
 * pushed back by every copy to or from a device (device_copy_activity).
 * A device's copy is run by a thread of its driver (PoCL's, CUDA's) that
 * the copy wakes, and its end wakes the waiting thread: on a machine whose
 * idle cores halt (a VM's vCPUs), each wake-up onto a halted core costs
 * tens of µs, a third of a 1 MiB copy. Pollers keep the cores running
 * while copies come, as StarPU's always-spinning workers do; they stop
 * DEVICE_LINGER_US after the last one. */
extern _Atomic long long rt_devices_copying_until;
#define DEVICE_LINGER_US 1000

void worker_device_copy_activity(int starting);

/* How many workers may poll at once (drivers/driver_loop.c says why). */
#define MAX_POLLERS 2

/* A polling worker running a task is trusted to come back for the next one
 * only for this long; after that, pushers wake a sleeping worker. */
#define POLL_GRACE_US 20

static inline struct worker *worker_get(int id)
{
	return &rt.workers[id];
}

/* The calling thread's worker, or NULL. */
struct worker *worker_self(void);

/* Wakes w if it is asleep or about to sleep; returns 1 if it did. Takes
 * w's sched_mutex (do not hold another worker's). */
int worker_wake(struct worker *w);
/* After pushing task to a queue now holding backlog tasks, wakes one idle
 * worker of sched context ctx that can run it (task NULL: any), unless
 * polling workers will take the backlog. Cheap when nobody is idle.
 * The caller holds ctx's rwlock (a policy's push does); ctx
 * STARPU_NMAX_SCHED_CTXS means any worker and needs no lock. */
void worker_wake_one_idle(unsigned ctx, uint32_t where, int backlog);
/* The kinds of worker (STARPU_CPU, ...) that may run task: what a policy
 * reads before pushing it (once pushed, the task may already be running,
 * or gone). With WORKER_WHERE_RESTRICTED added when task->workerids lets
 * only some workers of those kinds run it: worker_wake_one_idle then wakes
 * every idle worker of the kinds (the ones not allowed go back to sleep)
 * rather than trusting one, or the polling ones. */
uint32_t worker_task_where(const struct starpu_task *task);
#define WORKER_WHERE_RESTRICTED (1u << 31)	/* not a STARPU_* kind */
/* Whether task->workerids (if any) lets worker id run task. */
static inline int worker_task_allowed(const struct starpu_task *task, unsigned id)
{
	if (!task->workerids_len || task->execute_on_a_specific_worker)
		return 1;
	return id / 32 < task->workerids_len && task->workerids && ((task->workerids[id / 32] >> (id % 32)) & 1u);
}
/* Wakes every worker (shutdown, resume). */
void worker_wake_all(void);

/* Seed 000 protocol on the calling worker / another worker.
 * enter blocks while a context change holds a notice on w; leave wakes a
 * thread waiting for w to finish its operation. */
void worker_enter_sched_op(struct worker *w);
void worker_leave_sched_op(struct worker *w);
/* Context changes (sched_ctx.c): notice_begin sets w's notice and waits
 * until w is out of any scheduling operation; from then until notice_end,
 * w starts none, so its context list and the policies' view of it may
 * change. Not on the calling thread's own worker (it is not in one). */
void worker_ctx_notice_begin(struct worker *w);
void worker_ctx_notice_end(struct worker *w);
void worker_relax_on_locked(struct worker *w);
void worker_relax_off_locked(struct worker *w);
/* Locks w's sched_mutex for observation, waiting until w has relaxed if it
 * is in a scheduling operation. */
void worker_lock(struct worker *w);
void worker_unlock(struct worker *w);

/* Whether w has announced itself idle: work queued for it alone (its local
 * queue, a per-worker policy queue) costs the pusher a wake-up, a system
 * call when w is already asleep. A running or polling worker looks at its
 * queues again by itself. */
static inline int worker_is_idle(const struct worker *w)
{
	int st = atomic_load_explicit(&w->status, memory_order_relaxed);
	return st == WS_SLEEPING || st == WS_SLEEP_PENDING;
}

/* For policies choosing between equally good workers: the tasks waiting in
 * w's local queue, plus one if w is idle (waking it costs about as much as
 * a queued task delays the next). */
static inline int worker_local_load(const struct worker *w)
{
	return atomic_load_explicit(&w->nlocal_tasks, memory_order_relaxed) + worker_is_idle(w);
}

/* Local queue (under the worker's own lock). */
void worker_push_local(struct worker *w, struct starpu_task *task, int back);
struct starpu_task *worker_pop_local(struct worker *w);

/* The STARPU_CPU, STARPU_CUDA... bit of a kind of worker. */
uint32_t worker_arch_mask(enum starpu_worker_archtype arch);
/* hwloc_obj_t of the worker's PU (bindid), or NULL; in a simulation the
 * first call loads the topology (topology.c). */
void *worker_hwloc_obj(const struct worker *w);

/* One device the workers are built from: its kind, index, memory node and
 * driver. */
struct device_spec
{
	enum starpu_worker_archtype arch;
	int devid;
	unsigned node;
	const struct drv_ops *drv;
	const struct drv_device_kind *kind;	/* real devices: their kind; simulated GPUs: their pipeline's (devices.c) */
	unsigned nworkers;			/* workers driving it (STARPU_NWORKER_PER_CUDA) */
	unsigned host_cores;			/* cores kept from the CPU workers for their threads */
	char devname[48];			/* real devices: the device's own name */
};

/* The most devices of all kinds a run may have. */
#ifdef STARPU_MAXMPIDEVS
#define WORKERS_MAXDEVS (STARPU_MAXCUDADEVS + STARPU_MAXOPENCLDEVS + STARPU_MAXMPIDEVS)
#else
#define WORKERS_MAXDEVS (STARPU_MAXCUDADEVS + STARPU_MAXOPENCLDEVS)
#endif

/* The devices this run uses (devices.c), each with a memory node added
 * after RAM: simulated ones from the platform, real ones from the device
 * kinds. Returns how many (at most max), or a negative errno. */
int workers_devices_setup(const struct starpu_conf *conf, struct device_spec *out, unsigned max);

/* Creates the worker table from the topology (init.c calls it). */
int workers_setup(void);
void workers_teardown(void);
/* Releases the real devices (after their memory nodes are gone). */
void workers_devices_teardown(void);

/* Whether worker w can run implementation nimpl of task (where masks,
 * implementation present, can_execute). */
int worker_can_execute(struct worker *w, struct starpu_task *task, unsigned nimpl);
/* First implementation w can run, or -1. */
int worker_first_impl(struct worker *w, struct starpu_task *task);

#endif /* VELA_WORKERS_H */
