/* estimate.c — predictions for schedulers: task lengths (µs), energies,
 * and data transfer times from the bus model.
 *
 * A task whose codelet has no model is predicted 0.0 ("unknown", which
 * policies treat as free); a learnt model without enough measurements for
 * the task's footprint on the arch answers NAN, which tells a dm-style
 * policy to run the task there so that the model gets calibrated (with
 * STARPU_CALIBRATE unset, those runs are recorded until the entry holds
 * STARPU_CALIBRATE_MINIMUM samples; see measure.c).
 */
#include "perfmodel/perfmodel.h"
#include "core/rt.h"
#include "data/data.h"
#include "data/memory.h"

#include <math.h>

/* Reads what a prediction needs from (comb, impl) under the read lock. */
struct snapshot
{
	int have;
	starpu_perfmodel_per_arch_cost_function cost;
	struct starpu_perfmodel_regression_model reg;	/* coeff not owned */
	double coeff[PM_MAX_COEFFS];
	int entry;
	double mean;
	unsigned nsample;
	int first_runs;		/* the impl's has_first_runs */
};

static void snapshot(struct starpu_perfmodel_state *st, int comb, unsigned impl, uint32_t fp, struct snapshot *s)
{
	s->have = 0;
	s->entry = 0;
	s->first_runs = 0;
	os_rwlock_rdlock(&st->lock);
	struct pm_comb *c = comb >= 0 && (unsigned) comb < st->data.ncombs ? st->data.combs[comb] : NULL;
	if (c && impl < STARPU_MAXIMPLEMENTATIONS)
	{
		struct pm_impl *im = &c->impl[impl];
		s->have = 1;
		s->first_runs = im->has_first_runs;
		s->cost = im->pa.cost_function;
		s->reg = im->pa.regression;
		if (s->reg.coeff && s->reg.ncoeff <= PM_MAX_COEFFS)
		{
			for (unsigned i = 0; i < s->reg.ncoeff; i++)
				s->coeff[i] = s->reg.coeff[i];
			s->reg.coeff = s->coeff;
		}
		else
		{
			s->reg.coeff = NULL;
			s->reg.ncoeff = 0;
		}
		struct pm_entry *en = pm_history_find(im, fp);
		if (en)
		{
			s->entry = 1;
			s->mean = en->e.mean;
			s->nsample = en->e.nsample;
		}
	}
	os_rwlock_unlock(&st->lock);
}

double pm_expected(struct starpu_perfmodel *model, struct starpu_task *task, const struct starpu_perfmodel_arch *arch, unsigned impl)
{
	return pm_expected_first(model, task, arch, impl, NULL);
}

double pm_expected_first(struct starpu_perfmodel *model, struct starpu_task *task, const struct starpu_perfmodel_arch *arch,
			 unsigned impl, struct pm_first *first)
{
	if (first)
		first->maybe = 0;
	if (!model)
		return 0.0;
	int comb = pm_arch_comb(arch);
	if (comb < 0)
		return NAN;
	struct starpu_perfmodel_arch *a = (struct starpu_perfmodel_arch *) arch;
	unsigned min = pm_conf.calibrate_minimum ? pm_conf.calibrate_minimum : 10;
	switch (model->type)
	{
	case STARPU_COMMON:
		/* A time on a CPU core, scaled by the arch's relative speed. */
		if (!model->cost_function)
			return NAN;
		return model->cost_function(task, impl) / starpu_worker_get_relative_speedup(a);
	case STARPU_PER_ARCH:
	{
		if (model->arch_cost_function)
			return model->arch_cost_function(task, a, impl);
		struct starpu_perfmodel_state *st = pm_state_get(model);
		if (!st)
			return NAN;
		struct snapshot s;
		snapshot(st, comb, impl, 0, &s);
		return s.have && s.cost ? s.cost(task, a, impl) : NAN;
	}
	case STARPU_HISTORY_BASED:
	case STARPU_REGRESSION_BASED:
	case STARPU_NL_REGRESSION_BASED:
	case STARPU_MULTIPLE_REGRESSION_BASED:
		break;
	default:
		return NAN;
	}

	struct starpu_perfmodel_state *st = pm_state_get(model);
	if (!st)
		return NAN;
	/* Callbacks first, without our lock. */
	uint32_t fp = pm_task_footprint(model, task, arch, comb, impl);
	size_t size = model->type == STARPU_HISTORY_BASED ? 0 : pm_task_size(model, task, arch, comb, impl);
	double params[PM_MAX_COEFFS];
	if (model->type == STARPU_MULTIPLE_REGRESSION_BASED)
	{
		if (!model->parameters || model->nparameters == 0 || model->nparameters > PM_MAX_COEFFS)
			return NAN;
		model->parameters(task, params);
	}
	struct snapshot s;
	snapshot(st, comb, impl, fp, &s);
	if (!s.have)
		return NAN;
	if (first && model->type != STARPU_MULTIPLE_REGRESSION_BASED)
	{
		first->maybe = s.first_runs != 0;
		first->comb = comb;
		first->fp = fp;
	}
	int calibrated = s.entry && s.nsample >= min;
	switch (model->type)
	{
	case STARPU_HISTORY_BASED:
		return calibrated ? s.mean : NAN;
	case STARPU_REGRESSION_BASED:
		return s.reg.valid ? s.reg.alpha * pow((double) size, s.reg.beta) : NAN;
	case STARPU_NL_REGRESSION_BASED:
		if (s.reg.nl_valid)
			return s.reg.a * pow((double) size, s.reg.b) + s.reg.c;
		return calibrated ? s.mean : NAN;
	default:
		return s.reg.multi_valid ? pm_mlr_eval(model, s.reg.coeff, s.reg.ncoeff, params) : NAN;
	}
}

double starpu_task_expected_length(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	if (!task || !task->cl || !arch)
		return 0.0;
	return pm_expected(task->cl->model, task, arch, nimpl);
}

double starpu_task_expected_energy(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	if (!task || !task->cl || !arch)
		return 0.0;
	return pm_expected(task->cl->energy_model, task, arch, nimpl);
}

double starpu_task_expected_conversion_time(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	(void) task;
	(void) arch;
	(void) nimpl;
	return 0.0;
}

double starpu_perfmodel_history_based_expected_perf(struct starpu_perfmodel *model, struct starpu_perfmodel_arch *arch, uint32_t footprint)
{
	int comb = pm_arch_comb(arch);
	struct starpu_perfmodel_state *st = model && comb >= 0 ? pm_state_get(model) : NULL;
	if (!st)
		return NAN;
	struct snapshot s;
	snapshot(st, comb, 0, footprint, &s);
	return s.entry && s.nsample > 0 ? s.mean : NAN;
}

/* ------------------------------------------------------------------ */
/* Data transfers. */

double starpu_data_expected_transfer_time(starpu_data_handle_t handle, unsigned memory_node, enum starpu_data_access_mode mode)
{
	if (!data_handle_valid(handle) || memory_node >= mem_nnodes)
		return 0.0;
	/* Written only: nothing to bring in. */
	if (!(mode & STARPU_R))
		return 0.0;
	os_mutex_lock(&handle->lock);
	/* Valid there, or on its way (a copy running or a prefetch queued
	 * there): nothing more to pay, as StarPU counts it; otherwise a
	 * scheduler would take the data it already sends to a node for a cost
	 * of that node, and spread the readers of one datum over the devices. */
	const struct data_replicate *here = data_rep(handle, memory_node);
	int valid_here = here->state != REP_INVALID || here->transferring || here->requested;
	int src = -1;
	if (!valid_here)
	{
		if (handle->home_node >= 0 && data_rep(handle, handle->home_node)->state != REP_INVALID)
			src = handle->home_node;
		for (unsigned n = 0; src < 0 && n < mem_nnodes; n++)
			if (data_rep(handle, n)->state != REP_INVALID)
				src = (int) n;
	}
	os_mutex_unlock(&handle->lock);
	if (valid_here || src < 0)
		return 0.0;
	return starpu_transfer_predict((unsigned) src, memory_node, starpu_data_get_size(handle));
}

double starpu_task_expected_data_transfer_time(unsigned memory_node, struct starpu_task *task)
{
	if (!task || !task->cl)
		return 0.0;
	double t = 0.0;
	unsigned n = STARPU_TASK_GET_NBUFFERS(task);
	for (unsigned i = 0; i < n; i++)
		t += starpu_data_expected_transfer_time(STARPU_TASK_GET_HANDLE(task, i), memory_node, STARPU_TASK_GET_MODE(task, i));
	return t;
}

double starpu_task_expected_data_transfer_time_for(struct starpu_task *task, unsigned worker)
{
	if (worker >= rt.nworkers)
		return 0.0;
	return starpu_task_expected_data_transfer_time(starpu_worker_get_memory_node(worker), task);
}

/* ------------------------------------------------------------------ */

static double nop_cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	(void) task;
	(void) arch;
	(void) nimpl;
	return 1.0;
}

struct starpu_perfmodel starpu_perfmodel_nop = {
	.type = STARPU_PER_ARCH,
	.arch_cost_function = nop_cost,
};
