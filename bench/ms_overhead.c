/* ms_overhead.c — per-task cost of an empty task (no buffers) on a worker
 * of an MPI slave, against the same on a CPU worker of the master. Run it
 * under mpirun with 2 processes or more (compare-ms does): without slaves
 * it measures the CPU worker only.
 *
 * Two shapes, each task pinned to the worker measured:
 *   indep  N tasks submitted at once, then waited for: the throughput
 *          (submission, EXECUTE command, kernel, DONE reply, termination;
 *          the worker keeps STARPU_MPI_MS_PIPELINE kernels queued);
 *   sync   one task at a time, each waited for before the next: the round
 *          trip of one task.
 * Reported in µs per task, the median over R repetitions.
 */
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ms_bench_empty(void *buffers[], void *arg);
void ms_bench_empty(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static struct starpu_codelet empty_cl = {
	.cpu_funcs = { ms_bench_empty },
	.cpu_funcs_name = { "ms_bench_empty" },
	.nbuffers = 0,
	.name = "empty",
};

static int cmp(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

static double run(int worker, int n, int sync)
{
	double t0 = starpu_timing_now();
	for (int i = 0; i < n; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &empty_cl;
		t->execute_on_a_specific_worker = 1;
		t->workerid = (unsigned) worker;
		t->synchronous = sync;
		if (starpu_task_submit(t))
		{
			fprintf(stderr, "submit failed\n");
			exit(1);
		}
	}
	starpu_task_wait_for_all();
	return (starpu_timing_now() - t0) / n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000, reps = argc > 2 ? atoi(argv[2]) : 5;
	if (starpu_init(NULL))
		return 1;
	int targets[2] = { starpu_worker_get_by_type(STARPU_CPU_WORKER, 0), starpu_worker_get_by_type(STARPU_MPI_MS_WORKER, 0) };
	for (int k = 0; k < 2; k++)
	{
		if (targets[k] < 0)
			continue;
		char name[64];
		starpu_worker_get_name(targets[k], name, sizeof(name));
		for (int sync = 0; sync < 2; sync++)
		{
			double t[64];
			if (reps > 64)
				reps = 64;
			run(targets[k], n / 10 + 1, sync);	/* warm up */
			for (int r = 0; r < reps; r++)
				t[r] = run(targets[k], n, sync);
			qsort(t, (size_t) reps, sizeof(double), cmp);
			printf("ms_overhead  worker=%-12s shape=%-5s n=%d  us/task median=%.2f min=%.2f\n", name,
			       sync ? "sync" : "indep", n, t[reps / 2], t[0]);
		}
	}
	starpu_shutdown();
	return 0;
}
