/* test_opencl_memory.c — device memory and access modes on a real OpenCL
 * device (PoCL's CPU device in CI): a working set four times the device's
 * limit (STARPU_LIMIT_OPENCL_MEM) evicted and written back with every value
 * right, data too large for the device refused with -ENOMEM naming data,
 * task and node, SCRATCH and REDUX buffers on the device, COMMUTE and
 * arbitered accesses shared by CPU and OpenCL workers, and partition
 * pieces computed on the device.
 */
#include "vtest.h"

#include <starpu.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT_MIB 4

static struct starpu_opencl_program prog;
static const char *kernels =
	"__kernel void add(__global float *v, unsigned off, unsigned n, float a)\n"
	"{ size_t i = get_global_id(0); if (i < n) v[off + i] += a; }\n"
	"__kernel void inc(__global int *x, unsigned off) { x[off] += 1; }\n"
	"__kernel void scratch_use(__global float *s, __global float *v, unsigned soff, unsigned voff, unsigned n)\n"
	"{ size_t i = get_global_id(0); if (i < n) { s[soff + i] = 2.0f * v[voff + i]; v[voff + i] = s[soff + i] + 1.0f; } }\n";

static _Atomic int ran_on_opencl, ran_on_cpu;

static int devid(void)
{
	return starpu_worker_get_devid(starpu_worker_get_id());
}

static void launch(cl_kernel k, size_t global)
{
	cl_command_queue q;
	starpu_opencl_get_current_queue(&q);
	cl_int err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	starpu_opencl_release_kernel(k);
}

static cl_kernel kernel(const char *name)
{
	cl_kernel k;
	cl_command_queue q;
	cl_int err = starpu_opencl_load_kernel(&k, &q, &prog, name, devid());
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	return k;
}

/* v += a on a vector (a piece of one, too: its offset is in elements). */
static void add_ocl(void *buffers[], void *arg)
{
	float a;
	starpu_codelet_unpack_args(arg, &a);
	cl_mem v = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]);
	unsigned off = (unsigned) (STARPU_VECTOR_GET_OFFSET(buffers[0]) / sizeof(float));
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	cl_kernel k = kernel("add");
	cl_int err;
	if (starpu_opencl_set_kernel_args(&err, &k, sizeof(v), &v, sizeof(off), &off, sizeof(n), &n, sizeof(a), &a, 0) != 4)
		STARPU_OPENCL_REPORT_ERROR(err);
	launch(k, n);
	atomic_fetch_add(&ran_on_opencl, 1);
}

static struct starpu_codelet add_ocl_cl = {
	.opencl_funcs = { add_ocl },
	.opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "add_ocl",
};

static void fill(float *v, unsigned n, unsigned k)
{
	for (unsigned i = 0; i < n; i++)
		v[i] = (float) ((i + k) % 4096);
}

/* ------------------------------------------------------------------ */
/* Eviction. */

/* 64 vectors of 256 KiB (16 MiB) through a 4 MiB device, three rounds:
 * every round evicts the others, writing back the only valid copy. */
static void test_eviction_app_buffers(void)
{
	unsigned nvec = 64, n = 65536, rounds = 3;
	float **v = malloc(nvec * sizeof(*v));
	starpu_data_handle_t *h = malloc(nvec * sizeof(*h));
	for (unsigned k = 0; k < nvec; k++)
	{
		v[k] = malloc(n * sizeof(float));
		fill(v[k], n, k);
		starpu_vector_data_register(&h[k], STARPU_MAIN_RAM, (uintptr_t) v[k], n, sizeof(float));
	}
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned k = 0; k < nvec; k++)
		{
			float a = 1.0f;
			CU_ASSERT_EQUAL_FATAL(starpu_task_insert(&add_ocl_cl, STARPU_RW, h[k], STARPU_VALUE, &a, sizeof(a), 0), 0);
		}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	unsigned bad = 0;
	for (unsigned k = 0; k < nvec; k++)
	{
		starpu_data_unregister(h[k]);
		for (unsigned i = 0; i < n; i++)
			bad += v[k][i] != (float) ((i + k) % 4096) + (float) rounds;
		free(v[k]);
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(v);
	free(h);
}

static void init_cpu(void *buffers[], void *arg)
{
	unsigned k = (unsigned) (uintptr_t) arg;
	fill((float *) STARPU_VECTOR_GET_PTR(buffers[0]), STARPU_VECTOR_GET_NX(buffers[0]), k);
}

static struct starpu_codelet init_cl = {
	.cpu_funcs = { init_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "init",
};

/* Data the runtime allocates (home -1): written on the CPU, then only
 * valid on the device; evicting it must bring it to RAM. */
static void test_eviction_runtime_buffers(void)
{
	unsigned nvec = 64, n = 65536;
	starpu_data_handle_t *h = malloc(nvec * sizeof(*h));
	for (unsigned k = 0; k < nvec; k++)
	{
		starpu_vector_data_register(&h[k], -1, 0, n, sizeof(float));
		struct starpu_task *t = starpu_task_create();
		t->cl = &init_cl;
		t->handles[0] = h[k];
		t->cl_arg = (void *) (uintptr_t) k;
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	for (unsigned r = 0; r < 2; r++)
		for (unsigned k = 0; k < nvec; k++)
		{
			float a = 2.0f;
			CU_ASSERT_EQUAL_FATAL(starpu_task_insert(&add_ocl_cl, STARPU_RW, h[k], STARPU_VALUE, &a, sizeof(a), 0), 0);
		}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	unsigned bad = 0;
	for (unsigned k = 0; k < nvec; k++)
	{
		CU_ASSERT_EQUAL(starpu_data_acquire(h[k], STARPU_R), 0);
		const float *p = (const float *) starpu_data_get_local_ptr(h[k]);
		for (unsigned i = 0; i < n; i++)
			bad += p[i] != (float) ((i + k) % 4096) + 4.0f;
		starpu_data_release(h[k]);
		starpu_data_unregister(h[k]);
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(h);
}

/* A vector twice the device's limit: the task cannot run there; the
 * message says which data, which task, which node. */
static void test_too_large(void)
{
	unsigned n = (2u * LIMIT_MIB << 20) / sizeof(float);
	float *v = malloc((size_t) n * sizeof(float));
	fill(v, n, 0);
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(float));
	starpu_data_set_name(h, "huge_vector");
	float a = 1.0f;
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_task_insert(&add_ocl_cl, STARPU_RW, h, STARPU_VALUE, &a, sizeof(a), STARPU_NAME, "too_large", 0), 0);
	starpu_task_wait_for_all();
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "-ENOMEM"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "too_large"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "huge_vector"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "OpenCL 0"));
	/* Nothing lost: the data is intact in RAM. */
	starpu_data_unregister(h);
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++)
		bad += v[i] != (float) (i % 4096);
	CU_ASSERT_EQUAL(bad, 0);
	free(v);
}

/* ------------------------------------------------------------------ */
/* SCRATCH and REDUX. */

static void scratch_ocl(void *buffers[], void *arg)
{
	(void) arg;
	cl_mem v = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]);
	cl_mem s = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(buffers[1]);
	unsigned voff = (unsigned) (STARPU_VECTOR_GET_OFFSET(buffers[0]) / sizeof(float));
	unsigned soff = (unsigned) (STARPU_VECTOR_GET_OFFSET(buffers[1]) / sizeof(float));
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	if (STARPU_VECTOR_GET_NX(buffers[1]) != n)
		STARPU_ABORT_MSG("scratch of the wrong size");
	cl_kernel k = kernel("scratch_use");
	cl_int err;
	if (starpu_opencl_set_kernel_args(&err, &k, sizeof(s), &s, sizeof(v), &v, sizeof(soff), &soff, sizeof(voff), &voff,
					  sizeof(n), &n, 0) != 5)
		STARPU_OPENCL_REPORT_ERROR(err);
	launch(k, n);
}

static struct starpu_codelet scratch_cl = {
	.opencl_funcs = { scratch_ocl },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_SCRATCH },
	.name = "scratch",
};

static void test_scratch(void)
{
	unsigned n = 4096;
	float *v = malloc(n * sizeof(float));
	fill(v, n, 3);
	starpu_data_handle_t h, s;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(float));
	starpu_vector_data_register(&s, -1, 0, n, sizeof(float));
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&scratch_cl, STARPU_RW, h, STARPU_SCRATCH, s, 0), 0);
	starpu_task_wait_for_all();
	starpu_data_unregister(h);
	starpu_data_unregister(s);
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++)
	{
		float e = (float) ((i + 3) % 4096);
		for (int r = 0; r < 3; r++)
			e = 2.0f * e + 1.0f;
		bad += v[i] != e;
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(v);
}

static void inc_ocl(void *buffers[], void *arg)
{
	(void) arg;
	cl_mem x = (cl_mem) STARPU_VARIABLE_GET_DEV_HANDLE(buffers[0]);
	unsigned off = (unsigned) (STARPU_VARIABLE_GET_OFFSET(buffers[0]) / sizeof(int));
	cl_kernel k = kernel("inc");
	cl_int err;
	if (starpu_opencl_set_kernel_args(&err, &k, sizeof(x), &x, sizeof(off), &off, 0) != 2)
		STARPU_OPENCL_REPORT_ERROR(err);
	launch(k, 1);
	atomic_fetch_add(&ran_on_opencl, 1);
}

static void inc_cpu(void *buffers[], void *arg)
{
	(void) arg;
	(*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
	atomic_fetch_add(&ran_on_cpu, 1);
}

static struct starpu_codelet inc_redux_cl = {
	.cpu_funcs = { inc_cpu },
	.opencl_funcs = { inc_ocl },
	.opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 1,
	.modes = { STARPU_REDUX },
	.name = "inc_redux",
};

static struct starpu_codelet inc_commute_cl = {
	.cpu_funcs = { inc_cpu },
	.opencl_funcs = { inc_ocl },
	.nbuffers = 1,
	.modes = { STARPU_RW | STARPU_COMMUTE },
	.name = "inc_commute",
};

static struct starpu_codelet inc_rw_cl = {
	.cpu_funcs = { inc_cpu },
	.opencl_funcs = { inc_ocl },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "inc_rw",
};

static void zero_cpu(void *buffers[], void *arg)
{
	(void) arg;
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]) = 0;
}

static void sum_cpu(void *buffers[], void *arg)
{
	(void) arg;
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]) += *(int *) STARPU_VARIABLE_GET_PTR(buffers[1]);
}

static struct starpu_codelet zero_cl = { .cpu_funcs = { zero_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "zero" };
static struct starpu_codelet sum_cl = {
	.cpu_funcs = { sum_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "sum"
};

/* Submits n tasks of cl on x, alternating the OpenCL and the CPU worker,
 * and checks x gained n and both kinds ran. */
static void alternate(struct starpu_codelet *cl, starpu_data_handle_t x, int *value, int n, int base)
{
	int wocl = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0), wcpu = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0);
	atomic_store(&ran_on_opencl, 0);
	atomic_store(&ran_on_cpu, 0);
	for (int i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(starpu_task_insert(cl, cl->modes[0], x, STARPU_EXECUTE_ON_WORKER, i % 2 ? wocl : wcpu, 0), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(starpu_data_acquire(x, STARPU_R), 0);
	CU_ASSERT_EQUAL(*value, base + n);
	starpu_data_release(x);
	CU_ASSERT_EQUAL(atomic_load(&ran_on_opencl), n / 2);
	CU_ASSERT_EQUAL(atomic_load(&ran_on_cpu), n - n / 2);
}

static void test_redux(void)
{
	int value = 7;
	starpu_data_handle_t x;
	starpu_variable_data_register(&x, STARPU_MAIN_RAM, (uintptr_t) &value, sizeof(value));
	starpu_data_set_reduction_methods(x, &sum_cl, &zero_cl);
	alternate(&inc_redux_cl, x, &value, 40, 7);
	/* Again: the contributions are made anew after a fold. */
	alternate(&inc_redux_cl, x, &value, 20, 47);
	starpu_data_unregister(x);
	CU_ASSERT_EQUAL(value, 67);
}

static void test_commute(void)
{
	int value = 3;
	starpu_data_handle_t x;
	starpu_variable_data_register(&x, STARPU_MAIN_RAM, (uintptr_t) &value, sizeof(value));
	alternate(&inc_commute_cl, x, &value, 30, 3);
	starpu_data_unregister(x);
	CU_ASSERT_EQUAL(value, 33);
}

static void test_arbiter(void)
{
	int value = 0;
	starpu_arbiter_t arb = starpu_arbiter_create();
	starpu_data_handle_t x;
	starpu_variable_data_register(&x, STARPU_MAIN_RAM, (uintptr_t) &value, sizeof(value));
	starpu_data_assign_arbiter(x, arb);
	alternate(&inc_commute_cl, x, &value, 30, 0);
	alternate(&inc_rw_cl, x, &value, 10, 30);
	starpu_data_unregister(x);
	starpu_arbiter_destroy(arb);
	CU_ASSERT_EQUAL(value, 40);
}

/* ------------------------------------------------------------------ */
/* Partitions. */

static void test_partition_on_device(void)
{
	unsigned n = 10000, parts = 4;
	float *v = malloc(n * sizeof(float));
	fill(v, n, 5);
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(float));
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = parts };
	starpu_data_partition(h, &f);
	for (unsigned p = 0; p < parts; p++)
	{
		float a = (float) (p + 1);
		starpu_data_handle_t piece = starpu_data_get_sub_data(h, 1, p);
		CU_ASSERT_EQUAL(starpu_task_insert(&add_ocl_cl, STARPU_RW, piece, STARPU_VALUE, &a, sizeof(a), 0), 0);
	}
	starpu_task_wait_for_all();
	starpu_data_unpartition(h, STARPU_MAIN_RAM);

	/* The asynchronous partitioning API: pieces of a plan, then the
	 * parent again, all on the device. */
	starpu_data_handle_t pieces[4];
	starpu_data_partition_plan(h, &f, pieces);
	starpu_data_partition_submit(h, parts, pieces);
	for (unsigned p = 0; p < parts; p++)
	{
		float a = 10.0f;
		CU_ASSERT_EQUAL(starpu_task_insert(&add_ocl_cl, STARPU_RW, pieces[p], STARPU_VALUE, &a, sizeof(a), 0), 0);
	}
	starpu_data_unpartition_submit(h, parts, pieces, -1);
	float a = 100.0f;
	CU_ASSERT_EQUAL(starpu_task_insert(&add_ocl_cl, STARPU_RW, h, STARPU_VALUE, &a, sizeof(a), 0), 0);
	starpu_task_wait_for_all();
	starpu_data_partition_clean(h, parts, pieces);
	starpu_data_unregister(h);
	unsigned bad = 0, chunk = n / parts;
	for (unsigned i = 0; i < n; i++)
		bad += v[i] != (float) ((i + 5) % 4096) + (float) (i / chunk + 1) + 110.0f;
	CU_ASSERT_EQUAL(bad, 0);
	free(v);
}

/* ------------------------------------------------------------------ */

static int start_limited(void)
{
	char limit[16];
	snprintf(limit, sizeof(limit), "%d", LIMIT_MIB);
	vtest_setenv("STARPU_LIMIT_OPENCL_MEM", limit);
	int ret = vtest_start_opencl(1, 1);
	vtest_env_restore();
	if (ret)
		return -1;
	return starpu_opencl_load_opencl_from_string(kernels, &prog, NULL) == CL_SUCCESS ? 0 : -1;
}

static int stop(void)
{
	starpu_opencl_unload_opencl(&prog);
	return vtest_stop();
}

static const struct vtest_case memory_cases[] = {
	{ "eviction_4x_limit", test_eviction_app_buffers },
	{ "eviction_runtime_allocated", test_eviction_runtime_buffers },
	{ "too_large_for_device", test_too_large },
	VTEST_END
};

static const struct vtest_case access_cases[] = {
	{ "scratch", test_scratch },
	{ "redux", test_redux },
	{ "commute", test_commute },
	{ "arbiter", test_arbiter },
	{ "partition", test_partition_on_device },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "opencl_memory", start_limited, stop, memory_cases },
	{ "opencl_access", start_limited, stop, access_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run_opencl(argc, argv, suites);
}
