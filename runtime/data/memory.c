/* memory.c — memory nodes and their accounting, starpu_malloc, and the
 * node-level copy helpers interfaces use (starpu_interface_copy*). Every
 * allocation or copy on a node goes through that node's driver.
 */
#include "data/memory.h"
#include "data/data.h"
#include "core/rt.h"
#include "core/sim_loader.h"
#include "drivers/driver.h"
#include "trace/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

unsigned mem_nnodes;
struct memory_node mem_nodes[STARPU_MAXNODES];
int starpu_disk_swap_node = -1;
/* Pairs of nodes, neither of them RAM, that copy one to the other
 * directly: in a simulation, those whose platform hosts have a route
 * (peer copies over PCIe, NVLink...); in a real run, those their driver
 * says are peers (drv_node_ops.peer). Written as nodes are added (at
 * init, before any copy). */
static unsigned char mem_peer[STARPU_MAXNODES][STARPU_MAXNODES];

static size_t malloc_align = 64;
/* Simulation: held while a device allocation's cost is charged (mem_alloc).
 * A leaf: nothing else is taken under it. */
static os_mutex_t dev_alloc_lock = OS_MUTEX_INITIALIZER;

int mem_env_mib(const char *var, ssize_t *bytes)
{
	const char *s = getenv(var);
	*bytes = -1;
	if (!s || !*s)
		return 0;
	char *end;
	errno = 0;
	long long mib = strtoll(s, &end, 10);
	while (*end == ' ')
		end++;
	if (errno || *end || mib < 0 || mib > (1LL << 40))
	{
		rt_error("starpu_init: environment variable %s='%s' must be a size in MiB (a non-negative integer) (-EINVAL)", var, s);
		return -EINVAL;
	}
	*bytes = (ssize_t) mib << 20;
	return 0;
}

/* A device's memory for the runtime: STARPU_LIMIT_<KIND>_<devid>_MEM, else
 * STARPU_LIMIT_<KIND>_MEM (MiB, as StarPU), caps total (the device's size,
 * -1 when unknown). 0, or -EINVAL naming a malformed variable. */
static int device_limit(enum starpu_node_kind kind, int devid, ssize_t *total)
{
	const char *k = kind == STARPU_CUDA_RAM ? "CUDA" : kind == STARPU_OPENCL_RAM ? "OPENCL"
		      : kind == STARPU_MPI_MS_RAM ? "MPI_MS" : NULL;
	if (!k)
		return 0;
	char var[64];
	ssize_t limit;
	snprintf(var, sizeof(var), "STARPU_LIMIT_%s_%d_MEM", k, devid);
	if (mem_env_mib(var, &limit))
		return -EINVAL;
	if (limit < 0)
	{
		snprintf(var, sizeof(var), "STARPU_LIMIT_%s_MEM", k);
		if (mem_env_mib(var, &limit))
			return -EINVAL;
	}
	if (limit >= 0 && (*total < 0 || limit < *total))
		*total = limit;
	return 0;
}

int memory_node_add(enum starpu_node_kind kind, int devid, const struct drv_node_ops *ops, void *driver_data, ssize_t total, const char *name)
{
	if (mem_nnodes >= STARPU_MAXNODES)
	{
		rt_error("cannot add memory node %s: STARPU_MAXNODES (%d) reached", name, STARPU_MAXNODES);
		return -ENOSPC;
	}
	if (device_limit(kind, devid, &total))
		return -EINVAL;
	unsigned id = mem_nnodes;
	struct memory_node *n = &mem_nodes[id];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->devid = devid;
	n->ops = ops;
	n->driver_data = driver_data;
	n->total = total;
	snprintf(n->name, sizeof(n->name), "%s", name);
	os_mutex_init(&n->lock);
	os_mutex_init(&n->driver);
	os_cond_init(&n->driver_free);
	os_cond_init(&n->released);
	/* Publish after the node is complete and every live handle has a
	 * replicate for it; handles created from now on are sized for it. */
	if (data_handles_grow(id))
	{
		os_cond_destroy(&n->released);
		os_cond_destroy(&n->driver_free);
		os_mutex_destroy(&n->driver);
		os_mutex_destroy(&n->lock);
		rt_error("cannot add memory node %s: out of memory for the data handles' replicates (-ENOMEM)", name);
		return -ENOMEM;
	}
	__atomic_store_n(&mem_nnodes, id + 1, __ATOMIC_RELEASE);
	data_handles_unlock();
	for (unsigned i = 0; i < id; i++)
	{
		double bw, lat;
		int devices = kind != STARPU_CPU_RAM && mem_nodes[i].kind != STARPU_CPU_RAM;
		if (sim_running())
		{
			mem_peer[i][id] = devices && sim_node_route(i, id, &bw, &lat) == 0;
			mem_peer[id][i] = devices && sim_node_route(id, i, &bw, &lat) == 0;
		}
		else
		{
			/* Real devices: their driver knows (GPU peer access). */
			int same = devices && ops == mem_nodes[i].ops && ops->peer;
			mem_peer[i][id] = same && ops->peer(i, id);
			mem_peer[id][i] = same && ops->peer(id, i);
		}
	}
	return (int) id;
}

int memory_nodes_setup(void)
{
	memset(mem_nodes, 0, sizeof(mem_nodes));
	memset(mem_peer, 0, sizeof(mem_peer));
	mem_nnodes = 0;
	starpu_disk_swap_node = -1;
	ssize_t total = drv_ram_node_ops.total_memory ? drv_ram_node_ops.total_memory(STARPU_MAIN_RAM) : -1;
	/* Simulation: the platform's RAM, when its memsize says. */
	ssize_t simulated = sim_host_memsize("RAM");
	if (simulated > 0)
		total = simulated;
	/* STARPU_LIMIT_CPU_MEM is in MiB, as in StarPU. So is
	 * STARPU_LIMIT_CPU_NUMA_MEM, the limit of each NUMA node, which StarPU
	 * 1.3 applies over STARPU_LIMIT_CPU_MEM; with one RAM node (as here)
	 * it limits that node. (StarPU 1.3 documents STARPU_LIMIT_CPU_NUMA_<k>_MEM
	 * too, but ignores it on such a machine: so do we.) */
	ssize_t limit, numa_limit;
	if (mem_env_mib("STARPU_LIMIT_CPU_MEM", &limit) || mem_env_mib("STARPU_LIMIT_CPU_NUMA_MEM", &numa_limit))
		return -EINVAL;
	if (numa_limit >= 0)
		limit = numa_limit;
	/* The devices' limits are read as their nodes are added: a malformed
	 * one is refused now, whether such a device exists or not. */
	static const char *const kinds[] = { "CUDA", "OPENCL", "MPI_MS" };
	for (unsigned k = 0; k < 3; k++)
	{
		char var[64];
		ssize_t ignored;
		snprintf(var, sizeof(var), "STARPU_LIMIT_%s_MEM", kinds[k]);
		if (mem_env_mib(var, &ignored))
			return -EINVAL;
		for (int d = 0; d < STARPU_MAXCUDADEVS || d < STARPU_MAXOPENCLDEVS; d++)
		{
			snprintf(var, sizeof(var), "STARPU_LIMIT_%s_%d_MEM", kinds[k], d);
			if (mem_env_mib(var, &ignored))
				return -EINVAL;
		}
	}
	if (limit >= 0 && (total < 0 || limit < total))
		total = limit;
	int ret = memory_node_add(STARPU_CPU_RAM, 0, &drv_ram_node_ops, NULL, total, "RAM 0");
	return ret < 0 ? ret : 0;
}

void memory_nodes_teardown(void)
{
	data_requests_fini();
	for (unsigned i = 0; i < mem_nnodes; i++)
	{
		struct memory_node *n = &mem_nodes[i];
		os_mutex_lock(&n->lock);
		mem_cache_flush_locked(i, -1);
		os_mutex_unlock(&n->lock);
		if (n->ops->unplug)
			n->ops->unplug(i);
		os_cond_destroy(&n->released);
		os_cond_destroy(&n->driver_free);
		os_mutex_destroy(&n->driver);
		os_mutex_destroy(&n->lock);
	}
	mem_nnodes = 0;
	starpu_disk_swap_node = -1;
}

int mem_direct_copy(unsigned src, unsigned dst)
{
	return mem_nodes[src].kind == STARPU_CPU_RAM || mem_nodes[dst].kind == STARPU_CPU_RAM || mem_peer[src][dst];
}

int mem_driver_lock(unsigned node)
{
	if (node >= mem_nnodes || (mem_nodes[node].kind != STARPU_CUDA_RAM && mem_nodes[node].kind != STARPU_OPENCL_RAM) ||
	    !(sim_costs[SIM_COST_DEV_MALLOC] > 0.0 || sim_costs[SIM_COST_TRANSFER] > 0.0) || !sim_running())
		return 0;
	/* The node's own worker goes before the others, as a GPU worker
	 * thread handles its task's fetches before the prefetches queued. */
	struct memory_node *n = &mem_nodes[node];
	int w = starpu_worker_get_id();
	int mine = w >= 0 && starpu_worker_get_memory_node((unsigned) w) == node;
	os_mutex_lock(&n->driver);
	n->driver_urgent += mine;
	while (n->driver_held || (!mine && n->driver_urgent))
		os_cond_wait(&n->driver_free, &n->driver);
	n->driver_urgent -= mine;
	n->driver_held = 1;
	os_mutex_unlock(&n->driver);
	return 1;
}

void mem_driver_unlock(unsigned node)
{
	struct memory_node *n = &mem_nodes[node];
	os_mutex_lock(&n->driver);
	n->driver_held = 0;
	os_cond_broadcast(&n->driver_free);
	os_mutex_unlock(&n->driver);
}

uintptr_t mem_alloc(unsigned node, size_t size, int flags)
{
	if (node >= mem_nnodes)
		return 0;
	struct memory_node *n = &mem_nodes[node];
	os_mutex_lock(&n->lock);
	if (n->total >= 0 && n->used + (ssize_t) size > n->total)
	{
		os_mutex_unlock(&n->lock);
		return 0;
	}
	n->used += (ssize_t) size;
	os_mutex_unlock(&n->lock);
	if ((n->kind == STARPU_CUDA_RAM || n->kind == STARPU_OPENCL_RAM) && sim_costs[SIM_COST_DEV_MALLOC] > 0.0)
	{
		/* Simulation: the device allocation's cost (the machine's
		 * measure for this size, sim_loader.h), one allocation at a
		 * time over all devices, as the CUDA driver's allocator
		 * serializes them (and as StarPU's simulation charges them). */
		double us = sim_dev_malloc_us(node, size);
		if (us > 0.0 && !data_requests_setup_hidden(node))
		{
			/* On the device's driver thread (mem_driver_lock). */
			int drv = mem_driver_lock(node);
			os_mutex_lock(&dev_alloc_lock);
			os_model_cost(us);
			os_mutex_unlock(&dev_alloc_lock);
			if (drv)
				mem_driver_unlock(node);
		}
	}
	uintptr_t p = n->ops->malloc(node, size, flags);
	if (!p)
	{
		os_mutex_lock(&n->lock);
		n->used -= (ssize_t) size;
		os_mutex_unlock(&n->lock);
	}
	else
		trace_on_mem(node, TM_ALLOC, size, p);	/* observers: allocation */
	return p;
}

void mem_free(unsigned node, uintptr_t addr, size_t size, int flags)
{
	if (node >= mem_nnodes || !addr)
		return;
	struct memory_node *n = &mem_nodes[node];
	n->ops->free(node, addr, size, flags);
	trace_on_mem(node, TM_FREE, size, addr);	/* observers: free */
	os_mutex_lock(&n->lock);
	n->used -= (ssize_t) size;
	if (n->nwaiting)
		os_cond_broadcast(&n->released);
	os_mutex_unlock(&n->lock);
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
	struct memory_node *n = &mem_nodes[node];
	os_mutex_lock(&n->lock);
	/* Cached buffers can be reclaimed at once: they count as available. */
	ssize_t avail = n->total - n->used + n->cached;
	os_mutex_unlock(&n->lock);
	return avail;
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

/* Counting allocations outside the data layer (STARPU_MALLOC_COUNT,
 * starpu_memory_allocate): the bytes are only accounted. */
int starpu_memory_allocate(unsigned node, size_t size, int flags)
{
	if (node >= mem_nnodes)
		return -EINVAL;
	struct memory_node *n = &mem_nodes[node];
	os_mutex_lock(&n->lock);
	if (!(flags & STARPU_MEMORY_OVERFLOW) && n->total >= 0 && n->used + (ssize_t) size > n->total)
	{
		mem_cache_flush_locked(node, n->used + (ssize_t) size - n->total);
		if ((flags & STARPU_MEMORY_WAIT) && (ssize_t) size <= n->total)
		{
			/* Until others deallocate (or free buffers to the cache). */
			n->nwaiting++;
			while (n->used + (ssize_t) size > n->total)
			{
				os_cond_wait(&n->released, &n->lock);
				mem_cache_flush_locked(node, n->used + (ssize_t) size - n->total);
			}
			n->nwaiting--;
		}
		if (n->used + (ssize_t) size > n->total)
		{
			os_mutex_unlock(&n->lock);
			return -ENOMEM;
		}
	}
	n->used += (ssize_t) size;
	os_mutex_unlock(&n->lock);
	return 0;
}

void starpu_memory_deallocate(unsigned node, size_t size)
{
	if (node >= mem_nnodes)
		return;
	struct memory_node *n = &mem_nodes[node];
	os_mutex_lock(&n->lock);
	n->used -= (ssize_t) size;
	if (n->nwaiting)
		os_cond_broadcast(&n->released);
	os_mutex_unlock(&n->lock);
}

void starpu_memory_wait_available(unsigned node, size_t size)
{
	if (node >= mem_nnodes || mem_nodes[node].total < 0)
		return;
	struct memory_node *n = &mem_nodes[node];
	os_mutex_lock(&n->lock);
	n->nwaiting++;
	while (n->total - n->used + n->cached < (ssize_t) size)
		os_cond_wait(&n->released, &n->lock);
	n->nwaiting--;
	os_mutex_unlock(&n->lock);
}

void starpu_malloc_set_align(size_t align)
{
	if (align >= sizeof(void *) && (align & (align - 1)) == 0 && align > malloc_align)
		malloc_align = align;
}

int starpu_malloc_flags(void **A, size_t dim, int flags)
{
	if (!A)
	{
		rt_error("starpu_malloc: the result pointer is NULL (-EINVAL)");
		return -EINVAL;
	}
	*A = NULL;
	if ((flags & STARPU_MALLOC_COUNT) && rt_is_up())
	{
		/* NORECLAIM, as in StarPU: no reclaiming here, the node may
		 * overflow (unless STARPU_MEMORY_WAIT: then wait for room). */
		int aflags = flags & STARPU_MEMORY_WAIT;
		if ((flags & STARPU_MALLOC_NORECLAIM) && !(flags & STARPU_MEMORY_WAIT))
			aflags |= STARPU_MEMORY_OVERFLOW;
		int ret = starpu_memory_allocate(STARPU_MAIN_RAM, dim, aflags);
		if (ret)
			return ret;
	}
	/* Pinned when a device of the run wants it (CUDA: DMA without a
	 * staging copy); plain memory otherwise. */
	if ((flags & STARPU_MALLOC_PINNED) && rt_is_up() && !os_is_simulated())
	{
		int ret = drv_host_alloc(A, dim ? dim : 1);
		if (ret == 0)
			return 0;
		if (ret != -ENODEV)
			rt_warn("starpu_malloc: %zu bytes of pinned memory could not be allocated (%d); plain memory instead", dim, ret);
	}
	if (posix_memalign(A, malloc_align, dim ? dim : 1))
	{
		*A = NULL;
		if ((flags & STARPU_MALLOC_COUNT) && rt_is_up())
			starpu_memory_deallocate(STARPU_MAIN_RAM, dim);
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
	if (!A || !drv_host_free(A))
		free(A);
	if ((flags & STARPU_MALLOC_COUNT) && rt_is_up())
		starpu_memory_deallocate(STARPU_MAIN_RAM, dim);
	return 0;
}

int starpu_free(void *A)
{
	if (!A || !drv_host_free(A))
		free(A);
	return 0;
}

/* Pinning matters for device DMA: with RAM, disks and devices that do not
 * want it (OpenCL), every buffer is already usable by every copy. */
int starpu_memory_pin(void *addr, size_t size)
{
	if (!addr)
	{
		rt_error("starpu_memory_pin: addr is NULL (-EINVAL)");
		return -EINVAL;
	}
	int ret = rt_is_up() && !os_is_simulated() ? drv_host_register(addr, size) : -ENODEV;
	return ret == -ENODEV ? 0 : ret;
}

int starpu_memory_unpin(void *addr, size_t size)
{
	(void) size;
	if (!addr)
	{
		rt_error("starpu_memory_unpin: addr is NULL (-EINVAL)");
		return -EINVAL;
	}
	int ret = rt_is_up() && !os_is_simulated() ? drv_host_unregister(addr) : -ENODEV;
	return ret == -ENODEV ? 0 : ret;
}

uintptr_t starpu_malloc_on_node_flags(unsigned dst_node, size_t size, int flags)
{
	return mem_alloc(dst_node, size, flags);
}

/* starpu_malloc_on_node_set_default_flags, per node (atomic: set by the
 * application, read by any thread; the default is StarPU's). */
static _Atomic int default_flags[STARPU_MAXNODES] = {
	[0 ... STARPU_MAXNODES - 1] = STARPU_MALLOC_PINNED | STARPU_MALLOC_COUNT
};

void starpu_malloc_on_node_set_default_flags(unsigned node, int flags)
{
	if (node >= STARPU_MAXNODES)
	{
		rt_error("starpu_malloc_on_node_set_default_flags: memory node %u does not exist (-EINVAL)", node);
		return;
	}
	atomic_store_explicit(&default_flags[node], flags, memory_order_relaxed);
}

static int node_default_flags(unsigned node)
{
	return node < STARPU_MAXNODES ? atomic_load_explicit(&default_flags[node], memory_order_relaxed) : 0;
}

uintptr_t starpu_malloc_on_node(unsigned dst_node, size_t size)
{
	return mem_alloc(dst_node, size, node_default_flags(dst_node));
}

void starpu_free_on_node_flags(unsigned dst_node, uintptr_t addr, size_t size, int flags)
{
	mem_free(dst_node, addr, size, flags);
}

void starpu_free_on_node(unsigned dst_node, uintptr_t addr, size_t size)
{
	mem_free(dst_node, addr, size, node_default_flags(dst_node));
}

void starpu_interface_data_copy(unsigned src_node, unsigned dst_node, size_t size)
{
	if (src_node >= mem_nnodes || dst_node >= mem_nnodes)
	{
		rt_error("starpu_interface_data_copy: memory node %u does not exist (-EINVAL)",
			 src_node >= mem_nnodes ? src_node : dst_node);
		return;
	}
	/* The copy was made by the interface; it is recorded as just done
	 * (bus profiling, trace). */
	trace_on_transfer(src_node, dst_node, size, trace_stamp());
}

/* The copy goes through the driver of the node that is not RAM (a device or
 * a disk knows how to reach RAM), or RAM's own when both are RAM.
 *
 * Observers see a transfer when it is complete, from when it was issued:
 * a copy that returns 0 is (the data layer always copies synchronously, on
 * the thread that needs the data or on the node's transfer thread:
 * request.c). One started asynchronously (-EAGAIN, for a caller that passed
 * async_data) is not complete yet and is not reported here. */
const struct drv_node_ops *mem_copy_ops(unsigned src_node, unsigned dst_node)
{
	if (src_node >= mem_nnodes || dst_node >= mem_nnodes)
		return NULL;
	if (mem_nodes[dst_node].kind != STARPU_CPU_RAM)
		return mem_nodes[dst_node].ops;
	return mem_nodes[src_node].ops;
}

int mem_copy_queues(unsigned src_node, unsigned dst_node)
{
	const struct drv_node_ops *ops = mem_copy_ops(src_node, dst_node);
	return ops && ops->test && ops->wait;
}

/* A copy the driver queued: the caller's drv_async learns who completes
 * it and what it moves (observers see it when it ends: data/transfer.c). */
static void queued(struct drv_async *a, const struct drv_node_ops *ops, size_t size, uint64_t t0)
{
	a->ops = ops;
	a->bytes += size;
	if (!a->start)
		a->start = t0;
}

int starpu_interface_copy(uintptr_t src, size_t src_offset, unsigned src_node,
			  uintptr_t dst, size_t dst_offset, unsigned dst_node,
			  size_t size, void *async_data)
{
	const struct drv_node_ops *ops = mem_copy_ops(src_node, dst_node);
	if (!ops)
		return -EINVAL;
	uint64_t t0 = trace_stamp();
	int ret = ops->copy(src, src_offset, src_node, dst, dst_offset, dst_node, size, async_data);
	if (ret == 0)
		trace_on_transfer(src_node, dst_node, size, t0);	/* observers: a transfer, now complete */
	else if (ret == -EAGAIN && async_data)
		queued(async_data, ops, size, t0);
	return ret;
}

int starpu_interface_copy2d(uintptr_t src, size_t src_offset, unsigned src_node,
			    uintptr_t dst, size_t dst_offset, unsigned dst_node,
			    size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst,
			    void *async_data)
{
	const struct drv_node_ops *ops = mem_copy_ops(src_node, dst_node);
	if (!ops)
		return -EINVAL;
	uint64_t t0 = trace_stamp();
	int ret = 0;
	if (ops->copy2d)
		ret = ops->copy2d(src, src_offset, src_node, dst, dst_offset, dst_node,
				  blocksize, numblocks, ld_src, ld_dst, async_data);
	else if (ld_src == blocksize && ld_dst == blocksize)
		/* Contiguous when both strides are the block size: one copy. */
		ret = ops->copy(src, src_offset, src_node, dst, dst_offset, dst_node, blocksize * numblocks, async_data);
	else
		for (size_t i = 0; i < numblocks && !ret; i++)
			ret = ops->copy(src, src_offset + i * ld_src, src_node, dst, dst_offset + i * ld_dst, dst_node, blocksize, NULL);
	if (ret == 0)
		trace_on_transfer(src_node, dst_node, blocksize * numblocks, t0);	/* observers: a transfer, now complete */
	else if (ret == -EAGAIN && async_data)
		queued(async_data, ops, blocksize * numblocks, t0);
	return ret;
}

int starpu_interface_copy3d(uintptr_t src, size_t src_offset, unsigned src_node,
			    uintptr_t dst, size_t dst_offset, unsigned dst_node,
			    size_t blocksize,
			    size_t numblocks1, size_t ld1_src, size_t ld1_dst,
			    size_t numblocks2, size_t ld2_src, size_t ld2_dst,
			    void *async_data)
{
	int queued = 0;
	for (size_t j = 0; j < numblocks2; j++)
	{
		int ret = starpu_interface_copy2d(src, src_offset + j * ld2_src, src_node,
						  dst, dst_offset + j * ld2_dst, dst_node,
						  blocksize, numblocks1, ld1_src, ld1_dst, async_data);
		if (ret == -EAGAIN)
			queued = 1;	/* in flight: the planes share one queue */
		else if (ret)
			return ret;
	}
	return queued ? -EAGAIN : 0;
}
