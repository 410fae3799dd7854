/*
 * vector_scale.c — multiply every element of a float vector by a factor.
 *
 * Shows: registering application memory as a vector handle, the low-level
 * task API (starpu_task_create, handles[], a raw cl_arg, starpu_task_submit,
 * starpu_task_wait), reading the vector interface inside a codelet with the
 * STARPU_VECTOR_GET_* accessors, and starpu_data_acquire/release to look at
 * the data from the application while it is still registered.
 *
 * With an OpenCL worker in the run (for a CPU device such as PoCL's, set
 * STARPU_OPENCL_ON_CPUS=1), the task runs on it by default: the codelet's
 * OpenCL implementation builds its kernel from a string once per run
 * (starpu_opencl_load_opencl_from_string), reads the vector's cl_mem and
 * byte offset with STARPU_VECTOR_GET_DEV_HANDLE/_OFFSET, and queues the
 * kernel; the runtime copies the vector to the device before and back when
 * the application acquires it. -w cpu or -w opencl chooses the kind of
 * worker, -w any lets the scheduler choose.
 *
 * Every element is checked against the same float multiplication done on the
 * host, so the comparison is exact: OpenCL rounds a single multiplication
 * correctly, as the host does (the program is built without
 * -cl-fast-relaxed-math or -cl-mad-enable, which would allow otherwise).
 *
 * Usage: vector_scale [-n NELEMS] [-f FACTOR] [-w opencl|cpu|any]
 * Exit: 0 success, 1 mismatch or error, 77 no worker of the kind asked.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>

/* The worker that ran the task, for the report (set by the task). */
static int ran_on = -1;

static void scale_cpu(void *buffers[], void *cl_arg)
{
	/* With the low-level API cl_arg is exactly the pointer we stored. */
	const float factor = *(const float *)cl_arg;
	float *values = (float *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const uint32_t count = STARPU_VECTOR_GET_NX(buffers[0]);

	for (uint32_t i = 0; i < count; i++)
		values[i] *= factor;
	ran_on = starpu_worker_get_id();
}

#ifdef STARPU_USE_OPENCL
static const char *scale_kernel_source =
	"__kernel void vector_scale(__global float *v, unsigned offset, unsigned n, float factor)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		v[offset + i] *= factor;\n"
	"}\n";

/* Built for every OpenCL device after starpu_init, released before shutdown. */
static struct starpu_opencl_program scale_program;

static void scale_opencl(void *buffers[], void *cl_arg)
{
	const float factor = *(const float *)cl_arg;
	cl_mem values = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]);
	/* The kernel indexes floats; the interface gives the offset in bytes. */
	cl_uint offset = (cl_uint)(STARPU_VECTOR_GET_OFFSET(buffers[0]) / sizeof(float));
	cl_uint count = STARPU_VECTOR_GET_NX(buffers[0]);
	cl_kernel kernel;
	cl_command_queue queue;
	int devid = starpu_worker_get_devid(starpu_worker_get_id_check());

	cl_int err = starpu_opencl_load_kernel(&kernel, &queue, &scale_program, "vector_scale", devid);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	if (starpu_opencl_set_kernel_args(&err, &kernel, sizeof(values), &values, sizeof(offset), &offset,
					  sizeof(count), &count, sizeof(factor), &factor, 0) != 4)
		STARPU_OPENCL_REPORT_ERROR(err);
	size_t global = count;
	err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	/* Not flagged STARPU_OPENCL_ASYNC: the task is done when the kernel is. */
	err = clFinish(queue);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	starpu_opencl_release_kernel(kernel);
	ran_on = starpu_worker_get_id();
}
#endif

/* .where is set in main from -w and the workers present. */
static struct starpu_codelet scale_cl = {
	.cpu_funcs = { scale_cpu },
	.cpu_funcs_name = { "scale_cpu" },
#ifdef STARPU_USE_OPENCL
	.opencl_funcs = { scale_opencl },
#endif
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
	fprintf(stderr, "usage: %s [-n NELEMS] [-f FACTOR] [-w opencl|cpu|any]\n", prog);
}

int main(int argc, char **argv)
{
	long count = 1L << 20;
	float factor = 3.14f;
	const char *where = NULL;	/* NULL: OpenCL if there is a worker, else CPU */

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			count = atol(argv[++i]);
			if (count < 1 || count > (long)UINT32_MAX) {
				fprintf(stderr, "vector_scale: -n out of range: '%s'\n", argv[i]);
				return 1;
			}
		} else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc) {
			factor = strtof(argv[++i], NULL);
		} else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc) {
			where = argv[++i];
			if (strcmp(where, "opencl") != 0 && strcmp(where, "cpu") != 0 && strcmp(where, "any") != 0) {
				fprintf(stderr, "vector_scale: -w must be opencl, cpu or any, not '%s'\n", where);
				return 1;
			}
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
	unsigned nopencl = starpu_opencl_worker_get_count();
	if (!where)
		where = nopencl > 0 ? "opencl" : "cpu";
	if (strcmp(where, "opencl") == 0 && nopencl == 0) {
		fprintf(stderr, "vector_scale: skipped, no OpenCL worker (for a CPU OpenCL device such as "
			"PoCL, set STARPU_OPENCL_ON_CPUS=1)\n");
		starpu_shutdown();
		return 77;
	}
	if (strcmp(where, "cpu") == 0 && starpu_cpu_worker_get_count() == 0) {
		fprintf(stderr, "vector_scale: skipped, no CPU worker available\n");
		starpu_shutdown();
		return 77;
	}
	scale_cl.where = strcmp(where, "cpu") == 0 ? STARPU_CPU
		       : strcmp(where, "opencl") == 0 ? STARPU_OPENCL : STARPU_CPU | STARPU_OPENCL;
#ifdef STARPU_USE_OPENCL
	if (nopencl > 0) {
		ret = starpu_opencl_load_opencl_from_string(scale_kernel_source, &scale_program, NULL);
		if (ret != CL_SUCCESS) {
			fprintf(stderr, "vector_scale: building the OpenCL kernel failed (%d)\n", ret);
			starpu_shutdown();
			return 1;
		}
	}
#endif

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
#ifdef STARPU_USE_OPENCL
		if (nopencl > 0)
			starpu_opencl_unload_opencl(&scale_program);
#endif
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
	char worker[128] = "an unknown worker";
	if (ran_on >= 0)
		starpu_worker_get_name(ran_on, worker, sizeof(worker));
#ifdef STARPU_USE_OPENCL
	if (nopencl > 0)
		starpu_opencl_unload_opencl(&scale_program);
#endif
	starpu_shutdown();

	if (mismatches) {
		fprintf(stderr, "vector_scale: FAILED, %ld of %ld elements wrong\n", mismatches, count);
		return 1;
	}
	printf("vector_scale: ok, %ld floats scaled by %g in %.3f ms on %s, results checked\n",
	       count, (double)factor, elapsed_us / 1000.0, worker);
	return 0;
}
