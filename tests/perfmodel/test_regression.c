/* test_regression: the fits, on synthetic data with known coefficients.
 *
 * Linear regression on logarithms (t = alpha s^beta) from running sums,
 * the non-linear t = a s^b + c from weighted history entries (also with
 * multiplicative noise), least squares, and multiple regression on products
 * of task parameters.
 */
#include "perfmodel/perfmodel.h"
#include "perfmodel/dev_costs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vtest.h"

static int close_to(double x, double want, double rel)
{
	int ok = fabs(x - want) <= rel * fabs(want) + 1e-12;
	if (!ok)
		fprintf(stderr, "got %.9g, want %.9g (rel %.1e)\n", x, want, rel);
	return ok;
}

static void add_sample(struct starpu_perfmodel_regression_model *r, double x, double y)
{
	double lx = log(x), ly = log(y);
	if (r->nsample == 0 || x < r->minx)
		r->minx = (unsigned long) x;
	if (r->nsample == 0 || x > r->maxx)
		r->maxx = (unsigned long) x;
	r->sumlnx += lx;
	r->sumlnx2 += lx * lx;
	r->sumlny += ly;
	r->sumlnxlny += lx * ly;
	r->nsample++;
}

static void test_linear(void)
{
	struct starpu_perfmodel_regression_model r;
	memset(&r, 0, sizeof(r));
	for (int k = 0; k < 12; k++)
	{
		double x = 1000.0 * (1 << (k % 6));
		add_sample(&r, x, 3.0 * pow(x, 1.5));
	}
	pm_regression_update_linear(&r, 10);
	CU_ASSERT(r.valid);
	CU_ASSERT(close_to(r.alpha, 3.0, 1e-9));
	CU_ASSERT(close_to(r.beta, 1.5, 1e-9));

	/* Too few samples: fitted, but not valid yet. */
	memset(&r, 0, sizeof(r));
	for (int k = 0; k < 4; k++)
		add_sample(&r, 100.0 * (k + 1), 5.0 * (k + 1));
	pm_regression_update_linear(&r, 10);
	CU_ASSERT(!r.valid);
	CU_ASSERT(close_to(r.beta, 1.0, 1e-9));

	/* One size only: no slope. */
	memset(&r, 0, sizeof(r));
	for (int k = 0; k < 20; k++)
		add_sample(&r, 4096, 10.0 + k);
	pm_regression_update_linear(&r, 10);
	CU_ASSERT(!r.valid);
	CU_ASSERT(isnan(r.alpha));
}

static void test_power_law(void)
{
	double x[8], y[8], w[8];
	for (int i = 0; i < 8; i++)
	{
		x[i] = 1000.0 * pow(4.0, i);
		y[i] = 2.0 * pow(x[i], 1.3) + 50.0;
		w[i] = 1 + i;
	}
	double a, b, c;
	CU_ASSERT_FATAL(pm_fit_power_law(x, y, w, 8, &a, &b, &c) == 0);
	CU_ASSERT(close_to(a, 2.0, 1e-4));
	CU_ASSERT(close_to(b, 1.3, 1e-5));
	CU_ASSERT(close_to(c, 50.0, 1e-2));

	/* Cubic, as a tile kernel's flops: t = 1e-3 n^3 with s = 8 n^2. */
	for (int i = 0; i < 6; i++)
	{
		double n = 64.0 * (i + 1);
		x[i] = 8 * n * n;
		y[i] = 1e-3 * n * n * n + 5.0;
		w[i] = 10;
	}
	CU_ASSERT_FATAL(pm_fit_power_law(x, y, w, 6, &a, &b, &c) == 0);
	CU_ASSERT(close_to(b, 1.5, 1e-4));
	CU_ASSERT(close_to(c, 5.0, 1e-2));

	/* Noisy (±2 %, deterministic): still close. */
	for (int i = 0; i < 8; i++)
	{
		x[i] = 1000.0 * pow(3.0, i);
		double noise = 1.0 + 0.02 * ((i * 7919) % 5 - 2) / 2.0;
		y[i] = (0.5 * pow(x[i], 1.1) + 20.0) * noise;
		w[i] = 10;
	}
	CU_ASSERT_FATAL(pm_fit_power_law(x, y, w, 8, &a, &b, &c) == 0);
	CU_ASSERT(close_to(b, 1.1, 0.05));

	/* Two sizes cannot determine three coefficients. */
	double x2[4] = { 10, 10, 20, 20 }, y2[4] = { 1, 1, 2, 2 }, w2[4] = { 1, 1, 1, 1 };
	CU_ASSERT(pm_fit_power_law(x2, y2, w2, 4, &a, &b, &c) == -1);
	/* Non-positive sizes are refused. */
	double x3[3] = { 0, 10, 20 }, y3[3] = { 1, 2, 3 };
	CU_ASSERT(pm_fit_power_law(x3, y3, w2, 3, &a, &b, &c) == -1);
}

/* The entries' means weighted by their counts give the same fit as every
 * sample would: check through pm_regression_update_nl on a history. */
static void test_nl_from_history(void)
{
	struct pm_impl impl;
	memset(&impl, 0, sizeof(impl));
	impl.pa.regression.a = impl.pa.regression.b = impl.pa.regression.c = NAN;
	for (int i = 0; i < 6; i++)
	{
		double s = 8000.0 * (1 << i);
		struct pm_entry *e = pm_history_insert(&impl, (uint32_t) i, 1);
		CU_ASSERT_FATAL(e != NULL);
		e->e.size = (size_t) s;
		for (int k = 0; k < 3; k++)
			pm_entry_add_sample(e, 0.01 * pow(s, 1.2) + 7.0, 1);
	}
	pm_regression_update_nl(&impl, 10);
	CU_ASSERT(impl.pa.regression.nl_valid);
	CU_ASSERT(close_to(impl.pa.regression.b, 1.2, 1e-4));
	CU_ASSERT(close_to(impl.pa.regression.c, 7.0, 1e-2));
	/* With fewer samples than the minimum, fitted but not valid. */
	pm_regression_update_nl(&impl, 100);
	CU_ASSERT(!impl.pa.regression.nl_valid);
	pm_history_free(&impl);
}

static void test_history_entries(void)
{
	struct pm_impl impl;
	memset(&impl, 0, sizeof(impl));
	/* Many footprints: the table grows and finds them all. */
	for (uint32_t i = 0; i < 1000; i++)
	{
		struct pm_entry *e = pm_history_insert(&impl, i * 2654435761u, 1);
		CU_ASSERT_FATAL(e != NULL);
		pm_entry_add_sample(e, 10.0 + i, 1);
		pm_entry_add_sample(e, 20.0 + i, 1);
	}
	CU_ASSERT(impl.nentries == 1000);
	for (uint32_t i = 0; i < 1000; i++)
	{
		struct pm_entry *e = pm_history_find(&impl, i * 2654435761u);
		CU_ASSERT_FATAL(e != NULL);
		CU_ASSERT(e->e.nsample == 2 && e->new_n == 2);
		CU_ASSERT(close_to(e->e.mean, 15.0 + i, 1e-12));
		CU_ASSERT(close_to(e->e.deviation, 5.0, 1e-9));
	}
	CU_ASSERT(pm_history_find(&impl, 12345) == NULL);
	/* Newest first in the list. */
	CU_ASSERT(impl.pa.list->entry->footprint == 999u * 2654435761u);
	pm_history_free(&impl);
	CU_ASSERT(impl.pa.list == NULL && impl.pa.history == NULL);
}

static void test_least_squares(void)
{
	/* y = 1 + 2 u - 3 v, exact. */
	double X[5 * 3], y[5], beta[3];
	for (int i = 0; i < 5; i++)
	{
		double u = i, v = i * i * 0.5 + 1;
		X[i * 3] = 1;
		X[i * 3 + 1] = u;
		X[i * 3 + 2] = v;
		y[i] = 1 + 2 * u - 3 * v;
	}
	CU_ASSERT_FATAL(pm_least_squares(X, y, 5, 3, beta) == 0);
	CU_ASSERT(close_to(beta[0], 1, 1e-9));
	CU_ASSERT(close_to(beta[1], 2, 1e-9));
	CU_ASSERT(close_to(beta[2], -3, 1e-9));
	/* Dependent columns. */
	for (int i = 0; i < 5; i++)
		X[i * 3 + 2] = 2 * X[i * 3 + 1];
	CU_ASSERT(pm_least_squares(X, y, 5, 3, beta) == -1);
	/* Fewer rows than unknowns. */
	CU_ASSERT(pm_least_squares(X, y, 2, 3, beta) == -1);
}

static void test_mlr(void)
{
	static const char *names[] = { "M", "N" };
	static unsigned c0[] = { 1, 0 }, c1[] = { 2, 1 };
	static unsigned *combs[] = { c0, c1 };
	struct starpu_perfmodel model = {
		.type = STARPU_MULTIPLE_REGRESSION_BASED,
		.nparameters = 2,
		.parameters_names = names,
		.combinations = combs,
		.ncombinations = 2,
	};
	struct pm_mlr_rows rows = { .nparams = 2 };
	double v[20 * 3];
	rows.v = v;
	for (int i = 0; i < 20; i++)
	{
		double M = 8 + (i % 5) * 4, N = 2 + (i / 5);
		v[i * 3] = 1.0 + 2.0 * M + 3.0 * M * M * N;
		v[i * 3 + 1] = M;
		v[i * 3 + 2] = N;
	}
	rows.n = 20;
	double coeff[3];
	CU_ASSERT_FATAL(pm_mlr_fit(&model, &rows, coeff) == 0);
	CU_ASSERT(close_to(coeff[0], 1.0, 1e-6));
	CU_ASSERT(close_to(coeff[1], 2.0, 1e-8));
	CU_ASSERT(close_to(coeff[2], 3.0, 1e-10));
	double p[2] = { 10, 3 };
	CU_ASSERT(close_to(pm_mlr_eval(&model, coeff, 3, p), 1 + 20 + 900, 1e-9));
	rows.n = 2;
	CU_ASSERT(pm_mlr_fit(&model, &rows, coeff) == -1);
}

/* A device allocation's cost line (dev_costs.c): through points on a
 * line, the line; a cost falling with the size or below 0 is clamped
 * (0 per MiB, 0 fixed); one size gives its mean and no slope. */
static void test_dev_cost_fit(void)
{
	double fixed, per;
	const double x[] = { 1, 8, 64 }, y[] = { 2.0 + 1.5 * 1, 2.0 + 1.5 * 8, 2.0 + 1.5 * 64 };
	pm_dev_costs_fit(x, y, 3, &fixed, &per);
	CU_ASSERT(close_to(fixed, 2.0, 1e-9));
	CU_ASSERT(close_to(per, 1.5, 1e-12));
	const double down[] = { 30, 20, 10 };
	pm_dev_costs_fit(x, down, 3, &fixed, &per);
	CU_ASSERT_EQUAL(per, 0.0);
	CU_ASSERT(close_to(fixed, 20.0, 1e-9));
	const double steep[] = { 1, 50, 400 };
	pm_dev_costs_fit(x, steep, 3, &fixed, &per);
	CU_ASSERT(per > 6.0);
	CU_ASSERT_EQUAL(fixed, 0.0);	/* the line crosses 0 above x = 0 */
	pm_dev_costs_fit(x, y, 1, &fixed, &per);
	CU_ASSERT_EQUAL(per, 0.0);
	CU_ASSERT(close_to(fixed, 3.5, 1e-12));
}

int main(int argc, char **argv)
{
	static const struct vtest_case cases[] = {
		{ "linear regression on logarithms: known alpha, beta; validity", test_linear },
		{ "non-linear a*s^b+c: exact, cubic kernel, noisy, underdetermined", test_power_law },
		{ "non-linear fit from weighted history entries", test_nl_from_history },
		{ "history table: growth, lookup, mean and deviation, list order", test_history_entries },
		{ "least squares by QR", test_least_squares },
		{ "multiple regression on parameter products", test_mlr },
		{ "device allocation cost: a line through the sizes", test_dev_cost_fit },
		VTEST_END
	};
	static const struct vtest_suite suites[] = {
		{ "regression", NULL, NULL, cases },
		{ NULL, NULL, NULL, NULL }
	};
	return vtest_run(argc, argv, suites);
}
