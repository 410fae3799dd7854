/* opencl_api_common.h — what the starpu_opencl.h tests (test_opencl_api.c,
 * test_opencl_programs.c) share: the run's OpenCL device, capturing the
 * one-line message of a call, the kernel source both build, and running
 * that kernel on the device from the calling thread. */
#ifndef VELA_TESTS_OPENCL_API_COMMON_H
#define VELA_TESTS_OPENCL_API_COMMON_H

#include "vtest.h"

#include <starpu.h>
#include <starpu_opencl.h>

#include <string.h>

/* The run's OpenCL device (set up by the suite). */
static int devid = -1;
static unsigned node;

static const char *msg;
#define CAPTURE(stmt)                                \
	do                                           \
	{                                            \
		vtest_capture_stderr_begin();        \
		stmt;                                \
		msg = vtest_capture_stderr_end();    \
	} while (0)

static inline int has(const char *s, const char *what)
{
	return s && strstr(s, what) != NULL;
}

/* One line: the message is not empty and ends at its only newline. */
static inline int one_line(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && strchr(s, '\n') == s + n - 1;
}

/* The kernel: add adds a + ADD_VALUE (a build option, 0 by default) to
 * each element. */
static const char *add_src =
	"#ifndef ADD_VALUE\n#define ADD_VALUE 0\n#endif\n"
	"__kernel void add(__global int *v, unsigned n, int a)\n"
	"{ size_t i = get_global_id(0); if (i < n) v[i] += a + ADD_VALUE; }\n"
	"__kernel void other(__global int *v) { v[0] = 1; }\n";

#define NV 1000

/* Runs add(v, NV, a) of prog on the run's device from this thread, with
 * the buffer sent and read back through the copy helpers; returns how many
 * elements are not pattern + expect (-1 if a step failed). */
static inline int run_add(struct starpu_opencl_program *prog, int a, int expect)
{
	int host[NV];
	for (int i = 0; i < NV; i++)
		host[i] = i * 3;
	cl_mem buf = NULL;
	cl_kernel k = NULL;
	cl_command_queue q = NULL;
	int ret = -1, bad = -1;
	cl_int err;
	if (starpu_opencl_allocate_memory(devid, &buf, sizeof(host), CL_MEM_READ_WRITE) != CL_SUCCESS)
		return -1;
	if (starpu_opencl_copy_ram_to_opencl(host, STARPU_MAIN_RAM, buf, node, sizeof(host), 0, NULL, &ret) != CL_SUCCESS || ret)
		goto out;
	if (starpu_opencl_load_kernel(&k, &q, prog, "add", devid) != CL_SUCCESS)
		goto out;
	cl_uint n = NV;
	if (starpu_opencl_set_kernel_args(&err, &k, sizeof(buf), &buf, sizeof(n), &n, sizeof(a), &a, 0) != 3)
		goto out;
	size_t global = NV;
	if (clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) != CL_SUCCESS || clFinish(q) != CL_SUCCESS)
		goto out;
	memset(host, 0xEE, sizeof(host));
	if (starpu_opencl_copy_opencl_to_ram(buf, node, host, STARPU_MAIN_RAM, sizeof(host), 0, NULL, &ret) != CL_SUCCESS || ret)
		goto out;
	bad = 0;
	for (int i = 0; i < NV; i++)
		bad += host[i] != i * 3 + expect;
out:
	if (k)
		starpu_opencl_release_kernel(k);
	clReleaseMemObject(buf);
	return bad;
}

/* A suite's start: the runtime with one OpenCL worker and one CPU worker,
 * and the OpenCL worker's device and memory node. */
static inline int opencl_api_start(void)
{
	if (vtest_start_opencl(1, 1))
		return -1;
	int w = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0);
	devid = starpu_worker_get_devid(w);
	node = starpu_worker_get_memory_node((unsigned) w);
	return 0;
}

#endif
