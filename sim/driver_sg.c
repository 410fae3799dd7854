/* driver_sg.c — the simulated worker drivers, CPU and GPU: a task "runs"
 * for the duration its codelet's performance model predicts for the
 * worker's perf arch (libvela computes it, sim_loader.c); the kernel is not
 * called (a CPU codelet flagged STARPU_CODELET_SIMGRID_EXECUTE excepted).
 * Everything else of the worker cycle (pop, data fetch, termination) is the
 * common loop's: a GPU worker fetches its data to its device's memory node,
 * through the simulated node driver (node_sg.c).
 *
 * Each worker has a platform host of its own (CPU<k>, CUDA<k>, OpenCL<k>,
 * MPI_MS<k>_CPU<i>),
 * so a plain delay (sg_actor_sleep_for) gives the same times as consuming
 * the host's flops, at half the cost; hosts shared by several workers
 * (STARPU_NCPU above the platform's CPU count) are not modelled as
 * contended. A host marked time-shared (SG_PROP_TIME_SHARED: one core
 * that the rank's main, worker and MPI progression thread share) runs
 * CPU tasks and the runtime's costs as executions of its flops instead,
 * which share the core with whatever else computes there (sg_busy_us).
 *
 * A GPU worker queues the kernels of asynchronous codelets
 * (STARPU_CUDA_ASYNC, STARPU_OPENCL_ASYNC) and goes on, as the real device
 * worker does (drivers/device.c): while a kernel runs, the worker takes its
 * next task, fetches that task's data (copies that overlap the kernel) and
 * queues it behind, up to its pipeline's depth (STARPU_<KIND>_PIPELINE).
 * The device's queue is a date: when the last kernel queued on it ends.
 * A queued kernel starts when the one before it ends, or at once; its
 * event is that end, which the worker tests against the clock or sleeps
 * until. Without a pipeline, or for a synchronous codelet, the worker waits
 * the duration itself, as before. A device whose copies run on the engine
 * of its kernels (copies_on_compute) queues its kernels on that engine
 * instead (engine_sg.c), where a copy may move those not started yet: its
 * events then follow their kernel.
 */
#include "sim/sg_internal.h"
#include "drivers/driver.h"

#include <errno.h>
#include <simgrid/engine.h>
#include <stdlib.h>

static int sg_execute(struct worker *w, struct job *j)
{
	double us;
	int ret = sg_core->task_duration_us(w, j, &us);
	if (ret)
		return ret;
	sg_busy_us(us);
	return 0;
}

/* The queue of a simulated device worker: when the last kernel queued on
 * it ends (simulated seconds). Only the worker's own actor reads or writes
 * its entry, found by the worker's address: made when the worker starts,
 * removed when it stops (a later session's workers start afresh). */
struct sg_queue
{
	const struct worker *w;
	double end;
	/* On a device whose engine also runs its copies (engine_sg.c): the
	 * last kernel queued (a reference), whose end moves when a copy
	 * goes before it; end is then unused. */
	struct sg_kernel *last;
};
static struct sg_queue queues[STARPU_NMAXWORKERS];
static unsigned nqueues;

static struct sg_queue *queue_of(const struct worker *w)
{
	for (unsigned i = 0; i < nqueues; i++)
		if (queues[i].w == w)
			return &queues[i];
	if (nqueues == STARPU_NMAXWORKERS)
		return NULL;
	queues[nqueues] = (struct sg_queue){ .w = w, .end = 0.0, .last = NULL };
	return &queues[nqueues++];
}

static int sg_dev_init(struct worker *w)
{
	struct sg_queue *q = queue_of(w);
	if (!q)
		return -ENOMEM;
	q->end = 0.0;
	sg_kernel_put(q->last);
	q->last = NULL;
	return 0;
}

static int sg_dev_deinit(struct worker *w)
{
	for (unsigned i = 0; i < nqueues; i++)
		if (queues[i].w == w)
		{
			sg_kernel_put(queues[i].last);
			queues[i] = queues[--nqueues];
			break;
		}
	return 0;
}

static void sleep_until(double end)
{
	double left = end - sg_clock();
	if (left > 0)
		sg_sleep(left);
}

/* An event: the date its kernels end, or on a device whose engine runs
 * its copies too, its last kernel (a reference), whose end may move. */
struct sg_event
{
	double end;
	struct sg_kernel *k;
};

static int sg_dev_execute(struct worker *w, struct job *j)
{
	double us;
	int ret = sg_core->task_duration_us(w, j, &us);
	if (ret)
		return ret;
	struct sg_queue *q = sg_core->version >= 3 && sg_core->may_queue(w, j) ? queue_of(w) : NULL;
	/* A device whose engine also runs its copies (engine_sg.c). */
	struct sg_engine *engine = sg_engine_of(sg_host_self());
	if (engine)
	{
		struct sg_kernel *k = sg_engine_kernel(engine, us > 0 ? us * 1e-6 : 0.0);
		if (!k)
			return -ENOMEM;
		if (!q)
		{
			sg_kernel_wait(k);
			sg_kernel_put(k);
			return 0;
		}
		sg_kernel_put(q->last);
		q->last = k;
		return -EAGAIN;
	}
	if (!q)
	{
		if (us > 0)
			sg_sleep(us * 1e-6);
		return 0;
	}
	double now = sg_clock();
	q->end = (q->end > now ? q->end : now) + (us > 0 ? us * 1e-6 : 0.0);
	return -EAGAIN;
}

static void *sg_event_record(struct worker *w)
{
	struct sg_queue *q = queue_of(w);
	struct sg_event *ev = malloc(sizeof(*ev));
	if (ev)
	{
		ev->end = q ? q->end : 0.0;
		ev->k = q ? sg_kernel_get(q->last) : NULL;
	}
	return ev;
}

static int sg_event_test(void *ev)
{
	/* Within a picosecond: a sleep until the end may wake an ulp before. */
	const struct sg_event *e = ev;
	return sg_clock() >= (e->k ? sg_kernel_end(e->k) : e->end) - 1e-12;
}

static int sg_event_wait(void *ev)
{
	const struct sg_event *e = ev;
	if (e->k)
		sg_kernel_wait(e->k);
	else
		sleep_until(e->end);
	return 0;
}

static void sg_event_release(void *ev)
{
	if (ev)
		sg_kernel_put(((struct sg_event *) ev)->k);
	free(ev);
}

static int sg_dev_sync(struct worker *w)
{
	struct sg_queue *q = queue_of(w);
	if (q && q->last)
		sg_kernel_wait(q->last);
	else if (q)
		sleep_until(q->end);
	return 0;
}

const struct drv_ops drv_sg_cpu_ops = {
	.version = DRV_OPS_VERSION,
	.name = "simulated cpu",
	.arch = STARPU_CPU_WORKER,
	.execute = sg_execute,
};

const struct drv_ops drv_sg_cuda_ops = {
	.version = DRV_OPS_VERSION,
	.name = "simulated cuda",
	.arch = STARPU_CUDA_WORKER,
	.init = sg_dev_init,
	.deinit = sg_dev_deinit,
	.execute = sg_dev_execute,
	.event_record = sg_event_record,
	.event_test = sg_event_test,
	.event_wait = sg_event_wait,
	.event_release = sg_event_release,
	.sync = sg_dev_sync,
};

const struct drv_ops drv_sg_opencl_ops = {
	.version = DRV_OPS_VERSION,
	.name = "simulated opencl",
	.arch = STARPU_OPENCL_WORKER,
	.init = sg_dev_init,
	.deinit = sg_dev_deinit,
	.execute = sg_dev_execute,
	.event_record = sg_event_record,
	.event_test = sg_event_test,
	.event_wait = sg_event_wait,
	.event_release = sg_event_release,
	.sync = sg_dev_sync,
};

/* A worker of a simulated MPI slave: one of the slave's cores (its host
 * MPI_MS<k>_CPU<i>), its data on the slave's memory node. */
const struct drv_ops drv_sg_mpi_ms_ops = {
	.version = DRV_OPS_VERSION,
	.name = "simulated mpi_ms",
	.arch = STARPU_MPI_MS_WORKER,
	.execute = sg_execute,
};
