/* test_collective.c — operations every rank calls at the same point:
 * starpu_mpi_get_data_on_node (blocking and detached, with its callback),
 * get_data_on_all_nodes_detached, starpu_mpi_data_migrate (the new owner
 * then executes the tasks writing the data), scatter and gather with
 * their callbacks, on any number of ranks.
 */
#include "mpitest.h"

#include <unistd.h>

static int rank, size;

static void set_rank_value(void *buffers[], void *arg)
{
	(void) arg;
	long *x = (long *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	*x = *x * 100 + starpu_mpi_world_rank();
}

static void add_one(void *buffers[], void *arg)
{
	(void) arg;
	(*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
}

static struct starpu_codelet mark_cl = { .cpu_funcs = { set_rank_value }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "mark" };
static struct starpu_codelet add_cl = { .cpu_funcs = { add_one }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "add" };

static int cb_count;
static void cb(void *arg)
{
	__atomic_add_fetch((int *) arg, 1, __ATOMIC_SEQ_CST);
}

static long read_value(starpu_data_handle_t h)
{
	CHECK_EQ(starpu_data_acquire(h, STARPU_R), 0);
	long v = *(long *) starpu_variable_get_local_ptr(h);
	starpu_data_release(h);
	return v;
}

static void test_get_data(void)
{
	long x = 7;
	starpu_data_handle_t h;
	int owner = size - 1;
	if (rank == owner)
		starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(long));
	else
		starpu_variable_data_register(&h, -1, 0, sizeof(long));
	starpu_mpi_data_register(h, 10, owner);

	starpu_mpi_get_data_on_node(MPI_COMM_WORLD, h, 0);
	if (rank == 0)
		CHECK_EQ(read_value(h), 7);
	/* The owner changes it; the detached form brings it to rank 0. */
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &add_cl, STARPU_RW, h, 0), 0);
	cb_count = 0;
	starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, h, 0, cb, &cb_count);
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	if (rank == 0)
	{
		while (!__atomic_load_n(&cb_count, __ATOMIC_SEQ_CST))
			usleep(1000);
		CHECK_EQ(read_value(h), 8);
	}
	/* Everybody. */
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &add_cl, STARPU_RW, h, 0), 0);
	starpu_mpi_get_data_on_all_nodes_detached(MPI_COMM_WORLD, h);
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	CHECK_EQ(read_value(h), 9);
	starpu_data_unregister(h);
}

static void test_migrate(void)
{
	long x = 1;
	starpu_data_handle_t h;
	if (rank == 0)
		starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(long));
	else
		starpu_variable_data_register(&h, -1, 0, sizeof(long));
	starpu_mpi_data_register(h, 20, 0);
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h, 0), 0);	/* 100 + 0 */
	/* Around the ranks: each new owner marks it. */
	long expect = 100;
	for (int r = 1; r < size; r++)
	{
		starpu_mpi_data_migrate(MPI_COMM_WORLD, h, r);
		CHECK_EQ(starpu_mpi_data_get_rank(h), r);
		CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h, 0), 0);
		expect = expect * 100 + r;
	}
	starpu_mpi_data_migrate(MPI_COMM_WORLD, h, 0);
	CHECK_EQ(starpu_mpi_data_get_rank(h), 0);
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	if (rank == 0)
		CHECK_EQ(read_value(h), expect);
	starpu_data_unregister(h);
	if (rank == 0)
		CHECK_EQ(x, expect);
}

#define NS 12
static void test_scatter_gather(void)
{
	static long v[NS];
	starpu_data_handle_t h[NS];
	for (int i = 0; i < NS; i++)
	{
		v[i] = rank == 0 ? 1000 + i : -1;
		/* Rank 0 holds every handle's buffer, owners theirs. */
		starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) &v[i], sizeof(long));
		starpu_mpi_data_register(h[i], 100 + i, i % size);
	}
	int scount = 0, rcount = 0;
	CHECK_EQ(starpu_mpi_scatter_detached(h, NS, 0, MPI_COMM_WORLD, cb, &scount, cb, &rcount), 0);
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	/* Owners add one to theirs. */
	for (int i = 0; i < NS; i++)
		CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &add_cl, STARPU_RW, h[i], 0), 0);
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	for (int i = 0; i < NS; i++)
		if (i % size == rank)
			CHECK_EQ(v[i], 1000 + i + 1);
	int gs = 0, gr = 0;
	CHECK_EQ(starpu_mpi_gather_detached(h, NS, 0, MPI_COMM_WORLD, cb, &gs, cb, &gr), 0);
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	for (int i = 0; i < 1000 && (__atomic_load_n(&gr, __ATOMIC_SEQ_CST) + __atomic_load_n(&gs, __ATOMIC_SEQ_CST) +
				     __atomic_load_n(&scount, __ATOMIC_SEQ_CST) + __atomic_load_n(&rcount, __ATOMIC_SEQ_CST)) < 2; i++)
		usleep(1000);
	/* One callback per side and rank: the root sends and gathers. */
	if (rank == 0)
	{
		CHECK_EQ(scount, 1);
		CHECK_EQ(rcount, 0);
		CHECK_EQ(gr, 1);
		CHECK_EQ(gs, 0);
	}
	else
	{
		CHECK_EQ(scount, 0);
		CHECK_EQ(rcount, 1);
		CHECK_EQ(gs, 1);
		CHECK_EQ(gr, 0);
	}
	for (int i = 0; i < NS; i++)
		starpu_data_unregister(h[i]);
	if (rank == 0)
		for (int i = 0; i < NS; i++)
			CHECK_EQ(v[i], 1000 + i + 1);
}

int main(int argc, char **argv)
{
	rank = mt_start(&argc, &argv, "test_collective", 1, &size);
	test_get_data();
	test_migrate();
	test_scatter_gather();
	if (rank == 0)
		printf("test_collective: %d ranks\n", size);
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
