/* test_opencl_stress.c — random task graphs on CPU and OpenCL workers
 * (PoCL's CPU device in CI) compared with the same graph run sequentially:
 * tasks read and write random handles in R, RW and W modes, each may run
 * on either kind of worker, the device's memory is small enough that data
 * is evicted and prefetched while copies and tasks are in flight. Integer
 * kernels, so both kinds compute the same bits.
 */
#include "vtest.h"

#include <starpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NH 24
#define N 16384		/* 64 KiB per handle: 1.5 MiB in all, device limit 1 MiB */
#define NTASKS 600

static struct starpu_opencl_program prog;
static const char *kernels =
	"__kernel void mul_add(__global uint *x, unsigned off, unsigned n, uint c)\n"
	"{ size_t i = get_global_id(0); if (i < n) x[off + i] = x[off + i] * 3u + c; }\n"
	"__kernel void acc(__global uint *x, unsigned xoff, __global const uint *a, unsigned aoff, unsigned n)\n"
	"{ size_t i = get_global_id(0); if (i < n) x[xoff + i] += a[aoff + i]; }\n"
	"__kernel void set(__global uint *x, unsigned off, unsigned n, uint c)\n"
	"{ size_t i = get_global_id(0); if (i < n) x[off + i] = c + (uint) i; }\n";

static cl_kernel load(const char *name, cl_command_queue *q)
{
	cl_kernel k;
	cl_int err = starpu_opencl_load_kernel(&k, q, &prog, name, starpu_worker_get_devid(starpu_worker_get_id()));
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	return k;
}

static void enqueue(cl_kernel k, cl_command_queue q, size_t n)
{
	cl_int err = clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	starpu_opencl_release_kernel(k);
}

#define OFF(b) ((unsigned) (STARPU_VECTOR_GET_OFFSET(b) / sizeof(uint32_t)))

/* One codelet per kind of task, each with both implementations. The
 * constant c travels in cl_arg (its value, not a pointer). */
static void mul_add_cpu(void *b[], void *arg)
{
	uint32_t c = (uint32_t) (uintptr_t) arg, *x = (uint32_t *) STARPU_VECTOR_GET_PTR(b[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(b[0]); i++)
		x[i] = x[i] * 3u + c;
}

static void mul_add_ocl(void *b[], void *arg)
{
	cl_uint c = (cl_uint) (uintptr_t) arg;
	cl_mem x = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(b[0]);
	unsigned off = OFF(b[0]), n = STARPU_VECTOR_GET_NX(b[0]);
	cl_command_queue q;
	cl_kernel k = load("mul_add", &q);
	cl_int err;
	if (starpu_opencl_set_kernel_args(&err, &k, sizeof(x), &x, sizeof(off), &off, sizeof(n), &n, sizeof(c), &c, 0) != 4)
		STARPU_OPENCL_REPORT_ERROR(err);
	enqueue(k, q, n);
}

static void acc_cpu(void *b[], void *arg)
{
	(void) arg;
	uint32_t *x = (uint32_t *) STARPU_VECTOR_GET_PTR(b[0]);
	const uint32_t *a = (const uint32_t *) STARPU_VECTOR_GET_PTR(b[1]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(b[0]); i++)
		x[i] += a[i];
}

static void acc_ocl(void *b[], void *arg)
{
	(void) arg;
	cl_mem x = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(b[0]), a = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(b[1]);
	unsigned xoff = OFF(b[0]), aoff = OFF(b[1]), n = STARPU_VECTOR_GET_NX(b[0]);
	cl_command_queue q;
	cl_kernel k = load("acc", &q);
	cl_int err;
	if (starpu_opencl_set_kernel_args(&err, &k, sizeof(x), &x, sizeof(xoff), &xoff, sizeof(a), &a, sizeof(aoff), &aoff,
					  sizeof(n), &n, 0) != 5)
		STARPU_OPENCL_REPORT_ERROR(err);
	enqueue(k, q, n);
}

static void set_cpu(void *b[], void *arg)
{
	uint32_t c = (uint32_t) (uintptr_t) arg, *x = (uint32_t *) STARPU_VECTOR_GET_PTR(b[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(b[0]); i++)
		x[i] = c + i;
}

static void set_ocl(void *b[], void *arg)
{
	cl_uint c = (cl_uint) (uintptr_t) arg;
	cl_mem x = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(b[0]);
	unsigned off = OFF(b[0]), n = STARPU_VECTOR_GET_NX(b[0]);
	cl_command_queue q;
	cl_kernel k = load("set", &q);
	cl_int err;
	if (starpu_opencl_set_kernel_args(&err, &k, sizeof(x), &x, sizeof(off), &off, sizeof(n), &n, sizeof(c), &c, 0) != 4)
		STARPU_OPENCL_REPORT_ERROR(err);
	enqueue(k, q, n);
}

static struct starpu_codelet mul_add_cl = {
	.cpu_funcs = { mul_add_cpu }, .opencl_funcs = { mul_add_ocl }, .opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 1, .modes = { STARPU_RW }, .name = "mul_add",
};
static struct starpu_codelet acc_cl = {
	.cpu_funcs = { acc_cpu }, .opencl_funcs = { acc_ocl }, .opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "acc",
};
static struct starpu_codelet set_cl = {
	.cpu_funcs = { set_cpu }, .opencl_funcs = { set_ocl }, .opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 1, .modes = { STARPU_W }, .name = "set",
};

/* The graph: task t's kind, handles and constant, from a seed. */
struct graph_task
{
	int kind;		/* 0 mul_add, 1 acc, 2 set */
	unsigned x, a;
	uint32_t c;
};

static void make_graph(struct graph_task *g, unsigned seed)
{
	for (unsigned t = 0; t < NTASKS; t++)
	{
		seed = seed * 1103515245u + 12345u;
		unsigned r = seed >> 8;
		g[t].kind = r % 10 < 5 ? 0 : r % 10 < 9 ? 1 : 2;
		g[t].x = (r / 10) % NH;
		g[t].a = (g[t].x + 1 + (r / 1000) % (NH - 1)) % NH;
		g[t].c = r % 1000;
	}
}

static void run_sequential(const struct graph_task *g, uint32_t (*v)[N])
{
	for (unsigned t = 0; t < NTASKS; t++)
	{
		uint32_t *x = v[g[t].x], *a = v[g[t].a];
		for (unsigned i = 0; i < N; i++)
			x[i] = g[t].kind == 0 ? x[i] * 3u + g[t].c : g[t].kind == 1 ? x[i] + a[i] : g[t].c + i;
	}
}

static void run_graph(const char *policy, unsigned seed)
{
	vtest_opencl_env();
	vtest_setenv("STARPU_SCHED", policy);
	vtest_setenv("STARPU_LIMIT_OPENCL_MEM", "1");
	int started = vtest_start_opencl(1, 1);
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(started, 0);
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(kernels, &prog, NULL), CL_SUCCESS);

	static struct graph_task g[NTASKS];
	make_graph(g, seed);
	uint32_t (*v)[N] = malloc(sizeof(uint32_t[NH][N])), (*ref)[N] = malloc(sizeof(uint32_t[NH][N]));
	for (unsigned h = 0; h < NH; h++)
		for (unsigned i = 0; i < N; i++)
			v[h][i] = ref[h][i] = h * 7919u + i;
	starpu_data_handle_t hs[NH];
	for (unsigned h = 0; h < NH; h++)
		starpu_vector_data_register(&hs[h], STARPU_MAIN_RAM, (uintptr_t) v[h], N, sizeof(uint32_t));
	for (unsigned t = 0; t < NTASKS; t++)
	{
		void *c = (void *) (uintptr_t) g[t].c;
		int ret;
		if (g[t].kind == 0)
			ret = starpu_task_insert(&mul_add_cl, STARPU_RW, hs[g[t].x], STARPU_CL_ARGS_NFREE, c, 0, 0);
		else if (g[t].kind == 1)
			ret = starpu_task_insert(&acc_cl, STARPU_RW, hs[g[t].x], STARPU_R, hs[g[t].a], 0);
		else
			ret = starpu_task_insert(&set_cl, STARPU_W, hs[g[t].x], STARPU_CL_ARGS_NFREE, c, 0, 0);
		CU_ASSERT_EQUAL_FATAL(ret, 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (unsigned h = 0; h < NH; h++)
		starpu_data_unregister(hs[h]);
	starpu_opencl_unload_opencl(&prog);
	vtest_stop();

	run_sequential(g, ref);
	unsigned bad = 0;
	for (unsigned h = 0; h < NH; h++)
		bad += memcmp(v[h], ref[h], sizeof(v[h])) != 0;
	if (bad)
		fprintf(stderr, "policy %s, seed %u: %u of %d handles differ from the sequential run\n", policy, seed, bad, NH);
	CU_ASSERT_EQUAL(bad, 0);
	free(v);
	free(ref);
}

static void test_dmda(void) { run_graph("dmda", 1); }
static void test_random(void) { run_graph("random", 2); }
static void test_lws(void) { run_graph("lws", 3); }
static void test_eager(void) { run_graph("eager", 4); }
static void test_tree_prefetching(void) { run_graph("tree-eager-prefetching", 5); }

static const struct vtest_case cases[] = {
	{ "dmda", test_dmda },
	{ "random", test_random },
	{ "lws", test_lws },
	{ "eager", test_eager },
	{ "tree_eager_prefetching", test_tree_prefetching },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "opencl_random_graphs", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run_opencl(argc, argv, suites);
}
