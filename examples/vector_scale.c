/*
 * vector_scale.c — multiply every element of a float vector by a factor.
 *
 * Shows: registering application memory as a vector handle, the low-level
 * task API (starpu_task_create, handles[], a raw cl_arg, starpu_task_submit,
 * starpu_task_wait), reading the vector interface inside a codelet with the
 * STARPU_VECTOR_GET_* accessors, and starpu_data_acquire/release to look at
 * the data from the application while it is still registered.
 *
 * Every element is checked against the same float multiplication done on the
 * host, so the comparison is exact.
 *
 * Usage: vector_scale [-n NELEMS] [-f FACTOR]
 * Exit: 0 success, 1 mismatch or error, 77 no CPU worker available.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>

static void scale_cpu(void *buffers[], void *cl_arg)
{
	/* With the low-level API cl_arg is exactly the pointer we stored. */
	const float factor = *(const float *)cl_arg;
	float *values = (float *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const uint32_t count = STARPU_VECTOR_GET_NX(buffers[0]);

	for (uint32_t i = 0; i < count; i++)
		values[i] *= factor;
}

static struct starpu_codelet scale_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { scale_cpu },
	.cpu_funcs_name = { "scale_cpu" },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "vector_scale",
};

/* Exactly representable up to 2^24, so the expected value is unambiguous. */
static float initial_value(uint32_t i)
{
	return (float)(i % 1000003u);
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-n NELEMS] [-f FACTOR]\n", prog);
}

int main(int argc, char **argv)
{
	long count = 1L << 20;
	float factor = 3.14f;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			count = atol(argv[++i]);
			if (count < 1 || count > (long)UINT32_MAX) {
				fprintf(stderr, "vector_scale: -n out of range: '%s'\n", argv[i]);
				return 1;
			}
		} else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc) {
			factor = strtof(argv[++i], NULL);
		} else {
			usage(argv[0]);
			return 1;
		}
	}

	int ret = starpu_init(NULL);
	if (ret == -ENODEV) {
		fprintf(stderr, "vector_scale: skipped, starpu_init found no worker (-ENODEV)\n");
		return 77;
	}
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_init");
	if (starpu_cpu_worker_get_count() == 0) {
		fprintf(stderr, "vector_scale: skipped, no CPU worker available\n");
		starpu_shutdown();
		return 77;
	}

	/* starpu_malloc lets the runtime pin the memory if a device wants it. */
	float *values = NULL;
	ret = starpu_malloc((void **)&values, (size_t)count * sizeof(*values));
	if (ret != 0 || !values) {
		fprintf(stderr, "vector_scale: starpu_malloc of %ld floats failed (%d)\n", count, ret);
		starpu_shutdown();
		return 1;
	}
	for (uint32_t i = 0; i < (uint32_t)count; i++)
		values[i] = initial_value(i);

	starpu_data_handle_t handle;
	starpu_vector_data_register(&handle, STARPU_MAIN_RAM, (uintptr_t)values,
				    (uint32_t)count, sizeof(*values));

	struct starpu_task *task = starpu_task_create();
	task->cl = &scale_cl;
	task->handles[0] = handle;
	/* Not copied by the runtime: factor must outlive the task. */
	task->cl_arg = &factor;
	task->cl_arg_size = sizeof(factor);
	/* starpu_task_wait needs a task that is not detached; it is freed by the wait. */
	task->detach = 0;

	double start = starpu_timing_now();
	ret = starpu_task_submit(task);
	if (ret == -ENODEV) {
		fprintf(stderr, "vector_scale: skipped, no worker can run the codelet\n");
		starpu_data_unregister(handle);
		starpu_free(values);
		starpu_shutdown();
		return 77;
	}
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_submit");
	ret = starpu_task_wait(task);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_wait");
	double elapsed_us = starpu_timing_now() - start;

	/* Acquire gives the application a coherent view of the still-registered data. */
	ret = starpu_data_acquire(handle, STARPU_R);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_data_acquire");
	long mismatches = 0;
	for (uint32_t i = 0; i < (uint32_t)count; i++) {
		float expected = initial_value(i) * factor;
		if (values[i] != expected) {
			if (mismatches < 5)
				fprintf(stderr, "vector_scale: element %u is %g, expected %g\n",
					i, (double)values[i], (double)expected);
			mismatches++;
		}
	}
	starpu_data_release(handle);

	starpu_data_unregister(handle);
	starpu_free(values);
	starpu_shutdown();

	if (mismatches) {
		fprintf(stderr, "vector_scale: FAILED, %ld of %ld elements wrong\n", mismatches, count);
		return 1;
	}
	printf("vector_scale: ok, %ld floats scaled by %g in %.3f ms\n",
	       count, (double)factor, elapsed_us / 1000.0);
	return 0;
}
