/* compat_multiformat.c — the multiformat interface: points kept as an
 * array of structures on CPUs and as a structure of arrays (all x, then
 * all y) on OpenCL devices.
 *
 * A CPU-only run converts nothing. With an OpenCL worker (PoCL's CPU
 * device here: STARPU_OPENCL_ON_CPUS=1; skipped when there is none): a
 * CPU task, an OpenCL task whose kernel reads and writes the OpenCL
 * layout, a CPU task again, each in read-write mode: one conversion to
 * the OpenCL layout (on the OpenCL worker) before the OpenCL task, one
 * back (with the CPU implementation) before the second CPU task, and the
 * application's array holds exactly the expected values afterwards. A
 * second handle goes to the device and comes back at unregistration: one
 * conversion each way too. A handle given twice to one task converts once;
 * an acquisition in RAM after a device task converts back.
 */
/* compat-libs: -lOpenCL */
#include "compat.h"

#include <starpu_opencl.h>

#define N 1000

struct point
{
	float x, y;
};

static unsigned to_opencl_calls, to_cpu_calls, cpu_calls, opencl_calls;

#ifdef STARPU_USE_OPENCL
static struct starpu_opencl_program program;
static int have_program;

static const char *kernels =
	"__kernel void aos_to_soa(__global const float *aos, __global float *soa, unsigned n)\n"
	"{ unsigned i = get_global_id(0); if (i < n) { soa[i] = aos[2 * i]; soa[n + i] = aos[2 * i + 1]; } }\n"
	"__kernel void work(__global float *soa, unsigned n)\n"
	"{ unsigned i = get_global_id(0); if (i < n) { soa[i] = soa[i] * 2.0f; soa[n + i] = soa[n + i] + 3.0f; } }\n";

static void launch(const char *name, cl_mem a, cl_mem b, unsigned n)
{
	cl_kernel kernel;
	cl_command_queue queue;
	int dev = starpu_worker_get_devid(starpu_worker_get_id());
	int err = starpu_opencl_load_kernel(&kernel, &queue, &program, name, dev);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	int arg = 0;
	clSetKernelArg(kernel, arg++, sizeof(a), &a);
	if (b)
		clSetKernelArg(kernel, arg++, sizeof(b), &b);
	clSetKernelArg(kernel, arg++, sizeof(n), &n);
	size_t global = n;
	err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	clFinish(queue);
	starpu_opencl_release_kernel(kernel);
}

static void to_opencl_func(void *buffers[], void *arg)
{
	(void) arg;
	__sync_fetch_and_add(&to_opencl_calls, 1);
	unsigned n = STARPU_MULTIFORMAT_GET_NX(buffers[0]);
	launch("aos_to_soa", (cl_mem) STARPU_MULTIFORMAT_GET_CPU_PTR(buffers[0]),
	       (cl_mem) STARPU_MULTIFORMAT_GET_OPENCL_PTR(buffers[0]), n);
}

static void work_opencl(void *buffers[], void *arg)
{
	(void) arg;
	__sync_fetch_and_add(&opencl_calls, 1);
	launch("work", (cl_mem) STARPU_MULTIFORMAT_GET_OPENCL_PTR(buffers[0]), NULL, STARPU_MULTIFORMAT_GET_NX(buffers[0]));
}

static struct starpu_codelet to_opencl_cl = {
	.where = STARPU_OPENCL,
	.opencl_funcs = { to_opencl_func },
	.nbuffers = 1,
	.modes = { STARPU_RW },
};
#endif

/* OpenCL layout (in RAM) back to the CPU one. */
static void to_cpu_func(void *buffers[], void *arg)
{
	(void) arg;
	__sync_fetch_and_add(&to_cpu_calls, 1);
	unsigned n = STARPU_MULTIFORMAT_GET_NX(buffers[0]);
	struct point *aos = STARPU_MULTIFORMAT_GET_CPU_PTR(buffers[0]);
	float *soa = STARPU_MULTIFORMAT_GET_OPENCL_PTR(buffers[0]);
	for (unsigned i = 0; i < n; i++)
	{
		aos[i].x = soa[i];
		aos[i].y = soa[n + i];
	}
}

static struct starpu_codelet to_cpu_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { to_cpu_func },
	.nbuffers = 1,
	.modes = { STARPU_RW },
};

static struct starpu_multiformat_data_interface_ops format_ops = {
	.cpu_elemsize = sizeof(struct point),
#ifdef STARPU_USE_OPENCL
	.opencl_elemsize = 2 * sizeof(float),
	.cpu_to_opencl_cl = &to_opencl_cl,
	.opencl_to_cpu_cl = &to_cpu_cl,
#endif
};

static void work_cpu(void *buffers[], void *arg)
{
	(void) arg;
	__sync_fetch_and_add(&cpu_calls, 1);
	unsigned n = STARPU_MULTIFORMAT_GET_NX(buffers[0]);
	struct point *p = STARPU_MULTIFORMAT_GET_CPU_PTR(buffers[0]);
	for (unsigned i = 0; i < n; i++)
		p[i].x += 1.0f;
}

static struct starpu_codelet cpu_cl = { .where = STARPU_CPU, .cpu_funcs = { work_cpu }, .nbuffers = 1, .modes = { STARPU_RW } };
#ifdef STARPU_USE_OPENCL
static struct starpu_codelet opencl_cl = { .where = STARPU_OPENCL, .opencl_funcs = { work_opencl }, .nbuffers = 1, .modes = { STARPU_RW } };

/* the same handle twice in one task: its kernel works on the first */
static struct starpu_codelet opencl2_cl = {
	.where = STARPU_OPENCL,
	.opencl_funcs = { work_opencl },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_RW },
};
#endif

static struct point pts[N], pts2[N];

static void init_points(struct point *p)
{
	for (int i = 0; i < N; i++)
	{
		p[i].x = (float) i;
		p[i].y = (float) -i;
	}
}

/* expected: each CPU task adds 1 to x; the OpenCL task doubles x and adds
 * 3 to y (exact in float for these small integers) */
static int check_points(const struct point *p, int ncpu_before, int nopencl, int ncpu_after)
{
	struct point want[N];
	for (int i = 0; i < N; i++)
	{
		float x = (float) i + (float) ncpu_before, y = (float) -i;
		for (int k = 0; k < nopencl; k++)
		{
			x *= 2.0f;
			y += 3.0f;
		}
		want[i].x = x + (float) ncpu_after;
		want[i].y = y;
	}
	return memcmp(want, p, sizeof(want)) == 0;
}

static int start(int nopencl)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	conf.ncuda = 0;
	conf.nopencl = nopencl;
	conf.sched_policy_name = "eager";
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf);
}

static void cpu_only(void)
{
	int ret = start(0);
	CHECK(ret == 0);
	if (ret)
		return;
	init_points(pts);
	starpu_data_handle_t h;
	starpu_multiformat_data_register(&h, STARPU_MAIN_RAM, pts, N, &format_ops);
	CHECK(h != NULL);
	CHECK(starpu_data_get_interface_id(h) == STARPU_MULTIFORMAT_INTERFACE_ID);
	CHECK(starpu_data_get_size(h) == N * sizeof(struct point));
	CHECK(starpu_task_insert(&cpu_cl, STARPU_RW, h, 0) == 0);
	CHECK(starpu_task_insert(&cpu_cl, STARPU_RW, h, 0) == 0);
	starpu_data_unregister(h);
	starpu_shutdown();
	CHECK(cpu_calls == 2 && to_opencl_calls == 0 && to_cpu_calls == 0);
	CHECK(check_points(pts, 2, 0, 0));
}

#ifdef STARPU_USE_OPENCL
static int with_opencl(void)
{
	int ret = start(1);
	if (ret == -ENODEV)
		return 77;
	CHECK(ret == 0);
	if (ret)
		return 1;
	if (starpu_opencl_worker_get_count() == 0)
	{
		starpu_shutdown();
		printf("compat_multiformat: no OpenCL device; the conversions were not tried\n");
		return 77;
	}
	ret = starpu_opencl_load_opencl_from_string(kernels, &program, NULL);
	CHECK(ret == 0);
	have_program = ret == 0;
	cpu_calls = to_opencl_calls = to_cpu_calls = opencl_calls = 0;
	init_points(pts);
	init_points(pts2);
	starpu_data_handle_t h, h2;
	starpu_multiformat_data_register(&h, STARPU_MAIN_RAM, pts, N, &format_ops);
	starpu_multiformat_data_register(&h2, STARPU_MAIN_RAM, pts2, N, &format_ops);

	CHECK(starpu_task_insert(&cpu_cl, STARPU_RW, h, 0) == 0);
	starpu_task_wait_for_all();
	CHECK(cpu_calls == 1 && to_opencl_calls == 0 && to_cpu_calls == 0);
	CHECK(starpu_task_insert(&opencl_cl, STARPU_RW, h, 0) == 0);
	starpu_task_wait_for_all();
	CHECK(opencl_calls == 1 && to_opencl_calls == 1 && to_cpu_calls == 0);
	CHECK(starpu_task_insert(&cpu_cl, STARPU_RW, h, 0) == 0);
	starpu_task_wait_for_all();
	CHECK(cpu_calls == 2 && to_opencl_calls == 1 && to_cpu_calls == 1);
	starpu_data_unregister(h);
	CHECK(check_points(pts, 1, 1, 1));

	/* to the device, and home at unregistration */
	CHECK(starpu_task_insert(&opencl_cl, STARPU_RW, h2, 0) == 0);
	starpu_task_wait_for_all();
	CHECK(to_opencl_calls == 2 && to_cpu_calls == 1);
	starpu_data_unregister(h2);
	CHECK(to_opencl_calls == 2 && to_cpu_calls == 2);
	CHECK(check_points(pts2, 0, 1, 0));

	/* the same handle twice in a task converts once; an acquisition in
	 * RAM brings it back in the CPU layout */
	init_points(pts);
	starpu_multiformat_data_register(&h, STARPU_MAIN_RAM, pts, N, &format_ops);
	CHECK(starpu_task_insert(&opencl2_cl, STARPU_RW, h, STARPU_RW, h, 0) == 0);
	starpu_task_wait_for_all();
	CHECK(to_opencl_calls == 3 && to_cpu_calls == 2);
	CHECK(starpu_data_acquire(h, STARPU_RW) == 0);
	CHECK(to_opencl_calls == 3 && to_cpu_calls == 3);
	CHECK(check_points(pts, 0, 1, 0));
	starpu_data_release(h);
	starpu_data_unregister(h);
	CHECK(to_opencl_calls == 3 && to_cpu_calls == 3);
	if (have_program)
		starpu_opencl_unload_opencl(&program);
	starpu_shutdown();
	return 0;
}
#endif

int main(void)
{
	/* before the first starpu_init: StarPU reads them once */
	setenv("STARPU_OPENCL_ON_CPUS", "1", 1);
	setenv("POCL_CPU_MAX_CU_COUNT", "1", 0);
	cpu_only();
	int skipped = 1;
#ifdef STARPU_USE_OPENCL
	int ret = with_opencl();
	if (ret == 1)
		return 1;
	skipped = ret == 77;
#endif
	if (skipped)
		printf("compat_multiformat: CPU part only\n");
	return compat_result("compat_multiformat");
}
