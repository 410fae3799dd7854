/* compat_hwloc: an application that calls hwloc itself links with the
 * runtime's pkg-config flags alone (issue 23, group 7): StarPU's
 * starpu-1.3.pc requires hwloc publicly, so does vela.pc.
 */
#include "compat.h"

#include <hwloc.h>

int main(void)
{
	hwloc_topology_t topo;
	CHECK(hwloc_topology_init(&topo) == 0);
	CHECK(hwloc_topology_load(topo) == 0);
	int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	CHECK(npus > 0);
	hwloc_topology_destroy(topo);
	int ret = compat_start(1, NULL);
	if (ret == -ENODEV)
		return 77;
	CHECK(ret == 0);
	if (!ret)
	{
		CHECK(starpu_cpu_worker_get_count() == 1);
		starpu_shutdown();
	}
	return compat_result("compat_hwloc");
}
