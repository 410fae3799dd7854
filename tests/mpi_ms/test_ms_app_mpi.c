/* test_ms_app_mpi.c — an application that initialises MPI itself (and
 * finalises it) before starpu_init: the slaves still serve it, and leave
 * at the end of its first session, so that its MPI_Finalize finds them
 * gone; a second session has local workers only.
 */
#include "mstest.h"

#include <mpi.h>

void ms_twice(void *buffers[], void *arg);
void ms_twice(void *buffers[], void *arg)
{
	(void) arg;
	int *v = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] *= 2;
}

static struct starpu_codelet twice_cl = {
	.cpu_funcs = { ms_twice },
	.cpu_funcs_name = { "ms_twice" },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "twice",
};

int main(int argc, char **argv)
{
	int provided, rank, size;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* The application's own communication, before the runtime. */
	int sum = 0;
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	CHECK_EQ(sum, size * (size - 1) / 2);

	ms_start("test_ms_app_mpi", 1, 2);
	CHECK_EQ(rank, 0);	/* the slaves never come back from starpu_init */
	int v[100];
	for (int i = 0; i < 100; i++)
		v[i] = i;
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, 100, sizeof(int));
	for (int s = 0; s < 2; s++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &twice_cl;
		t->handles[0] = h;
		t->execute_on_a_specific_worker = 1;
		t->workerid = (unsigned) ms_slave_worker(s, 0);
		CHECK_EQ(starpu_task_submit(t), 0);
	}
	CHECK_EQ(starpu_task_wait_for_all(), 0);
	starpu_data_unregister(h);
	starpu_shutdown();
	for (int i = 0; i < 100; i++)
		CHECK_EQ(v[i], 4 * i);

	/* Second session: the slaves are gone. (A home of its own: the bus
	 * calibration of a machine without slaves is another one.) */
	char home[4096];
	snprintf(home, sizeof(home), "%s/local", getenv("STARPU_HOME") ? getenv("STARPU_HOME") : ".");
	setenv("STARPU_HOME", home, 1);
	ms_start("test_ms_app_mpi", 1, 0);
	CHECK_EQ(starpu_mpi_ms_worker_get_count(), 0);
	starpu_shutdown();
	MPI_Finalize();
	fprintf(stderr, "[test_ms_app_mpi] MPI initialised by the application: slaves served, then left\n");
	return 0;
}
