/* test_unmatched.c — task flows that do not match are reported at
 * shutdown instead of hanging: rank 0 waits for a message rank 1 never
 * sends (a detached receive, with a task depending on it), rank 1 sends
 * one rank 0 never receives. starpu_mpi_shutdown on rank 0 names the
 * handle, the tag and the peer of each, ends the receive (the task then
 * runs) and returns -ENOMSG; rank 1 has nothing to report.
 * The runtime is started apart (starpu_mpi_init_comm) so that the handles
 * can be unregistered after the MPI layer is gone.
 */
#include "mpitest.h"

#include <unistd.h>

static void inc(void *buffers[], void *arg)
{
	(void) arg;
	(*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
}

static struct starpu_codelet inc_cl = { .cpu_funcs = { inc }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "inc" };

int main(int argc, char **argv)
{
	mt_name = "test_unmatched";
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	if (starpu_init(&conf))
		return 1;
	if (starpu_mpi_init_comm(&argc, &argv, 1, MPI_COMM_WORLD))
		return 1;
	int rank = mt_rank = starpu_mpi_world_rank();
	long x = 10, y = 20;
	starpu_data_handle_t hx, hy;
	starpu_variable_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(long));
	starpu_variable_data_register(&hy, STARPU_MAIN_RAM, (uintptr_t) &y, sizeof(long));
	char hxt[32];
	snprintf(hxt, sizeof(hxt), "%p", (void *) hx);
	/* Rank 1's bye may end rank 0's receive before rank 0 shuts down. */
	mt_capture_begin();
	if (rank == 0)
	{
		CHECK_EQ(starpu_mpi_irecv_detached(hx, 1, 7, MPI_COMM_WORLD, NULL, NULL), 0);
		CHECK_EQ(starpu_task_insert(&inc_cl, STARPU_RW, hx, 0), 0);
	}
	else if (rank == 1)
	{
		CHECK_EQ(starpu_mpi_isend_detached(hy, 0, 8, MPI_COMM_WORLD, NULL, NULL), 0);
		CHECK_EQ(starpu_mpi_issend_detached(hy, 0, 9, MPI_COMM_WORLD, NULL, NULL), 0);
	}
	if (rank == 0)
	{
		/* Rank 1's bye is (most likely) here by now: this receive is
		 * known unmatchable at once. */
		usleep(300000);
		CHECK_EQ(starpu_mpi_irecv_detached(hy, 1, 10, MPI_COMM_WORLD, NULL, NULL), 0);
	}
	int ret = starpu_mpi_shutdown();
	const char *out = mt_capture_end();
	if (rank == 0)
	{
		if (ret != -ENOMSG || !mt_contains_all(out, hxt, "tag 7", "from rank 1", "never matched",
						       "from rank 1 with tag 8", "from rank 1 with tag 9", "never received", "tag 10", NULL))
		{
			fprintf(stderr, "test_unmatched: rank 0: shutdown returned %d\n", ret);
			return 1;
		}
	}
	else if (ret != 0)
	{
		fprintf(stderr, "test_unmatched: rank %d: shutdown returned %d\n", rank, ret);
		return 1;
	}
	starpu_task_wait_for_all();
	starpu_data_unregister(hx);
	starpu_data_unregister(hy);
	starpu_shutdown();
	if (rank == 0 && x != 11)
	{
		fprintf(stderr, "test_unmatched: the task after the unmatched receive did not run (x = %ld)\n", x);
		return 1;
	}
	if (rank == 0)
		printf("test_unmatched: every unmatched communication reported, nothing hung\n");
	return 0;
}
