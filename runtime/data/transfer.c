/* transfer.c — copying a handle's data into a replicate, and the copies in
 * flight.
 *
 * A copy goes from the best valid replicate (pick_source) through the
 * interface's copy methods to the node drivers. It runs with the handle's
 * lock dropped: the destination is marked transferring, the source pinned
 * and marked reading, and a copy overtaken by a write elsewhere is marked
 * stale and its result dropped.
 *
 * When the copy's node driver can queue copies (a device: drv_node_ops has
 * test), a copy started by data_transfer_start_locked may still be running
 * when it returns: it is then "in flight", listed on its destination node
 * with the driver's event (struct xfer, whose first member is the struct
 * drv_async the interface's copy method received). It ends in one of two
 * ways, whoever comes first takes it off the list and ends it:
 *   - a worker of the destination node polls the node's list between tasks
 *     and waits for it when idle (data_xfer_progress; workers do not sleep
 *     while their node has copies in flight);
 *   - a thread that needs the replicate (or that writes the source, or
 *     unregisters the handle) waits for it (data_xfer_finish_locked).
 * An in-flight copy holds a reference on its handle (nrefs), so the
 * handle outlives it.
 *
 * Locks: each node's in-flight list has a lock of its own, a leaf taken
 * with or without a handle lock; no handle lock is taken while holding it.
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/rt.h"
#include "core/sim_loader.h"
#include "core/workers.h"
#include "drivers/driver.h"
#include "trace/trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

struct xfer
{
	struct drv_async async;		/* first: the copy methods' async_data */
	starpu_data_handle_t handle;
	unsigned src, dst;
	int result;			/* test's answer, once it reported the end */
	struct xfer *prev, *next;	/* the destination's in-flight list */
};

struct inflight
{
	os_mutex_t lock;		/* protects the list (a leaf) */
	struct xfer *head, *tail;	/* oldest first */
	_Atomic unsigned n;		/* read without the lock for a quick look */
};

static struct inflight inflight[STARPU_MAXNODES];

/* ------------------------------------------------------------------ */
/* Copy methods. */

int data_copy_interface(starpu_data_handle_t h, unsigned src, unsigned dst, struct drv_async *async)
{
	return data_copy_ifaces(h, data_rep(h, src)->interface, src, data_rep(h, dst)->interface, dst, async);
}

int data_copy_ifaces(starpu_data_handle_t h, void *si, unsigned src, void *di, unsigned dst, struct drv_async *async)
{
	const struct starpu_data_copy_methods *m = h->ops->copy_methods;
	int ram_src = mem_nodes[src].kind == STARPU_CPU_RAM, ram_dst = mem_nodes[dst].kind == STARPU_CPU_RAM;
	if (ram_src && ram_dst)
	{
		if (m && m->ram_to_ram)
			return m->ram_to_ram(si, src, di, dst);
		if (m && m->any_to_any)
			return m->any_to_any(si, src, di, dst, NULL);
		/* Interfaces with only pack/unpack: through a packed buffer. */
		if (h->ops->pack_data && h->ops->unpack_data)
		{
			void *buf;
			starpu_ssize_t count;
			int ret = h->ops->pack_data(h, src, &buf, &count);
			if (ret)
				return ret;
			return h->ops->unpack_data(h, dst, buf, (size_t) count);
		}
	}
	else if (m)
	{
		/* The interface's methods for this pair of node kinds (a
		 * device's driver knows its own: ram_to_opencl, ...), as StarPU
		 * prefers them, else the generic one. */
		const struct drv_node_ops *ops = mem_copy_ops(src, dst);
		if (ops && ops->copy_interface)
		{
			int ret = ops->copy_interface(m, si, src, di, dst, async);
			if (ret != -ENOSYS)
				return ret;
		}
		if (m->any_to_any)
			return m->any_to_any(si, src, di, dst, async);
	}
	rt_error("data %p: interface '%s' has no copy method from node %u (%s) to node %u (%s) (-ENOSYS)",
		 (void *) h, h->ops->name ? h->ops->name : "?", src, mem_nodes[src].name, dst, mem_nodes[dst].name);
	return -ENOSYS;
}

#define SOURCE_WRITTEN (-2)

/* The best valid replicate to copy from into dst: with a bus model, the
 * one the bus predicts fastest among those that can copy directly (the
 * first in node order at equal times), as StarPU chooses: a tile valid in
 * RAM and on a GPU goes to another GPU over NVLink rather than PCIe.
 * Without one (or a replicate the bus has no figure for): one that can
 * copy directly, the owner, RAM. -1 if none is valid, SOURCE_WRITTEN if
 * the valid ones are being written (data_make_valid). */
static int pick_source(starpu_data_handle_t h, unsigned dst)
{
	int best = -1, best_score = -1;
	unsigned direct[STARPU_MAXNODES], ndirect = 0;
	for (unsigned n = 0; n < mem_nnodes; n++)
	{
		const struct data_replicate *r = data_rep(h, n);
		if (n == dst || !rep_valid(r))
			continue;
		if (r->writing)
		{
			if (best < 0)
				best = SOURCE_WRITTEN;
			continue;
		}
		int is_direct = mem_direct_copy(n, dst);
		int score = (is_direct ? 4 : 0) + (r->state == REP_OWNER ? 2 : 0) +
			    (mem_nodes[n].kind == STARPU_CPU_RAM ? 1 : 0);
		if (score > best_score)
		{
			best = (int) n;
			best_score = score;
		}
		if (is_direct)
			direct[ndirect++] = n;
	}
	/* One direct source (the common case) is the best by its score: the
	 * bus is asked only to choose between several. */
	if (ndirect < 2)
		return best;
	size_t size = starpu_data_get_size(h);
	int fastest = -1;
	double fastest_us = INFINITY;
	for (unsigned i = 0; i < ndirect && size; i++)
	{
		double us = starpu_transfer_predict(direct[i], dst, size);
		if (!(us > 0.0) || !isfinite(us))
			return best;	/* the bus has no figure for it */
		if (us < fastest_us)
		{
			fastest = (int) direct[i];
			fastest_us = us;
		}
	}
	return fastest >= 0 ? fastest : best;
}

/* Ends a copy from src into dst (h->lock held): unpins the source and
 * publishes the destination unless the copy failed (said unless quiet)
 * or went stale. */
static int transfer_end_locked(starpu_data_handle_t h, unsigned src, unsigned dst, int ret, int quiet)
{
	struct data_replicate *s = data_rep(h, src), *d = data_rep(h, dst);
	s->refcnt--;
	s->reading--;
	d->transferring = 0;
	if (ret == 0 && !d->stale)
	{
		d->state = REP_SHARED;
		if (s->state == REP_OWNER)
			s->state = REP_SHARED;
	}
	else if (ret && !quiet)
	{
		char label[96];
		rt_error("data %s: copy from memory node %u (%s) to memory node %u (%s) failed (%d)",
			 data_label(h, label, sizeof(label)), src, mem_nodes[src].name, dst, mem_nodes[dst].name, ret);
	}
	d->stale = 0;
	os_cond_broadcast(&h->busy_cond);
	if (!s->refcnt)
	{
		data_memory_releasing(src);	/* under h->lock: before it can be seen */
		data_memory_released(src);
	}
	return ret;
}

static void inflight_add(struct xfer *x)
{
	struct inflight *l = &inflight[x->dst];
	os_mutex_lock(&l->lock);
	x->next = NULL;
	x->prev = l->tail;
	if (l->tail)
		l->tail->next = x;
	else
		l->head = x;
	l->tail = x;
	atomic_fetch_add(&l->n, 1);
	os_mutex_unlock(&l->lock);
}

/* l->lock held. */
static void inflight_unlink(struct inflight *l, struct xfer *x)
{
	if (x->prev)
		x->prev->next = x->next;
	else
		l->head = x->next;
	if (x->next)
		x->next->prev = x->prev;
	else
		l->tail = x->prev;
	x->prev = x->next = NULL;
	atomic_fetch_sub(&l->n, 1);
}

/* Takes h's copy in flight into node off its list, or NULL if there is
 * none (or someone else took it first). */
static struct xfer *inflight_take(unsigned node, starpu_data_handle_t h)
{
	struct inflight *l = &inflight[node];
	if (!atomic_load_explicit(&l->n, memory_order_acquire))
		return NULL;
	os_mutex_lock(&l->lock);
	struct xfer *x = l->head;
	while (x && x->handle != h)
		x = x->next;
	if (x)
		inflight_unlink(l, x);
	os_mutex_unlock(&l->lock);
	return x;
}

/* Ends an in-flight copy taken off its list, whose driver reported ret
 * (h->lock held). Returns 1 when the caller must free the handle after
 * unlocking it (its last reference went). */
static int xfer_end_locked(struct xfer *x, int ret)
{
	starpu_data_handle_t h = x->handle;
	if (ret > 0)
		ret = 0;
	if (ret == 0)	/* observers: a transfer, now complete */
		trace_on_transfer(x->src, x->dst, x->async.bytes ? x->async.bytes : starpu_data_get_size(h), x->async.start);
	transfer_end_locked(h, x->src, x->dst, ret, 0);
	int free_handle = data_unref_locked(h);
	free(x);
	return free_handle;
}

/* Ends an in-flight copy taken off its list, whose result is known. */
static void xfer_end(struct xfer *x)
{
	starpu_data_handle_t h = x->handle;
	os_mutex_lock(&h->lock);
	int free_handle = xfer_end_locked(x, x->result);
	os_mutex_unlock(&h->lock);
	if (free_handle)
		data_handle_free_deferred(h);
}

/* ------------------------------------------------------------------ */
/* Starting copies. */

/* How a copy may go (transfer's flags). */
enum
{
	/* Besides DATA_COPY_DROP and DATA_COPY_QUIET (data.h): */
	COPY_QUEUE = 4,		/* a device may keep it in flight */
};

/* The only valid copies of h are being written: a copy out of them would
 * catch a half-written content and publish it as valid. A prefetch gives
 * up (-EBUSY): waiting could be waiting for a task of the very worker that
 * runs it. Another copy waits for the writer (h->lock held) and returns 0:
 * the caller looks again. */
static int copy_waits_for_writer(starpu_data_handle_t h, unsigned flags)
{
	if (flags & DATA_COPY_DROP)
		return -EBUSY;
	os_cond_wait(&h->busy_cond, &h->lock);
	return 0;
}

/* Whether a device's driver runs the copy (a real run). */
static int copy_on_device(unsigned src, unsigned dst)
{
	enum starpu_node_kind a = mem_nodes[src].kind, b = mem_nodes[dst].kind;
	return !os_is_simulated() &&
	       ((a != STARPU_CPU_RAM && a != STARPU_DISK_RAM) || (b != STARPU_CPU_RAM && b != STARPU_DISK_RAM));
}

/* A synchronous copy by a device's driver (a thread waits for it: an
 * acquisition, a synchronous fetch): queued, then its end polled for up
 * to SYNC_COPY_POLL_US before blocking in the driver, with idle workers
 * polling meanwhile (worker_device_copy_activity, core/workers.h). A
 * blocking wait would put this thread to sleep and cost the driver's
 * thread a wake-up of it when the copy ends, and idle cores would halt:
 * on a VM both wake-ups cost tens of µs, a third of a 1 MiB copy on PoCL.
 * StarPU's waiting threads poll too. Copies that workers start for their
 * tasks are left in flight and keep their workers awake already. */
#define SYNC_COPY_POLL_US 1000.0

static int sync_device_copy(starpu_data_handle_t h, unsigned src, unsigned dst)
{
	struct drv_async a = { 0 };
	worker_device_copy_activity(1);
	int ret = data_copy_interface(h, src, dst, &a);
	if (!a.event)
		return ret;	/* done (or -EAGAIN with nothing queued: the caller says so) */
	int end = 0;
	if (ret == 0 || ret == -EAGAIN)
	{
		double deadline = os_now_us() + SYNC_COPY_POLL_US;
		unsigned tries = 0;
		while (!(end = a.ops->test(&a)) && os_now_us() < deadline)
			os_poll_pause(&tries);	/* the driver's thread may need this core */
	}
	if (!end)
		end = a.ops->wait(&a);	/* also a part queued before another failed */
	if (ret == 0 || ret == -EAGAIN)
		ret = end < 0 ? end : 0;
	worker_device_copy_activity(0);
	if (ret == 0)	/* observers: a transfer, now complete */
		trace_on_transfer(src, dst, a.bytes ? a.bytes : starpu_data_get_size(h), a.start);
	return ret;
}

/* Copies into dst (allocated, not valid, not transferring; h->lock held,
 * dropped meanwhile). With COPY_QUEUE, a device may take the copy and run
 * it in flight: returns 1 then, 0 when the copy is done, or a negative
 * errno. */
static int transfer(starpu_data_handle_t h, unsigned dst, unsigned flags)
{
	struct data_replicate *d = data_rep(h, dst);
	int src = pick_source(h, dst);
	if (src == SOURCE_WRITTEN)
		return copy_waits_for_writer(h, flags);
	if (src < 0)
	{
		/* Nothing valid anywhere: data registered with no home and
		 * never written, read now. Its content is undefined. */
		rt_warn("data %p is read before anything was written to it (registered with home node -1)", (void *) h);
		d->state = REP_OWNER;
		return 0;
	}
	if (!mem_direct_copy((unsigned) src, dst))
	{
		/* Chain through RAM (one RAM node until NUMA nodes exist). */
		unsigned ram = STARPU_MAIN_RAM;
		int ret = data_make_valid_locked_copy(h, ram, flags & (DATA_COPY_DROP | DATA_COPY_QUIET));
		if (ret)
			return ret;
		if (rep_valid(d) || d->transferring || !d->allocated)
			return 0;	/* changed meanwhile: the caller looks again */
		src = (int) ram;
		/* Written meanwhile, in RAM or elsewhere. */
		if (!rep_valid(data_rep(h, ram)))
			return 0;
		if (data_rep(h, ram)->writing)
			return copy_waits_for_writer(h, flags);
	}
	struct data_replicate *s = data_rep(h, src);
	s->refcnt++;
	s->reading++;
	d->transferring = 1;
	d->stale = 0;
	struct xfer *x = NULL;
	if ((flags & COPY_QUEUE) && mem_copy_queues((unsigned) src, dst) && (x = calloc(1, sizeof(*x))))
	{
		x->handle = h;
		x->src = (unsigned) src;
		x->dst = dst;
	}
	os_mutex_unlock(&h->lock);
	/* Simulation: setting a GPU's copy up (StarPU's simulation charges
	 * its DMA queueing). */
	if (sim_costs[SIM_COST_TRANSFER] > 0.0 &&
	    (mem_nodes[src].kind == STARPU_CUDA_RAM || mem_nodes[src].kind == STARPU_OPENCL_RAM ||
	     mem_nodes[dst].kind == STARPU_CUDA_RAM || mem_nodes[dst].kind == STARPU_OPENCL_RAM) &&
	    !data_requests_setup_hidden(dst))
	{
		/* On the driver thread of the device that runs the copy: the
		 * destination if a device, else the source. */
		unsigned dev = mem_nodes[dst].kind == STARPU_CUDA_RAM || mem_nodes[dst].kind == STARPU_OPENCL_RAM ? dst : (unsigned) src;
		int drv = mem_driver_lock(dev);
		sim_cost(SIM_COST_TRANSFER, 1);
		if (drv)
			mem_driver_unlock(dev);
	}
	int ret = !x && copy_on_device((unsigned) src, dst) && mem_copy_queues((unsigned) src, dst)
		? sync_device_copy(h, (unsigned) src, dst)
		: data_copy_interface(h, (unsigned) src, dst, x ? &x->async : NULL);
	if (x && x->async.event)
	{
		if (ret == 0 || ret == -EAGAIN)
		{
			os_mutex_lock(&h->lock);
			h->nrefs++;	/* the copy keeps the handle */
			inflight_add(x);
			/* A thread that found the replicate transferring before
			 * the copy was listed sleeps: now it can end it itself. */
			os_cond_broadcast(&h->busy_cond);
			return 1;
		}
		/* A part was queued before another failed: let it end. */
		x->async.ops->wait(&x->async);
	}
	free(x);
	if (ret == -EAGAIN)
	{
		rt_error("data %p: the copy method from node %u to node %u returned -EAGAIN without queuing the copy "
			 "through the async_data it was given (-EIO)", (void *) h, (unsigned) src, dst);
		ret = -EIO;
	}
	os_mutex_lock(&h->lock);
	return transfer_end_locked(h, (unsigned) src, dst, ret, (flags & DATA_COPY_QUIET) != 0);
}

int data_transfer_locked(starpu_data_handle_t h, unsigned dst, unsigned how)
{
	return transfer(h, dst, how & (DATA_COPY_DROP | DATA_COPY_QUIET));
}

int data_transfer_start_locked(starpu_data_handle_t h, unsigned dst)
{
	return transfer(h, dst, COPY_QUEUE | DATA_COPY_DROP);
}

int data_start_copy(starpu_data_handle_t h, unsigned node)
{
	int ret = 0;
	os_mutex_lock(&h->lock);
	struct data_replicate *r = data_rep(h, node);
	if (!rep_valid(r) && !r->transferring && !r->allocating)
	{
		if (!r->allocated)
			ret = data_allocate_replicate_quiet(h, node);	/* the task's fetch reports failures */
		if (!ret && r->allocated && !rep_valid(r) && !r->transferring && !r->allocating)
			ret = data_transfer_start_locked(h, node);
	}
	os_mutex_unlock(&h->lock);
	return ret < 0 && ret != -EBUSY ? ret : 0;
}

/* ------------------------------------------------------------------ */
/* Ending copies in flight. */

int data_xfer_finish_locked(starpu_data_handle_t h)
{
	int ended = 0;
	for (unsigned node = 0; node < mem_nnodes; node++)
	{
		if (!data_rep(h, node)->transferring)
			continue;
		struct xfer *x = inflight_take(node, h);
		if (!x)
			continue;
		os_mutex_unlock(&h->lock);
		int ret = x->async.ops->wait(&x->async);
		os_mutex_lock(&h->lock);
		/* The caller holds a reference of its own (a task, an
		 * acquisition, an unregistration): this one is not the last. */
		(void) xfer_end_locked(x, ret);
		ended++;
	}
	return ended;
}

void data_wait_busy_locked(starpu_data_handle_t h)
{
	if (!data_xfer_finish_locked(h))
		os_cond_wait(&h->busy_cond, &h->lock);
}

unsigned data_xfer_pending(unsigned node)
{
	return node < STARPU_MAXNODES ? atomic_load_explicit(&inflight[node].n, memory_order_relaxed) : 0;
}

int data_xfer_progress(unsigned node, int wait)
{
	struct inflight *l = &inflight[node];
	if (node >= STARPU_MAXNODES || !atomic_load_explicit(&l->n, memory_order_acquire))
		return 0;
	struct xfer *done = NULL, *waited = NULL;
	os_mutex_lock(&l->lock);
	for (struct xfer *x = l->head, *next; x; x = next)
	{
		next = x->next;
		int ret = x->async.ops->test(&x->async);
		if (ret == 0)
			continue;
		inflight_unlink(l, x);
		x->result = ret;
		x->next = done;
		done = x;
	}
	if (!done && wait && l->head)
	{
		waited = l->head;
		inflight_unlink(l, waited);
	}
	os_mutex_unlock(&l->lock);
	if (waited)
	{
		waited->result = waited->async.ops->wait(&waited->async);
		waited->next = NULL;
		done = waited;
	}
	int ended = 0;
	while (done)
	{
		struct xfer *x = done;
		done = x->next;
		xfer_end(x);
		ended++;
	}
	return ended;
}

void data_xfer_drain(unsigned node)
{
	for (unsigned dst = 0; dst < STARPU_MAXNODES; dst++)
	{
		struct inflight *l = &inflight[dst];
		while (atomic_load_explicit(&l->n, memory_order_acquire))
		{
			os_mutex_lock(&l->lock);
			struct xfer *x = l->head;
			while (x && x->src != node && x->dst != node)
				x = x->next;
			if (x)
				inflight_unlink(l, x);
			os_mutex_unlock(&l->lock);
			if (!x)
				break;
			x->result = x->async.ops->wait(&x->async);
			xfer_end(x);
		}
	}
}

void data_xfer_fini(void)
{
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
		while (data_xfer_progress(node, 1))
			;
}
