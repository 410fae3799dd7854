/* test_trace — the run whose per-rank traces tests/check_trace.sh merges
 * (STARPU_FXT_TRACE=1): a known set of messages on every rank.
 *
 *  - ROUNDS task-flow rounds: round i runs a task on rank (i+1) % size
 *    that reads x[i % size] (owned by rank i % size, written by the round
 *    before): one message per round, and tasks on every rank;
 *  - rank 0 sends rank 1 a 1 MiB vector (data after its envelope) before
 *    rank 1 posts the receive (an early message), and a synchronous send;
 *  - the values are checked at the end, so that the run is a real one.
 *
 * It prints "messages: N" on rank 0: what the merged trace must link.
 */
#include "mpitest.h"

#define ROUNDS 24
#define BIG (1 << 20)

static void add_one(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	int *dst = (int *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	const int *src = (const int *) STARPU_VARIABLE_GET_PTR(buffers[1]);
	*dst = *src + 1;
}

static struct starpu_codelet add_cl = {
	.cpu_funcs = { add_one },
	.cpu_funcs_name = { "add_one" },
	.nbuffers = 2,
	.modes = { STARPU_W, STARPU_R },
	.name = "add_one",
};

int main(int argc, char **argv)
{
	int size;
	int rank = mt_start(&argc, &argv, "test_trace", 1, &size);
	CHECK(size >= 2);

	int *x = calloc((size_t) size, sizeof(int));
	starpu_data_handle_t *h = calloc((size_t) size, sizeof(*h));
	CHECK(x && h);
	for (int r = 0; r < size; r++)
	{
		if (r == rank)
			starpu_variable_data_register(&h[r], STARPU_MAIN_RAM, (uintptr_t) &x[r], sizeof(int));
		else
			starpu_variable_data_register(&h[r], -1, (uintptr_t) NULL, sizeof(int));
		starpu_mpi_data_register(h[r], r, r);
	}
	for (int i = 0; i < ROUNDS; i++)
		CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &add_cl, STARPU_W, h[(i + 1) % size], STARPU_R, h[i % size], 0), 0);
	starpu_task_wait_for_all();
	/* x[r] was last written by round i with (i + 1) % size == r: i + 1. */
	int last = -1;
	for (int i = 0; i < ROUNDS; i++)
		if ((i + 1) % size == rank)
			last = i + 1;
	if (last >= 0)
		CHECK_EQ(x[rank], last);

	/* An early 1 MiB message and a synchronous one, rank 0 to rank 1. */
	char *big = malloc(BIG);
	CHECK(big);
	int token = rank == 0 ? 42 : 0;
	starpu_data_handle_t hb, ht;
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) big, BIG, 1);
	starpu_variable_data_register(&ht, STARPU_MAIN_RAM, (uintptr_t) &token, sizeof(token));
	if (rank == 0)
	{
		memset(big, 7, BIG);
		starpu_mpi_req rq;
		CHECK_EQ(starpu_mpi_isend(hb, &rq, 1, 1000, MPI_COMM_WORLD), 0);
		starpu_mpi_barrier(MPI_COMM_WORLD);
		CHECK_EQ(starpu_mpi_wait(&rq, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_issend(ht, &rq, 1, 1001, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_wait(&rq, MPI_STATUS_IGNORE), 0);
	}
	else if (rank == 1)
	{
		starpu_mpi_barrier(MPI_COMM_WORLD);
		usleep(20000);	/* the data is here before its receive */
		CHECK_EQ(starpu_mpi_recv(hb, 0, 1000, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_recv(ht, 0, 1001, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		starpu_data_acquire(hb, STARPU_R);
		CHECK(big[0] == 7 && big[BIG - 1] == 7);
		starpu_data_release(hb);
		CHECK_EQ(token, 42);
	}
	else
		starpu_mpi_barrier(MPI_COMM_WORLD);
	starpu_data_unregister(hb);
	starpu_data_unregister(ht);
	for (int r = 0; r < size; r++)
		starpu_data_unregister(h[r]);
	if (rank == 0)
		printf("messages: %d\n", ROUNDS + 2);
	free(big);
	free(x);
	free(h);
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
