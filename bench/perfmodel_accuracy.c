/*
 * perfmodel_accuracy.c — how well calibrated models predict the example
 * tile kernels (potrf, trsm, syrk, gemm from the tiled Cholesky, getrf from
 * LU), on this machine's CPU cores.
 *
 * 1. Calibration: a fresh model directory, STARPU_CALIBRATE=1, CAL runs of
 *    every kernel at every calibrated tile size, for two models per kernel:
 *    history-based (symbol vela_d<kernel>, the examples' symbols) and
 *    non-linear regression (vela_d<kernel>_nl). starpu_shutdown saves them.
 * 2. Prediction: a new runtime session with STARPU_CALIBRATE=0 reads the
 *    files; for each kernel and size, starpu_task_expected_length() gives
 *    the prediction, then FRESH new runs are timed inside the codelet
 *    function (all of it, as the runtime times a kernel) and compared.
 * Sizes outside the calibration (held out) are predicted by the
 * non-linear model only: the history has no entry for them.
 *
 * Written against the public StarPU 1.3 API only: it builds against
 * Debian's StarPU too (cc ... $(pkg-config --cflags --libs starpu-1.3)
 * -lopenblas), for comparison.
 *
 * Usage: perfmodel_accuracy [-d DIR] [-q]   (DIR: where models go; default a
 *        temporary directory; -q: smaller sizes and fewer runs)
 * Output: one line per kernel and size: predicted and measured mean (µs),
 * relative error of the prediction, and the spread of the fresh runs.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>
#include <starpu.h>

#include "bench_util.h"

extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void openblas_set_num_threads(int num_threads);

enum { POTRF, TRSM, SYRK, GEMM, GETRF, NKERNELS };
static const char *const names[NKERNELS] = { "potrf", "trsm", "syrk", "gemm", "getrf" };
static const unsigned nbuffers[NKERNELS] = { 1, 2, 2, 3, 1 };

/* Where a fresh run reports the duration of its BLAS call. */
struct run
{
	double us;
};

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double *mat(void *b) { return (double *) STARPU_MATRIX_GET_PTR(b); }
static int nx(void *b) { return (int) STARPU_MATRIX_GET_NX(b); }
static int ld(void *b) { return (int) STARPU_MATRIX_GET_LD(b); }

/* The tiles are refreshed before each run (a factorised tile is not a
 * valid input any more): diagonally dominant, so potrf and getrf succeed. */
static void refresh(double *a, int n, int lda)
{
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			a[(size_t) j * lda + i] = (i == j ? n : 0) + 1.0 / (1 + i + j);
}

static void kernel(void *buffers[], void *arg, int k)
{
	struct run *r = arg;
	/* Timed like the runtime times a kernel: the whole codelet function. */
	double t0 = now_us();
	int n = nx(buffers[0]), info = 0;
	int last = (int) nbuffers[k] - 1;
	refresh(mat(buffers[last]), n, ld(buffers[last]));
	switch (k)
	{
	case POTRF:
		dpotrf_("L", &n, mat(buffers[0]), &(int) { ld(buffers[0]) }, &info);
		break;
	case TRSM:
		cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, n, n, 1.0,
			    mat(buffers[0]), ld(buffers[0]), mat(buffers[1]), ld(buffers[1]));
		break;
	case SYRK:
		cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, -1.0, mat(buffers[0]), ld(buffers[0]),
			    1.0, mat(buffers[1]), ld(buffers[1]));
		break;
	case GEMM:
		cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, -1.0, mat(buffers[0]), ld(buffers[0]),
			    mat(buffers[1]), ld(buffers[1]), 1.0, mat(buffers[2]), ld(buffers[2]));
		break;
	case GETRF:
	{
		int *ipiv = malloc(sizeof(int) * n);
		dgetrf_(&n, &n, mat(buffers[0]), &(int) { ld(buffers[0]) }, ipiv, &info);
		free(ipiv);
		break;
	}
	}
	if (r)
		r->us = now_us() - t0;
}

static void potrf_cpu(void *b[], void *a) { kernel(b, a, POTRF); }
static void trsm_cpu(void *b[], void *a) { kernel(b, a, TRSM); }
static void syrk_cpu(void *b[], void *a) { kernel(b, a, SYRK); }
static void gemm_cpu(void *b[], void *a) { kernel(b, a, GEMM); }
static void getrf_cpu(void *b[], void *a) { kernel(b, a, GETRF); }

static struct starpu_perfmodel hist[NKERNELS] = {
	{ .type = STARPU_HISTORY_BASED, .symbol = "vela_dpotrf" },
	{ .type = STARPU_HISTORY_BASED, .symbol = "vela_dtrsm" },
	{ .type = STARPU_HISTORY_BASED, .symbol = "vela_dsyrk" },
	{ .type = STARPU_HISTORY_BASED, .symbol = "vela_dgemm" },
	{ .type = STARPU_HISTORY_BASED, .symbol = "vela_dgetrf" },
};
static struct starpu_perfmodel nl[NKERNELS] = {
	{ .type = STARPU_NL_REGRESSION_BASED, .symbol = "vela_dpotrf_nl" },
	{ .type = STARPU_NL_REGRESSION_BASED, .symbol = "vela_dtrsm_nl" },
	{ .type = STARPU_NL_REGRESSION_BASED, .symbol = "vela_dsyrk_nl" },
	{ .type = STARPU_NL_REGRESSION_BASED, .symbol = "vela_dgemm_nl" },
	{ .type = STARPU_NL_REGRESSION_BASED, .symbol = "vela_dgetrf_nl" },
};
static starpu_cpu_func_t funcs[NKERNELS] = { potrf_cpu, trsm_cpu, syrk_cpu, gemm_cpu, getrf_cpu };
/* [0] history model, [1] non-linear model, [2] no model (warm-up runs). */
static struct starpu_codelet cl[3][NKERNELS];

static void codelets(void)
{
	for (int m = 0; m < 3; m++)
		for (int k = 0; k < NKERNELS; k++)
		{
			struct starpu_codelet *c = &cl[m][k];
			memset(c, 0, sizeof(*c));
			c->cpu_funcs[0] = funcs[k];
			c->nbuffers = (int) nbuffers[k];
			for (unsigned i = 0; i < nbuffers[k]; i++)
				c->modes[i] = i + 1 == nbuffers[k] ? STARPU_RW : STARPU_R;
			c->model = m == 2 ? NULL : m ? &nl[k] : &hist[k];
			c->name = names[k];
		}
}

static starpu_data_handle_t tiles[3];
static double *tile_mem[3];

static void register_tiles(int n)
{
	for (int i = 0; i < 3; i++)
	{
		refresh(tile_mem[i], n, n);
		starpu_matrix_data_register(&tiles[i], STARPU_MAIN_RAM, (uintptr_t) tile_mem[i], n, n, n, sizeof(double));
	}
}

static void unregister_tiles(void)
{
	for (int i = 0; i < 3; i++)
		starpu_data_unregister(tiles[i]);
}

static struct starpu_task *make_task(struct starpu_codelet *c, int k, struct run *r)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = c;
	t->cl_arg = r;
	for (unsigned i = 0; i < nbuffers[k]; i++)
		t->handles[i] = tiles[i];
	return t;
}

/* Runs one task synchronously (so that runs do not disturb one another). */
static int run_one(struct starpu_codelet *c, int k, struct run *r)
{
	struct starpu_task *t = make_task(c, k, r);
	t->synchronous = 1;
	return starpu_task_submit(t);
}

int main(int argc, char **argv)
{
	bench_name = "perfmodel_accuracy";
	const char *dir = NULL;
	int quick = 0;
	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "-d") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "-q"))
			quick = 1;
		else
		{
			fprintf(stderr, "usage: %s [-d MODEL_DIR] [-q]\n", argv[0]);
			return 2;
		}
	}
	char tmp[] = "/tmp/vela-pm-accuracy-XXXXXX";
	if (!dir)
	{
		if (!mkdtemp(tmp))
			return 1;
		dir = tmp;
	}
	setenv("STARPU_PERF_MODEL_DIR", dir, 1);
	setenv("STARPU_NCPU", "1", 1);	/* one kernel at a time, no neighbour */
	openblas_set_num_threads(1);

	static const int full_sizes[] = { 64, 128, 256, 384, 512 }, full_held[] = { 192, 320 };
	static const int quick_sizes[] = { 32, 64, 128 }, quick_held[] = { 96 };
	const int *sizes = quick ? quick_sizes : full_sizes, *held = quick ? quick_held : full_held;
	int nsizes = quick ? 3 : 5, nheld = quick ? 1 : 2;
	int cal = quick ? 10 : 15, fresh = quick ? 5 : 10;
	int maxn = quick ? 128 : 512;
	for (int i = 0; i < 3; i++)
		if (posix_memalign((void **) &tile_mem[i], 64, sizeof(double) * maxn * maxn))
			return 1;
	codelets();

	/* 1. Calibration. */
	setenv("STARPU_CALIBRATE", "1", 1);
	if (starpu_init(NULL))
		return 77;
	printf("# calibrating: %d runs per model, kernel and tile size, models in %s\n", cal, dir);
	for (int s = 0; s < nsizes; s++)
	{
		register_tiles(sizes[s]);
		for (int k = 0; k < NKERNELS; k++)
		{
			/* Warm-up (first touch of the tiles, library setup): not
			 * recorded, as a real application's first run would be. */
			for (int r = 0; r < 2; r++)
				if (run_one(&cl[2][k], k, NULL))
					return 1;
			for (int r = 0; r < cal; r++)
				for (int m = 0; m < 2; m++)
					if (run_one(&cl[m][k], k, NULL))
						return 1;
		}
		unregister_tiles();
	}
	starpu_shutdown();

	/* 2. Prediction against fresh runs. */
	setenv("STARPU_CALIBRATE", "0", 1);
	if (starpu_init(NULL))
		return 1;
	struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(0, 0);
	printf("# kernel  tile  model  predicted(us)  measured(us)  error   spread(min..max us)\n");
	double sum_err[2] = { 0, 0 };
	int nerr[2] = { 0, 0 };
	for (int pass = 0; pass < 2; pass++)
	{
		int count = pass ? nheld : nsizes;
		for (int s = 0; s < count; s++)
		{
			int n = pass ? held[s] : sizes[s];
			register_tiles(n);
			for (int k = 0; k < NKERNELS; k++)
				for (int m = pass; m < 2; m++)
				{
					if (run_one(&cl[2][k], k, NULL))	/* warm-up */
						return 1;
					struct starpu_task *probe = make_task(&cl[m][k], k, NULL);
					probe->destroy = 0;
					double pred = starpu_task_expected_length(probe, arch, 0);
					starpu_task_destroy(probe);
					struct run r[64];
					double t[64], mean = 0;
					for (int i = 0; i < fresh; i++)
					{
						if (run_one(&cl[m][k], k, &r[i]))
							return 1;
						t[i] = r[i].us;
						mean += t[i] / fresh;
					}
					qsort(t, (size_t) fresh, sizeof(double), cmp_double);
					double err = (pred - mean) / mean;
					if (isfinite(err))
					{
						sum_err[m] += fabs(err);
						nerr[m]++;
					}
					printf("%-8s %5d  %-5s  %13.1f  %12.1f  %+6.1f%%  %.1f..%.1f%s\n", names[k], n, m ? "nl" : "hist", pred, mean,
					       100 * err, t[0], t[fresh - 1], pass ? "  (held out)" : "");
				}
			unregister_tiles();
		}
	}
	starpu_shutdown();
	printf("# mean absolute error: history %.1f%% over %d cases, non-linear regression %.1f%% over %d cases\n",
	       nerr[0] ? 100 * sum_err[0] / nerr[0] : NAN, nerr[0], nerr[1] ? 100 * sum_err[1] / nerr[1] : NAN, nerr[1]);
	for (int i = 0; i < 3; i++)
		free(tile_mem[i]);
	if (dir == tmp)
	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd))
			return 1;
	}
	return 0;
}
