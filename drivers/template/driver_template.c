/* driver_template.c — a null driver that documents the driver seam by
 * implementing it: copy this file to start a new kind of worker.
 *
 * It is a complete, working driver whose kernels do nothing: a worker using
 * it pops tasks, "executes" them instantly and terminates them, which makes
 * it useful to measure the runtime's own overhead. Nothing instantiates it
 * by default.
 */
#include "drivers/driver.h"
#include "core/job.h"
#include "core/workers.h"

/* On the worker's thread, before its first cycle. A device driver selects
 * and initialises its device here, creates streams, and may refuse to start
 * by returning a negative errno (the worker then stays idle). */
static int template_init(struct worker *w)
{
	(void) w;
	return 0;
}

/* Runs implementation j->nimpl of j->task. The buffers are already valid on
 * w->memory_node (task->interfaces or task->dyn_interfaces). Synchronous
 * drivers return when the kernel is done; the common loop then terminates
 * the job. */
static int template_execute(struct worker *w, struct job *j)
{
	(void) w;
	(void) j;
	return 0;
}

/* On the worker's thread, after its last cycle: release the device. */
static int template_deinit(struct worker *w)
{
	(void) w;
	return 0;
}

const struct drv_ops drv_template_ops = {
	.version = DRV_OPS_VERSION,
	.name = "template",
	.arch = STARPU_CPU_WORKER,
	.init = template_init,
	.execute = template_execute,
	.deinit = template_deinit,
	/* run and run_once left NULL: the common loop (drv_run) is used. */
};
