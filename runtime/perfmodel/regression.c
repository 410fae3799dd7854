/* regression.c — fitting durations to data sizes.
 *
 *  - linear regression on logarithms: ln t = ln alpha + beta ln s, from the
 *    running sums the files keep (sumlnx, sumlnx2, sumlny, sumlnxlny, n);
 *  - non-linear: t = a s^b + c, least squares of the relative error over
 *    the history entries, each weighted by its sample count. Minimising over
 *    every sample or over the entries' means weighted this way gives the same
 *    a, b, c (the spread within an entry does not depend on them), and
 *    entries survive in the files where individual samples do not. Relative
 *    errors, because sizes span orders of magnitude: in absolute terms the
 *    largest size alone would decide the fit;
 *  - multiple linear regression on products of task parameters, by QR.
 *
 * For a fixed b the non-linear problem is linear in (a, c); the residual as
 * a function of b alone is minimised by a scan and a golden-section search.
 */
#include "perfmodel/perfmodel.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pm_regression_update_linear(struct starpu_perfmodel_regression_model *r, unsigned minimum)
{
	if (r->nsample == 0)
	{
		/* Nothing measured: a hand-made file may still give alpha, beta. */
		r->valid = isfinite(r->alpha) && isfinite(r->beta);
		return;
	}
	double n = r->nsample;
	double den = n * r->sumlnx2 - r->sumlnx * r->sumlnx;
	/* A single size determines no slope. Sizes must span at least 10%. */
	if (fabs(den) < 1e-12 * (n * r->sumlnx2 + 1.0) || (double) r->maxx < 1.1 * (double) r->minx)
	{
		r->alpha = NAN;
		r->beta = NAN;
		r->valid = 0;
		return;
	}
	r->beta = (n * r->sumlnxlny - r->sumlnx * r->sumlny) / den;
	r->alpha = exp((r->sumlny - r->beta * r->sumlnx) / n);
	r->valid = r->nsample >= minimum && isfinite(r->alpha) && isfinite(r->beta);
}

/* Weighted least squares of y on (u, 1) for u = x^b / scale; returns the
 * weighted residual sum of squares, and a (for x^b), c. */
static double fit_fixed_b(const double *x, const double *y, const double *w, unsigned n, double b, double *a, double *c)
{
	double scale = 0.0;
	for (unsigned i = 0; i < n; i++)
		scale = fmax(scale, pow(x[i], b));
	if (!(scale > 0.0) || !isfinite(scale))
		return INFINITY;
	double sw = 0, su = 0, sy = 0, suu = 0, suy = 0;
	for (unsigned i = 0; i < n; i++)
	{
		double u = pow(x[i], b) / scale;
		sw += w[i];
		su += w[i] * u;
		sy += w[i] * y[i];
		suu += w[i] * u * u;
		suy += w[i] * u * y[i];
	}
	double den = sw * suu - su * su;
	if (!(fabs(den) > 1e-300))
		return INFINITY;
	double as = (sw * suy - su * sy) / den;
	double cc = (sy - as * su) / sw;
	double rss = 0.0;
	for (unsigned i = 0; i < n; i++)
	{
		double r = y[i] - as * pow(x[i], b) / scale - cc;
		rss += w[i] * r * r;
	}
	*a = as / scale;
	*c = cc;
	return rss;
}

int pm_fit_power_law(const double *x, const double *y, const double *w, unsigned n, double *a, double *b, double *c)
{
	/* Three distinct sizes at least, all positive. */
	unsigned distinct = 0;
	for (unsigned i = 0; i < n; i++)
	{
		if (!(x[i] > 0.0) || !isfinite(y[i]) || !(w[i] > 0.0))
			return -1;
		int seen = 0;
		for (unsigned j = 0; j < i && !seen; j++)
			seen = x[j] == x[i];
		distinct += !seen;
	}
	if (distinct < 3)
		return -1;

	/* Scan b over (0, 4], then refine around the best point. */
	const double lo = 0.02, hi = 4.0;
	const unsigned steps = 200;
	double best_b = lo, best = INFINITY, ta, tc;
	for (unsigned k = 0; k <= steps; k++)
	{
		double bb = lo + (hi - lo) * k / steps;
		double r = fit_fixed_b(x, y, w, n, bb, &ta, &tc);
		if (r < best)
		{
			best = r;
			best_b = bb;
		}
	}
	double step = (hi - lo) / steps;
	double l = fmax(1e-6, best_b - step), h = best_b + step;
	const double g = 0.6180339887498949;
	double m1 = h - g * (h - l), m2 = l + g * (h - l);
	double f1 = fit_fixed_b(x, y, w, n, m1, &ta, &tc), f2 = fit_fixed_b(x, y, w, n, m2, &ta, &tc);
	for (int it = 0; it < 100 && h - l > 1e-12; it++)
	{
		if (f1 < f2)
		{
			h = m2;
			m2 = m1;
			f2 = f1;
			m1 = h - g * (h - l);
			f1 = fit_fixed_b(x, y, w, n, m1, &ta, &tc);
		}
		else
		{
			l = m1;
			m1 = m2;
			f1 = f2;
			m2 = l + g * (h - l);
			f2 = fit_fixed_b(x, y, w, n, m2, &ta, &tc);
		}
	}
	double bb = (l + h) / 2;
	if (!isfinite(fit_fixed_b(x, y, w, n, bb, a, c)))
		return -1;
	*b = bb;
	return isfinite(*a) && isfinite(*c) ? 0 : -1;
}

void pm_regression_update_nl(struct pm_impl *impl, unsigned minimum)
{
	struct starpu_perfmodel_regression_model *r = &impl->pa.regression;
	unsigned n = 0, nsample = 0;
	for (struct starpu_perfmodel_history_list *l = impl->pa.list; l; l = l->next)
		n += l->entry->nsample > 0 && !pm_entry_is_first_run(l->entry);
	double *buf = n ? malloc(sizeof(double) * 3 * n) : NULL;
	if (!buf)
	{
		r->nl_valid = n == 0 && isfinite(r->a) && isfinite(r->b) && isfinite(r->c);
		return;
	}
	double *x = buf, *y = buf + n, *w = buf + 2 * n;
	unsigned i = 0;
	for (struct starpu_perfmodel_history_list *l = impl->pa.list; l; l = l->next)
	{
		struct starpu_perfmodel_history_entry *e = l->entry;
		if (e->nsample == 0 || pm_entry_is_first_run(e))
			continue;
		x[i] = (double) e->size;
		y[i] = e->mean;
		w[i] = e->mean > 0 ? e->nsample / (e->mean * e->mean) : e->nsample;
		nsample += e->nsample;
		i++;
	}
	double a, b, c;
	if (pm_fit_power_law(x, y, w, n, &a, &b, &c) == 0)
	{
		r->a = a;
		r->b = b;
		r->c = c;
		r->nl_valid = nsample >= minimum;
	}
	else
		r->nl_valid = 0;
	free(buf);
}

/* ------------------------------------------------------------------ */
/* Linear least squares by Householder QR. */

int pm_least_squares(const double *X, const double *y, unsigned n, unsigned k, double *beta)
{
	if (k == 0 || n < k)
		return -1;
	double *A = malloc(sizeof(double) * (size_t) n * k);
	double *b = malloc(sizeof(double) * n);
	double *scale = malloc(sizeof(double) * k);
	if (!A || !b || !scale)
	{
		free(A);
		free(b);
		free(scale);
		return -1;
	}
	memcpy(A, X, sizeof(double) * (size_t) n * k);
	memcpy(b, y, sizeof(double) * n);
	/* Scale columns to unit norm: parameters' products span many orders
	 * of magnitude. */
	for (unsigned j = 0; j < k; j++)
	{
		double s = 0.0;
		for (unsigned i = 0; i < n; i++)
			s += A[i * k + j] * A[i * k + j];
		s = sqrt(s);
		scale[j] = s > 0.0 ? s : 1.0;
		for (unsigned i = 0; i < n; i++)
			A[i * k + j] /= scale[j];
	}
	int ret = 0;
	for (unsigned j = 0; j < k && !ret; j++)
	{
		double norm = 0.0;
		for (unsigned i = j; i < n; i++)
			norm += A[i * k + j] * A[i * k + j];
		norm = sqrt(norm);
		if (norm < 1e-12)
		{
			ret = -1;	/* a column depends on the previous ones */
			break;
		}
		double alpha = A[j * k + j] > 0 ? -norm : norm;
		/* v = x - alpha e1, stored in place of column j below the diagonal. */
		A[j * k + j] -= alpha;
		double vnorm2 = 0.0;
		for (unsigned i = j; i < n; i++)
			vnorm2 += A[i * k + j] * A[i * k + j];
		for (unsigned jj = j + 1; jj < k; jj++)
		{
			double d = 0.0;
			for (unsigned i = j; i < n; i++)
				d += A[i * k + j] * A[i * k + jj];
			d = 2.0 * d / vnorm2;
			for (unsigned i = j; i < n; i++)
				A[i * k + jj] -= d * A[i * k + j];
		}
		double d = 0.0;
		for (unsigned i = j; i < n; i++)
			d += A[i * k + j] * b[i];
		d = 2.0 * d / vnorm2;
		for (unsigned i = j; i < n; i++)
			b[i] -= d * A[i * k + j];
		A[j * k + j] = alpha;	/* R's diagonal */
	}
	if (!ret)
	{
		/* Back substitution on R (upper part of A, diagonal in place). */
		for (unsigned jj = k; jj-- > 0;)
		{
			double s = b[jj];
			for (unsigned m = jj + 1; m < k; m++)
				s -= A[jj * k + m] * beta[m];
			beta[jj] = s / A[jj * k + jj];
		}
		for (unsigned j = 0; j < k; j++)
		{
			beta[j] /= scale[j];
			if (!isfinite(beta[j]))
				ret = -1;
		}
	}
	free(A);
	free(b);
	free(scale);
	return ret;
}

/* Value of combination i of the model's parameters. */
static double combination(struct starpu_perfmodel *model, unsigned i, const double *params)
{
	double v = 1.0;
	for (unsigned j = 0; j < model->nparameters; j++)
	{
		unsigned e = model->combinations[i][j];
		if (e)
			v *= pow(params[j], (double) e);
	}
	return v;
}

int pm_mlr_fit(struct starpu_perfmodel *model, const struct pm_mlr_rows *rows, double *coeff)
{
	unsigned k = model->ncombinations + 1;
	if (!model->combinations || rows->nparams != model->nparameters || rows->n < k)
		return -1;
	unsigned n = rows->n, stride = 1 + rows->nparams;
	double *X = malloc(sizeof(double) * (size_t) n * k), *y = malloc(sizeof(double) * n);
	if (!X || !y)
	{
		free(X);
		free(y);
		return -1;
	}
	for (unsigned r = 0; r < n; r++)
	{
		const double *row = rows->v + (size_t) r * stride;
		y[r] = row[0];
		X[(size_t) r * k] = 1.0;
		for (unsigned i = 0; i < model->ncombinations; i++)
			X[(size_t) r * k + 1 + i] = combination(model, i, row + 1);
	}
	int ret = pm_least_squares(X, y, n, k, coeff);
	free(X);
	free(y);
	return ret;
}

double pm_mlr_eval(struct starpu_perfmodel *model, const double *coeff, unsigned ncoeff, const double *params)
{
	if (!coeff || ncoeff != model->ncombinations + 1 || !model->combinations)
		return NAN;
	double t = coeff[0];
	for (unsigned i = 0; i < model->ncombinations; i++)
		t += coeff[i + 1] * combination(model, i, params);
	return t;
}
