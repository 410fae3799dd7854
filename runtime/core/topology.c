/* topology.c — the machine as hwloc sees it: cores, processing units, and
 * binding threads to them. Loaded once per process (hwloc discovery costs
 * milliseconds) and kept for later init cycles.
 */
#include "core/conf.h"
#include "core/rt.h"
#include "core/sim_loader.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>

static hwloc_topology_t topo;
static int topo_loaded;
static os_mutex_t topo_mutex = OS_MUTEX_INITIALIZER;

int topo_load(void)
{
	int ret = 0;
	os_mutex_lock(&topo_mutex);
	if (!topo_loaded)
	{
		if (hwloc_topology_init(&topo) || hwloc_topology_load(topo))
		{
			rt_error("starpu_init: hwloc could not discover the machine topology");
			ret = -ENODEV;
		}
		else
			topo_loaded = 1;
	}
	os_mutex_unlock(&topo_mutex);
	return ret;
}

void *topo_hwloc(void)
{
	return topo_loaded ? topo : NULL;
}

unsigned topo_ncores(void)
{
	if (sim_running())	/* the simulated machine: the platform's CPU hosts */
		return sim_ncpus();
	int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	if (n <= 0)	/* some virtual machines expose PUs only */
		n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	return n > 0 ? (unsigned) n : 1;
}

unsigned topo_npus(void)
{
	if (sim_running())
		return sim_ncpus();
	int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	return n > 0 ? (unsigned) n : 1;
}

int topo_core_first_pu(unsigned core)
{
	hwloc_obj_t c = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, core);
	if (!c)
		return (int) (core % topo_npus());
	hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topo, c->cpuset, HWLOC_OBJ_PU, 0);
	return pu ? (int) pu->logical_index : (int) (core % topo_npus());
}

void *topo_pu_obj(int logical_pu)
{
	if (!topo_loaded || logical_pu < 0)
		return NULL;
	return hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned) logical_pu);
}

int topo_bind_self(int logical_pu)
{
	hwloc_obj_t pu = topo_pu_obj(logical_pu);
	if (!pu)
		return -EINVAL;
	if (hwloc_set_cpubind(topo, pu->cpuset, HWLOC_CPUBIND_THREAD))
		return -errno;
	return 0;
}

int starpu_get_pu_os_index(unsigned logical_index)
{
	hwloc_obj_t pu = topo_pu_obj((int) logical_index);
	return pu ? (int) pu->os_index : -1;
}

hwloc_topology_t starpu_get_hwloc_topology(void)
{
	return topo_hwloc();
}
