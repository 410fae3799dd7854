/* driver_sg.c — the simulated CPU driver: a task "runs" for the duration
 * its codelet's performance model predicts for the worker's arch (libvela
 * computes it, sim_loader.c); the kernel is not called. Everything else of
 * the worker cycle (pop, data fetch, termination) is the common loop's.
 *
 * Each CPU worker has a platform host CPU<k> of its own, so a plain delay
 * (sg_actor_sleep_for) gives the same times as consuming the host's
 * flops, at half the cost; hosts shared by several workers (STARPU_NCPU
 * above the platform's CPU count) are not modelled as contended.
 */
#include "sim/sg_internal.h"
#include "drivers/driver.h"

static int sg_cpu_execute(struct worker *w, struct job *j)
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
	.execute = sg_cpu_execute,
};
