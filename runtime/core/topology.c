/* topology.c — the machine as hwloc sees it: cores, processing units, and
 * binding threads to them. Loaded once per process (hwloc discovery costs
 * milliseconds) and kept for later init cycles.
 *
 * The workers' cores: with STARPU_WORKERS_GETBIND (default 1) only those
 * of the CPU binding the application gave the thread calling starpu_init
 * (an MPI launcher's --bind-to, taskset, numactl: the main thread inherits
 * it), read at each starpu_init (topo_binding_update). An application
 * thread that drove a worker gets its binding back when the worker stops
 * (topo_binding_save, _restore), so that it does not shrink the next
 * init's cores. Without this, every rank of
 * `mpirun --bind-to core -np 2` put its first worker on core 0, two
 * workers on one core while the other ran only the ranks' other threads.
 *
 * A simulation does not discover this machine at starpu_init: its cores
 * are the platform's (sim_ncpus), the CPU worker of simulated core i is
 * bound to PU i, and hwloc's discovery (its plugins' libraries, /sys)
 * was a third of a simulated run's start-up. The topology is loaded the
 * first time something asks for it (starpu_get_hwloc_topology, a
 * worker's hwloc object: tree policies, combined workers).
 */
#include "core/conf.h"
#include "core/rt.h"
#include "core/sim_loader.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>

static hwloc_topology_t topo;
static int topo_loaded;
static int topo_deferred;	/* simulation: load on first use */
static os_mutex_t topo_mutex = OS_MUTEX_INITIALIZER;

/* The cores workers may use (starpu_init only, one thread). avail_pu:
 * per usable core, in logical order, the logical index of its first PU in
 * the binding; NULL when every core is usable. */
static int *avail_pu;
static unsigned avail_ncores, avail_npus;

static int load_now(void)
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

int topo_load(void)
{
	if (sim_running() && !topo_loaded)
	{
		topo_deferred = 1;
		return 0;
	}
	return load_now();
}

void *topo_hwloc(void)
{
	if (!topo_loaded && topo_deferred && sim_running())
		(void) load_now();
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
	if (sim_running())	/* one PU per simulated core */
		return (int) core;
	hwloc_obj_t c = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, core);
	if (!c)
		return (int) (core % topo_npus());
	hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topo, c->cpuset, HWLOC_OBJ_PU, 0);
	return pu ? (int) pu->logical_index : (int) (core % topo_npus());
}

void *topo_pu_obj(int logical_pu)
{
	if (logical_pu < 0 || !topo_hwloc())
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

void *topo_binding_save(void)
{
	if (!topo_loaded)
		return NULL;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD))
	{
		hwloc_bitmap_free(set);
		set = NULL;
	}
	return set;
}

void topo_binding_restore(void *saved)
{
	if (!saved)
		return;
	hwloc_set_cpubind(topo, saved, HWLOC_CPUBIND_THREAD);
	hwloc_bitmap_free(saved);
}

/* The calling thread's binding restricted to the machine, in set; -1 if
 * unknown. */
static int thread_binding(hwloc_bitmap_t set)
{
	if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD))
		return -1;
	hwloc_bitmap_and(set, set, hwloc_topology_get_topology_cpuset(topo));
	return 0;
}

/* thread_binding; 0 if it leaves out at least one PU, 1 if it covers them
 * all (or is unknown). */
static int read_binding(hwloc_bitmap_t set)
{
	if (thread_binding(set))
		return 1;
	return hwloc_bitmap_iszero(set) || hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo), set);
}

int topo_binding_update(int getbind)
{
	free(avail_pu);
	avail_pu = NULL;
	avail_ncores = avail_npus = 0;
	if (!getbind || sim_running() || !topo_loaded)
		return 0;
	hwloc_bitmap_t set = hwloc_bitmap_alloc(), tmp = hwloc_bitmap_alloc();
	int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	hwloc_obj_type_t type = ncores > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
	if (ncores <= 0)
		ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (!set || !tmp || ncores <= 0 || read_binding(set))
		goto out;
	avail_pu = malloc(sizeof(*avail_pu) * (size_t) ncores);
	if (!avail_pu)
		goto out;
	for (int i = 0; i < ncores; i++)
	{
		hwloc_obj_t c = hwloc_get_obj_by_type(topo, type, (unsigned) i);
		if (!c || !hwloc_bitmap_intersects(c->cpuset, set))
			continue;
		hwloc_bitmap_and(tmp, c->cpuset, set);
		hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topo, tmp, HWLOC_OBJ_PU, 0);
		if (pu)
			avail_pu[avail_ncores++] = (int) pu->logical_index;
	}
	avail_npus = (unsigned) hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU);
	if (!avail_ncores || !avail_npus)
	{
		free(avail_pu);
		avail_pu = NULL;
		avail_ncores = avail_npus = 0;
	}
out:
	if (set)
		hwloc_bitmap_free(set);
	if (tmp)
		hwloc_bitmap_free(tmp);
	return 0;
}

unsigned topo_self_npus(void)
{
	if (sim_running() || !topo_loaded)
		return 0;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int n = 0;
	if (set && !thread_binding(set))
		n = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU);
	if (set)
		hwloc_bitmap_free(set);
	return n > 0 ? (unsigned) n : 0;
}

unsigned topo_avail_ncores(void)
{
	return avail_pu ? avail_ncores : topo_ncores();
}

unsigned topo_avail_npus(void)
{
	return avail_pu ? avail_npus : topo_npus();
}

int topo_avail_core_first_pu(unsigned i)
{
	if (!avail_pu)
		return topo_core_first_pu(i);
	return avail_pu[i % avail_ncores];
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
