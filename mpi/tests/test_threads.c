/* test_threads.c — the application initialises MPI itself, with
 * MPI_THREAD_MULTIPLE (test_threads_multiple) or MPI_THREAD_SERIALIZED
 * (test_threads_serialized), and hands it to the layer (initialize_mpi 0:
 * starpu_mpi_init, or the deprecated starpu_mpi_initialize). Four
 * application threads then exchange messages concurrently with the other
 * ranks (each thread its own tags, both directions, sends and receives
 * interleaved) while the main thread inserts tasks; a communicator the
 * application made (MPI_Comm_split, before the layer starts) is used too.
 * The application finalises MPI after starpu_mpi_shutdown.
 */
#include "mpitest.h"

#include <pthread.h>

#ifndef LEVEL
#define LEVEL MPI_THREAD_MULTIPLE
#endif

#define NTHREADS 4
#define NMSG 40

static int rank, size;

struct targ
{
	int id;
};

static void *worker(void *arg)
{
	struct targ *t = arg;
	long out[NMSG], in[NMSG];
	starpu_data_handle_t ho[NMSG], hi[NMSG];
	int peer = rank ^ 1;
	if (peer >= size)
		return NULL;
	for (int i = 0; i < NMSG; i++)
	{
		out[i] = rank * 1000000 + t->id * 1000 + i;
		in[i] = -1;
		starpu_variable_data_register(&ho[i], STARPU_MAIN_RAM, (uintptr_t) &out[i], sizeof(long));
		starpu_variable_data_register(&hi[i], STARPU_MAIN_RAM, (uintptr_t) &in[i], sizeof(long));
	}
	starpu_mpi_req rs[NMSG], rr[NMSG];
	for (int i = 0; i < NMSG; i++)
	{
		int64_t tag = ((int64_t) t->id << 32) | i;
		CHECK_EQ(starpu_mpi_irecv(hi[i], &rr[i], peer, tag, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_isend(ho[i], &rs[i], peer, tag, MPI_COMM_WORLD), 0);
	}
	for (int i = 0; i < NMSG; i++)
	{
		CHECK_EQ(starpu_mpi_wait(&rs[i], MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_wait(&rr[i], MPI_STATUS_IGNORE), 0);
	}
	for (int i = 0; i < NMSG; i++)
	{
		starpu_data_unregister(ho[i]);
		starpu_data_unregister(hi[i]);
		CHECK_EQ(in[i], peer * 1000000 + t->id * 1000 + i);
	}
	return NULL;
}

static void inc(void *buffers[], void *arg)
{
	(void) arg;
	(*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
}

static struct starpu_codelet inc_cl = { .cpu_funcs = { inc }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "inc" };

int main(int argc, char **argv)
{
	mt_name = LEVEL == MPI_THREAD_MULTIPLE ? "test_threads_multiple" : "test_threads_serialized";
	int provided;
	MPI_Init_thread(&argc, &argv, LEVEL, &provided);
	if (provided < LEVEL)
	{
		fprintf(stderr, "%s: MPI provides only thread level %d: skipped\n", mt_name, provided);
		MPI_Finalize();
		return 77;
	}
	MPI_Comm half;
	int wrank;
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half);

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	CHECK_EQ(starpu_init(&conf), 0);
#if LEVEL == MPI_THREAD_MULTIPLE
	CHECK_EQ(starpu_mpi_init(&argc, &argv, 0), 0);
#else
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	CHECK_EQ(starpu_mpi_initialize(), 0);
#pragma GCC diagnostic pop
#endif
	rank = mt_rank = starpu_mpi_world_rank();
	size = starpu_mpi_world_size();
	CHECK_EQ(rank, wrank);

	pthread_t th[NTHREADS];
	struct targ args[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
	{
		args[i].id = i;
		pthread_create(&th[i], NULL, worker, &args[i]);
	}
	/* Meanwhile, tasks on a handle owned by rank 0, run everywhere. */
	long x = 0;
	starpu_data_handle_t hx;
	if (rank == 0)
		starpu_variable_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(long));
	else
		starpu_variable_data_register(&hx, -1, 0, sizeof(long));
	starpu_mpi_data_register(hx, (int64_t) 1 << 50, 0);
	for (int k = 0; k < 3 * size; k++)
		CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &inc_cl, STARPU_RW, hx, STARPU_EXECUTE_ON_NODE, k % size, 0), 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	starpu_data_unregister(hx);
	if (rank == 0)
		CHECK_EQ(x, 3 * size);

	/* The split communicator: ranks of one parity. */
	int hrank, hsize;
	CHECK_EQ(starpu_mpi_comm_rank(half, &hrank), 0);
	CHECK_EQ(starpu_mpi_comm_size(half, &hsize), 0);
	CHECK_EQ(hsize, (size + 1 - wrank % 2) / 2);
	CHECK_EQ(hrank, wrank / 2);
	if (hsize > 1)
	{
		long v = hrank == 0 ? 77 : 0;
		starpu_data_handle_t hv;
		starpu_variable_data_register(&hv, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(long));
		if (hrank == 0)
			CHECK_EQ(starpu_mpi_send(hv, 1, 5, half), 0);
		else if (hrank == 1)
			CHECK_EQ(starpu_mpi_recv(hv, 0, 5, half, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_barrier(half), 0);
		starpu_data_unregister(hv);
		if (hrank == 1)
			CHECK_EQ(v, 77);
	}
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	starpu_shutdown();
	MPI_Comm_free(&half);
	MPI_Finalize();
	if (rank == 0)
		printf("%s: %d threads x %d messages each way, tasks and a split communicator\n", mt_name, NTHREADS, NMSG);
	return 0;
}
