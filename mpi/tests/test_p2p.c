/* test_p2p.c — point-to-point calls on handles between ranks 0 and 1
 * (other ranks only take part in the barriers): isend/irecv with wait and
 * test, the blocking forms, issend, the _prio and _detached forms with
 * their callbacks, irecv_detached_sequential_consistency, status fields,
 * barrier, wait_for_all, and many messages in flight in both directions
 * (through a send window of 4 per peer, VELA_MPI_SEND_WINDOW, so that most
 * sends wait for their place and go as earlier ones complete).
 */
#include "mpitest.h"

#include <stdlib.h>
#include <unistd.h>

#define N 1000

static int callbacks;

static void count_cb(void *arg)
{
	__atomic_add_fetch((int *) arg, 1, __ATOMIC_SEQ_CST);
}

static void fill(int *v, int n, int seed)
{
	for (int i = 0; i < n; i++)
		v[i] = seed * 100000 + i;
}

static int same(const int *v, int n, int seed)
{
	for (int i = 0; i < n; i++)
		if (v[i] != seed * 100000 + i)
			return 0;
	return 1;
}

static void test_wait_test(int rank)
{
	int v[N];
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, N, sizeof(int));
	starpu_mpi_req req;
	MPI_Status status;
	if (rank == 0)
	{
		fill(v, N, 1);
		CHECK_EQ(starpu_mpi_isend(h, &req, 1, 10, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_wait(&req, &status), 0);
		CHECK(req == NULL);
		/* test until done */
		fill(v, N, 2);
		CHECK_EQ(starpu_mpi_isend_prio(h, &req, 1, 11, 5, MPI_COMM_WORLD), 0);
		int flag = 0;
		while (!flag)
			CHECK_EQ(starpu_mpi_test(&req, &flag, &status), 0);
		CHECK(req == NULL);
	}
	else if (rank == 1)
	{
		memset(v, 0, sizeof(v));
		CHECK_EQ(starpu_mpi_irecv(h, &req, 0, 10, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_wait(&req, &status), 0);
		CHECK_EQ(status.MPI_SOURCE, 0);
		CHECK_EQ(status.MPI_TAG, 10);
		starpu_data_acquire(h, STARPU_R);
		CHECK(same(v, N, 1));
		starpu_data_release(h);
		CHECK_EQ(starpu_mpi_irecv(h, &req, 0, 11, MPI_COMM_WORLD), 0);
		int flag = 0;
		while (!flag)
		{
			CHECK_EQ(starpu_mpi_test(&req, &flag, &status), 0);
			if (!flag)
				usleep(100);
		}
		CHECK_EQ(status.MPI_SOURCE, 0);
		starpu_data_acquire(h, STARPU_R);
		CHECK(same(v, N, 2));
		starpu_data_release(h);
	}
	starpu_data_unregister(h);
}

static void test_blocking_and_ssend(int rank)
{
	int v[N];
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, N, sizeof(int));
	MPI_Status status;
	if (rank == 0)
	{
		fill(v, N, 3);
		CHECK_EQ(starpu_mpi_send(h, 1, 20, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_recv(h, 1, 21, MPI_COMM_WORLD, &status), 0);
		CHECK(same(v, N, 4));
		fill(v, N, 5);
		starpu_mpi_req req;
		CHECK_EQ(starpu_mpi_issend(h, &req, 1, 22, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_wait(&req, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_issend_prio(h, &req, 1, 23, 3, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_wait(&req, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_send_prio(h, 1, 24, 1, MPI_COMM_WORLD), 0);
	}
	else if (rank == 1)
	{
		CHECK_EQ(starpu_mpi_recv(h, 0, 20, MPI_COMM_WORLD, &status), 0);
		starpu_data_acquire(h, STARPU_RW);
		CHECK(same(v, N, 3));
		fill(v, N, 4);
		starpu_data_release(h);
		CHECK_EQ(starpu_mpi_send(h, 0, 21, MPI_COMM_WORLD), 0);
		for (int tag = 22; tag <= 24; tag++)
		{
			memset(v, 0, sizeof(v));
			CHECK_EQ(starpu_mpi_recv(h, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
			starpu_data_acquire(h, STARPU_R);
			CHECK(same(v, N, 5));
			starpu_data_release(h);
		}
	}
	starpu_data_unregister(h);
}

/* Many detached messages in both directions at once, tags in two orders. */
#define NMSG 64
static void test_detached(int rank)
{
	if (rank > 1)
		return;
	int peer = 1 - rank;
	static int out[NMSG][16], in[NMSG][16];
	starpu_data_handle_t ho[NMSG], hi[NMSG];
	int sent = 0, received = 0;
	for (int i = 0; i < NMSG; i++)
	{
		fill(out[i], 16, rank * 1000 + i);
		memset(in[i], 0, sizeof(in[i]));
		starpu_vector_data_register(&ho[i], STARPU_MAIN_RAM, (uintptr_t) out[i], 16, sizeof(int));
		starpu_vector_data_register(&hi[i], STARPU_MAIN_RAM, (uintptr_t) in[i], 16, sizeof(int));
	}
	for (int i = 0; i < NMSG; i++)
	{
		/* Receives posted in reverse order on rank 1. */
		int j = rank == 1 ? NMSG - 1 - i : i;
		CHECK_EQ(starpu_mpi_irecv_detached(hi[j], peer, 100 + j, MPI_COMM_WORLD, count_cb, &received), 0);
		if (i % 2)
			CHECK_EQ(starpu_mpi_isend_detached(ho[i], peer, 100 + i, MPI_COMM_WORLD, count_cb, &sent), 0);
		else
			CHECK_EQ(starpu_mpi_isend_detached_prio(ho[i], peer, 100 + i, i, MPI_COMM_WORLD, count_cb, &sent), 0);
	}
	for (int i = 0; i < NMSG; i++)
	{
		starpu_data_unregister(hi[i]);	/* waits for its receive */
		starpu_data_unregister(ho[i]);
	}
	/* Callbacks run once the data is released: maybe just after. */
	for (int i = 0; i < 5000 && (__atomic_load_n(&received, __ATOMIC_SEQ_CST) < NMSG || __atomic_load_n(&sent, __ATOMIC_SEQ_CST) < NMSG); i++)
		usleep(1000);
	CHECK_EQ(__atomic_load_n(&received, __ATOMIC_SEQ_CST), NMSG);
	CHECK_EQ(__atomic_load_n(&sent, __ATOMIC_SEQ_CST), NMSG);
	for (int i = 0; i < NMSG; i++)
		CHECK(same(in[i], 16, peer * 1000 + i));
	callbacks += received + sent;
}

/* A receive without sequential consistency does not wait for a task
 * submitted before on the handle (held here by a tag); one with it does. */
static void reader(void *buffers[], void *arg)
{
	(void) buffers;
	*(int *) arg = 1;
}

static struct starpu_codelet reader_cl = {
	.cpu_funcs = { reader },
	.nbuffers = 1,
	.modes = { STARPU_R },
};

static void test_seq_consistency(int rank)
{
	int v = 0, b = 0;
	starpu_data_handle_t h, hb;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	starpu_variable_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) &b, sizeof(b));
	if (rank == 0)
	{
		v = 42;
		b = 43;
		CHECK_EQ(starpu_mpi_send(h, 1, 30, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_send(hb, 1, 31, MPI_COMM_WORLD), 0);
	}
	else if (rank == 1)
	{
		int read = 0, got = 0;
		starpu_tag_declare_deps((starpu_tag_t) 501, 1, (starpu_tag_t) 500);
		CHECK_EQ(starpu_task_insert(&reader_cl, STARPU_R, h, STARPU_TAG, (starpu_tag_t) 501,
					    STARPU_CL_ARGS_NFREE, &read, sizeof(int), 0), 0);
		CHECK_EQ(starpu_mpi_irecv_detached_sequential_consistency(h, 0, 30, MPI_COMM_WORLD, count_cb, &got, 0), 0);
		while (!__atomic_load_n(&got, __ATOMIC_SEQ_CST))
			usleep(1000);
		CHECK_EQ(__atomic_load_n(&read, __ATOMIC_SEQ_CST), 0);	/* the reader still waits */
		CHECK_EQ(v, 42);
		starpu_tag_notify_from_apps((starpu_tag_t) 500);

		int read_b = 0, got_b = 0;
		starpu_tag_declare_deps((starpu_tag_t) 511, 1, (starpu_tag_t) 510);
		CHECK_EQ(starpu_task_insert(&reader_cl, STARPU_R, hb, STARPU_TAG, (starpu_tag_t) 511,
					    STARPU_CL_ARGS_NFREE, &read_b, sizeof(int), 0), 0);
		CHECK_EQ(starpu_mpi_irecv_detached_sequential_consistency(hb, 0, 31, MPI_COMM_WORLD, count_cb, &got_b, 1), 0);
		usleep(100000);
		CHECK_EQ(__atomic_load_n(&got_b, __ATOMIC_SEQ_CST), 0);	/* it waits for the reader */
		starpu_tag_notify_from_apps((starpu_tag_t) 510);
		while (!__atomic_load_n(&got_b, __ATOMIC_SEQ_CST))
			usleep(1000);
		CHECK_EQ(read_b, 1);
		CHECK_EQ(b, 43);
		starpu_task_wait_for_all();
	}
	starpu_data_unregister(h);
	starpu_data_unregister(hb);
}

int main(int argc, char **argv)
{
	int size;
	setenv("VELA_MPI_SEND_WINDOW", "4", 0);
	int rank = mt_start(&argc, &argv, "test_p2p", 1, &size);
	test_wait_test(rank);
	CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
	test_blocking_and_ssend(rank);
	CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
	test_detached(rank);
	test_seq_consistency(rank);
	CHECK_EQ(starpu_mpi_wait_for_all(MPI_COMM_WORLD), 0);
	if (rank == 0)
		printf("test_p2p: %d ranks, %d detached callbacks\n", size, callbacks);
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
