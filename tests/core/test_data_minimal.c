/* test_data_minimal: the smallest useful slice of data management.
 *
 * Registering variable, vector and matrix handles, their accessors from the
 * application and from inside codelets, unregistering (results visible to
 * the application afterwards), implicit sequential-consistency dependencies
 * between tasks (an order-sensitive chain, readers between writers),
 * starpu_data_acquire / starpu_data_release in R, W and RW modes, and the
 * sequential-consistency flag. The whole suite shares one runtime with two
 * CPU workers, so that misordered tasks have a chance to show.
 */
#include <starpu.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vtest.h"

static int suite_init(void)
{
	return vtest_start_cpus(2);
}


/* Submits cl on the given handles (modes from the codelet) with cl_arg. */
static int submit(struct starpu_codelet *cl, void *arg, int nh, starpu_data_handle_t *h)
{
	struct starpu_task *task = starpu_task_create();
	task->cl = cl;
	task->cl_arg = arg;
	for (int i = 0; i < nh; i++)
		task->handles[i] = h[i];
	return starpu_task_submit(task);
}

/* ---- registration and accessors ---------------------------------------- */

/* What a codelet saw through the interface macros. */
struct layout
{
	uintptr_t var_ptr;
	size_t var_elemsize;
	uintptr_t vec_ptr;
	unsigned vec_nx;
	size_t vec_elemsize;
	uintptr_t mat_ptr;
	unsigned mat_nx, mat_ny, mat_ld;
	size_t mat_elemsize;
	double vec_sum;
	double mat_sum;
};

static void layout_cpu(void *buffers[], void *cl_arg)
{
	struct layout *l = cl_arg;
	l->var_ptr = STARPU_VARIABLE_GET_PTR(buffers[0]);
	l->var_elemsize = STARPU_VARIABLE_GET_ELEMSIZE(buffers[0]);
	l->vec_ptr = STARPU_VECTOR_GET_PTR(buffers[1]);
	l->vec_nx = STARPU_VECTOR_GET_NX(buffers[1]);
	l->vec_elemsize = STARPU_VECTOR_GET_ELEMSIZE(buffers[1]);
	l->mat_ptr = STARPU_MATRIX_GET_PTR(buffers[2]);
	l->mat_nx = STARPU_MATRIX_GET_NX(buffers[2]);
	l->mat_ny = STARPU_MATRIX_GET_NY(buffers[2]);
	l->mat_ld = STARPU_MATRIX_GET_LD(buffers[2]);
	l->mat_elemsize = STARPU_MATRIX_GET_ELEMSIZE(buffers[2]);

	const double *v = (const double *) l->vec_ptr;
	l->vec_sum = 0;
	for (unsigned i = 0; i < l->vec_nx; i++)
		l->vec_sum += v[i];
	const float *m = (const float *) l->mat_ptr;
	l->mat_sum = 0;
	for (unsigned j = 0; j < l->mat_ny; j++)
		for (unsigned i = 0; i < l->mat_nx; i++)
			l->mat_sum += m[j * l->mat_ld + i];
}

static struct starpu_codelet layout_cl =
{
	.cpu_funcs = { layout_cpu },
	.nbuffers = 3,
	.modes = { STARPU_R, STARPU_R, STARPU_R },
};

static void test_register_accessors(void)
{
	long var = 5;
	enum { VN = 10, MX = 3, MY = 4, MLD = 7 };
	double vec[VN];
	float mat[MLD * MY];
	for (int i = 0; i < VN; i++)
		vec[i] = i + 0.5;
	for (int i = 0; i < MLD * MY; i++)
		mat[i] = 1000.0f;	/* padding: must not be read as data */
	for (int j = 0; j < MY; j++)
		for (int i = 0; i < MX; i++)
			mat[j * MLD + i] = (float) (i + j);

	starpu_data_handle_t h[3];
	starpu_variable_data_register(&h[0], STARPU_MAIN_RAM, (uintptr_t) &var, sizeof(var));
	starpu_vector_data_register(&h[1], STARPU_MAIN_RAM, (uintptr_t) vec, VN, sizeof(double));
	starpu_matrix_data_register(&h[2], STARPU_MAIN_RAM, (uintptr_t) mat, MLD, MX, MY, sizeof(float));
	for (int i = 0; i < 3; i++)
		CU_ASSERT_PTR_NOT_NULL(h[i]);

	/* application-side accessors */
	CU_ASSERT_EQUAL(starpu_variable_get_elemsize(h[0]), sizeof(long));
	CU_ASSERT_EQUAL(starpu_variable_get_local_ptr(h[0]), (uintptr_t) &var);
	CU_ASSERT_EQUAL(starpu_vector_get_nx(h[1]), VN);
	CU_ASSERT_EQUAL(starpu_vector_get_elemsize(h[1]), sizeof(double));
	CU_ASSERT_EQUAL(starpu_vector_get_local_ptr(h[1]), (uintptr_t) vec);
	CU_ASSERT_EQUAL(starpu_matrix_get_nx(h[2]), MX);
	CU_ASSERT_EQUAL(starpu_matrix_get_ny(h[2]), MY);
	CU_ASSERT_EQUAL(starpu_matrix_get_local_ld(h[2]), MLD);
	CU_ASSERT_EQUAL(starpu_matrix_get_elemsize(h[2]), sizeof(float));
	CU_ASSERT_EQUAL(starpu_matrix_get_local_ptr(h[2]), (uintptr_t) mat);
	CU_ASSERT_EQUAL(starpu_data_get_size(h[0]), sizeof(long));
	CU_ASSERT_EQUAL(starpu_data_get_size(h[1]), VN * sizeof(double));
	CU_ASSERT_EQUAL(starpu_data_get_size(h[2]), MX * MY * sizeof(float));

	/* codelet-side macros; CPU workers work on the registered buffers */
	struct layout l;
	memset(&l, 0, sizeof(l));
	CU_ASSERT_EQUAL(submit(&layout_cl, &l, 3, h), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(l.var_ptr, (uintptr_t) &var);
	CU_ASSERT_EQUAL(l.var_elemsize, sizeof(long));
	CU_ASSERT_EQUAL(l.vec_ptr, (uintptr_t) vec);
	CU_ASSERT_EQUAL(l.vec_nx, VN);
	CU_ASSERT_EQUAL(l.vec_elemsize, sizeof(double));
	CU_ASSERT_EQUAL(l.mat_ptr, (uintptr_t) mat);
	CU_ASSERT_EQUAL(l.mat_nx, MX);
	CU_ASSERT_EQUAL(l.mat_ny, MY);
	CU_ASSERT_EQUAL(l.mat_ld, MLD);
	CU_ASSERT_EQUAL(l.mat_elemsize, sizeof(float));
	CU_ASSERT_DOUBLE_EQUAL(l.vec_sum, VN * VN / 2.0, 1e-9);
	double msum = 0;
	for (int j = 0; j < MY; j++)
		for (int i = 0; i < MX; i++)
			msum += i + j;
	CU_ASSERT_DOUBLE_EQUAL(l.mat_sum, msum, 1e-9);

	for (int i = 0; i < 3; i++)
		starpu_data_unregister(h[i]);
}

/* ---- unregister writes back -------------------------------------------- */

static void fill_cpu(void *buffers[], void *cl_arg)
{
	int base = *(int *) cl_arg;
	int *v = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (unsigned i = 0; i < n; i++)
		v[i] = base + (int) i;
}

static struct starpu_codelet fill_cl =
{
	.cpu_funcs = { fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
};

static void set_var_cpu(void *buffers[], void *cl_arg)
{
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]) = *(int *) cl_arg;
}

static struct starpu_codelet set_var_cl =
{
	.cpu_funcs = { set_var_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
};

static void test_unregister_writes_back(void)
{
	enum { N = 100 };
	int v[N];
	memset(v, 0, sizeof(v));
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, N, sizeof(int));
	int base = 500;
	CU_ASSERT_EQUAL(submit(&fill_cl, &base, 1, &h), 0);
	/* no wait: unregister itself waits for the task */
	starpu_data_unregister(h);
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL(v[i], 500 + i);

	/* unregister_submit: visible once the tasks are done */
	int x = 0;
	int value = 77;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	CU_ASSERT_EQUAL(submit(&set_var_cl, &value, 1, &h), 0);
	starpu_data_unregister_submit(h);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(x, 77);
}

/* A handle with no home buffer: StarPU allocates it; acquire reads it. */
static void test_no_home_node(void)
{
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, -1, 0, sizeof(int));
	int value = 1234;
	CU_ASSERT_EQUAL(submit(&set_var_cl, &value, 1, &h), 0);
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	int *p = (int *) starpu_variable_get_local_ptr(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(*p, 1234);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

/* ---- implicit dependencies --------------------------------------------- */

#define PRIME 1000003L

static void affine_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	long *x = (long *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	*x = (2 * *x + 1) % PRIME;
}

static struct starpu_codelet affine_cl =
{
	.cpu_funcs = { affine_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
};

/* x <- x * k + c: composing different steps makes the result depend on the
 * exact order, not just on the count */
static void mix_cpu(void *buffers[], void *cl_arg)
{
	long k = (long) (intptr_t) cl_arg;
	long *x = (long *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	*x = (*x * (k % 7 + 2) + k) % PRIME;
}

static struct starpu_codelet mix_cl =
{
	.cpu_funcs = { mix_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
};

static void test_rw_chain(void)
{
	enum { N = 1000 };
	long x = 17;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL(submit(&affine_cl, NULL, 1, &h), 0);
	starpu_data_unregister(h);
	long expect = 17;
	for (int i = 0; i < N; i++)
		expect = (2 * expect + 1) % PRIME;
	CU_ASSERT_EQUAL(x, expect);

	/* with a step that depends on the task's position */
	x = 3;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL(submit(&mix_cl, (void *) (intptr_t) i, 1, &h), 0);
	starpu_data_unregister(h);
	expect = 3;
	for (long i = 0; i < N; i++)
		expect = (expect * (i % 7 + 2) + i) % PRIME;
	CU_ASSERT_EQUAL(x, expect);
}

static void read_var_cpu(void *buffers[], void *cl_arg)
{
	*(int *) cl_arg = *(int *) STARPU_VARIABLE_GET_PTR(buffers[0]);
}

static struct starpu_codelet read_var_cl =
{
	.cpu_funcs = { read_var_cpu },
	.nbuffers = 1,
	.modes = { STARPU_R },
};

static void test_readers_between_writers(void)
{
	enum { ROUNDS = 50, READERS = 4 };
	static int values[ROUNDS];
	static int seen[ROUNDS][READERS];
	int x = -1;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	for (int r = 0; r < ROUNDS; r++)
	{
		values[r] = 1000 + r;
		CU_ASSERT_EQUAL(submit(&set_var_cl, &values[r], 1, &h), 0);
		for (int k = 0; k < READERS; k++)
		{
			seen[r][k] = -2;
			CU_ASSERT_EQUAL(submit(&read_var_cl, &seen[r][k], 1, &h), 0);
		}
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < READERS; k++)
			CU_ASSERT_EQUAL(seen[r][k], 1000 + r);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, 1000 + ROUNDS - 1);
}

/* ---- acquire / release ---------------------------------------------------- */

static void test_acquire_read(void)
{
	long x = 1;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	for (int i = 0; i < 20; i++)
		CU_ASSERT_EQUAL(submit(&affine_cl, NULL, 1, &h), 0);
	/* waits for the 20 writers */
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	long expect = 1;
	for (int i = 0; i < 20; i++)
		expect = (2 * expect + 1) % PRIME;
	CU_ASSERT_EQUAL(x, expect);
	CU_ASSERT_EQUAL(*(long *) starpu_variable_get_local_ptr(h), expect);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void test_acquire_write(void)
{
	long x = 1;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	CU_ASSERT_EQUAL(submit(&affine_cl, NULL, 1, &h), 0);	/* x = 3 */

	/* W: the application overwrites the value */
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_W), 0);
	x = 100;
	starpu_data_release(h);
	CU_ASSERT_EQUAL(submit(&affine_cl, NULL, 1, &h), 0);	/* 201 */

	/* RW: the application updates what the tasks left */
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_RW), 0);
	CU_ASSERT_EQUAL(x, 201);
	x += 1000;
	starpu_data_release(h);
	CU_ASSERT_EQUAL(submit(&affine_cl, NULL, 1, &h), 0);	/* 2403 */

	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, 2403);
}

/* Tasks submitted while the application holds the data wait for the
 * release. */
static void test_acquire_blocks_tasks(void)
{
	int x = 5;
	int seen = -1;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_RW), 0);
	CU_ASSERT_EQUAL(submit(&read_var_cl, &seen, 1, &h), 0);
	/* the reader cannot have run: it would have seen 5 */
	struct timespec ts = { 0, 30 * 1000000L };
	nanosleep(&ts, NULL);
	CU_ASSERT_EQUAL(seen, -1);
	x = 6;
	starpu_data_release(h);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(seen, 6);
	starpu_data_unregister(h);
}

/* ---- sequential consistency flag ---------------------------------------- */

static atomic_int inc_count;

static void atomic_inc_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	atomic_int *x = (atomic_int *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	atomic_fetch_add(x, 1);
	atomic_fetch_add(&inc_count, 1);
}

static struct starpu_codelet atomic_inc_cl =
{
	.cpu_funcs = { atomic_inc_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
};

static void test_sequential_consistency_flag(void)
{
	CU_ASSERT_NOT_EQUAL(starpu_data_get_default_sequential_consistency_flag(), 0);
	atomic_int x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	CU_ASSERT_NOT_EQUAL(starpu_data_get_sequential_consistency_flag(h), 0);
	starpu_data_set_sequential_consistency_flag(h, 0);
	CU_ASSERT_EQUAL(starpu_data_get_sequential_consistency_flag(h), 0);

	/* no implicit ordering any more: the updates are atomic, so any order
	 * (or overlap) gives the same count */
	atomic_store(&inc_count, 0);
	for (int i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(submit(&atomic_inc_cl, NULL, 1, &h), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&inc_count), 40);

	starpu_data_set_sequential_consistency_flag(h, 1);
	CU_ASSERT_NOT_EQUAL(starpu_data_get_sequential_consistency_flag(h), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(atomic_load(&x), 40);
}

static const struct vtest_case data_cases[] =
{
	{ "register_accessors", test_register_accessors },
	{ "unregister_writes_back", test_unregister_writes_back },
	{ "no_home_node", test_no_home_node },
	{ "rw_chain", test_rw_chain },
	{ "readers_between_writers", test_readers_between_writers },
	{ "acquire_read", test_acquire_read },
	{ "acquire_write", test_acquire_write },
	{ "acquire_blocks_tasks", test_acquire_blocks_tasks },
	{ "sequential_consistency_flag", test_sequential_consistency_flag },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "data_minimal", suite_init, vtest_stop, data_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
