/* plugin.c — the entry of libvela-sim.so: the table libvela dlopen()s it
 * for (sim/sim.h).
 */
#include "sim/sg_internal.h"

const struct sim_core *sg_core;
int sg_over;

static void setup(const struct sim_core *core)
{
	/* libvela and its plugin are built together: an older core would lack
	 * the callbacks appended since. */
	sg_core = core;
}

__attribute__((visibility("default")))
const struct sim_plugin vela_sim_plugin = {
	.version = SIM_PLUGIN_VERSION,
	.setup = setup,
	.boot_hijack = sg_boot_hijack,
	.boot_attach = sg_boot_attach,
	.detach = sg_detach,
	.os = &os_sg_ops,
	.cpu_driver = &drv_sg_cpu_ops,
	.ncpus = sg_ncpus,
	.devices = sg_devices,
	.cuda_driver = &drv_sg_cuda_ops,
	.opencl_driver = &drv_sg_opencl_ops,
	.device_node_ops = &drv_sg_device_node_ops,
	.route = sg_route,
	.host_memsize = sg_host_memsize,
	.mpi_ms_driver = &drv_sg_mpi_ms_ops,
	.host_number = sg_host_number,
};
