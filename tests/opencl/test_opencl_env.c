/* test_opencl_env.c — which OpenCL devices a run drives, from the
 * environment and the configuration, on a real device (PoCL's CPU device
 * in CI): STARPU_OPENCL_ON_CPUS / _ONLY_ON_CPUS, STARPU_NOPENCL and
 * conf.nopencl, STARPU_WORKERS_OPENCLID, STARPU_OPENCL_PIPELINE,
 * STARPU_LIMIT_OPENCL_MEM, the worker's name, and a codelet no worker can
 * run.
 *
 * Each case starts and stops the runtime itself under the settings it
 * tests; the expected device counts are what OpenCL itself reports, so the
 * cases hold on a machine with GPUs as on one with PoCL alone. A bad
 * setting must make starpu_init fail with -EINVAL and a message naming
 * the variable, and leave the runtime able to start again.
 */
#include "vtest.h"

#include <starpu.h>
#include <starpu_opencl.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *msg;
#define CAPTURE(stmt)                                \
	do                                           \
	{                                            \
		vtest_capture_stderr_begin();        \
		stmt;                                \
		msg = vtest_capture_stderr_end();    \
	} while (0)

static int has(const char *s, const char *what)
{
	return s && strstr(s, what) != NULL;
}

/* How many devices of these types OpenCL reports, over every platform. */
static unsigned count_devices(cl_device_type types)
{
	cl_platform_id platforms[8];
	cl_uint np = 0;
	if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS)
		return 0;
	unsigned total = 0;
	for (cl_uint p = 0; p < np && p < 8; p++)
	{
		cl_device_id ids[STARPU_MAXOPENCLDEVS];
		cl_uint n = 0;
		if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, STARPU_MAXOPENCLDEVS, ids, &n) != CL_SUCCESS)
			continue;
		for (cl_uint i = 0; i < n && i < STARPU_MAXOPENCLDEVS; i++)
		{
			cl_device_type t = 0;
			clGetDeviceInfo(ids[i], CL_DEVICE_TYPE, sizeof(t), &t, NULL);
			total += (t & types) != 0;
		}
	}
	return total;
}

/* Every variable these cases set, cleared: each case sets its own. */
static void clear_env(void)
{
	static const char *vars[] = { "STARPU_OPENCL_ON_CPUS", "STARPU_OPENCL_ONLY_ON_CPUS", "STARPU_NOPENCL",
				      "STARPU_WORKERS_OPENCLID", "STARPU_OPENCL_PIPELINE", "STARPU_LIMIT_OPENCL_MEM",
				      "STARPU_NCUDA", "STARPU_NCPU", "STARPU_NCPUS" };
	for (unsigned i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		vtest_setenv(vars[i], NULL);
	char var[64];
	for (int d = 0; d < STARPU_MAXOPENCLDEVS; d++)
	{
		snprintf(var, sizeof(var), "STARPU_LIMIT_OPENCL_%d_MEM", d);
		vtest_setenv(var, NULL);
	}
	vtest_setenv("POCL_CPU_MAX_CU_COUNT", getenv("POCL_CPU_MAX_CU_COUNT") ? getenv("POCL_CPU_MAX_CU_COUNT") : "1");
}

/* Starts the runtime on one CPU worker and nopencl OpenCL devices (-1:
 * the environment's choice); starpu_init's return. */
static int init(int nopencl, int precedence)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	conf.ncuda = 0;
	conf.nopencl = nopencl;
	conf.precedence_over_environment_variables = precedence;
	return starpu_init(&conf);
}

/* The type of the device the run's k-th OpenCL worker drives. */
static cl_device_type worker_device_type(int k)
{
	int w = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, k);
	cl_device_id dev = NULL;
	cl_device_type t = 0;
	starpu_opencl_get_device(starpu_worker_get_devid(w), &dev);
	if (dev)
		clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof(t), &t, NULL);
	return t;
}

/* ------------------------------------------------------------------ */
/* Which devices. */

static void test_cpus_not_by_default(void)
{
	clear_env();
	CU_ASSERT_EQUAL_FATAL(init(-1, 0), 0);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), count_devices(CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR));
	for (unsigned k = 0; k < starpu_opencl_worker_get_count(); k++)
		CU_ASSERT((worker_device_type((int) k) & CL_DEVICE_TYPE_CPU) == 0);
	starpu_shutdown();
	/* "0" is not "yes". */
	vtest_setenv("STARPU_OPENCL_ON_CPUS", "0");
	CU_ASSERT_EQUAL_FATAL(init(-1, 0), 0);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), count_devices(CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR));
	starpu_shutdown();
	vtest_env_restore();
}

static void test_on_cpus(void)
{
	clear_env();
	vtest_setenv("STARPU_OPENCL_ON_CPUS", "1");
	CU_ASSERT_EQUAL_FATAL(init(-1, 0), 0);
	unsigned n = count_devices(CL_DEVICE_TYPE_ALL);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), n > STARPU_MAXOPENCLDEVS ? STARPU_MAXOPENCLDEVS : n);
	starpu_shutdown();
	vtest_env_restore();
}

static void test_only_on_cpus(void)
{
	clear_env();
	vtest_setenv("STARPU_OPENCL_ONLY_ON_CPUS", "1");
	CU_ASSERT_EQUAL_FATAL(init(-1, 0), 0);
	unsigned n = starpu_opencl_worker_get_count();
	CU_ASSERT(n >= 1);
	CU_ASSERT_EQUAL(n, count_devices(CL_DEVICE_TYPE_CPU));
	for (unsigned k = 0; k < n; k++)
		CU_ASSERT(worker_device_type((int) k) & CL_DEVICE_TYPE_CPU);
	starpu_shutdown();
	vtest_env_restore();
}

static void test_nopencl(void)
{
	clear_env();
	vtest_setenv("STARPU_OPENCL_ON_CPUS", "1");
	/* conf.nopencl. */
	CU_ASSERT_EQUAL_FATAL(init(0, 0), 0);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), 0);
	CU_ASSERT_EQUAL(starpu_worker_get_count(), 1);
	starpu_shutdown();
	CU_ASSERT_EQUAL_FATAL(init(1, 0), 0);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), 1);
	starpu_shutdown();
	/* STARPU_NOPENCL=0 wins over the configuration... */
	vtest_setenv("STARPU_NOPENCL", "0");
	CU_ASSERT_EQUAL_FATAL(init(1, 0), 0);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), 0);
	CU_ASSERT_EQUAL(starpu_worker_get_count(), 1);
	starpu_shutdown();
	/* ...unless the configuration takes precedence. */
	CU_ASSERT_EQUAL_FATAL(init(1, 1), 0);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), 1);
	starpu_shutdown();
	vtest_env_restore();
}

static void test_workers_openclid(void)
{
	clear_env();
	vtest_setenv("STARPU_OPENCL_ON_CPUS", "1");
	vtest_setenv("STARPU_WORKERS_OPENCLID", "0");
	CU_ASSERT_EQUAL_FATAL(init(-1, 0), 0);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), 1);
	CU_ASSERT_EQUAL(starpu_worker_get_devid(starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0)), 0);
	starpu_shutdown();
	/* A device number beyond those found. */
	char bad[16];
	unsigned found = count_devices(CL_DEVICE_TYPE_ALL);
	snprintf(bad, sizeof(bad), "%u", found);
	vtest_setenv("STARPU_WORKERS_OPENCLID", bad);
	int ret;
	CAPTURE(ret = init(-1, 0));
	CU_ASSERT_EQUAL(ret, -EINVAL);
	if (ret == 0)
		starpu_shutdown();
	CU_ASSERT(has(msg, "STARPU_WORKERS_OPENCLID") && has(msg, bad));
	/* Not a list of numbers. */
	vtest_setenv("STARPU_WORKERS_OPENCLID", "first");
	CAPTURE(ret = init(-1, 0));
	CU_ASSERT_EQUAL(ret, -EINVAL);
	if (ret == 0)
		starpu_shutdown();
	CU_ASSERT(has(msg, "STARPU_WORKERS_OPENCLID"));
	/* The runtime starts again once the setting is right. */
	vtest_setenv("STARPU_WORKERS_OPENCLID", NULL);
	CU_ASSERT_EQUAL_FATAL(init(1, 0), 0);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), 1);
	starpu_shutdown();
	vtest_env_restore();
}

/* ------------------------------------------------------------------ */
/* The device's settings. */

static void inc_ocl(void *buffers[], void *arg)
{
	(void) arg;
	/* Through a copy: enough to see the task ran on the device. */
	cl_mem v = (cl_mem) STARPU_VARIABLE_GET_PTR(buffers[0]);
	cl_command_queue q;
	starpu_opencl_get_current_queue(&q);
	int x = 0;
	if (clEnqueueReadBuffer(q, v, CL_TRUE, 0, sizeof(x), &x, 0, NULL, NULL) != CL_SUCCESS)
		return;
	x++;
	clEnqueueWriteBuffer(q, v, CL_TRUE, 0, sizeof(x), &x, 0, NULL, NULL);
}

static struct starpu_codelet inc_cl = {
	.opencl_funcs = { inc_ocl },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "inc_opencl_only",
};

static void test_pipeline(void)
{
	clear_env();
	vtest_setenv("STARPU_OPENCL_ON_CPUS", "1");
	const char *bad[] = { "deep", "2x", "-1", "65" };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		vtest_setenv("STARPU_OPENCL_PIPELINE", bad[i]);
		int ret;
		CAPTURE(ret = init(1, 0));
		CU_ASSERT_EQUAL(ret, -EINVAL);
		if (ret == 0)
			starpu_shutdown();
		CU_ASSERT(has(msg, "STARPU_OPENCL_PIPELINE") && has(msg, bad[i]));
	}
	/* 0 (no pipeline) and 4 run tasks, in order. */
	const char *good[] = { "0", "4" };
	for (unsigned i = 0; i < 2; i++)
	{
		vtest_setenv("STARPU_OPENCL_PIPELINE", good[i]);
		CU_ASSERT_EQUAL_FATAL(init(1, 0), 0);
		CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), 1);
		int x = 100;
		starpu_data_handle_t h;
		starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
		for (int k = 0; k < 10; k++)
			CU_ASSERT_EQUAL(starpu_task_insert(&inc_cl, STARPU_RW, h, 0), 0);
		CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
		starpu_data_unregister(h);
		CU_ASSERT_EQUAL(x, 110);
		starpu_shutdown();
	}
	vtest_env_restore();
}

static void test_limit_mem(void)
{
	clear_env();
	vtest_setenv("STARPU_OPENCL_ON_CPUS", "1");
	/* Unlimited: the device's size. */
	CU_ASSERT_EQUAL_FATAL(init(1, 0), 0);
	int w = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0);
	cl_device_id dev;
	cl_ulong size = 0;
	starpu_opencl_get_device(starpu_worker_get_devid(w), &dev);
	clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(size), &size, NULL);
	CU_ASSERT_EQUAL(starpu_memory_get_total(starpu_worker_get_memory_node((unsigned) w)), (ssize_t) size);
	starpu_shutdown();
	vtest_setenv("STARPU_LIMIT_OPENCL_MEM", "16");
	CU_ASSERT_EQUAL_FATAL(init(1, 0), 0);
	w = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0);
	unsigned node = starpu_worker_get_memory_node((unsigned) w);
	CU_ASSERT_EQUAL(starpu_memory_get_total(node), (ssize_t) 16 << 20);
	/* RAM is not limited by it. */
	CU_ASSERT(starpu_memory_get_total(STARPU_MAIN_RAM) != (ssize_t) 16 << 20);
	starpu_shutdown();
	vtest_env_restore();
}

static void test_worker_name(void)
{
	clear_env();
	vtest_setenv("STARPU_OPENCL_ON_CPUS", "1");
	CU_ASSERT_EQUAL_FATAL(init(1, 0), 0);
	int w = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0);
	CU_ASSERT_FATAL(w >= 0);
	CU_ASSERT_EQUAL(starpu_worker_get_type(w), STARPU_OPENCL_WORKER);
	char name[128] = "";
	starpu_worker_get_name(w, name, sizeof(name));
	char want[32];
	snprintf(want, sizeof(want), "OpenCL %d", starpu_worker_get_devid(w));
	CU_ASSERT(has(name, want));
	CU_ASSERT(has(name, "OpenCL 0"));
	starpu_shutdown();
	vtest_env_restore();
}

/* An OpenCL-only codelet with no OpenCL worker: refused at submission,
 * never run. */
static void test_no_opencl_worker(void)
{
	clear_env();
	CU_ASSERT_EQUAL_FATAL(init(0, 0), 0);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), 0);
	int x = 7;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	struct starpu_task *t = starpu_task_create();
	t->cl = &inc_cl;
	t->handles[0] = h;
	int ret;
	CAPTURE(ret = starpu_task_submit(t));
	CU_ASSERT_EQUAL(ret, -ENODEV);
	CU_ASSERT(has(msg, "starpu_task_submit"));
	if (ret != 0)
		starpu_task_destroy(t);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, 7);
	starpu_shutdown();
	vtest_env_restore();
}

static const struct vtest_case device_cases[] = {
	{ "cpus_not_by_default", test_cpus_not_by_default },
	{ "on_cpus", test_on_cpus },
	{ "only_on_cpus", test_only_on_cpus },
	{ "nopencl", test_nopencl },
	{ "workers_openclid", test_workers_openclid },
	VTEST_END
};

static const struct vtest_case setting_cases[] = {
	{ "pipeline", test_pipeline },
	{ "limit_mem", test_limit_mem },
	{ "worker_name", test_worker_name },
	{ "no_opencl_worker", test_no_opencl_worker },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "opencl_env_devices", NULL, NULL, device_cases },
	{ "opencl_env_settings", NULL, NULL, setting_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run_opencl(argc, argv, suites);
}
