/* test_ms_errors.c — what goes wrong on a slave shows on the master; run
 * by check_ms_bad_input.sh, one mode per run, which reads the messages:
 *   missing   a kernel the slave cannot find: the task fails with a message
 *             naming the codelet and the function; the run goes on;
 *   alloc     a slave that cannot allocate (VELA_MPI_MS_FAIL_ALLOC): the
 *             task's data cannot be brought there, said on the master; the
 *             run goes on;
 *   nonames   a codelet without cpu_funcs_name: its tasks run on the
 *             master's CPU only, with one warning naming it;
 *   noslaves  started without mpirun: local workers only (said when slaves were asked for);
 *   die, exit, kill   a slave's kernel gets SIGSEGV, calls exit(), is
 *             killed: the job ends (reported when the slave could) instead
 *             of hanging.
 */
#include "mstest.h"

#include <signal.h>
#include <stdint.h>
#include <unistd.h>

void ms_inc(void *buffers[], void *arg);
void ms_inc(void *buffers[], void *arg)
{
	(void) arg;
	char *p = (char *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		p[i]++;
}

void ms_crash(void *buffers[], void *arg);
void ms_crash(void *buffers[], void *arg)
{
	(void) buffers;
	const char *how = arg;
	if (!strcmp(how, "die"))
		raise(SIGSEGV);
	else if (!strcmp(how, "exit"))
		exit(3);
	else
		kill(getpid(), SIGKILL);
}

static struct starpu_codelet inc_cl = {
	.cpu_funcs = { ms_inc },
	.cpu_funcs_name = { "ms_inc" },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "inc",
};

/* Its name does not exist in the program. */
static struct starpu_codelet missing_cl = {
	.cpu_funcs = { ms_inc },
	.cpu_funcs_name = { "ms_no_such_kernel" },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "missing",
};

static struct starpu_codelet nonames_cl = {
	.cpu_funcs = { ms_inc },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "nonames",
};

static struct starpu_codelet crash_cl = {
	.cpu_funcs = { ms_crash },
	.cpu_funcs_name = { "ms_crash" },
	.nbuffers = 0,
	.name = "crash",
};

static int run_on(struct starpu_codelet *cl, starpu_data_handle_t h, int worker)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	if (h)
		t->handles[0] = h;
	if (worker >= 0)
	{
		t->execute_on_a_specific_worker = 1;
		t->workerid = (unsigned) worker;
	}
	t->synchronous = 1;
	int ret = starpu_task_submit(t);
	if (ret && ret != -ENOENT && ret != -ENOMEM)
		starpu_task_destroy(t);	/* refused at submission: never run, still ours */
	return ret;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "missing";
	if (!strcmp(mode, "noslaves"))
	{
		ms_start("test_ms_errors", 1, 0);
		CHECK_EQ(starpu_mpi_ms_worker_get_count(), 0);
		char v[8] = { 0 };
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, sizeof(v), 1);
		CHECK_EQ(run_on(&inc_cl, h, -1), 0);
		starpu_data_unregister(h);
		CHECK_EQ(v[7], 1);
		starpu_shutdown();
		return 0;
	}
	ms_start("test_ms_errors", 1, 2);
	int slave = ms_slave_worker(0, 0);
	if (!strcmp(mode, "missing") || !strcmp(mode, "alloc"))
	{
		int missing = !strcmp(mode, "missing");
		/* alloc: 4 MiB, over the 1 MiB the slaves may allocate here. */
		size_t n = missing ? 64 : 4u << 20;
		char *v = calloc(n, 1);
		CHECK(v);
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, (uint32_t) n, 1);
		/* Submitted fine, fails on the slave: the data is untouched,
		 * and the waiter gets the task's error (core/failures.c). */
		CHECK_EQ(run_on(missing ? &missing_cl : &inc_cl, h, slave), missing ? -ENOENT : -ENOMEM);
		CHECK_EQ(vela_task_failed_count(), 1);
		CHECK_EQ(starpu_data_acquire(h, STARPU_R), 0);
		CHECK_EQ(v[0], 0);
		starpu_data_release(h);
		starpu_data_unregister(h);
		free(v);
		/* The slave still works. */
		char w[16] = { 0 };
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) w, sizeof(w), 1);
		CHECK_EQ(run_on(&inc_cl, h, slave), 0);
		CHECK_EQ(run_on(&inc_cl, h, ms_slave_worker(1, 0)), 0);
		starpu_data_unregister(h);
		CHECK_EQ(w[15], 2);
		starpu_shutdown();
		fprintf(stderr, "[test_ms_errors] %s: reported, and the run went on\n", mode);
		return 0;
	}
	if (!strcmp(mode, "nonames"))
	{
		char v[32] = { 0 };
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, sizeof(v), 1);
		for (int i = 0; i < 20; i++)
		{
			struct starpu_task *t = starpu_task_create();
			t->cl = &nonames_cl;
			t->handles[0] = h;
			CHECK_EQ(starpu_task_submit(t), 0);
		}
		/* Not even when asked for: no worker of a slave can run it. */
		CHECK_EQ(run_on(&nonames_cl, h, slave), -ENODEV);
		CHECK_EQ(starpu_task_wait_for_all(), 0);
		starpu_data_unregister(h);
		CHECK_EQ(v[0], 20);
		for (unsigned w = 0; w < starpu_worker_get_count(); w++)
			if (starpu_worker_get_type((int) w) == STARPU_MPI_MS_WORKER)
				CHECK_EQ(nonames_cl.per_worker_stats[w], 0);
		starpu_shutdown();
		fprintf(stderr, "[test_ms_errors] nonames: every task ran on the master\n");
		return 0;
	}
	/* die, exit, kill: the slave goes down in the kernel. */
	struct starpu_task *t = starpu_task_create();
	t->cl = &crash_cl;
	t->cl_arg = (void *) mode;
	t->cl_arg_size = strlen(mode) + 1;
	t->execute_on_a_specific_worker = 1;
	t->workerid = (unsigned) slave;
	t->synchronous = 1;
	int ret = starpu_task_submit(t);
	/* Not reached when the job ends as it should. */
	fprintf(stderr, "[test_ms_errors] %s: the master went on after its slave died (%d)\n", mode, ret);
	starpu_shutdown();
	return 1;
}
