/* driver_disk.c — the memory-node driver of disk nodes (out-of-core).
 *
 * A disk node's "buffers" are objects of its storage backend (struct
 * starpu_disk_ops, e.g. files for unistd): allocating one creates an
 * object, copying to or from RAM reads or writes it. Copies between two
 * disks go through RAM (the coherency layer arranges that).
 */
#include "drivers/driver.h"
#include "drivers/disk/disk.h"
#include "data/memory.h"
#include "core/rt.h"

#include <errno.h>
#include <stdlib.h>

static struct disk_node *disk_of(unsigned node)
{
	return mem_nodes[node].driver_data;
}

static uintptr_t disk_malloc(unsigned node, size_t size, int flags)
{
	(void) flags;
	struct disk_node *d = disk_of(node);
	return (uintptr_t) d->ops->alloc(d->base, size);
}

static void disk_free(unsigned node, uintptr_t addr, size_t size, int flags)
{
	(void) flags;
	struct disk_node *d = disk_of(node);
	d->ops->free(d->base, (void *) addr, size);
}

static int disk_copy(uintptr_t src, size_t src_offset, unsigned src_node,
		     uintptr_t dst, size_t dst_offset, unsigned dst_node,
		     size_t size, void *async)
{
	(void) async;
	int src_disk = mem_nodes[src_node].kind == STARPU_DISK_RAM;
	int dst_disk = mem_nodes[dst_node].kind == STARPU_DISK_RAM;
	if (src_disk && dst_disk)
		return -ENOSYS;	/* through RAM */
	if (dst_disk)
	{
		struct disk_node *d = disk_of(dst_node);
		return d->ops->write(d->base, (void *) dst, (const char *) src + src_offset, (off_t) dst_offset, size);
	}
	struct disk_node *d = disk_of(src_node);
	return d->ops->read(d->base, (void *) src, (char *) dst + dst_offset, (off_t) src_offset, size);
}

static void disk_unplug(unsigned node)
{
	struct disk_node *d = disk_of(node);
	if (!d)
		return;
	if (d->ops->unplug)
		d->ops->unplug(d->base);
	free(d);
	mem_nodes[node].driver_data = NULL;
}

const struct drv_node_ops drv_disk_node_ops = {
	.version = DRV_OPS_VERSION,
	.name = "disk",
	.kind = STARPU_DISK_RAM,
	.malloc = disk_malloc,
	.free = disk_free,
	.copy = disk_copy,
	.unplug = disk_unplug,
};
