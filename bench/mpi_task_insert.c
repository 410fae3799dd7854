/*
 * mpi_task_insert: per-task cost of starpu_mpi_task_insert on 2 ranks, with
 * empty tasks so that only the runtime and its MPI layer are on the clock.
 *
 * Written only against the public StarPU-MPI 1.3 API, so that the same
 * source builds against Vela (pkg-config vela-mpi) and against Debian's
 * StarPU-MPI 1.3 (starpumpi-1.3); bench/compare-mpi runs both.
 *
 *   mpirun -np 2 ./mpi_task_insert [-m] [-n N] [-r R] [-s SHAPES]
 *
 * Every rank submits the same N tasks (8-byte variables, K = 64 handles
 * per set, owned alternately by the ranks, tags distinct); shapes:
 *   owner  task i: RW x[i % K]. Owner computes: each rank executes the
 *          tasks on its own handles and skips the others; no message.
 *   comm   task i: RW x[i % K], R y[i % K], y[j] owned by the other rank
 *          than x[j]: every task needs a message (the sender's cached copy
 *          is flushed after each task, starpu_mpi_cache_flush, so that
 *          each use sends again).
 *   chain  task i: RW x[0], STARPU_EXECUTE_ON_NODE i % 2: the one handle
 *          goes back and forth, each task waits for the previous one on
 *          the other rank: the latency of task end -> message -> task
 *          start, one task at a time.
 * The clock runs on every rank from a barrier to starpu_task_wait_for_all
 * and a barrier (starpu_mpi_wait_for_all); rank 0 prints the time per
 * task, the median over R repetitions inside one run, and the minimum.
 *
 * Output: a table, or with -m one line per shape:
 *   SHAPE N MEDIAN_US_PER_TASK MIN_US_PER_TASK
 */
#include <starpu_mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define K 64

static void empty_cpu(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static struct starpu_codelet cl_rw = {
	.cpu_funcs = { empty_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "rw",
};

static struct starpu_codelet cl_rw_r = {
	.cpu_funcs = { empty_cpu },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_R },
	.name = "rw_r",
};

static int rank;

static void check(int ret, const char *what)
{
	if (ret != 0) {
		fprintf(stderr, "%s: rank %d: %s failed (%d)\n", bench_name, rank, what, ret);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

/* One repetition: the time per task in µs. */
static double run(const char *shape, unsigned n, starpu_data_handle_t *x, starpu_data_handle_t *y)
{
	check(starpu_mpi_barrier(MPI_COMM_WORLD), "starpu_mpi_barrier");
	double t0 = starpu_timing_now();
	for (unsigned i = 0; i < n; i++) {
		if (!strcmp(shape, "owner"))
			check(starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_rw, STARPU_RW, x[i % K], 0), "starpu_mpi_task_insert");
		else if (!strcmp(shape, "comm")) {
			check(starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_rw_r, STARPU_RW, x[i % K], STARPU_R, y[i % K], 0),
			      "starpu_mpi_task_insert");
			starpu_mpi_cache_flush(MPI_COMM_WORLD, y[i % K]);
		} else
			check(starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_rw, STARPU_RW, x[0], STARPU_EXECUTE_ON_NODE, (int) (i % 2), 0),
			      "starpu_mpi_task_insert");
	}
	check(starpu_mpi_wait_for_all(MPI_COMM_WORLD), "starpu_mpi_wait_for_all");
	return (starpu_timing_now() - t0) / n;
}

static void usage(void)
{
	fprintf(stderr, "usage: mpirun -np 2 mpi_task_insert [-m] [-n N] [-r R] [-s SHAPES]\n"
		"  -m         one machine-readable line per shape\n"
		"  -n N       tasks per repetition (default 20000; chain: N / 10)\n"
		"  -r R       repetitions; the median is printed (default 5)\n"
		"  -s SHAPES  comma-separated among owner,comm,chain (default all three)\n");
}

int main(int argc, char **argv)
{
	bench_name = "mpi_task_insert";
	int machine = 0;
	unsigned n = 20000, reps = 5;
	const char *shapes = "owner,comm,chain";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-m"))
			machine = 1;
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = (unsigned) parse_count(argv[++i], "task count", 100000000);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			reps = (unsigned) parse_count(argv[++i], "repetitions", 1000);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			shapes = argv[++i];
		else {
			usage();
			return EXIT_FAILURE;
		}
	}
	check(starpu_mpi_init_conf(&argc, &argv, 1, MPI_COMM_WORLD, NULL), "starpu_mpi_init_conf");
	rank = starpu_mpi_world_rank();
	if (starpu_mpi_world_size() != 2) {
		if (rank == 0)
			fprintf(stderr, "%s: runs on exactly 2 ranks (mpirun -np 2)\n", bench_name);
		starpu_mpi_shutdown();
		return 77;
	}

	/* x[j] owned by rank j % 2, y[j] by the other one; each rank holds
	 * the values of the handles it owns. */
	static int64_t xv[K], yv[K];
	starpu_data_handle_t x[K], y[K];
	for (int j = 0; j < K; j++) {
		int xo = j % 2, yo = 1 - xo;
		if (xo == rank)
			starpu_variable_data_register(&x[j], STARPU_MAIN_RAM, (uintptr_t) &xv[j], sizeof(xv[j]));
		else
			starpu_variable_data_register(&x[j], -1, 0, sizeof(xv[j]));
		if (yo == rank)
			starpu_variable_data_register(&y[j], STARPU_MAIN_RAM, (uintptr_t) &yv[j], sizeof(yv[j]));
		else
			starpu_variable_data_register(&y[j], -1, 0, sizeof(yv[j]));
		starpu_mpi_data_register(x[j], j, xo);
		starpu_mpi_data_register(y[j], K + j, yo);
	}

	if (rank == 0 && !machine)
		printf("%-6s %8s %14s %14s\n", "shape", "tasks", "us/task", "min us/task");
	const char *all[] = { "owner", "comm", "chain" };
	double *t = malloc(sizeof(double) * reps);
	for (int s = 0; s < 3; s++) {
		const char *shape = all[s];
		size_t len = strlen(shape);
		int wanted = 0;
		for (const char *p = shapes; *p;) {
			size_t tok = strcspn(p, ",");
			if (tok == len && !strncmp(p, shape, len))
				wanted = 1;
			p += tok + (p[tok] == ',');
		}
		if (!wanted)
			continue;
		unsigned count = strcmp(shape, "chain") ? n : (n / 10 ? n / 10 : 1);
		run(shape, count / 10 ? count / 10 : 1, x, y);	/* warm-up */
		for (unsigned r = 0; r < reps; r++)
			t[r] = run(shape, count, x, y);
		double min = t[0];
		for (unsigned r = 1; r < reps; r++)
			if (t[r] < min)
				min = t[r];
		double med = median(t, reps);
		if (rank == 0) {
			if (machine)
				printf("%s %u %.3f %.3f\n", shape, count, med, min);
			else
				printf("%-6s %8u %14.3f %14.3f\n", shape, count, med, min);
			fflush(stdout);
		}
	}
	free(t);
	for (int j = 0; j < K; j++) {
		starpu_data_unregister(x[j]);
		starpu_data_unregister(y[j]);
	}
	/* Also shuts the runtime down: starpu_mpi_init_conf started it. */
	starpu_mpi_shutdown();
	return 0;
}
