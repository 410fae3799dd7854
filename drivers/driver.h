/* driver.h — the driver seam: what a kind of worker and a kind of memory
 * node must provide. This comment is the contract; drivers/template/ is a
 * null driver that documents it by implementing it.
 *
 * Worker drivers (struct drv_ops), one per kind (CPU, CUDA, OpenCL, and the
 * simulated ones from sim/). The common loop (driver_loop.c) runs the cycle
 * of seed 000 on every kind: pick a task (local queue, then the contexts'
 * policies), build up a parallel team when needed, fetch the task's input to
 * the worker's memory node, make transfers progress, execute, then hand the
 * job to termination. A driver supplies:
 *   init(w)      on the worker's thread before the first cycle: bind, set up
 *                the device, announce itself; returns 0 or a negative errno;
 *   execute(w,j) runs implementation j->nimpl of j->task on w (a real kernel,
 *                or in simulation a wait for the predicted duration); returns
 *                0, or a negative errno to report the task failed;
 *   deinit(w)    on the worker's thread after the last cycle;
 *   run(w)       optional: the whole loop, for drivers that need their own;
 *                NULL means init, run_once until shutdown, deinit;
 *   run_once(w)  optional: one cycle; NULL means drv_run_once().
 *
 * Memory-node drivers (struct drv_node_ops), one per kind of node: allocate,
 * free and copy buffers. copy returns 0 when done, or -EAGAIN when started
 * asynchronously with async non-NULL, completed later through test/wait.
 * The data layer reaches nodes only through these (data/memory.c).
 *
 * Devices (GPUs, OpenCL devices) share one asynchronous layer, whatever
 * their kind; their backends in drivers/<kind>/ are thin:
 *   - a device kind (struct drv_device_kind) finds the devices this run
 *     drives and gives their workers and memory nodes their drivers;
 *   - copies in flight: a device node's copy, given a struct drv_async,
 *     queues the copy and returns -EAGAIN; test/wait complete it. The data
 *     layer keeps several per node and completes them from the worker
 *     loop (data/transfer.c);
 *   - tasks in flight: a device worker's execute may return -EAGAIN when
 *     it queued the kernel without waiting (STARPU_*_ASYNC codelets); the
 *     worker then records an event (event_record) and goes on with the
 *     next task, up to its pipeline's depth (STARPU_<KIND>_PIPELINE); the
 *     task ends when its event does (device.c).
 *
 * The tables are versioned: new methods are appended, NULL means absent.
 */
#ifndef VELA_DRIVER_H
#define VELA_DRIVER_H

#include <starpu.h>
#include <sys/types.h>

struct worker;
struct job;
struct drv_async;
struct drv_mf_format;

#define DRV_OPS_VERSION 3

struct drv_ops
{
	unsigned version;
	const char *name;
	enum starpu_worker_archtype arch;
	int (*init)(struct worker *w);
	int (*run_once)(struct worker *w);
	int (*deinit)(struct worker *w);
	int (*run)(struct worker *w);
	int (*execute)(struct worker *w, struct job *j);
	/* Devices (version 2). After execute returned -EAGAIN: an event
	 * marking the end of what w queued so far. test: 1 done, 0 not yet,
	 * <0 failed; wait: 0 or <0; release frees the event. */
	void *(*event_record)(struct worker *w);
	int (*event_test)(void *ev);
	int (*event_wait)(void *ev);
	void (*event_release)(void *ev);
	/* Waits for everything w queued (0 or <0): cheaper than an event
	 * when the worker waits at once (no pipeline, a measured task). */
	int (*sync)(struct worker *w);
	/* Optional: an event (released by event_release) that also tells
	 * when the device reached it, and the device's time in µs between two
	 * such events (<0: failed). With them, a measured asynchronous task
	 * is timed on the device between events around its kernels, the
	 * others in flight as in any run (on an idle queue the launch counts
	 * too); without, it runs alone, timed by the host. */
	void *(*event_record_timed)(struct worker *w);
	double (*event_elapsed_us)(void *start, void *end);
};

struct drv_node_ops
{
	unsigned version;
	const char *name;
	enum starpu_node_kind kind;
	/* Returns 0 on failure. */
	uintptr_t (*malloc)(unsigned node, size_t size, int flags);
	void (*free)(unsigned node, uintptr_t addr, size_t size, int flags);
	int (*copy)(uintptr_t src, size_t src_offset, unsigned src_node,
		    uintptr_t dst, size_t dst_offset, unsigned dst_node,
		    size_t size, void *async);
	int (*copy2d)(uintptr_t src, size_t src_offset, unsigned src_node,
		      uintptr_t dst, size_t dst_offset, unsigned dst_node,
		      size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst,
		      void *async);
	/* async: the struct drv_async given to copy. test: 1 done, 0 not
	 * yet, <0 failed; wait: 0 or <0. Once they report the end, the
	 * driver's event is released and async->event is NULL. */
	int (*test)(void *async);
	int (*wait)(void *async);
	/* Capacity in bytes, or -1 if unknown. */
	ssize_t (*total_memory)(unsigned node);
	/* Releases the node's state at shutdown. */
	void (*unplug)(unsigned node);
	/* Devices (version 2): copies an interface between this kind of node
	 * and another with the interface's own methods for that pair of
	 * kinds (ram_to_opencl, opencl_to_ram_async, ...), the way StarPU
	 * picks them; async as for copy. -ENOSYS: the interface has none,
	 * the data layer then uses any_to_any. */
	int (*copy_interface)(const struct starpu_data_copy_methods *m, void *src_interface, unsigned src_node,
			      void *dst_interface, unsigned dst_node, struct drv_async *async);
	/* Devices (version 2): whether two nodes of this driver copy one to
	 * the other directly (GPU peers); NULL: never, through RAM. */
	int (*peer)(unsigned src_node, unsigned dst_node);
	/* Devices (version 3): the layout multiformat data takes on this
	 * kind of node, read from the application's format_ops (its
	 * <kind>_elemsize, cpu_to_<kind>_cl, <kind>_to_cpu_cl, <kind>_ptr);
	 * NULL: the CPU layout (RAM, disks, MPI slaves running CPU code). */
	void (*mf_format)(const struct starpu_multiformat_data_interface_ops *ops, struct drv_mf_format *f);
};

/* A node kind's multiformat layout (data/interfaces/multiformat.c). */
struct drv_mf_format
{
	const char *kind;		/* "OpenCL", "CUDA": for messages */
	size_t elemsize;		/* bytes per object in this layout */
	size_t ptr_offset;		/* offsetof(struct starpu_multiformat_interface, <kind>_ptr) */
	struct starpu_codelet *to_cl;	/* CPU layout -> this one, run by the node's workers */
	struct starpu_codelet *from_cl;	/* this one -> CPU layout, its CPU implementation */
	const char *to_name, *from_name;	/* their field names in format_ops */
};

/* A copy in flight: what interfaces' copy methods receive as async_data
 * when the data layer lets a copy run asynchronously. A node driver that
 * queues a copy sets event (its own, e.g. a cl_event) and returns -EAGAIN;
 * several copies of one interface (a CSR's three arrays) go to the same
 * in-order queue, so the driver keeps only the last one's event. */
struct drv_async
{
	const struct drv_node_ops *ops;	/* the driver that queued it (set by starpu_interface_copy) */
	void *event;			/* that driver's; NULL: nothing queued */
	size_t bytes;			/* bytes of the copies queued (observers) */
	uint64_t start;			/* trace stamp of the first */
};

/* One device found by a device kind's setup. */
struct drv_device
{
	int devid;			/* among the run's devices of its kind */
	ssize_t memsize;		/* bytes of device memory, -1 if unknown */
	char name[48];			/* the device's own name, for worker names */
	unsigned nworkers;		/* workers sharing it (0 means 1) */
	/* Cores of this machine its workers' threads keep from the CPU
	 * workers (version 3): 0 means one per worker (a GPU's threads
	 * feed it all the time); an MPI slave's mostly wait, 1 for all. */
	unsigned host_cores;
	/* Whether the device runs its copies on the engine that runs its
	 * kernels, one after the other (version 3; 0: copies overlap
	 * kernels, as on GPUs with copy engines). PoCL's CPU device: its
	 * threads do both. Written into the platform file for the
	 * simulation (perfmodel/dev_costs.h). */
	unsigned copies_on_compute;
};

/* A kind of device (drivers/<kind>/). setup finds the devices this run
 * drives, as the configuration and the environment say, prepares them
 * and returns how many (at most max), or a negative errno with a message;
 * teardown releases them after the workers stopped. The workers of these
 * devices run worker_ops, their memory nodes node_ops; pipeline_env names
 * the variable giving how many tasks a worker keeps in flight. */
struct drv_device_kind
{
	unsigned version;
	const char *name;		/* "OpenCL", "CUDA" */
	enum starpu_worker_archtype arch;
	enum starpu_node_kind node_kind;
	const struct drv_ops *worker_ops;
	const struct drv_node_ops *node_ops;
	const char *pipeline_env;
	unsigned pipeline_default;
	int (*setup)(const struct starpu_conf *conf, struct drv_device *out, unsigned max);
	void (*teardown)(void);
	/* Pinned host memory, for kinds whose copies want it (NULL: none).
	 * host_alloc: 0 and *ptr, -ENODEV when the run has no such device,
	 * or a negative errno; host_free: 1 if ptr was its own (freed), else
	 * 0; host_register/unregister pin memory the application allocated
	 * (0, -ENODEV without devices, or a negative errno). */
	int (*host_alloc)(void **ptr, size_t size);
	int (*host_free)(void *ptr);
	int (*host_register)(void *ptr, size_t size);
	int (*host_unregister)(void *ptr);
	/* One line on what the machine has of this kind, for `vela machine`
	 * (found, usable, why not). */
	void (*describe)(char *buf, size_t size);
	/* Version 3, optional: called at the start of every starpu_init,
	 * before the machine is discovered, for kinds whose devices are
	 * other processes (MPI slaves). A process that is one of those
	 * devices serves there and never returns; the others return 0, or a
	 * negative errno with a message. */
	int (*boot)(const struct starpu_conf *conf);
};

/* The device kinds built in, in StarPU's worker order (CUDA, OpenCL,
 * then MPI slaves); NULL-terminated (device.c). */
extern const struct drv_device_kind *const drv_device_kinds[];
/* Runs the kinds' boot hooks (starpu_init, first thing after the
 * configuration): 0 or the first negative errno. */
int drv_devices_boot(const struct starpu_conf *conf);

/* Pinned host memory from the first kind of device of the run that wants
 * it (device.c): 0 and *ptr, or -ENODEV when none does (the caller then
 * allocates plain memory). drv_host_free returns 1 if a kind freed ptr. */
int drv_host_alloc(void **ptr, size_t size);
int drv_host_free(void *ptr);
int drv_host_register(void *ptr, size_t size);
int drv_host_unregister(void *ptr);

/* A device node's copies in flight (device.c), for drivers whose copies
 * end with events of the kind their kernels do (ops' event_test, _wait,
 * _release): drv_async_keep makes ev the end of a's copies (releasing the
 * previous one: one in-order queue) and returns -EAGAIN; drv_async_test
 * and drv_async_wait are the node's test and wait. */
int drv_async_keep(const struct drv_ops *ops, struct drv_async *a, void *ev);
int drv_async_test(const struct drv_ops *ops, struct drv_async *a);
int drv_async_wait(const struct drv_ops *ops, struct drv_async *a);

/* Device workers' pipelines (device.c). drv_pipeline_init sizes w's from
 * its kind's variable (0: no pipeline, every task waited for). */
int drv_pipeline_init(struct worker *w, const struct drv_device_kind *kind);
/* The kind's pipeline depth, or -EINVAL (message) when its variable is
 * malformed: checked at every starpu_init, devices or not. */
int drv_pipeline_depth(const struct drv_device_kind *kind);
void drv_pipeline_fini(struct worker *w);
/* Queues a launched job with the event ending it (NULL: none yet). */
void drv_pipeline_push(struct worker *w, struct job *j, void *ev);
/* Queues a launched job that is measured: start and end are timed events
 * around its kernels (event_record_timed); when it ends, the device's time
 * between them is its performance model's sample. */
void drv_pipeline_push_timed(struct worker *w, struct job *j, void *start, void *end);
/* Before queuing a task's kernels: records the event ending the newest job
 * in flight, if it has none yet. */
void drv_pipeline_mark(struct worker *w);
/* Ends the jobs whose events are done (oldest first, stopping at the first
 * one not done); with wait, waits for the oldest first. Returns how many
 * ended. */
int drv_pipeline_progress(struct worker *w, int wait);
/* Ends every job in flight on w (before waiting for memory, or measuring
 * a task alone). */
void drv_pipeline_drain(struct worker *w);
/* Jobs in flight on w (0 for workers without a pipeline); whether its
 * pipeline is full. */
unsigned drv_pipeline_busy(const struct worker *w);
int drv_pipeline_full(const struct worker *w);
/* Ends a job after its kernel: observers, policy hooks, data release,
 * termination (driver_loop.c). */
void drv_job_end(struct worker *w, struct job *j, int ret);

/* Real drivers. */
extern const struct drv_ops drv_cpu_ops;
/* The null driver of drivers/template/ (instantly "executes" tasks). */
extern const struct drv_ops drv_template_ops;
extern const struct drv_node_ops drv_ram_node_ops;
extern const struct drv_node_ops drv_disk_node_ops;

/* The common loop (driver_loop.c). */
int drv_run_once(struct worker *w);
int drv_run(struct worker *w);
/* Entry point of a worker thread (arg: struct worker *). */
void *drv_worker_thread(void *arg);
/* Runs the termination of a job whose execution finished on w. */
void drv_post_exec(struct worker *w, struct job *j);
/* starpu_init waits for the n worker threads it started to be ready. */
void drv_reset_start_count(void);
void drv_wait_started(unsigned n);

#endif /* VELA_DRIVER_H */
