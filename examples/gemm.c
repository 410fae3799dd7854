/*
 * gemm.c — tiled dense matrix product C = A * B in double precision.
 *
 * Shows: one matrix handle per tile (tiles are allocated separately, no
 * partitioning API), a codelet that reads the matrix interface
 * (STARPU_MATRIX_GET_PTR/NX/NY/LD) and calls BLAS, and implicit data
 * dependencies: the NT tasks that accumulate into one C tile all take it in
 * STARPU_RW mode, so the runtime chains them in submission order while tasks
 * on different C tiles run in parallel.
 *
 * Layout: matrices and tiles are column-major. In a matrix handle NX is the
 * number of rows (the contiguous dimension), NY the number of columns and LD
 * the distance between columns. The last tile row/column is smaller when BS
 * does not divide N.
 *
 * The result is compared with one whole-matrix cblas_dgemm call.
 *
 * Usage: gemm [-n N] [-b BS]          (defaults: N=1024, BS=256)
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <starpu.h>

/* OpenBLAS would otherwise start its own threads inside every task. */
extern void openblas_set_num_threads(int num_threads);

static void gemm_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	const double *a = (const double *)STARPU_MATRIX_GET_PTR(buffers[0]);
	const double *b = (const double *)STARPU_MATRIX_GET_PTR(buffers[1]);
	double *c = (double *)STARPU_MATRIX_GET_PTR(buffers[2]);
	const int m = (int)STARPU_MATRIX_GET_NX(buffers[2]);
	const int n = (int)STARPU_MATRIX_GET_NY(buffers[2]);
	const int k = (int)STARPU_MATRIX_GET_NY(buffers[0]);

	/* C += A * B: the C tiles start at zero and accumulate over k. */
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k,
		    1.0, a, (int)STARPU_MATRIX_GET_LD(buffers[0]),
		    b, (int)STARPU_MATRIX_GET_LD(buffers[1]),
		    1.0, c, (int)STARPU_MATRIX_GET_LD(buffers[2]));
}

static struct starpu_codelet gemm_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { gemm_cpu },
	.cpu_funcs_name = { "gemm_cpu" },
	.nbuffers = 3,
	.modes = { STARPU_R, STARPU_R, STARPU_RW },
	.name = "gemm",
};

/* A square tiling of an n x n column-major matrix. */
struct tiled {
	int n, bs, nt;
	double **tiles;                 /* nt*nt tiles, tile (i,j) at [j*nt+i]; owned */
	starpu_data_handle_t *handles;  /* same indexing; valid while registered */
};

static int tile_dim(const struct tiled *t, int index)
{
	return index < t->nt - 1 ? t->bs : t->n - (t->nt - 1) * t->bs;
}

static double **tile_at(const struct tiled *t, int i, int j)
{
	return &t->tiles[(size_t)j * t->nt + i];
}

static int tiled_alloc(struct tiled *t, int n, int bs)
{
	t->n = n;
	t->bs = bs;
	t->nt = (n + bs - 1) / bs;
	size_t count = (size_t)t->nt * t->nt;
	t->tiles = calloc(count, sizeof(*t->tiles));
	t->handles = calloc(count, sizeof(*t->handles));
	if (!t->tiles || !t->handles)
		return -ENOMEM;
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			size_t bytes = (size_t)tile_dim(t, i) * tile_dim(t, j) * sizeof(double);
			if (starpu_malloc((void **)tile_at(t, i, j), bytes) != 0)
				return -ENOMEM;
		}
	return 0;
}

static void tiled_free(struct tiled *t)
{
	if (t->tiles)
		for (size_t k = 0; k < (size_t)t->nt * t->nt; k++)
			if (t->tiles[k])
				starpu_free(t->tiles[k]);
	free(t->tiles);
	free(t->handles);
}

/* Copy between a full column-major matrix (leading dimension n) and the tiles. */
static void tiled_copy(struct tiled *t, double *full, int to_tiles)
{
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			int rows = tile_dim(t, i), cols = tile_dim(t, j);
			double *tile = *tile_at(t, i, j);
			double *corner = full + (size_t)j * t->bs * t->n + (size_t)i * t->bs;
			for (int c = 0; c < cols; c++) {
				double *tcol = tile + (size_t)c * rows;
				double *fcol = corner + (size_t)c * t->n;
				if (to_tiles)
					memcpy(tcol, fcol, rows * sizeof(double));
				else
					memcpy(fcol, tcol, rows * sizeof(double));
			}
		}
}

static void tiled_register(struct tiled *t)
{
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			int rows = tile_dim(t, i);
			starpu_matrix_data_register(&t->handles[(size_t)j * t->nt + i], STARPU_MAIN_RAM,
						    (uintptr_t)*tile_at(t, i, j), rows, rows,
						    tile_dim(t, j), sizeof(double));
		}
}

static void tiled_unregister(struct tiled *t)
{
	for (size_t k = 0; k < (size_t)t->nt * t->nt; k++)
		starpu_data_unregister(t->handles[k]);
}

static starpu_data_handle_t handle_at(const struct tiled *t, int i, int j)
{
	return t->handles[(size_t)j * t->nt + i];
}

/* Deterministic values in [-1, 1): the same run always gives the same inputs. */
static void fill_random(double *m, size_t count, uint64_t seed)
{
	uint64_t state = seed;
	for (size_t k = 0; k < count; k++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		m[k] = (double)(state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
	}
}

static double frobenius(const double *m, size_t count)
{
	double sum = 0.0;
	for (size_t k = 0; k < count; k++)
		sum += m[k] * m[k];
	return sqrt(sum);
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-n N] [-b BS]\n", prog);
}

int main(int argc, char **argv)
{
	int n = 1024, bs = 256;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			n = atoi(argv[++i]);
		} else if (strcmp(argv[i], "-b") == 0 && i + 1 < argc) {
			bs = atoi(argv[++i]);
		} else {
			usage(argv[0]);
			return 1;
		}
	}
	if (n < 1 || bs < 1) {
		fprintf(stderr, "gemm: N and BS must be positive (got n=%d bs=%d)\n", n, bs);
		return 1;
	}
	if (bs > n)
		bs = n;

	openblas_set_num_threads(1);

	int ret = starpu_init(NULL);
	if (ret == -ENODEV) {
		fprintf(stderr, "gemm: skipped, starpu_init found no worker (-ENODEV)\n");
		return 77;
	}
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_init");
	if (starpu_cpu_worker_get_count() == 0) {
		fprintf(stderr, "gemm: skipped, no CPU worker available\n");
		starpu_shutdown();
		return 77;
	}

	size_t elems = (size_t)n * n;
	double *a_full = malloc(elems * sizeof(double));
	double *b_full = malloc(elems * sizeof(double));
	double *c_full = malloc(elems * sizeof(double));
	double *c_ref = malloc(elems * sizeof(double));
	struct tiled a = { 0 }, b = { 0 }, c = { 0 };
	int status = 1;

	if (!a_full || !b_full || !c_full || !c_ref || tiled_alloc(&a, n, bs) != 0
	    || tiled_alloc(&b, n, bs) != 0 || tiled_alloc(&c, n, bs) != 0) {
		fprintf(stderr, "gemm: out of memory for n=%d\n", n);
		goto out;
	}

	fill_random(a_full, elems, 1);
	fill_random(b_full, elems, 2);
	memset(c_full, 0, elems * sizeof(double));
	tiled_copy(&a, a_full, 1);
	tiled_copy(&b, b_full, 1);
	tiled_copy(&c, c_full, 1);
	tiled_register(&a);
	tiled_register(&b);
	tiled_register(&c);

	double start = starpu_timing_now();
	for (int i = 0; i < c.nt; i++)
		for (int j = 0; j < c.nt; j++)
			for (int k = 0; k < c.nt; k++) {
				double flops = 2.0 * tile_dim(&c, i) * tile_dim(&c, j) * tile_dim(&c, k);
				ret = starpu_task_insert(&gemm_cl,
							 STARPU_R, handle_at(&a, i, k),
							 STARPU_R, handle_at(&b, k, j),
							 STARPU_RW, handle_at(&c, i, j),
							 STARPU_FLOPS, flops,
							 0);
				if (ret == -ENODEV) {
					fprintf(stderr, "gemm: skipped, no worker can run the codelet\n");
					status = 77;
					break;
				}
				STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert gemm");
			}
	starpu_task_wait_for_all();
	double elapsed_us = starpu_timing_now() - start;

	/* Unregistering hands the up-to-date tiles back to the application. */
	tiled_unregister(&a);
	tiled_unregister(&b);
	tiled_unregister(&c);
	if (status == 77)
		goto out;
	tiled_copy(&c, c_full, 0);

	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n,
		    1.0, a_full, n, b_full, n, 0.0, c_ref, n);
	double ref_norm = frobenius(c_ref, elems);
	for (size_t k = 0; k < elems; k++)
		c_ref[k] -= c_full[k];
	double rel_error = frobenius(c_ref, elems) / ref_norm;

	double gflops = 2.0 * n * (double)n * n / (elapsed_us * 1e3);
	int ok = rel_error < 1e-12;
	printf("gemm  n=%d bs=%d  workers=%u  time=%8.1f ms  GFlop/s=%6.1f  rel_error=%.2e  check=%s\n",
	       n, bs, starpu_cpu_worker_get_count(), elapsed_us / 1000.0, gflops, rel_error,
	       ok ? "ok" : "FAILED");
	status = ok ? 0 : 1;

out:
	tiled_free(&a);
	tiled_free(&b);
	tiled_free(&c);
	free(a_full);
	free(b_full);
	free(c_full);
	free(c_ref);
	starpu_shutdown();
	return status;
}
