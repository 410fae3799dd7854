/* test_bad_input.c — misuse gets a one-line message naming the call and
 * the offending value, the documented code, and loses nothing (the same
 * operations done right afterwards work):
 *  - calls before starpu_mpi_init and after starpu_mpi_shutdown: -ESHUTDOWN;
 *  - a task using a handle without owner rank: -EINVAL naming the handle
 *    and the task, nothing submitted on any rank;
 *  - ranks outside the communicator (registration, destination, source,
 *    STARPU_EXECUTE_ON_NODE), a negative tag, a NULL handle: -EINVAL;
 *  - a tag registered for a second handle: refused, naming both;
 *  - a message received into a handle of another size, posted before and
 *    after the message arrived: -EMSGSIZE naming both sizes, the handle
 *    keeps its content, the next message goes through.
 */
#include "mpitest.h"

#include <unistd.h>

static int rank, size;

static void inc(void *buffers[], void *arg)
{
	(void) arg;
	(*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
}

static struct starpu_codelet inc_cl = { .cpu_funcs = { inc }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "inc" };

static void mix(void *buffers[], void *arg)
{
	(void) arg;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) += *(long *) STARPU_VARIABLE_GET_PTR(buffers[1]);
}

static struct starpu_codelet mix_cl = { .cpu_funcs = { mix }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "mix" };

static char hex[32];
static const char *ptr_text(void *p)
{
	snprintf(hex, sizeof(hex), "%p", p);
	return hex;
}

static void test_before_init(void)
{
	mt_capture_begin();
	CHECK_EQ(starpu_mpi_world_rank(), -ESHUTDOWN);
	CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), -ESHUTDOWN);
	CHECK_EQ(starpu_mpi_shutdown(), -ESHUTDOWN);
	CHECK_EQ(starpu_mpi_isend_detached(NULL, 1, 0, MPI_COMM_WORLD, NULL, NULL), -ESHUTDOWN);
	const char *out = mt_capture_end();
	CHECK(mt_contains_all(out, "starpu_mpi_world_rank", "starpu_mpi_barrier", "starpu_mpi_shutdown",
			      "starpu_mpi_isend_detached", "not initialized", NULL));
}

static void test_no_owner(void)
{
	long a = 1, b = 2;
	starpu_data_handle_t ha, hb;
	starpu_variable_data_register(&ha, STARPU_MAIN_RAM, (uintptr_t) &a, sizeof(long));
	starpu_variable_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) &b, sizeof(long));
	starpu_mpi_data_register(ha, 1, 0);
	/* hb has no owner. */
	size_t before[64] = { 0 }, after[64] = { 0 };
	starpu_mpi_comm_amounts_retrieve(before);
	mt_capture_begin();
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mix_cl, STARPU_RW, ha, STARPU_R, hb, STARPU_NAME, "bad_task", 0), -EINVAL);
	CHECK(mt_contains_all(mt_capture_end(), "starpu_mpi_task_insert", "bad_task", ptr_text(hb), "no owner rank", NULL));
	/* A handle registered with a tag only has no owner either. */
	starpu_mpi_data_set_tag(hb, 2);
	CHECK_EQ(starpu_mpi_data_get_rank(hb), -1);
	CHECK_EQ(starpu_mpi_data_get_tag(hb), 2);
	mt_capture_begin();
	CHECK(starpu_mpi_task_build(MPI_COMM_WORLD, &mix_cl, STARPU_RW, ha, STARPU_R, hb, 0) == NULL);
	CHECK(mt_contains_all(mt_capture_end(), "starpu_mpi_task_build", "mix", ptr_text(hb), NULL));
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	starpu_mpi_comm_amounts_retrieve(after);
	for (int r = 0; r < size; r++)
		CHECK_EQ(after[r], before[r]);	/* nothing was sent */
	CHECK_EQ(a, 1);
	/* Given an owner, the same task works. */
	starpu_mpi_data_set_rank(hb, size - 1);
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &mix_cl, STARPU_RW, ha, STARPU_R, hb, 0), 0);
	starpu_data_unregister(ha);
	starpu_data_unregister(hb);
	if (rank == 0)
		CHECK_EQ(a, 3);
}

static void test_ranks_and_tags(void)
{
	long x = 5;
	starpu_data_handle_t h, h2;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(long));
	starpu_variable_data_register(&h2, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(long));
	char rtext[32];
	snprintf(rtext, sizeof(rtext), "rank %d", size + 3);

	mt_capture_begin();
	starpu_mpi_data_register(h, 7, size + 3);
	CHECK(mt_contains_all(mt_capture_end(), "starpu_mpi_data_register", rtext, "outside the communicator", NULL));
	CHECK_EQ(starpu_mpi_data_get_rank(h), -1);

	mt_capture_begin();
	CHECK_EQ(starpu_mpi_isend_detached(h, size, 1, MPI_COMM_WORLD, NULL, NULL), -EINVAL);
	CHECK_EQ(starpu_mpi_irecv_detached(h, -1, 1, MPI_COMM_WORLD, NULL, NULL), -EINVAL);
	CHECK_EQ(starpu_mpi_isend_detached(h, 0, -4, MPI_COMM_WORLD, NULL, NULL), -EINVAL);
	CHECK_EQ(starpu_mpi_isend_detached(NULL, 0, 1, MPI_COMM_WORLD, NULL, NULL), -EINVAL);
	starpu_mpi_req req = NULL;
	CHECK_EQ(starpu_mpi_wait(&req, MPI_STATUS_IGNORE), -EINVAL);
	const char *out = mt_capture_end();
	char dtext[32];
	snprintf(dtext, sizeof(dtext), "rank %d", size);
	CHECK(mt_contains_all(out, dtext, "rank -1", "tag -4", "handle is NULL", "starpu_mpi_wait", NULL));

	starpu_mpi_data_register(h, 7, 0);
	mt_capture_begin();
	CHECK_EQ(starpu_mpi_task_insert(MPI_COMM_WORLD, &inc_cl, STARPU_RW, h, STARPU_EXECUTE_ON_NODE, size, STARPU_NAME, "far", 0), -EINVAL);
	CHECK(mt_contains_all(mt_capture_end(), "STARPU_EXECUTE_ON_NODE", "far", "outside the communicator", NULL));

	/* Tag 7 is h's: h2 cannot have it. */
	mt_capture_begin();
	starpu_mpi_data_register(h2, 7, 0);
	char h1text[32];
	snprintf(h1text, sizeof(h1text), "%p", (void *) h);
	CHECK(mt_contains_all(mt_capture_end(), "tag 7", h1text, ptr_text(h2), "already registered", NULL));
	CHECK_EQ(starpu_mpi_data_get_rank(h2), -1);
	CHECK_EQ(starpu_mpi_data_get_tag(h2), -1);
	/* Once h is gone, the tag is free. */
	starpu_data_unregister(h);
	starpu_mpi_data_register(h2, 7, 0);
	CHECK_EQ(starpu_mpi_data_get_tag(h2), 7);
	CHECK_EQ(starpu_mpi_data_get_rank(h2), 0);
	starpu_data_unregister(h2);
}

static void test_wrong_size(void)
{
	if (rank > 1)
	{
		starpu_mpi_barrier(MPI_COMM_WORLD);
		starpu_mpi_barrier(MPI_COMM_WORLD);
		return;
	}
	int small[10], big[20];
	for (int i = 0; i < 10; i++)
		small[i] = 100 + i;
	for (int i = 0; i < 20; i++)
		big[i] = -7;
	starpu_data_handle_t hs, hb;
	starpu_vector_data_register(&hs, STARPU_MAIN_RAM, (uintptr_t) small, 10, sizeof(int));
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) big, 20, sizeof(int));
	starpu_mpi_req req;
	if (rank == 0)
	{
		/* Posted first (the barrier), then the message. */
		starpu_mpi_barrier(MPI_COMM_WORLD);
		CHECK_EQ(starpu_mpi_send(hs, 1, 50, MPI_COMM_WORLD), 0);
		/* The message first, then the receive. */
		CHECK_EQ(starpu_mpi_send(hs, 1, 51, MPI_COMM_WORLD), 0);
		starpu_mpi_barrier(MPI_COMM_WORLD);
		/* A right one afterwards. */
		CHECK_EQ(starpu_mpi_send(hs, 1, 52, MPI_COMM_WORLD), 0);
	}
	else
	{
		CHECK_EQ(starpu_mpi_irecv(hb, &req, 0, 50, MPI_COMM_WORLD), 0);
		mt_capture_begin();	/* the progression thread reports it */
		starpu_mpi_barrier(MPI_COMM_WORLD);
		CHECK_EQ(starpu_mpi_wait(&req, MPI_STATUS_IGNORE), -EMSGSIZE);
		CHECK(mt_contains_all(mt_capture_end(), "starpu_mpi_irecv", "40 bytes", "80 bytes", "tag 50", "rank 0", ptr_text(hb), NULL));
		starpu_mpi_barrier(MPI_COMM_WORLD);
		usleep(20000);
		mt_capture_begin();
		CHECK_EQ(starpu_mpi_recv(hb, 0, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE), -EMSGSIZE);
		CHECK(mt_contains_all(mt_capture_end(), "40 bytes", "80 bytes", "tag 51", NULL));
		for (int i = 0; i < 20; i++)
			CHECK_EQ(big[i], -7);	/* untouched */
		int right[10] = { 0 };
		starpu_data_handle_t hr;
		starpu_vector_data_register(&hr, STARPU_MAIN_RAM, (uintptr_t) right, 10, sizeof(int));
		CHECK_EQ(starpu_mpi_recv(hr, 0, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		starpu_data_unregister(hr);
		CHECK_EQ(right[9], 109);
	}
	starpu_data_unregister(hs);
	starpu_data_unregister(hb);
}

int main(int argc, char **argv)
{
	mt_name = "test_bad_input";
	test_before_init();
	rank = mt_start(&argc, &argv, "test_bad_input", 1, &size);
	mt_capture_begin();
	CHECK_EQ(starpu_mpi_init(NULL, NULL, 0), -EALREADY);
	CHECK(mt_contains_all(mt_capture_end(), "starpu_mpi_init", "already initialized", NULL));
	test_no_owner();
	test_ranks_and_tags();
	test_wrong_size();
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	/* After shutdown. */
	mt_capture_begin();
	CHECK_EQ(starpu_mpi_isend_detached(NULL, 0, 1, MPI_COMM_WORLD, NULL, NULL), -ESHUTDOWN);
	CHECK_EQ(starpu_mpi_comm_rank(MPI_COMM_WORLD, &size), -ESHUTDOWN);
	starpu_mpi_data_register(NULL, 1, 0);
	const char *out = mt_capture_end();
	if (!mt_contains_all(out, "starpu_mpi_isend_detached", "starpu_mpi_comm_rank", "starpu_mpi_data_register", "not initialized", NULL))
		return 1;
	if (rank == 0)
		printf("test_bad_input: every misuse reported, nothing lost\n");
	return 0;
}
