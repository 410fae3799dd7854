/* memory.c — memory nodes, starpu_malloc and the node-level copy helpers
 * interfaces use (starpu_interface_copy*). Every allocation or copy on a
 * node goes through that node's driver.
 */
#include "data/memory.h"
#include "core/rt.h"
#include "drivers/driver.h"
#include "trace/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned mem_nnodes;
struct memory_node mem_nodes[STARPU_MAXNODES];

static size_t malloc_align = 64;

int memory_nodes_setup(void)
{
	memset(mem_nodes, 0, sizeof(mem_nodes));
	struct memory_node *ram = &mem_nodes[STARPU_MAIN_RAM];
	ram->kind = STARPU_CPU_RAM;
	ram->devid = 0;
	ram->ops = &drv_ram_node_ops;
	ram->total = ram->ops->total_memory ? ram->ops->total_memory(STARPU_MAIN_RAM) : -1;
	atomic_store(&ram->used, 0);
	snprintf(ram->name, sizeof(ram->name), "RAM 0");
	mem_nnodes = 1;
	return 0;
}

void memory_nodes_teardown(void)
{
	mem_nnodes = 0;
}

uintptr_t mem_alloc(unsigned node, size_t size, int flags)
{
	if (node >= mem_nnodes)
		return 0;
	uintptr_t p = mem_nodes[node].ops->malloc(node, size, flags);
	if (p)
	{
		atomic_fetch_add(&mem_nodes[node].used, (ssize_t) size);
		trace_on_mem(node, TM_ALLOC, size, p);	/* observers: allocation */
	}
	return p;
}

void mem_free(unsigned node, uintptr_t addr, size_t size, int flags)
{
	if (node >= mem_nnodes || !addr)
		return;
	mem_nodes[node].ops->free(node, addr, size, flags);
	atomic_fetch_sub(&mem_nodes[node].used, (ssize_t) size);
	trace_on_mem(node, TM_FREE, size, addr);	/* observers: free */
}

/* ------------------------------------------------------------------ */
/* Public API. */

unsigned starpu_memory_nodes_get_count(void)
{
	return mem_nnodes;
}

enum starpu_node_kind starpu_node_get_kind(unsigned node)
{
	return node < mem_nnodes ? mem_nodes[node].kind : STARPU_UNUSED;
}

int starpu_memory_node_get_devid(unsigned node)
{
	return node < mem_nnodes ? mem_nodes[node].devid : -1;
}

int starpu_memory_node_get_name(unsigned node, char *name, size_t size)
{
	if (node >= mem_nnodes)
		return snprintf(name, size, "(no node %u)", node);
	return snprintf(name, size, "%s", mem_nodes[node].name);
}

int starpu_memory_nodes_get_numa_count(void)
{
	int n = 0;
	for (unsigned i = 0; i < mem_nnodes; i++)
		n += mem_nodes[i].kind == STARPU_CPU_RAM;
	return n;
}

ssize_t starpu_memory_get_total(unsigned node)
{
	return node < mem_nnodes ? mem_nodes[node].total : -1;
}

ssize_t starpu_memory_get_available(unsigned node)
{
	if (node >= mem_nnodes || mem_nodes[node].total < 0)
		return -1;
	return mem_nodes[node].total - atomic_load(&mem_nodes[node].used);
}

ssize_t starpu_memory_get_total_all_nodes(void)
{
	ssize_t t = 0;
	for (unsigned i = 0; i < mem_nnodes; i++)
		if (mem_nodes[i].total > 0)
			t += mem_nodes[i].total;
	return t;
}

ssize_t starpu_memory_get_available_all_nodes(void)
{
	ssize_t t = 0;
	for (unsigned i = 0; i < mem_nnodes; i++)
	{
		ssize_t a = starpu_memory_get_available(i);
		if (a > 0)
			t += a;
	}
	return t;
}

void starpu_malloc_set_align(size_t align)
{
	if (align >= sizeof(void *) && (align & (align - 1)) == 0 && align > malloc_align)
		malloc_align = align;
}

int starpu_malloc_flags(void **A, size_t dim, int flags)
{
	(void) flags;
	if (!A)
	{
		rt_error("starpu_malloc: the result pointer is NULL (-EINVAL)");
		return -EINVAL;
	}
	*A = NULL;
	if (posix_memalign(A, malloc_align, dim ? dim : 1))
	{
		*A = NULL;
		return -ENOMEM;
	}
	return 0;
}

int starpu_malloc(void **A, size_t dim)
{
	return starpu_malloc_flags(A, dim, STARPU_MALLOC_PINNED);
}

int starpu_free_flags(void *A, size_t dim, int flags)
{
	(void) dim;
	(void) flags;
	free(A);
	return 0;
}

int starpu_free(void *A)
{
	free(A);
	return 0;
}

int starpu_memory_pin(void *addr, size_t size)
{
	/* Pinning matters for device DMA; RAM-only runs need nothing. */
	(void) addr;
	(void) size;
	return 0;
}

int starpu_memory_unpin(void *addr, size_t size)
{
	(void) addr;
	(void) size;
	return 0;
}

uintptr_t starpu_malloc_on_node_flags(unsigned dst_node, size_t size, int flags)
{
	return mem_alloc(dst_node, size, flags);
}

uintptr_t starpu_malloc_on_node(unsigned dst_node, size_t size)
{
	return mem_alloc(dst_node, size, 0);
}

void starpu_free_on_node_flags(unsigned dst_node, uintptr_t addr, size_t size, int flags)
{
	mem_free(dst_node, addr, size, flags);
}

void starpu_free_on_node(unsigned dst_node, uintptr_t addr, size_t size)
{
	mem_free(dst_node, addr, size, 0);
}

/* The copy goes through the driver of the node that is not RAM (devices
 * know how to reach RAM), or RAM's own when both are RAM. */
static const struct drv_node_ops *copy_driver(unsigned src_node, unsigned dst_node)
{
	if (src_node >= mem_nnodes || dst_node >= mem_nnodes)
		return NULL;
	if (mem_nodes[dst_node].kind != STARPU_CPU_RAM)
		return mem_nodes[dst_node].ops;
	return mem_nodes[src_node].ops;
}

int starpu_interface_copy(uintptr_t src, size_t src_offset, unsigned src_node,
			  uintptr_t dst, size_t dst_offset, unsigned dst_node,
			  size_t size, void *async_data)
{
	const struct drv_node_ops *ops = copy_driver(src_node, dst_node);
	if (!ops)
		return -EINVAL;
	uint64_t t0 = trace_stamp();
	int ret = ops->copy(src, src_offset, src_node, dst, dst_offset, dst_node, size, async_data);
	trace_on_transfer(src_node, dst_node, size, t0);	/* observers: a transfer */
	return ret;
}

int starpu_interface_copy2d(uintptr_t src, size_t src_offset, unsigned src_node,
			    uintptr_t dst, size_t dst_offset, unsigned dst_node,
			    size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst,
			    void *async_data)
{
	const struct drv_node_ops *ops = copy_driver(src_node, dst_node);
	if (!ops)
		return -EINVAL;
	uint64_t t0 = trace_stamp();
	int ret = 0;
	if (ops->copy2d)
		ret = ops->copy2d(src, src_offset, src_node, dst, dst_offset, dst_node,
				  blocksize, numblocks, ld_src, ld_dst, async_data);
	else
		for (size_t i = 0; i < numblocks && !ret; i++)
			ret = ops->copy(src, src_offset + i * ld_src, src_node, dst, dst_offset + i * ld_dst, dst_node, blocksize, NULL);
	trace_on_transfer(src_node, dst_node, blocksize * numblocks, t0);	/* observers: a transfer */
	return ret;
}
