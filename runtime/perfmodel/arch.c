/* arch.c — arch combinations ("combs") and the workers' perf archs.
 *
 * A comb is a set of devices a task can run on: one CPU core, one CUDA
 * device, or (for parallel tasks) several cores. Every distinct comb gets a
 * process-wide number, in order of first appearance; models index their
 * per-arch parts by it. As in StarPU, all CPU cores share one arch
 * ({CPU, devid 0, ncores 1}): they are assumed identical, so a measurement
 * on any core calibrates all of them; a device's arch carries its id.
 *
 * The table only grows (until pm_combs_reset at shutdown), so a comb's
 * arch pointer stays valid while the runtime is up. comb_lock is a leaf.
 */
#include "perfmodel/perfmodel.h"
#include "core/rt.h"
#include "core/workers.h"
#include "core/combined.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct comb_slot
{
	struct starpu_perfmodel_arch arch;	/* devices points to devs */
	struct starpu_perfmodel_device devs[PM_MAX_DEVICES];
};

static os_mutex_t comb_lock = OS_MUTEX_INITIALIZER;
static struct comb_slot combs[PM_MAX_COMBS];
static _Atomic int ncombs;

/* Each worker's comb number (set by pm_workers_archs_setup). */
static int worker_comb[STARPU_NMAXWORKERS];

static int same(const struct starpu_perfmodel_arch *a, int ndevices, const struct starpu_perfmodel_device *d)
{
	if (a->ndevices != ndevices)
		return 0;
	for (int i = 0; i < ndevices; i++)
		if (a->devices[i].type != d[i].type || a->devices[i].devid != d[i].devid || a->devices[i].ncores != d[i].ncores)
			return 0;
	return 1;
}

static int find_locked(int ndevices, const struct starpu_perfmodel_device *devices)
{
	int n = atomic_load(&ncombs);
	for (int c = 0; c < n; c++)
		if (same(&combs[c].arch, ndevices, devices))
			return c;
	return -1;
}

int pm_comb_get(int ndevices, const struct starpu_perfmodel_device *devices)
{
	if (ndevices <= 0 || ndevices > PM_MAX_DEVICES || !devices)
		return -1;
	os_mutex_lock(&comb_lock);
	int c = find_locked(ndevices, devices);
	os_mutex_unlock(&comb_lock);
	return c;
}

int pm_comb_add(int ndevices, const struct starpu_perfmodel_device *devices)
{
	if (ndevices <= 0 || ndevices > PM_MAX_DEVICES || !devices)
		return -EINVAL;
	os_mutex_lock(&comb_lock);
	int c = find_locked(ndevices, devices);
	if (c < 0)
	{
		int n = atomic_load(&ncombs);
		if (n == PM_MAX_COMBS)
		{
			os_mutex_unlock(&comb_lock);
			return -ENOSPC;
		}
		struct comb_slot *s = &combs[n];
		memcpy(s->devs, devices, sizeof(*devices) * (size_t) ndevices);
		s->arch.ndevices = ndevices;
		s->arch.devices = s->devs;
		atomic_store(&ncombs, n + 1);
		c = n;
	}
	os_mutex_unlock(&comb_lock);
	return c;
}

int pm_ncombs(void)
{
	return atomic_load(&ncombs);
}

const struct starpu_perfmodel_arch *pm_comb_arch(int comb)
{
	if (comb < 0 || comb >= atomic_load(&ncombs))
		return NULL;
	return &combs[comb].arch;
}

int pm_arch_comb(const struct starpu_perfmodel_arch *arch)
{
	if (!arch || !arch->devices)
		return -1;
	/* Fast path: one of the table's own arch structs (what
	 * starpu_worker_get_perf_archtype returns). */
	uintptr_t p = (uintptr_t) arch, base = (uintptr_t) &combs[0];
	if (p >= base && p < (uintptr_t) &combs[PM_MAX_COMBS] && (p - base) % sizeof(combs[0]) == 0)
	{
		int c = (int) ((p - base) / sizeof(combs[0]));
		if (c < atomic_load(&ncombs))
			return c;
	}
	int c = pm_comb_add(arch->ndevices, arch->devices);
	return c < 0 ? -1 : c;
}

void pm_combs_reset(void)
{
	os_mutex_lock(&comb_lock);
	atomic_store(&ncombs, 0);
	os_mutex_unlock(&comb_lock);
}

void pm_workers_archs_setup(void)
{
	for (unsigned i = 0; i < rt.nworkers && i < STARPU_NMAXWORKERS; i++)
	{
		struct worker *w = &rt.workers[i];
		struct starpu_perfmodel_device d = {
			.type = w->arch,
			/* Identical CPU cores share one arch (see the header). */
			.devid = w->arch == STARPU_CPU_WORKER ? 0 : w->devid,
			.ncores = 1,
		};
		worker_comb[i] = pm_comb_add(1, &d);
	}
}

int pm_worker_comb(unsigned workerid)
{
	if (workerid >= rt.nworkers || workerid >= STARPU_NMAXWORKERS)
		return -1;
	return worker_comb[workerid];
}

/* ------------------------------------------------------------------ */
/* Public API. */

struct starpu_perfmodel_arch *starpu_worker_get_perf_archtype(int workerid, unsigned sched_ctx_id)
{
	(void) sched_ctx_id;
	const struct combined_worker *cw = combined_get(workerid);
	if (cw)
		return (struct starpu_perfmodel_arch *) pm_comb_arch(cw->comb);
	if (workerid < 0 || (unsigned) workerid >= rt.nworkers || workerid >= STARPU_NMAXWORKERS)
	{
		rt_error("starpu_worker_get_perf_archtype: no worker %d (there are %u)", workerid, rt.nworkers);
		return NULL;
	}
	int c = worker_comb[workerid];
	return c < 0 ? NULL : &combs[c].arch;
}

int starpu_perfmodel_get_narch_combs(void)
{
	return pm_ncombs();
}

int starpu_perfmodel_arch_comb_add(int ndevices, struct starpu_perfmodel_device *devices)
{
	int c = pm_comb_add(ndevices, devices);
	if (c == -ENOSPC)
		rt_error("starpu_perfmodel_arch_comb_add: the table of arch combinations is full (%d)", PM_MAX_COMBS);
	else if (c < 0)
		rt_error("starpu_perfmodel_arch_comb_add: ndevices=%d must be between 1 and %d, with devices", ndevices, PM_MAX_DEVICES);
	return c;
}

int starpu_perfmodel_arch_comb_get(int ndevices, struct starpu_perfmodel_device *devices)
{
	return pm_comb_get(ndevices, devices);
}

struct starpu_perfmodel_arch *starpu_perfmodel_arch_comb_fetch(int comb)
{
	return (struct starpu_perfmodel_arch *) pm_comb_arch(comb);
}

char *starpu_perfmodel_get_archtype_name(enum starpu_worker_archtype archtype)
{
	return (char *) pm_archtype_name(archtype);
}

void starpu_perfmodel_get_arch_name(struct starpu_perfmodel_arch *arch, char *archname, size_t maxlen, unsigned nimpl)
{
	pm_arch_name(arch, pm_arch_comb(arch), nimpl, archname, maxlen);
}

double starpu_worker_get_relative_speedup(struct starpu_perfmodel_arch *perf_arch)
{
	/* StarPU 1.3's relative speeds of device kinds, used by STARPU_COMMON
	 * models: a CUDA device is taken to be 13.33 times a core. */
	if (!perf_arch)
		return NAN;
	double speedup = 0.0;
	for (int i = 0; i < perf_arch->ndevices; i++)
	{
		double f;
		switch (perf_arch->devices[i].type)
		{
		case STARPU_CPU_WORKER: f = 1.0; break;
		case STARPU_CUDA_WORKER: f = 13.33; break;
		case STARPU_OPENCL_WORKER: f = 12.22; break;
		case STARPU_MIC_WORKER: f = 0.5; break;
		case STARPU_MPI_MS_WORKER: f = 1.0; break;
		default: f = NAN; break;
		}
		speedup += f * perf_arch->devices[i].ncores;
	}
	return speedup;
}
