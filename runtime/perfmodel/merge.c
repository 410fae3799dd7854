/* merge.c — the content of models (struct pm_data) as arithmetic: a
 * process comb's slot, merging file content or this process's deltas
 * (new samples, regression sums, multiple-regression rows) into another
 * pm_data, the derived values (validity flags, refits) and forgetting the
 * deltas once saved. No locks taken, no files read: the caller (model.c)
 * holds the state's lock when the data is a published state's.
 *
 * See perfmodel.h for the design (states, deltas, merge-on-save).
 */
#define _GNU_SOURCE
#include "perfmodel/perfmodel.h"
#include "core/rt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The comb slot of a process-indexed pm_data (created). */
struct pm_comb *pm_data_comb(struct pm_data *d, int comb)
{
	if (comb < 0 || comb >= PM_MAX_COMBS)
		return NULL;
	if (!d->combs[comb])
	{
		const struct starpu_perfmodel_arch *a = pm_comb_arch(comb);
		if (!a)
			return NULL;
		d->combs[comb] = pm_comb_new(a->ndevices, a->devices);
		if (!d->combs[comb])
			return NULL;
	}
	if ((unsigned) comb >= d->ncombs)
		d->ncombs = (unsigned) comb + 1;
	return d->combs[comb];
}

/* Makes a multiple-regression model's parts carry ncombinations + 1
 * coefficients (NAN until fitted), as StarPU writes them. */
int pm_impl_prepare_mlr(struct starpu_perfmodel *model, struct pm_impl *impl)
{
	if (!model || model->type != STARPU_MULTIPLE_REGRESSION_BASED)
		return 0;
	struct starpu_perfmodel_regression_model *r = &impl->pa.regression;
	unsigned k = model->ncombinations + 1;
	if (r->ncoeff == k && r->coeff)
		return 0;
	double *c = malloc(sizeof(double) * k);
	if (!c)
		return -ENOMEM;
	for (unsigned i = 0; i < k; i++)
		c[i] = NAN;
	free(r->coeff);
	r->coeff = c;
	r->ncoeff = k;
	r->multi_valid = 0;
	return 0;
}

/* Derived values: validity flags, and with refit the fits themselves
 * (after new samples; a loaded file's fitted values are kept as written). */
void pm_impl_refresh(struct starpu_perfmodel *model, struct pm_impl *impl, int refit)
{
	unsigned min = pm_conf.calibrate_minimum ? pm_conf.calibrate_minimum : 10;
	struct starpu_perfmodel_regression_model *r = &impl->pa.regression;
	enum starpu_perfmodel_type type = model ? model->type : STARPU_HISTORY_BASED;
	if (refit && (type == STARPU_REGRESSION_BASED || type == STARPU_NL_REGRESSION_BASED))
		pm_regression_update_linear(r, min);
	else
		r->valid = isfinite(r->alpha) && isfinite(r->beta) &&
			   (r->nsample == 0 || (r->nsample >= min && (double) r->maxx >= 1.1 * (double) r->minx));
	if (refit && type == STARPU_NL_REGRESSION_BASED && impl->nentries)
		pm_regression_update_nl(impl, min);
	else
	{
		unsigned n = 0;
		for (struct starpu_perfmodel_history_list *l = impl->pa.list; l; l = l->next)
			n += pm_entry_is_first_run(l->entry) ? 0 : l->entry->nsample;
		r->nl_valid = isfinite(r->a) && isfinite(r->b) && isfinite(r->c) && (n == 0 || n >= min);
	}
	int mv = r->ncoeff > 0 && r->coeff;
	for (unsigned i = 0; mv && i < r->ncoeff; i++)
		mv = isfinite(r->coeff[i]);
	r->multi_valid = mv;
}

/* Adds one comb's content into dst's comb. deltas_only: what this process
 * measured (new samples, regression sums); else everything (file content). */
int pm_comb_merge(struct starpu_perfmodel *model, struct pm_comb *dc, const struct pm_comb *sc, int deltas_only)
{
	if (sc->nimpls > dc->nimpls)
		dc->nimpls = sc->nimpls;
	for (unsigned i = 0; i < sc->nimpls; i++)
	{
		const struct pm_impl *si = &sc->impl[i];
		struct pm_impl *di = &dc->impl[i];
		if (!si->present && !deltas_only)
			continue;
		di->present = 1;
		if (pm_impl_prepare_mlr(model, di))
			return -ENOMEM;
		/* History: the file's order first (entries appended), then our
		 * new entries in front, newest first as StarPU lists them (so
		 * the source list, newest first, is walked from its end). */
		unsigned nsrc = 0;
		const struct starpu_perfmodel_history_list *l;
		for (l = si->pa.list; l; l = l->next)
			nsrc++;
		const struct starpu_perfmodel_history_entry **order = nsrc ? malloc(nsrc * sizeof(*order)) : NULL;
		if (nsrc && !order)
			return -ENOMEM;
		unsigned k = 0;
		for (l = si->pa.list; l; l = l->next)
			order[deltas_only ? nsrc - 1 - k++ : k++] = l->entry;
		for (k = 0; k < nsrc; k++)
		{
			const struct pm_entry *se = (const struct pm_entry *) (const void *) order[k];
			unsigned n = deltas_only ? se->new_n : se->e.nsample;
			if (deltas_only && n == 0 && !se->flushed)
				continue;
			struct pm_entry *de = pm_history_find(di, se->e.footprint);
			if (!de)
			{
				de = pm_history_insert(di, se->e.footprint, deltas_only);
				if (!de)
				{
					free(order);
					return -ENOMEM;
				}
				de->e.size = se->e.size;
				de->e.flops = se->e.flops;
				if (!deltas_only)
				{
					/* Verbatim: the file's values stay what they were. */
					de->e.mean = se->e.mean;
					de->e.deviation = se->e.deviation;
					de->e.sum = se->e.sum;
					de->e.sum2 = se->e.sum2;
					de->e.nsample = se->e.nsample;
					de->e.nerror = se->e.nerror;
					continue;
				}
			}
			if (deltas_only)
			{
				di->touched = 1;
				if (se->flushed)
				{
					/* Restarted here: our samples replace the file's. */
					de->e.nsample = 0;
					de->e.sum = de->e.sum2 = 0.0;
				}
				de->e.nsample += se->new_n;
				de->e.sum += se->new_sum;
				de->e.sum2 += se->new_sum2;
			}
			else
			{
				de->e.nsample += se->e.nsample;
				de->e.sum += se->e.sum;
				de->e.sum2 += se->e.sum2;
			}
			pm_entry_finish(&de->e);
		}
		free(order);
		/* Regression sums. */
		struct starpu_perfmodel_regression_model *dr = &di->pa.regression;
		const struct starpu_perfmodel_regression_model *sr = &si->pa.regression;
		struct pm_reg_delta d;
		if (deltas_only)
			d = si->reg_new;
		else
			d = (struct pm_reg_delta) { sr->sumlnx, sr->sumlnx2, sr->sumlny, sr->sumlnxlny, sr->nsample, sr->minx, sr->maxx };
		if (d.n)
		{
			di->touched |= deltas_only;
			if (dr->nsample == 0 || d.minx < dr->minx)
				dr->minx = d.minx;
			if (dr->nsample == 0 || d.maxx > dr->maxx)
				dr->maxx = d.maxx;
			dr->sumlnx += d.sumlnx;
			dr->sumlnx2 += d.sumlnx2;
			dr->sumlny += d.sumlny;
			dr->sumlnxlny += d.sumlnxlny;
			dr->nsample += d.n;
		}
		if (!deltas_only)
		{
			/* Fitted values: the file's, until new samples refit them. */
			if (isnan(dr->alpha) && isnan(dr->beta))
			{
				dr->alpha = sr->alpha;
				dr->beta = sr->beta;
			}
			if (isnan(dr->a) && isnan(dr->b) && isnan(dr->c))
			{
				dr->a = sr->a;
				dr->b = sr->b;
				dr->c = sr->c;
			}
			if (sr->ncoeff && sr->coeff)
			{
				int have = dr->ncoeff == sr->ncoeff && dr->coeff;
				for (unsigned q = 0; have && q < dr->ncoeff; q++)
					have = !isnan(dr->coeff[q]);
				if (!have)
				{
					double *c = malloc(sizeof(double) * sr->ncoeff);
					if (!c)
						return -ENOMEM;
					memcpy(c, sr->coeff, sizeof(double) * sr->ncoeff);
					free(dr->coeff);
					dr->coeff = c;
					dr->ncoeff = sr->ncoeff;
				}
			}
			if (si->mlr_header && !di->mlr_header)
				di->mlr_header = strdup(si->mlr_header);
		}
		else if (si->mlr_new.n)
		{
			/* Multiple-regression rows travel with the delta. */
			struct pm_mlr_rows *dm = &di->mlr_new;
			const struct pm_mlr_rows *sm = &si->mlr_new;
			unsigned stride = 1 + sm->nparams;
			if (dm->n + sm->n > dm->cap)
			{
				unsigned cap = dm->n + sm->n;
				double *v = realloc(dm->v, sizeof(double) * stride * cap);
				if (!v)
					return -ENOMEM;
				dm->v = v;
				dm->cap = cap;
			}
			memcpy(dm->v + (size_t) dm->n * stride, sm->v, sizeof(double) * stride * sm->n);
			di->touched = 1;
			dm->n += sm->n;
			dm->nparams = sm->nparams;
		}
	}
	return 0;
}

int pm_data_merge(struct pm_data *dst, const struct pm_data *src, int src_is_file, int deltas_only)
{
	int ret = 0;
	if (src->note && !dst->note && !deltas_only)
		dst->note = strdup(src->note);
	for (unsigned c = 0; c < src->ncombs; c++)
	{
		const struct pm_comb *sc = src->combs[c];
		if (!sc)
			continue;
		int pc = src_is_file ? pm_comb_add(sc->ndevices, sc->devices) : (int) c;
		if (pc < 0)
		{
			rt_error("perfmodel: too many arch combinations (more than %d): one is ignored", PM_MAX_COMBS);
			ret = -ENOSPC;
			continue;
		}
		struct pm_comb *dc = pm_data_comb(dst, pc);
		if (!dc)
			return -ENOMEM;
		int r = pm_comb_merge(NULL, dc, sc, deltas_only);
		if (r)
			return r;
	}
	return ret;
}

void pm_data_refresh(struct starpu_perfmodel *model, struct pm_data *d)
{
	for (unsigned c = 0; c < d->ncombs; c++)
		if (d->combs[c])
			for (unsigned i = 0; i < d->combs[c]->nimpls; i++)
				pm_impl_refresh(model, &d->combs[c]->impl[i], 0);
}

/* Forgets the deltas once they are on disk. */
void pm_data_clear_deltas(struct pm_data *d)
{
	for (unsigned c = 0; c < d->ncombs; c++)
	{
		struct pm_comb *comb = d->combs[c];
		if (!comb)
			continue;
		for (unsigned i = 0; i < STARPU_MAXIMPLEMENTATIONS; i++)
		{
			struct pm_impl *im = &comb->impl[i];
			for (struct starpu_perfmodel_history_list *l = im->pa.list; l; l = l->next)
			{
				struct pm_entry *en = (struct pm_entry *) (void *) l->entry;
				en->new_n = 0;
				en->new_sum = en->new_sum2 = 0.0;
				en->flushed = 0;
			}
			memset(&im->reg_new, 0, sizeof(im->reg_new));
			im->mlr_new.n = 0;
		}
	}
}
