/* test_redux.c — reductions across ranks: every rank runs tasks that add
 * into one handle in STARPU_REDUX mode (placed on it with
 * STARPU_EXECUTE_ON_NODE), starpu_mpi_redux_data folds the contributions
 * into the owner's value, which must be the exact sum. Several rounds
 * (the same handle reduced again), the _prio form, a rank contributing
 * nothing, then a task reading the result everywhere.
 */
#include "mpitest.h"

static void init_cpu(void *buffers[], void *arg)
{
	(void) arg;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) = 0;
}

static void redux_cpu(void *buffers[], void *arg)
{
	(void) arg;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) += *(long *) STARPU_VARIABLE_GET_PTR(buffers[1]);
}

static struct starpu_codelet init_cl = { .cpu_funcs = { init_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "init" };
static struct starpu_codelet redux_cl = { .cpu_funcs = { redux_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "redux" };

static void add_cpu(void *buffers[], void *arg)
{
	(void) arg;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) += *(long *) STARPU_VARIABLE_GET_PTR(buffers[1]);
}

static struct starpu_codelet add_cl = { .cpu_funcs = { add_cpu }, .nbuffers = 2, .modes = { STARPU_REDUX, STARPU_R }, .name = "add" };

static void check_cpu(void *buffers[], void *arg)
{
	long expect = *(long *) arg;
	if (*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) != expect)
	{
		fprintf(stderr, "[rank %d] the reduced value is %ld, expected %ld\n", starpu_mpi_world_rank(),
			*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]), expect);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static struct starpu_codelet check_cl = { .cpu_funcs = { check_cpu }, .nbuffers = 1, .modes = { STARPU_R }, .name = "check" };

int main(int argc, char **argv)
{
	int size;
	int rank = mt_start(&argc, &argv, "test_redux", 2, &size);
	const int owner = size - 1, K = 5;
	long sum = 1000, x[64];
	starpu_data_handle_t hs, hx[64];
	if (rank == owner)
		starpu_variable_data_register(&hs, STARPU_MAIN_RAM, (uintptr_t) &sum, sizeof(long));
	else
		starpu_variable_data_register(&hs, -1, 0, sizeof(long));
	starpu_data_set_reduction_methods(hs, &redux_cl, &init_cl);
	starpu_mpi_data_register(hs, 1, owner);
	for (int r = 0; r < size; r++)
	{
		x[r] = r + 1;
		if (r == rank)
			starpu_variable_data_register(&hx[r], STARPU_MAIN_RAM, (uintptr_t) &x[r], sizeof(long));
		else
			starpu_variable_data_register(&hx[r], -1, 0, sizeof(long));
		starpu_mpi_data_register(hx[r], 100 + r, r);
	}

	long expect = 1000;
	for (int round = 0; round < 3; round++)
	{
		/* Round 1: rank 0 contributes nothing. */
		for (int r = 0; r < size; r++)
		{
			if (round == 1 && r == 0 && owner != 0)
				continue;
			for (int k = 0; k < K; k++)
			{
				CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &add_cl, STARPU_REDUX, hs, STARPU_R, hx[r],
								STARPU_EXECUTE_ON_NODE, r, 0), 0);
				expect += r + 1;
			}
		}
		/* One on the owner, without placing it. */
		CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &add_cl, STARPU_REDUX, hs, STARPU_R, hx[0], 0), 0);
		expect += 1;
		if (round == 2)
			starpu_mpi_redux_data_prio(MPI_COMM_WORLD, hs, 5);
		else
			starpu_mpi_redux_data(MPI_COMM_WORLD, hs);
		/* Every rank checks the value in a task of its own. */
		for (int r = 0; r < size; r++)
			CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &check_cl, STARPU_R, hs, STARPU_EXECUTE_ON_NODE, r,
							STARPU_CL_ARGS_NFREE, &expect, sizeof(expect), 0), 0);
		CHECK_EQ(starpu_mpi_wait_for_all(MPI_COMM_WORLD), 0);
	}
	starpu_data_unregister(hs);
	for (int r = 0; r < size; r++)
		starpu_data_unregister(hx[r]);
	if (rank == owner)
	{
		CHECK_EQ(sum, expect);
		printf("test_redux: %d ranks, 3 rounds: %ld\n", size, sum);
	}
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
