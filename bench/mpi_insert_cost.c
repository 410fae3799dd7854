/*
 * mpi_insert_cost: the main thread's CPU time per starpu_mpi_task_insert
 * of a task that another rank executes (what every rank pays for every
 * task of the graph it does not run: the layer's look-ups of the task's
 * data), for tasks of 1 and of 3 data; the fit a + b x data, which
 * platforms/calibrate-mpi.sh writes into a localhost cluster for
 * vela-simrun (mpi_insert_us, mpi_insert_us_per_datum: sim/README.md
 * "Clusters").
 *
 *   mpirun -np 2 ./mpi_insert_cost [-n N] [-k KIB]
 *
 * Rank 1 owns every handle (8-byte variables, 64 per set) and executes
 * the N tasks of each shape (RW of one handle, then RW of one and R of
 * two more); rank 0 inserts them too; each measures its own main
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID) over the N inserts, the
 * best of 3 rounds: rank 0 for tasks run elsewhere, rank 1 for tasks it
 * runs. With -k, each task sweeps KIB KiB of its worker's memory (a
 * 3-point stencil: a tile kernel's footprint, whose caches the main
 * thread of a real run shares); default 0, empty tasks (on the loaded
 * 2-core VM, 256 KiB gave no steady difference: 0.29-0.41 us against
 * 0.40-0.41 for a task run here, both noisy).
 * Rank 0 prints:
 *   insert_us A
 *   insert_us_per_datum B
 *   # 1 datum: X us, 3 data: Y us (N tasks)
 * Written against the public StarPU-MPI 1.3 API only.
 */
#include <starpu_mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define K 64

static double *sweep;
static int nsweep;

static void empty(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	if (!nsweep)
		return;
	double prev = sweep[nsweep - 1];
	for (int i = 0; i < nsweep; i++)
	{
		double next = sweep[i + 1 < nsweep ? i + 1 : 0], cur = sweep[i];
		sweep[i] = (prev + cur + next) / 3;
		prev = cur;
	}
}

static struct starpu_codelet cl1 = { .cpu_funcs = { empty }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "ic1" };
static struct starpu_codelet cl3 = {
	.cpu_funcs = { empty }, .nbuffers = 3, .modes = { STARPU_RW, STARPU_R, STARPU_R }, .name = "ic3"
};

static double cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void check(int ret, const char *what)
{
	if (ret)
	{
		fprintf(stderr, "mpi_insert_cost: %s failed (%d)\n", what, ret);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int n = 20000, kib = 0;
	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "-n") && i + 1 < argc && atoi(argv[i + 1]) > 0)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-k") && i + 1 < argc && atoi(argv[i + 1]) >= 0 && atoi(argv[i + 1]) <= 65536)
			kib = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: mpirun -np 2 %s [-n TASKS] [-k KIB]\n", argv[0]);
			return 2;
		}
	}
	nsweep = kib * 1024 / (int) sizeof(double);
	sweep = calloc(nsweep ? (size_t) nsweep : 1, sizeof(double));
	if (!sweep)
	{
		fprintf(stderr, "mpi_insert_cost: out of memory\n");
		return 1;
	}
	check(starpu_mpi_init_conf(&argc, &argv, 1, MPI_COMM_WORLD, NULL), "starpu_mpi_init_conf");
	int rank, size;
	starpu_mpi_comm_rank(MPI_COMM_WORLD, &rank);
	starpu_mpi_comm_size(MPI_COMM_WORLD, &size);
	if (size != 2)
	{
		if (rank == 0)
			fprintf(stderr, "mpi_insert_cost: run on 2 ranks (mpirun -np 2)\n");
		starpu_mpi_shutdown();
		return 2;
	}
	static long vals[3 * K];
	starpu_data_handle_t h[3 * K];
	for (int i = 0; i < 3 * K; i++)
	{
		if (rank == 1)
			starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) &vals[i], sizeof(long));
		else
			starpu_variable_data_register(&h[i], -1, (uintptr_t) NULL, sizeof(long));
		starpu_mpi_data_register(h[i], i, 1);
	}
	double best[2] = { 1e300, 1e300 };
	for (int round = 0; round < 3; round++)
		for (int shape = 0; shape < 2; shape++)
		{
			check(starpu_mpi_barrier(MPI_COMM_WORLD), "starpu_mpi_barrier");
			double t = cpu_us();
			for (int i = 0; i < n; i++)
			{
				int j = i % K;
				int ret = shape == 0
					? starpu_mpi_task_insert(MPI_COMM_WORLD, &cl1, STARPU_RW, h[j], 0)
					: starpu_mpi_task_insert(MPI_COMM_WORLD, &cl3, STARPU_RW, h[j], STARPU_R, h[K + j],
								 STARPU_R, h[2 * K + j], 0);
				check(ret, "starpu_mpi_task_insert");
			}
			t = (cpu_us() - t) / n;
			if (t < best[shape])
				best[shape] = t;
			check(starpu_mpi_wait_for_all(MPI_COMM_WORLD), "starpu_mpi_wait_for_all");
		}
	/* Rank 1's figures (the tasks it runs) to rank 0. */
	double local[2] = { best[0], best[1] };
	if (rank == 1)
		check(MPI_Send(local, 2, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD), "MPI_Send");
	else
		check(MPI_Recv(local, 2, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
	if (rank == 0)
	{
		const char *what[2] = { "", "_local" };
		for (int w = 0; w < 2; w++)
		{
			double *f = w ? local : best;
			double b = (f[1] - f[0]) / 2, a = f[0] - b;
			if (b < 0)
				b = 0, a = f[0];
			if (a < 0)
				a = 0;
			printf("insert%s_us %.4f\ninsert%s_us_per_datum %.4f\n", what[w], a, what[w], b);
		}
		printf("# elsewhere: 1 datum %.4f us, 3 data %.4f us; here: 1 datum %.4f us, 3 data %.4f us "
		       "(%d tasks sweeping %d KiB, best of 3, the main thread's CPU time)\n", best[0], best[1], local[0],
		       local[1], n, kib);
	}
	for (int i = 0; i < 3 * K; i++)
		starpu_data_unregister(h[i]);
	starpu_mpi_shutdown();
	free(sweep);
	return 0;
}
