/* test_unlock_tag.c — detached communications that unlock tags, chained:
 * a value goes back and forth between ranks 0 and 1; on each side its
 * arrival unlocks a tag on which the task incrementing it depends, and the
 * completion of the send back unlocks another tag, which the application
 * waits for at the end. Then the array forms: several handles sent and
 * received as one, unlocking a single tag (also with priorities).
 */
#include "mpitest.h"

#define ROUNDS 20
#define TAG_RECV(k) ((starpu_tag_t) (1000 + (k)))
#define TAG_TASK(k) ((starpu_tag_t) (2000 + (k)))
#define TAG_SENT(k) ((starpu_tag_t) (3000 + (k)))

static void inc(void *buffers[], void *arg)
{
	(void) arg;
	(*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
}

static struct starpu_codelet inc_cl = { .cpu_funcs = { inc }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "inc" };

int main(int argc, char **argv)
{
	int size;
	int rank = mt_start(&argc, &argv, "test_unlock_tag", 1, &size);
	if (rank < 2)
	{
		long x = 0;
		starpu_data_handle_t h;
		starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(long));
		int peer = 1 - rank;
		/* Rank 0 starts: its round k sends after incrementing (no
		 * receive in round 0); rank 1 receives then increments. */
		for (int k = 0; k < ROUNDS; k++)
		{
			int receives = rank == 1 || k > 0;
			if (receives)
			{
				CHECK_EQ(starpu_mpi_irecv_detached_unlock_tag(h, peer, rank == 1 ? 2 * k : 2 * k - 1, MPI_COMM_WORLD, TAG_RECV(k)), 0);
				starpu_tag_declare_deps(TAG_TASK(k), 1, TAG_RECV(k));
			}
			struct starpu_task *t = starpu_task_create();
			t->cl = &inc_cl;
			t->handles[0] = h;
			t->use_tag = 1;
			t->tag_id = TAG_TASK(k);
			CHECK_EQ(starpu_task_submit(t), 0);
			if (k % 2)
				CHECK_EQ(starpu_mpi_isend_detached_unlock_tag(h, peer, rank == 0 ? 2 * k : 2 * k + 1, MPI_COMM_WORLD, TAG_SENT(k)), 0);
			else
				CHECK_EQ(starpu_mpi_isend_detached_unlock_tag_prio(h, peer, rank == 0 ? 2 * k : 2 * k + 1, k, MPI_COMM_WORLD, TAG_SENT(k)), 0);
		}
		if (rank == 0)
		{
			/* The last value comes back. */
			CHECK_EQ(starpu_mpi_irecv_detached_unlock_tag(h, 1, 2 * ROUNDS - 1, MPI_COMM_WORLD, TAG_RECV(ROUNDS)), 0);
			CHECK_EQ(starpu_tag_wait(TAG_RECV(ROUNDS)), 0);
		}
		CHECK_EQ(starpu_tag_wait(TAG_SENT(ROUNDS - 1)), 0);
		starpu_data_unregister(h);
		if (rank == 0)
			CHECK_EQ(x, 2 * ROUNDS);

		/* Arrays: three handles, one tag per side. */
		long a[3];
		starpu_data_handle_t ha[3];
		int peers[3] = { peer, peer, peer }, prios[3] = { 0, 5, 2 };
		starpu_mpi_tag_t tags[3] = { 700, 701, (starpu_mpi_tag_t) 1 << 40 };	/* beyond MPI_TAG_UB too */
		MPI_Comm comms[3] = { MPI_COMM_WORLD, MPI_COMM_WORLD, MPI_COMM_WORLD };
		for (int i = 0; i < 3; i++)
		{
			a[i] = rank == 0 ? 10 * (i + 1) : 0;
			starpu_variable_data_register(&ha[i], STARPU_MAIN_RAM, (uintptr_t) &a[i], sizeof(long));
		}
		if (rank == 0)
		{
			CHECK_EQ(starpu_mpi_isend_array_detached_unlock_tag(3, ha, peers, tags, comms, 4000), 0);
			CHECK_EQ(starpu_mpi_isend_array_detached_unlock_tag_prio(3, ha, peers, tags, prios, comms, 4001), 0);
			CHECK_EQ(starpu_tag_wait(4000), 0);
			CHECK_EQ(starpu_tag_wait(4001), 0);
		}
		else
		{
			CHECK_EQ(starpu_mpi_irecv_array_detached_unlock_tag(3, ha, peers, tags, comms, 4002), 0);
			CHECK_EQ(starpu_tag_wait(4002), 0);
			for (int i = 0; i < 3; i++)
			{
				starpu_data_acquire(ha[i], STARPU_RW);
				CHECK_EQ(a[i], 10 * (i + 1));
				a[i] = 0;
				starpu_data_release(ha[i]);
			}
			CHECK_EQ(starpu_mpi_irecv_array_detached_unlock_tag(3, ha, peers, tags, comms, 4003), 0);
			CHECK_EQ(starpu_tag_wait(4003), 0);
		}
		for (int i = 0; i < 3; i++)
			starpu_data_unregister(ha[i]);
		if (rank == 1)
			for (int i = 0; i < 3; i++)
				CHECK_EQ(a[i], 10 * (i + 1));
	}
	CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
	if (rank == 0)
		printf("test_unlock_tag: %d rounds of tag-chained messages, arrays\n", ROUNDS);
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
