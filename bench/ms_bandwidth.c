/* ms_bandwidth.c — copies between the master's RAM and an MPI slave, and
 * between two slaves, through the data layer: the time of
 * starpu_data_fetch_on_node bringing a vector where it is not valid (its
 * buffer already allocated there) from the node that wrote it last, 4 KiB
 * to 64 MiB, best of R. Run it
 * under mpirun with 3 processes (compare-ms does, next to raw MPI's
 * figures from mpi_pingpong.c).
 */
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned slave_node(int k)
{
	unsigned seen = 0;
	for (unsigned n = 0; n < starpu_memory_nodes_get_count(); n++)
		if (starpu_node_get_kind(n) == STARPU_MPI_MS_RAM && seen++ == (unsigned) k)
			return n;
	return 0;
}

void ms_bench_touch(void *buffers[], void *arg);
void ms_bench_touch(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static struct starpu_codelet touch_cl = {
	.cpu_funcs = { ms_bench_touch },
	.cpu_funcs_name = { "ms_bench_touch" },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "touch",
};

/* Makes node `from` hold the only valid copy (written there). */
static void own(starpu_data_handle_t h, unsigned from)
{
	if (from == STARPU_MAIN_RAM)
	{
		starpu_data_acquire(h, STARPU_RW);
		starpu_data_release(h);
		return;
	}
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
		if (starpu_worker_get_memory_node(w) == from)
		{
			struct starpu_task *t = starpu_task_create();
			t->cl = &touch_cl;
			t->handles[0] = h;
			t->execute_on_a_specific_worker = 1;
			t->workerid = w;
			t->synchronous = 1;
			if (starpu_task_submit(t))
				exit(1);
			return;
		}
}

/* Times bringing the datum from `from` to `to`. */
static double one(starpu_data_handle_t h, unsigned from, unsigned to)
{
	own(h, from);
	double t0 = starpu_timing_now();
	starpu_data_fetch_on_node(h, to, 0);
	return starpu_timing_now() - t0;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	if (starpu_init(NULL))
		return 1;
	unsigned s0 = slave_node(0), s1 = slave_node(1);
	if (!s0)
	{
		fprintf(stderr, "ms_bandwidth: no MPI slave (run it with mpirun -np 3)\n");
		starpu_shutdown();
		return 77;
	}
	for (size_t size = 4096; size <= (64u << 20); size *= 4)
	{
		char *buf = malloc(size);
		memset(buf, 1, size);
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, (uint32_t) size, 1);
		struct { const char *what; unsigned from, to; } dirs[] = {
			{ "master->slave", STARPU_MAIN_RAM, s0 },
			{ "slave->master", s0, STARPU_MAIN_RAM },
			{ "slave->slave", s0, s1 },
		};
		for (unsigned d = 0; d < 3; d++)
		{
			if (d == 2 && !s1)
				continue;
			double best = 1e300;
			one(h, dirs[d].from, dirs[d].to);	/* allocates there */
			for (int r = 0; r < reps; r++)
			{
				double t = one(h, dirs[d].from, dirs[d].to);
				if (t < best)
					best = t;
			}
			printf("ms_bandwidth  %-14s size=%9zu  time=%9.1f us  MB/s=%8.1f\n", dirs[d].what, size, best,
			       (double) size / best);
		}
		starpu_data_unregister(h);
		free(buf);
	}
	starpu_shutdown();
	return 0;
}
