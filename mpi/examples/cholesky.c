/* cholesky.c — distributed tiled Cholesky factorization (A = L L^T, lower)
 * with StarPU-MPI: the tiles of the lower triangle are spread over a P x Q
 * grid of ranks in a 2D block-cyclic way (tile (i, j) belongs to rank
 * (i mod P) * Q + (j mod Q)); every rank submits the same task flow with
 * starpu_mpi_task_insert and executes the tasks writing its tiles. Rank 0
 * then gathers L and checks it against LAPACK's dpotrf of the whole matrix.
 *
 *   mpirun -np 4 ./cholesky [-n N] [-b BS] [-p P] [-no-check] [-no-init]
 *
 * -no-init leaves the tiles' values unwritten (implies -no-check): for
 * simulated runs (vela simrun), where kernels do not run, so that large
 * matrices cost no memory.
 * Prints the time and GFlop/s of the factorization (from the first task
 * submitted to the last one done, every rank included).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <starpu_mpi.h>

extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void openblas_set_num_threads(int num_threads);

static int n = 1024, bs = 128, nt, P, Q, rank, size;
static int potrf_failed, do_init = 1;

/* A symmetric positive definite matrix, the same on every rank: a Hilbert
 * matrix plus n on the diagonal. */
static double a_ij(int i, int j)
{
	return 1.0 / (i + j + 1) + (i == j ? n : 0);
}

static void potrf_cpu(void *buffers[], void *arg)
{
	(void) arg;
	int m = (int) STARPU_MATRIX_GET_NX(buffers[0]), ld = (int) STARPU_MATRIX_GET_LD(buffers[0]), info = 0;
	dpotrf_("L", &m, (double *) STARPU_MATRIX_GET_PTR(buffers[0]), &ld, &info);
	if (info)
		potrf_failed = info;
}

static void trsm_cpu(void *buffers[], void *arg)
{
	(void) arg;
	cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit,
		    (int) STARPU_MATRIX_GET_NX(buffers[1]), (int) STARPU_MATRIX_GET_NY(buffers[1]), 1.0,
		    (double *) STARPU_MATRIX_GET_PTR(buffers[0]), (int) STARPU_MATRIX_GET_LD(buffers[0]),
		    (double *) STARPU_MATRIX_GET_PTR(buffers[1]), (int) STARPU_MATRIX_GET_LD(buffers[1]));
}

static void syrk_cpu(void *buffers[], void *arg)
{
	(void) arg;
	cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans,
		    (int) STARPU_MATRIX_GET_NX(buffers[1]), (int) STARPU_MATRIX_GET_NY(buffers[0]),
		    -1.0, (double *) STARPU_MATRIX_GET_PTR(buffers[0]), (int) STARPU_MATRIX_GET_LD(buffers[0]),
		    1.0, (double *) STARPU_MATRIX_GET_PTR(buffers[1]), (int) STARPU_MATRIX_GET_LD(buffers[1]));
}

static void gemm_cpu(void *buffers[], void *arg)
{
	(void) arg;
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans,
		    (int) STARPU_MATRIX_GET_NX(buffers[2]), (int) STARPU_MATRIX_GET_NY(buffers[2]), (int) STARPU_MATRIX_GET_NY(buffers[0]),
		    -1.0, (double *) STARPU_MATRIX_GET_PTR(buffers[0]), (int) STARPU_MATRIX_GET_LD(buffers[0]),
		    (double *) STARPU_MATRIX_GET_PTR(buffers[1]), (int) STARPU_MATRIX_GET_LD(buffers[1]),
		    1.0, (double *) STARPU_MATRIX_GET_PTR(buffers[2]), (int) STARPU_MATRIX_GET_LD(buffers[2]));
}

/* The models of examples/cholesky.c (same kernels, same symbols): they
 * time the kernels in a real run and predict them in a simulated one
 * (vela-simrun, sim/README.md "Clusters"). */
static struct starpu_perfmodel potrf_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dpotrf" };
static struct starpu_perfmodel trsm_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dtrsm" };
static struct starpu_perfmodel syrk_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dsyrk" };
static struct starpu_perfmodel gemm_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dgemm" };

static struct starpu_codelet potrf_cl = { .cpu_funcs = { potrf_cpu }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &potrf_model, .name = "potrf" };
static struct starpu_codelet trsm_cl = { .cpu_funcs = { trsm_cpu }, .nbuffers = 2, .modes = { STARPU_R, STARPU_RW }, .model = &trsm_model, .name = "trsm" };
static struct starpu_codelet syrk_cl = { .cpu_funcs = { syrk_cpu }, .nbuffers = 2, .modes = { STARPU_R, STARPU_RW }, .model = &syrk_model, .name = "syrk" };
static struct starpu_codelet gemm_cl = { .cpu_funcs = { gemm_cpu }, .nbuffers = 3, .modes = { STARPU_R, STARPU_R, STARPU_RW }, .model = &gemm_model, .name = "gemm" };

static starpu_data_handle_t *handles;	/* tile (i, j), i >= j, at i*(i+1)/2 + j */
static double **tiles;			/* this rank's tiles (others NULL) */

static long idx(int i, int j)
{
	return (long) i * (i + 1) / 2 + j;
}

static int owner(int i, int j)
{
	return (i % P) * Q + (j % Q);
}

static void register_tiles(void)
{
	long count = idx(nt - 1, nt - 1) + 1;
	handles = calloc((size_t) count, sizeof(*handles));
	tiles = calloc((size_t) count, sizeof(*tiles));
	for (int i = 0; i < nt; i++)
		for (int j = 0; j <= i; j++)
		{
			long k = idx(i, j);
			if (owner(i, j) == rank)
			{
				tiles[k] = malloc(sizeof(double) * (size_t) bs * bs);
				for (int c = 0; c < bs && do_init; c++)
					for (int r = 0; r < bs; r++)
						tiles[k][(size_t) c * bs + r] = a_ij(i * bs + r, j * bs + c);
				starpu_matrix_data_register(&handles[k], STARPU_MAIN_RAM, (uintptr_t) tiles[k], bs, bs, bs, sizeof(double));
			}
			else
				starpu_matrix_data_register(&handles[k], -1, 0, bs, bs, bs, sizeof(double));
			starpu_mpi_data_register(handles[k], k, owner(i, j));
		}
}

static int submit(void)
{
	int ret = 0;
	for (int k = 0; k < nt && !ret; k++)
	{
		starpu_data_handle_t akk = handles[idx(k, k)];
		ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &potrf_cl, STARPU_RW, akk, STARPU_PRIORITY, 3, 0);
		for (int i = k + 1; i < nt && !ret; i++)
			ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &trsm_cl, STARPU_R, akk, STARPU_RW, handles[idx(i, k)],
						     STARPU_PRIORITY, 2, 0);
		for (int i = k + 1; i < nt && !ret; i++)
		{
			starpu_data_handle_t aik = handles[idx(i, k)];
			ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &syrk_cl, STARPU_R, aik, STARPU_RW, handles[idx(i, i)],
						     STARPU_PRIORITY, i == k + 1 ? 1 : 0, 0);
			for (int j = k + 1; j < i && !ret; j++)
				ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &gemm_cl, STARPU_R, aik, STARPU_R, handles[idx(j, k)],
							     STARPU_RW, handles[idx(i, j)], STARPU_PRIORITY, j == k + 1 ? 1 : 0, 0);
		}
		/* Panel k is consumed: its copies on other ranks can go. */
		for (int i = k; i < nt; i++)
			starpu_mpi_cache_flush(MPI_COMM_WORLD, handles[idx(i, k)]);
	}
	return ret;
}

/* On rank 0: max |L - L_lapack| / max |L_lapack| over the lower triangle. */
static double check(void)
{
	double *full = malloc(sizeof(double) * (size_t) n * n);
	for (int c = 0; c < n; c++)
		for (int r = 0; r < n; r++)
			full[(size_t) c * n + r] = a_ij(r, c);
	int info = 0;
	dpotrf_("L", &n, full, &n, &info);
	if (info)
	{
		fprintf(stderr, "cholesky: LAPACK's dpotrf failed (info %d)\n", info);
		free(full);
		return INFINITY;
	}
	double err = 0, norm = 0;
	for (int i = 0; i < nt; i++)
		for (int j = 0; j <= i; j++)
		{
			starpu_data_handle_t h = handles[idx(i, j)];
			starpu_data_acquire(h, STARPU_R);
			const double *t = (const double *) starpu_matrix_get_local_ptr(h);
			int ld = (int) starpu_matrix_get_local_ld(h);
			for (int c = 0; c < bs; c++)
				for (int r = 0; r < bs; r++)
				{
					int gr = i * bs + r, gc = j * bs + c;
					if (gr < gc)
						continue;
					double ref = full[(size_t) gc * n + gr];
					err = fmax(err, fabs(t[(size_t) c * ld + r] - ref));
					norm = fmax(norm, fabs(ref));
				}
			starpu_data_release(h);
		}
	free(full);
	return err / norm;
}

int main(int argc, char **argv)
{
	int do_check = 1;
	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-b") && i + 1 < argc)
			bs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			P = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-no-check"))
			do_check = 0;
		else if (!strcmp(argv[i], "-no-init"))
			do_check = do_init = 0;
	}
	openblas_set_num_threads(1);
	int ret = starpu_mpi_init_conf(&argc, &argv, 1, MPI_COMM_WORLD, NULL);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_init_conf");
	rank = starpu_mpi_world_rank();
	size = starpu_mpi_world_size();
	if (P <= 0)
		for (P = 1; (P + 1) * (P + 1) <= size; P++)
			;
	while (size % P)
		P--;
	Q = size / P;
	if (n % bs)
	{
		if (rank == 0)
			fprintf(stderr, "cholesky: n (%d) must be a multiple of the tile size (%d)\n", n, bs);
		starpu_mpi_shutdown();
		return 1;
	}
	nt = n / bs;
	register_tiles();

	starpu_mpi_barrier(MPI_COMM_WORLD);
	double t0 = starpu_timing_now();
	ret = submit();
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_task_insert");
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	double t = (starpu_timing_now() - t0) / 1e6;

	double err = 0;
	if (do_check)
	{
		for (long k = 0; k <= idx(nt - 1, nt - 1); k++)
			starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, handles[k], 0, NULL, NULL);
		starpu_mpi_wait_for_all(MPI_COMM_WORLD);
		if (rank == 0)
			err = check();
	}
	for (long k = 0; k <= idx(nt - 1, nt - 1); k++)
	{
		starpu_data_unregister(handles[k]);
		free(tiles[k]);
	}
	free(handles);
	free(tiles);
	int ok = !potrf_failed && err < 1e-12;
	if (rank == 0)
	{
		printf("cholesky n=%d bs=%d ranks=%d grid=%dx%d time=%.6f s GFlop/s=%.2f", n, bs, size, P, Q, t, n * (double) n * n / 3.0 / t / 1e9);
		if (do_check)
			printf(" check=%s (max error %.2e relative to LAPACK)", ok ? "ok" : "FAILED", err);
		printf("\n");
	}
	starpu_mpi_shutdown();
	return ok ? 0 : 1;
}
