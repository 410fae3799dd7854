/* test_data_compat: data behaviours StarPU 1.3 applications rely on.
 *
 * A reduction on data nothing was written to (registered with home node -1,
 * or invalidated since) starts from the init codelet, as StarPU does;
 * starpu_data_lookup finds the RAM buffers the runtime allocated;
 * starpu_matrix_data_register takes ld=0 (or any ld) for one column; the
 * shadow filters read their width from filter_arg_ptr (StarPU 1.3's field,
 * not filter_arg); STARPU_LIMIT_CPU_NUMA_MEM limits the RAM node (over
 * STARPU_LIMIT_CPU_MEM); starpu_malloc_flags with STARPU_MALLOC_COUNT |
 * STARPU_MALLOC_NORECLAIM may go beyond the limit instead of failing.
 * Each case starts its own runtime on two CPU workers.
 */
#include <starpu.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vtest.h"

static int start(void)
{
	return vtest_start_cpus(2);
}

/* ---- reductions from init_cl ------------------------------------------- */

static void zero_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]) = 0;
}

static void sum_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]) += *(int *) STARPU_VARIABLE_GET_PTR(buffers[1]);
}

static void add1_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]) += 1;
}

static void set_cpu(void *buffers[], void *cl_arg)
{
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]) = (int) (intptr_t) cl_arg;
}

static struct starpu_codelet zero_cl = { .cpu_funcs = { zero_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "zero" };
static struct starpu_codelet sum_cl = { .cpu_funcs = { sum_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "sum" };
static struct starpu_codelet add1_cl = { .cpu_funcs = { add1_cpu }, .nbuffers = 1, .modes = { STARPU_REDUX }, .name = "add1" };
static struct starpu_codelet set_cl = { .cpu_funcs = { set_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "set" };

#define NCONTRIB 16

static int read_int(starpu_data_handle_t h)
{
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	int v = *(int *) starpu_data_get_local_ptr(h);
	starpu_data_release(h);
	return v;
}

static void contribute(starpu_data_handle_t h)
{
	for (int i = 0; i < NCONTRIB; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&add1_cl, STARPU_REDUX, h, 0), 0);
}

static void test_redux_never_written(void)
{
	vtest_setenv("STARPU_SILENT", "0");	/* no "read before written" warning may come */
	int ret = start();
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	/* Leave a buffer of this shape holding 777 in the runtime's cache:
	 * the next one may well be it. */
	starpu_data_handle_t old;
	starpu_variable_data_register(&old, -1, 0, sizeof(int));
	CU_ASSERT_EQUAL(starpu_task_insert(&set_cl, STARPU_W, old, STARPU_CL_ARGS_NFREE, (void *) 777, (size_t) 0, 0), 0);
	starpu_data_unregister(old);

	starpu_data_handle_t h;
	starpu_variable_data_register(&h, -1, 0, sizeof(int));
	starpu_data_set_reduction_methods(h, &sum_cl, &zero_cl);
	vtest_capture_stderr_begin();
	contribute(h);
	int v = read_int(h);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(v, NCONTRIB);
	CU_ASSERT_PTR_NULL(strstr(msg, "read before anything was written"));
	/* written now: the next reduction adds to it */
	contribute(h);
	CU_ASSERT_EQUAL(read_int(h), 2 * NCONTRIB);
	starpu_data_unregister(h);
	starpu_shutdown();
}

static void test_redux_after_invalidate(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	int x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	starpu_data_set_reduction_methods(h, &sum_cl, &zero_cl);
	CU_ASSERT_EQUAL(starpu_task_insert(&set_cl, STARPU_W, h, STARPU_CL_ARGS_NFREE, (void *) 5, (size_t) 0, 0), 0);
	contribute(h);
	CU_ASSERT_EQUAL(read_int(h), 5 + NCONTRIB);
	/* invalidated (in submission order, or at once): from init_cl again */
	starpu_data_invalidate_submit(h);
	contribute(h);
	CU_ASSERT_EQUAL(read_int(h), NCONTRIB);
	starpu_data_invalidate(h);
	contribute(h);
	CU_ASSERT_EQUAL(read_int(h), NCONTRIB);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, NCONTRIB);
	starpu_shutdown();
}

/* ---- starpu_data_lookup ------------------------------------------------ */

static void test_lookup_runtime_allocated(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, -1, 0, sizeof(int));
	CU_ASSERT_EQUAL(starpu_task_insert(&set_cl, STARPU_W, h, STARPU_CL_ARGS_NFREE, (void *) 3, (size_t) 0, 0), 0);
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	void *p = starpu_data_get_local_ptr(h);
	CU_ASSERT_PTR_NOT_NULL(p);
	CU_ASSERT_PTR_EQUAL(starpu_data_lookup(p), h);
	starpu_data_release(h);
	/* invalidated: its buffer is gone, so is the entry */
	starpu_data_invalidate(h);
	CU_ASSERT_PTR_NULL(starpu_data_lookup(p));
	starpu_data_unregister(h);
	/* an application buffer, as before */
	int y;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &y, sizeof(y));
	CU_ASSERT_PTR_EQUAL(starpu_data_lookup(&y), h);
	starpu_data_unregister(h);
	CU_ASSERT_PTR_NULL(starpu_data_lookup(&y));
	starpu_shutdown();
}

/* ---- matrices of one column -------------------------------------------- */

static void mincr_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	float *m = (float *) STARPU_MATRIX_GET_PTR(buffers[0]);
	unsigned nx = STARPU_MATRIX_GET_NX(buffers[0]), ny = STARPU_MATRIX_GET_NY(buffers[0]);
	unsigned ld = STARPU_MATRIX_GET_LD(buffers[0]);
	for (unsigned j = 0; j < ny; j++)
		for (unsigned i = 0; i < nx; i++)
			m[j * ld + i] += 1;
}

static struct starpu_codelet mincr_cl = { .cpu_funcs = { mincr_cpu }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "mincr" };

static void test_matrix_ld0_one_column(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	float m[10] = { 0 };
	starpu_data_handle_t h = NULL;
	starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) m, 0, 10, 1, sizeof(float));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_matrix_get_local_ld(h), 0);	/* kept, as StarPU does */
	CU_ASSERT_EQUAL(starpu_task_insert(&mincr_cl, STARPU_RW, h, 0), 0);
	CU_ASSERT_PTR_EQUAL(starpu_data_lookup(m), h);
	starpu_data_unregister(h);
	int ok = 1;
	for (int i = 0; i < 10; i++)
		ok &= m[i] == 1.0f;
	CU_ASSERT(ok);
	/* with several columns, ld < nx is still an error */
	vtest_capture_stderr_begin();
	h = NULL;
	float m2[20];
	starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) m2, 0, 10, 2, sizeof(float));
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NULL(h);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "starpu_matrix_data_register: ld=0"));
	starpu_shutdown();
}

/* ---- shadow width ------------------------------------------------------ */

static void test_shadow_from_filter_arg_ptr(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	int v[20];
	for (int i = 0; i < 20; i++)
		v[i] = i;
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, 20, sizeof(int));
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block_shadow, .nchildren = 2,
					.filter_arg_ptr = (void *) (uintptr_t) 2 };
	starpu_data_partition(h, &f);
	for (unsigned i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(starpu_vector_get_nx(starpu_data_get_sub_data(h, 1, i)), (20 - 4) / 2 + 4);
	starpu_data_unpartition(h, STARPU_MAIN_RAM);
	/* filter_arg is not the width: no shadow */
	struct starpu_data_filter g = { .filter_func = starpu_vector_filter_block_shadow, .nchildren = 2, .filter_arg = 2 };
	starpu_data_partition(h, &g);
	for (unsigned i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(starpu_vector_get_nx(starpu_data_get_sub_data(h, 1, i)), 10);
	starpu_data_unpartition(h, STARPU_MAIN_RAM);
	starpu_data_unregister(h);
	starpu_shutdown();
}

/* ---- memory limits ----------------------------------------------------- */

#define MIB (1024 * 1024)

static void test_limit_cpu_numa_mem(void)
{
	vtest_setenv("STARPU_LIMIT_CPU_NUMA_MEM", "5");
	int ret = start();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(starpu_memory_get_total(STARPU_MAIN_RAM), 5 * MIB);
	starpu_shutdown();
	/* over STARPU_LIMIT_CPU_MEM, as in StarPU 1.3 */
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "5");
	vtest_setenv("STARPU_LIMIT_CPU_NUMA_MEM", "8");
	ret = start();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(starpu_memory_get_total(STARPU_MAIN_RAM), 8 * MIB);
	starpu_shutdown();
	/* malformed */
	vtest_setenv("STARPU_LIMIT_CPU_NUMA_MEM", "lots");
	vtest_capture_stderr_begin();
	ret = start();
	const char *msg = vtest_capture_stderr_end();
	vtest_env_restore();
	CU_ASSERT_NOT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "STARPU_LIMIT_CPU_NUMA_MEM='lots'"));
	if (ret == 0)
		starpu_shutdown();
}

static void test_malloc_noreclaim(void)
{
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "5");
	int ret = start();
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	void *p = NULL, *q = NULL, *r = NULL;
	CU_ASSERT_EQUAL(starpu_malloc_flags(&p, 3 * MIB, STARPU_MALLOC_COUNT | STARPU_MALLOC_NORECLAIM), 0);
	CU_ASSERT_EQUAL(starpu_memory_get_available(STARPU_MAIN_RAM), 2 * MIB);
	/* beyond the limit: allowed, the node overflows */
	CU_ASSERT_EQUAL(starpu_malloc_flags(&q, 3 * MIB, STARPU_MALLOC_COUNT | STARPU_MALLOC_NORECLAIM), 0);
	CU_ASSERT_PTR_NOT_NULL(q);
	CU_ASSERT_EQUAL(starpu_memory_get_available(STARPU_MAIN_RAM), -1 * MIB);
	/* without NORECLAIM: refused */
	CU_ASSERT_EQUAL(starpu_malloc_flags(&r, 3 * MIB, STARPU_MALLOC_COUNT), -ENOMEM);
	CU_ASSERT_PTR_NULL(r);
	starpu_free_flags(p, 3 * MIB, STARPU_MALLOC_COUNT);
	starpu_free_flags(q, 3 * MIB, STARPU_MALLOC_COUNT);
	CU_ASSERT_EQUAL(starpu_memory_get_available(STARPU_MAIN_RAM), 5 * MIB);
	starpu_shutdown();
}

static const struct vtest_case cases[] =
{
	{ "redux_never_written", test_redux_never_written },
	{ "redux_after_invalidate", test_redux_after_invalidate },
	{ "lookup_runtime_allocated", test_lookup_runtime_allocated },
	{ "matrix_ld0_one_column", test_matrix_ld0_one_column },
	{ "shadow_from_filter_arg_ptr", test_shadow_from_filter_arg_ptr },
	{ "limit_cpu_numa_mem", test_limit_cpu_numa_mem },
	{ "malloc_noreclaim", test_malloc_noreclaim },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "data_compat", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
