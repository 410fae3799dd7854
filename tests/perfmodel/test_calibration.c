/* test_calibration: calibration in real runs, model files, and the query
 * API, through the public StarPU API only.
 *
 * Each case runs its own starpu_init/starpu_shutdown with the environment
 * it needs (STARPU_CALIBRATE, STARPU_CALIBRATE_MINIMUM) in a private model
 * directory (STARPU_PERF_MODEL_DIR, STARPU_HOSTNAME fixed), then checks
 * what was recorded by loading the file back. Timings are never checked:
 * only counts, validity (NAN or not) and that predictions equal the
 * stored means.
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "failing_calloc.h"
#include "vtest.h"

#define HOST "vtesthost"

static char tmpdir[256];
static char sampling[512];

static void kernel(void *buffers[], void *arg)
{
	(void) arg;
	double *x = (double *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (unsigned r = 0; r < 4; r++)
		for (unsigned i = 0; i < n; i++)
			x[i] = x[i] * 1.0001 + 1.0;
}

static void kernel_twice(void *buffers[], void *arg)
{
	kernel(buffers, arg);
	kernel(buffers, arg);
}

static void start(const char *calibrate, const char *minimum)
{
	vtest_setenv("STARPU_CALIBRATE", calibrate);
	vtest_setenv("STARPU_CALIBRATE_MINIMUM", minimum);
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.precedence_over_environment_variables = 1;
	CU_ASSERT_FATAL(starpu_init(&conf) == 0);
}

static void stop(void)
{
	starpu_task_wait_for_all();
	starpu_shutdown();
	vtest_setenv("STARPU_CALIBRATE", NULL);
	vtest_setenv("STARPU_CALIBRATE_MINIMUM", NULL);
}

static double *buf;

/* Submits n tasks of cl on a vector of nx doubles; impl < 0: any. */
static void run(struct starpu_codelet *cl, unsigned nx, int n, int impl)
{
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, nx, sizeof(double));
	for (int i = 0; i < n; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = cl;
		t->handles[0] = h;
		t->flops = 8.0 * nx;
		if (impl >= 0)
			starpu_task_set_implementation(t, (unsigned) impl);
		CU_ASSERT(starpu_task_submit(t) == 0);
	}
	starpu_task_wait_for_all();
	starpu_data_unregister(h);
}

/* The expected length of one task of cl over nx doubles on the CPU arch. */
static double expected(struct starpu_codelet *cl, unsigned nx, unsigned impl)
{
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, nx, sizeof(double));
	struct starpu_task *t = starpu_task_create();
	t->destroy = 0;
	t->cl = cl;
	t->handles[0] = h;
	double e = starpu_task_expected_length(t, starpu_worker_get_perf_archtype(0, 0), impl);
	starpu_task_destroy(t);
	starpu_data_unregister(h);
	return e;
}

/* Loads symbol's file (after shutdown) into *m. */
static int load(const char *symbol, struct starpu_perfmodel *m)
{
	memset(m, 0, sizeof(*m));
	return starpu_perfmodel_load_symbol(symbol, m);
}

static struct starpu_perfmodel_per_arch *cpu_part(struct starpu_perfmodel *m, unsigned impl)
{
	struct starpu_perfmodel_device cpu = { STARPU_CPU_WORKER, 0, 1 };
	int comb = starpu_perfmodel_arch_comb_get(1, &cpu);
	CU_ASSERT_FATAL(comb >= 0);
	return starpu_perfmodel_get_model_per_arch(m, starpu_perfmodel_arch_comb_fetch(comb), impl);
}

/* Sample count of the entry of size bytes (first_runs: of its first-run
 * entry, flops NaN), or -1. */
static int entry_samples(struct starpu_perfmodel *m, unsigned impl, size_t size, double *mean, int first_runs)
{
	struct starpu_perfmodel_per_arch *pa = cpu_part(m, impl);
	if (!pa)
		return -1;
	for (struct starpu_perfmodel_history_list *l = pa->list; l; l = l->next)
		if (l->entry->size == size && !isnan(l->entry->flops) == !first_runs)
		{
			if (mean)
				*mean = l->entry->mean;
			return (int) l->entry->nsample;
		}
	return -1;
}

static int samples(struct starpu_perfmodel *m, unsigned impl, size_t size, double *mean)
{
	return entry_samples(m, impl, size, mean, 0);
}

static char *model_path(const char *symbol)
{
	static char path[1024];
	snprintf(path, sizeof(path), "%s/codelets/45/%s.%s", sampling, symbol, HOST);
	return path;
}

/* ---- first runs ---------------------------------------------------------- */

/* The process's set of what it has run (runtime/perfmodel/measure.c) is
 * first allocated with 64 slots of this layout (mirrored here: if it
 * changes, no allocation fails and the case says so). This case must run
 * before any other calibrates: the set only grows. */
struct ran_mirror
{
	const void *model;
	int type, devid, ncores, ndevices;
	unsigned impl;
	uint32_t fp;
};

static struct starpu_perfmodel first_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_first" };
static struct starpu_codelet first_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &first_model };

/* When the set cannot be allocated, a first run is kept as a sample (as
 * before first runs were set apart): nothing is lost, nothing fails. */
static void test_first_runs_without_memory(void)
{
	start("1", "3");
	failing_calloc_arm_exact(64, sizeof(struct ran_mirror));
	run(&first_cl, 1000, 4, -1);
	unsigned failed = failing_calloc_disarm();
	CU_ASSERT(failed >= 1);
	run(&first_cl, 4000, 4, -1);	/* the set allocated: a first run again */
	stop();
	struct starpu_perfmodel m;
	CU_ASSERT_FATAL(load("vtest_first", &m) == 0);
	CU_ASSERT(samples(&m, 0, 8000, NULL) == 4);
	CU_ASSERT(entry_samples(&m, 0, 8000, NULL, 1) == -1);
	CU_ASSERT(samples(&m, 0, 32000, NULL) == 3);
	CU_ASSERT(entry_samples(&m, 0, 32000, NULL, 1) == 1);
	starpu_perfmodel_unload_model(&m);
}

/* ---- history models ------------------------------------------------------ */

static struct starpu_perfmodel hist_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_hist" };
static struct starpu_codelet hist_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &hist_model };

static void test_history_calibrate_reload(void)
{
	start("1", "3");
	CU_ASSERT(isnan(expected(&hist_cl, 1000, 0)));
	run(&hist_cl, 1000, 6, -1);
	run(&hist_cl, 4000, 6, -1);
	double e1 = expected(&hist_cl, 1000, 0), e2 = expected(&hist_cl, 4000, 0);
	CU_ASSERT(isfinite(e1) && e1 > 0);
	CU_ASSERT(isfinite(e2) && e2 > 0);
	/* Another size has no entry: calibration needed there. */
	CU_ASSERT(isnan(expected(&hist_cl, 2000, 0)));
	stop();

	struct stat st;
	CU_ASSERT_FATAL(stat(model_path("vtest_hist"), &st) == 0);
	struct starpu_perfmodel m;
	CU_ASSERT_FATAL(load("vtest_hist", &m) == 0);
	/* The first run of each size in the process is apart: 5 samples and
	 * a first-run entry of 1. */
	double mean1 = 0, mean2 = 0;
	CU_ASSERT(samples(&m, 0, 8000, &mean1) == 5);
	CU_ASSERT(samples(&m, 0, 32000, &mean2) == 5);
	CU_ASSERT(entry_samples(&m, 0, 8000, NULL, 1) == 1);
	CU_ASSERT(entry_samples(&m, 0, 32000, NULL, 1) == 1);
	starpu_perfmodel_unload_model(&m);

	/* Calibrated: STARPU_CALIBRATE=0 predicts the stored means and adds
	 * no samples. The file holds 7 significant digits. */
	start("0", "3");
	double p1 = expected(&hist_cl, 1000, 0), p2 = expected(&hist_cl, 4000, 0);
	CU_ASSERT(fabs(p1 - mean1) <= 1e-6 * mean1);
	CU_ASSERT(fabs(p2 - mean2) <= 1e-6 * mean2);
	run(&hist_cl, 1000, 5, -1);
	stop();
	CU_ASSERT_FATAL(load("vtest_hist", &m) == 0);
	CU_ASSERT(samples(&m, 0, 8000, NULL) == 5);
	CU_ASSERT(entry_samples(&m, 0, 8000, NULL, 1) == 1);
	starpu_perfmodel_unload_model(&m);

	/* STARPU_CALIBRATE=1 keeps adding. */
	start("1", "3");
	run(&hist_cl, 1000, 2, -1);
	stop();
	CU_ASSERT_FATAL(load("vtest_hist", &m) == 0);
	/* The process ran that footprint before this starpu_init: no first
	 * run this time. */
	CU_ASSERT(samples(&m, 0, 8000, NULL) == 7);
	CU_ASSERT(entry_samples(&m, 0, 8000, NULL, 1) == 1);
	CU_ASSERT(samples(&m, 0, 32000, NULL) == 5);
	starpu_perfmodel_unload_model(&m);

	/* STARPU_CALIBRATE=2 starts again from scratch. */
	start("2", "3");
	CU_ASSERT(isnan(expected(&hist_cl, 1000, 0)));
	run(&hist_cl, 1000, 2, -1);
	stop();
	CU_ASSERT_FATAL(load("vtest_hist", &m) == 0);
	CU_ASSERT(samples(&m, 0, 8000, NULL) == 2);
	CU_ASSERT(entry_samples(&m, 0, 8000, NULL, 1) == -1);
	CU_ASSERT(samples(&m, 0, 32000, NULL) == -1);
	starpu_perfmodel_unload_model(&m);
}

static struct starpu_perfmodel auto_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_auto" };
static struct starpu_codelet auto_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &auto_model };

/* With STARPU_CALIBRATE unset, an uncalibrated entry is filled up to
 * STARPU_CALIBRATE_MINIMUM samples, then left alone. */
static void test_default_calibration(void)
{
	start(NULL, "4");
	run(&auto_cl, 2000, 7, -1);
	CU_ASSERT(isfinite(expected(&auto_cl, 2000, 0)));
	stop();
	struct starpu_perfmodel m;
	CU_ASSERT_FATAL(load("vtest_auto", &m) == 0);
	CU_ASSERT(samples(&m, 0, 16000, NULL) == 4);
	starpu_perfmodel_unload_model(&m);
}

/* A codelet with two implementations has a model per implementation. */
static struct starpu_perfmodel impl_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_impls" };
static struct starpu_codelet impl_cl = { .cpu_funcs = { kernel, kernel_twice }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &impl_model };

static void test_implementations(void)
{
	start("1", "2");
	run(&impl_cl, 3000, 3, 0);
	run(&impl_cl, 3000, 4, 1);
	CU_ASSERT(isfinite(expected(&impl_cl, 3000, 0)));
	CU_ASSERT(isfinite(expected(&impl_cl, 3000, 1)));
	stop();
	struct starpu_perfmodel m;
	CU_ASSERT_FATAL(load("vtest_impls", &m) == 0);
	CU_ASSERT(samples(&m, 0, 24000, NULL) == 2);
	CU_ASSERT(samples(&m, 1, 24000, NULL) == 3);
	starpu_perfmodel_unload_model(&m);
}

/* ---- regression models ----------------------------------------------------- */

static struct starpu_perfmodel reg_model = { .type = STARPU_REGRESSION_BASED, .symbol = "vtest_reg" };
static struct starpu_codelet reg_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &reg_model };
static struct starpu_perfmodel nl_model = { .type = STARPU_NL_REGRESSION_BASED, .symbol = "vtest_nl" };
static struct starpu_codelet nl_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &nl_model };

static void test_regressions(void)
{
	start("1", "3");
	for (unsigned nx = 1000; nx <= 16000; nx *= 2)
	{
		run(&reg_cl, nx, 3, -1);
		run(&nl_cl, nx, 3, -1);
	}
	/* Sizes never seen are predicted by the fits. */
	CU_ASSERT(expected(&reg_cl, 64000, 0) > 0);
	CU_ASSERT(expected(&nl_cl, 64000, 0) > 0);
	stop();
	struct starpu_perfmodel m;
	CU_ASSERT_FATAL(load("vtest_reg", &m) == 0);
	struct starpu_perfmodel_per_arch *pa = cpu_part(&m, 0);
	CU_ASSERT_FATAL(pa != NULL);
	CU_ASSERT(pa->regression.nsample == 10);	/* 5 sizes x 3 runs, less the first of each */
	CU_ASSERT(pa->regression.minx == 8000 && pa->regression.maxx == 128000);
	CU_ASSERT(isfinite(pa->regression.alpha) && isfinite(pa->regression.beta));
	starpu_perfmodel_unload_model(&m);
	CU_ASSERT_FATAL(load("vtest_nl", &m) == 0);
	pa = cpu_part(&m, 0);
	CU_ASSERT_FATAL(pa != NULL);
	CU_ASSERT(isfinite(pa->regression.a) && isfinite(pa->regression.b) && isfinite(pa->regression.c));
	starpu_perfmodel_unload_model(&m);
	/* Reloaded by the runtime, the fits predict again. */
	start("0", "3");
	CU_ASSERT(expected(&reg_cl, 64000, 0) > 0);
	CU_ASSERT(expected(&nl_cl, 64000, 0) > 0);
	stop();
}

/* Multiple regression on parameters given by the application. */
static void mlr_params(struct starpu_task *task, double *p)
{
	p[0] = starpu_vector_get_nx(task->handles[0]);
}
static const char *mlr_names[] = { "N" };
static unsigned mlr_c0[] = { 1 };
static unsigned *mlr_combs[] = { mlr_c0 };
static struct starpu_perfmodel mlr_model = {
	.type = STARPU_MULTIPLE_REGRESSION_BASED, .symbol = "vtest_mlr", .parameters = mlr_params,
	.nparameters = 1, .parameters_names = mlr_names, .combinations = mlr_combs, .ncombinations = 1,
};
static struct starpu_codelet mlr_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &mlr_model };

static void test_multiple_regression(void)
{
	start("1", "3");
	for (unsigned nx = 1000; nx <= 16000; nx *= 2)
		run(&mlr_cl, nx, 2, -1);
	stop();
	struct starpu_perfmodel m;
	CU_ASSERT_FATAL(load("vtest_mlr", &m) == 0);
	struct starpu_perfmodel_per_arch *pa = cpu_part(&m, 0);
	CU_ASSERT_FATAL(pa != NULL);
	CU_ASSERT(pa->regression.ncoeff == 2);
	CU_ASSERT(pa->regression.coeff && isfinite(pa->regression.coeff[0]) && isfinite(pa->regression.coeff[1]));
	starpu_perfmodel_unload_model(&m);
	start("0", "3");
	CU_ASSERT(isfinite(expected(&mlr_cl, 50000, 0)));
	stop();
}

/* ---- application-given costs ------------------------------------------------ */

static double arch_cost(struct starpu_task *t, struct starpu_perfmodel_arch *a, unsigned nimpl)
{
	(void) t;
	(void) nimpl;
	return a->devices[0].type == STARPU_CPU_WORKER ? 42.0 : 4.2;
}
static double per_dev_cost(struct starpu_task *t, struct starpu_perfmodel_arch *a, unsigned nimpl)
{
	(void) t;
	(void) a;
	return 10.0 + nimpl;
}
static double common_cost(struct starpu_task *t, unsigned nimpl)
{
	(void) t;
	(void) nimpl;
	return 100.0;
}
static struct starpu_perfmodel per_arch_model = { .type = STARPU_PER_ARCH, .arch_cost_function = arch_cost };
static struct starpu_perfmodel per_dev_model = { .type = STARPU_PER_ARCH, .symbol = "vtest_perdev" };
static struct starpu_perfmodel common_model = { .type = STARPU_COMMON, .cost_function = common_cost };

static void test_cost_functions(void)
{
	start("0", NULL);
	static struct starpu_codelet cl = { .cpu_funcs = { kernel, kernel }, .nbuffers = 1, .modes = { STARPU_RW } };
	cl.model = &per_arch_model;
	CU_ASSERT(expected(&cl, 100, 0) == 42.0);
	CU_ASSERT(starpu_perfmodel_set_per_devices_cost_function(&per_dev_model, 1, per_dev_cost, STARPU_CPU_WORKER, 0, 1, -1) == 0);
	cl.model = &per_dev_model;
	CU_ASSERT(expected(&cl, 100, 1) == 11.0);
	CU_ASSERT(isnan(expected(&cl, 100, 0)));
	cl.model = &common_model;
	CU_ASSERT(expected(&cl, 100, 0) == 100.0);
	cl.model = &starpu_perfmodel_nop;
	CU_ASSERT(expected(&cl, 100, 0) == 1.0);
	cl.model = NULL;
	CU_ASSERT(expected(&cl, 100, 0) == 0.0);
	/* A CUDA arch: the common model scales by the relative speed. */
	struct starpu_perfmodel_device cuda = { STARPU_CUDA_WORKER, 0, 1 };
	struct starpu_perfmodel_arch *ca = starpu_perfmodel_arch_comb_fetch(starpu_perfmodel_arch_comb_add(1, &cuda));
	CU_ASSERT_FATAL(ca != NULL);
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, 10, sizeof(double));
	struct starpu_task *t = starpu_task_create();
	t->destroy = 0;
	t->cl = &cl;
	t->handles[0] = h;
	cl.model = &common_model;
	CU_ASSERT(fabs(starpu_task_expected_length(t, ca, 0) - 100.0 / starpu_worker_get_relative_speedup(ca)) < 1e-9);
	cl.model = &per_arch_model;
	CU_ASSERT(starpu_task_expected_length(t, ca, 0) == 4.2);
	starpu_task_destroy(t);
	starpu_data_unregister(h);
	stop();
}

/* ---- explicit measurements, energy, transfers -------------------------------- */

static struct starpu_perfmodel upd_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_update" };
static struct starpu_perfmodel energy_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_energy" };
static struct starpu_codelet upd_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_R }, .model = &upd_model, .energy_model = &energy_model };

static void test_update_history(void)
{
	start("0", "3");
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, 500, sizeof(double));
	struct starpu_task *t = starpu_task_create();
	t->destroy = 0;
	t->cl = &upd_cl;
	t->handles[0] = h;
	struct starpu_perfmodel_arch *a = starpu_worker_get_perf_archtype(0, 0);
	CU_ASSERT(isnan(starpu_task_expected_length(t, a, 0)));
	for (int i = 0; i < 3; i++)
	{
		starpu_perfmodel_update_history(&upd_model, t, a, 0, 0, 100.0 + 10 * i);
		starpu_perfmodel_update_history(&energy_model, t, a, 0, 0, 2.5);
	}
	CU_ASSERT(fabs(starpu_task_expected_length(t, a, 0) - 110.0) < 1e-9);
	CU_ASSERT(fabs(starpu_task_expected_energy(t, a, 0) - 2.5) < 1e-12);
	CU_ASSERT(starpu_task_expected_conversion_time(t, a, 0) == 0.0);
	CU_ASSERT(fabs(starpu_perfmodel_history_based_expected_perf(&upd_model, a, starpu_task_data_footprint(t)) - 110.0) < 1e-9);
	/* Data already in RAM, the workers' node: nothing to transfer. */
	CU_ASSERT(starpu_task_expected_data_transfer_time(STARPU_MAIN_RAM, t) == 0.0);
	CU_ASSERT(starpu_task_expected_data_transfer_time_for(t, 0) == 0.0);
	CU_ASSERT(starpu_data_expected_transfer_time(h, STARPU_MAIN_RAM, STARPU_R) == 0.0);
	vtest_capture_stderr_begin();
	starpu_perfmodel_update_history(&upd_model, t, a, 0, 0, NAN);
	CU_ASSERT(strstr(vtest_capture_stderr_end(), "measured=nan is not a duration") != NULL);
	starpu_task_destroy(t);
	starpu_data_unregister(h);
	stop();
	struct starpu_perfmodel m;
	CU_ASSERT_FATAL(load("vtest_update", &m) == 0);
	CU_ASSERT(samples(&m, 0, 4000, NULL) == 3);
	starpu_perfmodel_unload_model(&m);
}

/* Measurements far from a settled mean are set aside; when they outnumber
 * the entry's samples the entry restarts from them, and the file's entry
 * is replaced at save. */
static struct starpu_perfmodel out_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_outliers" };
static struct starpu_codelet out_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_R }, .model = &out_model };

static void test_outliers(void)
{
	vtest_setenv("STARPU_HISTORY_MAX_ERROR", "50");
	start("1", "3");
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, 700, sizeof(double));
	struct starpu_task *t = starpu_task_create();
	t->destroy = 0;
	t->cl = &out_cl;
	t->handles[0] = h;
	struct starpu_perfmodel_arch *a = starpu_worker_get_perf_archtype(0, 0);
	for (int i = 0; i < 3; i++)
		starpu_perfmodel_update_history(&out_model, t, a, 0, 0, 100.0);
	starpu_perfmodel_update_history(&out_model, t, a, 0, 0, 140.0);	/* within 50 % */
	CU_ASSERT(fabs(starpu_task_expected_length(t, a, 0) - 110.0) < 1e-9);
	starpu_perfmodel_update_history(&out_model, t, a, 0, 0, 1000.0);	/* set aside */
	CU_ASSERT(fabs(starpu_task_expected_length(t, a, 0) - 110.0) < 1e-9);
	starpu_task_destroy(t);
	starpu_data_unregister(h);
	stop();
	struct starpu_perfmodel m;
	CU_ASSERT_FATAL(load("vtest_outliers", &m) == 0);
	double mean = 0;
	CU_ASSERT(samples(&m, 0, 5600, &mean) == 4);
	CU_ASSERT(fabs(mean - 110.0) < 1e-3);
	starpu_perfmodel_unload_model(&m);

	/* The machine got slower: five measurements at 1000 outnumber the four
	 * samples, the entry restarts, and the file follows. */
	start("1", "3");
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, 700, sizeof(double));
	t = starpu_task_create();
	t->destroy = 0;
	t->cl = &out_cl;
	t->handles[0] = h;
	a = starpu_worker_get_perf_archtype(0, 0);
	for (int i = 0; i < 7; i++)
		starpu_perfmodel_update_history(&out_model, t, a, 0, 0, 1000.0);
	CU_ASSERT(fabs(starpu_task_expected_length(t, a, 0) - 1000.0) < 1e-9);
	starpu_task_destroy(t);
	starpu_data_unregister(h);
	stop();
	CU_ASSERT_FATAL(load("vtest_outliers", &m) == 0);
	CU_ASSERT(samples(&m, 0, 5600, &mean) == 3);
	CU_ASSERT(fabs(mean - 1000.0) < 1e-3);
	starpu_perfmodel_unload_model(&m);

	/* Below the calibration minimum an entry is not settled: a far
	 * measurement counts (else an entry whose first samples were disturbed
	 * would reject every later one and never reach the minimum). */
	start("1", "10");
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, 700, sizeof(double));
	t = starpu_task_create();
	t->destroy = 0;
	t->cl = &out_cl;
	t->handles[0] = h;
	a = starpu_worker_get_perf_archtype(0, 0);
	starpu_perfmodel_update_history(&out_model, t, a, 0, 0, 100.0);
	starpu_task_destroy(t);
	starpu_data_unregister(h);
	stop();
	CU_ASSERT_FATAL(load("vtest_outliers", &m) == 0);
	CU_ASSERT(samples(&m, 0, 5600, &mean) == 4);
	CU_ASSERT(fabs(mean - 775.0) < 1e-3);
	starpu_perfmodel_unload_model(&m);
	vtest_setenv("STARPU_HISTORY_MAX_ERROR", "1000000");
}

/* The bus model of this machine: calibrated at the first init, in files. */
static void test_bus(void)
{
	start("0", NULL);
	CU_ASSERT(starpu_transfer_bandwidth(STARPU_MAIN_RAM, STARPU_MAIN_RAM) > 0);
	CU_ASSERT(starpu_transfer_latency(STARPU_MAIN_RAM, STARPU_MAIN_RAM) >= 0);
	CU_ASSERT(starpu_transfer_predict(STARPU_MAIN_RAM, STARPU_MAIN_RAM, 1 << 20) == 0.0);
	CU_ASSERT(isnan(starpu_transfer_bandwidth(STARPU_MAIN_RAM, 5)));
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	starpu_bus_print_filenames(f);
	starpu_bus_print_bandwidth(f);
	fclose(f);
	CU_ASSERT(strstr(out, HOST ".bandwidth") != NULL);
	CU_ASSERT(strstr(out, "RAM 0") != NULL);
	free(out);
	stop();
	static const char *const which[] = { "bandwidth", "latency", "affinity", "config", "platform.v4.xml" };
	for (int i = 0; i < 5; i++)
	{
		char path[1024];
		struct stat st;
		snprintf(path, sizeof(path), "%s/bus/%s.%s", sampling, HOST, which[i]);
		CU_ASSERT(stat(path, &st) == 0 && st.st_size > 0);
	}
}

/* ---- failures -------------------------------------------------------------- */

static struct starpu_perfmodel nw1 = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_nw1" };
static struct starpu_perfmodel nw2 = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_nw2" };
static struct starpu_codelet nw1_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &nw1 };
static struct starpu_codelet nw2_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &nw2 };

/* A model directory that cannot be created: reported once, runs go on. */
static void test_unwritable_dir(void)
{
	char file[512], dir[600];
	snprintf(file, sizeof(file), "%s/not-a-directory", tmpdir);
	FILE *f = fopen(file, "w");
	CU_ASSERT_FATAL(f != NULL);
	fclose(f);
	snprintf(dir, sizeof(dir), "%s/sampling", file);
	vtest_setenv("STARPU_PERF_MODEL_DIR", dir);
	vtest_capture_stderr_begin();
	start("1", "2");
	run(&nw1_cl, 100, 3, -1);
	run(&nw2_cl, 100, 3, -1);
	CU_ASSERT(isfinite(expected(&nw1_cl, 100, 0)));
	stop();
	const char *err = vtest_capture_stderr_end();
	const char *p = strstr(err, "calibration results of this run are not saved");
	CU_ASSERT(p != NULL);
	CU_ASSERT(p && !strstr(p + 1, "calibration results of this run are not saved"));
	CU_ASSERT(strstr(err, "not-a-directory") != NULL);
	vtest_setenv("STARPU_PERF_MODEL_DIR", sampling);
}

static struct starpu_perfmodel bad_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_bad" };
static struct starpu_codelet bad_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &bad_model };

/* A corrupt model file: reported with file:line, the runtime goes on
 * without that model, and the file is left for the user to inspect. */
static void test_corrupt_file(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/codelets/45", sampling);
	const char *path = model_path("vtest_bad");
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "##################\n# Performance Model Version\n45\n\n# COMBs\n1\n1\n0\n0\n1\n1\n2\n");
	fclose(f);
	struct stat before;
	CU_ASSERT_FATAL(stat(path, &before) == 0);
	start("1", "2");
	vtest_capture_stderr_begin();
	CU_ASSERT(isnan(expected(&bad_cl, 100, 0)));
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT(strstr(err, "vtest_bad." HOST ":13: unexpected end of file, expected the regression line") != NULL);
	CU_ASSERT(strstr(err, "truncated") != NULL);
	run(&bad_cl, 100, 3, -1);
	CU_ASSERT(isnan(expected(&bad_cl, 100, 0)));
	stop();
	struct stat after;
	CU_ASSERT_FATAL(stat(path, &after) == 0);
	CU_ASSERT(after.st_size == before.st_size && after.st_mtime == before.st_mtime);
	struct starpu_perfmodel m;
	vtest_capture_stderr_begin();
	CU_ASSERT(load("vtest_bad", &m) == -EINVAL);
	CU_ASSERT(strstr(vtest_capture_stderr_end(), ":13:") != NULL);
	unlink(path);
}

/* Temporary files of writers killed before their rename (issue 22 item
 * 11): the next session that saves a model removes those of processes
 * that are gone, for this host's models and bus files only; a live
 * process's file and other hosts' files stay. */
static struct starpu_perfmodel stale_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_stale" };
static struct starpu_codelet stale_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &stale_model };

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("45\n", f);	/* a torn model */
	fclose(f);
}

static void test_stale_tmp(void)
{
	/* A pid that existed and is gone: a child that has exited. */
	pid_t dead = fork();
	CU_ASSERT_FATAL(dead >= 0);
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	pid_t live = getppid();
	char dead_model[1200], live_model[1200], other_host[1200], dead_bus[1200], not_tmp[1200];
	snprintf(dead_model, sizeof(dead_model), "%s.tmp.%ld", model_path("vtest_killed"), (long) dead);
	snprintf(live_model, sizeof(live_model), "%s.tmp.%ld", model_path("vtest_writing"), (long) live);
	snprintf(other_host, sizeof(other_host), "%s/codelets/45/vtest_killed.otherhost.tmp.%ld", sampling, (long) dead);
	snprintf(not_tmp, sizeof(not_tmp), "%s.tmp.12x", model_path("vtest_killed"));
	snprintf(dead_bus, sizeof(dead_bus), "%s/bus/" HOST ".bandwidth.tmp.%ld", sampling, (long) dead);
	char dir[700];
	static const char *const sub[] = { "", "/codelets", "/codelets/45", "/bus" };
	for (unsigned i = 0; i < 4; i++)
	{
		snprintf(dir, sizeof(dir), "%s%s", sampling, sub[i]);
		mkdir(dir, 0755);
	}
	touch(dead_model);
	touch(live_model);
	touch(other_host);
	touch(not_tmp);
	touch(dead_bus);

	start("1", "2");
	run(&stale_cl, 100, 2, -1);
	stop();
	CU_ASSERT(access(model_path("vtest_stale"), F_OK) == 0);
	CU_ASSERT(access(dead_model, F_OK) == -1 && errno == ENOENT);
	CU_ASSERT(access(live_model, F_OK) == 0);
	CU_ASSERT(access(other_host, F_OK) == 0);
	CU_ASSERT(access(not_tmp, F_OK) == 0);
	/* The bus directory: when the bus is written (calibrated again). */
	vtest_setenv("STARPU_BUS_CALIBRATE", "1");
	start("0", "2");
	stop();
	vtest_setenv("STARPU_BUS_CALIBRATE", NULL);
	CU_ASSERT(access(dead_bus, F_OK) == -1 && errno == ENOENT);
	unlink(live_model);
	unlink(other_host);
	unlink(not_tmp);
}

/* A symbol that cannot name a file is refused, not used as a path. */
static struct starpu_perfmodel evil_model = { .type = STARPU_HISTORY_BASED, .symbol = "../../evil" };
static struct starpu_codelet evil_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &evil_model };

static void test_bad_symbol(void)
{
	start("1", "2");
	vtest_capture_stderr_begin();
	run(&evil_cl, 100, 2, -1);
	CU_ASSERT(strstr(vtest_capture_stderr_end(), "symbol '../../evil' cannot name a file") != NULL);
	stop();
	struct starpu_perfmodel m;
	vtest_capture_stderr_begin();
	CU_ASSERT(load("../../evil", &m) == -EINVAL);
	vtest_capture_stderr_end();
	CU_ASSERT(load("vtest_no_such_model", &m) == 1);
}

/* ---- listing and printing -------------------------------------------------- */

static void test_list_print(void)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	CU_ASSERT(starpu_perfmodel_list(f) == 0);
	starpu_perfmodel_directory(f);
	struct starpu_perfmodel m;
	CU_ASSERT_FATAL(load("vtest_impls", &m) == 0);
	CU_ASSERT(starpu_perfmodel_print_all(&m, NULL, NULL, NULL, f) == 0);
	CU_ASSERT(starpu_perfmodel_print_all(&m, "cpu", "mean", NULL, f) == 0);
	CU_ASSERT(starpu_perfmodel_list_combs(f, &m) == 0);
	starpu_perfmodel_dump_xml(f, &m);
	vtest_capture_stderr_begin();
	CU_ASSERT(starpu_perfmodel_print_all(&m, "gpu", NULL, NULL, f) == -EINVAL);
	CU_ASSERT(strstr(vtest_capture_stderr_end(), "unknown arch 'gpu'") != NULL);
	fclose(f);
	CU_ASSERT(strstr(out, "file: <vtest_impls." HOST ">") != NULL);
	CU_ASSERT(strstr(out, "directory: <") != NULL);
	CU_ASSERT(strstr(out, "# performance model for cpu0_impl1 (Comb0)") != NULL);
	CU_ASSERT(strstr(out, "<perfmodel version=\"45\">") != NULL);
	CU_ASSERT(strstr(out, "Device 0: type: cpu - devid: 0 - ncores: 1") != NULL);
	starpu_perfmodel_unload_model(&m);
	free(out);
}

static int suite_init(void)
{
	const char *base = getenv("STARPU_HOME");
	snprintf(tmpdir, sizeof(tmpdir), "%s/vtest-calib-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(sampling, sizeof(sampling), "%s/sampling", tmpdir);
	vtest_setenv("STARPU_PERF_MODEL_DIR", sampling);
	vtest_setenv("STARPU_HOSTNAME", HOST);
	/* Counts are checked exactly: keep every measurement of these tiny,
	 * noisy kernels (test_outliers sets its own threshold). */
	vtest_setenv("STARPU_HISTORY_MAX_ERROR", "1000000");
	buf = calloc(1 << 17, sizeof(double));
	return buf ? 0 : -1;
}

static int suite_clean(void)
{
	free(buf);
	vtest_env_restore();
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct vtest_case cases[] = {
		{ "first runs kept as samples when their set cannot be allocated", test_first_runs_without_memory },
		{ "history model: calibrate, save, reload, STARPU_CALIBRATE=0/1/2", test_history_calibrate_reload },
		{ "uncalibrated models calibrate up to STARPU_CALIBRATE_MINIMUM by default", test_default_calibration },
		{ "one model per implementation", test_implementations },
		{ "regression and non-linear regression models", test_regressions },
		{ "multiple regression model", test_multiple_regression },
		{ "per-arch, per-devices and common cost functions", test_cost_functions },
		{ "update_history, energy, conversion and transfer estimates", test_update_history },
		{ "outlier measurements set aside, entries restarted", test_outliers },
		{ "bus model calibrated and stored at init", test_bus },
		{ "unwritable model directory: reported once, run goes on", test_unwritable_dir },
		{ "corrupt model file: reported with file:line, ignored, kept", test_corrupt_file },
		{ "symbols that cannot name a file", test_bad_symbol },
		{ "temporary files of killed writers removed", test_stale_tmp },
		{ "list, print, combs, XML", test_list_print },
		VTEST_END
	};
	static const struct vtest_suite suites[] = {
		{ "calibration", suite_init, suite_clean, cases },
		{ NULL, NULL, NULL, NULL }
	};
	return vtest_run(argc, argv, suites);
}
