/* ring.c — a token goes round the ranks: each rank receives it from the
 * previous one, increments it with a task and sends it to the next, for a
 * number of loops. Rank 0 checks the final count (loops x ranks).
 *
 *   mpirun -np 4 ./ring [loops]
 */
#include <starpu_mpi.h>

#include <stdio.h>
#include <stdlib.h>

static void increment(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	int *token = (int *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	(*token)++;
}

static struct starpu_codelet increment_cl = {
	.cpu_funcs = { increment },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "increment",
};

int main(int argc, char **argv)
{
	int loops = argc > 1 ? atoi(argv[1]) : 16;
	int ret = starpu_mpi_init_conf(&argc, &argv, 1, MPI_COMM_WORLD, NULL);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_init_conf");
	int rank = starpu_mpi_world_rank(), size = starpu_mpi_world_size();
	if (size < 2)
	{
		if (rank == 0)
			fprintf(stderr, "ring needs at least 2 ranks\n");
		starpu_mpi_shutdown();
		return 77;
	}

	int token = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &token, sizeof(token));

	for (int loop = 0; loop < loops; loop++)
	{
		/* Rank 0 starts each lap with what came back from the last. */
		if (loop > 0 || rank > 0)
		{
			MPI_Status status;
			ret = starpu_mpi_recv(h, (rank + size - 1) % size, loop, MPI_COMM_WORLD, &status);
			STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_recv");
		}
		ret = starpu_task_insert(&increment_cl, STARPU_RW, h, 0);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert");
		int next_tag = rank == size - 1 ? loop + 1 : loop;
		ret = starpu_mpi_send(h, (rank + 1) % size, next_tag, MPI_COMM_WORLD);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_send");
	}
	if (rank == 0)
	{
		MPI_Status status;
		ret = starpu_mpi_recv(h, size - 1, loops, MPI_COMM_WORLD, &status);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_recv");
	}
	starpu_data_unregister(h);

	int ok = 1;
	if (rank == 0)
	{
		ok = token == loops * size;
		printf("ring: %d ranks, %d loops: token %d (%s)\n", size, loops, token, ok ? "right" : "WRONG");
	}
	starpu_mpi_shutdown();
	return ok ? 0 : 1;
}
