/* devices.c — the devices workers are built from: the simulated ones of the
 * platform, or the real ones the device kinds built in find
 * (drivers/driver.h), each given a memory node of its own after RAM. The
 * worker table (workers.c) makes one or more workers per device.
 */
#include "core/workers.h"
#include "core/sim_loader.h"
#include "data/memory.h"
#include "drivers/driver.h"
#include "perfmodel/dev_costs.h"
#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum starpu_node_kind node_kind_of(enum starpu_worker_archtype arch)
{
	switch (arch)
	{
	case STARPU_CUDA_WORKER: return STARPU_CUDA_RAM;
	case STARPU_MPI_MS_WORKER: return STARPU_MPI_MS_RAM;
	default: return STARPU_OPENCL_RAM;
	}
}

static const char *kind_name(enum starpu_worker_archtype arch)
{
	switch (arch)
	{
	case STARPU_CUDA_WORKER: return "CUDA";
	case STARPU_MPI_MS_WORKER: return "MPI_MS";
	default: return "OpenCL";
	}
}

/* Simulated GPUs keep tasks in flight as the real ones do: what their
 * pipelines need of a device kind (the variable and default depth of the
 * real kinds, drivers/cuda and drivers/opencl). MPI slaves queue nothing
 * (their codelets have no asynchronous flag). */
static const struct drv_device_kind sim_cuda_kind = {
	.version = 3,
	.name = "CUDA",
	.arch = STARPU_CUDA_WORKER,
	.node_kind = STARPU_CUDA_RAM,
	.pipeline_env = "STARPU_CUDA_PIPELINE",
	.pipeline_default = 2,
};

static const struct drv_device_kind sim_opencl_kind = {
	.version = 3,
	.name = "OpenCL",
	.arch = STARPU_OPENCL_WORKER,
	.node_kind = STARPU_OPENCL_RAM,
	.pipeline_env = "STARPU_OPENCL_PIPELINE",
	.pipeline_default = 8,
};

/* How many of the avail devices of a kind to use: all unless conf says
 * fewer (-1: all). */
static unsigned devices_wanted(int conf_n, unsigned avail, const char *what, const char *var)
{
	if (conf_n < 0)
		return avail;
	if ((unsigned) conf_n > avail)
	{
		/* Simulated devices (real ones warn in their driver). */
		if (sim_running())
			rt_warn("starpu_init: %d %s device(s) requested (%s), but the machine has %u; using %u",
				conf_n, what, var, avail, avail);
		return avail;
	}
	return (unsigned) conf_n;
}

/* Real devices: each kind built in (drivers/driver.h) finds its own, as
 * conf and the environment say; CUDA first, then OpenCL, as StarPU orders
 * workers. */
static int real_devices_setup(const struct starpu_conf *conf, struct device_spec *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i < STARPU_MAXNODES; i++)
		pm_dev_costs[i].copies_on_compute = 0;
	for (const struct drv_device_kind *const *k = drv_device_kinds; *k && n < max; k++)
	{
		struct drv_device found[WORKERS_MAXDEVS];
		memset(found, 0, sizeof(found));	/* fields a kind of an older version does not set */
		unsigned room = max - n < sizeof(found) / sizeof(found[0]) ? max - n : sizeof(found) / sizeof(found[0]);
		if (drv_pipeline_depth(*k) < 0)
			return -EINVAL;
		int nfound = (*k)->setup(conf, found, room);
		if (nfound < 0)
			return nfound;
		for (int i = 0; i < nfound; i++)
		{
			char name[32];
			snprintf(name, sizeof(name), "%s %d", (*k)->name, found[i].devid);
			int node = memory_node_add((*k)->node_kind, found[i].devid, (*k)->node_ops, NULL, found[i].memsize, name);
			if (node < 0)
				return node;
			if (node < STARPU_MAXNODES)
				pm_dev_costs[node].copies_on_compute = found[i].copies_on_compute != 0;
			out[n].arch = (*k)->arch;
			out[n].devid = found[i].devid;
			out[n].node = (unsigned) node;
			out[n].drv = (*k)->worker_ops;
			out[n].kind = *k;
			out[n].nworkers = found[i].nworkers ? found[i].nworkers : 1;
			out[n].host_cores = found[i].host_cores ? found[i].host_cores : out[n].nworkers;
			snprintf(out[n].devname, sizeof(out[n].devname), "%s", found[i].name);
			n++;
		}
	}
	return (int) n;
}

void workers_devices_teardown(void)
{
	for (const struct drv_device_kind *const *k = drv_device_kinds; *k; k++)
		if ((*k)->teardown)
			(*k)->teardown();
}

/* The devices this run uses, each with a memory node of its own, added
 * after RAM (node 0) in worker order. Simulated runs: the platform's
 * CUDA<k>, OpenCL<k> and MPI_MS<k> hosts, restricted by conf.ncuda /
 * conf.nopencl / conf.nmpi_ms (STARPU_NCUDA / STARPU_NOPENCL /
 * STARPU_NMPI_MS), a slave with a worker per core (MPI_MS<k>_CPU<i>
 * hosts, at most STARPU_NMPIMSTHREADS); real runs: the devices the
 * drivers find (MPI slaves: other processes, drivers/mp/). Returns the
 * number of devices, or a negative errno. */
int workers_devices_setup(const struct starpu_conf *conf, struct device_spec *out, unsigned max)
{
	if (!sim_running())
		return real_devices_setup(conf, out, max);
	for (unsigned i = 0; i < STARPU_MAXNODES; i++)
		pm_dev_costs[i].copies_on_compute = 0;
	struct sim_device sd[WORKERS_MAXDEVS];
	unsigned nsd = sim_devices(sd, sizeof(sd) / sizeof(sd[0]));
	if (nsd > sizeof(sd) / sizeof(sd[0]))
		nsd = sizeof(sd) / sizeof(sd[0]);
	unsigned avail_cuda = 0, avail_opencl = 0, avail_ms = 0;
	for (unsigned i = 0; i < nsd; i++)
	{
		if (sd[i].arch == STARPU_CUDA_WORKER)
			avail_cuda++;
		else if (sd[i].arch == STARPU_OPENCL_WORKER)
			avail_opencl++;
		else if (sd[i].arch == STARPU_MPI_MS_WORKER)
			avail_ms++;
	}
	unsigned want_cuda = devices_wanted(conf->ncuda, avail_cuda, "CUDA", "STARPU_NCUDA / conf.ncuda");
	unsigned want_opencl = devices_wanted(conf->nopencl, avail_opencl, "OpenCL", "STARPU_NOPENCL / conf.nopencl");
	unsigned want_ms = devices_wanted(conf->nmpi_ms, avail_ms, "MPI slave", "STARPU_NMPI_MS / conf.nmpi_ms");
	/* MPI slaves: as many workers as the slave has cores, or
	 * STARPU_NMPIMSTHREADS (as the real driver: drivers/mp/). */
	unsigned ms_threads = 0;
	const char *t = getenv("STARPU_NMPIMSTHREADS");
	if (t && *t)
	{
		char *end;
		long v = strtol(t, &end, 10);
		if (*end || v < 1 || v > STARPU_NMAXWORKERS)
		{
			rt_error("starpu_init: STARPU_NMPIMSTHREADS='%s' must be a number of threads per MPI slave, 1 to %d (-EINVAL)",
				 t, STARPU_NMAXWORKERS);
			return -EINVAL;
		}
		ms_threads = (unsigned) v;
	}
	unsigned n = 0, ncuda = 0, nopencl = 0, nms = 0;
	for (unsigned i = 0; i < nsd && n < max; i++)
	{
		enum starpu_worker_archtype arch = (enum starpu_worker_archtype) sd[i].arch;
		if (arch == STARPU_CUDA_WORKER ? ncuda++ >= want_cuda
		    : arch == STARPU_OPENCL_WORKER ? nopencl++ >= want_opencl : nms++ >= want_ms)
			continue;
		char name[32];
		snprintf(name, sizeof(name), "%s %d", kind_name(arch), sd[i].devid);
		int node = memory_node_add(node_kind_of(arch), sd[i].devid, sim_device_node_ops(), NULL, sd[i].memsize,
					   name);
		if (node < 0)
			return node;
		/* A device whose copies run on the engine of its kernels, as
		 * the platform says (PoCL's CPU device). */
		double shared;
		if (node < STARPU_MAXNODES && sim_host_number(sd[i].host, PM_PROP_COPIES_ON_COMPUTE, &shared) == 0)
			pm_dev_costs[node].copies_on_compute = shared != 0.0;
		out[n].arch = arch;
		out[n].devid = sd[i].devid;
		out[n].node = (unsigned) node;
		out[n].drv = sim_device_driver(arch);
		out[n].kind = arch == STARPU_CUDA_WORKER ? &sim_cuda_kind
			: arch == STARPU_OPENCL_WORKER ? &sim_opencl_kind : NULL;
		out[n].nworkers = 1;
		out[n].host_cores = 1;
		if (arch == STARPU_MPI_MS_WORKER)
			out[n].nworkers = ms_threads && ms_threads < sd[i].ncores ? ms_threads : sd[i].ncores;
		out[n].devname[0] = 0;
		n++;
	}
	return (int) n;
}
