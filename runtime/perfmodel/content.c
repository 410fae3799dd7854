/* content.c — model content: the containers of struct pm_data (combs,
 * implementations, history, regressions) and the arch names files use.
 * Nothing here touches the runtime, so the file parser and writer can be
 * built alone (the fuzzer does).
 */
#include "perfmodel/perfmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pm_data_init(struct pm_data *d)
{
	memset(d, 0, sizeof(*d));
}

void pm_impl_free(struct pm_impl *impl)
{
	pm_history_free(impl);
	free(impl->pa.regression.coeff);
	impl->pa.regression.coeff = NULL;
	impl->pa.regression.ncoeff = 0;
	free(impl->mlr_new.v);
	impl->mlr_new.v = NULL;
	impl->mlr_new.n = impl->mlr_new.cap = 0;
	free(impl->mlr_header);
	impl->mlr_header = NULL;
}

void pm_data_free(struct pm_data *d)
{
	for (unsigned c = 0; c < d->ncombs; c++)
	{
		struct pm_comb *comb = d->combs[c];
		if (!comb)
			continue;
		for (unsigned i = 0; i < STARPU_MAXIMPLEMENTATIONS; i++)
			pm_impl_free(&comb->impl[i]);
		free(comb);
		d->combs[c] = NULL;
	}
	d->ncombs = 0;
	free(d->note);
	d->note = NULL;
}

static void regression_init(struct starpu_perfmodel_regression_model *r)
{
	memset(r, 0, sizeof(*r));
	r->alpha = r->beta = NAN;
	r->a = r->b = r->c = NAN;
}

struct pm_comb *pm_comb_new(int ndevices, const struct starpu_perfmodel_device *devices)
{
	struct pm_comb *comb = calloc(1, sizeof(*comb));
	if (!comb)
		return NULL;
	comb->ndevices = ndevices;
	memcpy(comb->devices, devices, sizeof(*devices) * (size_t) ndevices);
	for (unsigned i = 0; i < STARPU_MAXIMPLEMENTATIONS; i++)
		regression_init(&comb->impl[i].pa.regression);
	return comb;
}

const char *pm_archtype_name(enum starpu_worker_archtype type)
{
	switch (type)
	{
	case STARPU_CPU_WORKER: return "cpu";
	case STARPU_CUDA_WORKER: return "cuda";
	case STARPU_OPENCL_WORKER: return "opencl";
	case STARPU_MIC_WORKER: return "mic";
	case STARPU_MPI_MS_WORKER: return "mpi_ms";
	default: return "unknown";
	}
}

void pm_arch_name(const struct starpu_perfmodel_arch *arch, int comb, unsigned impl, char *buf, size_t size)
{
	if (!arch || arch->ndevices < 1)
	{
		snprintf(buf, size, "invalid_impl%u (Comb%d)", impl, comb);
		return;
	}
	snprintf(buf, size, "%s%d_impl%u (Comb%d)", pm_archtype_name(arch->devices[0].type), arch->devices[0].devid, impl, comb);
}

