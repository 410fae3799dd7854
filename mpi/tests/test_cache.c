/* test_cache.c — the communication cache: STARPU_MPI_CACHE=0 starts it
 * off, starpu_mpi_cache_set turns it on and off; with it, data read twice
 * on another rank is sent once (counted with
 * starpu_mpi_comm_amounts_retrieve), writing it makes every copy stale,
 * starpu_mpi_cache_flush / _flush_all_data forget it; the cached_* query
 * and set functions; the statistics printed at shutdown
 * (STARPU_MPI_CACHE_STATS, STARPU_COMM_STATS).
 */
#include "mpitest.h"

#define N 1000

static void reader(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static void writer(void *buffers[], void *arg)
{
	(void) arg;
	double *v = (double *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (int i = 0; i < N; i++)
		v[i] += 1;
}

static void check(void *buffers[], void *arg)
{
	double *v = (double *) STARPU_VECTOR_GET_PTR(buffers[0]);
	double expect = *(double *) arg;
	for (int i = 0; i < N; i++)
		if (v[i] != expect + i)
		{
			fprintf(stderr, "[rank %d] element %d: %g, expected %g\n", starpu_mpi_world_rank(), i, v[i], expect + i);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
}

static struct starpu_codelet read_cl = { .cpu_funcs = { reader }, .nbuffers = 1, .modes = { STARPU_R }, .name = "read" };
static struct starpu_codelet write_cl = { .cpu_funcs = { writer }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "write" };
static struct starpu_codelet check_cl = { .cpu_funcs = { check }, .nbuffers = 1, .modes = { STARPU_R }, .name = "check" };

static int rank, size;
static starpu_data_handle_t h;

static size_t sent_to_1(void)
{
	size_t a[64] = { 0 };
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	starpu_mpi_comm_amounts_retrieve(a);
	return a[1];
}

static void read_on_1(void)
{
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &read_cl, STARPU_R, h, STARPU_EXECUTE_ON_NODE, 1, 0), 0);
}

int main(int argc, char **argv)
{
	setenv("STARPU_MPI_CACHE", "0", 1);
	setenv("STARPU_MPI_CACHE_STATS", "1", 1);
	setenv("STARPU_COMM_STATS", "1", 1);
	rank = mt_start(&argc, &argv, "test_cache", 1, &size);
	CHECK_EQ(starpu_mpi_cache_is_enabled(), 0);
	const size_t bytes = N * sizeof(double);
	static double v[N];
	for (int i = 0; i < N; i++)
		v[i] = i;
	if (rank == 0)
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, N, sizeof(double));
	else
		starpu_vector_data_register(&h, -1, 0, N, sizeof(double));
	starpu_mpi_data_register(h, 42, 0);

	/* Off: every read on rank 1 is a message. */
	size_t base = sent_to_1();
	read_on_1();
	read_on_1();
	if (rank == 0)
		CHECK_EQ(sent_to_1() - base, 2 * bytes);
	else
		sent_to_1();
	CHECK_EQ(starpu_mpi_cached_receive(h), 0);

	/* On: once. */
	CHECK_EQ(starpu_mpi_cache_set(1), 0);
	CHECK_EQ(starpu_mpi_cache_is_enabled(), 1);
	base = sent_to_1();
	read_on_1();
	read_on_1();
	read_on_1();
	size_t now = sent_to_1();
	if (rank == 0)
	{
		CHECK_EQ(now - base, bytes);
		CHECK_EQ(starpu_mpi_cached_send(h, 1), 1);
	}
	if (rank == 1)
		CHECK_EQ(starpu_mpi_cached_receive(h), 1);

	/* A write on the owner makes the copies stale: sent again. */
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &write_cl, STARPU_RW, h, 0), 0);
	if (rank == 0)
		CHECK_EQ(starpu_mpi_cached_send(h, 1), 0);
	if (rank == 1)
		CHECK_EQ(starpu_mpi_cached_receive(h), 0);
	double one = 1;
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &check_cl, STARPU_R, h, STARPU_EXECUTE_ON_NODE, 1,
					STARPU_CL_ARGS_NFREE, &one, sizeof(one), 0), 0);
	read_on_1();
	now = sent_to_1();
	if (rank == 0)
		CHECK_EQ(now - base, 2 * bytes);

	/* A write on rank 1 (not the owner): rank 1 keeps the new value,
	 * the owner gets it back, nobody sends it to rank 1 again. */
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &write_cl, STARPU_RW, h, STARPU_EXECUTE_ON_NODE, 1, 0), 0);
	read_on_1();
	now = sent_to_1();
	if (rank == 0)
		CHECK_EQ(now - base, 2 * bytes);
	double two = 2;
	for (int r = 0; r < size; r++)
		CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &check_cl, STARPU_R, h, STARPU_EXECUTE_ON_NODE, r,
						STARPU_CL_ARGS_NFREE, &two, sizeof(two), 0), 0);

	/* Flushes forget: sent again after each. */
	starpu_mpi_cache_flush(MPI_COMM_WORLD, h);
	CHECK_EQ(starpu_mpi_cached_receive(h), 0);
	read_on_1();
	starpu_mpi_cache_flush_all_data(MPI_COMM_WORLD);
	read_on_1();
	now = sent_to_1();
	if (rank == 0)
		CHECK_EQ(now - base, 4 * bytes);

	/* The query/set functions themselves. */
	if (rank == 1)
	{
		starpu_mpi_cached_receive_clear(h);
		CHECK_EQ(starpu_mpi_cached_receive(h), 0);
		CHECK_EQ(starpu_mpi_cached_receive_set(h), 0);
		CHECK_EQ(starpu_mpi_cached_receive_set(h), 1);
		CHECK_EQ(starpu_mpi_cached_receive(h), 1);
	}
	if (rank == 0)
	{
		starpu_mpi_cached_send_clear(h);
		CHECK_EQ(starpu_mpi_cached_send_set(h, 1), 0);
		CHECK_EQ(starpu_mpi_cached_send_set(h, 1), 1);
		CHECK_EQ(starpu_mpi_cached_send(h, 1), 1);
	}
	/* Recorded as held: not sent. */
	read_on_1();
	now = sent_to_1();
	if (rank == 0)
		CHECK_EQ(now - base, 4 * bytes);

	/* Turning it off drops the copies. */
	CHECK_EQ(starpu_mpi_cache_set(0), 0);
	CHECK_EQ(starpu_mpi_cached_receive(h), 0);
	starpu_data_unregister(h);
	if (rank == 0)
		CHECK(v[5] == 2 + 5);

	mt_capture_begin();
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	const char *out = mt_capture_end();
	CHECK(mt_contains_all(out, "[starpu_mpi_cache_stats]", "cache off", "[starpu_comm_stats]", NULL));
	if (rank == 1)
		CHECK(strstr(out, "7 receives avoided") != NULL);
	if (rank == 0)
		printf("test_cache: the cache saves, forgets and reports as it should\n");
	return 0;
}
