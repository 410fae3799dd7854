/* measure.c — calibration: recording kernel durations into models.
 *
 * The driver loop times a kernel when pm_measure_wanted says so (the
 * codelet has a learnt model with a symbol, and the run is real) and hands
 * the duration to pm_measure_record. Whether the sample is kept follows
 * STARPU_CALIBRATE: with 1 or 2 every sample is; with 0 (the default) only
 * while the entry is not calibrated yet (fewer than STARPU_CALIBRATE_MINIMUM
 * samples for that footprint, arch and implementation, or a regression not
 * yet valid), as StarPU does so that a new model calibrates itself during
 * its first runs and then stays put.
 */
#include "perfmodel/perfmodel.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"

#include <math.h>
#include <starpu_hash.h>
#include <stdatomic.h>
#include <stdlib.h>

int pm_measure_wanted(struct job *job, struct worker *w)
{
	(void) w;
	/* The check point of the design: a simulated kernel lasts what the
	 * model predicted; recording that would feed the model its own output. */
	if (os_is_simulated())
		return 0;
	struct starpu_task *task = job->task;
	struct starpu_perfmodel *m = task && task->cl ? task->cl->model : NULL;
	return m && m->symbol && pm_type_is_learnt(m->type);
}

void pm_measure_record(struct job *job, struct worker *w, double us)
{
	int comb = pm_worker_comb((unsigned) w->id);
	if (comb < 0)
		return;
	pm_record(job->task->cl->model, job->task, comb, job->nimpl, us);
}

static int is_pow2(unsigned n)
{
	return n && !(n & (n - 1));
}

/* Whether a new sample for entry en of impl should be kept. */
static int wanted(struct starpu_perfmodel *model, struct pm_impl *im, struct pm_entry *en)
{
	if (pm_conf.calibrate >= 1)
		return 1;
	unsigned min = pm_conf.calibrate_minimum;
	const struct starpu_perfmodel_regression_model *r = &im->pa.regression;
	switch (model->type)
	{
	case STARPU_REGRESSION_BASED:
		return !r->valid || !en || en->e.nsample < min;
	case STARPU_NL_REGRESSION_BASED:
		return !r->nl_valid || !en || en->e.nsample < min;
	case STARPU_MULTIPLE_REGRESSION_BASED:
		return !r->multi_valid;
	default:
		return !en || en->e.nsample < min;
	}
}

static void mlr_add_row(struct pm_impl *im, unsigned nparams, double us, const double *params)
{
	struct pm_mlr_rows *m = &im->mlr_new;
	unsigned stride = 1 + nparams;
	if (m->n && m->nparams != nparams)
		return;
	if (m->n == m->cap)
	{
		unsigned cap = m->cap ? 2 * m->cap : 64;
		double *v = realloc(m->v, sizeof(double) * stride * cap);
		if (!v)
			return;
		m->v = v;
		m->cap = cap;
	}
	m->nparams = nparams;
	m->v[(size_t) m->n * stride] = us;
	for (unsigned p = 0; p < nparams; p++)
		m->v[(size_t) m->n * stride + 1 + p] = params[p];
	m->n++;
}

/* A measurement far from a settled entry's mean (more than
 * STARPU_HISTORY_MAX_ERROR percent, default 50) is set aside, as a
 * disturbed run; when such measurements outnumber the entry's samples, the
 * entry was the wrong one (its first runs were the disturbed ones, or the
 * machine changed): it restarts from the new measurements, and saving
 * replaces the file's entry. An entry is settled once it has the
 * calibration minimum of samples (STARPU_CALIBRATE_MINIMUM): before that
 * every sample counts, since the error count is not saved with the model
 * and an entry whose first samples were disturbed would otherwise reject
 * the good ones of each later, short run and never reach the minimum.
 * Returns 1 if the sample must be dropped. */
static int outlier(struct starpu_perfmodel *model, int comb, unsigned impl, struct pm_entry *en, double us)
{
	struct starpu_perfmodel_history_entry *e = &en->e;
	if (e->nsample < pm_conf.calibrate_minimum || e->nsample < 3 || !(e->mean > 0.0))
		return 0;
	if (fabs(us - e->mean) <= e->mean * pm_conf.history_max_error / 100.0)
		return 0;
	e->nerror++;
	if (e->nerror <= e->nsample)
		return 1;
	char name[128];
	pm_arch_name(pm_comb_arch(comb), comb, impl, name, sizeof(name));
	rt_warn("performance model '%s' on %s: %u measurements disagree by more than %.0f%% with the mean %.3f us of %u samples; restarting that entry (STARPU_HISTORY_MAX_ERROR sets the threshold)",
		model->symbol, name, e->nerror, pm_conf.history_max_error, e->mean, e->nsample);
	e->nsample = 0;
	e->nerror = 0;
	e->sum = e->sum2 = 0.0;
	en->new_n = 0;
	en->new_sum = en->new_sum2 = 0.0;
	en->flushed = 1;
	return 0;
}

int pm_measure_kept(struct job *job, struct worker *w)
{
	int comb = pm_worker_comb((unsigned) w->id);
	struct starpu_task *task = job->task;
	struct starpu_perfmodel *model = task->cl->model;
	struct starpu_perfmodel_state *st = pm_state_get(model);
	const struct starpu_perfmodel_arch *arch = comb >= 0 ? pm_comb_arch(comb) : NULL;
	if (!st || !arch || st->file_bad)
		return 0;
	if (pm_conf.calibrate >= 1)
		return 1;
	uint32_t fp = model->type == STARPU_MULTIPLE_REGRESSION_BASED ? 0
		      : pm_task_footprint(model, task, arch, comb, job->nimpl);
	os_rwlock_wrlock(&st->lock);	/* pm_state_impl may create the entry */
	struct pm_impl *im = pm_state_impl(st, comb, job->nimpl);
	int kept = im && wanted(model, im, model->type == STARPU_MULTIPLE_REGRESSION_BASED ? NULL : pm_history_find(im, fp));
	os_rwlock_unlock(&st->lock);
	return kept;
}

/*
 * The first run of a footprint on an arch in a process pays for loading
 * code, often more than the kernel itself: a device loads the kernel's
 * module lazily (CUDA; cuBLAS picks and loads a kernel per shape), a CPU
 * kernel's first call binds its library's symbols and the BLAS maps its
 * buffers (2.4 ms against 0.15 for a 192x192 dpotrf on the 2-core VM). A
 * history mean would spread that over every run and, among few samples,
 * keep it (the outlier filter measures against the inflated mean). So the
 * first run is not a sample of the footprint: it is one of the footprint's
 * first-run entry, which a simulation charges once per process
 * (pm_first_run_extra_us).
 *
 * What this process has run: a set of (model, arch, implementation,
 * footprint) for the whole process, which outlives starpu_shutdown (a
 * second starpu_init in the process finds the code loaded), under a spin
 * lock of its own (held for a look-up: any thread may record, the OS
 * seam's locks change with the simulation switch).
 */
struct ran
{
	const struct starpu_perfmodel *model;	/* NULL: free slot */
	int type, devid, ncores, ndevices;
	unsigned impl;
	uint32_t fp;
};

static struct
{
	atomic_flag lock;
	struct ran *slots;
	unsigned n, cap;	/* cap: 0 or a power of 2 */
} ran_set = { .lock = ATOMIC_FLAG_INIT };

static int ran_same(const struct ran *a, const struct ran *b)
{
	return a->model == b->model && a->type == b->type && a->devid == b->devid && a->ncores == b->ncores &&
	       a->ndevices == b->ndevices && a->impl == b->impl && a->fp == b->fp;
}

static unsigned ran_slot(const struct ran *k, unsigned cap)
{
	uintptr_t m = (uintptr_t) k->model;
	uint32_t h = starpu_hash_crc32c_be_n(&m, sizeof(m), k->fp);
	h = starpu_hash_crc32c_be((uint32_t) (k->type * 131 + k->devid * 17 + k->ncores), h);
	h = starpu_hash_crc32c_be(k->impl * 7u + (unsigned) k->ndevices, h);
	return h & (cap - 1);
}

/* Adds k; 1 if it was not there (or on ENOMEM: nothing is a first run
 * then), else 0. Under ran_set.lock. */
static int ran_add(const struct ran *k)
{
	if (2 * (ran_set.n + 1) > ran_set.cap)
	{
		unsigned cap = ran_set.cap ? 2 * ran_set.cap : 64;
		struct ran *slots = calloc(cap, sizeof(*slots));
		if (!slots)
			return 0;
		for (unsigned i = 0; i < ran_set.cap; i++)
			if (ran_set.slots[i].model)
			{
				unsigned j = ran_slot(&ran_set.slots[i], cap);
				while (slots[j].model)
					j = (j + 1) & (cap - 1);
				slots[j] = ran_set.slots[i];
			}
		free(ran_set.slots);
		ran_set.slots = slots;
		ran_set.cap = cap;
	}
	unsigned j = ran_slot(k, ran_set.cap);
	for (; ran_set.slots[j].model; j = (j + 1) & (ran_set.cap - 1))
		if (ran_same(&ran_set.slots[j], k))
			return 0;
	ran_set.slots[j] = *k;
	ran_set.n++;
	return 1;
}

/* Whether this is the process's first run of fp on comb with impl of
 * model (and remembers it). */
static int cold_run(const struct starpu_perfmodel *model, int comb, unsigned impl, uint32_t fp)
{
	const struct starpu_perfmodel_arch *arch = pm_comb_arch(comb);
	if (!arch || arch->ndevices < 1)
		return 0;
	struct ran k = { model, (int) arch->devices[0].type, arch->devices[0].devid, arch->devices[0].ncores,
			 arch->ndevices, impl, fp };
	while (atomic_flag_test_and_set_explicit(&ran_set.lock, memory_order_acquire))
		;
	int first = ran_add(&k);
	atomic_flag_clear_explicit(&ran_set.lock, memory_order_release);
	return first;
}

/* A first run's duration, into fp's first-run entry; 0 on ENOMEM. */
static int first_run_sample(struct pm_impl *im, uint32_t fp, size_t size, double us)
{
	uint32_t ffp = pm_first_run_fp(fp);
	struct pm_entry *en = pm_history_find(im, ffp);
	if (!en)
	{
		en = pm_history_insert(im, ffp, 1);
		if (!en)
			return 0;
		en->e.size = size;
		en->e.flops = PM_FIRST_RUN_FLOPS;
	}
	pm_entry_add_sample(en, us, 1);
	return 1;
}

double pm_first_run_extra_us(struct starpu_perfmodel *model, const struct pm_first *first, unsigned impl, double predicted)
{
	/* Most models have no first-run entry: the prediction said so. */
	if (!first->maybe || !(predicted >= 0.0))
		return 0.0;
	struct starpu_perfmodel_state *st = pm_state_get(model);
	if (!st)
		return 0.0;
	double extra = 0.0;
	os_rwlock_wrlock(&st->lock);
	struct pm_impl *im = pm_state_impl(st, first->comb, impl);
	if (im && im->has_first_runs < 0)
	{
		im->has_first_runs = 0;
		for (struct starpu_perfmodel_history_list *l = im->pa.list; l; l = l->next)
			if (pm_entry_is_first_run(l->entry))
				im->has_first_runs = 1;
	}
	if (im && im->has_first_runs && cold_run(model, first->comb, impl, first->fp))
	{
		struct pm_entry *en = pm_history_find(im, pm_first_run_fp(first->fp));
		unsigned min = pm_conf.calibrate_minimum ? pm_conf.calibrate_minimum : 10;
		if (en && en->e.nsample >= min && en->e.mean > predicted)
			extra = en->e.mean - predicted;
	}
	os_rwlock_unlock(&st->lock);
	return extra;
}

/* force: keep the sample whatever STARPU_CALIBRATE says. */
static void record(struct starpu_perfmodel *model, struct starpu_task *task, int comb, unsigned impl, double us, int force)
{
	if (!model || !task || !isfinite(us) || us < 0 || impl >= STARPU_MAXIMPLEMENTATIONS)
		return;
	struct starpu_perfmodel_state *st = pm_state_get(model);
	const struct starpu_perfmodel_arch *arch = pm_comb_arch(comb);
	if (!st || !arch || st->file_bad)
		return;
	/* Application callbacks run without our locks held. */
	uint32_t fp = pm_task_footprint(model, task, arch, comb, impl);
	size_t size = pm_task_size(model, task, arch, comb, impl);
	double params[PM_MAX_COEFFS];
	unsigned nparams = 0;
	if (model->type == STARPU_MULTIPLE_REGRESSION_BASED)
	{
		if (!model->parameters || model->nparameters == 0 || model->nparameters > PM_MAX_COEFFS)
			return;
		nparams = model->nparameters;
		model->parameters(task, params);
	}

	os_rwlock_wrlock(&st->lock);
	struct pm_impl *im = pm_state_impl(st, comb, impl);
	if (!im)
		goto out;
	struct pm_entry *en = pm_history_find(im, fp);
	if (!force && !wanted(model, im, en))
		goto out;
	if (!force && cold_run(model, comb, impl, fp))
	{
		/* Multiple-regression models keep no history: dropped. */
		if (model->type != STARPU_MULTIPLE_REGRESSION_BASED && first_run_sample(im, fp, size, us))
			st->dirty = 1;
		goto out;
	}
	if (model->type == STARPU_MULTIPLE_REGRESSION_BASED)
	{
		/* Rows, not history: StarPU keeps none for these models. */
		mlr_add_row(im, nparams, us, params);
		struct starpu_perfmodel_regression_model *r = &im->pa.regression;
		if (r->coeff && is_pow2(im->mlr_new.n) && im->mlr_new.n >= model->ncombinations + 1)
			if (pm_mlr_fit(model, &im->mlr_new, r->coeff) == 0)
				r->multi_valid = 1;
		st->dirty = 1;
		goto out;
	}
	if (en && outlier(model, comb, impl, en, us))
		goto out;
	int fresh = !en;
	if (!en)
	{
		en = pm_history_insert(im, fp, 1);
		if (!en)
			goto out;
		en->e.size = size;
		en->e.flops = task->flops;
	}
	pm_entry_add_sample(en, us, 1);
	if ((model->type == STARPU_REGRESSION_BASED || model->type == STARPU_NL_REGRESSION_BASED) && size > 0 && us > 0)
	{
		double lx = log((double) size), ly = log(us);
		struct starpu_perfmodel_regression_model *r = &im->pa.regression;
		struct pm_reg_delta *d = &im->reg_new;
		if (r->nsample == 0 || size < r->minx)
			r->minx = size;
		if (r->nsample == 0 || size > r->maxx)
			r->maxx = size;
		if (d->n == 0 || size < d->minx)
			d->minx = size;
		if (d->n == 0 || size > d->maxx)
			d->maxx = size;
		r->sumlnx += lx;
		r->sumlnx2 += lx * lx;
		r->sumlny += ly;
		r->sumlnxlny += lx * ly;
		r->nsample++;
		d->sumlnx += lx;
		d->sumlnx2 += lx * lx;
		d->sumlny += ly;
		d->sumlnxlny += lx * ly;
		d->n++;
		pm_regression_update_linear(r, pm_conf.calibrate_minimum);
		/* The non-linear fit costs a search: redo it when an entry
		 * appears or the samples double, and at save. */
		if (model->type == STARPU_NL_REGRESSION_BASED && (fresh || is_pow2(r->nsample)))
			pm_regression_update_nl(im, pm_conf.calibrate_minimum);
	}
	st->dirty = 1;
out:
	os_rwlock_unlock(&st->lock);
}

void starpu_perfmodel_update_history(struct starpu_perfmodel *model, struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned cpuid, unsigned nimpl, double measured)
{
	(void) cpuid;
	if (!model || !task || !arch)
	{
		rt_error("starpu_perfmodel_update_history: model, task or arch is NULL");
		return;
	}
	if (!pm_type_is_learnt(model->type))
	{
		rt_error("starpu_perfmodel_update_history: model '%s' is not history or regression based (type %d)",
			 model->symbol ? model->symbol : "(no symbol)", (int) model->type);
		return;
	}
	if (!isfinite(measured) || measured < 0)
	{
		rt_error("starpu_perfmodel_update_history: measured=%g is not a duration", measured);
		return;
	}
	int comb = pm_arch_comb(arch);
	if (comb < 0)
	{
		rt_error("starpu_perfmodel_update_history: invalid arch (%d devices)", arch->ndevices);
		return;
	}
	/* An explicit measurement is always kept, whatever STARPU_CALIBRATE. */
	record(model, task, comb, nimpl, measured, 1);
}

void pm_record(struct starpu_perfmodel *model, struct starpu_task *task, int comb, unsigned impl, double us)
{
	record(model, task, comb, impl, us, 0);
}
