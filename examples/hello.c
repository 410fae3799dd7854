/*
 * hello.c — the smallest useful StarPU program.
 *
 * Shows: starting and stopping the runtime, a codelet with no data buffers,
 * passing arguments by value with starpu_task_insert(STARPU_VALUE, ...) and
 * reading them back with starpu_codelet_unpack_args(), a completion callback
 * (STARPU_CALLBACK_WITH_ARG, whose argument the runtime free()s with the
 * task), and waiting for every submitted task.
 *
 * It submits two tasks per worker so that, with an eager scheduler, most
 * workers get to say hello. Each task and each callback bump a counter; the
 * program exits 0 only if both counters match the number of tasks submitted.
 *
 * Usage: hello [-t NTASKS]
 * Exit: 0 success, 1 wrong count or error, 77 no CPU worker available.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>

/* Codelets run on worker threads concurrently, hence atomics. */
static atomic_int executed;
static atomic_int callbacks;

static void hello_cpu(void *buffers[], void *cl_arg)
{
	(void)buffers; /* this codelet touches no data */
	int task_index;
	double payload;

	/* Unpack in the same order and with the same types as packed. */
	starpu_codelet_unpack_args(cl_arg, &task_index, &payload);
	printf("hello from task %2d on worker %d (payload %.2f)\n",
	       task_index, starpu_worker_get_id(), payload);
	atomic_fetch_add(&executed, 1);
}

static struct starpu_codelet hello_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { hello_cpu },
	.cpu_funcs_name = { "hello_cpu" },
	.nbuffers = 0,
	.name = "hello",
};

/*
 * Runs on the worker after the task's function returned. The argument was
 * handed over with STARPU_CALLBACK_WITH_ARG, which gives its ownership to
 * the runtime: it is free()d with the task, so we must not free it here.
 */
static void hello_done(void *arg)
{
	const int *task_index = arg;
	if (*task_index >= 0)
		atomic_fetch_add(&callbacks, 1);
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-t NTASKS]\n", prog);
}

int main(int argc, char **argv)
{
	int ntasks = -1; /* -1: two per worker, decided after init */

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
			ntasks = atoi(argv[++i]);
			if (ntasks < 1) {
				fprintf(stderr, "hello: -t wants a positive number, got '%s'\n", argv[i]);
				return 1;
			}
		} else {
			usage(argv[0]);
			return 1;
		}
	}

	int ret = starpu_init(NULL);
	if (ret == -ENODEV) {
		fprintf(stderr, "hello: skipped, starpu_init found no worker (-ENODEV)\n");
		return 77;
	}
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_init");

	if (starpu_cpu_worker_get_count() == 0) {
		fprintf(stderr, "hello: skipped, no CPU worker available\n");
		starpu_shutdown();
		return 77;
	}
	if (ntasks < 0)
		ntasks = 2 * (int)starpu_worker_get_count();

	printf("hello: %u worker(s), %u of them CPU, submitting %d tasks\n",
	       starpu_worker_get_count(), starpu_cpu_worker_get_count(), ntasks);

	for (int i = 0; i < ntasks; i++) {
		double payload = 1.5 * i;
		int *callback_arg = malloc(sizeof(*callback_arg)); /* runtime frees it */
		if (!callback_arg) {
			fprintf(stderr, "hello: out of memory\n");
			starpu_task_wait_for_all();
			starpu_shutdown();
			return 1;
		}
		*callback_arg = i;
		ret = starpu_task_insert(&hello_cl,
					 STARPU_VALUE, &i, sizeof(i),
					 STARPU_VALUE, &payload, sizeof(payload),
					 STARPU_CALLBACK_WITH_ARG, hello_done, callback_arg,
					 STARPU_NAME, "hello",
					 0);
		if (ret == -ENODEV) {
			fprintf(stderr, "hello: skipped, no worker can run the codelet\n");
			starpu_shutdown();
			return 77;
		}
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert");
	}

	/* Callbacks have run too once this returns. */
	starpu_task_wait_for_all();
	starpu_shutdown();

	int ran = atomic_load(&executed);
	int called = atomic_load(&callbacks);
	if (ran != ntasks || called != ntasks) {
		fprintf(stderr, "hello: FAILED, %d tasks submitted, %d executed, %d callbacks\n",
			ntasks, ran, called);
		return 1;
	}
	printf("hello: ok, %d tasks executed, %d callbacks\n", ran, called);
	return 0;
}
