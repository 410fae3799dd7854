/* test_interfaces.c — the data interfaces, one suite per kind: void,
 * variable, vector, matrix (ld > nx), block (padded ldy/ldz), CSR, BCSR, COO,
 * and an interface defined by the application.
 *
 * For each kind: registration with a home buffer and with home node -1
 * (allocated on the first write), the application accessors and the
 * STARPU_*_GET_* macros inside a codelet, a task modifying the data checked
 * byte for byte after an acquisition (padding included: it must stay as the
 * application left it), starpu_data_pack/unpack, footprint, compare,
 * describe, the size, and the copy methods: between two RAM interfaces
 * built by hand (contiguous and strided), and through a disk memory node.
 * The last suite limits RAM (STARPU_LIMIT_CPU_MEM) so that data registered
 * without a home is evicted to the disk and read back.
 *
 * Expected values are computed here from the registered arrays, never read
 * back from the runtime's own description of them.
 */
#include <starpu.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vtest.h"

/* ------------------------------------------------------------------ */
/* Runtime and disk node, per suite. */

static char disk_dir[256];
static int disk_node = -1;

/* Removes the files left in the disk directory; returns how many there were. */
static int empty_dir(const char *path)
{
	int left = 0;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d)))
	{
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		unlink(p);
		left++;
	}
	closedir(d);
	return left;
}

static int start_runtime(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	if (starpu_init(&conf))
		return -1;
	const char *tmp = getenv("TMPDIR");
	snprintf(disk_dir, sizeof(disk_dir), "%s/vela-ifaces-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(disk_dir))
		return -1;
	disk_node = starpu_disk_register(&starpu_disk_unistd_ops, (void *) disk_dir, 64 << 20);
	return disk_node >= 0 ? 0 : -1;
}

static int stop_runtime(void)
{
	starpu_task_wait_for_all();
	starpu_shutdown();
	/* Every disk object must have been freed with its data. */
	int left = empty_dir(disk_dir);
	if (left)
		fprintf(stderr, "test_interfaces: %d file(s) left in the disk directory %s\n", left, disk_dir);
	rmdir(disk_dir);
	disk_node = -1;
	return left ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Helpers. */

static int submit(struct starpu_codelet *cl, void *arg, starpu_data_handle_t h)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->cl_arg = arg;
	t->handles[0] = h;
	return starpu_task_submit(t);
}

static struct starpu_data_interface_ops *ops_of(starpu_data_handle_t h)
{
	return starpu_data_get_interface_ops(h);
}

static void *ram_iface(starpu_data_handle_t h)
{
	return starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
}

static uint32_t footprint_of(starpu_data_handle_t h)
{
	return ops_of(h)->footprint(h);
}

static void describe(starpu_data_handle_t h, char *buf, size_t size)
{
	buf[0] = 0;
	starpu_ssize_t n = ops_of(h)->describe(ram_iface(h), buf, size);
	CU_ASSERT(n > 0);
	CU_ASSERT_EQUAL((size_t) n, strlen(buf));
}

/* a and same have the same shape, other a different one: footprints,
 * compare and describe must tell them apart exactly so. */
static void check_shape_ops(starpu_data_handle_t a, starpu_data_handle_t same, starpu_data_handle_t other)
{
	struct starpu_data_interface_ops *ops = ops_of(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops->footprint);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops->compare);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops->describe);
	CU_ASSERT_EQUAL(footprint_of(a), footprint_of(same));
	CU_ASSERT_NOT_EQUAL(footprint_of(a), footprint_of(other));
	CU_ASSERT(ops->compare(ram_iface(a), ram_iface(same)));
	CU_ASSERT(ops->compare(ram_iface(same), ram_iface(a)));
	CU_ASSERT_FALSE(ops->compare(ram_iface(a), ram_iface(other)));
	CU_ASSERT_FALSE(ops->compare(ram_iface(other), ram_iface(a)));
	char da[128], ds[128], dother[128];
	describe(a, da, sizeof(da));
	describe(same, ds, sizeof(ds));
	describe(other, dother, sizeof(dother));
	CU_ASSERT_STRING_EQUAL(da, ds);
	CU_ASSERT_STRING_NOT_EQUAL(da, dother);
}

/* Pack / unpack inside an RW acquisition: packing gives count bytes (equal
 * to expect when given); after clobber() the data is no longer intact(),
 * unpacking the packed bytes makes it intact() again. An unpack of the
 * wrong size is refused and leaves the buffer to the caller. */
struct pack_case
{
	starpu_data_handle_t h;
	const void *expect;
	size_t count;
	void (*clobber)(void);
	int (*intact)(void);
};

static void check_pack(const struct pack_case *pc)
{
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(pc->h, STARPU_RW), 0);
	starpu_ssize_t n = -1;
	CU_ASSERT_EQUAL(starpu_data_pack(pc->h, NULL, &n), 0);
	CU_ASSERT_EQUAL(n, (starpu_ssize_t) pc->count);
	void *p = NULL;
	n = -1;
	CU_ASSERT_EQUAL(starpu_data_pack(pc->h, &p, &n), 0);
	CU_ASSERT_EQUAL(n, (starpu_ssize_t) pc->count);
	if (pc->count)
		CU_ASSERT_PTR_NOT_NULL(p);
	if (p && pc->expect)
		CU_ASSERT(memcmp(p, pc->expect, pc->count) == 0);
	if (pc->clobber)
	{
		CU_ASSERT_TRUE(pc->intact());
		pc->clobber();
		CU_ASSERT_FALSE(pc->intact());
	}
	if (pc->count)
		CU_ASSERT_NOT_EQUAL(starpu_data_unpack(pc->h, p, pc->count + 1), 0);
	CU_ASSERT_EQUAL(starpu_data_unpack(pc->h, p, pc->count), 0);	/* frees p */
	if (pc->intact)
		CU_ASSERT_TRUE(pc->intact());
	starpu_data_release(pc->h);
}

/* Copies with the interface's generic copy method between two RAM nodes
 * (here both node 0). */
static int ram_copy(struct starpu_data_interface_ops *ops, void *src, void *dst)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops->copy_methods);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops->copy_methods->any_to_any);
	return ops->copy_methods->any_to_any(src, STARPU_MAIN_RAM, dst, STARPU_MAIN_RAM, NULL);
}

/* Sends h to the disk node (the RAM copy stays valid), then reads the disk
 * copy into dst, a RAM interface of the same kind built by the caller, so
 * the caller checks what went through the disk. */
static void through_disk(starpu_data_handle_t h, void *dst)
{
	CU_ASSERT_FATAL(disk_node >= 0);
	CU_ASSERT_FALSE(starpu_data_is_on_node(h, (unsigned) disk_node));
	/* A synchronous fetch: valid there on return. */
	CU_ASSERT_EQUAL(starpu_data_fetch_on_node(h, (unsigned) disk_node, 0), 0);
	CU_ASSERT_TRUE(starpu_data_is_on_node(h, (unsigned) disk_node));
	CU_ASSERT_TRUE(starpu_data_is_on_node(h, STARPU_MAIN_RAM));
	if (!starpu_data_is_on_node(h, (unsigned) disk_node))
		return;
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	void *on_disk = starpu_data_get_interface_on_node(h, (unsigned) disk_node);
	CU_ASSERT_EQUAL(ops_of(h)->copy_methods->any_to_any(on_disk, (unsigned) disk_node, dst, STARPU_MAIN_RAM, NULL), 0);
	starpu_data_release(h);
}

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

static const struct vtest_case matrix_cases[] = {
	{ "home_accessors_task_pack_disk", test_matrix_home },
	{ "no_home", test_matrix_no_home },
	{ "shape_ops_copy", test_matrix_shape_copy },
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

/* ================================================================== */
/* CSR: 5 rows of a 5 x 6 matrix (row 1 empty), 9 floats */

enum { CNROW = 5, CNNZ = 9 };
static const uint32_t csr_rowptr_ref[CNROW + 1] = { 0, 2, 2, 5, 6, 9 };
static const uint32_t csr_colind_ref[CNNZ] = { 0, 4, 1, 2, 5, 3, 0, 1, 5 };
static const int csr_row_of[CNNZ] = { 0, 0, 2, 2, 2, 3, 4, 4, 4 };
static float csr_nzval[CNNZ], csr_nzval_orig[CNNZ];
static uint32_t csr_colind[CNNZ], csr_rowptr[CNROW + 1];

struct csr_seen
{
	uintptr_t nzval;
	uint32_t *colind, *rowptr;
	unsigned nnz, nrow, firstentry;
	size_t elemsize;
};

static void csr_update_cpu(void *buffers[], void *arg)
{
	struct csr_seen *s = arg;
	s->nnz = STARPU_CSR_GET_NNZ(buffers[0]);
	s->nrow = STARPU_CSR_GET_NROW(buffers[0]);
	s->nzval = STARPU_CSR_GET_NZVAL(buffers[0]);
	s->colind = STARPU_CSR_GET_COLIND(buffers[0]);
	s->rowptr = STARPU_CSR_GET_ROWPTR(buffers[0]);
	s->firstentry = STARPU_CSR_GET_FIRSTENTRY(buffers[0]);
	s->elemsize = STARPU_CSR_GET_ELEMSIZE(buffers[0]);
	float *v = (float *) s->nzval;
	for (unsigned r = 0; r < s->nrow; r++)
		for (uint32_t k = s->rowptr[r] - s->firstentry; k < s->rowptr[r + 1] - s->firstentry; k++)
			v[k] = v[k] * 2 + 10 * r + s->colind[k];
}

static struct starpu_codelet csr_update_cl = {
	.cpu_funcs = { csr_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "csr_update",
};

/* Writes the reference structure and values 0.5 * k. */
static void csr_fill_cpu(void *buffers[], void *arg)
{
	(void) arg;
	float *v = (float *) STARPU_CSR_GET_NZVAL(buffers[0]);
	memcpy(STARPU_CSR_GET_COLIND(buffers[0]), csr_colind_ref, sizeof(csr_colind_ref));
	memcpy(STARPU_CSR_GET_ROWPTR(buffers[0]), csr_rowptr_ref, sizeof(csr_rowptr_ref));
	for (unsigned k = 0; k < STARPU_CSR_GET_NNZ(buffers[0]); k++)
		v[k] = 0.5f * k;
}

static struct starpu_codelet csr_fill_cl = {
	.cpu_funcs = { csr_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "csr_fill",
};

static void csr_clobber(void)
{
	memset(csr_nzval, 0, sizeof(csr_nzval));
	memset(csr_colind, 0, sizeof(csr_colind));
	memset(csr_rowptr, 0, sizeof(csr_rowptr));
}

static int csr_intact(void)
{
	return !memcmp(csr_nzval, csr_nzval_orig, sizeof(csr_nzval)) && !memcmp(csr_colind, csr_colind_ref, sizeof(csr_colind))
		&& !memcmp(csr_rowptr, csr_rowptr_ref, sizeof(csr_rowptr));
}

static const size_t csr_bytes = CNNZ * sizeof(float) + CNNZ * sizeof(uint32_t) + (CNROW + 1) * sizeof(uint32_t);

static void test_csr_home(void)
{
	for (int k = 0; k < CNNZ; k++)
		csr_nzval[k] = 1.5f + k;
	memcpy(csr_nzval_orig, csr_nzval, sizeof(csr_nzval));
	memcpy(csr_colind, csr_colind_ref, sizeof(csr_colind));
	memcpy(csr_rowptr, csr_rowptr_ref, sizeof(csr_rowptr));

	starpu_data_handle_t h;
	starpu_csr_data_register(&h, STARPU_MAIN_RAM, CNNZ, CNROW, (uintptr_t) csr_nzval, csr_colind, csr_rowptr, 0, sizeof(float));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_CSR_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_csr_get_nnz(h), CNNZ);
	CU_ASSERT_EQUAL(starpu_csr_get_nrow(h), CNROW);
	CU_ASSERT_EQUAL(starpu_csr_get_firstentry(h), 0);
	CU_ASSERT_EQUAL(starpu_csr_get_elemsize(h), sizeof(float));
	CU_ASSERT_EQUAL(starpu_csr_get_local_nzval(h), (uintptr_t) csr_nzval);
	CU_ASSERT_PTR_EQUAL(starpu_csr_get_local_colind(h), csr_colind);
	CU_ASSERT_PTR_EQUAL(starpu_csr_get_local_rowptr(h), csr_rowptr);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), csr_bytes);

	struct pack_case pc = { h, NULL, csr_bytes, csr_clobber, csr_intact };
	check_pack(&pc);

	struct csr_seen s;
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(submit(&csr_update_cl, &s, h), 0);
	float expect[CNNZ];
	for (int k = 0; k < CNNZ; k++)
		expect[k] = csr_nzval_orig[k] * 2 + 10 * csr_row_of[k] + csr_colind_ref[k];
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(csr_nzval, expect, sizeof(expect)) == 0);
	CU_ASSERT(memcmp(csr_colind, csr_colind_ref, sizeof(csr_colind)) == 0);
	CU_ASSERT(memcmp(csr_rowptr, csr_rowptr_ref, sizeof(csr_rowptr)) == 0);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(s.nzval, (uintptr_t) csr_nzval);
	CU_ASSERT_PTR_EQUAL(s.colind, csr_colind);
	CU_ASSERT_PTR_EQUAL(s.rowptr, csr_rowptr);
	CU_ASSERT_EQUAL(s.nnz, CNNZ);
	CU_ASSERT_EQUAL(s.nrow, CNROW);
	CU_ASSERT_EQUAL(s.firstentry, 0);
	CU_ASSERT_EQUAL(s.elemsize, sizeof(float));

	float bv[CNNZ];
	uint32_t bc[CNNZ], br[CNROW + 1];
	memset(bv, 0, sizeof(bv));
	memset(bc, 0, sizeof(bc));
	memset(br, 0, sizeof(br));
	struct starpu_csr_interface dst = {
		.id = STARPU_CSR_INTERFACE_ID, .nnz = CNNZ, .nrow = CNROW, .nzval = (uintptr_t) bv,
		.colind = bc, .rowptr = br, .firstentry = 0, .elemsize = sizeof(float),
	};
	through_disk(h, &dst);
	CU_ASSERT(memcmp(bv, expect, sizeof(bv)) == 0);
	CU_ASSERT(memcmp(bc, csr_colind_ref, sizeof(bc)) == 0);
	CU_ASSERT(memcmp(br, csr_rowptr_ref, sizeof(br)) == 0);

	starpu_data_unregister(h);
	CU_ASSERT(memcmp(csr_nzval, expect, sizeof(expect)) == 0);
}

static void test_csr_no_home(void)
{
	starpu_data_handle_t h;
	starpu_csr_data_register(&h, -1, CNNZ, CNROW, 0, NULL, NULL, 0, sizeof(float));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_csr_get_nnz(h), CNNZ);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), csr_bytes);
	CU_ASSERT_EQUAL(submit(&csr_fill_cl, NULL, h), 0);
	struct csr_seen s;
	CU_ASSERT_EQUAL(submit(&csr_update_cl, &s, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	const float *v = (const float *) starpu_csr_get_local_nzval(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT(memcmp(starpu_csr_get_local_colind(h), csr_colind_ref, sizeof(csr_colind_ref)) == 0);
	CU_ASSERT(memcmp(starpu_csr_get_local_rowptr(h), csr_rowptr_ref, sizeof(csr_rowptr_ref)) == 0);
	int bad = 0;
	for (int k = 0; k < CNNZ; k++)
		bad += v[k] != 0.5f * k * 2 + 10 * csr_row_of[k] + csr_colind_ref[k];
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void test_csr_shape_copy(void)
{
	float v1[CNNZ], v2[CNNZ];
	uint32_t c1[CNNZ], c2[CNNZ], r1[CNROW + 1], r2[CNROW + 1];
	for (int k = 0; k < CNNZ; k++)
		v1[k] = 3.25f * k;
	memcpy(c1, csr_colind_ref, sizeof(c1));
	memcpy(r1, csr_rowptr_ref, sizeof(r1));
	memset(v2, 0, sizeof(v2));
	memset(c2, 0xff, sizeof(c2));
	memset(r2, 0xff, sizeof(r2));
	starpu_data_handle_t ha, hb, hc;
	starpu_csr_data_register(&ha, STARPU_MAIN_RAM, CNNZ, CNROW, (uintptr_t) v1, c1, r1, 0, sizeof(float));
	starpu_csr_data_register(&hb, STARPU_MAIN_RAM, CNNZ, CNROW, (uintptr_t) v2, c2, r2, 0, sizeof(float));
	/* the first 3 rows only: 5 entries */
	starpu_csr_data_register(&hc, STARPU_MAIN_RAM, 5, 3, (uintptr_t) v1, c1, r1, 0, sizeof(float));
	check_shape_ops(ha, hb, hc);
	CU_ASSERT_EQUAL(starpu_data_get_size(hc), 5 * sizeof(float) + 5 * sizeof(uint32_t) + 4 * sizeof(uint32_t));

	CU_ASSERT_EQUAL(ram_copy(ops_of(ha), ram_iface(ha), ram_iface(hb)), 0);
	CU_ASSERT(memcmp(v1, v2, sizeof(v1)) == 0);
	CU_ASSERT(memcmp(c1, c2, sizeof(c1)) == 0);
	CU_ASSERT(memcmp(r1, r2, sizeof(r1)) == 0);
	starpu_data_unregister_no_coherency(ha);
	starpu_data_unregister_no_coherency(hb);
	starpu_data_unregister_no_coherency(hc);
}

static const struct vtest_case csr_cases[] = {
	{ "home_accessors_task_pack_disk", test_csr_home },
	{ "no_home", test_csr_no_home },
	{ "shape_ops_copy", test_csr_shape_copy },
	VTEST_END
};

/* ================================================================== */
/* BCSR: 3 block rows (row 1 empty), 4 blocks of 2 x 3 doubles */

enum { BSNROW = 3, BSNNZ = 4, BSR = 2, BSC = 3, BSBLK = BSR * BSC };
static const uint32_t bcsr_rowptr_ref[BSNROW + 1] = { 0, 2, 2, 4 };
static const uint32_t bcsr_colind_ref[BSNNZ] = { 0, 2, 1, 3 };
static const int bcsr_row_of[BSNNZ] = { 0, 0, 2, 2 };
static double bcsr_nzval[BSNNZ * BSBLK], bcsr_nzval_orig[BSNNZ * BSBLK];
static uint32_t bcsr_colind[BSNNZ], bcsr_rowptr[BSNROW + 1];

struct bcsr_seen
{
	uintptr_t nzval;
	uint32_t *colind, *rowptr;
	unsigned nnz, nrow, firstentry, r, c;
	size_t elemsize;
};

static void bcsr_update_cpu(void *buffers[], void *arg)
{
	struct bcsr_seen *s = arg;
	s->nnz = STARPU_BCSR_GET_NNZ(buffers[0]);
	s->nrow = STARPU_BCSR_GET_NROW(buffers[0]);
	s->nzval = STARPU_BCSR_GET_NZVAL(buffers[0]);
	s->colind = STARPU_BCSR_GET_COLIND(buffers[0]);
	s->rowptr = STARPU_BCSR_GET_ROWPTR(buffers[0]);
	s->firstentry = STARPU_BCSR_GET_FIRSTENTRY(buffers[0]);
	s->r = STARPU_BCSR_GET_R(buffers[0]);
	s->c = STARPU_BCSR_GET_C(buffers[0]);
	s->elemsize = STARPU_BCSR_GET_ELEMSIZE(buffers[0]);
	double *v = (double *) s->nzval;
	unsigned blk = s->r * s->c;
	for (unsigned row = 0; row < s->nrow; row++)
		for (uint32_t b = s->rowptr[row] - s->firstentry; b < s->rowptr[row + 1] - s->firstentry; b++)
			for (unsigned e = 0; e < blk; e++)
				v[b * blk + e] += 100 * row + 10 * s->colind[b] + e;
}

static struct starpu_codelet bcsr_update_cl = {
	.cpu_funcs = { bcsr_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "bcsr_update",
};

static void bcsr_fill_cpu(void *buffers[], void *arg)
{
	(void) arg;
	double *v = (double *) STARPU_BCSR_GET_NZVAL(buffers[0]);
	memcpy(STARPU_BCSR_GET_COLIND(buffers[0]), bcsr_colind_ref, sizeof(bcsr_colind_ref));
	memcpy(STARPU_BCSR_GET_ROWPTR(buffers[0]), bcsr_rowptr_ref, sizeof(bcsr_rowptr_ref));
	for (unsigned k = 0; k < BSNNZ * BSBLK; k++)
		v[k] = -1.0 * k;
}

static struct starpu_codelet bcsr_fill_cl = {
	.cpu_funcs = { bcsr_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "bcsr_fill",
};

static void bcsr_clobber(void)
{
	memset(bcsr_nzval, 0, sizeof(bcsr_nzval));
	memset(bcsr_colind, 0, sizeof(bcsr_colind));
	memset(bcsr_rowptr, 0, sizeof(bcsr_rowptr));
}

static int bcsr_intact(void)
{
	return !memcmp(bcsr_nzval, bcsr_nzval_orig, sizeof(bcsr_nzval)) && !memcmp(bcsr_colind, bcsr_colind_ref, sizeof(bcsr_colind))
		&& !memcmp(bcsr_rowptr, bcsr_rowptr_ref, sizeof(bcsr_rowptr));
}

static const size_t bcsr_bytes = BSNNZ * BSBLK * sizeof(double) + BSNNZ * sizeof(uint32_t) + (BSNROW + 1) * sizeof(uint32_t);

static void test_bcsr_home(void)
{
	for (int k = 0; k < BSNNZ * BSBLK; k++)
		bcsr_nzval[k] = 0.125 * k + 1;
	memcpy(bcsr_nzval_orig, bcsr_nzval, sizeof(bcsr_nzval));
	memcpy(bcsr_colind, bcsr_colind_ref, sizeof(bcsr_colind));
	memcpy(bcsr_rowptr, bcsr_rowptr_ref, sizeof(bcsr_rowptr));

	starpu_data_handle_t h;
	starpu_bcsr_data_register(&h, STARPU_MAIN_RAM, BSNNZ, BSNROW, (uintptr_t) bcsr_nzval, bcsr_colind, bcsr_rowptr, 0,
				  BSR, BSC, sizeof(double));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_BCSR_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_bcsr_get_nnz(h), BSNNZ);
	CU_ASSERT_EQUAL(starpu_bcsr_get_nrow(h), BSNROW);
	CU_ASSERT_EQUAL(starpu_bcsr_get_firstentry(h), 0);
	CU_ASSERT_EQUAL(starpu_bcsr_get_r(h), BSR);
	CU_ASSERT_EQUAL(starpu_bcsr_get_c(h), BSC);
	CU_ASSERT_EQUAL(starpu_bcsr_get_elemsize(h), sizeof(double));
	CU_ASSERT_EQUAL(starpu_bcsr_get_local_nzval(h), (uintptr_t) bcsr_nzval);
	CU_ASSERT_PTR_EQUAL(starpu_bcsr_get_local_colind(h), bcsr_colind);
	CU_ASSERT_PTR_EQUAL(starpu_bcsr_get_local_rowptr(h), bcsr_rowptr);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), bcsr_bytes);

	struct pack_case pc = { h, NULL, bcsr_bytes, bcsr_clobber, bcsr_intact };
	check_pack(&pc);

	struct bcsr_seen s;
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(submit(&bcsr_update_cl, &s, h), 0);
	double expect[BSNNZ * BSBLK];
	for (int b = 0; b < BSNNZ; b++)
		for (int e = 0; e < BSBLK; e++)
			expect[b * BSBLK + e] = bcsr_nzval_orig[b * BSBLK + e] + 100 * bcsr_row_of[b] + 10 * bcsr_colind_ref[b] + e;
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(bcsr_nzval, expect, sizeof(expect)) == 0);
	CU_ASSERT(memcmp(bcsr_colind, bcsr_colind_ref, sizeof(bcsr_colind)) == 0);
	CU_ASSERT(memcmp(bcsr_rowptr, bcsr_rowptr_ref, sizeof(bcsr_rowptr)) == 0);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(s.nzval, (uintptr_t) bcsr_nzval);
	CU_ASSERT_PTR_EQUAL(s.colind, bcsr_colind);
	CU_ASSERT_PTR_EQUAL(s.rowptr, bcsr_rowptr);
	CU_ASSERT_EQUAL(s.nnz, BSNNZ);
	CU_ASSERT_EQUAL(s.nrow, BSNROW);
	CU_ASSERT_EQUAL(s.firstentry, 0);
	CU_ASSERT_EQUAL(s.r, BSR);
	CU_ASSERT_EQUAL(s.c, BSC);
	CU_ASSERT_EQUAL(s.elemsize, sizeof(double));

	double bv[BSNNZ * BSBLK];
	uint32_t bc[BSNNZ], br[BSNROW + 1];
	memset(bv, 0, sizeof(bv));
	memset(bc, 0, sizeof(bc));
	memset(br, 0, sizeof(br));
	struct starpu_bcsr_interface dst = {
		.id = STARPU_BCSR_INTERFACE_ID, .nnz = BSNNZ, .nrow = BSNROW, .nzval = (uintptr_t) bv,
		.colind = bc, .rowptr = br, .firstentry = 0, .r = BSR, .c = BSC, .elemsize = sizeof(double),
	};
	through_disk(h, &dst);
	CU_ASSERT(memcmp(bv, expect, sizeof(bv)) == 0);
	CU_ASSERT(memcmp(bc, bcsr_colind_ref, sizeof(bc)) == 0);
	CU_ASSERT(memcmp(br, bcsr_rowptr_ref, sizeof(br)) == 0);

	starpu_data_unregister(h);
	CU_ASSERT(memcmp(bcsr_nzval, expect, sizeof(expect)) == 0);
}

static void test_bcsr_no_home(void)
{
	starpu_data_handle_t h;
	starpu_bcsr_data_register(&h, -1, BSNNZ, BSNROW, 0, NULL, NULL, 0, BSR, BSC, sizeof(double));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), bcsr_bytes);
	CU_ASSERT_EQUAL(submit(&bcsr_fill_cl, NULL, h), 0);
	struct bcsr_seen s;
	CU_ASSERT_EQUAL(submit(&bcsr_update_cl, &s, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	const double *v = (const double *) starpu_bcsr_get_local_nzval(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT(memcmp(starpu_bcsr_get_local_colind(h), bcsr_colind_ref, sizeof(bcsr_colind_ref)) == 0);
	CU_ASSERT(memcmp(starpu_bcsr_get_local_rowptr(h), bcsr_rowptr_ref, sizeof(bcsr_rowptr_ref)) == 0);
	int bad = 0;
	for (int b = 0; b < BSNNZ; b++)
		for (int e = 0; e < BSBLK; e++)
			bad += v[b * BSBLK + e] != -1.0 * (b * BSBLK + e) + 100 * bcsr_row_of[b] + 10 * bcsr_colind_ref[b] + e;
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void test_bcsr_shape_copy(void)
{
	double v1[BSNNZ * BSBLK], v2[BSNNZ * BSBLK];
	uint32_t c1[BSNNZ], c2[BSNNZ], r1[BSNROW + 1], r2[BSNROW + 1];
	for (int k = 0; k < BSNNZ * BSBLK; k++)
		v1[k] = 7.5 * k;
	memcpy(c1, bcsr_colind_ref, sizeof(c1));
	memcpy(r1, bcsr_rowptr_ref, sizeof(r1));
	memset(v2, 0, sizeof(v2));
	memset(c2, 0xff, sizeof(c2));
	memset(r2, 0xff, sizeof(r2));
	starpu_data_handle_t ha, hb, hc, hd;
	starpu_bcsr_data_register(&ha, STARPU_MAIN_RAM, BSNNZ, BSNROW, (uintptr_t) v1, c1, r1, 0, BSR, BSC, sizeof(double));
	starpu_bcsr_data_register(&hb, STARPU_MAIN_RAM, BSNNZ, BSNROW, (uintptr_t) v2, c2, r2, 0, BSR, BSC, sizeof(double));
	/* the same arrays seen with 3 x 2 blocks */
	starpu_bcsr_data_register(&hc, STARPU_MAIN_RAM, BSNNZ, BSNROW, (uintptr_t) v1, c1, r1, 0, BSC, BSR, sizeof(double));
	/* 6 x 1 blocks */
	starpu_bcsr_data_register(&hd, STARPU_MAIN_RAM, BSNNZ, BSNROW, (uintptr_t) v1, c1, r1, 0, BSBLK, 1, sizeof(double));
	check_shape_ops(ha, hb, hc);
	CU_ASSERT_NOT_EQUAL(footprint_of(ha), footprint_of(hd));
	CU_ASSERT_FALSE(ops_of(ha)->compare(ram_iface(ha), ram_iface(hd)));

	CU_ASSERT_EQUAL(ram_copy(ops_of(ha), ram_iface(ha), ram_iface(hb)), 0);
	CU_ASSERT(memcmp(v1, v2, sizeof(v1)) == 0);
	CU_ASSERT(memcmp(c1, c2, sizeof(c1)) == 0);
	CU_ASSERT(memcmp(r1, r2, sizeof(r1)) == 0);
	starpu_data_unregister_no_coherency(ha);
	starpu_data_unregister_no_coherency(hb);
	starpu_data_unregister_no_coherency(hc);
	starpu_data_unregister_no_coherency(hd);
}

/* What a codelet sees of the first entry of a CSR or BCSR. */
static void firstentry_cpu(void *buffers[], void *arg)
{
	void *iface = buffers[0];
	if (*(enum starpu_data_interface_id *) iface == STARPU_CSR_INTERFACE_ID)
		*(uint32_t *) arg = STARPU_CSR_GET_FIRSTENTRY(iface);
	else
		*(uint32_t *) arg = STARPU_BCSR_GET_FIRSTENTRY(iface);
}

static struct starpu_codelet firstentry_cl = {
	.cpu_funcs = { firstentry_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "firstentry",
};

/* A buffer freed by one handle and reused (allocation cache) for another
 * of the same size keeps the new handle's description: firstentry 0, then
 * 1 (rows counted from 1), then 0 again. */
static void test_sparse_reuse_keeps_firstentry(void)
{
	const uint32_t fes[3] = { 0, 1, 0 };
	for (int bcsr = 0; bcsr < 2; bcsr++)
		for (int i = 0; i < 3; i++)
		{
			starpu_data_handle_t h;
			if (bcsr)
				starpu_bcsr_data_register(&h, -1, BSNNZ, BSNROW, 0, NULL, NULL, fes[i], BSR, BSC, sizeof(double));
			else
				starpu_csr_data_register(&h, -1, CNNZ, CNROW, 0, NULL, NULL, fes[i], sizeof(float));
			CU_ASSERT_PTR_NOT_NULL_FATAL(h);
			uint32_t seen = 99;
			CU_ASSERT_EQUAL(submit(&firstentry_cl, &seen, h), 0);
			CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
			CU_ASSERT_EQUAL(seen, fes[i]);
			CU_ASSERT_EQUAL(bcsr ? starpu_bcsr_get_firstentry(h) : starpu_csr_get_firstentry(h), fes[i]);
			starpu_data_unregister(h);
		}
}

static const struct vtest_case bcsr_cases[] = {
	{ "home_accessors_task_pack_disk", test_bcsr_home },
	{ "no_home", test_bcsr_no_home },
	{ "csr_bcsr_reuse_keeps_firstentry", test_sparse_reuse_keeps_firstentry },
	{ "shape_ops_copy", test_bcsr_shape_copy },
	VTEST_END
};

/* ================================================================== */
/* COO: 7 entries of a 6 x 5 matrix, int32 values */

enum { ONX = 6, ONY = 5, ONV = 7 };
static const uint32_t coo_rows_ref[ONV] = { 0, 0, 1, 2, 3, 4, 4 };
static const uint32_t coo_cols_ref[ONV] = { 1, 5, 0, 3, 3, 2, 4 };
static int32_t coo_values[ONV], coo_values_orig[ONV];
static uint32_t coo_rows[ONV], coo_cols[ONV];

struct coo_seen
{
	uint32_t *rows, *cols;
	uintptr_t values;
	unsigned nx, ny, n;
	size_t elemsize;
};

static void coo_update_cpu(void *buffers[], void *arg)
{
	struct coo_seen *s = arg;
	s->rows = STARPU_COO_GET_ROWS(buffers[0]);
	s->cols = STARPU_COO_GET_COLUMNS(buffers[0]);
	s->values = STARPU_COO_GET_VALUES(buffers[0]);
	s->nx = STARPU_COO_GET_NX(buffers[0]);
	s->ny = STARPU_COO_GET_NY(buffers[0]);
	s->n = STARPU_COO_GET_NVALUES(buffers[0]);
	s->elemsize = STARPU_COO_GET_ELEMSIZE(buffers[0]);
	int32_t *v = (int32_t *) s->values;
	for (unsigned k = 0; k < s->n; k++)
		v[k] += 100 * (int32_t) s->rows[k] + (int32_t) s->cols[k];
}

static struct starpu_codelet coo_update_cl = {
	.cpu_funcs = { coo_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "coo_update",
};

static void coo_fill_cpu(void *buffers[], void *arg)
{
	(void) arg;
	memcpy(STARPU_COO_GET_ROWS(buffers[0]), coo_rows_ref, sizeof(coo_rows_ref));
	memcpy(STARPU_COO_GET_COLUMNS(buffers[0]), coo_cols_ref, sizeof(coo_cols_ref));
	int32_t *v = (int32_t *) STARPU_COO_GET_VALUES(buffers[0]);
	for (unsigned k = 0; k < STARPU_COO_GET_NVALUES(buffers[0]); k++)
		v[k] = 11 * (int32_t) k;
}

static struct starpu_codelet coo_fill_cl = {
	.cpu_funcs = { coo_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "coo_fill",
};

static void coo_clobber(void)
{
	memset(coo_values, 0, sizeof(coo_values));
	memset(coo_rows, 0, sizeof(coo_rows));
	memset(coo_cols, 0, sizeof(coo_cols));
}

static int coo_intact(void)
{
	return !memcmp(coo_values, coo_values_orig, sizeof(coo_values)) && !memcmp(coo_rows, coo_rows_ref, sizeof(coo_rows))
		&& !memcmp(coo_cols, coo_cols_ref, sizeof(coo_cols));
}

/* What COO data takes (its entries), and the size StarPU reports for it
 * (that of the dense matrix, which performance models are keyed by). */
static const size_t coo_bytes = ONV * sizeof(int32_t) + 2 * ONV * sizeof(uint32_t);
static const size_t coo_dense_bytes = (size_t) ONX * ONY * sizeof(int32_t);

static void test_coo_home(void)
{
	for (int k = 0; k < ONV; k++)
		coo_values[k] = 3 - 2 * k;
	memcpy(coo_values_orig, coo_values, sizeof(coo_values));
	memcpy(coo_rows, coo_rows_ref, sizeof(coo_rows));
	memcpy(coo_cols, coo_cols_ref, sizeof(coo_cols));

	starpu_data_handle_t h;
	starpu_coo_data_register(&h, STARPU_MAIN_RAM, ONX, ONY, ONV, coo_cols, coo_rows, (uintptr_t) coo_values, sizeof(int32_t));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_COO_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), coo_dense_bytes);
	CU_ASSERT_EQUAL(starpu_data_get_alloc_size(h), coo_bytes);
	struct starpu_coo_interface *ci = ram_iface(h);
	CU_ASSERT_EQUAL(STARPU_COO_GET_NX(ci), ONX);
	CU_ASSERT_EQUAL(STARPU_COO_GET_NY(ci), ONY);
	CU_ASSERT_EQUAL(STARPU_COO_GET_NVALUES(ci), ONV);
	CU_ASSERT_PTR_EQUAL(STARPU_COO_GET_ROWS(ci), coo_rows);
	CU_ASSERT_PTR_EQUAL(STARPU_COO_GET_COLUMNS(ci), coo_cols);
	CU_ASSERT_EQUAL(STARPU_COO_GET_VALUES(ci), (uintptr_t) coo_values);

	struct pack_case pc = { h, NULL, coo_bytes, coo_clobber, coo_intact };
	check_pack(&pc);

	struct coo_seen s;
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(submit(&coo_update_cl, &s, h), 0);
	int32_t expect[ONV];
	for (int k = 0; k < ONV; k++)
		expect[k] = coo_values_orig[k] + 100 * (int32_t) coo_rows_ref[k] + (int32_t) coo_cols_ref[k];
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(coo_values, expect, sizeof(expect)) == 0);
	CU_ASSERT(memcmp(coo_rows, coo_rows_ref, sizeof(coo_rows)) == 0);
	CU_ASSERT(memcmp(coo_cols, coo_cols_ref, sizeof(coo_cols)) == 0);
	starpu_data_release(h);
	CU_ASSERT_PTR_EQUAL(s.rows, coo_rows);
	CU_ASSERT_PTR_EQUAL(s.cols, coo_cols);
	CU_ASSERT_EQUAL(s.values, (uintptr_t) coo_values);
	CU_ASSERT_EQUAL(s.nx, ONX);
	CU_ASSERT_EQUAL(s.ny, ONY);
	CU_ASSERT_EQUAL(s.n, ONV);
	CU_ASSERT_EQUAL(s.elemsize, sizeof(int32_t));

	int32_t bv[ONV];
	uint32_t brow[ONV], bcol[ONV];
	memset(bv, 0, sizeof(bv));
	memset(brow, 0, sizeof(brow));
	memset(bcol, 0, sizeof(bcol));
	struct starpu_coo_interface dst = {
		.id = STARPU_COO_INTERFACE_ID, .columns = bcol, .rows = brow, .values = (uintptr_t) bv,
		.nx = ONX, .ny = ONY, .n_values = ONV, .elemsize = sizeof(int32_t),
	};
	through_disk(h, &dst);
	CU_ASSERT(memcmp(bv, expect, sizeof(bv)) == 0);
	CU_ASSERT(memcmp(brow, coo_rows_ref, sizeof(brow)) == 0);
	CU_ASSERT(memcmp(bcol, coo_cols_ref, sizeof(bcol)) == 0);

	starpu_data_unregister(h);
	CU_ASSERT(memcmp(coo_values, expect, sizeof(expect)) == 0);
}

static void test_coo_no_home(void)
{
	starpu_data_handle_t h;
	starpu_coo_data_register(&h, -1, ONX, ONY, ONV, NULL, NULL, 0, sizeof(int32_t));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), coo_dense_bytes);
	CU_ASSERT_EQUAL(starpu_data_get_alloc_size(h), coo_bytes);
	CU_ASSERT_EQUAL(submit(&coo_fill_cl, NULL, h), 0);
	struct coo_seen s;
	CU_ASSERT_EQUAL(submit(&coo_update_cl, &s, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	struct starpu_coo_interface *ci = ram_iface(h);
	const int32_t *v = (const int32_t *) STARPU_COO_GET_VALUES(ci);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT(memcmp(STARPU_COO_GET_ROWS(ci), coo_rows_ref, sizeof(coo_rows_ref)) == 0);
	CU_ASSERT(memcmp(STARPU_COO_GET_COLUMNS(ci), coo_cols_ref, sizeof(coo_cols_ref)) == 0);
	int bad = 0;
	for (int k = 0; k < ONV; k++)
		bad += v[k] != 11 * k + 100 * (int32_t) coo_rows_ref[k] + (int32_t) coo_cols_ref[k];
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void test_coo_shape_copy(void)
{
	int32_t v1[ONV], v2[ONV];
	uint32_t r1[ONV], r2[ONV], c1[ONV], c2[ONV];
	for (int k = 0; k < ONV; k++)
		v1[k] = 1000 + k;
	memcpy(r1, coo_rows_ref, sizeof(r1));
	memcpy(c1, coo_cols_ref, sizeof(c1));
	memset(v2, 0, sizeof(v2));
	memset(r2, 0xff, sizeof(r2));
	memset(c2, 0xff, sizeof(c2));
	starpu_data_handle_t ha, hb, hc, hd;
	starpu_coo_data_register(&ha, STARPU_MAIN_RAM, ONX, ONY, ONV, c1, r1, (uintptr_t) v1, sizeof(int32_t));
	starpu_coo_data_register(&hb, STARPU_MAIN_RAM, ONX, ONY, ONV, c2, r2, (uintptr_t) v2, sizeof(int32_t));
	/* the same entries in a larger matrix */
	starpu_coo_data_register(&hc, STARPU_MAIN_RAM, ONX + 1, ONY, ONV, c1, r1, (uintptr_t) v1, sizeof(int32_t));
	/* fewer entries in the same matrix: as in StarPU, the footprint is
	 * that of the dense shape, but the buffers differ */
	starpu_coo_data_register(&hd, STARPU_MAIN_RAM, ONX, ONY, ONV - 1, c1, r1, (uintptr_t) v1, sizeof(int32_t));
	check_shape_ops(ha, hb, hc);
	CU_ASSERT_EQUAL(footprint_of(ha), footprint_of(hd));
	CU_ASSERT_FALSE(ops_of(ha)->compare(ram_iface(ha), ram_iface(hd)));

	CU_ASSERT_EQUAL(ram_copy(ops_of(ha), ram_iface(ha), ram_iface(hb)), 0);
	CU_ASSERT(memcmp(v1, v2, sizeof(v1)) == 0);
	CU_ASSERT(memcmp(r1, r2, sizeof(r1)) == 0);
	CU_ASSERT(memcmp(c1, c2, sizeof(c1)) == 0);
	starpu_data_unregister_no_coherency(ha);
	starpu_data_unregister_no_coherency(hb);
	starpu_data_unregister_no_coherency(hc);
	starpu_data_unregister_no_coherency(hd);
}

static const struct vtest_case coo_cases[] = {
	{ "home_accessors_task_pack_disk", test_coo_home },
	{ "no_home", test_coo_no_home },
	{ "shape_ops_copy", test_coo_shape_copy },
	VTEST_END
};

/* ================================================================== */
/* An interface defined by the application: n uint32 counters. */

struct counters_interface
{
	uintptr_t ptr;
	uint32_t n;
};

static void counters_register(starpu_data_handle_t h, unsigned home, void *iface)
{
	struct counters_interface *src = iface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct counters_interface *c = starpu_data_get_interface_on_node(h, node);
		c->n = src->n;
		c->ptr = node == home ? src->ptr : 0;
	}
}

static starpu_ssize_t counters_allocate(void *iface, unsigned node)
{
	struct counters_interface *c = iface;
	c->ptr = starpu_malloc_on_node(node, c->n * sizeof(uint32_t));
	return c->ptr ? (starpu_ssize_t) (c->n * sizeof(uint32_t)) : -ENOMEM;
}

static void counters_free(void *iface, unsigned node)
{
	struct counters_interface *c = iface;
	starpu_free_on_node(node, c->ptr, c->n * sizeof(uint32_t));
	c->ptr = 0;
}

static int counters_copy(void *src, unsigned src_node, void *dst, unsigned dst_node, void *async)
{
	struct counters_interface *s = src, *d = dst;
	return starpu_interface_copy(s->ptr, 0, src_node, d->ptr, 0, dst_node, s->n * sizeof(uint32_t), async);
}

static const struct starpu_data_copy_methods counters_copy_methods = { .any_to_any = counters_copy };

static size_t counters_size(starpu_data_handle_t h)
{
	return ((struct counters_interface *) ram_iface(h))->n * sizeof(uint32_t);
}

static uint32_t counters_footprint(starpu_data_handle_t h)
{
	return ((struct counters_interface *) ram_iface(h))->n;
}

static int counters_compare(void *a, void *b)
{
	return ((struct counters_interface *) a)->n == ((struct counters_interface *) b)->n;
}

static starpu_ssize_t counters_describe(void *iface, char *buf, size_t size)
{
	return snprintf(buf, size, "counters%u", ((struct counters_interface *) iface)->n);
}

static void *counters_to_pointer(void *iface, unsigned node)
{
	(void) node;
	return (void *) ((struct counters_interface *) iface)->ptr;
}

static struct starpu_data_interface_ops counters_ops = {
	.register_data_handle = counters_register,
	.allocate_data_on_node = counters_allocate,
	.free_data_on_node = counters_free,
	.copy_methods = &counters_copy_methods,
	.get_size = counters_size,
	.footprint = counters_footprint,
	.compare = counters_compare,
	.describe = counters_describe,
	.to_pointer = counters_to_pointer,
	.interface_size = sizeof(struct counters_interface),
	.name = "COUNTERS",
};

static void counters_bump_cpu(void *buffers[], void *arg)
{
	struct counters_interface *c = buffers[0];
	uint32_t *v = (uint32_t *) c->ptr;
	for (uint32_t i = 0; i < c->n; i++)
		v[i] = v[i] * 3 + (uint32_t) (uintptr_t) arg + i;
}

static struct starpu_codelet counters_bump_cl = {
	.cpu_funcs = { counters_bump_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "counters_bump",
};

static void counters_set_cpu(void *buffers[], void *arg)
{
	struct counters_interface *c = buffers[0];
	uint32_t *v = (uint32_t *) c->ptr;
	for (uint32_t i = 0; i < c->n; i++)
		v[i] = (uint32_t) (uintptr_t) arg * i;
}

static struct starpu_codelet counters_set_cl = {
	.cpu_funcs = { counters_set_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "counters_set",
};

static void test_custom_interface(void)
{
	if (!counters_ops.interfaceid)
		counters_ops.interfaceid = (enum starpu_data_interface_id) starpu_data_interface_get_next_id();
	CU_ASSERT(counters_ops.interfaceid >= STARPU_MAX_INTERFACE_ID);
	enum { N = 50 };
	uint32_t data[N];
	for (int i = 0; i < N; i++)
		data[i] = (uint32_t) (i * i);
	struct counters_interface ci = { (uintptr_t) data, N };
	starpu_data_handle_t h;
	starpu_data_register(&h, STARPU_MAIN_RAM, &ci, &counters_ops);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_PTR_EQUAL(starpu_data_get_interface_ops(h), &counters_ops);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), counters_ops.interfaceid);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), sizeof(data));
	CU_ASSERT_PTR_EQUAL(starpu_data_lookup(data), h);
	CU_ASSERT_PTR_EQUAL(starpu_data_get_local_ptr(h), data);

	for (int k = 0; k < 3; k++)
		CU_ASSERT_EQUAL(submit(&counters_bump_cl, (void *) (uintptr_t) (k + 1), h), 0);
	uint32_t expect[N];
	for (int i = 0; i < N; i++)
	{
		expect[i] = (uint32_t) (i * i);
		for (int k = 0; k < 3; k++)
			expect[i] = expect[i] * 3 + (uint32_t) (k + 1) + (uint32_t) i;
	}
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(data, expect, sizeof(data)) == 0);
	starpu_data_release(h);

	/* register_same: the shape without the data, allocated on first write */
	starpu_data_handle_t same;
	starpu_data_register_same(&same, h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(same);
	CU_ASSERT_PTR_EQUAL(starpu_data_get_interface_ops(same), &counters_ops);
	CU_ASSERT_EQUAL(starpu_data_get_size(same), sizeof(data));
	CU_ASSERT_EQUAL(footprint_of(same), footprint_of(h));
	CU_ASSERT_EQUAL(starpu_data_get_home_node(same), -1);
	CU_ASSERT_EQUAL(submit(&counters_set_cl, (void *) (uintptr_t) 7, same), 0);
	CU_ASSERT_EQUAL(submit(&counters_bump_cl, (void *) (uintptr_t) 2, same), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(same, STARPU_R), 0);
	const uint32_t *v = starpu_data_get_local_ptr(same);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT(v != data);
	int bad = 0;
	for (int i = 0; i < N; i++)
		bad += v[i] != 7u * i * 3 + 2 + i;
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(same);

	/* through the disk */
	uint32_t back[N];
	memset(back, 0, sizeof(back));
	struct counters_interface dst = { (uintptr_t) back, N };
	through_disk(h, &dst);
	CU_ASSERT(memcmp(back, expect, sizeof(back)) == 0);

	/* names, coordinates, user data */
	starpu_data_set_name(h, "counters-h");
	starpu_data_set_name(h, "counters-h2");	/* replaces, no leak */
	starpu_data_set_coordinates(h, 2, 3, 4);
	int dims[4] = { -1, -1, -1, -1 };
	CU_ASSERT_EQUAL(starpu_data_get_coordinates_array(h, 4, dims), 2);
	CU_ASSERT_EQUAL(dims[0], 3);
	CU_ASSERT_EQUAL(dims[1], 4);
	CU_ASSERT_EQUAL(dims[2], -1);
	int three[3] = { 7, 8, 9 };
	starpu_data_set_coordinates_array(same, 3, three);
	memset(dims, 0, sizeof(dims));
	CU_ASSERT_EQUAL(starpu_data_get_coordinates_array(same, 2, dims), 3);
	CU_ASSERT_EQUAL(dims[0], 7);
	CU_ASSERT_EQUAL(dims[1], 8);
	CU_ASSERT_EQUAL(dims[2], 0);	/* only 2 asked for */
	CU_ASSERT_PTR_NULL(starpu_data_get_user_data(h));
	starpu_data_set_user_data(h, &dst);
	CU_ASSERT_PTR_EQUAL(starpu_data_get_user_data(h), &dst);
	CU_ASSERT_PTR_NULL(starpu_data_get_user_data(same));

	starpu_data_unregister(same);
	starpu_data_unregister(h);
	CU_ASSERT_PTR_NULL(starpu_data_lookup(data));
	CU_ASSERT(memcmp(data, expect, sizeof(data)) == 0);
}

/* register_same of each standard kind keeps the shape. */
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

static const struct vtest_case custom_cases[] = {
	{ "custom_interface_register_same_names", test_custom_interface },
	{ "register_same_standard", test_register_same_standard },
	VTEST_END
};

/* ================================================================== */
/* Out of core: RAM limited to 1 MiB, about 3 MiB of data registered with
 * no home. Writing it all evicts most of it to the disk; reading it back
 * brings it back, through every interface's copy methods. */

static int start_limited(void)
{
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "1");
	int ret = start_runtime();
	vtest_env_restore();
	return ret;
}

static uint32_t pat(unsigned seed, unsigned k)
{
	return seed * 2654435761u + k * 40503u + 1;
}

enum ooc_kind { OOC_VECTOR, OOC_MATRIX, OOC_BLOCK, OOC_CSR, OOC_BCSR, OOC_COO, OOC_COUNTERS, OOC_NKINDS };

struct ooc_item
{
	enum ooc_kind kind;
	unsigned seed;
	starpu_data_handle_t h;
};

/* Sizes: about 128 KiB each. */
enum { OV_N = 32768, OM_NX = 120, OM_NY = 270, OB_NX = 32, OB_NY = 32, OB_NZ = 32,
       OS_NROW = 512, OS_NNZ = 16000, OBS_NROW = 64, OBS_NNZ = 1000, OBS_R = 4, OBS_C = 6, OO_N = 10000 };

/* The value array of a handle in a codelet, and its length. */
static uint32_t *ooc_values(enum ooc_kind kind, void *iface, unsigned *n)
{
	switch (kind)
	{
	case OOC_VECTOR:
		*n = STARPU_VECTOR_GET_NX(iface);
		return (uint32_t *) STARPU_VECTOR_GET_PTR(iface);
	case OOC_MATRIX:
		/* allocated by the runtime: packed (checked in ooc_fill) */
		*n = STARPU_MATRIX_GET_NX(iface) * STARPU_MATRIX_GET_NY(iface);
		return (uint32_t *) STARPU_MATRIX_GET_PTR(iface);
	case OOC_BLOCK:
		*n = STARPU_BLOCK_GET_NX(iface) * STARPU_BLOCK_GET_NY(iface) * STARPU_BLOCK_GET_NZ(iface);
		return (uint32_t *) STARPU_BLOCK_GET_PTR(iface);
	case OOC_CSR:
		*n = STARPU_CSR_GET_NNZ(iface);
		return (uint32_t *) STARPU_CSR_GET_NZVAL(iface);
	case OOC_BCSR:
		*n = STARPU_BCSR_GET_NNZ(iface) * STARPU_BCSR_GET_R(iface) * STARPU_BCSR_GET_C(iface);
		return (uint32_t *) STARPU_BCSR_GET_NZVAL(iface);
	case OOC_COO:
		*n = STARPU_COO_GET_NVALUES(iface);
		return (uint32_t *) STARPU_COO_GET_VALUES(iface);
	default:
		*n = ((struct counters_interface *) iface)->n;
		return (uint32_t *) ((struct counters_interface *) iface)->ptr;
	}
}

/* The sparse structures: row r starts at r * nnz / nrow, entry k is in
 * column k % 97. */
static uint32_t ooc_rowptr(unsigned r, unsigned nrow, unsigned nnz)
{
	return (uint32_t) ((uint64_t) r * nnz / nrow);
}

static int ooc_packed_ok;

static void ooc_fill_cpu(void *buffers[], void *arg)
{
	struct ooc_item *it = arg;
	void *iface = buffers[0];
	unsigned n;
	uint32_t *v = ooc_values(it->kind, iface, &n);
	for (unsigned k = 0; k < n; k++)
		v[k] = pat(it->seed, k);
	if (it->kind == OOC_MATRIX && STARPU_MATRIX_GET_LD(iface) != STARPU_MATRIX_GET_NX(iface))
		ooc_packed_ok = 0;
	if (it->kind == OOC_BLOCK && (STARPU_BLOCK_GET_LDY(iface) != STARPU_BLOCK_GET_NX(iface)
				      || STARPU_BLOCK_GET_LDZ(iface) != STARPU_BLOCK_GET_NX(iface) * STARPU_BLOCK_GET_NY(iface)))
		ooc_packed_ok = 0;
	uint32_t *rowptr = NULL, *colind = NULL, nrow = 0, nnz = 0;
	if (it->kind == OOC_CSR)
	{
		rowptr = STARPU_CSR_GET_ROWPTR(iface);
		colind = STARPU_CSR_GET_COLIND(iface);
		nrow = STARPU_CSR_GET_NROW(iface);
		nnz = STARPU_CSR_GET_NNZ(iface);
	}
	else if (it->kind == OOC_BCSR)
	{
		rowptr = STARPU_BCSR_GET_ROWPTR(iface);
		colind = STARPU_BCSR_GET_COLIND(iface);
		nrow = STARPU_BCSR_GET_NROW(iface);
		nnz = STARPU_BCSR_GET_NNZ(iface);
	}
	else if (it->kind == OOC_COO)
	{
		uint32_t *rows = STARPU_COO_GET_ROWS(iface), *cols = STARPU_COO_GET_COLUMNS(iface);
		for (unsigned k = 0; k < n; k++)
		{
			rows[k] = k / 100;
			cols[k] = k % 97;
		}
	}
	for (unsigned r = 0; rowptr && r <= nrow; r++)
		rowptr[r] = ooc_rowptr(r, nrow, nnz);
	for (unsigned k = 0; colind && k < nnz; k++)
		colind[k] = k % 97;
}

static struct starpu_codelet ooc_fill_cl = {
	.cpu_funcs = { ooc_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "ooc_fill",
};

static void ooc_update_cpu(void *buffers[], void *arg)
{
	struct ooc_item *it = arg;
	unsigned n;
	uint32_t *v = ooc_values(it->kind, buffers[0], &n);
	for (unsigned k = 0; k < n; k++)
		v[k] = v[k] * 3 + 1;
}

static struct starpu_codelet ooc_update_cl = {
	.cpu_funcs = { ooc_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "ooc_update",
};

static void ooc_register(struct ooc_item *it)
{
	switch (it->kind)
	{
	case OOC_VECTOR:
		starpu_vector_data_register(&it->h, -1, 0, OV_N, sizeof(uint32_t));
		break;
	case OOC_MATRIX:
		starpu_matrix_data_register(&it->h, -1, 0, OM_NX, OM_NX, OM_NY, sizeof(uint32_t));
		break;
	case OOC_BLOCK:
		starpu_block_data_register(&it->h, -1, 0, OB_NX, OB_NX * OB_NY, OB_NX, OB_NY, OB_NZ, sizeof(uint32_t));
		break;
	case OOC_CSR:
		starpu_csr_data_register(&it->h, -1, OS_NNZ, OS_NROW, 0, NULL, NULL, 0, sizeof(uint32_t));
		break;
	case OOC_BCSR:
		starpu_bcsr_data_register(&it->h, -1, OBS_NNZ, OBS_NROW, 0, NULL, NULL, 0, OBS_R, OBS_C, sizeof(uint32_t));
		break;
	case OOC_COO:
		starpu_coo_data_register(&it->h, -1, 300, 97, OO_N * 3, NULL, NULL, 0, sizeof(uint32_t));
		break;
	default:
	{
		struct counters_interface ci = { 0, OV_N };
		starpu_data_register(&it->h, -1, &ci, &counters_ops);
		break;
	}
	}
}

/* Checks a handle's data (acquired in RAM) against the pattern after
 * nupdates updates. */
static int ooc_check(struct ooc_item *it, int nupdates)
{
	void *iface = ram_iface(it->h);
	unsigned n;
	const uint32_t *v = ooc_values(it->kind, iface, &n);
	if (!v)
		return 0;
	for (unsigned k = 0; k < n; k++)
	{
		uint32_t e = pat(it->seed, k);
		for (int u = 0; u < nupdates; u++)
			e = e * 3 + 1;
		if (v[k] != e)
			return 0;
	}
	const uint32_t *rowptr = NULL, *colind = NULL;
	unsigned nrow = 0, nnz = 0;
	if (it->kind == OOC_CSR)
	{
		rowptr = STARPU_CSR_GET_ROWPTR(iface);
		colind = STARPU_CSR_GET_COLIND(iface);
		nrow = OS_NROW;
		nnz = OS_NNZ;
	}
	else if (it->kind == OOC_BCSR)
	{
		rowptr = STARPU_BCSR_GET_ROWPTR(iface);
		colind = STARPU_BCSR_GET_COLIND(iface);
		nrow = OBS_NROW;
		nnz = OBS_NNZ;
	}
	else if (it->kind == OOC_COO)
	{
		const uint32_t *rows = STARPU_COO_GET_ROWS(iface), *cols = STARPU_COO_GET_COLUMNS(iface);
		for (unsigned k = 0; k < n; k++)
			if (rows[k] != k / 100 || cols[k] != k % 97)
				return 0;
	}
	for (unsigned r = 0; rowptr && r <= nrow; r++)
		if (rowptr[r] != ooc_rowptr(r, nrow, nnz))
			return 0;
	for (unsigned k = 0; colind && k < nnz; k++)
		if (colind[k] != k % 97)
			return 0;
	return 1;
}

static void test_out_of_core(void)
{
	if (!counters_ops.interfaceid)
		counters_ops.interfaceid = (enum starpu_data_interface_id) starpu_data_interface_get_next_id();
	CU_ASSERT_EQUAL_FATAL(starpu_memory_get_total(STARPU_MAIN_RAM), 1 << 20);
	enum { PER_KIND = 3, N = PER_KIND * OOC_NKINDS };
	static struct ooc_item items[N];
	size_t total = 0;
	for (unsigned i = 0; i < N; i++)
	{
		items[i].kind = (enum ooc_kind) (i % OOC_NKINDS);
		items[i].seed = i + 1;
		ooc_register(&items[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(items[i].h);
		total += starpu_data_get_size(items[i].h);
	}
	CU_ASSERT(total > (size_t) 2 << 20);

	ooc_packed_ok = 1;
	for (unsigned i = 0; i < N; i++)
		CU_ASSERT_EQUAL(submit(&ooc_fill_cl, &items[i], items[i].h), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_TRUE(ooc_packed_ok);

	/* most of it had to leave RAM, for the disk */
	size_t in_ram = 0;
	unsigned on_disk_only = 0, lost = 0;
	for (unsigned i = 0; i < N; i++)
	{
		int ram = starpu_data_is_on_node(items[i].h, STARPU_MAIN_RAM);
		int disk = starpu_data_is_on_node(items[i].h, (unsigned) disk_node);
		if (ram)
			in_ram += starpu_data_get_size(items[i].h);
		on_disk_only += !ram && disk;
		lost += !ram && !disk;
	}
	CU_ASSERT(in_ram <= (size_t) 1 << 20);
	CU_ASSERT(on_disk_only >= 1);
	CU_ASSERT_EQUAL(lost, 0);

	/* updated in RAM: read back from the disk, evicted again */
	for (unsigned i = 0; i < N; i++)
		CU_ASSERT_EQUAL(submit(&ooc_update_cl, &items[i], items[i].h), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	/* each one, in reverse order (the last written are in RAM) */
	unsigned good = 0;
	for (unsigned i = N; i-- > 0;)
	{
		CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(items[i].h, STARPU_R), 0);
		good += ooc_check(&items[i], 1);
		starpu_data_release(items[i].h);
	}
	CU_ASSERT_EQUAL(good, N);
	for (unsigned i = 0; i < N; i++)
		starpu_data_unregister(items[i].h);
}

/* x <- 2x + piece, on vectors of uint32. */
static void ooc_twice_cpu(void *buffers[], void *arg)
{
	uint32_t *v = (uint32_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] = v[i] * 2 + (uint32_t) (uintptr_t) arg;
}

static struct starpu_codelet ooc_twice_cl = {
	.cpu_funcs = { ooc_twice_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "ooc_twice",
};

/* Data evicted to the disk, partitioned synchronously or with a plan:
 * the parent comes back from the disk for its pieces. */
static void test_partition_evicted(void)
{
	enum { NH = 10, NX = 65536 };
	static struct ooc_item items[NH];
	for (unsigned i = 0; i < NH; i++)
	{
		items[i] = (struct ooc_item) { .kind = OOC_VECTOR, .seed = 100 + i };
		starpu_vector_data_register(&items[i].h, -1, 0, NX, sizeof(uint32_t));
		CU_ASSERT_PTR_NOT_NULL_FATAL(items[i].h);
		CU_ASSERT_EQUAL(submit(&ooc_fill_cl, &items[i], items[i].h), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	/* two that are on the disk only: one for each way of partitioning */
	int evicted[2] = { -1, -1 }, n = 0;
	for (unsigned i = 0; i < NH && n < 2; i++)
		if (!starpu_data_is_on_node(items[i].h, STARPU_MAIN_RAM) && starpu_data_is_on_node(items[i].h, (unsigned) disk_node))
			evicted[n++] = (int) i;
	CU_ASSERT_EQUAL_FATAL(n, 2);

	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	starpu_data_handle_t hs = items[evicted[0]].h, ha = items[evicted[1]].h, plan[3];
	starpu_data_partition(hs, &f);
	CU_ASSERT_EQUAL_FATAL(starpu_data_get_nb_children(hs), 3);
	starpu_data_partition_plan(ha, &f, plan);
	starpu_data_partition_submit(ha, 3, plan);
	for (uintptr_t c = 0; c < 3; c++)
	{
		CU_ASSERT_EQUAL(submit(&ooc_twice_cl, (void *) c, starpu_data_get_child(hs, (unsigned) c)), 0);
		CU_ASSERT_EQUAL(submit(&ooc_twice_cl, (void *) c, plan[c]), 0);
	}
	starpu_data_unpartition_submit(ha, 3, plan, STARPU_MAIN_RAM);
	/* the others go through RAM meanwhile */
	for (unsigned i = 0; i < NH; i++)
		if ((int) i != evicted[0] && (int) i != evicted[1])
			CU_ASSERT_EQUAL(submit(&ooc_twice_cl, (void *) 7, items[i].h), 0);
	starpu_data_unpartition(hs, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	unsigned good = 0;
	for (unsigned i = 0; i < NH; i++)
	{
		int part = (int) i == evicted[0] || (int) i == evicted[1];
		CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(items[i].h, STARPU_R), 0);
		const uint32_t *v = (const uint32_t *) starpu_vector_get_local_ptr(items[i].h);
		unsigned bad = 0;
		for (unsigned k = 0; k < NX; k++)
		{
			/* pieces of 21846, 21845, 21845 elements */
			uint32_t add = part ? (k < 21846 ? 0 : k < 43691 ? 1 : 2) : 7;
			bad += v[k] != pat(items[i].seed, k) * 2 + add;
		}
		good += !bad;
		starpu_data_release(items[i].h);
	}
	CU_ASSERT_EQUAL(good, NH);
	starpu_data_partition_clean(ha, 3, plan);
	for (unsigned i = 0; i < NH; i++)
		starpu_data_unregister(items[i].h);
}

static const struct vtest_case ooc_cases[] = {
	{ "evicted_to_disk_and_back", test_out_of_core },
	{ "partition_evicted_data", test_partition_evicted },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "void", start_runtime, stop_runtime, void_cases },
	{ "variable", start_runtime, stop_runtime, variable_cases },
	{ "vector", start_runtime, stop_runtime, vector_cases },
	{ "matrix", start_runtime, stop_runtime, matrix_cases },
	{ "block", start_runtime, stop_runtime, block_cases },
	{ "csr", start_runtime, stop_runtime, csr_cases },
	{ "bcsr", start_runtime, stop_runtime, bcsr_cases },
	{ "coo", start_runtime, stop_runtime, coo_cases },
	{ "custom", start_runtime, stop_runtime, custom_cases },
	{ "out_of_core", start_limited, stop_runtime, ooc_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
