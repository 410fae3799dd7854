/* test_model_file: the version-45 model file parser and writer.
 *
 * Files written by Debian's StarPU 1.3 (tests/perfmodel/data/starpu13/:
 * its cholesky_implicit and mlr examples, and small programs with history,
 * regression, non-linear, size_base, footprint-callback, two-implementation
 * and two-comb models) are parsed, their values checked, and written back
 * byte for byte. Then corrupt, truncated, wrong-version and hostile inputs
 * are each rejected with "file:line: reason".
 */
#define _GNU_SOURCE
#include "perfmodel/perfmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vtest.h"

static const char *datadir(void)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof(buf), "%s/tests/perfmodel/data/starpu13", top ? top : "..");
	return buf;
}

static char *slurp(const char *name, size_t *len)
{
	char path[4200], err[512];
	snprintf(path, sizeof(path), "%s/%s", datadir(), name);
	char *buf = NULL;
	int ret = pm_file_read_all(path, &buf, len, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	CU_ASSERT_FATAL(ret == 0);
	return buf;
}

static int parse_name(const char *name, struct pm_data *d, char *err, size_t errsize)
{
	size_t len;
	char *buf = slurp(name, &len);
	int ret = pm_file_parse(buf, len, name, d, err, errsize);
	free(buf);
	return ret;
}

static char *write_mem(const struct pm_data *d, size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(pm_file_write(f, d, NULL) == 0);
	fclose(f);
	return out;
}

static void test_roundtrip_bytes(void)
{
	static const char *const files[] = {
		"chol_model_11.vm", "chol_model_21.vm", "chol_model_22.vm", "probe_hist.vm", "probe_reg.vm",
		"probe_nl.vm", "probe_sb.vm", "probe_fp.vm", "probe_par.vm", "probe_2impl.vm", "mlr_init.vm", "mlr_final.vm",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
	{
		size_t len, olen;
		char *orig = slurp(files[i], &len);
		struct pm_data d;
		char err[512];
		int ret = pm_file_parse(orig, len, files[i], &d, err, sizeof(err));
		if (ret)
			fprintf(stderr, "%s\n", err);
		CU_ASSERT_FATAL(ret == 0);
		char *out = write_mem(&d, &olen);
		int same = olen == len && !memcmp(out, orig, len);
		if (!same)
			fprintf(stderr, "%s: written back differently (%zu vs %zu bytes):\n%s\n", files[i], olen, len, out);
		CU_ASSERT(same);
		free(out);
		free(orig);
		pm_data_free(&d);
	}
}

static struct pm_entry *entry(struct pm_data *d, unsigned comb, unsigned impl, uint32_t fp)
{
	CU_ASSERT_FATAL(comb < d->ncombs && d->combs[comb]);
	return pm_history_find(&d->combs[comb]->impl[impl], fp);
}

static void test_values(void)
{
	struct pm_data d;
	char err[512];
	CU_ASSERT_FATAL(parse_name("probe_par.vm", &d, err, sizeof(err)) == 0);
	CU_ASSERT(d.ncombs == 2);
	CU_ASSERT(d.combs[0]->ndevices == 1 && d.combs[0]->devices[0].type == STARPU_CPU_WORKER);
	CU_ASSERT(d.combs[0]->devices[0].devid == 0 && d.combs[0]->devices[0].ncores == 1);
	CU_ASSERT(d.combs[1]->devices[0].ncores == 2);
	struct pm_entry *e = entry(&d, 1, 0, 0x0d370ae5);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT(e->e.size == 32000);
	CU_ASSERT(e->e.nsample > 0);
	CU_ASSERT(fabs(e->e.mean - e->e.sum / e->e.nsample) <= 1e-6 * e->e.mean);
	pm_data_free(&d);

	/* Two implementations; the second was never run (StarPU lists its
	 * entries with no sample). */
	CU_ASSERT_FATAL(parse_name("probe_2impl.vm", &d, err, sizeof(err)) == 0);
	CU_ASSERT(d.ncombs == 1 && d.combs[0]->nimpls == 2);
	CU_ASSERT(d.combs[0]->impl[0].nentries == 6 && d.combs[0]->impl[1].nentries == 6);
	/* 32000 doubles, vector footprint. */
	e = entry(&d, 0, 0, 0xfc249856);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT(e->e.size == 256000);
	CU_ASSERT(e->e.flops == 6.4e5);
	pm_data_free(&d);

	CU_ASSERT_FATAL(parse_name("probe_nl.vm", &d, err, sizeof(err)) == 0);
	struct starpu_perfmodel_regression_model *r = &d.combs[0]->impl[0].pa.regression;
	CU_ASSERT(r->nsample == 72 && r->minx == 8000 && r->maxx == 256000);
	CU_ASSERT(isfinite(r->a) && isfinite(r->b) && isfinite(r->c));
	CU_ASSERT(r->b > 0.8 && r->b < 1.3);
	pm_data_free(&d);

	/* Multiple regression: the coefficient line instead of a history. */
	CU_ASSERT_FATAL(parse_name("mlr_final.vm", &d, err, sizeof(err)) == 0);
	r = &d.combs[0]->impl[0].pa.regression;
	CU_ASSERT(r->ncoeff == 3 && r->coeff != NULL);
	CU_ASSERT(d.combs[0]->impl[0].mlr_header && strstr(d.combs[0]->impl[0].mlr_header, "M^2*N"));
	pm_data_free(&d);
}

/* StarPU rewrites files in place: stale lines may follow the last comb. */
static void test_stale_tail(void)
{
	struct pm_data d;
	char err[512];
	int ret = parse_name("stale_tail.vm", &d, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	CU_ASSERT(ret == 0);
	CU_ASSERT(d.ncombs == 1);
	pm_data_free(&d);
}

/* The alpha and beta StarPU stored agree with a fit from its own sums. */
static void test_linear_fit_matches_starpu(void)
{
	struct pm_data d;
	char err[512];
	CU_ASSERT_FATAL(parse_name("probe_reg.vm", &d, err, sizeof(err)) == 0);
	struct starpu_perfmodel_regression_model r = d.combs[0]->impl[0].pa.regression;
	double alpha = r.alpha, beta = r.beta;
	pm_regression_update_linear(&r, 10);
	CU_ASSERT(r.valid);
	/* The sums carry 7 digits: the fit agrees to about 1e-4. */
	CU_ASSERT(fabs(r.alpha - alpha) <= 2e-3 * alpha);
	CU_ASSERT(fabs(r.beta - beta) <= 2e-4 * fabs(beta));
	pm_data_free(&d);
}

/* ---- bad input ---------------------------------------------------------- */

static const char header[] =
	"##################\n# Performance Model Version\n45\n\n"
	"####################\n# COMBs\n# number of combinations\n1\n"
	"####################\n# COMB_0\n# number of types devices\n1\n"
	"####################\n# DEV_0\n# device type (CPU - 0, CUDA - 1, OPENCL - 2, MIC - 3, MPI_MS - 5)\n0\n"
	"####################\n# DEV_0\n# device id \n0\n"
	"####################\n# DEV_0\n# number of cores \n1\n"
	"##########\n# number of implementations\n1\n"
	"#####\n# Model for cpu0_impl0 (Comb0)\n# number of entries\n";
static const char regline[] =
	"# sumlnx\tsumlnx2\t\tsumlny\t\tsumlnxlny\talpha\t\tbeta\t\tn\tminx\t\tmaxx\n"
	"0.000000e+00   \t0.000000e+00   \t0.000000e+00   \t0.000000e+00   \tnan            \tnan            \t0\t0              \t0              \n"
	"# a\t\tb\t\tc\nnan            \tnan            \tnan            \n"
	"# not multiple-regression-base\n0\n"
	"# hash\t\tsize\t\tflops\t\tmean (us)\tdev (us)\tsum\t\tsum2\t\tn\n";

/* A one-entry file whose entry line is given. */
static char *one_entry(const char *nentries, const char *line)
{
	char *s;
	CU_ASSERT_FATAL(asprintf(&s, "%s%s\n%s%s\n\n", header, nentries, regline, line) > 0);
	return s;
}

static const char good_line[] = "7602c8ce\t230400         \t4.636840e+06   \t5.530416e+05   \t0.000000e+00   \t5.530416e+05   \t3.058550e+11   \t1";

struct bad_case
{
	const char *what;
	char *text;
	const char *reason;		/* substring of the message */
	int line;			/* expected line number, 0: any */
};

static void check_bad(struct bad_case *c)
{
	struct pm_data d;
	char err[512];
	int ret = pm_file_parse(c->text, strlen(c->text), "bad.vm", &d, err, sizeof(err));
	int ok = ret == -EINVAL && strstr(err, c->reason) && !strncmp(err, "bad.vm:", 7);
	if (ok && c->line)
	{
		char want[32];
		snprintf(want, sizeof(want), "bad.vm:%d:", c->line);
		ok = !strncmp(err, want, strlen(want));
	}
	if (!ok)
		fprintf(stderr, "case '%s': got %d '%s', expected '%s' at line %d\n", c->what, ret, err, c->reason, c->line);
	CU_ASSERT(ok);
	CU_ASSERT(d.ncombs == 0);
	free(c->text);
}

static char *replace(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);
	CU_ASSERT_FATAL(p != NULL);
	char *s;
	CU_ASSERT_FATAL(asprintf(&s, "%.*s%s%s", (int) (p - text), text, to, p + strlen(from)) > 0);
	return s;
}

static void test_bad_inputs(void)
{
	/* The good one parses: the cases below each break one thing. */
	char *good = one_entry("1", good_line);
	struct pm_data d;
	char err[512];
	CU_ASSERT_FATAL(pm_file_parse(good, strlen(good), "good.vm", &d, err, sizeof(err)) == 0);
	pm_data_free(&d);
	int entry_line = 0;
	for (const char *p = good; *p; p++)
		entry_line += *p == '\n';
	entry_line -= 1;	/* the entry is followed by one blank line */

	size_t half = strlen(good) / 2;
	struct bad_case cases[] = {
		{ "empty", strdup(""), "unexpected end of file", 1 },
		{ "comments only", strdup("# nothing\n# here\n"), "unexpected end of file", 3 },
		{ "wrong version", replace(good, "\n45\n", "\n44\n"), "format version 44 is not supported", 3 },
		{ "not a number version", replace(good, "\n45\n", "\nabc\n"), "not an integer", 3 },
		{ "truncated", strndup(good, half), "truncated", 0 },
		{ "truncated entries", one_entry("3", good_line), "truncated", 0 },
		{ "NaN mean", replace(good, "5.530416e+05   \t0.0", "nan\t0.0"), "entry mean is NaN", entry_line },
		{ "negative size", replace(good, "230400", "-230400"), "entry size is negative", entry_line },
		{ "negative sum", replace(good, "\t5.530416e+05   \t3.05", "\t-5.5e+05\t3.05"), "entry sum -5.5e+05 is negative", entry_line },
		{ "infinite", replace(good, "3.058550e+11", "inf"), "infinite", entry_line },
		{ "huge entry count", one_entry("4000000000", good_line), "too large", 0 },
		{ "huge sample count", replace(good, "e+11   \t1", "e+11   \t99999999999"), "too large", entry_line },
		{ "huge comb count", replace(good, "combinations\n1\n", "combinations\n18446744073709551617\n"), "too large", 8 },
		{ "too many combs", replace(good, "combinations\n1\n", "combinations\n100000\n"), "too large", 8 },
		{ "no device", replace(good, "devices\n1\n", "devices\n0\n"), "has no device", 12 },
		{ "bad device type", replace(good, "MPI_MS - 5)\n0\n", "MPI_MS - 5)\n7\n"), "device type 7", 16 },
		{ "too many implementations", replace(good, "implementations\n1\n", "implementations\n9\n"), "too large", 0 },
		{ "bad hash", replace(good, "7602c8ce", "zz02c8ce"), "not a hexadecimal footprint", entry_line },
		{ "extra field", replace(good, "e+11   \t1", "e+11   \t1\t7"), "unexpected '7'", entry_line },
		{ "missing field", replace(good, "\t3.058550e+11   \t1", ""), "missing", entry_line },
		{ "NUL byte", replace(good, "# COMBs", "# CO\1Bs"), "", 0 },
		{ "regression garbage", replace(good, "\tnan            \tnan            \t0\t0", "\tnan            \tnan            \tzero\t0"), "regression sample count", 0 },
		{ "minx above maxx", replace(good, "\t0\t0              \t0              ", "\t3\t9              \t2              "), "minx 9 is larger than maxx 2", 0 },
		{ "huge coefficient count", replace(good, "base\n0\n", "base\n1000\n"), "too large", 0 },
		/* Implausible values (issue 22 item 4): a mean of 1e308 us made
		 * a simulation report an infinite time. */
		{ "absurd mean", replace(good, "5.530416e+05   \t0.0", "1e308\t0.0"), "entry mean 1e308 is not a plausible duration", entry_line },
		{ "absurd deviation", replace(good, "\t0.000000e+00   \t5.5", "\t2e13\t5.5"), "entry deviation 2e13 is not a plausible duration", entry_line },
		{ "absurd flops", replace(good, "4.636840e+06", "1e300"), "entry flops 1e300 is not a plausible flop count", entry_line },
		{ "negative mean", replace(good, "5.530416e+05   \t0.0", "-1\t0.0"), "entry mean -1 is negative", entry_line },
		/* NaN flops marks an entry of first runs (below); no negative
		 * value does. */
		{ "negative flops", replace(good, "4.636840e+06", "-1"), "entry flops -1 is negative", entry_line },
	};
	/* The NUL case: a real NUL, which a C string cannot hold. */
	struct bad_case *nul = &cases[20];
	char *p = strchr(nul->text, '\1');
	CU_ASSERT_FATAL(p != NULL);
	*p = '\0';
	{
		size_t n = strlen(nul->text) + 1 + strlen(p + 1);
		struct pm_data dd;
		char e2[512];
		int ret = pm_file_parse(nul->text, n, "bad.vm", &dd, e2, sizeof(e2));
		CU_ASSERT(ret == -EINVAL && strstr(e2, "NUL byte"));
		free(nul->text);
		nul->text = NULL;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cases[i].text)
			check_bad(&cases[i]);

	/* NaN flops: an entry of first runs (perfmodel.h), read as such. */
	char *first = replace(good, "4.636840e+06", "nan");
	CU_ASSERT_FATAL(first != NULL);
	CU_ASSERT(pm_file_parse(first, strlen(first), "first.vm", &d, err, sizeof(err)) == 0);
	struct starpu_perfmodel_history_list *fl = d.ncombs ? d.combs[0]->impl[0].pa.list : NULL;
	CU_ASSERT(fl && pm_entry_is_first_run(fl->entry) && fl->entry->nsample == 1);
	pm_data_free(&d);
	free(first);

	/* Duplicate footprints and duplicate combs. */
	char *two;
	CU_ASSERT_FATAL(asprintf(&two, "%s2\n%s%s\n%s\n\n", header, regline, good_line, good_line) > 0);
	struct bad_case dup = { "duplicate entry", two, "appears twice", entry_line + 1 };
	check_bad(&dup);

	/* A line too long to be a model line. */
	char *longl = malloc(10000);
	memset(longl, '1', 9999);
	longl[9999] = '\0';
	struct bad_case lng = { "long line", one_entry("1", longl), "line longer than", entry_line };
	free(longl);
	check_bad(&lng);
	free(good);
}

/* A file that does not exist, and a directory in place of a file. */
static void test_files(void)
{
	struct pm_data d;
	char err[512];
	CU_ASSERT(pm_file_load("/nonexistent/model.vm", &d, err, sizeof(err)) == -ENOENT);
	CU_ASSERT(pm_file_load("/", &d, err, sizeof(err)) == -EINVAL);
	CU_ASSERT(strstr(err, "a directory, not a model file") != NULL);
}

int main(int argc, char **argv)
{
	static const struct vtest_case file_cases[] = {
		{ "files written by StarPU 1.3 are written back byte for byte", test_roundtrip_bytes },
		{ "values read from StarPU 1.3 files", test_values },
		{ "stale lines after the last comb are ignored, as StarPU does", test_stale_tail },
		{ "linear regression from StarPU's sums gives StarPU's alpha and beta", test_linear_fit_matches_starpu },
		{ "corrupt, truncated, wrong-version and hostile files are rejected with file:line", test_bad_inputs },
		{ "missing files and directories", test_files },
		VTEST_END
	};
	static const struct vtest_suite suites[] = {
		{ "model_file", NULL, NULL, file_cases },
		{ NULL, NULL, NULL, NULL }
	};
	return vtest_run(argc, argv, suites);
}
