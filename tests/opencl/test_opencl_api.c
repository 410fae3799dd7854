/* test_opencl_api.c — starpu_opencl.h on a real OpenCL device (PoCL's CPU
 * device in CI): contexts and queues by device id and from a codelet,
 * kernel arguments, kernels, statistics, error reporting, and the copy
 * helpers with and without events, at offsets. (Programs — sources,
 * builds, binaries — are test_opencl_programs.c's.)
 *
 * Every result is checked: kernels add a known value to a known pattern
 * and the whole buffer is compared; copies land at an offset inside a
 * buffer filled with another pattern, and both the copied range and what
 * surrounds it are compared byte for byte. Invalid arguments must return
 * the documented code and print one line naming the call and the argument.
 */
#define _GNU_SOURCE
#include "opencl_api_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Devices. */

static void test_get_by_devid(void)
{
	cl_context ctx = NULL;
	cl_device_id dev = NULL;
	cl_command_queue q = NULL;
	starpu_opencl_get_context(devid, &ctx);
	starpu_opencl_get_device(devid, &dev);
	starpu_opencl_get_queue(devid, &q);
	CU_ASSERT_FATAL(ctx && dev && q);
	/* The queue belongs to that context and device. */
	cl_context qctx = NULL;
	cl_device_id qdev = NULL;
	CU_ASSERT_EQUAL(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof(qctx), &qctx, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(qdev), &qdev, NULL), CL_SUCCESS);
	CU_ASSERT(qctx == ctx);
	CU_ASSERT(qdev == dev);
	/* Its profiling is on: starpu_opencl_collect_stats reads it. */
	cl_command_queue_properties props = 0;
	CU_ASSERT_EQUAL(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(props), &props, NULL), CL_SUCCESS);
	CU_ASSERT(props & CL_QUEUE_PROFILING_ENABLE);
	cl_device_type type = 0;
	CU_ASSERT_EQUAL(clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
	CU_ASSERT(type & CL_DEVICE_TYPE_CPU);
}

static void test_get_bad_devid(void)
{
	int bad[] = { -1, STARPU_MAXOPENCLDEVS, 1000 };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		char val[16];
		snprintf(val, sizeof(val), "%d", bad[i]);
		cl_context ctx = (cl_context) 1;
		cl_device_id dev = (cl_device_id) 1;
		cl_command_queue q = (cl_command_queue) 1;
		CAPTURE(starpu_opencl_get_context(bad[i], &ctx));
		CU_ASSERT(ctx == NULL);
		CU_ASSERT(has(msg, "starpu_opencl_get_context") && has(msg, "devid") && has(msg, val) && one_line(msg));
		CAPTURE(starpu_opencl_get_device(bad[i], &dev));
		CU_ASSERT(dev == NULL);
		CU_ASSERT(has(msg, "starpu_opencl_get_device") && has(msg, "devid") && has(msg, val) && one_line(msg));
		CAPTURE(starpu_opencl_get_queue(bad[i], &q));
		CU_ASSERT(q == NULL);
		CU_ASSERT(has(msg, "starpu_opencl_get_queue") && has(msg, "devid") && has(msg, val) && one_line(msg));
	}
}

static void test_current_from_main(void)
{
	cl_context ctx = (cl_context) 1;
	cl_command_queue q = (cl_command_queue) 1;
	CAPTURE(starpu_opencl_get_current_context(&ctx));
	CU_ASSERT(ctx == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_get_current_context") && one_line(msg));
	CAPTURE(starpu_opencl_get_current_queue(&q));
	CU_ASSERT(q == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_get_current_queue") && one_line(msg));
}

/* A codelet: its worker's context, queue and device id, and a kernel run
 * on the current queue whose event goes to starpu_opencl_collect_stats. */
static struct starpu_opencl_program add_prog;
static struct
{
	cl_context ctx;
	cl_command_queue q;
	int devid;
	cl_int kernel_err, wait_err, stats;
} seen;

static void current_ocl(void *buffers[], void *arg)
{
	(void) arg;
	seen.devid = starpu_worker_get_devid(starpu_worker_get_id());
	starpu_opencl_get_current_context(&seen.ctx);
	starpu_opencl_get_current_queue(&seen.q);
	cl_mem v = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]);
	cl_uint n = STARPU_VECTOR_GET_NX(buffers[0]);
	int a = 5;
	cl_kernel k;
	seen.kernel_err = starpu_opencl_load_kernel(&k, NULL, &add_prog, "add", seen.devid);
	if (seen.kernel_err != CL_SUCCESS)
		return;
	cl_event ev = NULL;
	size_t global = n;
	if (starpu_opencl_set_kernel_args(&seen.kernel_err, &k, sizeof(v), &v, sizeof(n), &n, sizeof(a), &a, 0) == 3)
		seen.kernel_err = clEnqueueNDRangeKernel(seen.q, k, 1, NULL, &global, NULL, 0, NULL, &ev);
	if (seen.kernel_err == CL_SUCCESS)
	{
		seen.wait_err = clWaitForEvents(1, &ev);
		seen.stats = starpu_opencl_collect_stats(ev);
		clReleaseEvent(ev);
	}
	starpu_opencl_release_kernel(k);
}

static struct starpu_codelet current_cl = {
	.opencl_funcs = { current_ocl },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "current",
};

static void test_current_in_codelet(void)
{
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &add_prog, NULL), CL_SUCCESS);
	memset(&seen, 0, sizeof(seen));
	seen.kernel_err = seen.wait_err = seen.stats = -12345;
	int v[NV];
	for (int i = 0; i < NV; i++)
		v[i] = -i;
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, NV, sizeof(int));
	CU_ASSERT_EQUAL(starpu_task_insert(&current_cl, STARPU_RW, h, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_data_unregister(h);
	cl_context ctx;
	cl_command_queue q;
	starpu_opencl_get_context(devid, &ctx);
	starpu_opencl_get_queue(devid, &q);
	CU_ASSERT_EQUAL(seen.devid, devid);
	CU_ASSERT(seen.ctx != NULL && seen.ctx == ctx);
	CU_ASSERT(seen.q != NULL && seen.q == q);
	CU_ASSERT_EQUAL(seen.kernel_err, CL_SUCCESS);
	CU_ASSERT_EQUAL(seen.wait_err, CL_SUCCESS);
	CU_ASSERT_EQUAL(seen.stats, CL_SUCCESS);
	int bad = 0;
	for (int i = 0; i < NV; i++)
		bad += v[i] != -i + 5;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(starpu_opencl_unload_opencl(&add_prog), CL_SUCCESS);
}

/* ------------------------------------------------------------------ */
/* Kernel arguments. */

static void test_set_kernel_args(void)
{
	struct starpu_opencl_program p;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, NULL), CL_SUCCESS);
	cl_kernel k;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_kernel(&k, NULL, &p, "add", devid), CL_SUCCESS);
	cl_mem buf;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_allocate_memory(devid, &buf, 64, CL_MEM_READ_WRITE), CL_SUCCESS);
	cl_uint n = 16;
	int a = 1;
	cl_int err = -12345;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, &k, sizeof(buf), &buf, sizeof(n), &n, sizeof(a), &a, 0), 3);
	CU_ASSERT_EQUAL(err, CL_SUCCESS);
	/* None. */
	err = -12345;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, &k, 0), 0);
	CU_ASSERT_EQUAL(err, CL_SUCCESS);
	/* The second argument has the wrong size: index 1 fails. */
	double d = 1;
	err = CL_SUCCESS;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, &k, sizeof(buf), &buf, sizeof(d), &d, sizeof(a), &a, 0), 1);
	CU_ASSERT_EQUAL(err, CL_INVALID_ARG_SIZE);
	/* One argument too many: index 3 fails. */
	err = CL_SUCCESS;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, &k, sizeof(buf), &buf, sizeof(n), &n, sizeof(a), &a, sizeof(a), &a, 0), 3);
	CU_ASSERT_EQUAL(err, CL_INVALID_ARG_INDEX);
	/* No kernel. */
	err = CL_SUCCESS;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, NULL, sizeof(a), &a, 0), 0);
	CU_ASSERT_EQUAL(err, CL_INVALID_KERNEL);
	clReleaseMemObject(buf);
	starpu_opencl_release_kernel(k);
	starpu_opencl_unload_opencl(&p);
	/* The arguments set are those the kernel runs with. */
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(run_add(&p, 11, 11), 0);
	starpu_opencl_unload_opencl(&p);
}

/* ------------------------------------------------------------------ */
/* Kernels. */

static void test_load_kernel(void)
{
	struct starpu_opencl_program p;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, NULL), CL_SUCCESS);
	cl_kernel k = NULL;
	cl_command_queue q = NULL, want;
	starpu_opencl_get_queue(devid, &want);
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_kernel(&k, &q, &p, "other", devid), CL_SUCCESS);
	CU_ASSERT(q == want);
	char name[32] = "";
	CU_ASSERT_EQUAL(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL), CL_SUCCESS);
	CU_ASSERT_STRING_EQUAL(name, "other");
	/* Released once: only our own reference is left. */
	clRetainKernel(k);
	CU_ASSERT_EQUAL(starpu_opencl_release_kernel(k), CL_SUCCESS);
	cl_uint refs = 0;
	CU_ASSERT_EQUAL(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(refs, 1);
	clReleaseKernel(k);
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_release_kernel(NULL), CL_INVALID_KERNEL));
	CU_ASSERT(has(msg, "starpu_opencl_release_kernel") && has(msg, "kernel") && one_line(msg));

	/* Unknown kernel name. */
	k = (cl_kernel) 1;
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, &p, "vela_no_kernel", devid), CL_INVALID_KERNEL_NAME));
	CU_ASSERT(k == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "vela_no_kernel") && one_line(msg));
	/* No program struct, no kernel pointer, no name. */
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, NULL, "add", devid), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "opencl_programs") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(NULL, &q, &p, "add", devid), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "kernel") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, &p, NULL, devid), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "kernel_name") && one_line(msg));
	/* A device that is not the run's. */
	k = (cl_kernel) 1;
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, &p, "add", STARPU_MAXOPENCLDEVS - 1), CL_INVALID_VALUE));
	CU_ASSERT(k == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "devid") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, &p, "add", -3), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "-3") && has(msg, "devid") && one_line(msg));
	starpu_opencl_unload_opencl(&p);
	/* A program never built for the device. */
	k = (cl_kernel) 1;
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, &p, "add", devid), CL_INVALID_PROGRAM));
	CU_ASSERT(k == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "add") && one_line(msg));
}

static void test_collect_stats(void)
{
	/* A finished kernel's event (from this thread; the codelet case is
	 * test_current_in_codelet's). */
	struct starpu_opencl_program p;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, NULL), CL_SUCCESS);
	cl_kernel k;
	cl_command_queue q;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_kernel(&k, &q, &p, "other", devid), CL_SUCCESS);
	cl_mem buf;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_allocate_memory(devid, &buf, sizeof(int), CL_MEM_READ_WRITE), CL_SUCCESS);
	cl_int err;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, &k, sizeof(buf), &buf, 0), 1);
	size_t one = 1;
	cl_event ev = NULL;
	CU_ASSERT_EQUAL_FATAL(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, &ev), CL_SUCCESS);
	CU_ASSERT_EQUAL(clWaitForEvents(1, &ev), CL_SUCCESS);
	CU_ASSERT_EQUAL(starpu_opencl_collect_stats(ev), CL_SUCCESS);
	int v = 0, ret = -1;
	CU_ASSERT_EQUAL(starpu_opencl_copy_opencl_to_ram(buf, node, &v, STARPU_MAIN_RAM, sizeof(v), 0, NULL, &ret), CL_SUCCESS);
	CU_ASSERT_EQUAL(v, 1);
	clReleaseEvent(ev);
	clReleaseMemObject(buf);
	starpu_opencl_release_kernel(k);
	starpu_opencl_unload_opencl(&p);
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_collect_stats(NULL), CL_INVALID_EVENT));
	CU_ASSERT(has(msg, "starpu_opencl_collect_stats") && has(msg, "event") && one_line(msg));
}

/* ------------------------------------------------------------------ */
/* Errors. */

static void test_error_string(void)
{
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_SUCCESS), "CL_SUCCESS");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_INVALID_VALUE), "CL_INVALID_VALUE");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_MEM_OBJECT_ALLOCATION_FAILURE), "CL_MEM_OBJECT_ALLOCATION_FAILURE");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_INVALID_KERNEL_NAME), "CL_INVALID_KERNEL_NAME");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_INVALID_ARG_SIZE), "CL_INVALID_ARG_SIZE");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(-9999), "unknown OpenCL error");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(7), "unknown OpenCL error");
}

static void test_display_error(void)
{
	CAPTURE(starpu_opencl_display_error("my_func", "my_file.c", 4242, "while testing", CL_INVALID_MEM_OBJECT));
	CU_ASSERT(has(msg, "my_func") && has(msg, "my_file.c") && has(msg, "4242"));
	CU_ASSERT(has(msg, "while testing") && has(msg, "CL_INVALID_MEM_OBJECT") && one_line(msg));
	int line = __LINE__ + 1;
	CAPTURE(STARPU_OPENCL_DISPLAY_ERROR(CL_OUT_OF_RESOURCES));
	char l[16];
	snprintf(l, sizeof(l), ":%d", line);
	CU_ASSERT(has(msg, "test_display_error") && has(msg, __FILE__) && has(msg, l));
	CU_ASSERT(has(msg, "CL_OUT_OF_RESOURCES") && !has(msg, "(null)") && one_line(msg));
}

/* ------------------------------------------------------------------ */
/* Memory and copies. */

static void test_allocate(void)
{
	cl_mem m = NULL;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_allocate_memory(devid, &m, 12345, CL_MEM_READ_ONLY), CL_SUCCESS);
	CU_ASSERT_FATAL(m != NULL);
	size_t size = 0;
	cl_context ctx = NULL, want;
	cl_mem_flags flags = 0;
	starpu_opencl_get_context(devid, &want);
	CU_ASSERT_EQUAL(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(size), &size, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof(ctx), &ctx, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof(flags), &flags, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(size, 12345);
	CU_ASSERT(ctx == want);
	CU_ASSERT(flags & CL_MEM_READ_ONLY);
	clReleaseMemObject(m);
	m = (cl_mem) 1;
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_allocate_memory(STARPU_MAXOPENCLDEVS - 1, &m, 16, CL_MEM_READ_WRITE), CL_INVALID_VALUE));
	CU_ASSERT(m == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_allocate_memory") && has(msg, "devid") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_allocate_memory(devid, NULL, 16, CL_MEM_READ_WRITE), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_allocate_memory") && has(msg, "addr") && one_line(msg));
	m = (cl_mem) 1;
	CU_ASSERT_EQUAL(starpu_opencl_allocate_memory(devid, &m, 0, CL_MEM_READ_WRITE), CL_INVALID_BUFFER_SIZE);
	CU_ASSERT(m == NULL);
}

#define NB 4096
static unsigned char pa[NB], pb[NB], out[NB], want[NB];

static void patterns(void)
{
	for (int i = 0; i < NB; i++)
	{
		pa[i] = (unsigned char) (i * 7 + 1);
		pb[i] = (unsigned char) (i * 13 + 5 + (i >> 8));
	}
}

/* A device buffer holding pa (synchronously, checked). */
static cl_mem device_pa(void)
{
	cl_mem m = NULL;
	int ret = -1;
	CU_ASSERT_EQUAL(starpu_opencl_allocate_memory(devid, &m, NB, CL_MEM_READ_WRITE), CL_SUCCESS);
	CU_ASSERT_EQUAL(starpu_opencl_copy_ram_to_opencl(pa, STARPU_MAIN_RAM, m, node, NB, 0, NULL, &ret), CL_SUCCESS);
	CU_ASSERT_EQUAL(ret, 0);
	return m;
}

/* The whole of a device buffer, read synchronously into out. */
static int read_all(cl_mem m)
{
	int ret = -1;
	memset(out, 0xEE, NB);
	return starpu_opencl_copy_opencl_to_ram(m, node, out, STARPU_MAIN_RAM, NB, 0, NULL, &ret) == CL_SUCCESS && ret == 0;
}

/* Waits for a queued copy: -EAGAIN and an event, which completes. */
static void wait_queued(cl_int err, int ret, cl_event ev)
{
	CU_ASSERT_EQUAL(err, CL_SUCCESS);
	CU_ASSERT_EQUAL(ret, -EAGAIN);
	CU_ASSERT_FATAL(ev != NULL);
	CU_ASSERT_EQUAL(clWaitForEvents(1, &ev), CL_SUCCESS);
	clReleaseEvent(ev);
}

static void test_copy_ram_opencl(void)
{
	patterns();
	for (int async = 0; async < 2; async++)
	{
		cl_mem m = device_pa();
		cl_event ev = NULL, *evp = async ? &ev : NULL;
		int ret = 12345;
		/* pb[0..1000) into the buffer at 1000. */
		cl_int err = starpu_opencl_copy_ram_to_opencl(pb, STARPU_MAIN_RAM, m, node, 1000, 1000, evp, &ret);
		if (async)
			wait_queued(err, ret, ev);
		else
			CU_ASSERT(err == CL_SUCCESS && ret == 0);
		memcpy(want, pa, NB);
		memcpy(want + 1000, pb, 1000);
		CU_ASSERT(read_all(m) && memcmp(out, want, NB) == 0);
		/* The buffer's bytes [1500, 2500) into RAM. */
		memset(out, 0xEE, NB);
		ev = NULL;
		ret = 12345;
		err = starpu_opencl_copy_opencl_to_ram(m, node, out, STARPU_MAIN_RAM, 1000, 1500, evp, &ret);
		if (async)
			wait_queued(err, ret, ev);
		else
			CU_ASSERT(err == CL_SUCCESS && ret == 0);
		CU_ASSERT(memcmp(out, want + 1500, 1000) == 0);
		CU_ASSERT(out[1000] == 0xEE);
		/* Nothing to copy: done at once, no event. */
		ev = (cl_event) 1;
		ret = 12345;
		CU_ASSERT_EQUAL(starpu_opencl_copy_ram_to_opencl(pb, STARPU_MAIN_RAM, m, node, 0, 0, evp ? &ev : NULL, &ret), CL_SUCCESS);
		CU_ASSERT_EQUAL(ret, 0);
		if (async)
			CU_ASSERT(ev == NULL);
		CU_ASSERT(read_all(m) && memcmp(out, want, NB) == 0);
		clReleaseMemObject(m);
	}
}

static void test_copy_opencl_opencl(void)
{
	patterns();
	for (int async = 0; async < 2; async++)
	{
		cl_mem a = device_pa(), b = NULL;
		int ret = 12345;
		CU_ASSERT_EQUAL_FATAL(starpu_opencl_allocate_memory(devid, &b, NB, CL_MEM_READ_WRITE), CL_SUCCESS);
		CU_ASSERT_EQUAL(starpu_opencl_copy_ram_to_opencl(pb, STARPU_MAIN_RAM, b, node, NB, 0, NULL, &ret), CL_SUCCESS);
		cl_event ev = NULL, *evp = async ? &ev : NULL;
		ret = 12345;
		/* a[100..1100) to b[3000..4000). */
		cl_int err = starpu_opencl_copy_opencl_to_opencl(a, node, 100, b, node, 3000, 1000, evp, &ret);
		if (async)
			wait_queued(err, ret, ev);
		else
			CU_ASSERT(err == CL_SUCCESS && ret == 0);
		memcpy(want, pb, NB);
		memcpy(want + 3000, pa + 100, 1000);
		CU_ASSERT(read_all(b) && memcmp(out, want, NB) == 0);
		/* The source is untouched. */
		CU_ASSERT(read_all(a) && memcmp(out, pa, NB) == 0);
		clReleaseMemObject(a);
		clReleaseMemObject(b);
	}
}

/* starpu_opencl_copy_async_sync by node kinds, offsets on both sides. */
static void test_copy_async_sync(void)
{
	patterns();
	for (int async = 0; async < 2; async++)
	{
		cl_mem a = device_pa(), b = device_pa();
		cl_event ev = NULL, *evp = async ? &ev : NULL;
		int want_ret = async ? -EAGAIN : 0;
		/* RAM pb[10..510) to a[2000..2500). */
		cl_int r = starpu_opencl_copy_async_sync((uintptr_t) pb, 10, STARPU_MAIN_RAM, (uintptr_t) a, 2000, node, 500, evp);
		CU_ASSERT_EQUAL(r, want_ret);
		if (async)
			wait_queued(CL_SUCCESS, r, ev);
		memcpy(want, pa, NB);
		memcpy(want + 2000, pb + 10, 500);
		CU_ASSERT(read_all(a) && memcmp(out, want, NB) == 0);
		/* a[1990..2510) to b[0..520). */
		ev = NULL;
		r = starpu_opencl_copy_async_sync((uintptr_t) a, 1990, node, (uintptr_t) b, 0, node, 520, evp);
		CU_ASSERT_EQUAL(r, want_ret);
		if (async)
			wait_queued(CL_SUCCESS, r, ev);
		unsigned char wb[NB];
		memcpy(wb, pa, NB);
		memcpy(wb, want + 1990, 520);
		CU_ASSERT(read_all(b) && memcmp(out, wb, NB) == 0);
		/* b[5..105) to RAM at 7 (the RAM side's offset counts too). */
		unsigned char ram[200];
		memset(ram, 0x5A, sizeof(ram));
		ev = NULL;
		r = starpu_opencl_copy_async_sync((uintptr_t) b, 5, node, (uintptr_t) ram, 7, STARPU_MAIN_RAM, 100, evp);
		CU_ASSERT_EQUAL(r, want_ret);
		if (async)
			wait_queued(CL_SUCCESS, r, ev);
		CU_ASSERT(memcmp(ram + 7, wb + 5, 100) == 0);
		CU_ASSERT(ram[6] == 0x5A && ram[107] == 0x5A);
		clReleaseMemObject(a);
		clReleaseMemObject(b);
	}
}

/* Copies between nodes of the wrong kinds fail cleanly (nothing is taken
 * for a cl_mem that is not one). */
static void test_copy_bad_nodes(void)
{
	cl_mem m = device_pa();
	unsigned char ram[64];
	int ret = 0;
	cl_event ev = (cl_event) 1;
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_copy_ram_to_opencl(ram, node, m, node, 64, 0, &ev, &ret), CL_INVALID_VALUE));
	CU_ASSERT(ev == NULL && ret == -EINVAL);
	CU_ASSERT(has(msg, "starpu_opencl_copy_ram_to_opencl") && has(msg, "src_node") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_copy_ram_to_opencl(ram, STARPU_MAIN_RAM, m, STARPU_MAIN_RAM, 64, 0, NULL, &ret), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_copy_ram_to_opencl") && has(msg, "dst_node") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_copy_opencl_to_ram(m, node, ram, node, 64, 0, NULL, &ret), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_copy_opencl_to_ram") && has(msg, "dst_node") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_copy_opencl_to_opencl(m, STARPU_MAIN_RAM, 0, m, node, 0, 64, NULL, &ret), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_copy_opencl_to_opencl") && has(msg, "src_node") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_copy_async_sync((uintptr_t) ram, 0, STARPU_MAIN_RAM, (uintptr_t) ram, 0, STARPU_MAIN_RAM, 64, NULL), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_copy_async_sync") && one_line(msg));
	/* Past the end of the buffer: OpenCL's own error, nothing written. */
	memset(ram, 0x11, sizeof(ram));
	cl_int err;
	CAPTURE(err = starpu_opencl_copy_opencl_to_ram(m, node, ram, STARPU_MAIN_RAM, 64, NB - 32, NULL, &ret));
	CU_ASSERT_EQUAL(err, CL_INVALID_VALUE);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(ram[0] == 0x11 && ram[63] == 0x11);
	clReleaseMemObject(m);
}

/* ------------------------------------------------------------------ */

static int stop(void)
{
	vtest_env_restore();
	return vtest_stop();
}

static const struct vtest_case device_cases[] = {
	{ "get_by_devid", test_get_by_devid },
	{ "get_bad_devid", test_get_bad_devid },
	{ "current_from_main", test_current_from_main },
	{ "current_in_codelet", test_current_in_codelet },
	{ "set_kernel_args", test_set_kernel_args },
	VTEST_END
};

static const struct vtest_case kernel_cases[] = {
	{ "load_kernel", test_load_kernel },
	{ "collect_stats", test_collect_stats },
	{ "error_string", test_error_string },
	{ "display_error", test_display_error },
	VTEST_END
};

static const struct vtest_case memory_cases[] = {
	{ "allocate", test_allocate },
	{ "copy_ram_opencl", test_copy_ram_opencl },
	{ "copy_opencl_opencl", test_copy_opencl_opencl },
	{ "copy_async_sync", test_copy_async_sync },
	{ "copy_bad_nodes", test_copy_bad_nodes },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "opencl_devices", opencl_api_start, stop, device_cases },
	{ "opencl_kernels", opencl_api_start, stop, kernel_cases },
	{ "opencl_memory", opencl_api_start, stop, memory_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run_opencl(argc, argv, suites);
}
