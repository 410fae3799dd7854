/* test_opencl_sched.c — scheduling between CPU and OpenCL workers on a
 * real OpenCL device (PoCL's CPU device in CI): performance models
 * calibrate the OpenCL arch, dmda then sends the work where the models
 * say it is faster, and every policy runs a mixed workload to the right
 * result.
 *
 * The codelet's CPU implementation sleeps 20 ms per task, its OpenCL one is
 * a small kernel: whatever the machine, the OpenCL worker is the faster
 * one by far, so the expected placement does not depend on timing luck.
 */
#include "vtest.h"

#include <starpu.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct starpu_opencl_program prog;
static const char *kernels =
	"__kernel void add(__global float *v, unsigned off, unsigned n, float a)\n"
	"{ size_t i = get_global_id(0); if (i < n) v[off + i] += a; }\n";

static _Atomic int on_opencl, on_cpu;

static void add_ocl(void *buffers[], void *arg)
{
	(void) arg;
	float a = 1.0f;
	cl_mem v = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]);
	unsigned off = (unsigned) (STARPU_VECTOR_GET_OFFSET(buffers[0]) / sizeof(float));
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	cl_kernel k;
	cl_command_queue q;
	cl_int err = starpu_opencl_load_kernel(&k, &q, &prog, "add", starpu_worker_get_devid(starpu_worker_get_id()));
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	if (starpu_opencl_set_kernel_args(&err, &k, sizeof(v), &v, sizeof(off), &off, sizeof(n), &n, sizeof(a), &a, 0) != 4)
		STARPU_OPENCL_REPORT_ERROR(err);
	size_t global = n;
	err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	starpu_opencl_release_kernel(k);
	atomic_fetch_add(&on_opencl, 1);
}

static void add_cpu(void *buffers[], void *arg)
{
	(void) arg;
	float *v = (float *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] += 1.0f;
	usleep(20000);
	atomic_fetch_add(&on_cpu, 1);
}

static struct starpu_perfmodel add_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "vela_test_opencl_add",
};

static struct starpu_codelet add_cl = {
	.cpu_funcs = { add_cpu },
	.opencl_funcs = { add_ocl },
	.opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.model = &add_model,
	.name = "add",
};

/* PoCL compiles a kernel for good at its first launch (tens of
 * milliseconds): launched once before anything is measured. */
static struct starpu_codelet warm_cl = {
	.opencl_funcs = { add_ocl },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "warm_up",
};

static void warm_up(void)
{
	float x[1024] = { 0 };
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) x, 1024, sizeof(float));
	starpu_task_insert(&warm_cl, STARPU_RW, h, 0);
	starpu_data_unregister(h);
}

static int start(const char *policy)
{
	vtest_opencl_env();
	vtest_setenv("STARPU_SCHED", policy);
	int ret = vtest_start_opencl(1, 1);
	vtest_env_restore();
	if (ret)
		return -1;
	if (starpu_opencl_load_opencl_from_string(kernels, &prog, NULL) != CL_SUCCESS)
		return -1;
	warm_up();
	return 0;
}

static void stop(void)
{
	starpu_opencl_unload_opencl(&prog);
	vtest_stop();
}

/* nvec vectors, ntasks adds spread over them (on worker `on` when >= 0);
 * checks every value and returns how many ran on OpenCL. */
static int run(unsigned nvec, unsigned ntasks, int on)
{
	unsigned n = 1024;
	float *v = malloc((size_t) nvec * n * sizeof(float));
	starpu_data_handle_t *h = malloc(nvec * sizeof(*h));
	for (unsigned i = 0; i < nvec * n; i++)
		v[i] = (float) (i % 100);
	for (unsigned k = 0; k < nvec; k++)
		starpu_vector_data_register(&h[k], STARPU_MAIN_RAM, (uintptr_t) (v + (size_t) k * n), n, sizeof(float));
	atomic_store(&on_opencl, 0);
	atomic_store(&on_cpu, 0);
	for (unsigned t = 0; t < ntasks; t++)
	{
		int ret = on >= 0 ? starpu_task_insert(&add_cl, STARPU_RW, h[t % nvec], STARPU_EXECUTE_ON_WORKER, on, 0)
				  : starpu_task_insert(&add_cl, STARPU_RW, h[t % nvec], 0);
		CU_ASSERT_EQUAL_FATAL(ret, 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (unsigned k = 0; k < nvec; k++)
		starpu_data_unregister(h[k]);
	unsigned bad = 0;
	for (unsigned i = 0; i < nvec * n; i++)
	{
		unsigned k = i / n, adds = ntasks / nvec + (k < ntasks % nvec);
		bad += v[i] != (float) (i % 100) + (float) adds;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(atomic_load(&on_opencl) + atomic_load(&on_cpu), (int) ntasks);
	free(v);
	free(h);
	return atomic_load(&on_opencl);
}

/* Calibrates both archs (each worker runs the codelet), then checks the
 * model predicts the OpenCL worker faster; dmda then sends the work
 * there. */
static void test_calibrate_then_dmda(void)
{
	vtest_setenv("STARPU_CALIBRATE", "1");
	CU_ASSERT_EQUAL_FATAL(start("eager"), 0);
	int wocl = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0), wcpu = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0);
	CU_ASSERT_EQUAL(run(4, 12, wocl), 12);
	CU_ASSERT_EQUAL(run(4, 12, wcpu), 0);

	/* The predictions, in this same run. */
	float x[1024];
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) x, 1024, sizeof(float));
	struct starpu_task *t = starpu_task_create();
	t->cl = &add_cl;
	t->handles[0] = h;
	double locl = starpu_task_expected_length(t, starpu_worker_get_perf_archtype(wocl, 0), 0);
	double lcpu = starpu_task_expected_length(t, starpu_worker_get_perf_archtype(wcpu, 0), 0);
	t->destroy = 0;
	starpu_task_destroy(t);
	starpu_data_unregister(h);
	CU_ASSERT(isfinite(locl) && locl > 0);
	CU_ASSERT(isfinite(lcpu) && lcpu >= 15000.0);
	CU_ASSERT(locl < lcpu);
	stop();
	vtest_env_restore();

	/* dmda with the saved models: most tasks go to the OpenCL worker
	 * (the CPU may take a few while the device's queue is long). */
	CU_ASSERT_EQUAL_FATAL(start("dmda"), 0);
	int nocl = run(4, 40, -1);
	CU_ASSERT(nocl >= 30);
	stop();
}

/* Every policy: a mixed workload of tasks both kinds of worker can run
 * gives the right result. */
static void test_every_policy(void)
{
	static const char *policies[] = { "eager", "prio", "random", "ws", "lws", "dm", "dmda", "dmdar", "dmdas",
					  "tree-eager", "tree-eager-prefetching", "tree-prio", "tree-random",
					  "tree-ws", "tree-heft", "tree-heft2", "peager", "pheft", "heteroprio", NULL };
	for (const char **p = policies; *p; p++)
	{
		if (start(*p))
		{
			CU_FAIL("starpu_init");
			fprintf(stderr, "policy %s: starpu_init failed\n", *p);
			continue;
		}
		int nocl = run(6, 36, -1);
		CU_ASSERT(nocl >= 0);
		stop();
	}
}

static const struct vtest_case cases[] = {
	{ "calibrate_then_dmda", test_calibrate_then_dmda },
	{ "every_policy", test_every_policy },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "opencl_sched", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	char why[128];
	if (!vtest_opencl_available(why, sizeof(why)))
		return vtest_skip(why);
	/* The models start empty: calibrated here, not by an earlier run. */
	char home[64] = "/tmp/vela-oclsched-XXXXXX";
	if (!mkdtemp(home))
		return 1;
	setenv("STARPU_HOME", home, 1);
	int ret = vtest_run(argc, argv, suites);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", home);
	return ret;
}
