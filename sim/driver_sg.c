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
 * contended.
 */
#include "sim/sg_internal.h"
#include "drivers/driver.h"

static int sg_execute(struct worker *w, struct job *j)
{
	double us;
	int ret = sg_core->task_duration_us(w, j, &us);
	if (ret)
		return ret;
	if (us > 0)
		sg_actor_sleep_for(us * 1e-6);
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
	.execute = sg_execute,
};

const struct drv_ops drv_sg_opencl_ops = {
	.version = DRV_OPS_VERSION,
	.name = "simulated opencl",
	.arch = STARPU_OPENCL_WORKER,
	.execute = sg_execute,
};

/* A worker of a simulated MPI slave: one of the slave's cores (its host
 * MPI_MS<k>_CPU<i>), its data on the slave's memory node. */
const struct drv_ops drv_sg_mpi_ms_ops = {
	.version = DRV_OPS_VERSION,
	.name = "simulated mpi_ms",
	.arch = STARPU_MPI_MS_WORKER,
	.execute = sg_execute,
};
