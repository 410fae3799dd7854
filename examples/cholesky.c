/*
 * cholesky.c — tiled Cholesky factorization A = L L^T, run under several
 * schedulers: the demo program.
 *
 * Shows: a real task graph built only from data access modes. Each tile of
 * the lower triangle is its own matrix handle; the right-looking algorithm
 * below submits potrf/trsm/syrk/gemm tasks in sequential order and the
 * runtime derives every dependency from the STARPU_R / STARPU_RW modes.
 * Tasks on the critical path (the panel: potrf, then the trsm under it, then
 * the updates feeding the next panel) get higher STARPU_PRIORITY so that
 * priority-aware schedulers (prio) start them first; every task declares its
 * STARPU_FLOPS. The factorization is repeated for each scheduler named with
 * -s, and -r times per scheduler, each run in a fresh starpu_init(conf) /
 * starpu_shutdown() session.
 *
 * The matrix is symmetric with entries in [0, 1) plus N on the diagonal, so
 * it is diagonally dominant and hence positive definite; it is generated
 * deterministically. The result is checked by ||A - L L^T||_F / ||A||_F over
 * the lower triangle, computed on the host without the runtime.
 *
 * Simulation (Vela, STARPU_SIMGRID=1 set at process start): kernels are not
 * run, so the program allocates no matrix (tiles are registered with home
 * node -1, never touched by the simulation), skips the reference and the
 * check, and prints the simulated time: a million-task simulation needs no
 * 27 GB matrix. A simulation that starts only in starpu_init
 * (VELA_SIM_BOOT=attach) finds the matrix allocated, and still skips the
 * check.
 *
 * Layout: column-major tiles; in a matrix handle NX is the number of rows,
 * NY the number of columns, LD the distance between columns. The last tile
 * row/column is smaller when BS does not divide N.
 *
 * Usage: cholesky [-n N] [-b BS] [-s SCHED,SCHED,...] [-r REPS] [-c NCPUS]
 *                 [-q] [--no-check] [--no-ref]
 * Exit: 0 success, 1 wrong result or error, 77 no CPU worker available.
 */

/*
 * OpenBLAS's cblas.h defines _GNU_SOURCE part-way through the includes, which
 * makes StarPU's STARPU_CHECK_RETURN_VALUE pick the GNU strerror_r while
 * <string.h> declared the XSI one. Defining it first keeps both consistent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>
#include <starpu.h>

/* LAPACK (Fortran) Cholesky, exported by OpenBLAS. */
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
/* OpenBLAS would otherwise start its own threads inside every task. */
extern void openblas_set_num_threads(int num_threads);

#define DEFAULT_N 4096
#define DEFAULT_BS 512
#define QUICK_N 512
#define QUICK_BS 128
/* Best of two smooths out a noisy machine; the quick run does one. */
#define DEFAULT_REPS 2
#define QUICK_REPS 1
#define DEFAULT_SCHEDS "eager,prio,random,ws,lws"
/* Backward error of a stable Cholesky is O(n * eps); this leaves margin. */
#define CHECK_TOLERANCE 1e-10

/*
 * Only the order of priorities matters. StarPU 1.3 accepts any int under
 * prio, ws and lws, and reports the range 0..0 (priorities ignored) under
 * eager and random; small values stay meaningful everywhere.
 */
enum {
	PRIO_UPDATE = 0,     /* trailing updates that no near panel waits for */
	PRIO_NEXT_PANEL = 1, /* updates of column k+1, which the next potrf/trsm need */
	PRIO_TRSM = 2,
	PRIO_POTRF = 3,
};

/*
 * Is this run simulated? Vela decides at run time (vela_is_simulated, known
 * before starpu_init when STARPU_SIMGRID=1 is in the environment at process
 * start); a StarPU built with SimGrid says so at compile time.
 */
static int run_is_simulated(void)
{
#if defined(VELA_VERSION_STRING)
	return vela_is_simulated();
#elif defined(STARPU_SIMGRID)
	return 1;
#else
	return 0;
#endif
}

/* Set by a potrf kernel whose tile was not positive definite (LAPACK info). */
static atomic_int potrf_failure;

/* Tile accessors: column-major, NX rows, NY columns, LD leading dimension. */
static double *tile_ptr(void *buffer)
{
	return (double *)STARPU_MATRIX_GET_PTR(buffer);
}

static int tile_rows(void *buffer)
{
	return (int)STARPU_MATRIX_GET_NX(buffer);
}

static int tile_cols(void *buffer)
{
	return (int)STARPU_MATRIX_GET_NY(buffer);
}

static int tile_ld(void *buffer)
{
	return (int)STARPU_MATRIX_GET_LD(buffer);
}

/* A_kk = L_kk L_kk^T, lower triangle overwritten with L_kk. */
static void potrf_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	const int n = tile_rows(buffers[0]);
	const int ld = tile_ld(buffers[0]);
	int info = 0;

	dpotrf_("L", &n, tile_ptr(buffers[0]), &ld, &info);
	if (info != 0)
		atomic_store(&potrf_failure, info);
}

/* A_ik = A_ik L_kk^-T: the panel tile below the diagonal. */
static void trsm_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit,
		    tile_rows(buffers[1]), tile_cols(buffers[1]), 1.0,
		    tile_ptr(buffers[0]), tile_ld(buffers[0]),
		    tile_ptr(buffers[1]), tile_ld(buffers[1]));
}

/* A_ii -= A_ik A_ik^T, lower triangle only. */
static void syrk_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans,
		    tile_rows(buffers[1]), tile_cols(buffers[0]),
		    -1.0, tile_ptr(buffers[0]), tile_ld(buffers[0]),
		    1.0, tile_ptr(buffers[1]), tile_ld(buffers[1]));
}

/* A_ij -= A_ik A_jk^T for i > j. */
static void gemm_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans,
		    tile_rows(buffers[2]), tile_cols(buffers[2]), tile_cols(buffers[0]),
		    -1.0, tile_ptr(buffers[0]), tile_ld(buffers[0]),
		    tile_ptr(buffers[1]), tile_ld(buffers[1]),
		    1.0, tile_ptr(buffers[2]), tile_ld(buffers[2]));
}

/*
 * History-based performance models, one per kernel: calibrated on the first
 * runs (or with STARPU_CALIBRATE=1), kept in $STARPU_HOME/.starpu/sampling,
 * shown by `vela perfmodel show vela_dgemm`. The symbols are those of
 * perfmodels/ and of `vela perfmodel derive`, so models derived for a GPU
 * or shipped for a machine apply to this program.
 */
static struct starpu_perfmodel potrf_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dpotrf" };
static struct starpu_perfmodel trsm_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dtrsm" };
static struct starpu_perfmodel syrk_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dsyrk" };
static struct starpu_perfmodel gemm_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dgemm" };

static struct starpu_codelet potrf_cl = {
	.model = &potrf_model,
	.where = STARPU_CPU,
	.cpu_funcs = { potrf_cpu },
	.cpu_funcs_name = { "potrf_cpu" },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "potrf",
};

static struct starpu_codelet trsm_cl = {
	.model = &trsm_model,
	.where = STARPU_CPU,
	.cpu_funcs = { trsm_cpu },
	.cpu_funcs_name = { "trsm_cpu" },
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW },
	.name = "trsm",
};

static struct starpu_codelet syrk_cl = {
	.model = &syrk_model,
	.where = STARPU_CPU,
	.cpu_funcs = { syrk_cpu },
	.cpu_funcs_name = { "syrk_cpu" },
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW },
	.name = "syrk",
};

static struct starpu_codelet gemm_cl = {
	.model = &gemm_model,
	.where = STARPU_CPU,
	.cpu_funcs = { gemm_cpu },
	.cpu_funcs_name = { "gemm_cpu" },
	.nbuffers = 3,
	.modes = { STARPU_R, STARPU_R, STARPU_RW },
	.name = "gemm",
};

/*
 * In a simulated run (Vela) the codelets also declare a CUDA implementation,
 * Vela's vela_sim_placeholder, so that simulated GPUs take tasks (their
 * durations come from the models' cuda entries, e.g. perfmodels/). This
 * example has no GPU kernels: a real run never declares one.
 */
static void enable_simulated_gpus(void)
{
#if defined(VELA_VERSION_STRING)
	struct starpu_codelet *cls[] = { &potrf_cl, &trsm_cl, &syrk_cl, &gemm_cl };
	for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
		cls[i]->cuda_funcs[0] = vela_sim_placeholder;
		cls[i]->where |= STARPU_CUDA;
	}
#endif
}

/*
 * The lower triangle of an n x n matrix cut into nt x nt tiles; only tiles
 * (i, j) with i >= j exist. Each tile is allocated on its own. The tiles
 * outlive every runtime session (they are registered again in each one and
 * checked after starpu_shutdown), so they come from posix_memalign rather
 * than starpu_malloc. Without data (simulation) tiles is NULL and the
 * handles are registered with home node -1.
 */
struct tiled {
	int n, bs, nt;
	double **tiles;                 /* tile (i,j) at [i*(i+1)/2 + j]; owned, free()d by tiled_free; NULL without data */
	starpu_data_handle_t *handles;  /* same indexing; valid between register and unregister */
};

static size_t tile_index(int i, int j)
{
	return (size_t)i * (i + 1) / 2 + j;
}

static size_t tile_count(const struct tiled *t)
{
	return tile_index(t->nt, 0);
}

static int tile_dim(const struct tiled *t, int index)
{
	return index < t->nt - 1 ? t->bs : t->n - (t->nt - 1) * t->bs;
}

static int tiled_alloc(struct tiled *t, int n, int bs, int with_data)
{
	t->n = n;
	t->bs = bs;
	t->nt = (n + bs - 1) / bs;
	t->handles = calloc(tile_count(t), sizeof(*t->handles));
	if (!t->handles)
		return -ENOMEM;
	if (!with_data)
		return 0;
	t->tiles = calloc(tile_count(t), sizeof(*t->tiles));
	if (!t->tiles)
		return -ENOMEM;
	for (int i = 0; i < t->nt; i++)
		for (int j = 0; j <= i; j++) {
			size_t bytes = (size_t)tile_dim(t, i) * tile_dim(t, j) * sizeof(double);
			void *tile = NULL;
			if (posix_memalign(&tile, 64, bytes) != 0)
				return -ENOMEM;
			t->tiles[tile_index(i, j)] = tile;
		}
	return 0;
}

static void tiled_free(struct tiled *t)
{
	if (t->tiles)
		for (size_t k = 0; k < tile_count(t); k++)
			free(t->tiles[k]);
	free(t->tiles);
	free(t->handles);
	t->tiles = NULL;
	t->handles = NULL;
}

/* Where tile (i, j) starts inside a full column-major matrix. */
static const double *full_corner(const struct tiled *t, const double *full, int i, int j)
{
	return full + (size_t)j * t->bs * t->n + (size_t)i * t->bs;
}

/* Refill the tiles from the saved matrix: every run factorizes the same input. */
static void tiled_load(struct tiled *t, const double *full)
{
	if (!t->tiles)
		return;
	for (int i = 0; i < t->nt; i++)
		for (int j = 0; j <= i; j++) {
			int rows = tile_dim(t, i), cols = tile_dim(t, j);
			double *tile = t->tiles[tile_index(i, j)];
			const double *corner = full_corner(t, full, i, j);
			for (int c = 0; c < cols; c++)
				memcpy(tile + (size_t)c * rows, corner + (size_t)c * t->n,
				       rows * sizeof(double));
		}
}

static void tiled_register(struct tiled *t)
{
	for (int i = 0; i < t->nt; i++)
		for (int j = 0; j <= i; j++) {
			int rows = tile_dim(t, i);
			size_t k = tile_index(i, j);
			starpu_matrix_data_register(&t->handles[k], t->tiles ? STARPU_MAIN_RAM : -1,
						    t->tiles ? (uintptr_t)t->tiles[k] : 0,
						    rows, rows, tile_dim(t, j), sizeof(double));
		}
}

static void tiled_unregister(struct tiled *t)
{
	for (size_t k = 0; k < tile_count(t); k++)
		starpu_data_unregister(t->handles[k]);
}

/*
 * Submit the whole factorization; returns 0 or the first submission error.
 * Right-looking order: factor the panel k, then update the trailing matrix.
 */
static int submit_cholesky(struct tiled *t)
{
	const int nt = t->nt;
	int ret;

	for (int k = 0; k < nt; k++) {
		const double bk = tile_dim(t, k);
		starpu_data_handle_t akk = t->handles[tile_index(k, k)];

		ret = starpu_task_insert(&potrf_cl,
					 STARPU_RW, akk,
					 STARPU_PRIORITY, PRIO_POTRF,
					 STARPU_FLOPS, bk * bk * bk / 3.0,
					 0);
		if (ret)
			return ret;

		for (int i = k + 1; i < nt; i++) {
			const double bi = tile_dim(t, i);
			ret = starpu_task_insert(&trsm_cl,
						 STARPU_R, akk,
						 STARPU_RW, t->handles[tile_index(i, k)],
						 STARPU_PRIORITY, PRIO_TRSM,
						 STARPU_FLOPS, bi * bk * bk,
						 0);
			if (ret)
				return ret;
		}

		for (int i = k + 1; i < nt; i++) {
			const double bi = tile_dim(t, i);
			starpu_data_handle_t aik = t->handles[tile_index(i, k)];

			ret = starpu_task_insert(&syrk_cl,
						 STARPU_R, aik,
						 STARPU_RW, t->handles[tile_index(i, i)],
						 STARPU_PRIORITY, i == k + 1 ? PRIO_NEXT_PANEL : PRIO_UPDATE,
						 STARPU_FLOPS, bi * bi * bk,
						 0);
			if (ret)
				return ret;

			for (int j = k + 1; j < i; j++) {
				const double bj = tile_dim(t, j);
				ret = starpu_task_insert(&gemm_cl,
							 STARPU_R, aik,
							 STARPU_R, t->handles[tile_index(j, k)],
							 STARPU_RW, t->handles[tile_index(i, j)],
							 STARPU_PRIORITY, j == k + 1 ? PRIO_NEXT_PANEL : PRIO_UPDATE,
							 STARPU_FLOPS, 2.0 * bi * bj * bk,
							 0);
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

/*
 * ||A - L L^T||_F / ||A||_F over the tiles of the lower triangle (diagonal
 * tiles taken whole). Uses (L L^T)_IJ = sum over K <= J of L_IK L_JK^T,
 * which costs n^3/3 flops instead of the n^3 of a full syrk. Zeroes the upper
 * triangle of the diagonal tiles, which dpotrf leaves holding input values.
 */
static double residual(struct tiled *t, const double *a_full)
{
	double *work = malloc((size_t)t->bs * t->bs * sizeof(double));
	if (!work)
		return INFINITY;

	for (int k = 0; k < t->nt; k++) {
		int bk = tile_dim(t, k);
		double *lkk = t->tiles[tile_index(k, k)];
		for (int c = 1; c < bk; c++)
			memset(lkk + (size_t)c * bk, 0, c * sizeof(double));
	}

	double err2 = 0.0, norm2 = 0.0;
	for (int i = 0; i < t->nt; i++)
		for (int j = 0; j <= i; j++) {
			int rows = tile_dim(t, i), cols = tile_dim(t, j);
			const double *corner = full_corner(t, a_full, i, j);
			for (int c = 0; c < cols; c++)
				memcpy(work + (size_t)c * rows, corner + (size_t)c * t->n,
				       rows * sizeof(double));
			for (size_t e = 0; e < (size_t)rows * cols; e++)
				norm2 += work[e] * work[e];
			for (int k = 0; k <= j; k++)
				cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans,
					    rows, cols, tile_dim(t, k),
					    -1.0, t->tiles[tile_index(i, k)], rows,
					    t->tiles[tile_index(j, k)], cols,
					    1.0, work, rows);
			for (size_t e = 0; e < (size_t)rows * cols; e++)
				err2 += work[e] * work[e];
		}
	free(work);
	return sqrt(err2) / sqrt(norm2);
}

/* Symmetric, entries in [0, 1) off the diagonal, plus n on it: SPD. */
static void generate_spd(double *a, int n)
{
	uint64_t state = 42;
	for (int j = 0; j < n; j++)
		for (int i = j; i < n; i++) {
			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			double value = (double)(state >> 11) / 9007199254740992.0;
			if (i == j)
				value += n;
			a[(size_t)j * n + i] = value;
			a[(size_t)i * n + j] = value;
		}
}

/*
 * Wall clock for the reference run, which happens before starpu_init:
 * starpu_timing_now() is only promised to work while the runtime is up.
 */
static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cholesky_flops(int n)
{
	return (double)n * n * n / 3.0;
}

/* One sequential dpotrf on the whole matrix, for scale. Returns seconds or -1. */
static double reference_potrf(const double *a_full, int n)
{
	size_t bytes = (size_t)n * n * sizeof(double);
	double *copy = malloc(bytes);
	if (!copy)
		return -1.0;
	memcpy(copy, a_full, bytes);
	int info = 0;
	double start = wall_seconds();
	dpotrf_("L", &n, copy, &n, &info);
	double elapsed = wall_seconds() - start;
	free(copy);
	return info == 0 ? elapsed : -1.0;
}

struct options {
	int n, bs, reps, ncpus, check, ref;
	const char *scheds;
};

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-n N] [-b BS] [-s SCHED,...] [-r REPS] [-c NCPUS] [-q] [--no-check] [--no-ref]\n"
		"  -n N        matrix size (default %d; %d with -q)\n"
		"  -b BS       tile size (default %d; %d with -q)\n"
		"  -s LIST     schedulers to compare (default %s)\n"
		"  -r REPS     runs per scheduler, best time reported, all checked (default %d; %d with -q)\n"
		"  -c NCPUS    number of CPU workers (default: all cores)\n"
		"  -q          quick run for tests\n"
		"  --no-check  skip the ||A - L L^T|| verification (always skipped when simulated)\n"
		"  --no-ref    skip the sequential dpotrf reference timing (likewise)\n",
		prog, DEFAULT_N, QUICK_N, DEFAULT_BS, QUICK_BS, DEFAULT_SCHEDS, DEFAULT_REPS, QUICK_REPS);
}

static int parse_options(int argc, char **argv, struct options *opt)
{
	int quick = 0, n = -1, bs = -1, reps = -1; /* -1: not given */

	*opt = (struct options){ .ncpus = -1, .check = 1, .ref = 1, .scheds = DEFAULT_SCHEDS };
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const int has_value = i + 1 < argc;
		if (strcmp(arg, "-n") == 0 && has_value)
			n = atoi(argv[++i]);
		else if (strcmp(arg, "-b") == 0 && has_value)
			bs = atoi(argv[++i]);
		else if (strcmp(arg, "-s") == 0 && has_value)
			opt->scheds = argv[++i];
		else if (strcmp(arg, "-r") == 0 && has_value)
			reps = atoi(argv[++i]);
		else if (strcmp(arg, "-c") == 0 && has_value)
			opt->ncpus = atoi(argv[++i]);
		else if (strcmp(arg, "-q") == 0)
			quick = 1;
		else if (strcmp(arg, "--no-check") == 0)
			opt->check = 0;
		else if (strcmp(arg, "--no-ref") == 0)
			opt->ref = 0;
		else
			return -1;
	}
	/* -q picks the small size but explicit -n/-b/-r still win. */
	opt->n = n != -1 ? n : quick ? QUICK_N : DEFAULT_N;
	opt->bs = bs != -1 ? bs : quick ? QUICK_BS : DEFAULT_BS;
	opt->reps = reps != -1 ? reps : quick ? QUICK_REPS : DEFAULT_REPS;
	if (opt->n < 1 || opt->bs < 1 || opt->reps < 1 || opt->ncpus == 0 || opt->ncpus < -1
	    || strspn(opt->scheds, ",") == strlen(opt->scheds)) {
		fprintf(stderr, "cholesky: bad value: n=%d bs=%d reps=%d ncpus=%d sched='%s'\n",
			opt->n, opt->bs, opt->reps, opt->ncpus, opt->scheds);
		return -1;
	}
	if (opt->bs > opt->n)
		opt->bs = opt->n;
	return 0;
}

/* Outcome of all repetitions under one scheduler. */
struct sched_result {
	double best_us;        /* fastest repetition */
	double max_error;      /* worst residual over repetitions, -1 when not checked */
	int failed;            /* a potrf tile was not SPD or a residual was too large */
	unsigned cpu_workers;  /* as seen by the last session */
	unsigned cuda_workers; /* likewise (simulated GPUs, in Vela) */
	int simulated;         /* the last session was simulated: kernels did not run */
};

/*
 * One repetition is a whole runtime session: init with the scheduler,
 * register the freshly loaded tiles, factorize, unregister, shut down. The
 * check runs afterwards so that BLAS can use every core without competing
 * with idle workers, which poll for work in StarPU.
 * Returns 0, 77 when nothing can run, 1 on a runtime error.
 */
static int run_once(const struct options *opt, const char *sched, struct tiled *t,
		    const double *a_full, struct sched_result *res)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = sched;
	if (opt->ncpus > 0)
		conf.ncpus = opt->ncpus;

	int ret = starpu_init(&conf);
	if (ret == -ENODEV) {
		fprintf(stderr, "cholesky: skipped, starpu_init found no worker (-ENODEV)\n");
		return 77;
	}
	if (ret) {
		/* The runtime has said why (e.g. no platform file for a simulation). */
		fprintf(stderr, "cholesky: starpu_init with sched %s failed: %s\n", sched, strerror(-ret));
		return 1;
	}
	res->cpu_workers = starpu_cpu_worker_get_count();
	res->cuda_workers = starpu_cuda_worker_get_count();
	/* Also when the simulation started only now (attached by starpu_init). */
	res->simulated = run_is_simulated();
	if (res->simulated)
		enable_simulated_gpus();
	if (res->cpu_workers == 0) {
		fprintf(stderr, "cholesky: skipped, no CPU worker available\n");
		starpu_shutdown();
		return 77;
	}

	tiled_load(t, a_full);
	tiled_register(t);
	atomic_store(&potrf_failure, 0);

	double start = starpu_timing_now();
	ret = submit_cholesky(t);
	/* Also on a submission error: what was submitted must finish first. */
	starpu_task_wait_for_all();
	double elapsed = starpu_timing_now() - start;

	/* Unregistering makes the tiles the application's again. */
	tiled_unregister(t);
	starpu_shutdown();

	if (ret == -ENODEV) {
		fprintf(stderr, "cholesky: skipped, no worker can run the codelets\n");
		return 77;
	}
	if (ret) {
		fprintf(stderr, "cholesky: starpu_task_insert failed under sched %s: %s\n",
			sched, strerror(-ret));
		return 1;
	}
	if (elapsed < res->best_us)
		res->best_us = elapsed;
	if (!t->tiles || res->simulated)
		return 0;
	int info = atomic_load(&potrf_failure);
	if (info) {
		fprintf(stderr, "cholesky: dpotrf reported info=%d under sched %s (tile not positive definite)\n",
			info, sched);
		res->failed = 1;
	}
	if (opt->check) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		openblas_set_num_threads(cores > 0 ? (int)cores : 1);
		double err = residual(t, a_full);
		openblas_set_num_threads(1);
		/* Written so that a NaN residual counts as a failure. */
		if (!(err < CHECK_TOLERANCE))
			res->failed = 1;
		if (!(err <= res->max_error))
			res->max_error = err;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options opt;
	if (parse_options(argc, argv, &opt) != 0) {
		usage(argv[0]);
		return 1;
	}

	/* One BLAS thread per worker: the runtime provides the parallelism. */
	openblas_set_num_threads(1);

	const int simulated = run_is_simulated();
	if (simulated)
		opt.check = opt.ref = 0;

	const int n = opt.n;
	double *a_full = simulated ? NULL : malloc((size_t)n * n * sizeof(double));
	struct tiled tiles = { 0 };
	char *sched_list = strdup(opt.scheds);
	if ((!simulated && !a_full) || !sched_list || tiled_alloc(&tiles, n, opt.bs, !simulated) != 0) {
		fprintf(stderr, "cholesky: cannot allocate the %dx%d matrix and its tiles\n", n, n);
		tiled_free(&tiles);
		free(a_full);
		free(sched_list);
		return 1;
	}
	if (a_full)
		generate_spd(a_full, n);

	const int nt = tiles.nt;
	const long ntasks = (long)nt * (nt + 1) * (nt + 2) / 6;
	printf("# tiled Cholesky  n=%d bs=%d  (%dx%d tiles, %ld tasks, %.3g GFlop)  best of %d run(s) per scheduler%s\n",
	       n, opt.bs, nt, nt, ntasks, cholesky_flops(n) * 1e-9, opt.reps,
	       simulated ? "  [simulated: no data, no check]" : "");
	if (opt.ref) {
		double ref_s = reference_potrf(a_full, n);
		if (ref_s < 0)
			printf("# reference: sequential dpotrf failed\n");
		else
			printf("# reference: one sequential dpotrf call on the full matrix, 1 thread:"
			       "  time=%8.1f ms  GFlop/s=%6.1f\n",
			       ref_s * 1e3, cholesky_flops(n) / ref_s * 1e-9);
	}
	fflush(stdout);

	int status = 0, header_printed = 0;
	char *save = NULL;
	for (char *sched = strtok_r(sched_list, ",", &save); sched && status != 77;
	     sched = strtok_r(NULL, ",", &save)) {
		struct sched_result res = { .best_us = INFINITY, .max_error = -1.0 };
		int ret = 0;
		for (int rep = 0; rep < opt.reps && ret == 0; rep++) {
			ret = run_once(&opt, sched, &tiles, a_full, &res);
			if (ret == 0 && !header_printed) {
				if (res.cuda_workers)
					printf("# runtime: %u CPU worker(s), %u CUDA worker(s)\n",
					       res.cpu_workers, res.cuda_workers);
				else
					printf("# runtime: %u CPU worker(s)\n", res.cpu_workers);
				header_printed = 1;
			}
		}
		if (ret) {
			/* A wrong result outranks a skip in the exit status. */
			if (status != 1)
				status = ret;
			continue;
		}

		char check[48];
		if (!opt.check || res.simulated)
			snprintf(check, sizeof(check), "%s", res.failed ? "FAILED" : "skipped");
		else
			snprintf(check, sizeof(check), "%s (%.1e)", res.failed ? "FAILED" : "ok",
				 res.max_error);
		printf("cholesky  n=%d bs=%d  sched=%-7s time=%8.1f ms  GFlop/s=%6.1f  check=%s\n",
		       n, opt.bs, sched, res.best_us / 1e3,
		       cholesky_flops(n) / (res.best_us * 1e3), check);
		fflush(stdout);
		if (res.failed)
			status = 1;
	}

	tiled_free(&tiles);
	free(sched_list);
	free(a_full);
	return status;
}
