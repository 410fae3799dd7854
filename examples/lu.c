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
 * matrix (its tiles are addresses in an untouched reservation, registered
 * in RAM as in a real run: tiled_app.h), skips the reference and the
 * check, and prints the
 * simulated time. That keeps large simulated sizes cheap in RAM. A
 * simulation that starts only in starpu_init (VELA_SIM_BOOT=attach) finds
 * the matrix allocated, and still skips the check.
 *
 * The options, the runs and the output are tiled_app.h's driver, shared with
 * cholesky.c; this file holds what is LU's: kernels, codelets, priorities,
 * the full-matrix tile layout, the task graph and the check.
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

#include <cblas.h>
#include <starpu.h>

#include "tiled_app.h"

/* LAPACK (Fortran) LU with partial pivoting, exported by OpenBLAS. */
extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);

/* Only the order matters (see cholesky.c). */
enum {
	PRIO_UPDATE = 0,     /* trailing updates that no near panel waits for */
	PRIO_NEXT_PANEL = 1, /* updates of row or column k+1, which the next step needs */
	PRIO_TRSM = 2,
	PRIO_GETRF = 3,
};

/* Set by a getrf kernel: LAPACK's info (> 0: zero pivot), or -ENOMEM. */
static atomic_int getrf_failure;
/* Set by a getrf kernel that swapped rows: the 1-based row of the first swap. */
static atomic_int getrf_swapped_row;

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

#ifdef STARPU_USE_CUDA
/* The same kernels on a CUDA worker: cuSOLVER's getrf without pivoting (the
 * input needs none), cuBLAS for the rest, on the worker's stream
 * (tiled_cuda.h). All are queued (STARPU_CUDA_ASYNC); getrf's info is
 * read at the end of the session. */
static const double one = 1.0, minus_one = -1.0;

static void getrf_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	struct tiled_cuda_solver *s = tiled_cuda_solver();
	int n = tile_rows(buffers[0]), info = -1;
	if (cusolverDnDgetrf(s->handle, n, n, tile_ptr(buffers[0]), tile_ld(buffers[0]), s->work, NULL, s->info)
	    == CUSOLVER_STATUS_SUCCESS)
		info = tiled_cuda_info_later(s) == 0 ? 0 : tiled_cuda_info(s);
	if (info != 0)
		atomic_store(&getrf_failure, info);
}

static void trsm_ll_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cublasStatus_t st = cublasDtrsm(starpu_cublas_get_local_handle(), CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
					CUBLAS_OP_N, CUBLAS_DIAG_UNIT, tile_rows(buffers[1]), tile_cols(buffers[1]), &one,
					tile_ptr(buffers[0]), tile_ld(buffers[0]), tile_ptr(buffers[1]), tile_ld(buffers[1]));
	if (st != CUBLAS_STATUS_SUCCESS)
		STARPU_CUBLAS_REPORT_ERROR(st);
}

static void trsm_ru_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cublasStatus_t st = cublasDtrsm(starpu_cublas_get_local_handle(), CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER,
					CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, tile_rows(buffers[1]), tile_cols(buffers[1]),
					&one, tile_ptr(buffers[0]), tile_ld(buffers[0]),
					tile_ptr(buffers[1]), tile_ld(buffers[1]));
	if (st != CUBLAS_STATUS_SUCCESS)
		STARPU_CUBLAS_REPORT_ERROR(st);
}

static void gemm_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cublasStatus_t st = cublasDgemm(starpu_cublas_get_local_handle(), CUBLAS_OP_N, CUBLAS_OP_N,
					tile_rows(buffers[2]), tile_cols(buffers[2]), tile_cols(buffers[0]),
					&minus_one, tile_ptr(buffers[0]), tile_ld(buffers[0]),
					tile_ptr(buffers[1]), tile_ld(buffers[1]),
					&one, tile_ptr(buffers[2]), tile_ld(buffers[2]));
	if (st != CUBLAS_STATUS_SUCCESS)
		STARPU_CUBLAS_REPORT_ERROR(st);
}
#define CUDA_IMPL(f) .cuda_funcs = { f }, .cuda_flags = { STARPU_CUDA_ASYNC },
#define WHERE (STARPU_CPU | STARPU_CUDA)
#else
#define CUDA_IMPL(f)
#define WHERE STARPU_CPU
#endif

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
	.where = WHERE,
	.cpu_funcs = { getrf_cpu },
	.cpu_funcs_name = { "getrf_cpu" },
	CUDA_IMPL(getrf_cuda)
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "getrf",
};

static struct starpu_codelet trsm_ll_cl = {
	.model = &trsm_ll_model,
	.where = WHERE,
	.cpu_funcs = { trsm_ll_cpu },
	.cpu_funcs_name = { "trsm_ll_cpu" },
	CUDA_IMPL(trsm_ll_cuda)
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW },
	.name = "trsm_ll",
};

static struct starpu_codelet trsm_ru_cl = {
	.model = &trsm_ru_model,
	.where = WHERE,
	.cpu_funcs = { trsm_ru_cpu },
	.cpu_funcs_name = { "trsm_ru_cpu" },
	CUDA_IMPL(trsm_ru_cuda)
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW },
	.name = "trsm_ru",
};

static struct starpu_codelet gemm_cl = {
	.model = &gemm_model,
	.where = WHERE,
	.cpu_funcs = { gemm_cpu },
	.cpu_funcs_name = { "gemm_cpu" },
	CUDA_IMPL(gemm_cuda)
	.nbuffers = 3,
	.modes = { STARPU_R, STARPU_R, STARPU_RW },
	.name = "gemm",
};

static struct starpu_codelet *const codelets[] = { &getrf_cl, &trsm_ll_cl, &trsm_ru_cl, &gemm_cl, NULL };

/* Layout: every tile of the matrix, column by column: (i, j) at j*nt + i. */
static long tile_index(const struct tiled *t, int i, int j)
{
	return (long)j * t->nt + i;
}

static size_t tile_count(int nt)
{
	return (size_t)nt * nt;
}

/* Submit the whole factorization, right-looking; 0 or the first submission error. */
static int submit_lu(struct tiled *t)
{
	const int nt = t->nt;
	int ret;

	for (int k = 0; k < nt; k++) {
		const double bk = tile_dim(t, k);
		starpu_data_handle_t akk = tile_handle(t, k, k);

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
						 STARPU_RW, tile_handle(t, k, j),
						 STARPU_PRIORITY, PRIO_TRSM,
						 STARPU_FLOPS, bk * bk * tile_dim(t, j),
						 0);
			if (ret)
				return ret;
		}
		for (int i = k + 1; i < nt; i++) {
			ret = starpu_task_insert(&trsm_ru_cl,
						 STARPU_R, akk,
						 STARPU_RW, tile_handle(t, i, k),
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
							 STARPU_R, tile_handle(t, i, k),
							 STARPU_R, tile_handle(t, k, j),
							 STARPU_RW, tile_handle(t, i, j),
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
static double residual(struct tiled *t, const double *a_full)
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
		const double *lu = tile_at(t, k, k);
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
				const double *l = k == i ? lower[k] : tile_at(t, i, k);
				const double *u = k == j ? upper[k] : tile_at(t, k, j);
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

static void reset_kernel_status(void)
{
	atomic_store(&getrf_failure, 0);
	atomic_store(&getrf_swapped_row, 0);
}

static int kernel_failed(const char *sched)
{
	int info = atomic_load(&getrf_failure), swapped = atomic_load(&getrf_swapped_row);
	if (!info)
		info = tiled_cuda_late_info();	/* from the GPUs' getrf */
	if (info > 0)
		fprintf(stderr, "lu: dgetrf reported a zero pivot (info=%d) under sched %s\n", info, sched);
	else if (info == -ENOMEM)
		fprintf(stderr, "lu: getrf kernel could not allocate its pivot array under sched %s\n", sched);
	if (swapped)
		fprintf(stderr, "lu: dgetrf swapped rows (first at row %d of a diagonal tile) under sched %s:"
			" the input is not diagonally dominant\n", swapped, sched);
	return info || swapped;
}

static const struct tiled_app lu_app = {
	.name = "lu",
	.title = "LU",
	.check_what = "||A - L U||",
	.ref_routine = "dgetrf",
	.flops = lu_flops,
	.tasks = lu_tasks,
	.generate = generate_dominant,
	.reference = reference_getrf,
	.tile_count = tile_count,
	.tile_index = tile_index,
	.submit = submit_lu,
	.reset_kernel_status = reset_kernel_status,
	.kernel_failed = kernel_failed,
	.residual = residual,
	.codelets = codelets,
};

int main(int argc, char **argv)
{
	return tiled_app_main(&lu_app, argc, argv);
}
