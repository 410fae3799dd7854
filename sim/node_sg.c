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
 * device (kernels do not run in simulation anyway). Two exceptions, from
 * the platform: a device whose copies run on the engine of its kernels
 * (copies_on_compute) copies there, between its kernels (engine_sg.c),
 * and a device whose first copy into a fresh buffer is slower
 * (first_copy_us_per_mib) makes it so.
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
#include <stdlib.h>
#include <string.h>

/* Fake device addresses: a monotonic counter, so every allocation of the
 * process gets an address of its own (deterministic too). */
#define SG_FAKE_BASE 0xdead000000000000ull
#define SG_FAKE_ALIGN 4096ull
static uint64_t fake_next = SG_FAKE_BASE;

static sg_host_t node_host(unsigned node);

/*
 * Fresh allocations. On a device whose host says first_copy_us_per_mib
 * (vela calibrate-bus measures it: the first copy into a fresh buffer is
 * slower than later ones where the driver allocates lazily, PoCL), the
 * first copy into each allocation lasts that much longer per MiB copied.
 * Such allocations are listed by address, which only grows (fake_next),
 * so the list stays sorted; an entry is spent by its first copy or its
 * free. Actors run one at a time, and nothing here calls SimGrid between
 * reading and writing the list.
 */
struct fresh
{
	uint64_t addr, size;
	double us_per_mib;
};
static struct fresh *fresh;
static size_t nfresh, fresh_cap;

/* The host's first_copy_us_per_mib, or 0 (checked at load). */
static double first_copy_cost(unsigned node)
{
	sg_host_t h = node_host(node);
	const char *v = h ? sg_host_get_property_value(h, SG_PROP_FIRST_COPY_US_PER_MIB) : NULL;
	double d = v ? strtod(v, NULL) : 0.0;
	return d > 0.0 ? d : 0.0;
}

static void fresh_add(uint64_t addr, uint64_t size, double us_per_mib)
{
	if (nfresh == fresh_cap)
	{
		/* Full: spent entries out first (the order stays), and more
		 * room only if that freed less than half. */
		size_t n = 0;
		for (size_t i = 0; i < nfresh; i++)
			if (fresh[i].us_per_mib > 0)
				fresh[n++] = fresh[i];
		nfresh = n;
		if (!fresh_cap || nfresh > fresh_cap / 2)
		{
			size_t cap = fresh_cap ? 2 * fresh_cap : 256;
			struct fresh *f = realloc(fresh, cap * sizeof(*f));
			if (!f && nfresh == fresh_cap)
				return;	/* the copy will just not pay the extra */
			if (f)
			{
				fresh = f;
				fresh_cap = cap;
			}
		}
	}
	fresh[nfresh++] = (struct fresh){ .addr = addr, .size = size, .us_per_mib = us_per_mib };
}

/* The entry holding addr, or NULL. */
static struct fresh *fresh_find(uint64_t addr)
{
	size_t lo = 0, hi = nfresh;
	while (lo < hi)
	{
		size_t mid = lo + (hi - lo) / 2;
		if (fresh[mid].addr + fresh[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nfresh && fresh[lo].addr <= addr && addr < fresh[lo].addr + fresh[lo].size ? &fresh[lo] : NULL;
}

/* What a copy of bytes into dst adds for being the first there (s). */
static double first_copy_extra(uint64_t dst, size_t bytes)
{
	struct fresh *f = nfresh ? fresh_find(dst) : NULL;
	if (!f || !(f->us_per_mib > 0))
		return 0.0;
	double us = f->us_per_mib * (double) bytes / (double) (1u << 20);
	f->us_per_mib = 0.0;	/* spent */
	return us * 1e-6;
}

static uintptr_t sg_node_malloc(unsigned node, size_t size, int flags)
{
	(void) flags;
	uint64_t span = ((uint64_t) size + SG_FAKE_ALIGN) & ~(SG_FAKE_ALIGN - 1);
	uint64_t addr = __atomic_fetch_add(&fake_next, span, __ATOMIC_RELAXED);
	double c = first_copy_cost(node);
	if (c > 0.0)
		fresh_add(addr, size ? size : 1, c);
	return (uintptr_t) addr;
}

static void sg_node_free(unsigned node, uintptr_t addr, size_t size, int flags)
{
	(void) node;
	(void) size;
	(void) flags;
	struct fresh *f = nfresh ? fresh_find(addr) : NULL;
	if (f)
		f->us_per_mib = 0.0;
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

static int route_of(sg_host_t from, sg_host_t to, double *bandwidth, double *latency);

/* A copy from or to a device whose engine also runs its kernels
 * (engine_sg.c): it runs there, one command at a time, for as long as a
 * lone copy over the route lasts (latency + bytes / bottleneck bandwidth:
 * the engine copies one buffer at a time, so nothing shares the link). */
static void engine_copy(sg_host_t from, sg_host_t to, struct sg_engine *ef, struct sg_engine *et, size_t bytes,
			double extra)
{
	double bw, lat;
	if (route_of(from, to, &bw, &lat) || !(bw > 0))
	{
		sg_host_sendto(from, to, (double) bytes);
		if (extra > 0)
			sg_sleep(extra);
		return;
	}
	sg_engine_copy(ef, et, lat + (double) bytes / bw + extra);
}

/* extra: what the copy takes beyond the route's time (s; a first copy
 * into a fresh allocation). */
static int transfer(unsigned src_node, unsigned dst_node, size_t bytes, double extra)
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

	struct sg_engine *ef = sg_engine_of(from), *et = sg_engine_of(to);
	if (ef || et)
		engine_copy(from, to, ef, et, bytes, extra);
	else
	{
		sg_host_sendto(from, to, (double) bytes);
		if (extra > 0)
			sg_sleep(extra);
	}

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
	(void) async;
	return transfer(src_node, dst_node, size, first_copy_extra((uint64_t) dst + dst_offset, size));
}

/* A strided copy is one DMA of all its blocks, as cudaMemcpy2D. */
static int sg_node_copy2d(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
			  unsigned dst_node, size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst,
			  void *async)
{
	(void) src;
	(void) src_offset;
	(void) ld_src;
	(void) ld_dst;
	(void) async;
	return transfer(src_node, dst_node, blocksize * numblocks, first_copy_extra((uint64_t) dst + dst_offset, blocksize * numblocks));
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

/* The route's links between two hosts, for its bottleneck and its
 * latency: 0, or -ENOENT without a route. */
static int route_of(sg_host_t from, sg_host_t to, double *bandwidth, double *latency)
{
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

int sg_route(const char *src_host, const char *dst_host, double *bandwidth, double *latency)
{
	sg_host_t from = sg_host_named(src_host), to = sg_host_named(dst_host);
	if (!from || !to)
		return -ENOENT;
	return route_of(from, to, bandwidth, latency);
}
