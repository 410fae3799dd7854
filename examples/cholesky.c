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
 * MPI master/slave (Vela built with --enable-mpi-master-slave, or StarPU):
 * `mpirun -np 3 ./cholesky` runs the program on rank 0 and makes ranks 1 and
 * 2 its slaves. The slaves find the CPU kernels by name (cpu_funcs_name),
 * so they have external linkage and the program is linked with -rdynamic,
 * and WHERE names STARPU_MPI_MS. A potrf failure on a slave is not seen by
 * the master (the flag below is the slave's own); the residual check still
 * is. Every rank runs main() up to starpu_init: the lines printed before it
 * (the "# tiled" header, the reference) come once per process.
 *
 * Simulation (Vela, STARPU_SIMGRID=1 set at process start): kernels are not
 * run, so the program allocates no matrix (its tiles are addresses in an
 * untouched reservation, registered in RAM as in a real run: tiled_app.h),
 * skips the reference and the check, and prints the simulated time: a
 * million-task simulation needs no 27 GB matrix. A simulation that starts
 * only in starpu_init
 * (VELA_SIM_BOOT=attach) finds the matrix allocated, and still skips the
 * check.
 *
 * The options, the runs and the output are tiled_app.h's driver, shared with
 * lu.c; this file holds what is Cholesky's: kernels, codelets, priorities,
 * the lower-triangle tile layout, the task graph and the check.
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
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <starpu.h>

#include "tiled_app.h"

/* LAPACK (Fortran) Cholesky, exported by OpenBLAS. */
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);

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

/* Set by a potrf kernel whose tile was not positive definite (LAPACK info). */
static atomic_int potrf_failure;

/* A_kk = L_kk L_kk^T, lower triangle overwritten with L_kk. */
void potrf_cpu(void *buffers[], void *cl_arg);
void potrf_cpu(void *buffers[], void *cl_arg)
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
void trsm_cpu(void *buffers[], void *cl_arg);
void trsm_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit,
		    tile_rows(buffers[1]), tile_cols(buffers[1]), 1.0,
		    tile_ptr(buffers[0]), tile_ld(buffers[0]),
		    tile_ptr(buffers[1]), tile_ld(buffers[1]));
}

/* A_ii -= A_ik A_ik^T, lower triangle only. */
void syrk_cpu(void *buffers[], void *cl_arg);
void syrk_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans,
		    tile_rows(buffers[1]), tile_cols(buffers[0]),
		    -1.0, tile_ptr(buffers[0]), tile_ld(buffers[0]),
		    1.0, tile_ptr(buffers[1]), tile_ld(buffers[1]));
}

/* A_ij -= A_ik A_jk^T for i > j. */
void gemm_cpu(void *buffers[], void *cl_arg);
void gemm_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans,
		    tile_rows(buffers[2]), tile_cols(buffers[2]), tile_cols(buffers[0]),
		    -1.0, tile_ptr(buffers[0]), tile_ld(buffers[0]),
		    tile_ptr(buffers[1]), tile_ld(buffers[1]),
		    1.0, tile_ptr(buffers[2]), tile_ld(buffers[2]));
}

#ifdef STARPU_USE_CUDA
/* The same kernels on a CUDA worker: cuSOLVER's potrf, cuBLAS for the
 * rest, on the worker's stream (tiled_cuda.h). all are queued
 * (STARPU_CUDA_ASYNC); potrf's info is read at the end of the session. */
static const double one = 1.0, minus_one = -1.0;

static void potrf_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	struct tiled_cuda_solver *s = tiled_cuda_solver();
	int info = -1;
	if (cusolverDnDpotrf(s->handle, CUBLAS_FILL_MODE_LOWER, tile_rows(buffers[0]), tile_ptr(buffers[0]),
			     tile_ld(buffers[0]), s->work, s->lwork, s->info) == CUSOLVER_STATUS_SUCCESS)
		info = tiled_cuda_info_later(s) == 0 ? 0 : tiled_cuda_info(s);
	if (info != 0)
		atomic_store(&potrf_failure, info);
}

static void trsm_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cublasStatus_t st = cublasDtrsm(starpu_cublas_get_local_handle(), CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER,
					CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, tile_rows(buffers[1]), tile_cols(buffers[1]),
					&one, tile_ptr(buffers[0]), tile_ld(buffers[0]),
					tile_ptr(buffers[1]), tile_ld(buffers[1]));
	if (st != CUBLAS_STATUS_SUCCESS)
		STARPU_CUBLAS_REPORT_ERROR(st);
}

static void syrk_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cublasStatus_t st = cublasDsyrk(starpu_cublas_get_local_handle(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
					tile_rows(buffers[1]), tile_cols(buffers[0]), &minus_one,
					tile_ptr(buffers[0]), tile_ld(buffers[0]), &one,
					tile_ptr(buffers[1]), tile_ld(buffers[1]));
	if (st != CUBLAS_STATUS_SUCCESS)
		STARPU_CUBLAS_REPORT_ERROR(st);
}

static void gemm_cuda(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	cublasStatus_t st = cublasDgemm(starpu_cublas_get_local_handle(), CUBLAS_OP_N, CUBLAS_OP_T,
					tile_rows(buffers[2]), tile_cols(buffers[2]), tile_cols(buffers[0]),
					&minus_one, tile_ptr(buffers[0]), tile_ld(buffers[0]),
					tile_ptr(buffers[1]), tile_ld(buffers[1]),
					&one, tile_ptr(buffers[2]), tile_ld(buffers[2]));
	if (st != CUBLAS_STATUS_SUCCESS)
		STARPU_CUBLAS_REPORT_ERROR(st);
}
#define CUDA_IMPL(f) .cuda_funcs = { f }, .cuda_flags = { STARPU_CUDA_ASYNC },
#define WHERE (STARPU_CPU | STARPU_CUDA | STARPU_MPI_MS)
#else
#define CUDA_IMPL(f)
#define WHERE (STARPU_CPU | STARPU_MPI_MS)
#endif

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
	.where = WHERE,
	.cpu_funcs = { potrf_cpu },
	.cpu_funcs_name = { "potrf_cpu" },
	CUDA_IMPL(potrf_cuda)
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "potrf",
};

static struct starpu_codelet trsm_cl = {
	.model = &trsm_model,
	.where = WHERE,
	.cpu_funcs = { trsm_cpu },
	.cpu_funcs_name = { "trsm_cpu" },
	CUDA_IMPL(trsm_cuda)
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW },
	.name = "trsm",
};

static struct starpu_codelet syrk_cl = {
	.model = &syrk_model,
	.where = WHERE,
	.cpu_funcs = { syrk_cpu },
	.cpu_funcs_name = { "syrk_cpu" },
	CUDA_IMPL(syrk_cuda)
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW },
	.name = "syrk",
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

static struct starpu_codelet *const codelets[] = { &potrf_cl, &trsm_cl, &syrk_cl, &gemm_cl, NULL };

/*
 * Layout: the lower triangle only, tiles (i, j) with i >= j, stored row by
 * row at i*(i+1)/2 + j.
 */
static long tile_index(const struct tiled *t, int i, int j)
{
	(void)t;
	return j <= i ? (long)i * (i + 1) / 2 + j : -1;
}

static size_t tile_count(int nt)
{
	return (size_t)nt * (nt + 1) / 2;
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
		starpu_data_handle_t akk = tile_handle(t, k, k);

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
						 STARPU_RW, tile_handle(t, i, k),
						 STARPU_PRIORITY, PRIO_TRSM,
						 STARPU_FLOPS, bi * bk * bk,
						 0);
			if (ret)
				return ret;
		}

		for (int i = k + 1; i < nt; i++) {
			const double bi = tile_dim(t, i);
			starpu_data_handle_t aik = tile_handle(t, i, k);

			ret = starpu_task_insert(&syrk_cl,
						 STARPU_R, aik,
						 STARPU_RW, tile_handle(t, i, i),
						 STARPU_PRIORITY, i == k + 1 ? PRIO_NEXT_PANEL : PRIO_UPDATE,
						 STARPU_FLOPS, bi * bi * bk,
						 0);
			if (ret)
				return ret;

			for (int j = k + 1; j < i; j++) {
				const double bj = tile_dim(t, j);
				ret = starpu_task_insert(&gemm_cl,
							 STARPU_R, aik,
							 STARPU_R, tile_handle(t, j, k),
							 STARPU_RW, tile_handle(t, i, j),
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
		double *lkk = tile_at(t, k, k);
		for (int c = 1; c < bk; c++)
			memset(lkk + (size_t)c * bk, 0, c * sizeof(double));
	}

	double err2 = 0.0, norm2 = 0.0;
	for (int i = 0; i < t->nt; i++)
		for (int j = 0; j <= i; j++) {
			int rows = tile_dim(t, i), cols = tile_dim(t, j);
			copy_tile(t, a_full, i, j, work);
			for (size_t e = 0; e < (size_t)rows * cols; e++)
				norm2 += work[e] * work[e];
			for (int k = 0; k <= j; k++)
				cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans,
					    rows, cols, tile_dim(t, k),
					    -1.0, tile_at(t, i, k), rows,
					    tile_at(t, j, k), cols,
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
	/* The lower triangle column by column (sequential writes), then the
	 * upper one mirrored block by block: a 49152^2 matrix in seconds. */
	uint64_t state = 42;
	for (int j = 0; j < n; j++)
		for (int i = j; i < n; i++) {
			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			double value = (double)(state >> 11) / 9007199254740992.0;
			if (i == j)
				value += n;
			a[(size_t)j * n + i] = value;
		}
	enum { B = 64 };
	for (int jb = 0; jb < n; jb += B)
		for (int ib = jb; ib < n; ib += B)
			for (int j = jb; j < jb + B && j < n; j++)
				for (int i = ib > j ? ib : j + 1; i < ib + B && i < n; i++)
					a[(size_t)i * n + j] = a[(size_t)j * n + i];
}

static double cholesky_flops(int n)
{
	return (double)n * n * n / 3.0;
}

static long cholesky_tasks(int nt)
{
	/* nt potrf, nt(nt-1)/2 trsm and syrk, sum of (nt-1-k)(nt-2-k)/2 gemm */
	return (long)nt * (nt + 1) * (nt + 2) / 6;
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

static void reset_kernel_status(void)
{
	atomic_store(&potrf_failure, 0);
}

static int kernel_failed(const char *sched)
{
	int info = atomic_load(&potrf_failure);
	if (!info)
		info = tiled_cuda_late_info();	/* from the GPUs' potrf */
	if (info)
		fprintf(stderr, "cholesky: dpotrf reported info=%d under sched %s (tile not positive definite)\n",
			info, sched);
	return info != 0;
}

static const struct tiled_app cholesky_app = {
	.name = "cholesky",
	.title = "Cholesky",
	.check_what = "||A - L L^T||",
	.ref_routine = "dpotrf",
	.flops = cholesky_flops,
	.tasks = cholesky_tasks,
	.generate = generate_spd,
	.reference = reference_potrf,
	.tile_count = tile_count,
	.tile_index = tile_index,
	.submit = submit_cholesky,
	.reset_kernel_status = reset_kernel_status,
	.kernel_failed = kernel_failed,
	.residual = residual,
	.codelets = codelets,
};

int main(int argc, char **argv)
{
	return tiled_app_main(&cholesky_app, argc, argv);
}
