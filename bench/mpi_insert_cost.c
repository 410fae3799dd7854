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
 * Then the exchanges an insertion posts (what the stencil's halos cost
 * the main thread beyond the look-ups: 0.75-1.0 us per insertion in the
 * real stencil against 0.15-0.5 from the look-ups alone). Rank 1 runs
 * each task (RW of one of its handles, R of one of rank 0's), so rank 0
 * posts a send at each insertion and rank 1 a receive: with handles of
 * rank 0's that nobody writes, fresh ones each round (send and receive
 * alone), and with K of them that rank 0 rewrites before each use (a
 * task of its own inserted first, RW: rank 1 also drops the copy it has
 * cached, while the send and receive are as before). Each figure is the
 * main thread's CPU time of those insertions less what the fits above
 * give for the same insertions without exchange.
 * Last, the worker's own cost per task on rank 1, which the simulation
 * charges as STARPU_SIMGRID_SCHED_COST and _FETCHING_INPUT_COST (its
 * defaults were measured with empty tasks, caches warm): a chain of W
 * tasks (RW of one handle, then also R of two more), inserted while the
 * workers are paused, each sweeping -w KIB KiB (default 256: a tile
 * kernel's footprint, which evicts the runtime's state from the caches
 * between tasks); the worker's CPU time from the first task's start to
 * the last one's end less the tasks' own, per task: a + b x data.
 * Rank 0 prints:
 *   insert_us A
 *   insert_us_per_datum B
 *   insert_local_us C
 *   insert_local_us_per_datum D
 *   insert_send_us S       (rank 0: posting a send)
 *   insert_recv_us R       (rank 1: posting a receive)
 *   insert_drop_us X       (rank 1: dropping a cached copy rewritten)
 *   task_cost_us T         (rank 1's worker, per task)
 *   task_cost_us_per_datum U
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

/* The worker-cost phase's kernel: sweeps wsweep, timing itself with the
 * worker's CPU clock (W: the first start, the last end, the sum of all
 * but the first task's own time). */
static double *wsweep;
static int nwsweep;
static struct
{
	double first, last, own;
	int count;
} W;

static double cpu_us(void);

static void timed_sweep(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	double t = cpu_us();
	if (W.first < 0)
		W.first = t;
	double prev = wsweep[nwsweep - 1];
	for (int i = 0; i < nwsweep; i++)
	{
		double next = wsweep[i + 1 < nwsweep ? i + 1 : 0], cur = wsweep[i];
		wsweep[i] = (prev + cur + next) / 3;
		prev = cur;
	}
	double e = cpu_us();
	if (W.count++)
		W.own += e - t;
	W.last = e;
}

static struct starpu_codelet wcl1 = { .cpu_funcs = { timed_sweep }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "wc1" };
static struct starpu_codelet wcl3 = {
	.cpu_funcs = { timed_sweep }, .nbuffers = 3, .modes = { STARPU_RW, STARPU_R, STARPU_R }, .name = "wc3"
};

static struct starpu_codelet cl1 = { .cpu_funcs = { empty }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "ic1" };
static struct starpu_codelet cl2 = { .cpu_funcs = { empty }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "ic2" };
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
	int n = 20000, kib = 0, wkib = 256, nw = 1000;
	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "-n") && i + 1 < argc && atoi(argv[i + 1]) > 0)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-k") && i + 1 < argc && atoi(argv[i + 1]) >= 0 && atoi(argv[i + 1]) <= 65536)
			kib = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-w") && i + 1 < argc && atoi(argv[i + 1]) >= 1 && atoi(argv[i + 1]) <= 65536)
			wkib = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: mpirun -np 2 %s [-n TASKS] [-k KIB] [-w KIB]\n", argv[0]);
			return 2;
		}
	}
	nsweep = kib * 1024 / (int) sizeof(double);
	sweep = calloc(nsweep ? (size_t) nsweep : 1, sizeof(double));
	nwsweep = wkib * 1024 / (int) sizeof(double);
	wsweep = calloc((size_t) nwsweep, sizeof(double));
	if (!sweep || !wsweep)
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
	/* The exchanges: shape 0 fresh handles of rank 0's read by rank 1's
	 * tasks, shape 1 K handles rewritten by rank 0 before each read. */
	int nx = n < 4000 ? n : 4000;
	starpu_data_handle_t *e = malloc(sizeof(*e) * (size_t) nx);
	long *evals = calloc((size_t) nx, sizeof(long));
	if (!e || !evals)
	{
		fprintf(stderr, "mpi_insert_cost: out of memory\n");
		return 1;
	}
	double xbest[2] = { 1e300, 1e300 };
	for (int round = 0; round < 3; round++)
		for (int shape = 0; shape < 2; shape++)
		{
			int ne = shape == 0 ? nx : K;
			for (int i = 0; i < ne; i++)
			{
				if (rank == 0)
					starpu_variable_data_register(&e[i], STARPU_MAIN_RAM, (uintptr_t) &evals[i], sizeof(long));
				else
					starpu_variable_data_register(&e[i], -1, (uintptr_t) NULL, sizeof(long));
				starpu_mpi_data_register(e[i], 3 * K + i, 0);
			}
			check(starpu_mpi_barrier(MPI_COMM_WORLD), "starpu_mpi_barrier");
			double t = cpu_us();
			for (int i = 0; i < nx; i++)
			{
				int j = shape == 0 ? i : i % K;
				if (shape == 1)
					check(starpu_mpi_task_insert(MPI_COMM_WORLD, &cl1, STARPU_RW, e[j], 0), "starpu_mpi_task_insert");
				check(starpu_mpi_task_insert(MPI_COMM_WORLD, &cl2, STARPU_RW, h[i % K], STARPU_R, e[j], 0),
				      "starpu_mpi_task_insert");
			}
			t = (cpu_us() - t) / nx;
			if (t < xbest[shape])
				xbest[shape] = t;
			check(starpu_mpi_wait_for_all(MPI_COMM_WORLD), "starpu_mpi_wait_for_all");
			for (int i = 0; i < ne; i++)
				starpu_data_unregister(e[i]);
		}
	free(e);
	free(evals);
	/* The worker's cost per task, rank 1 alone (rank 0 waits at the
	 * barrier): the best of 3 rounds of each shape. */
	double wbest[2] = { 1e300, 1e300 };
	if (rank == 1)
		for (int round = 0; round < 3; round++)
			for (int shape = 0; shape < 2; shape++)
			{
				starpu_pause();
				for (int i = 0; i < nw; i++)
					check(shape == 0 ? starpu_task_insert(&wcl1, STARPU_RW, h[0], 0)
							 : starpu_task_insert(&wcl3, STARPU_RW, h[0], STARPU_R, h[1], STARPU_R, h[2], 0),
					      "starpu_task_insert");
				W.first = -1;
				W.count = 0;
				W.own = 0;
				starpu_resume();
				check(starpu_task_wait_for_all(), "starpu_task_wait_for_all");
				double per = (W.last - W.first - W.own) / (nw - 1);
				if (W.count == nw && per < wbest[shape])
					wbest[shape] = per;
			}
	check(starpu_mpi_barrier(MPI_COMM_WORLD), "starpu_mpi_barrier");
	free(wsweep);
	/* Rank 1's figures (the tasks it runs, the receives, its worker) to
	 * rank 0. */
	double local[6] = { best[0], best[1], xbest[0], xbest[1], wbest[0], wbest[1] };
	if (rank == 1)
		check(MPI_Send(local, 6, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD), "MPI_Send");
	else
		check(MPI_Recv(local, 6, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
	if (rank == 0)
	{
		const char *what[2] = { "", "_local" };
		double fit[2][2];
		for (int w = 0; w < 2; w++)
		{
			double *f = w ? local : best;
			double b = (f[1] - f[0]) / 2, a = f[0] - b;
			if (b < 0)
				b = 0, a = f[0];
			if (a < 0)
				a = 0;
			fit[w][0] = a, fit[w][1] = b;
			printf("insert%s_us %.4f\ninsert%s_us_per_datum %.4f\n", what[w], a, what[w], b);
		}
		/* Rank 0: a task of 2 data run elsewhere, plus its send. Rank 1:
		 * a task of 2 data run here plus its receive; rewritten, also a
		 * task of 1 datum run elsewhere and the drop. */
		double send = xbest[0] - (fit[0][0] + 2 * fit[0][1]);
		double recv = local[2] - (fit[1][0] + 2 * fit[1][1]);
		double drop = local[3] - local[2] - (fit[0][0] + fit[0][1]);
		printf("insert_send_us %.4f\ninsert_recv_us %.4f\ninsert_drop_us %.4f\n", send > 0 ? send : 0,
		       recv > 0 ? recv : 0, drop > 0 ? drop : 0);
		double tb = (local[5] - local[4]) / 2, ta = local[4] - tb;
		if (tb < 0)
			tb = 0, ta = local[4];
		if (ta < 0)
			ta = 0;
		printf("task_cost_us %.4f\ntask_cost_us_per_datum %.4f\n", ta, tb);
		printf("# worker (%d chained tasks sweeping %d KiB, best of 3, its CPU time less the tasks'): 1 datum %.4f us, "
		       "3 data %.4f us\n", nw, wkib, local[4], local[5]);
		printf("# exchanges (%d insertions, best of 3): rank 0 %.4f us (rewritten: %.4f with its own task), "
		       "rank 1 %.4f us (rewritten: %.4f)\n", nx, xbest[0], xbest[1], local[2], local[3]);
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
