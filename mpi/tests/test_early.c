/* test_early.c — early receives: data that arrives before its receive is
 * posted waits in a buffer and lands in the handle when the receive comes.
 * Rank 0 sends everything at once; rank 1 posts its receives only after a
 * barrier (so the messages are there first), in the reverse order; several
 * messages with one tag land in receive order; an empty message (void
 * handle) and a 1 MiB one; a synchronous send (issend) does not complete
 * before its receive is posted, while a standard one does, also a 1 MiB
 * one (large early messages wait a millisecond for their receive, then
 * are taken into a buffer); a 1 MiB message whose receive is posted at
 * about the time it arrives lands intact either way.
 */
#include "mpitest.h"

#include <unistd.h>

#define M 32
#define BIG (1 << 17)	/* doubles: 1 MiB */

int main(int argc, char **argv)
{
	int size;
	int rank = mt_start(&argc, &argv, "test_early", 1, &size);
	static int v[M];
	static long same[5];
	static double big[BIG];
	starpu_data_handle_t hv[M], hs[5], hb, hvoid;
	for (int i = 0; i < M; i++)
	{
		v[i] = rank == 0 ? 1000 + i : -1;
		starpu_variable_data_register(&hv[i], STARPU_MAIN_RAM, (uintptr_t) &v[i], sizeof(int));
	}
	for (int i = 0; i < 5; i++)
	{
		same[i] = rank == 0 ? 0 : -1;
		starpu_variable_data_register(&hs[i], STARPU_MAIN_RAM, (uintptr_t) &same[i], sizeof(long));
	}
	for (int i = 0; i < BIG; i++)
		big[i] = rank == 0 ? i * 0.5 : 0;
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) big, BIG, sizeof(double));
	starpu_void_data_register(&hvoid);

	if (rank == 0)
	{
		for (int i = 0; i < M; i++)
			CHECK_EQ(starpu_mpi_isend_detached(hv[i], 1, i, MPI_COMM_WORLD, NULL, NULL), 0);
		/* Five messages with tag 77: values 0..4 in this order. */
		for (int i = 0; i < 5; i++)
		{
			CHECK_EQ(starpu_data_acquire(hs[0], STARPU_W), 0);
			same[0] = i;
			starpu_data_release(hs[0]);
			CHECK_EQ(starpu_mpi_send(hs[0], 1, 77, MPI_COMM_WORLD), 0);
		}
		CHECK_EQ(starpu_mpi_isend_detached(hb, 1, 78, MPI_COMM_WORLD, NULL, NULL), 0);
		CHECK_EQ(starpu_mpi_isend_detached(hvoid, 1, 79, MPI_COMM_WORLD, NULL, NULL), 0);
	}
	CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
	if (rank == 1)
	{
		usleep(50000);	/* let the messages arrive */
		for (int i = M - 1; i >= 0; i--)
			CHECK_EQ(starpu_mpi_irecv_detached(hv[i], 0, i, MPI_COMM_WORLD, NULL, NULL), 0);
		for (int i = 0; i < 5; i++)
			CHECK_EQ(starpu_mpi_recv(hs[i], 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_recv(hvoid, 0, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_recv(hb, 0, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		for (int i = 0; i < M; i++)
		{
			starpu_data_acquire(hv[i], STARPU_R);
			CHECK_EQ(v[i], 1000 + i);
			starpu_data_release(hv[i]);
		}
		for (int i = 0; i < 5; i++)
			CHECK_EQ(same[i], i);
		for (int i = 0; i < BIG; i++)
			CHECK(big[i] == i * 0.5);
	}

	/* A synchronous send waits for its receive; a standard one need not. */
	if (rank == 0)
	{
		starpu_mpi_req ss, st, sb;
		CHECK_EQ(starpu_mpi_issend(hv[0], &ss, 1, 90, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_isend(hv[1], &st, 1, 91, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_isend(hb, &sb, 1, 92, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_wait(&st, MPI_STATUS_IGNORE), 0);	/* taken early by rank 1 */
		CHECK_EQ(starpu_mpi_wait(&sb, MPI_STATUS_IGNORE), 0);	/* taken after its deferral */
		usleep(50000);
		int flag = 1;
		CHECK_EQ(starpu_mpi_test(&ss, &flag, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(flag, 0);	/* rank 1 posts the receive 300 ms after the barrier */
		CHECK_EQ(starpu_mpi_wait(&ss, MPI_STATUS_IGNORE), 0);
	}
	else if (rank == 1)
	{
		usleep(300000);
		for (int i = 0; i < BIG; i++)
			big[i] = 0;
		CHECK_EQ(starpu_mpi_recv(hv[2], 0, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_recv(hv[3], 0, 91, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_recv(hb, 0, 92, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		for (int i = 0; i < BIG; i++)
			CHECK(big[i] == i * 0.5);
		starpu_data_acquire(hv[2], STARPU_R);
		CHECK_EQ(v[2], 1000);
		starpu_data_release(hv[2]);
		starpu_data_acquire(hv[3], STARPU_R);
		CHECK_EQ(v[3], 1001);
		starpu_data_release(hv[3]);
	}
	/* A large message and its receive at about the same time: received
	 * straight into the handle when the receive comes within the
	 * deferral, else from the buffer; intact both ways, ten times. */
	for (int k = 0; k < 10; k++)
	{
		CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
		if (rank == 0)
		{
			starpu_data_acquire(hb, STARPU_W);
			for (int i = 0; i < BIG; i++)
				big[i] = i * 0.25 + k;
			starpu_data_release(hb);
			CHECK_EQ(starpu_mpi_send(hb, 1, 93, MPI_COMM_WORLD), 0);
		}
		else if (rank == 1)
		{
			if (k % 2)
				usleep(200 * (unsigned) k);
			CHECK_EQ(starpu_mpi_recv(hb, 0, 93, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
			starpu_data_acquire(hb, STARPU_R);
			for (int i = 0; i < BIG; i++)
				CHECK(big[i] == i * 0.25 + k);
			starpu_data_release(hb);
		}
	}
	for (int i = 0; i < M; i++)
		starpu_data_unregister(hv[i]);
	for (int i = 0; i < 5; i++)
		starpu_data_unregister(hs[i]);
	starpu_data_unregister(hb);
	starpu_data_unregister(hvoid);
	if (rank == 0)
		printf("test_early: %d early messages received in reverse order, same-tag order kept, issend waited, 1 MiB ones intact\n", M + 18);
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
