/* node_sg.c — the memory nodes of simulated devices (drivers/driver.h,
 * struct drv_node_ops) and the platform's routes.
 *
 * Nothing is allocated on a simulated device: malloc hands out a unique
 * fake address (never dereferenceable: the range is non-canonical on
 * x86-64, so a kernel run by mistake faults at once) and the data layer
 * accounts the bytes against the node's capacity, the host's memsize
 * (data/memory.c), evicting through its usual path when full.
 *
 * A copy is a communication of its size from the source node's platform
 * host to the destination's (sg_host_sendto): SimGrid routes it through
 * the platform's links, so latency, bandwidth and the sharing of links
 * between concurrent copies are its own (CM02 with factors 1: a lone copy
 * lasts latency + bytes / bandwidth exactly). The calling actor blocks for
 * that long, without any lock held (the data layer copies with the handle
 * lock dropped). Overlap with computation comes from who calls: a worker
 * fetching its task's input waits, while prefetches run on the node's own
 * transfer thread (data/request.c). Bytes do not move: a device replicate
 * has no content, and RAM keeps what it had when data comes back from a
 * device (kernels do not run in simulation anyway).
 */
#include "sim/sg_internal.h"
#include "drivers/driver.h"

#include <simgrid/link.h>
#include <simgrid/cond.h>
#include <simgrid/mutex.h>
#include <xbt/dynar.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Fake device addresses: a monotonic counter, so every allocation of the
 * process gets an address of its own (deterministic too). */
#define SG_FAKE_BASE 0xdead000000000000ull
#define SG_FAKE_ALIGN 4096ull
static uint64_t fake_next = SG_FAKE_BASE;

static uintptr_t sg_node_malloc(unsigned node, size_t size, int flags)
{
	(void) node;
	(void) flags;
	uint64_t span = ((uint64_t) size + SG_FAKE_ALIGN) & ~(SG_FAKE_ALIGN - 1);
	return (uintptr_t) __atomic_fetch_add(&fake_next, span, __ATOMIC_RELAXED);
}

static void sg_node_free(unsigned node, uintptr_t addr, size_t size, int flags)
{
	(void) node;
	(void) addr;
	(void) size;
	(void) flags;
}

static sg_host_t node_host(unsigned node)
{
	char name[32];
	if (sg_core->node_host(node, name, sizeof(name)))
		return NULL;
	return sg_host_named(name);
}

/*
 * Which copies wait for which. A copy waits for every earlier one still
 * queued or running that it must follow, then runs; copies that need not
 * follow each other run together and share the links they cross. The
 * rules are those StarPU's simulation applies, from what was observed of
 * CUDA devices (one DMA stream per direction and pair of nodes; peer copies
 * serialized with the copies into either of their devices):
 *   - the same source and destination: in order;
 *   - a GPU to GPU copy follows the crossed copy (its destination to its
 *     source) and every copy into its source or its destination;
 *   - any copy follows the GPU to GPU copies out of or into its
 *     destination.
 * "GPU" is a CUDA or OpenCL node; the others (RAM, MPI slaves) only follow
 * the first rule.
 *
 * The pending copies form a list in arrival order (each entry lives on its
 * copying actor's stack until it is done). Actors run one at a time, but
 * SimGrid calls may switch actors: the list is changed under pend_mutex.
 */
struct pending
{
	unsigned src, dst;
	int gpu_gpu;
	struct pending *next;
};

static struct pending *pend_head, *pend_tail;
static sg_mutex_t pend_mutex;	/* made on first use; a leaf */
static sg_cond_t pend_cond;	/* a copy ended */
static signed char node_gpu[STARPU_MAXNODES];	/* 0 unknown, 1 GPU, -1 other */

static int is_gpu(unsigned node)
{
	if (node >= STARPU_MAXNODES)
		return 0;
	if (!node_gpu[node])
	{
		char name[32] = "";
		sg_core->node_host(node, name, sizeof(name));
		node_gpu[node] = (!strncmp(name, "CUDA", 4) || !strncmp(name, "OpenCL", 6)) ? 1 : -1;
	}
	return node_gpu[node] > 0;
}

static int must_follow(const struct pending *n, const struct pending *o)
{
	if (n->src == o->src && n->dst == o->dst)
		return 1;
	if (n->gpu_gpu && ((n->src == o->dst && o->src == n->dst) || o->dst == n->src || o->dst == n->dst))
		return 1;
	return o->gpu_gpu && (n->dst == o->src || n->dst == o->dst);
}

static int must_wait(const struct pending *me)
{
	for (const struct pending *o = pend_head; o && o != me; o = o->next)
		if (must_follow(me, o))
			return 1;
	return 0;
}

static int transfer(unsigned src_node, unsigned dst_node, size_t bytes)
{
	sg_host_t from = node_host(src_node), to = node_host(dst_node);
	if (!from || !to)
	{
		char a[32] = "?", b[32] = "?";
		sg_core->node_host(src_node, a, sizeof(a));
		sg_core->node_host(dst_node, b, sizeof(b));
		fprintf(stderr, "[vela] error: simulated copy from memory node %u to %u: the platform has no host '%s' "
			"(-ENODEV)\n", src_node, dst_node, from ? b : a);
		return -ENODEV;
	}
	if (!pend_mutex)
	{
		pend_mutex = sg_mutex_init();
		pend_cond = sg_cond_init();
	}
	struct pending me = { .src = src_node, .dst = dst_node, .gpu_gpu = is_gpu(src_node) && is_gpu(dst_node) };
	sg_mutex_lock(pend_mutex);
	if (pend_tail)
		pend_tail->next = &me;
	else
		pend_head = &me;
	pend_tail = &me;
	while (must_wait(&me))
		sg_cond_wait(pend_cond, pend_mutex);
	sg_mutex_unlock(pend_mutex);

	sg_host_sendto(from, to, (double) bytes);

	sg_mutex_lock(pend_mutex);
	struct pending **pp = &pend_head, *prev = NULL;
	while (*pp != &me)
	{
		prev = *pp;
		pp = &(*pp)->next;
	}
	*pp = me.next;
	if (pend_tail == &me)
		pend_tail = prev;
	sg_cond_notify_all(pend_cond);
	sg_mutex_unlock(pend_mutex);
	return 0;
}

/* Synchronous whatever async says: 0 means done (drivers/driver.h). */
static int sg_node_copy(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
			unsigned dst_node, size_t size, void *async)
{
	(void) src;
	(void) src_offset;
	(void) dst;
	(void) dst_offset;
	(void) async;
	return transfer(src_node, dst_node, size);
}

/* A strided copy is one DMA of all its blocks, as cudaMemcpy2D. */
static int sg_node_copy2d(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
			  unsigned dst_node, size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst,
			  void *async)
{
	(void) src;
	(void) src_offset;
	(void) dst;
	(void) dst_offset;
	(void) ld_src;
	(void) ld_dst;
	(void) async;
	return transfer(src_node, dst_node, blocksize * numblocks);
}

const struct drv_node_ops drv_sg_device_node_ops = {
	.version = 1,
	.name = "simulated device",
	.kind = STARPU_CUDA_RAM,	/* informative: the node's own kind is in its memory node */
	.malloc = sg_node_malloc,
	.free = sg_node_free,
	.copy = sg_node_copy,
	.copy2d = sg_node_copy2d,
};

/* The route's links, for its bottleneck and its latency. */
int sg_route(const char *src_host, const char *dst_host, double *bandwidth, double *latency)
{
	sg_host_t from = sg_host_named(src_host), to = sg_host_named(dst_host);
	if (!from || !to)
		return -ENOENT;
	xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
	if (sg_route_links(from, to, links))
	{
		xbt_dynar_free(&links);
		return -ENOENT;
	}
	unsigned n = (unsigned) xbt_dynar_length(links);
	double bw = 0.0, lat = 0.0;
	for (unsigned i = 0; i < n; i++)
	{
		sg_link_t l = xbt_dynar_get_as(links, i, sg_link_t);
		double b = sg_link_get_bandwidth(l);
		if (i == 0 || b < bw)
			bw = b;
		lat += sg_link_get_latency(l);
	}
	xbt_dynar_free(&links);
	if (n == 0)
		return -ENOENT;
	*bandwidth = bw;
	*latency = lat;
	return 0;
}
