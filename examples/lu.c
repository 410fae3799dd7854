/*
 * lu.c — tiled LU factorization A = L U without pivoting, run under several
 * schedulers; the second dense kernel of the demo, after cholesky.c.
 *
 * Shows: a task graph with two kinds of panel solves. For each step k the
 * diagonal tile is factored by getrf; the row panel to its right becomes U
 * by a triangular solve from the left with the unit lower L_kk (trsm_ll),
 * the column panel below it becomes L by a solve from the right with the
 * upper U_kk (trsm_ru); every trailing tile then receives a gemm update.
 * All dependencies come from the STARPU_R / STARPU_RW access modes. Tasks on
 * the critical path get a higher STARPU_PRIORITY, every task declares its
 * STARPU_FLOPS, and each kernel has a history-based performance model.
 *
 * No pivoting: the matrix has entries in [0, 1) plus N on the diagonal, so
 * every column is strictly diagonally dominant, a property that Gaussian
 * elimination keeps in each Schur complement. LAPACK's dgetrf, which pivots
 * by largest magnitude in the column, therefore never swaps a row: the
 * kernel checks that, so a wrong input is caught rather than silently
 * producing another factorization. The result is checked by
 * ||A - L U||_F / ||A||_F computed on the host without the runtime.
 *
 * Simulation (Vela, STARPU_SIMGRID=1): kernels are not run, so when the run
 * is known to be simulated before starpu_init the program allocates no
 * matrix (tiles are registered with home node -1, which the simulation
 * never touches), skips the reference and the check, and prints the
 * simulated time. That keeps large simulated sizes cheap in RAM. A
 * simulation that starts only in starpu_init (VELA_SIM_BOOT=attach) finds
 * the matrix allocated, and still skips the check.
 *
 * Layout: column-major tiles; in a matrix handle NX is the number of rows,
 * NY the number of columns, LD the distance between columns. The last tile
 * row/column is smaller when BS does not divide N.
 *
 * Usage: lu [-n N] [-b BS] [-s SCHED,SCHED,...] [-r REPS] [-c NCPUS]
 *           [-q] [--no-check] [--no-ref]
 * Exit: 0 success, 1 wrong result or error, 77 no CPU worker available.
 */

/* See cholesky.c: OpenBLAS's cblas.h defines _GNU_SOURCE part-way through. */
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

/* LAPACK (Fortran) LU with partial pivoting, exported by OpenBLAS. */
extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
/* OpenBLAS would otherwise start its own threads inside every task. */
extern void openblas_set_num_threads(int num_threads);

#define DEFAULT_N 4096
#define DEFAULT_BS 512
#define QUICK_N 512
#define QUICK_BS 128
#define DEFAULT_REPS 2
#define QUICK_REPS 1
#define DEFAULT_SCHEDS "eager,prio,random,ws,lws"
/* Backward error of LU with bounded growth is O(n * eps); this leaves margin. */
#define CHECK_TOLERANCE 1e-10

/* Only the order matters (see cholesky.c). */
enum {
	PRIO_UPDATE = 0,     /* trailing updates that no near panel waits for */
	PRIO_NEXT_PANEL = 1, /* updates of row or column k+1, which the next step needs */
	PRIO_TRSM = 2,
	PRIO_GETRF = 3,
};

/*
 * Is this run simulated? Vela decides at run time (vela_is_simulated, set
 * from process start when STARPU_SIMGRID=1 is in the environment); a StarPU
 * built with SimGrid says so at compile time; otherwise never.
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

/* Set by a getrf kernel: LAPACK's info (> 0: zero pivot), or -ENOMEM. */
static atomic_int getrf_failure;
/* Set by a getrf kernel that swapped rows: the 1-based row of the first swap. */
static atomic_int getrf_swapped_row;

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

/*
 * A_kk = L_kk U_kk in place (unit lower L below the diagonal, U on and
 * above). dgetrf is the kernel the shipped vela_dgetrf models describe; on
 * our input its pivoting must be the identity, which is checked.
 */
static void getrf_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	const int n = tile_rows(buffers[0]);
	const int ld = tile_ld(buffers[0]);
	int ipiv_small[1024];
	int *ipiv = n <= 1024 ? ipiv_small : malloc((size_t)n * sizeof(int));
	int info = 0;

	if (!ipiv) {
		atomic_store(&getrf_failure, -ENOMEM);
		return;
	}
	dgetrf_(&n, &n, tile_ptr(buffers[0]), &ld, ipiv, &info);
	if (info != 0)
		atomic_store(&getrf_failure, info);
	for (int i = 0; i < n && info == 0; i++)
		if (ipiv[i] != i + 1) {
			atomic_store(&getrf_swapped_row, i + 1);
			break;
		}
	if (ipiv != ipiv_small)
		free(ipiv);
}

/* A_kj = L_kk^-1 A_kj: the row panel right of the diagonal becomes U. */
static void trsm_ll_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit,
		    tile_rows(buffers[1]), tile_cols(buffers[1]), 1.0,
		    tile_ptr(buffers[0]), tile_ld(buffers[0]),
		    tile_ptr(buffers[1]), tile_ld(buffers[1]));
}

/* A_ik = A_ik U_kk^-1: the column panel below the diagonal becomes L. */
static void trsm_ru_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit,
		    tile_rows(buffers[1]), tile_cols(buffers[1]), 1.0,
		    tile_ptr(buffers[0]), tile_ld(buffers[0]),
		    tile_ptr(buffers[1]), tile_ld(buffers[1]));
}

/* A_ij -= L_ik U_kj. */
static void gemm_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans,
		    tile_rows(buffers[2]), tile_cols(buffers[2]), tile_cols(buffers[0]),
		    -1.0, tile_ptr(buffers[0]), tile_ld(buffers[0]),
		    tile_ptr(buffers[1]), tile_ld(buffers[1]),
		    1.0, tile_ptr(buffers[2]), tile_ld(buffers[2]));
}

/*
 * History-based models. vela_dgetrf and vela_dgemm are the symbols of
 * perfmodels/ and `vela perfmodel derive` (the same footprints: one square
 * tile for getrf, three for gemm), so shipped models apply. The two solves
 * are different routines from Cholesky's trsm (vela_dtrsm: right, lower,
 * transposed), and each other, so they have models of their own.
 */
static struct starpu_perfmodel getrf_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dgetrf" };
static struct starpu_perfmodel trsm_ll_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dtrsm_ll" };
static struct starpu_perfmodel trsm_ru_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dtrsm_ru" };
static struct starpu_perfmodel gemm_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dgemm" };

static struct starpu_codelet getrf_cl = {
	.model = &getrf_model,
	.where = STARPU_CPU,
	.cpu_funcs = { getrf_cpu },
	.cpu_funcs_name = { "getrf_cpu" },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "getrf",
};

static struct starpu_codelet trsm_ll_cl = {
	.model = &trsm_ll_model,
	.where = STARPU_CPU,
	.cpu_funcs = { trsm_ll_cpu },
	.cpu_funcs_name = { "trsm_ll_cpu" },
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW },
	.name = "trsm_ll",
};

static struct starpu_codelet trsm_ru_cl = {
	.model = &trsm_ru_model,
	.where = STARPU_CPU,
	.cpu_funcs = { trsm_ru_cpu },
	.cpu_funcs_name = { "trsm_ru_cpu" },
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW },
	.name = "trsm_ru",
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
	struct starpu_codelet *cls[] = { &getrf_cl, &trsm_ll_cl, &trsm_ru_cl, &gemm_cl };
	for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
		cls[i]->cuda_funcs[0] = vela_sim_placeholder;
		cls[i]->where |= STARPU_CUDA;
	}
#endif
}

/*
 * The n x n matrix cut into nt x nt tiles, each allocated on its own with
 * posix_memalign: they outlive every runtime session (registered again in
 * each one and checked after starpu_shutdown). Without data (simulation)
 * tiles is NULL and the handles are registered with home node -1.
 */
struct tiled {
	int n, bs, nt;
	double **tiles;                 /* tile (i,j) at [j*nt + i]; owned, free()d by tiled_free; NULL without data */
	starpu_data_handle_t *handles;  /* same indexing; valid between register and unregister */
};

static size_t tile_index(const struct tiled *t, int i, int j)
{
	return (size_t)j * t->nt + i;
}

static size_t tile_count(const struct tiled *t)
{
	return (size_t)t->nt * t->nt;
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
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			size_t bytes = (size_t)tile_dim(t, i) * tile_dim(t, j) * sizeof(double);
			void *tile = NULL;
			if (posix_memalign(&tile, 64, bytes) != 0)
				return -ENOMEM;
			t->tiles[tile_index(t, i, j)] = tile;
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

static const double *full_corner(const struct tiled *t, const double *full, int i, int j)
{
	return full + (size_t)j * t->bs * t->n + (size_t)i * t->bs;
}

/* Copy tile (i, j) of the full matrix into a rows x cols buffer. */
static void copy_tile(const struct tiled *t, const double *full, int i, int j, double *dst)
{
	int rows = tile_dim(t, i), cols = tile_dim(t, j);
	const double *corner = full_corner(t, full, i, j);
	for (int c = 0; c < cols; c++)
		memcpy(dst + (size_t)c * rows, corner + (size_t)c * t->n, rows * sizeof(double));
}

/* Refill the tiles from the saved matrix: every run factorizes the same input. */
static void tiled_load(struct tiled *t, const double *full)
{
	if (!t->tiles)
		return;
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++)
			copy_tile(t, full, i, j, t->tiles[tile_index(t, i, j)]);
}

static void tiled_register(struct tiled *t)
{
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			int rows = tile_dim(t, i);
			size_t k = tile_index(t, i, j);
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

/* Submit the whole factorization, right-looking; 0 or the first submission error. */
static int submit_lu(struct tiled *t)
{
	const int nt = t->nt;
	int ret;

	for (int k = 0; k < nt; k++) {
		const double bk = tile_dim(t, k);
		starpu_data_handle_t akk = t->handles[tile_index(t, k, k)];

		ret = starpu_task_insert(&getrf_cl,
					 STARPU_RW, akk,
					 STARPU_PRIORITY, PRIO_GETRF,
					 STARPU_FLOPS, 2.0 * bk * bk * bk / 3.0,
					 0);
		if (ret)
			return ret;

		for (int j = k + 1; j < nt; j++) {
			ret = starpu_task_insert(&trsm_ll_cl,
						 STARPU_R, akk,
						 STARPU_RW, t->handles[tile_index(t, k, j)],
						 STARPU_PRIORITY, PRIO_TRSM,
						 STARPU_FLOPS, bk * bk * tile_dim(t, j),
						 0);
			if (ret)
				return ret;
		}
		for (int i = k + 1; i < nt; i++) {
			ret = starpu_task_insert(&trsm_ru_cl,
						 STARPU_R, akk,
						 STARPU_RW, t->handles[tile_index(t, i, k)],
						 STARPU_PRIORITY, PRIO_TRSM,
						 STARPU_FLOPS, (double)tile_dim(t, i) * bk * bk,
						 0);
			if (ret)
				return ret;
		}

		for (int j = k + 1; j < nt; j++)
			for (int i = k + 1; i < nt; i++) {
				const int next = i == k + 1 || j == k + 1;
				ret = starpu_task_insert(&gemm_cl,
							 STARPU_R, t->handles[tile_index(t, i, k)],
							 STARPU_R, t->handles[tile_index(t, k, j)],
							 STARPU_RW, t->handles[tile_index(t, i, j)],
							 STARPU_PRIORITY, next ? PRIO_NEXT_PANEL : PRIO_UPDATE,
							 STARPU_FLOPS, 2.0 * tile_dim(t, i) * tile_dim(t, j) * bk,
							 0);
				if (ret)
					return ret;
			}
	}
	return 0;
}

/*
 * ||A - L U||_F / ||A||_F. (L U)_ij = sum over k <= min(i, j) of L_ik U_kj,
 * where the diagonal tile k holds both the unit lower L_kk and the upper
 * U_kk: they are split into two separate tiles first. Returns INFINITY when
 * out of memory.
 */
static double residual(const struct tiled *t, const double *a_full)
{
	const size_t tile_bytes = (size_t)t->bs * t->bs * sizeof(double);
	double *work = malloc(tile_bytes);
	double **lower = calloc(t->nt, sizeof(*lower));
	double **upper = calloc(t->nt, sizeof(*upper));
	double err2 = INFINITY, norm2 = 0.0;

	if (!work || !lower || !upper)
		goto out;
	for (int k = 0; k < t->nt; k++) {
		const int bk = tile_dim(t, k);
		const double *lu = t->tiles[tile_index(t, k, k)];
		lower[k] = calloc((size_t)bk * bk, sizeof(double));
		upper[k] = calloc((size_t)bk * bk, sizeof(double));
		if (!lower[k] || !upper[k])
			goto out;
		for (int c = 0; c < bk; c++)
			for (int r = 0; r < bk; r++) {
				double v = lu[(size_t)c * bk + r];
				if (r > c)
					lower[k][(size_t)c * bk + r] = v;
				else
					upper[k][(size_t)c * bk + r] = v;
				if (r == c)
					lower[k][(size_t)c * bk + r] = 1.0;
			}
	}

	err2 = 0.0;
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			const int rows = tile_dim(t, i), cols = tile_dim(t, j);
			const int kmax = i < j ? i : j;
			copy_tile(t, a_full, i, j, work);
			for (size_t e = 0; e < (size_t)rows * cols; e++)
				norm2 += work[e] * work[e];
			for (int k = 0; k <= kmax; k++) {
				const double *l = k == i ? lower[k] : t->tiles[tile_index(t, i, k)];
				const double *u = k == j ? upper[k] : t->tiles[tile_index(t, k, j)];
				cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans,
					    rows, cols, tile_dim(t, k),
					    -1.0, l, rows, u, tile_dim(t, k),
					    1.0, work, rows);
			}
			for (size_t e = 0; e < (size_t)rows * cols; e++)
				err2 += work[e] * work[e];
		}
out:
	if (lower)
		for (int k = 0; k < t->nt; k++)
			free(lower[k]);
	if (upper)
		for (int k = 0; k < t->nt; k++)
			free(upper[k]);
	free(lower);
	free(upper);
	free(work);
	return sqrt(err2) / sqrt(norm2);
}

/* Entries in [0, 1), plus n on the diagonal: columns strictly diagonally dominant. */
static void generate_dominant(double *a, int n)
{
	uint64_t state = 7;
	for (size_t e = 0; e < (size_t)n * n; e++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		a[e] = (double)(state >> 11) / 9007199254740992.0;
	}
	for (int i = 0; i < n; i++)
		a[(size_t)i * n + i] += n;
}

/* Wall clock before starpu_init, where starpu_timing_now() is not promised to work. */
static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double lu_flops(int n)
{
	return 2.0 * n * n * n / 3.0;
}

static long lu_tasks(int nt)
{
	/* nt getrf, nt(nt-1) trsm, sum of (nt-1-k)^2 gemm */
	return (long)nt + (long)nt * (nt - 1) + (long)(nt - 1) * nt * (2 * nt - 1) / 6;
}

/* One sequential dgetrf on the whole matrix, for scale. Returns seconds or -1. */
static double reference_getrf(const double *a_full, int n)
{
	size_t bytes = (size_t)n * n * sizeof(double);
	double *copy = malloc(bytes);
	int *ipiv = malloc((size_t)n * sizeof(int));
	double elapsed = -1.0;
	if (copy && ipiv) {
		memcpy(copy, a_full, bytes);
		int info = 0;
		double start = wall_seconds();
		dgetrf_(&n, &n, copy, &n, ipiv, &info);
		if (info == 0)
			elapsed = wall_seconds() - start;
	}
	free(copy);
	free(ipiv);
	return elapsed;
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
		"  --no-check  skip the ||A - L U|| verification (always skipped when simulated)\n"
		"  --no-ref    skip the sequential dgetrf reference timing (likewise)\n",
		prog, DEFAULT_N, QUICK_N, DEFAULT_BS, QUICK_BS, DEFAULT_SCHEDS, DEFAULT_REPS, QUICK_REPS);
}

/* A strictly positive int; 0 after printing what is wrong with it. */
static int parse_count(const char *option, const char *s)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1 << 30) {
		fprintf(stderr, "lu: %s '%s': expected a positive integer\n", option, s);
		return 0;
	}
	return (int)v;
}

static int parse_options(int argc, char **argv, struct options *opt)
{
	int quick = 0, n = -1, bs = -1, reps = -1; /* -1: not given, 0: bad */

	*opt = (struct options){ .ncpus = -1, .check = 1, .ref = 1, .scheds = DEFAULT_SCHEDS };
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const int has_value = i + 1 < argc;
		if (strcmp(arg, "-n") == 0 && has_value)
			n = parse_count(arg, argv[++i]);
		else if (strcmp(arg, "-b") == 0 && has_value)
			bs = parse_count(arg, argv[++i]);
		else if (strcmp(arg, "-s") == 0 && has_value)
			opt->scheds = argv[++i];
		else if (strcmp(arg, "-r") == 0 && has_value)
			reps = parse_count(arg, argv[++i]);
		else if (strcmp(arg, "-c") == 0 && has_value)
			opt->ncpus = parse_count(arg, argv[++i]);
		else if (strcmp(arg, "-q") == 0)
			quick = 1;
		else if (strcmp(arg, "--no-check") == 0)
			opt->check = 0;
		else if (strcmp(arg, "--no-ref") == 0)
			opt->ref = 0;
		else {
			fprintf(stderr, "lu: unknown option or missing value: '%s'\n", arg);
			return -1;
		}
	}
	if (n == 0 || bs == 0 || reps == 0 || opt->ncpus == 0)
		return -1;
	if (strspn(opt->scheds, ",") == strlen(opt->scheds)) {
		fprintf(stderr, "lu: -s '%s': expected a comma-separated list of scheduler names\n", opt->scheds);
		return -1;
	}
	opt->n = n != -1 ? n : quick ? QUICK_N : DEFAULT_N;
	opt->bs = bs != -1 ? bs : quick ? QUICK_BS : DEFAULT_BS;
	opt->reps = reps != -1 ? reps : quick ? QUICK_REPS : DEFAULT_REPS;
	if (opt->bs > opt->n)
		opt->bs = opt->n;
	return 0;
}

struct sched_result {
	double best_us;        /* fastest repetition */
	double max_error;      /* worst residual over repetitions, -1 when not checked */
	int failed;            /* getrf met a zero pivot or pivoted, or a residual was too large */
	unsigned cpu_workers;  /* as seen by the last session */
	unsigned cuda_workers; /* likewise (simulated GPUs, in Vela) */
	int simulated;         /* the last session was simulated: kernels did not run */
};

/*
 * One repetition = one runtime session (init, register freshly loaded
 * tiles, factorize, unregister, shut down); the check runs afterwards with
 * every core given to BLAS. Returns 0, 77 when nothing can run, 1 on error.
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
		fprintf(stderr, "lu: skipped, starpu_init found no worker (-ENODEV)\n");
		return 77;
	}
	if (ret) {
		/* The runtime has said why (e.g. no platform file for a simulation). */
		fprintf(stderr, "lu: starpu_init with sched %s failed: %s\n", sched, strerror(-ret));
		return 1;
	}
	res->cpu_workers = starpu_cpu_worker_get_count();
	res->cuda_workers = starpu_cuda_worker_get_count();
	/* Also when the simulation started only now (attached by starpu_init). */
	res->simulated = run_is_simulated();
	if (res->simulated)
		enable_simulated_gpus();
	if (res->cpu_workers == 0) {
		fprintf(stderr, "lu: skipped, no CPU worker available\n");
		starpu_shutdown();
		return 77;
	}

	if (a_full)
		tiled_load(t, a_full);
	tiled_register(t);
	atomic_store(&getrf_failure, 0);
	atomic_store(&getrf_swapped_row, 0);

	double start = starpu_timing_now();
	ret = submit_lu(t);
	starpu_task_wait_for_all();
	double elapsed = starpu_timing_now() - start;

	tiled_unregister(t);
	starpu_shutdown();

	if (ret == -ENODEV) {
		fprintf(stderr, "lu: skipped, no worker can run the codelets\n");
		return 77;
	}
	if (ret) {
		fprintf(stderr, "lu: starpu_task_insert failed under sched %s: %s\n", sched, strerror(-ret));
		return 1;
	}
	if (elapsed < res->best_us)
		res->best_us = elapsed;
	if (!t->tiles || res->simulated)
		return 0;
	int info = atomic_load(&getrf_failure), swapped = atomic_load(&getrf_swapped_row);
	if (info > 0)
		fprintf(stderr, "lu: dgetrf reported a zero pivot (info=%d) under sched %s\n", info, sched);
	else if (info == -ENOMEM)
		fprintf(stderr, "lu: getrf kernel could not allocate its pivot array under sched %s\n", sched);
	if (swapped)
		fprintf(stderr, "lu: dgetrf swapped rows (first at row %d of a diagonal tile) under sched %s:"
			" the input is not diagonally dominant\n", swapped, sched);
	if (info || swapped)
		res->failed = 1;
	if (opt->check) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		openblas_set_num_threads(cores > 0 ? (int)cores : 1);
		double err = residual(t, a_full);
		openblas_set_num_threads(1);
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

	openblas_set_num_threads(1);

	/* Known before starpu_init only when STARPU_SIMGRID=1 was set at process start. */
	const int simulated = run_is_simulated();
	if (simulated)
		opt.check = opt.ref = 0;

	const int n = opt.n;
	double *a_full = simulated ? NULL : malloc((size_t)n * n * sizeof(double));
	struct tiled tiles = { 0 };
	char *sched_list = strdup(opt.scheds);
	if ((!simulated && !a_full) || !sched_list || tiled_alloc(&tiles, n, opt.bs, !simulated) != 0) {
		fprintf(stderr, "lu: cannot allocate the %dx%d matrix and its tiles\n", n, n);
		tiled_free(&tiles);
		free(a_full);
		free(sched_list);
		return 1;
	}
	if (a_full)
		generate_dominant(a_full, n);

	const int nt = tiles.nt;
	printf("# tiled LU  n=%d bs=%d  (%dx%d tiles, %ld tasks, %.3g GFlop)  best of %d run(s) per scheduler%s\n",
	       n, opt.bs, nt, nt, lu_tasks(nt), lu_flops(n) * 1e-9, opt.reps,
	       simulated ? "  [simulated: no data, no check]" : "");
	if (opt.ref) {
		double ref_s = reference_getrf(a_full, n);
		if (ref_s < 0)
			printf("# reference: sequential dgetrf failed\n");
		else
			printf("# reference: one sequential dgetrf call on the full matrix, 1 thread:"
			       "  time=%8.1f ms  GFlop/s=%6.1f\n",
			       ref_s * 1e3, lu_flops(n) / ref_s * 1e-9);
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
			if (status != 1)
				status = ret;
			continue;
		}

		char check[48];
		if (!opt.check || res.simulated)
			snprintf(check, sizeof(check), "%s", res.failed ? "FAILED" : "skipped");
		else
			snprintf(check, sizeof(check), "%s (%.1e)", res.failed ? "FAILED" : "ok", res.max_error);
		printf("lu  n=%d bs=%d  sched=%-7s time=%8.1f ms  GFlop/s=%6.1f  check=%s\n",
		       n, opt.bs, sched, res.best_us / 1e3, lu_flops(n) / (res.best_us * 1e3), check);
		fflush(stdout);
		if (res.failed)
			status = 1;
	}

	tiled_free(&tiles);
	free(sched_list);
	free(a_full);
	return status;
}
