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
 * The tables are versioned: new methods are appended, NULL means absent.
 */
#ifndef VELA_DRIVER_H
#define VELA_DRIVER_H

#include <starpu.h>
#include <sys/types.h>

struct worker;
struct job;

#define DRV_OPS_VERSION 1

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
	int (*test)(void *async);
	int (*wait)(void *async);
	/* Capacity in bytes, or -1 if unknown. */
	ssize_t (*total_memory)(unsigned node);
	/* Releases the node's state at shutdown. */
	void (*unplug)(unsigned node);
};

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
