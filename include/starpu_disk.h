/* starpu_disk.h — disks as memory nodes (out-of-core).
 *
 * starpu_disk_register() adds a memory node backed by storage; data the
 * runtime allocated in RAM is evicted there when RAM runs short (see
 * STARPU_LIMIT_CPU_MEM) and read back when a task needs it. A backend is a
 * table of operations; starpu_disk_unistd_ops keeps each piece of data in a
 * file of a directory (the parameter) with pread/pwrite.
 */
#ifndef STARPU_DISK_H
#define STARPU_DISK_H

#include <sys/types.h>
#include <starpu_config.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_disk_ops
{
	/* Opens the storage named by parameter (a directory for unistd);
	 * NULL on failure. */
	void *(*plug)(void *parameter, ssize_t size);
	void (*unplug)(void *base);
	int (*bandwidth)(unsigned node, void *base);
	void *(*alloc)(void *base, size_t size);
	void (*free)(void *base, void *obj, size_t size);
	void *(*open)(void *base, void *pos, size_t size);
	void (*close)(void *base, void *obj, size_t size);
	/* 0 on success, a negative errno on failure. */
	int (*read)(void *base, void *obj, void *buf, off_t offset, size_t size);
	int (*write)(void *base, void *obj, const void *buf, off_t offset, size_t size);
	int (*full_read)(void *base, void *obj, void **ptr, size_t *size, unsigned dst_node);
	int (*full_write)(void *base, void *obj, void *ptr, size_t size);
	void *(*async_write)(void *base, void *obj, void *buf, off_t offset, size_t size);
	void *(*async_read)(void *base, void *obj, void *buf, off_t offset, size_t size);
	void *(*async_full_read)(void *base, void *obj, void **ptr, size_t *size, unsigned dst_node);
	void *(*async_full_write)(void *base, void *obj, void *ptr, size_t size);
	void *(*copy)(void *base_src, void *obj_src, off_t offset_src, void *base_dst, void *obj_dst, off_t offset_dst, size_t size);
	void (*wait_request)(void *async_channel);
	int (*test_request)(void *async_channel);
	void (*free_request)(void *async_channel);
};

extern struct starpu_disk_ops starpu_disk_unistd_ops;

/* Data objects of a disk node: open an existing one (pos: its name for
 * unistd), close it. */
void *starpu_disk_open(unsigned node, void *pos, size_t size);
void starpu_disk_close(unsigned node, void *obj, size_t size);

/* Adds a disk memory node of size bytes (at least STARPU_DISK_SIZE_MIN;
 * negative: no limit).
 * Returns the node's number, or a negative errno: -ENOENT / -EACCES when
 * the storage cannot be opened (a message says why), -EINVAL for a size
 * below the minimum. */
int starpu_disk_register(struct starpu_disk_ops *func, void *parameter, ssize_t size);

#define STARPU_DISK_SIZE_MIN (16 * 1024 * 1024)

/* The node evicted RAM data goes to (the first disk registered), or -1. */
extern int starpu_disk_swap_node;

#ifdef __cplusplus
}
#endif

#endif /* STARPU_DISK_H */
