/* test_opencl_trace.c — what a trace shows of an OpenCL device (PoCL's CPU
 * device in CI): the device worker's tasks on its own row, transfers
 * between RAM and the device, in every export; and a copy in flight while
 * a kernel runs: the next task's input starts moving to the device before
 * the running kernel ends (the worker keeps tasks and copies in flight).
 */
#include "vtest.h"
#include "trace_reader.h"

#include <dirent.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct starpu_opencl_program prog;
static const char *kernels =
	"__kernel void spin(__global float *v, unsigned off, int iters)\n"
	"{ float x = v[off]; for (int i = 0; i < iters; i++) x = x * 0.999999f + 0.5f; v[off] = x; }\n"
	"__kernel void add(__global float *v, unsigned off, unsigned n)\n"
	"{ size_t i = get_global_id(0); if (i < n) v[off + i] += 1.0f; }\n";

static void run_kernel(void *buffers[], const char *name, int iters)
{
	cl_mem v = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]);
	unsigned off = (unsigned) (STARPU_VECTOR_GET_OFFSET(buffers[0]) / sizeof(float));
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	cl_kernel k;
	cl_command_queue q;
	cl_int err = starpu_opencl_load_kernel(&k, &q, &prog, name, starpu_worker_get_devid(starpu_worker_get_id()));
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	int nargs = iters ? starpu_opencl_set_kernel_args(&err, &k, sizeof(v), &v, sizeof(off), &off, sizeof(iters), &iters, 0)
			  : starpu_opencl_set_kernel_args(&err, &k, sizeof(v), &v, sizeof(off), &off, sizeof(n), &n, 0);
	if (nargs != 3)
		STARPU_OPENCL_REPORT_ERROR(err);
	size_t global = iters ? 1 : n;
	err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	starpu_opencl_release_kernel(k);
}

static void spin_ocl(void *buffers[], void *arg)
{
	int iters;
	starpu_codelet_unpack_args(arg, &iters);
	run_kernel(buffers, "spin", iters);
}

static void add_ocl(void *buffers[], void *arg)
{
	(void) arg;
	run_kernel(buffers, "add", 0);
}

static struct starpu_codelet spin_cl = {
	.opencl_funcs = { spin_ocl },
	.opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "spin",
};

static struct starpu_codelet add_cl = {
	.opencl_funcs = { add_ocl },
	.opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "add",
};

static char dir[64];

/* Runs spin (long) then add on fresh data, traced; returns the trace's
 * path in path. */
static int traced_run(char *path, size_t size, int iters, unsigned n)
{
	snprintf(dir, sizeof(dir), "/tmp/vela-ocltrace-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	vtest_opencl_env();
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	conf.ncuda = 0;
	conf.nopencl = 1;
	conf.vela_trace = 1;
	conf.vela_trace_prefix = dir;
	conf.precedence_over_environment_variables = 1;
	if (starpu_init(&conf) || starpu_opencl_worker_get_count() < 1)
		return -1;
	if (starpu_opencl_load_opencl_from_string(kernels, &prog, NULL) != CL_SUCCESS)
		return -1;
	float *a = calloc(16, sizeof(float)), *b = calloc(n, sizeof(float));
	starpu_data_handle_t ha, hb;
	starpu_vector_data_register(&ha, STARPU_MAIN_RAM, (uintptr_t) a, 16, sizeof(float));
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) b, n, sizeof(float));
	/* Warm the kernels up (PoCL compiles them at their first launch). */
	int few = 10;
	starpu_task_insert(&spin_cl, STARPU_RW, ha, STARPU_VALUE, &few, sizeof(few), 0);
	starpu_task_wait_for_all();
	/* Both queued before the worker looks: it launches the long kernel,
	 * then fetches the next task's input while the kernel runs. */
	starpu_pause();
	starpu_task_insert(&spin_cl, STARPU_RW, ha, STARPU_VALUE, &iters, sizeof(iters), STARPU_NAME, "long", 0);
	starpu_task_insert(&add_cl, STARPU_RW, hb, STARPU_NAME, "next", 0);
	starpu_resume();
	starpu_task_wait_for_all();
	starpu_data_unregister(ha);
	starpu_data_unregister(hb);
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++)
		bad += b[i] != 1.0f;
	CU_ASSERT_EQUAL(bad, 0);
	free(a);
	free(b);
	starpu_opencl_unload_opencl(&prog);
	starpu_shutdown();
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = -1;
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "vela_trace_", 11))
		{
			snprintf(path, size, "%.63s/%.180s", dir, e->d_name);
			found = 0;
		}
	if (d)
		closedir(d);
	return found;
}

static int task_named(const struct trace *t, const char *name)
{
	for (unsigned i = 0; i < t->ntasks; i++)
		if (t->tasks[i].name && !strcmp(t->tasks[i].name, name))
			return (int) i;
	return -1;
}

static void test_copy_overlaps_kernel(void)
{
	char path[256];
	unsigned n = 1u << 20;	/* 4 MiB */
	CU_ASSERT_EQUAL_FATAL(traced_run(path, sizeof(path), 20 * 1000 * 1000, n), 0);
	struct trace t;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(trace_load(path, &t, err, sizeof(err)), 0);
	CU_ASSERT(t.complete);

	/* The OpenCL worker and node are in the trace. */
	int wocl = -1, nocl = -1;
	for (unsigned i = 0; i < t.nworkers; i++)
		if (t.workers[i].arch == STARPU_OPENCL_WORKER)
			wocl = t.workers[i].id, nocl = (int) t.workers[i].node;
	CU_ASSERT_FATAL(wocl >= 0);
	int il = task_named(&t, "long"), in = task_named(&t, "next");
	CU_ASSERT_FATAL(il >= 0 && in >= 0);
	const struct tr_task *lt = &t.tasks[il], *nt = &t.tasks[in];
	CU_ASSERT_EQUAL(lt->worker, wocl);
	CU_ASSERT_EQUAL(nt->worker, wocl);

	/* The copy of next's input to the device. */
	const struct tr_transfer *x = NULL;
	for (unsigned i = 0; i < t.ntransfers; i++)
		if ((int) t.transfers[i].dst == nocl && t.transfers[i].bytes == (uint64_t) n * sizeof(float))
			x = &t.transfers[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	/* Started while the long kernel ran, before next ran. */
	CU_ASSERT(x->start > lt->exec_start);
	CU_ASSERT(x->start < lt->exec_end);
	CU_ASSERT(x->end <= nt->exec_start);
	CU_ASSERT(nt->exec_end >= lt->exec_end);

	/* Every export shows the device's row and the transfers. */
	int (*exporters[])(const struct trace *, FILE *) = { trace_export_chrome, trace_export_paje, trace_export_svg };
	for (unsigned e = 0; e < sizeof(exporters) / sizeof(exporters[0]); e++)
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		CU_ASSERT_EQUAL(exporters[e](&t, f), 0);
		fclose(f);
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, "OpenCL 0"));
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, "RAM 0"));
		if (e == 0)
			CU_ASSERT_PTR_NOT_NULL(strstr(buf, "RAM 0 -> OpenCL 0"));
		free(buf);
	}
	trace_free(&t);
	unlink(path);
	rmdir(dir);
}

static const struct vtest_case cases[] = {
	{ "copy_overlaps_kernel", test_copy_overlaps_kernel },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "opencl_trace", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run_opencl(argc, argv, suites);
}
