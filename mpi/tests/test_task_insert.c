/* test_task_insert.c — owner computes with starpu_mpi_task_insert: which
 * rank executes (the owner of written data, STARPU_EXECUTE_ON_NODE,
 * STARPU_EXECUTE_ON_DATA, node selection policies: the built-in one, one
 * registered, set as current, named per task, unregistered), the data
 * moving there and back, task_build/post_build, insert_task, the
 * pre-submit hook, STARPU_MPI_PER_NODE data, STARPU_SSEND, data arrays.
 *
 * The kernel folds the executing rank into the value it writes, so the
 * owner reading the value back learns who ran the task.
 */
#include "mpitest.h"

static int size, rank;

/* x = x * 10 + (executing rank + 1) + sum of the inputs */
static void mark(void *buffers[], void *cl_arg)
{
	struct starpu_task *task = starpu_task_get_current();
	int n = STARPU_TASK_GET_NBUFFERS(task);
	long *x = (long *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	long sum = 0;
	for (int i = 1; i < n; i++)
		sum += *(long *) STARPU_VARIABLE_GET_PTR(buffers[i]);
	*x = *x * 10 + (starpu_mpi_world_rank() + 1) + sum;
}

static struct starpu_codelet mark_cl = {
	.cpu_funcs = { mark },
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
	.name = "mark",
};

#define NV 16
static long val[NV];
static starpu_data_handle_t h[NV];

/* Handle i is owned by owner_of(i); its value starts at i. */
static int owner_of(int i)
{
	return i % size;
}

static void register_data(void)
{
	for (int i = 0; i < NV; i++)
	{
		val[i] = i;
		if (owner_of(i) == rank)
			starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) &val[i], sizeof(long));
		else
			starpu_variable_data_register(&h[i], -1, 0, sizeof(long));
		starpu_mpi_data_register(h[i], 1000 + i, owner_of(i));
	}
}

static void unregister_data(void)
{
	for (int i = 0; i < NV; i++)
		starpu_data_unregister(h[i]);
}

/* The value of handle i as its owner sees it, on every rank. */
static long value_of(int i)
{
	starpu_mpi_get_data_on_node(MPI_COMM_WORLD, h[i], 0);
	long v = 0;
	if (rank == 0)
	{
		CHECK_EQ(starpu_data_acquire(h[i], STARPU_R), 0);
		v = *(long *) starpu_variable_get_local_ptr(h[i]);
		starpu_data_release(h[i]);
	}
	return v;
}

static int policy_last(int me, int nb_nodes, struct starpu_data_descr *descr, int nb_data)
{
	(void) me;
	(void) descr;
	(void) nb_data;
	return nb_nodes - 1;
}

static int hook_calls;

static void hook(struct starpu_task *task)
{
	(void) task;
	hook_calls++;
}

static void test_owner(void)
{
	/* h[1] is owned by rank 1: the task runs there, reading h[0] from 0. */
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h[1], STARPU_R, h[0], 0), 0);
	long v = value_of(1);
	if (rank == 0)
		CHECK_EQ(v, 1 * 10 + 2 + 0);
	/* On node 0 whatever the owner: h[3] (owner 1, or 1 with 2 ranks)
	 * goes to 0 and back. */
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h[3], STARPU_R, h[2], STARPU_EXECUTE_ON_NODE, 0, 0), 0);
	v = value_of(3);
	if (rank == 0)
		CHECK_EQ(v, 3 * 10 + 1 + 2);
	/* On the owner of h[5]: rank 1. */
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h[4], STARPU_EXECUTE_ON_DATA, h[5], 0), 0);
	v = value_of(4);
	if (rank == 0)
		CHECK_EQ(v, 4 * 10 + owner_of(5) + 1);
}

static void test_policies(void)
{
	/* Two written data of different owners: the policy decides. h[9]
	 * (owner 1) is read: most R data is rank 1's. */
	CHECK_EQ(starpu_mpi_node_selection_get_current_policy(), STARPU_MPI_NODE_SELECTION_MOST_R_DATA);
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h[6], STARPU_RW, h[7], STARPU_R, h[9], 0), 0);
	long v = value_of(6);
	if (rank == 0)
		CHECK_EQ(v, 6 * 10 + owner_of(9) + 1 + 9 + 7);
	int p = starpu_mpi_node_selection_register_policy(policy_last);
	CHECK(p > 0);
	/* Named for one task. */
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h[8], STARPU_RW, h[11], STARPU_NODE_SELECTION_POLICY, p, 0), 0);
	v = value_of(8);
	if (rank == 0)
		CHECK_EQ(v, 8 * 10 + size + 11);
	/* As the current one. */
	CHECK_EQ(starpu_mpi_node_selection_set_current_policy(p), 0);
	CHECK_EQ(starpu_mpi_node_selection_get_current_policy(), p);
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h[10], STARPU_RW, h[13], 0), 0);
	v = value_of(10);
	if (rank == 0)
		CHECK_EQ(v, 10 * 10 + size + 13);
	CHECK_EQ(starpu_mpi_node_selection_unregister_policy(p), 0);
	CHECK_EQ(starpu_mpi_node_selection_get_current_policy(), STARPU_MPI_NODE_SELECTION_MOST_R_DATA);
	mt_capture_begin();
	CHECK_EQ(starpu_mpi_node_selection_set_current_policy(p), -EINVAL);
	CHECK(mt_contains_all(mt_capture_end(), "starpu_mpi_node_selection_set_current_policy", "policy 1", NULL));
}

static void test_build(void)
{
	hook_calls = 0;
	CHECK_EQ(starpu_mpi_pre_submit_hook_register(hook), 0);
	struct starpu_task *t = starpu_mpi_task_build(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h[12], STARPU_R, h[1], 0);
	CHECK((t != NULL) == (rank == owner_of(12)));
	if (t)
		CHECK_EQ(starpu_task_submit(t), 0);
	CHECK_EQ(starpu_mpi_task_post_build(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h[12], STARPU_R, h[1], 0), 0);
	long v = value_of(12);
	if (rank == 0)
		CHECK_EQ(v, 12 * 10 + owner_of(12) + 1 + 12);	/* h[1] is 12 now */
	/* Built tasks do not go through the hook; inserted ones do. */
	CHECK_EQ(hook_calls, 0);
	CHECK_EQ(starpu_mpi_insert_task(MPI_COMM_WORLD, &mark_cl, STARPU_RW, h[14], 0), 0);
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	CHECK_EQ(hook_calls, rank == owner_of(14));
	CHECK_EQ(starpu_mpi_pre_submit_hook_unregister(), 0);
}

static void test_per_node_and_arrays(void)
{
	/* Per-node data: every rank runs the task on its own value. */
	long mine = 100 + rank;
	starpu_data_handle_t pn;
	starpu_variable_data_register(&pn, STARPU_MAIN_RAM, (uintptr_t) &mine, sizeof(long));
	starpu_mpi_data_register(pn, 5000, STARPU_MPI_PER_NODE);
	CHECK_EQ(starpu_mpi_data_get_rank(pn), STARPU_MPI_PER_NODE);
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mark_cl, STARPU_RW, pn, STARPU_R, h[15], 0), 0);
	starpu_data_unregister(pn);
	CHECK_EQ(mine, (100 + rank) * 10 + rank + 1 + 15);

	/* Arrays of handles and of (handle, mode); a synchronous send. */
	starpu_data_handle_t ins[2] = { h[2], h[5] };
	struct starpu_data_descr d[2] = { { h[0], STARPU_RW }, { h[1], STARPU_R | STARPU_SSEND } };
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mark_cl, STARPU_DATA_MODE_ARRAY, d, 2, STARPU_R, h[2], 0), 0);
	long v = value_of(0);
	if (rank == 0)
		CHECK_EQ(v, 0 * 10 + 1 + 12 + 2);
	static struct starpu_codelet fixed_cl = { .cpu_funcs = { mark }, .nbuffers = 3, .modes = { STARPU_RW, STARPU_R, STARPU_R }, .name = "mark3" };
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &fixed_cl, STARPU_RW, h[1], STARPU_DATA_ARRAY, ins, 2, 0), 0);
	v = value_of(1);
	if (rank == 0)
		CHECK_EQ(v, 12 * 10 + owner_of(1) + 1 + 2 + 5);
}

int main(int argc, char **argv)
{
	rank = mt_start(&argc, &argv, "test_task_insert", 1, &size);
	register_data();
	test_owner();
	test_policies();
	test_build();
	test_per_node_and_arrays();
	CHECK_EQ(starpu_mpi_wait_for_all(MPI_COMM_WORLD), 0);
	unregister_data();
	if (rank == 0)
		printf("test_task_insert: %d ranks\n", size);
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
