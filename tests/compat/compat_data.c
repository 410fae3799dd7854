/* compat_data: data behaviours (issue 23, group 6). Reductions on data
 * nothing was written to (home node -1, or invalidated) start from the
 * init codelet; starpu_data_lookup finds runtime-allocated buffers; a
 * one-column matrix registered with ld=0; the shadow width of the shadow
 * filters from filter_arg_ptr; STARPU_LIMIT_CPU_NUMA_MEM; starpu_malloc_flags
 * with STARPU_MALLOC_NORECLAIM beyond the limit.
 */
#include "compat.h"

#define NCONTRIB 16
#define MIB (1024 * 1024)

static void zero_cpu(void *b[], void *arg) { (void) arg; *(int *) STARPU_VARIABLE_GET_PTR(b[0]) = 0; }
static void sum_cpu(void *b[], void *arg) { (void) arg; *(int *) STARPU_VARIABLE_GET_PTR(b[0]) += *(int *) STARPU_VARIABLE_GET_PTR(b[1]); }
static void add1_cpu(void *b[], void *arg) { (void) arg; *(int *) STARPU_VARIABLE_GET_PTR(b[0]) += 1; }
static void set_cpu(void *b[], void *arg) { *(int *) STARPU_VARIABLE_GET_PTR(b[0]) = (int) (intptr_t) arg; }

static struct starpu_codelet zero_cl = { .cpu_funcs = { zero_cpu }, .nbuffers = 1, .modes = { STARPU_W } };
static struct starpu_codelet sum_cl = { .cpu_funcs = { sum_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R } };
static struct starpu_codelet add1_cl = { .cpu_funcs = { add1_cpu }, .nbuffers = 1, .modes = { STARPU_REDUX } };
static struct starpu_codelet set_cl = { .cpu_funcs = { set_cpu }, .nbuffers = 1, .modes = { STARPU_W } };

static int read_int(starpu_data_handle_t h)
{
	CHECK(starpu_data_acquire(h, STARPU_R) == 0);
	int v = *(int *) starpu_data_get_local_ptr(h);
	starpu_data_release(h);
	return v;
}

static void contribute(starpu_data_handle_t h)
{
	for (int i = 0; i < NCONTRIB; i++)
		CHECK(starpu_task_insert(&add1_cl, STARPU_REDUX, h, 0) == 0);
}

static void set(starpu_data_handle_t h, int v)
{
	CHECK(starpu_task_insert(&set_cl, STARPU_W, h, STARPU_CL_ARGS_NFREE, (void *) (intptr_t) v, (size_t) 0, 0) == 0);
}

static void reductions(void)
{
	/* a buffer of this shape holding 777 may be reused */
	starpu_data_handle_t old;
	starpu_variable_data_register(&old, -1, 0, sizeof(int));
	set(old, 777);
	starpu_data_unregister(old);

	starpu_data_handle_t h;
	starpu_variable_data_register(&h, -1, 0, sizeof(int));
	starpu_data_set_reduction_methods(h, &sum_cl, &zero_cl);
	contribute(h);
	CHECK(read_int(h) == NCONTRIB);
	contribute(h);
	CHECK(read_int(h) == 2 * NCONTRIB);
	set(h, 5);
	contribute(h);
	CHECK(read_int(h) == 5 + NCONTRIB);
	starpu_data_invalidate_submit(h);
	contribute(h);
	CHECK(read_int(h) == NCONTRIB);
	starpu_data_unregister(h);
}

static void lookup(void)
{
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, -1, 0, 100, sizeof(float));
	set(h, 1);
	CHECK(starpu_data_acquire(h, STARPU_R) == 0);
	void *p = starpu_data_get_local_ptr(h);
	CHECK(p != NULL && starpu_data_lookup(p) == h);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void mincr_cpu(void *b[], void *arg)
{
	(void) arg;
	float *m = (float *) STARPU_MATRIX_GET_PTR(b[0]);
	for (unsigned i = 0; i < STARPU_MATRIX_GET_NX(b[0]); i++)
		m[i] += 1;
}

static struct starpu_codelet mincr_cl = { .cpu_funcs = { mincr_cpu }, .nbuffers = 1, .modes = { STARPU_RW } };

static void matrix_one_column(void)
{
	float m[10] = { 0 };
	starpu_data_handle_t h = NULL;
	starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) m, 0, 10, 1, sizeof(float));
	CHECK(h != NULL);
	if (!h)
		return;
	CHECK(starpu_matrix_get_local_ld(h) == 0);
	CHECK(starpu_task_insert(&mincr_cl, STARPU_RW, h, 0) == 0);
	starpu_data_unregister(h);
	CHECK(m[0] == 1.0f && m[9] == 1.0f);
}

static void shadow(void)
{
	int v[20];
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, 20, sizeof(int));
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block_shadow, .nchildren = 2,
					.filter_arg_ptr = (void *) (uintptr_t) 2 };
	starpu_data_partition(h, &f);
	CHECK(starpu_vector_get_nx(starpu_data_get_sub_data(h, 1, 0)) == 12);
	CHECK(starpu_vector_get_nx(starpu_data_get_sub_data(h, 1, 1)) == 12);
	starpu_data_unpartition(h, STARPU_MAIN_RAM);
	struct starpu_data_filter g = { .filter_func = starpu_vector_filter_block_shadow, .nchildren = 2, .filter_arg = 2 };
	starpu_data_partition(h, &g);
	CHECK(starpu_vector_get_nx(starpu_data_get_sub_data(h, 1, 0)) == 10);
	starpu_data_unpartition(h, STARPU_MAIN_RAM);
	starpu_data_unregister(h);
}

static void limits(void)
{
	setenv("STARPU_LIMIT_CPU_MEM", "5", 1);
	setenv("STARPU_LIMIT_CPU_NUMA_MEM", "8", 1);
	if (compat_start(2, NULL))
	{
		CHECK(!"starpu_init");
		return;
	}
	CHECK(starpu_memory_get_total(STARPU_MAIN_RAM) == 8 * MIB);
	starpu_shutdown();
	unsetenv("STARPU_LIMIT_CPU_NUMA_MEM");
	if (compat_start(2, NULL))
	{
		CHECK(!"starpu_init");
		return;
	}
	CHECK(starpu_memory_get_total(STARPU_MAIN_RAM) == 5 * MIB);
	void *p = NULL, *q = NULL, *r = NULL;
	CHECK(starpu_malloc_flags(&p, 3 * MIB, STARPU_MALLOC_COUNT | STARPU_MALLOC_NORECLAIM) == 0);
	CHECK(starpu_malloc_flags(&q, 3 * MIB, STARPU_MALLOC_COUNT | STARPU_MALLOC_NORECLAIM) == 0);
	CHECK(starpu_memory_get_available(STARPU_MAIN_RAM) == -1 * MIB);
	CHECK(starpu_malloc_flags(&r, 3 * MIB, STARPU_MALLOC_COUNT) == -ENOMEM);
	if (p)
		starpu_free_flags(p, 3 * MIB, STARPU_MALLOC_COUNT);
	if (q)
		starpu_free_flags(q, 3 * MIB, STARPU_MALLOC_COUNT);
	CHECK(starpu_memory_get_available(STARPU_MAIN_RAM) == 5 * MIB);
	starpu_shutdown();
	unsetenv("STARPU_LIMIT_CPU_MEM");
}

int main(void)
{
	int ret = compat_start(2, NULL);
	if (ret == -ENODEV)
		return 77;
	if (ret)
		return 1;
	reductions();
	lookup();
	matrix_one_column();
	shadow();
	starpu_shutdown();
	limits();
	return compat_result("compat_data");
}
