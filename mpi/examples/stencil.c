/* stencil.c — a 1D heat equation (3-point Jacobi) with StarPU-MPI: the
 * domain is cut in blocks, consecutive blocks on each rank; each block
 * also has two one-cell halo handles (its first and last values) that its
 * neighbours read. Every iteration copies the edges of every block into
 * its halos, then updates each block from its own values and its
 * neighbours' halos: only the halos cross ranks. Rank 0 gathers the
 * result and checks it against the same iterations done sequentially
 * (same operations in the same order: the values must be identical).
 *
 *   mpirun -np 4 ./stencil [-no-check] [blocks [cells_per_block [iterations]]]
 *
 * -no-check: no comparison (a simulated run, where kernels do not run:
 * vela-simrun, sim/README.md "Clusters"). The codelets have history
 * models (vela_stencil_edges, vela_stencil_update) for simulations.
 */
#include <starpu_mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nb = 16, m = 1000, iters = 50;

static double initial(long i)
{
	return (i % 97) * 0.5 + (i % 13);
}

/* new[i] = (old[i-1] + old[i] + old[i+1]) / 3, with left and right the
 * values beyond the ends. Shared by the codelet and the reference. */
static void relax(double *v, int n, double left, double right)
{
	double prev = left;
	for (int i = 0; i < n; i++)
	{
		double next = i + 1 < n ? v[i + 1] : right;
		double cur = v[i];
		v[i] = (prev + cur + next) / 3;
		prev = cur;
	}
}

static void update_cpu(void *buffers[], void *arg)
{
	(void) arg;
	double *v = (double *) STARPU_VECTOR_GET_PTR(buffers[0]);
	int n = (int) STARPU_VECTOR_GET_NX(buffers[0]);
	double left = *(double *) STARPU_VARIABLE_GET_PTR(buffers[1]);
	double right = *(double *) STARPU_VARIABLE_GET_PTR(buffers[2]);
	relax(v, n, left, right);
}

static void edges_cpu(void *buffers[], void *arg)
{
	(void) arg;
	const double *v = (const double *) STARPU_VECTOR_GET_PTR(buffers[0]);
	int n = (int) STARPU_VECTOR_GET_NX(buffers[0]);
	*(double *) STARPU_VARIABLE_GET_PTR(buffers[1]) = v[0];
	*(double *) STARPU_VARIABLE_GET_PTR(buffers[2]) = v[n - 1];
}

static struct starpu_perfmodel update_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_stencil_update" };
static struct starpu_codelet update_cl = { .cpu_funcs = { update_cpu }, .nbuffers = 3, .modes = { STARPU_RW, STARPU_R, STARPU_R }, .model = &update_model, .name = "update" };
static struct starpu_perfmodel edges_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_stencil_edges" };
static struct starpu_codelet edges_cl = { .cpu_funcs = { edges_cpu }, .nbuffers = 3, .modes = { STARPU_R, STARPU_W, STARPU_W }, .model = &edges_model, .name = "edges" };

int main(int argc, char **argv)
{
	int do_check = 1, pos = 0;
	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "-no-check"))
			do_check = 0;
		else if (pos == 0 && ++pos)
			nb = atoi(argv[i]);
		else if (pos == 1 && ++pos)
			m = atoi(argv[i]);
		else if (pos == 2 && ++pos)
			iters = atoi(argv[i]);
	}
	int ret = starpu_mpi_init_conf(&argc, &argv, 1, MPI_COMM_WORLD, NULL);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_init_conf");
	int rank = starpu_mpi_world_rank(), size = starpu_mpi_world_size();

	double **blk = calloc((size_t) nb, sizeof(*blk));
	double *first = calloc((size_t) nb, sizeof(double)), *last = calloc((size_t) nb, sizeof(double));
	starpu_data_handle_t *hb = calloc((size_t) nb, sizeof(*hb));
	starpu_data_handle_t *hf = calloc((size_t) nb, sizeof(*hf)), *hl = calloc((size_t) nb, sizeof(*hl));
	starpu_data_handle_t hzero;
	double zero = 0;
	/* The fixed boundary: a per-node value every rank holds. */
	starpu_variable_data_register(&hzero, STARPU_MAIN_RAM, (uintptr_t) &zero, sizeof(double));
	starpu_mpi_data_register(hzero, 3 * nb, STARPU_MPI_PER_NODE);
	for (int b = 0; b < nb; b++)
	{
		int owner = (int) ((long) b * size / nb);
		if (owner == rank)
		{
			blk[b] = malloc(sizeof(double) * (size_t) m);
			for (int i = 0; i < m; i++)
				blk[b][i] = initial((long) b * m + i);
			starpu_vector_data_register(&hb[b], STARPU_MAIN_RAM, (uintptr_t) blk[b], (uint32_t) m, sizeof(double));
			starpu_variable_data_register(&hf[b], STARPU_MAIN_RAM, (uintptr_t) &first[b], sizeof(double));
			starpu_variable_data_register(&hl[b], STARPU_MAIN_RAM, (uintptr_t) &last[b], sizeof(double));
		}
		else
		{
			starpu_vector_data_register(&hb[b], -1, 0, (uint32_t) m, sizeof(double));
			starpu_variable_data_register(&hf[b], -1, 0, sizeof(double));
			starpu_variable_data_register(&hl[b], -1, 0, sizeof(double));
		}
		starpu_mpi_data_register(hb[b], b, owner);
		starpu_mpi_data_register(hf[b], nb + b, owner);
		starpu_mpi_data_register(hl[b], 2 * nb + b, owner);
	}

	double t0 = starpu_timing_now();
	for (int it = 0; it < iters; it++)
	{
		for (int b = 0; b < nb; b++)
			starpu_mpi_task_insert(MPI_COMM_WORLD, &edges_cl, STARPU_R, hb[b], STARPU_W, hf[b], STARPU_W, hl[b], 0);
		for (int b = 0; b < nb; b++)
			starpu_mpi_task_insert(MPI_COMM_WORLD, &update_cl, STARPU_RW, hb[b],
					       STARPU_R, b > 0 ? hl[b - 1] : hzero, STARPU_R, b + 1 < nb ? hf[b + 1] : hzero,
					       STARPU_EXECUTE_ON_DATA, hb[b], 0);
	}
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	double t = (starpu_timing_now() - t0) / 1e6;

	for (int b = 0; b < nb; b++)
		starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, hb[b], 0, NULL, NULL);
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	int ok = 1;
	if (rank == 0 && !do_check)
		printf("stencil: %d blocks of %d cells on %d ranks, %d iterations in %.6f s\n", nb, m, size, iters, t);
	if (rank == 0 && do_check)
	{
		/* The same iterations on one array. */
		double *ref = malloc(sizeof(double) * (size_t) nb * m);
		double *edge_f = malloc(sizeof(double) * (size_t) nb), *edge_l = malloc(sizeof(double) * (size_t) nb);
		for (long i = 0; i < (long) nb * m; i++)
			ref[i] = initial(i);
		for (int it = 0; it < iters; it++)
		{
			for (int b = 0; b < nb; b++)
			{
				edge_f[b] = ref[(long) b * m];
				edge_l[b] = ref[(long) b * m + m - 1];
			}
			for (int b = 0; b < nb; b++)
				relax(ref + (long) b * m, m, b > 0 ? edge_l[b - 1] : 0, b + 1 < nb ? edge_f[b + 1] : 0);
		}
		for (int b = 0; b < nb && ok; b++)
		{
			starpu_data_acquire(hb[b], STARPU_R);
			const double *v = (const double *) starpu_vector_get_local_ptr(hb[b]);
			for (int i = 0; i < m && ok; i++)
				if (v[i] != ref[(long) b * m + i])
				{
					fprintf(stderr, "stencil: block %d cell %d: %.17g, expected %.17g\n", b, i, v[i], ref[(long) b * m + i]);
					ok = 0;
				}
			starpu_data_release(hb[b]);
		}
		free(ref);
		free(edge_f);
		free(edge_l);
		printf("stencil: %d blocks of %d cells on %d ranks, %d iterations in %.3f s: %s\n", nb, m, size, iters, t,
		       ok ? "identical to the sequential run" : "WRONG");
	}
	for (int b = 0; b < nb; b++)
	{
		starpu_data_unregister(hb[b]);
		starpu_data_unregister(hf[b]);
		starpu_data_unregister(hl[b]);
		free(blk[b]);
	}
	starpu_data_unregister(hzero);
	free(blk);
	free(first);
	free(last);
	free(hb);
	free(hf);
	free(hl);
	starpu_mpi_shutdown();
	return ok ? 0 : 1;
}
