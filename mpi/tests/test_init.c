/* test_init.c — starting and stopping: starpu_mpi_init_comm refuses to run
 * before the runtime (and leaves MPI alone); the deprecated
 * starpu_mpi_initialize_extended initialises MPI and returns the rank and
 * size; ranks and sizes agree between the calls; the tag upper bound is
 * INT64_MAX (tags travel as 64-bit integers); other attributes come from
 * MPI; the envelope tag is readable, and only settable before init;
 * STARPU_MPI_COMM=1 prints one line per message sent and received;
 * shutdown stops the layer (a second one is refused) but leaves the
 * runtime running when init did not start it.
 */
#include "mpitest.h"

#include <stdint.h>

int main(int argc, char **argv)
{
	mt_name = "test_init";
	setenv("STARPU_MPI_COMM", "1", 1);
	mt_capture_begin();
	int ret = starpu_mpi_init_comm(&argc, &argv, 1, MPI_COMM_WORLD);
	const char *out = mt_capture_end();
	int mpi_up = 1;
	MPI_Initialized(&mpi_up);
	if (ret != -EINVAL || !strstr(out, "call starpu_init first") || mpi_up)
	{
		fprintf(stderr, "test_init: starpu_mpi_init_comm before starpu_init returned %d\n", ret);
		return 1;
	}

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	if (starpu_init(&conf))
		return 1;
	int rank = -1, size = -1;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	CHECK_EQ(starpu_mpi_initialize_extended(&rank, &size), 0);
#pragma GCC diagnostic pop
	mt_rank = rank;
	CHECK(size >= 2);
	CHECK_EQ(starpu_mpi_world_rank(), rank);
	CHECK_EQ(starpu_mpi_world_size(), size);
	int r, s;
	CHECK_EQ(starpu_mpi_comm_rank(MPI_COMM_WORLD, &r), 0);
	CHECK_EQ(starpu_mpi_comm_size(MPI_COMM_WORLD, &s), 0);
	CHECK_EQ(r, rank);
	CHECK_EQ(s, size);

	int64_t *ub = NULL;
	int flag = 0;
	CHECK_EQ(starpu_mpi_comm_get_attr(MPI_COMM_WORLD, STARPU_MPI_TAG_UB, &ub, &flag), 0);
	CHECK_EQ(flag, 1);
	CHECK(ub && *ub == INT64_MAX);
	int64_t *host = NULL;
	flag = -1;
	CHECK_EQ(starpu_mpi_comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &host, &flag), 0);
	CHECK(flag == 0 || (flag == 1 && host && (*host == 0 || *host == 1)));

	int tag = starpu_mpi_get_communication_tag();
	CHECK(tag > 0);
	mt_capture_begin();
	starpu_mpi_set_communication_tag(5);
	CHECK(mt_contains_all(mt_capture_end(), "starpu_mpi_set_communication_tag", "before starpu_mpi_init", NULL));
	CHECK_EQ(starpu_mpi_get_communication_tag(), tag);

	/* STARPU_MPI_COMM was set before init: a line per message. */
	long v = rank;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(long));
	mt_capture_begin();
	if (rank == 0)
		CHECK_EQ(starpu_mpi_send(h, 1, 99, MPI_COMM_WORLD), 0);
	else if (rank == 1)
		CHECK_EQ(starpu_mpi_recv(h, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
	CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
	out = mt_capture_end();
	if (rank == 0)
		CHECK(mt_contains_all(out, "rank 0: send", "tag 99", "to rank 1: 8 bytes", NULL));
	if (rank == 1)
		CHECK(mt_contains_all(out, "rank 1: received", "tag 99", "from rank 0: 8 bytes", NULL));
	starpu_data_unregister(h);
	if (rank == 1)
		CHECK_EQ(v, 0);
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	CHECK_EQ(starpu_is_initialized(), 1);	/* not started by the layer */
	mt_capture_begin();
	ret = starpu_mpi_shutdown();
	out = mt_capture_end();
	starpu_shutdown();
	if (ret != -ESHUTDOWN || !strstr(out, "starpu_mpi_shutdown"))
	{
		fprintf(stderr, "test_init: a second starpu_mpi_shutdown returned %d\n", ret);
		return 1;
	}
	if (rank == 0)
		printf("test_init: %d ranks, tags up to %lld, envelope tag %d\n", size, (long long) INT64_MAX, tag);
	return 0;
}
