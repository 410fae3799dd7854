/* disk.c — starpu_disk_register and friends: adding a disk (a storage
 * backend, struct starpu_disk_ops) as a memory node. The first disk added
 * becomes the swap node, where data the runtime allocated in RAM goes when
 * RAM runs short (memalloc.c). */
#include "data/data.h"
#include "data/memory.h"
#include "drivers/driver.h"
#include "drivers/disk/disk.h"
#include "core/rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

static int disk_add(struct starpu_disk_ops *func, void *parameter, ssize_t size, const char *fn);

int starpu_disk_register(struct starpu_disk_ops *func, void *parameter, ssize_t size)
{
	if (!rt_is_up())
	{
		rt_error("starpu_disk_register: the runtime is not initialised (-EINVAL)");
		return -EINVAL;
	}
	return disk_add(func, parameter, size, "starpu_disk_register");
}

int mem_swap_setup(void)
{
	const char *dir = getenv("STARPU_DISK_SWAP");
	if (!dir || !*dir)
		return 0;
	const char *backend = getenv("STARPU_DISK_SWAP_BACKEND");
	if (backend && *backend && strcmp(backend, "unistd") != 0)
	{
		rt_error("starpu_init: STARPU_DISK_SWAP_BACKEND='%s' is not available (this build has: unistd) (-EINVAL)", backend);
		return -EINVAL;
	}
	ssize_t size;
	if (mem_env_mib("STARPU_DISK_SWAP_SIZE", &size))
		return -EINVAL;
	if (size < 0)
	{
		/* Default: what the file system has free. */
		struct statvfs st;
		size = statvfs(dir, &st) == 0 ? (ssize_t) (st.f_bavail * st.f_frsize) : 0;
		if (size < STARPU_DISK_SIZE_MIN)
			size = STARPU_DISK_SIZE_MIN;
	}
	int node = disk_add(&starpu_disk_unistd_ops, (void *) dir, size, "STARPU_DISK_SWAP");
	return node < 0 ? node : 0;
}

static int disk_add(struct starpu_disk_ops *func, void *parameter, ssize_t size, const char *fn)
{
	if (!func || !func->plug || !func->alloc || !func->free || !func->read || !func->write)
	{
		rt_error("%s: the disk operations are incomplete (plug, alloc, free, read and write are required) (-EINVAL)", fn);
		return -EINVAL;
	}
	/* A negative size means no limit (as in StarPU). */
	if (size >= 0 && size < STARPU_DISK_SIZE_MIN)
	{
		rt_error("%s: size %zd is below STARPU_DISK_SIZE_MIN (%d bytes) (-EINVAL)", fn, size, STARPU_DISK_SIZE_MIN);
		return -EINVAL;
	}
	errno = 0;
	void *base = func->plug(parameter, size);
	if (!base)
	{
		int err = errno ? errno : EIO;
		char buf[128];
		starpu_strerror_r(err, buf, sizeof(buf));
		rt_error("%s: cannot use '%s' as a disk: %s (-%d)", fn,
			 parameter ? (const char *) parameter : "(null)", buf, err);
		return -err;
	}
	struct disk_node *d = malloc(sizeof(*d));
	if (!d)
	{
		if (func->unplug)
			func->unplug(base);
		return -ENOMEM;
	}
	d->ops = func;
	d->base = base;
	int ndisks = 0;
	for (unsigned i = 0; i < mem_nnodes; i++)
		ndisks += mem_nodes[i].kind == STARPU_DISK_RAM;
	char name[32];
	snprintf(name, sizeof(name), "disk %d", ndisks);
	int node = memory_node_add(STARPU_DISK_RAM, ndisks, &drv_disk_node_ops, d, size < 0 ? -1 : size, name);
	if (node < 0)
	{
		if (func->unplug)
			func->unplug(base);
		free(d);
		return node;
	}
	if (starpu_disk_swap_node < 0)
		starpu_disk_swap_node = node;
	return node;
}

static struct disk_node *disk_node_checked(unsigned node, const char *fn)
{
	if (node >= mem_nnodes || mem_nodes[node].kind != STARPU_DISK_RAM)
	{
		rt_error("%s: memory node %u is not a disk", fn, node);
		return NULL;
	}
	return mem_nodes[node].driver_data;
}

void *starpu_disk_open(unsigned node, void *pos, size_t size)
{
	struct disk_node *d = disk_node_checked(node, "starpu_disk_open");
	if (!d || !d->ops->open)
		return NULL;
	return d->ops->open(d->base, pos, size);
}

void starpu_disk_close(unsigned node, void *obj, size_t size)
{
	struct disk_node *d = disk_node_checked(node, "starpu_disk_close");
	if (d && d->ops->close)
		d->ops->close(d->base, obj, size);
}
