/* test_partition_bad_input.c — misuses of partitioning: filters that cannot cut
 * the data, plans and pieces that do not match, a handle partitioned twice,
 * the parent used while partitioned synchronously, accesses no partition
 * can satisfy, pieces unregistered directly. (A plan that is not submitted
 * is switched to implicitly when its pieces are used, as in StarPU 1.3:
 * test_partition_implicit.c.)
 *
 * Each must give one clear error line (captured from stderr and checked
 * for the API call and the cause), the documented error code where the API
 * returns one, and leave everything usable: the partition in place works,
 * and the data comes back intact.
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

static int contains(const char *text, const char *what)
{
	return strstr(text, what) != NULL;
}

/* The captured text is exactly one line. */
static int one_line(const char *text)
{
	size_t n = strlen(text);
	return n > 1 && text[n - 1] == '\n' && !memchr(text, '\n', n - 1);
}

/* Checks a captured message: one line, naming fn and containing why. */
#define CHECK_MSG(msg, fn, why) do { \
	CU_ASSERT(one_line(msg)); \
	CU_ASSERT(contains(msg, fn)); \
	CU_ASSERT(contains(msg, why)); \
} while (0)

/* x <- x * 2 + 1 on every element of a vector of int64. */
static void twice_cpu(void *buffers[], void *arg)
{
	(void) arg;
	int64_t *v = (int64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] = v[i] * 2 + 1;
}

static struct starpu_codelet twice_cl = {
	.cpu_funcs = { twice_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "twice",
};

static void read_cpu(void *buffers[], void *arg)
{
	*(int64_t *) arg = *(int64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
}

static struct starpu_codelet read_cl = {
	.cpu_funcs = { read_cpu },
	.nbuffers = 1,
	.modes = { STARPU_R },
	.name = "read",
};

static struct starpu_codelet write_cl = {
	.cpu_funcs = { twice_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "write",
};

static int submit(struct starpu_codelet *cl, void *arg, starpu_data_handle_t h)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->cl_arg = arg;
	t->handles[0] = h;
	int ret = starpu_task_submit(t);
	if (ret)
		starpu_task_destroy(t);
	return ret;
}

/* A vector of N int64 with v[i] = i, and its expected content. */
enum { N = 12 };

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

static void ref_twice(struct vec *x, unsigned first, unsigned len)
{
	for (unsigned i = first; i < first + len; i++)
		x->ref[i] = x->ref[i] * 2 + 1;
}

/* The handle works (a task updates it) and holds what it should. */
static void vec_check_works(struct vec *x)
{
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, x->h), 0);
	ref_twice(x, 0, N);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(x->h, STARPU_R), 0);
	CU_ASSERT(memcmp(x->v, x->ref, sizeof(x->v)) == 0);
	starpu_data_release(x->h);
}

static void vec_fini(struct vec *x)
{
	starpu_data_unregister(x->h);
	CU_ASSERT(memcmp(x->v, x->ref, sizeof(x->v)) == 0);
}

/* ---- filters that cannot cut ----------------------------------------- */

static unsigned zero_children(struct starpu_data_filter *f, starpu_data_handle_t h)
{
	(void) f;
	(void) h;
	return 0;
}

/* f must be refused by starpu_data_partition and by partition_plan with a
 * message containing why; h stays usable and unpartitioned. */
static void check_refused(struct vec *x, starpu_data_handle_t h, struct starpu_data_filter *f, const char *why)
{
	vtest_capture_stderr_begin();
	starpu_data_partition(h, f);
	const char *msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition", why);
	CU_ASSERT_EQUAL(starpu_data_get_nb_children(h), 0);

	starpu_data_handle_t pieces[16];
	for (int i = 0; i < 16; i++)
		pieces[i] = NULL;
	vtest_capture_stderr_begin();
	starpu_data_partition_plan(h, f, pieces);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_plan", why);
	for (int i = 0; i < 16; i++)
		CU_ASSERT_PTR_NULL(pieces[i]);
	if (x)
		vec_check_works(x);
}

static void test_zero_pieces(void)
{
	struct vec x;
	vec_init(&x);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 0 };
	check_refused(&x, x.h, &f, "0 pieces");
	struct starpu_data_filter g = { .filter_func = starpu_vector_filter_block, .nchildren = 3, .get_nchildren = zero_children };
	check_refused(&x, x.h, &g, "0 pieces");
	struct starpu_data_filter none = { .nchildren = 2 };
	check_refused(&x, x.h, &none, "filter_func");
	vec_fini(&x);
}

static void test_too_many_pieces(void)
{
	struct vec x;
	vec_init(&x);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = N + 1 };
	check_refused(&x, x.h, &f, "13 pieces of 12 elements");
	/* shadows of 5 leave 2 elements for 3 pieces */
	struct starpu_data_filter s = { .filter_func = starpu_vector_filter_block_shadow, .nchildren = 3, .filter_arg_ptr = (void *) (uintptr_t) 5 };
	check_refused(&x, x.h, &s, "3 pieces of 2 elements");
	/* shadows of 6 leave nothing */
	s.filter_arg_ptr = (void *) (uintptr_t) 6;
	check_refused(&x, x.h, &s, "shadow");
	struct starpu_data_filter d = { .filter_func = starpu_vector_filter_divide_in_2, .nchildren = 2, .filter_arg = N + 1 };
	check_refused(&x, x.h, &d, "13 elements in a vector of 12");
	d.filter_arg = 4;
	d.nchildren = 3;
	check_refused(&x, x.h, &d, "must be 2");
	uint32_t len[3] = { 5, 5, 5 };
	struct starpu_data_filter l = { .filter_func = starpu_vector_filter_list, .nchildren = 3, .filter_arg_ptr = len };
	check_refused(&x, x.h, &l, "add up to 15");
	long llen[2] = { 4, -1 };
	struct starpu_data_filter ll = { .filter_func = starpu_vector_filter_list_long, .nchildren = 2, .filter_arg_ptr = llen };
	check_refused(&x, x.h, &ll, "negative");
	l.filter_arg_ptr = NULL;
	check_refused(&x, x.h, &l, "filter_arg_ptr");
	vec_fini(&x);

	/* 2D and 3D */
	double m[4 * 3];
	starpu_data_handle_t hm;
	starpu_matrix_data_register(&hm, STARPU_MAIN_RAM, (uintptr_t) m, 4, 4, 3, sizeof(double));
	struct starpu_data_filter mv = { .filter_func = starpu_matrix_filter_vertical_block, .nchildren = 4 };
	check_refused(NULL, hm, &mv, "4 pieces of 3 elements");
	starpu_data_unregister(hm);
	int32_t b[2 * 2 * 2];
	starpu_data_handle_t hb;
	starpu_block_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) b, 2, 4, 2, 2, 2, sizeof(int32_t));
	struct starpu_data_filter bd = { .filter_func = starpu_block_filter_depth_block, .nchildren = 3 };
	check_refused(NULL, hb, &bd, "3 pieces of 2 elements");
	starpu_data_unregister(hb);
}

static void test_wrong_kind(void)
{
	double m[4 * 3];
	starpu_data_handle_t hm;
	starpu_matrix_data_register(&hm, STARPU_MAIN_RAM, (uintptr_t) m, 4, 4, 3, sizeof(double));
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 2 };
	check_refused(NULL, hm, &f, "starpu_vector_filter_block cuts vector data, the handle holds matrix data");
	struct starpu_data_filter d = { .filter_func = starpu_vector_filter_divide_in_2, .nchildren = 2, .filter_arg = 1 };
	check_refused(NULL, hm, &d, "holds matrix data");
	starpu_data_unregister(hm);

	struct vec x;
	vec_init(&x);
	struct starpu_data_filter g = { .filter_func = starpu_block_filter_depth_block, .nchildren = 2 };
	check_refused(&x, x.h, &g, "starpu_block_filter_depth_block cuts block data, the handle holds vector data");
	struct starpu_data_filter c = {
		.filter_func = starpu_bcsr_filter_canonical_block, .nchildren = 2,
		.get_child_ops = starpu_bcsr_filter_canonical_block_child_ops,
	};
	check_refused(&x, x.h, &c, "holds vector data");
	vec_fini(&x);

	/* canonical blocks need one piece per block, and the matrix ops */
	uint32_t rowptr[2] = { 0, 2 }, colind[2] = { 0, 1 };
	double nzval[8];
	starpu_data_handle_t hs;
	starpu_bcsr_data_register(&hs, STARPU_MAIN_RAM, 2, 1, (uintptr_t) nzval, colind, rowptr, 0, 2, 2, sizeof(double));
	c.nchildren = 3;
	check_refused(NULL, hs, &c, "3 pieces for 2 blocks");
	c.nchildren = 2;
	c.get_child_ops = NULL;
	check_refused(NULL, hs, &c, "get_child_ops");
	starpu_data_unregister(hs);
}

/* ---- plans and pieces that do not match ------------------------------- */

static void test_mismatched_plan(void)
{
	struct vec x, other;
	vec_init(&x);
	vec_init(&other);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	starpu_data_handle_t c[3], oc[3];
	starpu_data_partition_plan(x.h, &f, c);
	starpu_data_partition_plan(other.h, &f, oc);

	const char *msg;
	vtest_capture_stderr_begin();
	starpu_data_partition_submit(x.h, 2, c);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_submit", "not a partition plan");
	/* the plan of another handle */
	vtest_capture_stderr_begin();
	starpu_data_partition_submit(x.h, 3, oc);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_submit", "not a partition plan");
	/* pieces out of order */
	starpu_data_handle_t swapped[3] = { c[1], c[0], c[2] };
	vtest_capture_stderr_begin();
	starpu_data_partition_readonly_submit(x.h, 3, swapped);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_readonly_submit", "not a partition plan");
	vtest_capture_stderr_begin();
	starpu_data_partition_submit(x.h, 3, NULL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_submit", "NULL");
	/* nothing happened: the parent works, no plan is submitted */
	vec_check_works(&x);
	vtest_capture_stderr_begin();
	starpu_data_partition_readwrite_upgrade_submit(x.h, 3, c);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_readwrite_upgrade_submit", "not partitioned read-only");

	/* the right plan now */
	starpu_data_partition_submit(x.h, 3, c);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(submit(&twice_cl, NULL, c[i]), 0);
	ref_twice(&x, 0, N);
	vtest_capture_stderr_begin();
	starpu_data_unpartition_submit(x.h, 2, c, STARPU_MAIN_RAM);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unpartition_submit", "not a partition plan");
	vtest_capture_stderr_begin();
	starpu_data_unpartition_submit(x.h, 3, c, 99);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unpartition_submit", "gathering node 99");
	vtest_capture_stderr_begin();
	starpu_data_partition_clean(x.h, 3, oc);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_clean", "not a partition plan");
	/* still partitioned: the pieces work */
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, c[2]), 0);
	ref_twice(&x, 8, 4);
	starpu_data_unpartition_submit(x.h, 3, c, STARPU_MAIN_RAM);
	vec_check_works(&x);
	starpu_data_partition_clean(x.h, 3, c);
	starpu_data_partition_clean(other.h, 3, oc);
	vec_fini(&x);
	vec_fini(&other);
}

/* ---- partitioned twice -------------------------------------------------- */

static void test_partition_twice_sync(void)
{
	struct vec x;
	vec_init(&x);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	struct starpu_data_filter g = { .filter_func = starpu_vector_filter_block, .nchildren = 2 };
	starpu_data_partition(x.h, &f);
	CU_ASSERT_EQUAL_FATAL(starpu_data_get_nb_children(x.h), 3);
	starpu_data_handle_t c0 = starpu_data_get_child(x.h, 0);

	const char *msg;
	vtest_capture_stderr_begin();
	starpu_data_partition(x.h, &g);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition", "already partitioned");
	CU_ASSERT_EQUAL(starpu_data_get_nb_children(x.h), 3);
	CU_ASSERT_PTR_EQUAL(starpu_data_get_child(x.h, 0), c0);

	starpu_data_handle_t plan[2] = { NULL, NULL };
	vtest_capture_stderr_begin();
	starpu_data_partition_plan(x.h, &g, plan);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_plan", "partitioned");
	CU_ASSERT_PTR_NULL(plan[0]);

	/* the pieces still work and are gathered back */
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(submit(&twice_cl, NULL, starpu_data_get_child(x.h, i)), 0);
	ref_twice(&x, 0, N);
	starpu_data_unpartition(x.h, STARPU_MAIN_RAM);
	vtest_capture_stderr_begin();
	starpu_data_unpartition(x.h, STARPU_MAIN_RAM);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unpartition", "not partitioned");
	vec_check_works(&x);
	vec_fini(&x);
}

/* A plan made before the handle was partitioned synchronously may not be
 * submitted while it is. */
static void test_partition_twice_mixed(void)
{
	struct vec x;
	vec_init(&x);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	struct starpu_data_filter g = { .filter_func = starpu_vector_filter_block, .nchildren = 2 };
	starpu_data_handle_t p[2];
	starpu_data_partition_plan(x.h, &g, p);
	starpu_data_partition(x.h, &f);
	CU_ASSERT_EQUAL_FATAL(starpu_data_get_nb_children(x.h), 3);

	const char *msg;
	vtest_capture_stderr_begin();
	starpu_data_partition_submit(x.h, 2, p);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_submit", "partitioned");
	vtest_capture_stderr_begin();
	starpu_data_partition_readonly_submit(x.h, 2, p);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_readonly_submit", "partitioned");
	/* the plan's pieces stay unusable, the synchronous ones work */
	int64_t seen = -1;
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(submit(&read_cl, &seen, p[0]), -EINVAL);
	vtest_capture_stderr_end();
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(submit(&twice_cl, NULL, starpu_data_get_child(x.h, i)), 0);
	ref_twice(&x, 0, N);
	starpu_data_unpartition(x.h, STARPU_MAIN_RAM);
	vec_check_works(&x);

	/* now the plan can be used */
	starpu_data_partition_submit(x.h, 2, p);
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, p[1]), 0);
	ref_twice(&x, 6, 6);
	starpu_data_unpartition_submit(x.h, 2, p, STARPU_MAIN_RAM);
	vec_check_works(&x);
	starpu_data_partition_clean(x.h, 2, p);
	vec_fini(&x);
}

static void test_partition_twice_async(void)
{
	struct vec x;
	vec_init(&x);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	struct starpu_data_filter g = { .filter_func = starpu_vector_filter_block, .nchildren = 2 };
	starpu_data_handle_t a[3], b[2];
	starpu_data_partition_plan(x.h, &f, a);
	starpu_data_partition_plan(x.h, &g, b);
	starpu_data_partition_submit(x.h, 3, a);

	const char *msg;
	vtest_capture_stderr_begin();
	starpu_data_partition_submit(x.h, 3, a);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_submit", "already partitioned");
	vtest_capture_stderr_begin();
	starpu_data_partition_submit(x.h, 2, b);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_submit", "already partitioned");
	vtest_capture_stderr_begin();
	starpu_data_partition_readonly_submit(x.h, 2, b);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_readonly_submit", "already partitioned");
	vtest_capture_stderr_begin();
	starpu_data_partition(x.h, &g);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition", "already partitioned");
	CU_ASSERT_EQUAL(starpu_data_get_nb_children(x.h), 0);
	/* not read-only: no upgrade; not this plan: no unpartition */
	vtest_capture_stderr_begin();
	starpu_data_partition_readwrite_upgrade_submit(x.h, 3, a);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_readwrite_upgrade_submit", "read-only");
	vtest_capture_stderr_begin();
	starpu_data_unpartition_submit(x.h, 2, b, STARPU_MAIN_RAM);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unpartition_submit", "not partitioned with these pieces");

	/* the first plan works throughout */
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(submit(&twice_cl, NULL, a[i]), 0);
	ref_twice(&x, 0, N);
	starpu_data_unpartition_readonly_submit(x.h, 3, a, STARPU_MAIN_RAM);
	vtest_capture_stderr_begin();
	starpu_data_unpartition_readonly_submit(x.h, 3, a, STARPU_MAIN_RAM);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unpartition_readonly_submit", "already partitioned read-only");
	starpu_data_unpartition_submit(x.h, 3, a, STARPU_MAIN_RAM);
	vtest_capture_stderr_begin();
	starpu_data_unpartition_submit(x.h, 3, a, STARPU_MAIN_RAM);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unpartition_submit", "not partitioned with these pieces");
	vec_check_works(&x);
	starpu_data_partition_clean(x.h, 3, a);
	starpu_data_partition_clean(x.h, 2, b);
	vec_fini(&x);
}

/* ---- the parent while partitioned ------------------------------------- */

static void nothing(void *arg)
{
	(void) arg;
}

/* Every access to the parent of a synchronous partition is refused with
 * -EINVAL and a message. */
static void check_parent_refused(starpu_data_handle_t h)
{
	const char *msg;
	int64_t seen = -1;
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, h), -EINVAL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_task_submit", "partitioned");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(submit(&write_cl, NULL, h), -EINVAL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_task_submit", "partitioned");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_RW), -EINVAL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_acquire", "partitioned");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire_cb(h, STARPU_W, nothing, NULL), -EINVAL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_acquire", "partitioned");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(submit(&read_cl, &seen, h), -EINVAL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_task_submit", "partitioned");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), -EINVAL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_acquire", "partitioned");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire_try(h, STARPU_R), -EINVAL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_acquire", "partitioned");
	/* nor may it be unregistered */
	vtest_capture_stderr_begin();
	starpu_data_unregister(h);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unregister", "partitioned");
	CU_ASSERT_EQUAL(seen, -1);
}

static void test_parent_while_partitioned(void)
{
	struct vec x;
	vec_init(&x);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };

	/* synchronous */
	starpu_data_partition(x.h, &f);
	check_parent_refused(x.h);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(submit(&twice_cl, NULL, starpu_data_get_child(x.h, i)), 0);
	ref_twice(&x, 0, N);
	starpu_data_unpartition(x.h, STARPU_MAIN_RAM);
	vec_check_works(&x);

	/* a synchronous partition of a piece of a plan: the plan cannot be
	 * gathered implicitly under it */
	starpu_data_handle_t c[3];
	starpu_data_partition_plan(x.h, &f, c);
	starpu_data_partition_submit(x.h, 3, c);
	struct starpu_data_filter g = { .filter_func = starpu_vector_filter_block, .nchildren = 2 };
	starpu_data_partition(c[1], &g);
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, x.h), -EINVAL);
	const char *msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_task_submit", "partitioned in turn");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire(x.h, STARPU_R), -EINVAL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_acquire", "partitioned in turn");
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, starpu_data_get_child(c[1], 1)), 0);
	ref_twice(&x, 6, 2);
	starpu_data_unpartition(c[1], STARPU_MAIN_RAM);
	vec_check_works(&x);
	starpu_data_partition_clean(x.h, 3, c);
	vec_fini(&x);
}

/* ---- accesses no partition can satisfy ---------------------------------- */

static void first_twice_cpu(void *buffers[], void *arg)
{
	twice_cpu(buffers, arg);
}

static struct starpu_codelet piece_and_parent_cl = {
	.cpu_funcs = { first_twice_cpu },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_R },
	.name = "piece_and_parent",
};

/* A task writing a piece while reading its parent: the parent made
 * readable gathers the pieces, so the task is refused (each access alone
 * is switched to implicitly); the data stays intact. */
static void test_pieces_misused(void)
{
	struct vec x;
	vec_init(&x);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	starpu_data_handle_t c[3];
	starpu_data_partition_plan(x.h, &f, c);

	struct starpu_task *t = starpu_task_create();
	t->cl = &piece_and_parent_cl;
	t->handles[0] = c[0];
	t->handles[1] = x.h;
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_task_submit(t), -EINVAL);
	const char *msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_task_submit", "not submitted");
	starpu_task_destroy(t);
	/* alone, each works */
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, c[0]), 0);
	ref_twice(&x, 0, 4);
	int64_t seen = -1;
	CU_ASSERT_EQUAL(submit(&read_cl, &seen, x.h), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(seen, x.ref[0]);
	vec_check_works(&x);
	starpu_data_partition_clean(x.h, 3, c);
	vec_fini(&x);
}

/* Pieces belong to their parent: unregistering one is refused, and it keeps
 * working. */
static void test_unregister_piece(void)
{
	struct vec x;
	vec_init(&x);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	const char *msg;

	starpu_data_partition(x.h, &f);
	starpu_data_handle_t c1 = starpu_data_get_child(x.h, 1);
	vtest_capture_stderr_begin();
	starpu_data_unregister(c1);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unregister", "is a piece of handle");
	vtest_capture_stderr_begin();
	starpu_data_unregister_submit(c1);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unregister_submit", "is a piece of handle");
	vtest_capture_stderr_begin();
	starpu_data_unregister_no_coherency(c1);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unregister_no_coherency", "is a piece of handle");
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, c1), 0);
	ref_twice(&x, 4, 4);
	starpu_data_unpartition(x.h, STARPU_MAIN_RAM);
	vec_check_works(&x);

	starpu_data_handle_t c[3];
	starpu_data_partition_plan(x.h, &f, c);
	vtest_capture_stderr_begin();
	starpu_data_unregister(c[0]);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unregister", "is a piece of handle");
	starpu_data_partition_submit(x.h, 3, c);
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, c[0]), 0);
	ref_twice(&x, 0, 4);
	starpu_data_unpartition_submit(x.h, 3, c, STARPU_MAIN_RAM);
	vec_check_works(&x);
	/* unregistering the parent cleans its plans */
	vec_fini(&x);
}

/* Unpartitioning a handle whose pieces are partitioned in turn (by a plan
 * submitted on a piece) is refused until the pieces are unpartitioned. */
static void test_unpartition_partitioned_pieces(void)
{
	struct vec x;
	vec_init(&x);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 2 };
	const char *msg;

	/* synchronous parent, plan on a piece */
	starpu_data_partition(x.h, &f);
	starpu_data_handle_t c0 = starpu_data_get_child(x.h, 0), g[2];
	starpu_data_partition_plan(c0, &f, g);
	starpu_data_partition_submit(c0, 2, g);
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, g[1]), 0);
	ref_twice(&x, 3, 3);
	vtest_capture_stderr_begin();
	starpu_data_unpartition(x.h, STARPU_MAIN_RAM);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unpartition", "partitioned");
	CU_ASSERT_EQUAL(starpu_data_get_nb_children(x.h), 2);
	/* all still works, and unwinds in order */
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, g[0]), 0);
	ref_twice(&x, 0, 3);
	starpu_data_unpartition_submit(c0, 2, g, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, c0), 0);
	ref_twice(&x, 0, 6);
	starpu_data_partition_clean(c0, 2, g);
	starpu_data_unpartition(x.h, STARPU_MAIN_RAM);
	vec_check_works(&x);

	/* asynchronous parent, plan on a piece */
	starpu_data_handle_t c[2];
	starpu_data_partition_plan(x.h, &f, c);
	starpu_data_partition_submit(x.h, 2, c);
	starpu_data_partition_plan(c[1], &f, g);
	starpu_data_partition_submit(c[1], 2, g);
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, g[0]), 0);
	ref_twice(&x, 6, 3);
	vtest_capture_stderr_begin();
	starpu_data_unpartition_submit(x.h, 2, c, STARPU_MAIN_RAM);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unpartition_submit", "partitioned");
	/* still partitioned: a task on the parent gathers both levels */
	vec_check_works(&x);
	vtest_capture_stderr_begin();
	starpu_data_unpartition_submit(c[1], 2, g, STARPU_MAIN_RAM);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unpartition_submit", "not partitioned with these pieces");
	/* a piece of a plan that is not submitted cannot be partitioned */
	starpu_data_partition_plan(c[0], &f, g);
	vtest_capture_stderr_begin();
	starpu_data_partition_submit(c[0], 2, g);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_submit", "not submitted");
	/* but a task on its piece switches both levels */
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, g[0]), 0);
	ref_twice(&x, 0, 3);
	vec_check_works(&x);
	/* nor a read-only piece for writing, and the parent is not upgraded
	 * under a piece partitioned read-only */
	starpu_data_partition_readonly_submit(x.h, 2, c);
	vtest_capture_stderr_begin();
	starpu_data_partition_submit(c[0], 2, g);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_submit", "read-only");
	starpu_data_partition_readonly_submit(c[0], 2, g);
	int64_t seen = -1, expect_seen = x.ref[3];	/* g[1] starts at element 3 */
	CU_ASSERT_EQUAL(submit(&read_cl, &seen, g[1]), 0);
	vtest_capture_stderr_begin();
	starpu_data_partition_readwrite_upgrade_submit(x.h, 2, c);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_readwrite_upgrade_submit", "partitioned in turn");
	starpu_data_unpartition_submit(c[0], 2, g, STARPU_MAIN_RAM);
	starpu_data_partition_readwrite_upgrade_submit(x.h, 2, c);
	CU_ASSERT_EQUAL(submit(&twice_cl, NULL, c[0]), 0);
	ref_twice(&x, 0, 6);
	starpu_data_unpartition_submit(x.h, 2, c, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(seen, expect_seen);
	vec_check_works(&x);

	/* cleaning the parent's plan cleans the pieces' */
	starpu_data_partition_clean(x.h, 2, c);
	vec_fini(&x);
}

/* Bad indices and handles given to the partition queries. */
static void test_bad_queries(void)
{
	struct vec x;
	vec_init(&x);
	const char *msg;
	vtest_capture_stderr_begin();
	CU_ASSERT_PTR_NULL(starpu_data_get_child(x.h, 0));
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_get_child", "not partitioned");
	CU_ASSERT_EQUAL(starpu_data_get_nb_children(x.h), 0);
	CU_ASSERT_EQUAL(starpu_data_get_nb_children(NULL), 0);

	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	starpu_data_partition(x.h, &f);
	vtest_capture_stderr_begin();
	CU_ASSERT_PTR_NULL(starpu_data_get_child(x.h, 3));
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_get_child", "3");
	vtest_capture_stderr_begin();
	CU_ASSERT_PTR_NULL(starpu_data_get_sub_data(x.h, 2, 0, 0));
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_get_child", "not partitioned");
	vtest_capture_stderr_begin();
	starpu_data_unpartition(x.h, 42);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_unpartition", "gathering node 42");
	CU_ASSERT_EQUAL(starpu_data_get_nb_children(x.h), 3);
	starpu_data_unpartition(x.h, STARPU_MAIN_RAM);

	vtest_capture_stderr_begin();
	starpu_data_partition(NULL, &f);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition", "not registered");
	vtest_capture_stderr_begin();
	starpu_data_partition(x.h, NULL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition", "NULL");
	starpu_data_handle_t c[3];
	vtest_capture_stderr_begin();
	starpu_data_partition_plan(x.h, &f, NULL);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_plan", "NULL");
	vtest_capture_stderr_begin();
	starpu_data_partition_submit(NULL, 3, c);
	msg = vtest_capture_stderr_end();
	CHECK_MSG(msg, "starpu_data_partition_submit", "not registered");
	vec_check_works(&x);
	vec_fini(&x);
}

static const struct vtest_case cases[] = {
	{ "zero_pieces", test_zero_pieces },
	{ "too_many_pieces", test_too_many_pieces },
	{ "filter_of_another_kind", test_wrong_kind },
	{ "mismatched_plan", test_mismatched_plan },
	{ "partition_twice_sync", test_partition_twice_sync },
	{ "partition_twice_mixed", test_partition_twice_mixed },
	{ "partition_twice_async", test_partition_twice_async },
	{ "parent_while_partitioned", test_parent_while_partitioned },
	{ "pieces_misused", test_pieces_misused },
	{ "unregister_piece", test_unregister_piece },
	{ "unpartition_partitioned_pieces", test_unpartition_partitioned_pieces },
	{ "bad_queries", test_bad_queries },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "partition_bad_input", start_runtime, stop_runtime, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
