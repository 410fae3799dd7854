/* interfaces_common.h — what the data interface tests share
 * (test_interfaces.c, test_interfaces_sparse.c, test_interfaces_custom.c):
 * a runtime with a disk memory node per suite, and helpers that check the
 * interface methods (shape, pack/unpack, copies between RAM interfaces and
 * through the disk). Expected values are computed by the tests from the
 * registered arrays, never read back from the runtime's description.
 */
#ifndef INTERFACES_COMMON_H
#define INTERFACES_COMMON_H

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
static inline int empty_dir(const char *path)
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

static inline int start_runtime(void)
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

static inline int stop_runtime(void)
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

static inline int submit(struct starpu_codelet *cl, void *arg, starpu_data_handle_t h)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->cl_arg = arg;
	t->handles[0] = h;
	return starpu_task_submit(t);
}

static inline struct starpu_data_interface_ops *ops_of(starpu_data_handle_t h)
{
	return starpu_data_get_interface_ops(h);
}

static inline void *ram_iface(starpu_data_handle_t h)
{
	return starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
}

static inline uint32_t footprint_of(starpu_data_handle_t h)
{
	return ops_of(h)->footprint(h);
}

static inline void describe(starpu_data_handle_t h, char *buf, size_t size)
{
	buf[0] = 0;
	starpu_ssize_t n = ops_of(h)->describe(ram_iface(h), buf, size);
	CU_ASSERT(n > 0);
	CU_ASSERT_EQUAL((size_t) n, strlen(buf));
}

/* a and same have the same shape, other a different one: footprints,
 * compare and describe must tell them apart exactly so. */
static inline void check_shape_ops(starpu_data_handle_t a, starpu_data_handle_t same, starpu_data_handle_t other)
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

static inline void check_pack(const struct pack_case *pc)
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
static inline int ram_copy(struct starpu_data_interface_ops *ops, void *src, void *dst)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops->copy_methods);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops->copy_methods->any_to_any);
	return ops->copy_methods->any_to_any(src, STARPU_MAIN_RAM, dst, STARPU_MAIN_RAM, NULL);
}

/* Sends h to the disk node (the RAM copy stays valid), then reads the disk
 * copy into dst, a RAM interface of the same kind built by the caller, so
 * the caller checks what went through the disk. */
static inline void through_disk(starpu_data_handle_t h, void *dst)
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


#endif
