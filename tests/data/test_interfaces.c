/* test_interfaces.c — the dense data interfaces, one suite per kind: void,
 * variable, vector, matrix (ld > nx), block (padded ldy/ldz); the sparse
 * ones are in test_interfaces_sparse.c, an application's own interface
 * and out-of-core data in test_interfaces_custom.c.
 *
 * For each kind: registration with a home buffer and with home node -1
 * (allocated on the first write), the application accessors and the
 * STARPU_*_GET_* macros inside a codelet, a task modifying the data checked
 * byte for byte after an acquisition (padding included: it must stay as the
 * application left it), starpu_data_pack/unpack, footprint, compare,
 * describe, the size, and the copy methods: between two RAM interfaces
 * built by hand (contiguous and strided), and through a disk memory node.
 */
#include "interfaces_common.h"

/* ================================================================== */
/* void */

static int void_order[4];
static int void_pos;

static void void_step_cpu(void *buffers[], void *arg)
{
	(void) buffers;
	int step = (int) (intptr_t) arg;
	if (step == 0)
		vtest_sleep_ms(30);	/* a later step would overtake it if unordered */
	void_order[void_pos++] = step;
}

static struct starpu_codelet void_step_cl = {
	.cpu_funcs = { void_step_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "void_step",
};

static void test_void_register(void)
{
	starpu_data_handle_t h;
	starpu_void_data_register(&h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_VOID_INTERFACE_ID);
	CU_ASSERT_PTR_EQUAL(ops_of(h), &starpu_interface_void_ops);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), 0);

	/* W accesses to a void handle order the tasks */
	void_pos = 0;
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(submit(&void_step_cl, (void *) (intptr_t) i, h), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(void_pos, 4);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(void_order[i], i);

	struct pack_case pc = { .h = h, .count = 0 };
	check_pack(&pc);

	starpu_data_handle_t h2;
	starpu_void_data_register(&h2);
	CU_ASSERT_EQUAL(footprint_of(h), footprint_of(h2));
	CU_ASSERT(ops_of(h)->compare(ram_iface(h), ram_iface(h2)));
	char buf[64];
	describe(h, buf, sizeof(buf));
	CU_ASSERT_EQUAL(ram_copy(ops_of(h), ram_iface(h), ram_iface(h2)), 0);

	/* a void "copy" on the disk is valid there */
	/* A synchronous fetch: valid there on return. */
	CU_ASSERT_EQUAL(starpu_data_fetch_on_node(h, (unsigned) disk_node, 0), 0);
	CU_ASSERT_TRUE(starpu_data_is_on_node(h, (unsigned) disk_node));
	starpu_data_unregister(h);
	starpu_data_unregister(h2);
}

static const struct vtest_case void_cases[] = {
	{ "register_order_pack_shape_disk", test_void_register },
	VTEST_END
};

/* ================================================================== */
/* variable */

struct var_seen
{
	uintptr_t ptr, dev;
	size_t off, elemsize;
};

static void var_update_cpu(void *buffers[], void *arg)
{
	struct var_seen *s = arg;
	s->ptr = STARPU_VARIABLE_GET_PTR(buffers[0]);
	s->dev = STARPU_VARIABLE_GET_DEV_HANDLE(buffers[0]);
	s->off = STARPU_VARIABLE_GET_OFFSET(buffers[0]);
	s->elemsize = STARPU_VARIABLE_GET_ELEMSIZE(buffers[0]);
	unsigned char *b = (unsigned char *) s->ptr;
	for (size_t i = 0; i < s->elemsize; i++)
		b[i] = (unsigned char) (b[i] * 3 + i);
}

static struct starpu_codelet var_update_cl = {
	.cpu_funcs = { var_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "var_update",
};

static void var_fill_cpu(void *buffers[], void *arg)
{
	unsigned char *b = (unsigned char *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	size_t n = STARPU_VARIABLE_GET_ELEMSIZE(buffers[0]);
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char) ((uintptr_t) arg + 7 * i);
}

static struct starpu_codelet var_fill_cl = {
	.cpu_funcs = { var_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "var_fill",
};

enum { VAR_SIZE = 24 };
static unsigned char var_data[VAR_SIZE], var_orig[VAR_SIZE];

static void var_clobber(void) { memset(var_data, 0, sizeof(var_data)); }
static int var_intact(void) { return !memcmp(var_data, var_orig, sizeof(var_data)); }

static void test_variable_home(void)
{
	for (int i = 0; i < VAR_SIZE; i++)
		var_data[i] = (unsigned char) (i * 11 + 1);
	memcpy(var_orig, var_data, sizeof(var_data));
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) var_data, VAR_SIZE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_VARIABLE_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_data_get_home_node(h), STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL(starpu_variable_get_elemsize(h), VAR_SIZE);
	CU_ASSERT_EQUAL(starpu_variable_get_local_ptr(h), (uintptr_t) var_data);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), VAR_SIZE);
	CU_ASSERT_PTR_EQUAL(starpu_data_lookup(var_data), h);

	struct pack_case pc = { h, var_orig, VAR_SIZE, var_clobber, var_intact };
	check_pack(&pc);

	struct var_seen s;
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(submit(&var_update_cl, &s, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	unsigned char expect[VAR_SIZE];
	for (int i = 0; i < VAR_SIZE; i++)
		expect[i] = (unsigned char) (var_orig[i] * 3 + i);
	CU_ASSERT(memcmp(var_data, expect, VAR_SIZE) == 0);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(s.ptr, (uintptr_t) var_data);
	CU_ASSERT_EQUAL(s.dev, (uintptr_t) var_data);
	CU_ASSERT_EQUAL(s.off, 0);
	CU_ASSERT_EQUAL(s.elemsize, VAR_SIZE);

	/* through the disk */
	unsigned char back[VAR_SIZE];
	memset(back, 0, sizeof(back));
	struct starpu_variable_interface dst = { STARPU_VARIABLE_INTERFACE_ID, (uintptr_t) back, (uintptr_t) back, 0, VAR_SIZE };
	through_disk(h, &dst);
	CU_ASSERT(memcmp(back, expect, VAR_SIZE) == 0);

	starpu_data_unregister(h);
	CU_ASSERT_PTR_NULL(starpu_data_lookup(var_data));
	CU_ASSERT(memcmp(var_data, expect, VAR_SIZE) == 0);
}

static void test_variable_no_home(void)
{
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, -1, 0, 13);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_home_node(h), -1);
	CU_ASSERT_EQUAL(starpu_variable_get_elemsize(h), 13);
	CU_ASSERT_FALSE(starpu_data_test_if_allocated_on_node(h, STARPU_MAIN_RAM));
	CU_ASSERT_EQUAL(submit(&var_fill_cl, (void *) (uintptr_t) 5, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	const unsigned char *p = (const unsigned char *) starpu_variable_get_local_ptr(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (int i = 0; i < 13; i++)
		CU_ASSERT_EQUAL(p[i], (unsigned char) (5 + 7 * i));
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void test_variable_shape_copy(void)
{
	long a = 1, b = 2;
	char c[3] = { 0 };
	starpu_data_handle_t ha, hb, hc;
	starpu_variable_data_register(&ha, STARPU_MAIN_RAM, (uintptr_t) &a, sizeof(a));
	starpu_variable_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) &b, sizeof(b));
	starpu_variable_data_register(&hc, STARPU_MAIN_RAM, (uintptr_t) c, sizeof(c));
	check_shape_ops(ha, hb, hc);
	CU_ASSERT_EQUAL(starpu_data_get_size(hc), 3);

	/* the copy honours both offsets */
	unsigned char src[32], dst[32], expect[32];
	for (int i = 0; i < 32; i++)
		src[i] = (unsigned char) (200 - i);
	memset(dst, 0xee, sizeof(dst));
	memcpy(expect, dst, sizeof(dst));
	memcpy(expect + 4, src + 8, 10);
	struct starpu_variable_interface s = { STARPU_VARIABLE_INTERFACE_ID, (uintptr_t) src + 8, (uintptr_t) src, 8, 10 };
	struct starpu_variable_interface d = { STARPU_VARIABLE_INTERFACE_ID, (uintptr_t) dst + 4, (uintptr_t) dst, 4, 10 };
	CU_ASSERT_EQUAL(ram_copy(&starpu_interface_variable_ops, &s, &d), 0);
	CU_ASSERT(memcmp(dst, expect, sizeof(dst)) == 0);

	starpu_data_unregister(ha);
	starpu_data_unregister(hb);
	starpu_data_unregister(hc);
}

static const struct vtest_case variable_cases[] = {
	{ "home_accessors_task_pack_disk", test_variable_home },
	{ "no_home", test_variable_no_home },
	{ "shape_ops_copy", test_variable_shape_copy },
	VTEST_END
};

/* ================================================================== */
/* vector */

struct vec_seen
{
	uintptr_t ptr, dev;
	size_t off, elemsize, allocsize;
	unsigned nx, slice_base;
};

static void vec_update_cpu(void *buffers[], void *arg)
{
	struct vec_seen *s = arg;
	s->ptr = STARPU_VECTOR_GET_PTR(buffers[0]);
	s->dev = STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]);
	s->off = STARPU_VECTOR_GET_OFFSET(buffers[0]);
	s->nx = STARPU_VECTOR_GET_NX(buffers[0]);
	s->elemsize = STARPU_VECTOR_GET_ELEMSIZE(buffers[0]);
	s->allocsize = STARPU_VECTOR_GET_ALLOCSIZE(buffers[0]);
	s->slice_base = STARPU_VECTOR_GET_SLICE_BASE(buffers[0]);
	int64_t *v = (int64_t *) s->ptr;
	for (unsigned i = 0; i < s->nx; i++)
		v[i] = v[i] * 3 + i;
}

static struct starpu_codelet vec_update_cl = {
	.cpu_funcs = { vec_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "vec_update",
};

static void vec_fill_cpu(void *buffers[], void *arg)
{
	int64_t *v = (int64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (unsigned i = 0; i < n; i++)
		v[i] = (int64_t) (intptr_t) arg * 100000 + i;
}

static struct starpu_codelet vec_fill_cl = {
	.cpu_funcs = { vec_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "vec_fill",
};

enum { VN = 1000 };
static int64_t vec_data[VN], vec_orig[VN];

static void vec_clobber(void) { memset(vec_data, 0, sizeof(vec_data)); }
static int vec_intact(void) { return !memcmp(vec_data, vec_orig, sizeof(vec_data)); }

static void test_vector_home(void)
{
	for (int i = 0; i < VN; i++)
		vec_data[i] = (int64_t) i * i - 500;
	memcpy(vec_orig, vec_data, sizeof(vec_data));
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) vec_data, VN, sizeof(int64_t));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_VECTOR_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_vector_get_nx(h), VN);
	CU_ASSERT_EQUAL(starpu_vector_get_elemsize(h), sizeof(int64_t));
	CU_ASSERT_EQUAL(starpu_vector_get_allocsize(h), sizeof(vec_data));
	CU_ASSERT_EQUAL(starpu_vector_get_local_ptr(h), (uintptr_t) vec_data);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), sizeof(vec_data));
	CU_ASSERT_PTR_EQUAL(starpu_data_lookup(vec_data), h);
	CU_ASSERT_PTR_EQUAL(starpu_data_handle_to_pointer(h, STARPU_MAIN_RAM), vec_data);
	CU_ASSERT(starpu_data_pointer_is_inside(h, STARPU_MAIN_RAM, &vec_data[VN - 1]));
	CU_ASSERT_FALSE(starpu_data_pointer_is_inside(h, STARPU_MAIN_RAM, &vec_data[VN]));

	struct pack_case pc = { h, vec_orig, sizeof(vec_orig), vec_clobber, vec_intact };
	check_pack(&pc);

	struct vec_seen s;
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(submit(&vec_update_cl, &s, h), 0);
	static int64_t expect[VN];
	for (int i = 0; i < VN; i++)
		expect[i] = vec_orig[i] * 3 + i;
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(vec_data, expect, sizeof(expect)) == 0);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(s.ptr, (uintptr_t) vec_data);
	CU_ASSERT_EQUAL(s.dev, (uintptr_t) vec_data);
	CU_ASSERT_EQUAL(s.off, 0);
	CU_ASSERT_EQUAL(s.nx, VN);
	CU_ASSERT_EQUAL(s.elemsize, sizeof(int64_t));
	CU_ASSERT_EQUAL(s.allocsize, sizeof(vec_data));
	CU_ASSERT_EQUAL(s.slice_base, 0);

	static int64_t back[VN];
	memset(back, 0, sizeof(back));
	struct starpu_vector_interface dst = {
		.id = STARPU_VECTOR_INTERFACE_ID, .ptr = (uintptr_t) back, .dev_handle = (uintptr_t) back,
		.nx = VN, .elemsize = sizeof(int64_t), .allocsize = sizeof(back),
	};
	through_disk(h, &dst);
	CU_ASSERT(memcmp(back, expect, sizeof(expect)) == 0);

	starpu_data_unregister(h);
	CU_ASSERT(memcmp(vec_data, expect, sizeof(expect)) == 0);
}

static void test_vector_no_home(void)
{
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, -1, 0, 300, sizeof(int64_t));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_vector_get_nx(h), 300);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), 300 * sizeof(int64_t));
	CU_ASSERT_EQUAL(submit(&vec_fill_cl, (void *) (intptr_t) 9, h), 0);
	struct vec_seen s;
	CU_ASSERT_EQUAL(submit(&vec_update_cl, &s, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	const int64_t *v = (const int64_t *) starpu_vector_get_local_ptr(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	int bad = 0;
	for (int i = 0; i < 300; i++)
		bad += v[i] != (int64_t) (9 * 100000 + i) * 3 + i;
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(s.nx, 300);
	starpu_data_unregister(h);
}

static void test_vector_shape_copy(void)
{
	static int64_t a[40], b[40];
	static int32_t c[40];
	starpu_data_handle_t ha, hb, hc, hd;
	starpu_vector_data_register(&ha, STARPU_MAIN_RAM, (uintptr_t) a, 40, sizeof(int64_t));
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) b, 40, sizeof(int64_t));
	starpu_vector_data_register(&hc, STARPU_MAIN_RAM, (uintptr_t) a, 39, sizeof(int64_t));
	check_shape_ops(ha, hb, hc);
	/* the element size is part of the shape too */
	starpu_vector_data_register(&hd, STARPU_MAIN_RAM, (uintptr_t) c, 40, sizeof(int32_t));
	CU_ASSERT_FALSE(ops_of(ha)->compare(ram_iface(ha), ram_iface(hd)));
	CU_ASSERT_EQUAL(starpu_data_get_size(hd), 40 * sizeof(int32_t));

	/* a copy from an offset into a packed buffer, and back at an offset */
	int64_t src[20], dst[20], expect[20];
	for (int i = 0; i < 20; i++)
		src[i] = 1000 + i;
	memset(dst, 0x5a, sizeof(dst));
	memcpy(expect, dst, sizeof(dst));
	memcpy(expect + 2, src + 5, 9 * sizeof(int64_t));
	struct starpu_vector_interface s = {
		.id = STARPU_VECTOR_INTERFACE_ID, .ptr = (uintptr_t) (src + 5), .dev_handle = (uintptr_t) src,
		.offset = 5 * sizeof(int64_t), .nx = 9, .elemsize = sizeof(int64_t),
	};
	struct starpu_vector_interface d = {
		.id = STARPU_VECTOR_INTERFACE_ID, .ptr = (uintptr_t) (dst + 2), .dev_handle = (uintptr_t) dst,
		.offset = 2 * sizeof(int64_t), .nx = 9, .elemsize = sizeof(int64_t),
	};
	CU_ASSERT_EQUAL(ram_copy(&starpu_interface_vector_ops, &s, &d), 0);
	CU_ASSERT(memcmp(dst, expect, sizeof(dst)) == 0);

	starpu_data_unregister(ha);
	starpu_data_unregister(hb);
	starpu_data_unregister(hc);
	starpu_data_unregister(hd);
}

static const struct vtest_case vector_cases[] = {
	{ "home_accessors_task_pack_disk", test_vector_home },
	{ "no_home", test_vector_no_home },
	{ "shape_ops_copy", test_vector_shape_copy },
	VTEST_END
};

/* ================================================================== */
/* matrix: MNX x MNY doubles, columns MLD apart (padding between them) */

enum { MNX = 5, MNY = 7, MLD = 9 };
static double mat_data[MLD * MNY], mat_orig[MLD * MNY];

struct mat_seen
{
	uintptr_t ptr, dev;
	size_t off, elemsize, allocsize;
	unsigned nx, ny, ld;
};

static void mat_update_cpu(void *buffers[], void *arg)
{
	struct mat_seen *s = arg;
	s->ptr = STARPU_MATRIX_GET_PTR(buffers[0]);
	s->dev = STARPU_MATRIX_GET_DEV_HANDLE(buffers[0]);
	s->off = STARPU_MATRIX_GET_OFFSET(buffers[0]);
	s->nx = STARPU_MATRIX_GET_NX(buffers[0]);
	s->ny = STARPU_MATRIX_GET_NY(buffers[0]);
	s->ld = STARPU_MATRIX_GET_LD(buffers[0]);
	s->elemsize = STARPU_MATRIX_GET_ELEMSIZE(buffers[0]);
	s->allocsize = STARPU_MATRIX_GET_ALLOCSIZE(buffers[0]);
	double *m = (double *) s->ptr;
	for (unsigned j = 0; j < s->ny; j++)
		for (unsigned i = 0; i < s->nx; i++)
			m[j * s->ld + i] = m[j * s->ld + i] * 2 + i + 100 * j;
}

static struct starpu_codelet mat_update_cl = {
	.cpu_funcs = { mat_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "mat_update",
};

static void mat_fill_cpu(void *buffers[], void *arg)
{
	double *m = (double *) STARPU_MATRIX_GET_PTR(buffers[0]);
	unsigned nx = STARPU_MATRIX_GET_NX(buffers[0]), ny = STARPU_MATRIX_GET_NY(buffers[0]);
	unsigned ld = STARPU_MATRIX_GET_LD(buffers[0]);
	for (unsigned j = 0; j < ny; j++)
		for (unsigned i = 0; i < nx; i++)
			m[j * ld + i] = (double) (intptr_t) arg + i * 0.25 + j * 1000;
}

static struct starpu_codelet mat_fill_cl = {
	.cpu_funcs = { mat_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "mat_fill",
};

static void mat_clobber(void)
{
	for (int j = 0; j < MNY; j++)
		for (int i = 0; i < MNX; i++)
			mat_data[j * MLD + i] = 0;
}

static int mat_intact(void) { return !memcmp(mat_data, mat_orig, sizeof(mat_data)); }

static void test_matrix_home(void)
{
	/* padding: a byte pattern no task may touch */
	memset(mat_data, 0xa7, sizeof(mat_data));
	for (int j = 0; j < MNY; j++)
		for (int i = 0; i < MNX; i++)
			mat_data[j * MLD + i] = 0.5 + i + 10 * j;
	memcpy(mat_orig, mat_data, sizeof(mat_data));

	starpu_data_handle_t h;
	starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) mat_data, MLD, MNX, MNY, sizeof(double));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_MATRIX_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_matrix_get_nx(h), MNX);
	CU_ASSERT_EQUAL(starpu_matrix_get_ny(h), MNY);
	CU_ASSERT_EQUAL(starpu_matrix_get_local_ld(h), MLD);
	CU_ASSERT_EQUAL(starpu_matrix_get_elemsize(h), sizeof(double));
	CU_ASSERT_EQUAL(starpu_matrix_get_local_ptr(h), (uintptr_t) mat_data);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), MNX * MNY * sizeof(double));
	CU_ASSERT_PTR_EQUAL(starpu_data_lookup(mat_data), h);
	/* padding is not part of the data */
	CU_ASSERT(starpu_data_pointer_is_inside(h, STARPU_MAIN_RAM, &mat_data[MLD + MNX - 1]));
	CU_ASSERT_FALSE(starpu_data_pointer_is_inside(h, STARPU_MAIN_RAM, &mat_data[MLD + MNX]));

	/* packed: the columns end to end */
	double packed[MNX * MNY];
	for (int j = 0; j < MNY; j++)
		for (int i = 0; i < MNX; i++)
			packed[j * MNX + i] = mat_orig[j * MLD + i];
	struct pack_case pc = { h, packed, sizeof(packed), mat_clobber, mat_intact };
	check_pack(&pc);

	struct mat_seen s;
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(submit(&mat_update_cl, &s, h), 0);
	double expect[MLD * MNY];
	memcpy(expect, mat_orig, sizeof(expect));
	for (int j = 0; j < MNY; j++)
		for (int i = 0; i < MNX; i++)
			expect[j * MLD + i] = mat_orig[j * MLD + i] * 2 + i + 100 * j;
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(mat_data, expect, sizeof(expect)) == 0);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(s.ptr, (uintptr_t) mat_data);
	CU_ASSERT_EQUAL(s.dev, (uintptr_t) mat_data);
	CU_ASSERT_EQUAL(s.off, 0);
	CU_ASSERT_EQUAL(s.nx, MNX);
	CU_ASSERT_EQUAL(s.ny, MNY);
	CU_ASSERT_EQUAL(s.ld, MLD);
	CU_ASSERT_EQUAL(s.elemsize, sizeof(double));

	/* through the disk, read back into a buffer with another stride */
	enum { BLD = 6 };
	double back[BLD * MNY], back_expect[BLD * MNY];
	memset(back, 0x3c, sizeof(back));
	memcpy(back_expect, back, sizeof(back));
	for (int j = 0; j < MNY; j++)
		for (int i = 0; i < MNX; i++)
			back_expect[j * BLD + i] = expect[j * MLD + i];
	struct starpu_matrix_interface dst = {
		.id = STARPU_MATRIX_INTERFACE_ID, .ptr = (uintptr_t) back, .dev_handle = (uintptr_t) back,
		.nx = MNX, .ny = MNY, .ld = BLD, .elemsize = sizeof(double),
	};
	through_disk(h, &dst);
	CU_ASSERT(memcmp(back, back_expect, sizeof(back)) == 0);

	starpu_data_unregister(h);
	CU_ASSERT(memcmp(mat_data, expect, sizeof(expect)) == 0);
}

static void test_matrix_no_home(void)
{
	starpu_data_handle_t h;
	starpu_matrix_data_register(&h, -1, 0, 12, 11, 13, sizeof(double));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_matrix_get_nx(h), 11);
	CU_ASSERT_EQUAL(starpu_matrix_get_ny(h), 13);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), 11 * 13 * sizeof(double));
	CU_ASSERT_EQUAL(submit(&mat_fill_cl, (void *) (intptr_t) 3, h), 0);
	struct mat_seen s;
	CU_ASSERT_EQUAL(submit(&mat_update_cl, &s, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	const double *m = (const double *) starpu_matrix_get_local_ptr(h);
	unsigned ld = starpu_matrix_get_local_ld(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT(ld >= 11);
	int bad = 0;
	for (unsigned j = 0; j < 13; j++)
		for (unsigned i = 0; i < 11; i++)
			bad += m[j * ld + i] != (3 + i * 0.25 + j * 1000) * 2 + i + 100 * j;
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(s.nx, 11);
	CU_ASSERT_EQUAL(s.ny, 13);
	CU_ASSERT_EQUAL(s.ld, ld);
	starpu_data_unregister(h);
}

/* Copies an nx x ny matrix of doubles from a buffer with stride sld to one
 * with stride dld with the copy method; the destination's padding must be
 * left alone. */
static void check_matrix_copy(unsigned nx, unsigned ny, unsigned sld, unsigned dld)
{
	double *src = malloc(sizeof(double) * sld * ny);
	double *dst = malloc(sizeof(double) * dld * ny);
	double *expect = malloc(sizeof(double) * dld * ny);
	for (unsigned k = 0; k < sld * ny; k++)
		src[k] = -1.0 - k;
	memset(dst, 0x77, sizeof(double) * dld * ny);
	memcpy(expect, dst, sizeof(double) * dld * ny);
	for (unsigned j = 0; j < ny; j++)
		for (unsigned i = 0; i < nx; i++)
			expect[j * dld + i] = src[j * sld + i];
	struct starpu_matrix_interface s = {
		.id = STARPU_MATRIX_INTERFACE_ID, .ptr = (uintptr_t) src, .dev_handle = (uintptr_t) src,
		.nx = nx, .ny = ny, .ld = sld, .elemsize = sizeof(double),
	};
	struct starpu_matrix_interface d = s;
	d.ptr = d.dev_handle = (uintptr_t) dst;
	d.ld = dld;
	CU_ASSERT_EQUAL(ram_copy(&starpu_interface_matrix_ops, &s, &d), 0);
	CU_ASSERT(memcmp(dst, expect, sizeof(double) * dld * ny) == 0);
	free(src);
	free(dst);
	free(expect);
}

static void test_matrix_shape_copy(void)
{
	static double a[20 * 10], b[20 * 10];
	starpu_data_handle_t ha, hb, hc, hd;
	starpu_matrix_data_register(&ha, STARPU_MAIN_RAM, (uintptr_t) a, 10, 8, 10, sizeof(double));
	/* the same shape with another ld */
	starpu_matrix_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) b, 20, 8, 10, sizeof(double));
	starpu_matrix_data_register(&hc, STARPU_MAIN_RAM, (uintptr_t) a, 10, 8, 9, sizeof(double));
	check_shape_ops(ha, hb, hc);
	/* transposed shape */
	starpu_matrix_data_register(&hd, STARPU_MAIN_RAM, (uintptr_t) a, 10, 10, 8, sizeof(double));
	CU_ASSERT_FALSE(ops_of(ha)->compare(ram_iface(ha), ram_iface(hd)));
	CU_ASSERT_NOT_EQUAL(footprint_of(ha), footprint_of(hd));

	check_matrix_copy(MNX, MNY, MNX, MNX);		/* contiguous */
	check_matrix_copy(MNX, MNY, MLD, MNX);		/* strided to packed */
	check_matrix_copy(MNX, MNY, MNX, MLD);		/* packed to strided */
	check_matrix_copy(MNX, MNY, MLD, MLD + 3);	/* strided to strided */
	check_matrix_copy(1, 1, 1, 4);

	starpu_data_unregister(ha);
	starpu_data_unregister(hb);
	starpu_data_unregister(hc);
	starpu_data_unregister(hd);
}

/* register_same of a standard kind (a matrix) keeps the shape. */
static void test_register_same_standard(void)
{
	static double m[MLD * MNY];
	starpu_data_handle_t h, same;
	starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) m, MLD, MNX, MNY, sizeof(double));
	starpu_data_register_same(&same, h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(same);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(same), STARPU_MATRIX_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_matrix_get_nx(same), MNX);
	CU_ASSERT_EQUAL(starpu_matrix_get_ny(same), MNY);
	CU_ASSERT_EQUAL(footprint_of(same), footprint_of(h));
	CU_ASSERT_EQUAL(submit(&mat_fill_cl, (void *) (intptr_t) 1, same), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(same, STARPU_R), 0);
	const double *p = (const double *) starpu_matrix_get_local_ptr(same);
	unsigned ld = starpu_matrix_get_local_ld(same);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT(p != m);
	int bad = 0;
	for (unsigned j = 0; j < MNY; j++)
		for (unsigned i = 0; i < MNX; i++)
			bad += p[j * ld + i] != 1 + i * 0.25 + j * 1000;
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(same);
	starpu_data_unregister(same);
	starpu_data_unregister(h);
}

static const struct vtest_case matrix_cases[] = {
	{ "home_accessors_task_pack_disk", test_matrix_home },
	{ "no_home", test_matrix_no_home },
	{ "shape_ops_copy", test_matrix_shape_copy },
	{ "register_same_keeps_shape", test_register_same_standard },
	VTEST_END
};

/* ================================================================== */
/* block: BNX x BNY x BNZ int32, rows BLDY apart, planes BLDZ apart */

enum { BNX = 4, BNY = 3, BNZ = 5, BLDY = 6, BLDZ = BLDY * BNY + 2 };
static int32_t blk_data[BLDZ * BNZ], blk_orig[BLDZ * BNZ];

struct blk_seen
{
	uintptr_t ptr, dev;
	size_t off, elemsize;
	unsigned nx, ny, nz, ldy, ldz;
};

static void blk_update_cpu(void *buffers[], void *arg)
{
	struct blk_seen *s = arg;
	s->ptr = STARPU_BLOCK_GET_PTR(buffers[0]);
	s->dev = STARPU_BLOCK_GET_DEV_HANDLE(buffers[0]);
	s->off = STARPU_BLOCK_GET_OFFSET(buffers[0]);
	s->nx = STARPU_BLOCK_GET_NX(buffers[0]);
	s->ny = STARPU_BLOCK_GET_NY(buffers[0]);
	s->nz = STARPU_BLOCK_GET_NZ(buffers[0]);
	s->ldy = STARPU_BLOCK_GET_LDY(buffers[0]);
	s->ldz = STARPU_BLOCK_GET_LDZ(buffers[0]);
	s->elemsize = STARPU_BLOCK_GET_ELEMSIZE(buffers[0]);
	int32_t *b = (int32_t *) s->ptr;
	for (unsigned z = 0; z < s->nz; z++)
		for (unsigned y = 0; y < s->ny; y++)
			for (unsigned x = 0; x < s->nx; x++)
			{
				int32_t *e = &b[z * s->ldz + y * s->ldy + x];
				*e = *e * 5 + (int32_t) (x + 10 * y + 100 * z);
			}
}

static struct starpu_codelet blk_update_cl = {
	.cpu_funcs = { blk_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "blk_update",
};

static void blk_fill_cpu(void *buffers[], void *arg)
{
	int32_t *b = (int32_t *) STARPU_BLOCK_GET_PTR(buffers[0]);
	unsigned nx = STARPU_BLOCK_GET_NX(buffers[0]), ny = STARPU_BLOCK_GET_NY(buffers[0]);
	unsigned nz = STARPU_BLOCK_GET_NZ(buffers[0]);
	unsigned ldy = STARPU_BLOCK_GET_LDY(buffers[0]), ldz = STARPU_BLOCK_GET_LDZ(buffers[0]);
	for (unsigned z = 0; z < nz; z++)
		for (unsigned y = 0; y < ny; y++)
			for (unsigned x = 0; x < nx; x++)
				b[z * ldz + y * ldy + x] = (int32_t) ((intptr_t) arg * 1000000 + x + 100 * y + 10000 * z);
}

static struct starpu_codelet blk_fill_cl = {
	.cpu_funcs = { blk_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "blk_fill",
};

static void blk_clobber(void)
{
	for (int z = 0; z < BNZ; z++)
		for (int y = 0; y < BNY; y++)
			for (int x = 0; x < BNX; x++)
				blk_data[z * BLDZ + y * BLDY + x] = 0;
}

static int blk_intact(void) { return !memcmp(blk_data, blk_orig, sizeof(blk_data)); }

static void test_block_home(void)
{
	for (size_t k = 0; k < BLDZ * BNZ; k++)
		blk_data[k] = -7777;	/* padding */
	for (int z = 0; z < BNZ; z++)
		for (int y = 0; y < BNY; y++)
			for (int x = 0; x < BNX; x++)
				blk_data[z * BLDZ + y * BLDY + x] = 1 + x + 7 * y + 50 * z;
	memcpy(blk_orig, blk_data, sizeof(blk_data));

	starpu_data_handle_t h;
	starpu_block_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) blk_data, BLDY, BLDZ, BNX, BNY, BNZ, sizeof(int32_t));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_BLOCK_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_block_get_nx(h), BNX);
	CU_ASSERT_EQUAL(starpu_block_get_ny(h), BNY);
	CU_ASSERT_EQUAL(starpu_block_get_nz(h), BNZ);
	CU_ASSERT_EQUAL(starpu_block_get_local_ldy(h), BLDY);
	CU_ASSERT_EQUAL(starpu_block_get_local_ldz(h), BLDZ);
	CU_ASSERT_EQUAL(starpu_block_get_elemsize(h), sizeof(int32_t));
	CU_ASSERT_EQUAL(starpu_block_get_local_ptr(h), (uintptr_t) blk_data);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), BNX * BNY * BNZ * sizeof(int32_t));
	CU_ASSERT_PTR_EQUAL(starpu_data_lookup(blk_data), h);
	CU_ASSERT(starpu_data_pointer_is_inside(h, STARPU_MAIN_RAM, &blk_data[2 * BLDZ + 2 * BLDY + BNX - 1]));
	CU_ASSERT_FALSE(starpu_data_pointer_is_inside(h, STARPU_MAIN_RAM, &blk_data[2 * BLDZ + 2 * BLDY + BNX]));
	CU_ASSERT_FALSE(starpu_data_pointer_is_inside(h, STARPU_MAIN_RAM, &blk_data[2 * BLDZ + BNY * BLDY]));

	int32_t packed[BNX * BNY * BNZ];
	for (int z = 0; z < BNZ; z++)
		for (int y = 0; y < BNY; y++)
			for (int x = 0; x < BNX; x++)
				packed[(z * BNY + y) * BNX + x] = blk_orig[z * BLDZ + y * BLDY + x];
	struct pack_case pc = { h, packed, sizeof(packed), blk_clobber, blk_intact };
	check_pack(&pc);

	struct blk_seen s;
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(submit(&blk_update_cl, &s, h), 0);
	int32_t expect[BLDZ * BNZ];
	memcpy(expect, blk_orig, sizeof(expect));
	for (int z = 0; z < BNZ; z++)
		for (int y = 0; y < BNY; y++)
			for (int x = 0; x < BNX; x++)
				expect[z * BLDZ + y * BLDY + x] = blk_orig[z * BLDZ + y * BLDY + x] * 5 + x + 10 * y + 100 * z;
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(blk_data, expect, sizeof(expect)) == 0);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(s.ptr, (uintptr_t) blk_data);
	CU_ASSERT_EQUAL(s.dev, (uintptr_t) blk_data);
	CU_ASSERT_EQUAL(s.off, 0);
	CU_ASSERT_EQUAL(s.nx, BNX);
	CU_ASSERT_EQUAL(s.ny, BNY);
	CU_ASSERT_EQUAL(s.nz, BNZ);
	CU_ASSERT_EQUAL(s.ldy, BLDY);
	CU_ASSERT_EQUAL(s.ldz, BLDZ);
	CU_ASSERT_EQUAL(s.elemsize, sizeof(int32_t));

	/* through the disk, back into a packed buffer */
	int32_t back[BNX * BNY * BNZ], back_expect[BNX * BNY * BNZ];
	memset(back, 0, sizeof(back));
	for (int z = 0; z < BNZ; z++)
		for (int y = 0; y < BNY; y++)
			for (int x = 0; x < BNX; x++)
				back_expect[(z * BNY + y) * BNX + x] = expect[z * BLDZ + y * BLDY + x];
	struct starpu_block_interface dst = {
		.id = STARPU_BLOCK_INTERFACE_ID, .ptr = (uintptr_t) back, .dev_handle = (uintptr_t) back,
		.nx = BNX, .ny = BNY, .nz = BNZ, .ldy = BNX, .ldz = BNX * BNY, .elemsize = sizeof(int32_t),
	};
	through_disk(h, &dst);
	CU_ASSERT(memcmp(back, back_expect, sizeof(back)) == 0);

	starpu_data_unregister(h);
	CU_ASSERT(memcmp(blk_data, expect, sizeof(expect)) == 0);
}

static void test_block_no_home(void)
{
	starpu_data_handle_t h;
	starpu_block_data_register(&h, -1, 0, 8, 64, 7, 6, 5, sizeof(int32_t));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), 7 * 6 * 5 * sizeof(int32_t));
	CU_ASSERT_EQUAL(submit(&blk_fill_cl, (void *) (intptr_t) 4, h), 0);
	struct blk_seen s;
	CU_ASSERT_EQUAL(submit(&blk_update_cl, &s, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	const int32_t *b = (const int32_t *) starpu_block_get_local_ptr(h);
	unsigned ldy = starpu_block_get_local_ldy(h), ldz = starpu_block_get_local_ldz(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT(ldy >= 7 && ldz >= ldy * 6);
	int bad = 0;
	for (unsigned z = 0; z < 5; z++)
		for (unsigned y = 0; y < 6; y++)
			for (unsigned x = 0; x < 7; x++)
				bad += b[z * ldz + y * ldy + x] != (int32_t) (4000000 + x + 100 * y + 10000 * z) * 5 + (int32_t) (x + 10 * y + 100 * z);
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void check_block_copy(unsigned sldy, unsigned sldz, unsigned dldy, unsigned dldz)
{
	enum { NX = 3, NY = 4, NZ = 2 };
	size_t ssize = (size_t) sldz * NZ, dsize = (size_t) dldz * NZ;
	int32_t *src = malloc(ssize * sizeof(int32_t));
	int32_t *dst = malloc(dsize * sizeof(int32_t));
	int32_t *expect = malloc(dsize * sizeof(int32_t));
	for (size_t k = 0; k < ssize; k++)
		src[k] = (int32_t) (k * 3 + 1);
	for (size_t k = 0; k < dsize; k++)
		dst[k] = expect[k] = -1;
	for (unsigned z = 0; z < NZ; z++)
		for (unsigned y = 0; y < NY; y++)
			for (unsigned x = 0; x < NX; x++)
				expect[z * dldz + y * dldy + x] = src[z * sldz + y * sldy + x];
	struct starpu_block_interface s = {
		.id = STARPU_BLOCK_INTERFACE_ID, .ptr = (uintptr_t) src, .dev_handle = (uintptr_t) src,
		.nx = NX, .ny = NY, .nz = NZ, .ldy = sldy, .ldz = sldz, .elemsize = sizeof(int32_t),
	};
	struct starpu_block_interface d = s;
	d.ptr = d.dev_handle = (uintptr_t) dst;
	d.ldy = dldy;
	d.ldz = dldz;
	CU_ASSERT_EQUAL(ram_copy(&starpu_interface_block_ops, &s, &d), 0);
	CU_ASSERT(memcmp(dst, expect, dsize * sizeof(int32_t)) == 0);
	free(src);
	free(dst);
	free(expect);
}

static void test_block_shape_copy(void)
{
	static int32_t a[4 * 4 * 4], b[4 * 4 * 4];
	starpu_data_handle_t ha, hb, hc, hd;
	starpu_block_data_register(&ha, STARPU_MAIN_RAM, (uintptr_t) a, 4, 16, 4, 4, 4, sizeof(int32_t));
	starpu_block_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) b, 4, 16, 3, 4, 4, sizeof(int32_t));
	starpu_block_data_register(&hc, STARPU_MAIN_RAM, (uintptr_t) b, 4, 16, 4, 4, 3, sizeof(int32_t));
	starpu_block_data_register(&hd, STARPU_MAIN_RAM, (uintptr_t) a, 4, 16, 4, 4, 4, sizeof(int32_t));
	check_shape_ops(ha, hd, hb);
	CU_ASSERT_NOT_EQUAL(footprint_of(ha), footprint_of(hc));
	CU_ASSERT_NOT_EQUAL(footprint_of(hb), footprint_of(hc));
	CU_ASSERT_FALSE(ops_of(ha)->compare(ram_iface(ha), ram_iface(hc)));

	check_block_copy(3, 12, 3, 12);	/* packed: contiguous */
	check_block_copy(5, 23, 3, 12);	/* padded rows and planes to packed */
	check_block_copy(3, 12, 4, 17);	/* packed to padded */
	check_block_copy(3, 14, 6, 25);	/* padded planes only, to both */
	check_block_copy(5, 20, 3, 12);	/* padded rows only (ldz = ldy * ny) */

	starpu_data_unregister(ha);
	starpu_data_unregister(hb);
	starpu_data_unregister(hc);
	starpu_data_unregister(hd);
}

static const struct vtest_case block_cases[] = {
	{ "home_accessors_task_pack_disk", test_block_home },
	{ "no_home", test_block_no_home },
	{ "shape_ops_copy", test_block_shape_copy },
	VTEST_END
};


static const struct vtest_suite suites[] = {
	{ "void", start_runtime, stop_runtime, void_cases },
	{ "variable", start_runtime, stop_runtime, variable_cases },
	{ "vector", start_runtime, stop_runtime, vector_cases },
	{ "matrix", start_runtime, stop_runtime, matrix_cases },
	{ "block", start_runtime, stop_runtime, block_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
