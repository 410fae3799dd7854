/* test_partition_implicit.c — partition plans switched to as StarPU 1.3
 * does, without the application submitting the switches: a task or an
 * acquisition on the pieces of a plan submits it (read-only when it only
 * reads, upgraded when a piece is then written), using the parent again
 * gathers the pieces (or, for a read, leaves them readable), one plan
 * replaces another, nested plans are switched level by level, and several
 * read-only plans of one handle are active together. Each case checks the
 * data, and that nothing was printed.
 */
#include <starpu.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "vtest.h"

static int start_runtime(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf) == 0 ? 0 : -1;
}

static int stop_runtime(void)
{
	starpu_task_wait_for_all();
	starpu_shutdown();
	return 0;
}

enum { N = 24 };

/* v[i] += k on a vector of int64 */
static void add_cpu(void *buffers[], void *arg)
{
	int64_t *v = (int64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] += (int64_t) (intptr_t) arg;
}

static struct starpu_codelet add_cl = {
	.cpu_funcs = { add_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "add",
};

/* *arg = the sum of the vector */
static void sum_cpu(void *buffers[], void *arg)
{
	int64_t *v = (int64_t *) STARPU_VECTOR_GET_PTR(buffers[0]), s = 0;
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		s += v[i];
	*(int64_t *) arg = s;
}

static struct starpu_codelet sum_cl = {
	.cpu_funcs = { sum_cpu },
	.nbuffers = 1,
	.modes = { STARPU_R },
	.name = "sum",
};

struct vec
{
	int64_t v[N];
	int64_t ref[N];
	starpu_data_handle_t h;
};

static void vec_init(struct vec *x)
{
	for (int i = 0; i < N; i++)
		x->v[i] = x->ref[i] = i;
	starpu_vector_data_register(&x->h, STARPU_MAIN_RAM, (uintptr_t) x->v, N, sizeof(int64_t));
}

/* h covers [first, first + len) of x: add k there, in the reference too */
static void add(struct vec *x, starpu_data_handle_t h, unsigned first, unsigned len, int k)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = &add_cl;
	t->cl_arg = (void *) (intptr_t) k;
	t->handles[0] = h;
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	for (unsigned i = first; i < first + len; i++)
		x->ref[i] += k;
}

/* A task summing h (covering [first, first + len)) sees the reference. */
static void check_sum(struct vec *x, starpu_data_handle_t h, unsigned first, unsigned len)
{
	int64_t seen = -1, want = 0;
	for (unsigned i = first; i < first + len; i++)
		want += x->ref[i];
	struct starpu_task *t = starpu_task_create();
	t->cl = &sum_cl;
	t->cl_arg = &seen;
	t->handles[0] = h;
	t->synchronous = 1;
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	CU_ASSERT_EQUAL(seen, want);
}

static void vec_fini(struct vec *x)
{
	starpu_data_unregister(x->h);
	CU_ASSERT(memcmp(x->v, x->ref, sizeof(x->v)) == 0);
}

static struct starpu_data_filter thirds = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
static struct starpu_data_filter halves = { .filter_func = starpu_vector_filter_block, .nchildren = 2 };

/* Pieces written with no partition submitted; the parent used again. */
static void test_pieces_then_parent(void)
{
	struct vec x;
	vec_init(&x);
	starpu_data_handle_t c[3];
	starpu_data_partition_plan(x.h, &thirds, c);
	vtest_capture_stderr_begin();
	for (unsigned i = 0; i < 3; i++)
		add(&x, c[i], 8 * i, 8, (int) i + 1);
	check_sum(&x, x.h, 0, N);			/* read: gathered */
	check_sum(&x, c[2], 16, 8);			/* read-only partition */
	add(&x, c[1], 8, 8, 10);			/* upgraded */
	add(&x, x.h, 0, N, 100);			/* gathered */
	check_sum(&x, c[0], 0, 8);
	check_sum(&x, x.h, 0, N);
	CU_ASSERT_STRING_EQUAL(vtest_capture_stderr_end(), "");
	starpu_data_partition_clean(x.h, 3, c);
	vec_fini(&x);
}

/* Acquisitions switch as tasks do, and releasing a piece prints nothing. */
static void test_acquire_pieces(void)
{
	struct vec x;
	vec_init(&x);
	starpu_data_handle_t c[3];
	starpu_data_partition_plan(x.h, &thirds, c);
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(c[1], STARPU_R), 0);
	CU_ASSERT_EQUAL(((int64_t *) starpu_vector_get_local_ptr(c[1]))[0], 8);
	starpu_data_release(c[1]);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(c[2], STARPU_RW), 0);
	((int64_t *) starpu_vector_get_local_ptr(c[2]))[1] = -5;
	x.ref[17] = -5;
	starpu_data_release(c[2]);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(x.h, STARPU_R), 0);
	CU_ASSERT(memcmp(x.v, x.ref, sizeof(x.v)) == 0);
	starpu_data_release(x.h);
	/* explicitly submitted: acquire and release each piece */
	starpu_data_partition_submit(x.h, 3, c);
	for (unsigned i = 0; i < 3; i++)
	{
		CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(c[i], STARPU_RW), 0);
		((int64_t *) starpu_vector_get_local_ptr(c[i]))[0] = 1000 + i;
		x.ref[8 * i] = 1000 + i;
		starpu_data_release(c[i]);
	}
	starpu_data_unpartition_submit(x.h, 3, c, STARPU_MAIN_RAM);
	CU_ASSERT_STRING_EQUAL(vtest_capture_stderr_end(), "");
	starpu_data_partition_clean(x.h, 3, c);
	vec_fini(&x);
}

/* From one plan to another and back. */
static void test_plan_to_plan(void)
{
	struct vec x;
	vec_init(&x);
	starpu_data_handle_t c[3], h[2];
	starpu_data_partition_plan(x.h, &thirds, c);
	starpu_data_partition_plan(x.h, &halves, h);
	vtest_capture_stderr_begin();
	add(&x, c[1], 8, 8, 1);
	add(&x, h[1], 12, 12, 2);
	add(&x, c[0], 0, 8, 3);
	check_sum(&x, h[0], 0, 12);
	check_sum(&x, c[1], 8, 8);
	check_sum(&x, x.h, 0, N);
	CU_ASSERT_STRING_EQUAL(vtest_capture_stderr_end(), "");
	starpu_data_partition_clean(x.h, 3, c);
	starpu_data_partition_clean(x.h, 2, h);
	vec_fini(&x);
}

/* Two read-only plans active at once, explicitly and implicitly, the
 * parent readable meanwhile; a write gathers them. */
static void test_readonly_plans(void)
{
	struct vec x;
	vec_init(&x);
	starpu_data_handle_t c[3], h[2];
	starpu_data_partition_plan(x.h, &thirds, c);
	starpu_data_partition_plan(x.h, &halves, h);
	vtest_capture_stderr_begin();
	starpu_data_partition_readonly_submit(x.h, 3, c);
	starpu_data_partition_readonly_submit(x.h, 2, h);
	check_sum(&x, c[2], 16, 8);
	check_sum(&x, h[0], 0, 12);
	check_sum(&x, x.h, 0, N);
	starpu_data_unpartition_submit(x.h, 2, h, STARPU_MAIN_RAM);
	check_sum(&x, c[0], 0, 8);
	starpu_data_unpartition_submit(x.h, 3, c, STARPU_MAIN_RAM);
	add(&x, x.h, 0, N, 1);
	/* implicitly: reads only */
	check_sum(&x, h[1], 12, 12);
	check_sum(&x, c[1], 8, 8);
	check_sum(&x, x.h, 0, N);
	add(&x, h[0], 0, 12, 7);			/* the thirds gathered, halves upgraded */
	check_sum(&x, c[0], 0, 8);
	add(&x, x.h, 0, N, 1);
	CU_ASSERT_STRING_EQUAL(vtest_capture_stderr_end(), "");
	/* an explicit upgrade with another read-only plan active is refused */
	starpu_data_partition_readonly_submit(x.h, 3, c);
	starpu_data_partition_readonly_submit(x.h, 2, h);
	vtest_capture_stderr_begin();
	starpu_data_partition_readwrite_upgrade_submit(x.h, 2, h);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT(strstr(msg, "starpu_data_partition_readwrite_upgrade_submit") != NULL);
	CU_ASSERT(strstr(msg, "other read-only partitions") != NULL);
	vtest_capture_stderr_begin();
	starpu_data_partition_submit(x.h, 2, h);
	msg = vtest_capture_stderr_end();
	CU_ASSERT(strstr(msg, "already partitioned") != NULL);
	starpu_data_unpartition_submit(x.h, 3, c, STARPU_MAIN_RAM);
	starpu_data_partition_readwrite_upgrade_submit(x.h, 2, h);
	add(&x, h[1], 12, 12, 5);
	starpu_data_partition_clean(x.h, 3, c);
	starpu_data_partition_clean(x.h, 2, h);
	vec_fini(&x);
}

/* Plans of pieces: switched level by level from the root, gathered from
 * the leaves. */
static void test_nested(void)
{
	struct vec x;
	vec_init(&x);
	starpu_data_handle_t h[2], g[2];
	starpu_data_partition_plan(x.h, &halves, h);
	starpu_data_partition_plan(h[1], &halves, g);
	vtest_capture_stderr_begin();
	add(&x, g[1], 18, 6, 1);
	check_sum(&x, h[0], 0, 12);
	add(&x, h[1], 12, 12, 2);
	check_sum(&x, g[0], 12, 6);
	add(&x, x.h, 0, N, 3);
	add(&x, g[0], 12, 6, 4);
	check_sum(&x, x.h, 0, N);
	CU_ASSERT_STRING_EQUAL(vtest_capture_stderr_end(), "");
	starpu_data_partition_clean(x.h, 2, h);
	vec_fini(&x);
}

/* Many switches in a row, none waited for: they keep their order. */
static void test_many_switches(void)
{
	struct vec x;
	vec_init(&x);
	starpu_data_handle_t c[3], h[2];
	starpu_data_partition_plan(x.h, &thirds, c);
	starpu_data_partition_plan(x.h, &halves, h);
	for (int r = 0; r < 20; r++)
	{
		add(&x, c[r % 3], 8 * (r % 3), 8, r);
		add(&x, h[r % 2], 12 * (r % 2), 12, 1);
		if (r % 5 == 0)
			add(&x, x.h, 0, N, 2);
	}
	check_sum(&x, x.h, 0, N);
	starpu_data_partition_clean(x.h, 3, c);
	starpu_data_partition_clean(x.h, 2, h);
	vec_fini(&x);
}

static const struct vtest_case cases[] = {
	{ "pieces_then_parent", test_pieces_then_parent },
	{ "acquire_pieces", test_acquire_pieces },
	{ "plan_to_plan", test_plan_to_plan },
	{ "readonly_plans", test_readonly_plans },
	{ "nested", test_nested },
	{ "many_switches", test_many_switches },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "partition_implicit", start_runtime, stop_runtime, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
