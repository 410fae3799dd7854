/* test_opencl_multiformat.c — the multiformat interface on a real OpenCL
 * device (PoCL's CPU device in CI): records {key, val} kept as an array of
 * structures on CPUs and as a structure of arrays (all keys, then all
 * vals) on the device. The conversion kernels run for real; a kernel
 * reads the device layout into a plain vector, and every result is
 * compared byte for byte. Also: a CPU-only run converts nothing, and bad
 * input (no format_ops, elemsizes of 0, conversion codelets missing where
 * a device needs them) gives -EINVAL and a message naming the field.
 * Without an OpenCL device only the CPU suite runs.
 */
#include "vtest.h"

#include <errno.h>
#include <starpu.h>
#include <stdint.h>
#include <string.h>

#define N 777

struct rec
{
	int32_t key, val;
};

static unsigned to_ocl, to_cpu;

static struct starpu_opencl_program prog;

static const char *src =
	"__kernel void aos_to_soa(__global const int *aos, __global int *soa, unsigned n)\n"
	"{ unsigned i = get_global_id(0); if (i < n) { soa[i] = aos[2 * i]; soa[n + i] = aos[2 * i + 1]; } }\n"
	"__kernel void work(__global int *soa, unsigned n)\n"
	"{ unsigned i = get_global_id(0); if (i < n) soa[n + i] = soa[n + i] * 3 + soa[i]; }\n"
	"__kernel void peek(__global const int *soa, __global int *out, unsigned n)\n"
	"{ unsigned i = get_global_id(0); if (i < n) out[i] = soa[i] * 1000 + soa[n + i]; }\n";

static void launch(const char *name, cl_mem a, cl_mem b, unsigned n)
{
	cl_kernel k;
	cl_command_queue q;
	int err = starpu_opencl_load_kernel(&k, &q, &prog, name, starpu_worker_get_devid(starpu_worker_get_id()));
	CU_ASSERT_EQUAL_FATAL(err, CL_SUCCESS);
	int arg = 0;
	clSetKernelArg(k, arg++, sizeof(a), &a);
	if (b)
		clSetKernelArg(k, arg++, sizeof(b), &b);
	clSetKernelArg(k, arg++, sizeof(n), &n);
	size_t global = n;
	CU_ASSERT_EQUAL(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(clFinish(q), CL_SUCCESS);
	starpu_opencl_release_kernel(k);
}

static void to_ocl_func(void *b[], void *arg)
{
	(void) arg;
	__atomic_fetch_add(&to_ocl, 1, __ATOMIC_RELAXED);
	CU_ASSERT_EQUAL(starpu_worker_get_type(starpu_worker_get_id()), STARPU_OPENCL_WORKER);
	launch("aos_to_soa", (cl_mem) STARPU_MULTIFORMAT_GET_CPU_PTR(b[0]), (cl_mem) STARPU_MULTIFORMAT_GET_OPENCL_PTR(b[0]),
	       STARPU_MULTIFORMAT_GET_NX(b[0]));
}

static void to_cpu_func(void *b[], void *arg)
{
	(void) arg;
	__atomic_fetch_add(&to_cpu, 1, __ATOMIC_RELAXED);
	unsigned n = STARPU_MULTIFORMAT_GET_NX(b[0]);
	struct rec *aos = STARPU_MULTIFORMAT_GET_CPU_PTR(b[0]);
	int32_t *soa = STARPU_MULTIFORMAT_GET_OPENCL_PTR(b[0]);
	for (unsigned i = 0; i < n; i++)
	{
		aos[i].key = soa[i];
		aos[i].val = soa[n + i];
	}
}

static struct starpu_codelet to_ocl_cl = { .opencl_funcs = { to_ocl_func }, .nbuffers = 1, .modes = { STARPU_RW } };
static struct starpu_codelet to_cpu_cl = { .cpu_funcs = { to_cpu_func }, .nbuffers = 1, .modes = { STARPU_RW } };
static struct starpu_multiformat_data_interface_ops ops = {
	.cpu_elemsize = sizeof(struct rec),
	.opencl_elemsize = 2 * sizeof(int32_t),
	.cpu_to_opencl_cl = &to_ocl_cl,
	.opencl_to_cpu_cl = &to_cpu_cl,
};

static void work_ocl(void *b[], void *arg)
{
	(void) arg;
	launch("work", (cl_mem) STARPU_MULTIFORMAT_GET_OPENCL_PTR(b[0]), NULL, STARPU_MULTIFORMAT_GET_NX(b[0]));
}

static void peek_ocl(void *b[], void *arg)
{
	(void) arg;
	launch("peek", (cl_mem) STARPU_MULTIFORMAT_GET_OPENCL_PTR(b[0]), (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(b[1]),
	       STARPU_MULTIFORMAT_GET_NX(b[0]));
}

static void work_cpu(void *b[], void *arg)
{
	(void) arg;
	struct rec *r = STARPU_MULTIFORMAT_GET_CPU_PTR(b[0]);
	for (unsigned i = 0; i < STARPU_MULTIFORMAT_GET_NX(b[0]); i++)
		r[i].key += 7;
}

static int64_t read_sum;

static void read_cpu(void *b[], void *arg)
{
	(void) arg;
	const struct rec *r = STARPU_MULTIFORMAT_GET_CPU_PTR(b[0]);
	int64_t s = 0;
	for (unsigned i = 0; i < STARPU_MULTIFORMAT_GET_NX(b[0]); i++)
		s += r[i].key + r[i].val;
	read_sum = s;
}

static struct starpu_codelet work_ocl_cl = { .opencl_funcs = { work_ocl }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "work_ocl" };
static struct starpu_codelet peek_cl = { .opencl_funcs = { peek_ocl }, .nbuffers = 2, .modes = { STARPU_R, STARPU_W }, .name = "peek" };
static struct starpu_codelet work_cpu_cl = { .cpu_funcs = { work_cpu }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "work_cpu" };
static struct starpu_codelet read_cpu_cl = { .cpu_funcs = { read_cpu }, .nbuffers = 1, .modes = { STARPU_R }, .name = "read_cpu" };

static struct rec recs[N], want[N];

static void fill(void)
{
	for (int i = 0; i < N; i++)
	{
		recs[i].key = i;
		recs[i].val = 5 * i - 1000;
	}
	memcpy(want, recs, sizeof(recs));
	to_ocl = to_cpu = 0;
}

static int run(struct starpu_codelet *cl, starpu_data_handle_t h, starpu_data_handle_t h2)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->handles[0] = h;
	t->handles[1] = h2;
	t->detach = 0;
	t->destroy = 0;
	int ret = starpu_task_submit(t);
	if (!ret)
		ret = starpu_task_wait(t);
	starpu_task_destroy(t);
	return ret;
}

/* CPU, OpenCL, CPU, read-write: one conversion each way, exact values. */
static void test_round_trip(void)
{
	fill();
	starpu_data_handle_t h;
	starpu_multiformat_data_register(&h, STARPU_MAIN_RAM, recs, N, &ops);
	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT_EQUAL(run(&work_cpu_cl, h, NULL), 0);
	CU_ASSERT_EQUAL(to_ocl + to_cpu, 0);
	CU_ASSERT_EQUAL(run(&work_ocl_cl, h, NULL), 0);
	CU_ASSERT_EQUAL(to_ocl, 1);
	CU_ASSERT_EQUAL(to_cpu, 0);
	CU_ASSERT_EQUAL(run(&work_cpu_cl, h, NULL), 0);
	CU_ASSERT_EQUAL(to_ocl, 1);
	CU_ASSERT_EQUAL(to_cpu, 1);
	/* twice more through the device, home at unregistration */
	CU_ASSERT_EQUAL(run(&work_ocl_cl, h, NULL), 0);
	CU_ASSERT_EQUAL(run(&work_ocl_cl, h, NULL), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(to_ocl, 2);
	CU_ASSERT_EQUAL(to_cpu, 2);
	for (int i = 0; i < N; i++)
	{
		want[i].key += 7;
		want[i].val = want[i].val * 3 + want[i].key;
		want[i].key += 7;
		for (int k = 0; k < 2; k++)
			want[i].val = want[i].val * 3 + want[i].key;
	}
	CU_ASSERT_EQUAL(memcmp(recs, want, sizeof(recs)), 0);
}

/* A kernel reads the device layout into a vector; read only, the data
 * stays valid in RAM and nothing converts back (StarPU would, once). */
static void test_read_on_device(void)
{
	fill();
	int32_t out[N];
	memset(out, 0xff, sizeof(out));
	starpu_data_handle_t h, v;
	starpu_multiformat_data_register(&h, STARPU_MAIN_RAM, recs, N, &ops);
	starpu_vector_data_register(&v, STARPU_MAIN_RAM, (uintptr_t) out, N, sizeof(int32_t));
	CU_ASSERT_EQUAL(run(&peek_cl, h, v), 0);
	CU_ASSERT_EQUAL(run(&read_cpu_cl, h, NULL), 0);
	starpu_data_unregister(v);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(to_ocl, 1);
	CU_ASSERT_EQUAL(to_cpu, 0);
	int bad = 0;
	int64_t sum = 0;
	for (int i = 0; i < N; i++)
	{
		bad += out[i] != want[i].key * 1000 + want[i].val;
		sum += want[i].key + want[i].val;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(read_sum, sum);
	CU_ASSERT_EQUAL(memcmp(recs, want, sizeof(recs)), 0);
}

/* format_ops without what the device needs: the task fails with -EINVAL,
 * the message names the field, the data is untouched. */
static void expect_failure(struct starpu_multiformat_data_interface_ops *o, struct starpu_codelet *cl, const char *field)
{
	fill();
	starpu_data_handle_t h;
	starpu_multiformat_data_register(&h, STARPU_MAIN_RAM, recs, N, o);
	CU_ASSERT_FATAL(h != NULL);
	vtest_capture_stderr_begin();
	int ret = run(cl, h, NULL);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(strstr(msg, field) != NULL);
	CU_ASSERT(strstr(msg, "-EINVAL") != NULL);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(memcmp(recs, want, sizeof(recs)), 0);
}

static void test_missing(void)
{
	struct starpu_multiformat_data_interface_ops o = ops;
	o.cpu_to_opencl_cl = NULL;
	expect_failure(&o, &work_ocl_cl, "format_ops->cpu_to_opencl_cl is NULL");
	o = ops;
	o.opencl_to_cpu_cl = NULL;
	expect_failure(&o, &work_ocl_cl, "format_ops->opencl_to_cpu_cl is NULL");
	o = ops;
	o.opencl_to_cpu_cl = &to_ocl_cl;	/* no CPU implementation */
	expect_failure(&o, &work_ocl_cl, "format_ops->opencl_to_cpu_cl has no CPU implementation");
	o = ops;
	o.opencl_elemsize = 0;
	expect_failure(&o, &work_ocl_cl, "format_ops->opencl_elemsize is 0");
	/* reading on the device needs no way back */
	o = ops;
	o.opencl_to_cpu_cl = NULL;
	fill();
	int32_t out[N];
	starpu_data_handle_t h, v;
	starpu_multiformat_data_register(&h, STARPU_MAIN_RAM, recs, N, &o);
	starpu_vector_data_register(&v, STARPU_MAIN_RAM, (uintptr_t) out, N, sizeof(int32_t));
	CU_ASSERT_EQUAL(run(&peek_cl, h, v), 0);
	starpu_data_unregister(v);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(out[N - 1], recs[N - 1].key * 1000 + recs[N - 1].val);
}

/* ---- CPU only ---- */

static void test_cpu_only(void)
{
	fill();
	starpu_data_handle_t h;
	starpu_multiformat_data_register(&h, STARPU_MAIN_RAM, recs, N, &ops);
	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_MULTIFORMAT_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), sizeof(recs));
	struct starpu_multiformat_interface *m = starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
	CU_ASSERT(STARPU_MULTIFORMAT_GET_CPU_PTR(m) == recs && STARPU_MULTIFORMAT_GET_NX(m) == N);
	CU_ASSERT(STARPU_MULTIFORMAT_GET_OPENCL_PTR(m) == NULL);
	CU_ASSERT_EQUAL(run(&work_cpu_cl, h, NULL), 0);
	CU_ASSERT_EQUAL(run(&work_cpu_cl, h, NULL), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(to_ocl + to_cpu, 0);
	for (int i = 0; i < N; i++)
		want[i].key += 14;
	CU_ASSERT_EQUAL(memcmp(recs, want, sizeof(recs)), 0);

	/* allocated by the runtime (home node -1), written, acquired */
	starpu_multiformat_data_register(&h, -1, NULL, 10, &ops);
	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT_EQUAL(run(&work_cpu_cl, h, NULL), 0);
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	struct rec *r = STARPU_MULTIFORMAT_GET_CPU_PTR(starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM));
	CU_ASSERT(r != NULL);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void expect_bad_register(int home, void *ptr, struct starpu_multiformat_data_interface_ops *o, const char *why)
{
	starpu_data_handle_t h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	starpu_multiformat_data_register(&h, home, ptr, N, o);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT(h == NULL);
	CU_ASSERT(strstr(msg, "starpu_multiformat_data_register") != NULL);
	CU_ASSERT(strstr(msg, why) != NULL);
}

static void test_bad_register(void)
{
	expect_bad_register(STARPU_MAIN_RAM, recs, NULL, "format_ops is NULL");
	struct starpu_multiformat_data_interface_ops o = ops;
	o.cpu_elemsize = 0;
	expect_bad_register(STARPU_MAIN_RAM, recs, &o, "cpu_elemsize is 0");
	expect_bad_register(STARPU_MAIN_RAM, NULL, &ops, "ptr is NULL");
}

static int start_ocl(void)
{
	if (vtest_start_opencl(1, 1))
		return -1;
	return starpu_opencl_load_opencl_from_string(src, &prog, NULL) == 0 ? 0 : -1;
}

static int stop_ocl(void)
{
	starpu_opencl_unload_opencl(&prog);
	return vtest_stop();
}

static int start_cpu(void)
{
	return vtest_start_cpus(1);
}

static const struct vtest_case ocl_cases[] = {
	{ "round_trip", test_round_trip },
	{ "read_on_device", test_read_on_device },
	{ "missing", test_missing },
	VTEST_END
};

static const struct vtest_case cpu_cases[] = {
	{ "cpu_only", test_cpu_only },
	{ "bad_register", test_bad_register },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "multiformat_cpu", start_cpu, vtest_stop, cpu_cases },
	{ "multiformat_opencl", start_ocl, stop_ocl, ocl_cases },
	{ NULL, NULL, NULL, NULL }
};

static const struct vtest_suite cpu_suites[] = {
	{ "multiformat_cpu", start_cpu, vtest_stop, cpu_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	char why[128];
	if (!vtest_opencl_available(why, sizeof(why)))
	{
		fprintf(stderr, "%s: only the CPU suite runs\n", why);
		return vtest_run(argc, argv, cpu_suites);
	}
	return vtest_run(argc, argv, suites);
}
