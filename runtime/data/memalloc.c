/* memalloc.c — memory for replicates: the allocation cache, the LRU list of
 * evictable replicates, and eviction with write-back.
 *
 * A replicate the runtime allocated is evictable when no task or copy pins
 * it. Evicting a replicate that holds the only valid copy first writes it
 * back: to the data's home node, or, for data the runtime allocated itself,
 * to the swap disk (out-of-core); without such a place it stays. Data
 * advised with starpu_data_wont_use() goes to the head of the list.
 *
 * Freed buffers go to the node's cache, keyed by the interface's
 * allocation shape, and are reused by the next allocation of that shape;
 * under memory pressure the cache is emptied before anything is evicted.
 */
#include "data/data.h"
#include "data/memory.h"
#include "trace/trace.h"
#include "core/rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cache_entry
{
	struct cache_entry *next;
	struct starpu_data_interface_ops *ops;
	size_t size;
	void *iface;			/* a copy of the interface holding the buffer */
};

/* ------------------------------------------------------------------ */
/* LRU (node lock; callers hold the handle's lock too). */

static void lru_unlink(struct memory_node *n, struct data_replicate *r)
{
	if (r->lru_prev)
		r->lru_prev->lru_next = r->lru_next;
	else
		n->lru_head = r->lru_next;
	if (r->lru_next)
		r->lru_next->lru_prev = r->lru_prev;
	else
		n->lru_tail = r->lru_prev;
	r->lru_prev = r->lru_next = NULL;
	r->in_lru = 0;
}

static void lru_append(struct memory_node *n, struct data_replicate *r)
{
	r->lru_next = NULL;
	r->lru_prev = n->lru_tail;
	if (n->lru_tail)
		n->lru_tail->lru_next = r;
	else
		n->lru_head = r;
	n->lru_tail = r;
	r->in_lru = 1;
}

static void lru_prepend(struct memory_node *n, struct data_replicate *r)
{
	r->lru_prev = NULL;
	r->lru_next = n->lru_head;
	if (n->lru_head)
		n->lru_head->lru_prev = r;
	else
		n->lru_tail = r;
	n->lru_head = r;
	r->in_lru = 1;
}

void data_lru_touch(struct data_replicate *r)
{
	if (!r->allocated_by_runtime)
		return;
	struct memory_node *n = &mem_nodes[r->node];
	os_mutex_lock(&n->lock);
	if (r->in_lru)
		lru_unlink(n, r);
	if (r->handle->wont_use)
		lru_prepend(n, r);
	else
		lru_append(n, r);
	os_mutex_unlock(&n->lock);
}

void data_lru_remove(struct data_replicate *r)
{
	struct memory_node *n = &mem_nodes[r->node];
	os_mutex_lock(&n->lock);
	if (r->in_lru)
		lru_unlink(n, r);
	os_mutex_unlock(&n->lock);
}

/* ------------------------------------------------------------------ */
/* Cache. */

static size_t alloc_size_of(starpu_data_handle_t h)
{
	if (h->ops->get_alloc_size)
		return h->ops->get_alloc_size(h);
	return h->ops->get_size ? h->ops->get_size(h) : 0;
}

static int same_alloc_shape(struct starpu_data_interface_ops *ops, void *a, void *b)
{
	if (ops->alloc_compare)
		return ops->alloc_compare(a, b);
	if (ops->compare)
		return ops->compare(a, b);
	return 0;
}

/* Takes a cached buffer fitting r; node lock held. */
static int cache_take_locked(struct memory_node *n, starpu_data_handle_t h, struct data_replicate *r, size_t size)
{
	if (h->ops->dontcache)
		return 0;
	for (struct cache_entry **pe = &n->cache; *pe; pe = &(*pe)->next)
	{
		struct cache_entry *e = *pe;
		if (e->ops != h->ops || e->size != size || !same_alloc_shape(h->ops, e->iface, r->interface))
			continue;
		*pe = e->next;
		/* Only the bytes that differ (the buffer's pointers): the shape
		 * fields are equal, and readers such as starpu_data_get_size
		 * look at them without the handle lock, so rewriting them even
		 * with the same values would race with those reads. */
		unsigned char *dst = r->interface;
		const unsigned char *src = e->iface;
		for (size_t i = 0; i < h->ops->interface_size; i++)
			if (dst[i] != src[i])
				dst[i] = src[i];
		n->cached -= (ssize_t) size;
		free(e->iface);
		free(e);
		return 1;
	}
	return 0;
}

ssize_t mem_cache_flush_locked(unsigned node, ssize_t bytes)
{
	struct memory_node *n = &mem_nodes[node];
	ssize_t freed = 0;
	while (n->cache && (bytes < 0 || freed < bytes))
	{
		struct cache_entry *e = n->cache;
		n->cache = e->next;
		n->cached -= (ssize_t) e->size;
		/* free_data_on_node calls mem_free, which takes the node lock. */
		os_mutex_unlock(&n->lock);
		e->ops->free_data_on_node(e->iface, node);
		os_mutex_lock(&n->lock);
		freed += (ssize_t) e->size;
		free(e->iface);
		free(e);
	}
	return freed;
}

void data_free_replicate(starpu_data_handle_t h, unsigned node)
{
	struct data_replicate *r = data_rep(h, node);
	if (!r->allocated)
		return;
	if (r->allocated_by_runtime)
	{
		data_lookup_note_free(h, node);
		struct memory_node *n = &mem_nodes[node];
		data_memory_releasing(node);
		struct cache_entry *e = h->ops->dontcache ? NULL : malloc(sizeof(*e));
		void *copy = e ? malloc(h->ops->interface_size) : NULL;
		os_mutex_lock(&n->lock);
		if (r->in_lru)
			lru_unlink(n, r);
		if (e && copy)
		{
			memcpy(copy, r->interface, h->ops->interface_size);
			e->ops = h->ops;
			e->size = r->alloc_size;
			e->iface = copy;
			e->next = n->cache;
			n->cache = e;
			n->cached += (ssize_t) r->alloc_size;
			if (n->nwaiting)
				os_cond_broadcast(&n->released);
			os_mutex_unlock(&n->lock);
		}
		else
		{
			os_mutex_unlock(&n->lock);
			free(e);
			free(copy);
			if (h->ops->free_data_on_node)
				h->ops->free_data_on_node(r->interface, node);
		}
	}
	r->allocated = 0;
	r->allocated_by_runtime = 0;
	r->state = REP_INVALID;
	r->alloc_size = 0;
}

/* ------------------------------------------------------------------ */
/* Eviction. */

/* Where the only valid copy of h goes before its replicate on node is
 * freed, or -1 if nowhere. */
static int write_back_target(starpu_data_handle_t h, unsigned node)
{
	if (h->home_node >= 0 && (unsigned) h->home_node != node && data_rep(h, h->home_node)->allocated)
		return h->home_node;
	/* Off a device, data without a home buffer goes to RAM (allocated
	 * there, which may in turn push older data to the swap disk). */
	if (mem_nodes[node].kind != STARPU_CPU_RAM && mem_nodes[node].kind != STARPU_DISK_RAM)
		return STARPU_MAIN_RAM;
	if (h->ooc && starpu_disk_swap_node >= 0 && (unsigned) starpu_disk_swap_node != node)
		return starpu_disk_swap_node;
	return -1;
}

static int is_only_valid_copy(starpu_data_handle_t h, unsigned node)
{
	if (data_rep(h, node)->state == REP_INVALID)
		return 0;
	for (unsigned m = 0; m < mem_nnodes; m++)
		if (m != node && rep_valid(data_rep(h, m)))
			return 0;
	return 1;
}

/* Whether r can be evicted (r's handle locked). */
static int evictable(struct data_replicate *r)
{
	starpu_data_handle_t h = r->handle;
	if (!r->allocated || !r->allocated_by_runtime || r->refcnt || r->transferring || r->allocating)
		return 0;
	if (h->wt_mask & (1u << r->node))
		return 0;
	if (is_only_valid_copy(h, r->node) && write_back_target(h, r->node) < 0)
		return 0;
	return 1;
}

/* Picks, removes from the LRU and returns an evictable replicate of node
 * with its handle locked, or NULL. */
static struct data_replicate *pick_victim(unsigned node)
{
	struct memory_node *n = &mem_nodes[node];
	struct data_replicate *victim = NULL;
	/* Among the least recently used few, a clean one (valid elsewhere
	 * too) is cheaper: nothing to write back. */
	int clean_window = 16;
	os_mutex_lock(&n->lock);
	for (struct data_replicate *r = n->lru_head; r; r = r->lru_next)
	{
		if (os_mutex_trylock(&r->handle->lock))
			continue;	/* busy: someone else uses it, skip */
		if (evictable(r))
		{
			int clean = !is_only_valid_copy(r->handle, node);
			if (clean || !victim || clean_window <= 0)
			{
				if (victim)
					os_mutex_unlock(&victim->handle->lock);
				victim = r;
				if (clean || clean_window <= 0)
					break;
				clean_window--;
				continue;
			}
		}
		os_mutex_unlock(&r->handle->lock);
		if (victim && --clean_window <= 0)
			break;
	}
	if (victim)
		lru_unlink(n, victim);
	os_mutex_unlock(&n->lock);
	return victim;
}

/* Evicts victim (its handle locked on entry and exit); returns the bytes
 * freed, 0 if it had to stay. */
static int allocate_replicate(starpu_data_handle_t h, unsigned node, int quiet);

static ssize_t evict(struct data_replicate *victim)
{
	starpu_data_handle_t h = victim->handle;
	unsigned node = victim->node;
	if (is_only_valid_copy(h, node))
	{
		int target = write_back_target(h, node);
		if (target < 0)
			return 0;
		victim->refcnt++;	/* keep it while the lock is dropped */
		int ret = allocate_replicate(h, (unsigned) target, 1);
		if (ret == 0)
		{
			/* A failed write-back is said once, by no_room (the node
			 * stays full, and why), not once per victim tried. */
			ret = data_transfer_locked(h, (unsigned) target, DATA_COPY_QUIET);
			if (ret)
				atomic_store(&mem_nodes[node].writeback_error, ret);
		}
		victim->refcnt--;
		/* The lock was dropped: a task may have started using the
		 * victim, or written the data elsewhere meanwhile. Free it only
		 * if it is unused and the data survives somewhere else. */
		if (ret || victim->refcnt || is_only_valid_copy(h, node))
		{
			data_lru_touch(victim);
			return 0;
		}
	}
	ssize_t size = (ssize_t) victim->alloc_size;
	trace_on_mem(node, TM_EVICT, (size_t) size, (uintptr_t) h);	/* observers: eviction */
	/* Into the cache: the allocation that evicted it most often wants a
	 * buffer of the same shape (tiles), and reuses it as it is. */
	data_free_replicate(h, node);
	return size;
}

/* Frees at least need bytes on node if it can (no lock held). */
static ssize_t reclaim(unsigned node, ssize_t need)
{
	struct memory_node *n = &mem_nodes[node];
	os_mutex_lock(&n->lock);
	ssize_t freed = mem_cache_flush_locked(node, need);
	os_mutex_unlock(&n->lock);
	/* A victim that could not go (its write-back found no room) goes to
	 * the end of the list: give up after a run of those. */
	int failures = 0;
	atomic_fetch_add(&n->evicting, 1);
	while (freed < need && failures < 16)
	{
		struct data_replicate *victim = pick_victim(node);
		if (!victim)
			break;
		starpu_data_handle_t h = victim->handle;
		ssize_t got = evict(victim);
		freed += got;
		failures = got ? 0 : failures + 1;
		os_cond_broadcast(&h->busy_cond);
		os_mutex_unlock(&h->lock);
	}
	/* Reduction contributions at rest (their fold is not due yet) go to
	 * the swap disk. Rare: only when memory is short and some are here. */
	if (freed < need && n->kind == STARPU_CPU_RAM && starpu_disk_swap_node >= 0
	    && atomic_load(&n->redux_rest_bytes) > 0)
		freed += data_redux_spill(node, need - freed);
	atomic_fetch_sub(&n->evicting, 1);
	return freed;
}

/* Whether something on node is in use now (pinned, being copied, being
 * evicted, private buffers of running tasks), so that waiting may free
 * memory. self: a handle whose lock the caller holds. */
static int node_in_use(unsigned node, starpu_data_handle_t self)
{
	struct memory_node *n = &mem_nodes[node];
	/* Contributions at rest stay until their fold: no use waiting for
	 * them (the fold job, if due, waits for memory like any task). */
	if (atomic_load(&n->private_bytes) - atomic_load(&n->redux_rest_bytes) > 0 || atomic_load(&n->evicting) > 0)
		return 1;
	int busy = 0;
	struct rt_thread *t = rt_thread();
	os_mutex_lock(&n->lock);
	for (struct data_replicate *r = n->lru_head; r && !busy; r = r->lru_next)
	{
		if (r->handle != self && os_mutex_trylock(&r->handle->lock))
		{
			busy = 1;	/* someone is working on it */
			break;
		}
		/* The pins of the job this thread fetches stay until it gives
		 * up: they free nothing by waiting. */
		unsigned refs = r->refcnt;
		if (refs && t->fetching && data_job_pins(t->fetching, t->fetching_npinned, r->handle))
			refs--;
		busy = refs || r->transferring || r->allocating || r->reading;
		if (r->handle != self)
			os_mutex_unlock(&r->handle->lock);
	}
	os_mutex_unlock(&n->lock);
	return busy;
}

/* After eviction failed to make room: -EAGAIN if memory may free up by
 * waiting (eviction freed some, taken by another thread meanwhile; the node
 * is in use; or something was released since gen was read before the
 * eviction, which may now succeed: a task ending between the eviction and
 * node_in_use leaves nothing in use and nothing freed), else -ENOMEM with a
 * message saying why (the node is full of data that has nowhere to go).
 * The releases counter is read after node_in_use, which takes each
 * handle's lock: a release it saw was counted before (data.h). */
static int no_room(starpu_data_handle_t self, starpu_data_handle_t h, unsigned node, size_t size, ssize_t freed,
		   unsigned gen, int quiet)
{
	if (freed > 0 || node_in_use(node, self) || atomic_load(&mem_nodes[node].releases) != gen)
		return -EAGAIN;
	struct memory_node *n = &mem_nodes[node];
	int wb = atomic_exchange(&n->writeback_error, 0);
	if (quiet)
		return -ENOMEM;
	char label[96];
	os_mutex_lock(&n->lock);
	ssize_t used = n->used;
	os_mutex_unlock(&n->lock);
	if (n->total < 0 || used + (ssize_t) size <= n->total)
	{
		/* Room by the accounts: the node's driver (the system) refused. */
		rt_error("data %s (%zu bytes) cannot be allocated on memory node %u (%s): its allocator failed with %zd "
			 "bytes in use, and nothing could be evicted to retry (-ENOMEM)", data_label(h, label, sizeof(label)),
			 size, node, n->name, used);
		return -ENOMEM;
	}
	char wbwhy[64];
	if (wb)
		snprintf(wbwhy, sizeof(wbwhy), "writing it back to %s failed (%d)",
			 n->kind != STARPU_CPU_RAM ? "RAM" : "the swap disk", wb);
	const char *why = wb ? wbwhy
		: n->kind != STARPU_CPU_RAM ? "it can only be evicted to RAM, which is full too"
		: starpu_disk_swap_node < 0 ? "no disk to evict it to (STARPU_DISK_SWAP or starpu_disk_register)"
		: "the swap disk is full too";
	char rest[128] = "";
	ssize_t rb = atomic_load(&n->redux_rest_bytes);
	if (rb > 0)
		snprintf(rest, sizeof(rest), "; %zd bytes are held by reduction contributions awaiting their fold", rb);
	rt_error("data %s (%zu bytes) cannot be allocated on memory node %u (%s): it is full, %zd of %zd bytes "
		 "hold data that cannot be evicted (%s%s) (-ENOMEM)", data_label(h, label, sizeof(label)), size,
		 node, n->name, used, n->total, why, rest);
	return -ENOMEM;
}

/* quiet: a failure is no error of its own (eviction trying a write-back). */
static int allocate_replicate(starpu_data_handle_t h, unsigned node, int quiet)
{
	struct data_replicate *r = data_rep(h, node);
	while (r->allocating)
		os_cond_wait(&h->busy_cond, &h->lock);
	if (r->allocated)
		return 0;
	size_t size = alloc_size_of(h);
	struct memory_node *n = &mem_nodes[node];
	if (n->total >= 0 && (ssize_t) size > n->total)
	{
		char label[96];
		if (!quiet)
			rt_error("data %s (%zu bytes) can never fit in memory node %u (%s), whose limit is %zd bytes (-ENOMEM)",
				 data_label(h, label, sizeof(label)), size, node, n->name, n->total);
		return -ENOMEM;
	}
	if (!h->ops->allocate_data_on_node)
	{
		rt_error("data %p: its interface '%s' cannot allocate memory on node %u (-ENODEV)",
			 (void *) h, h->ops->name ? h->ops->name : "?", node);
		return -ENODEV;
	}

	os_mutex_lock(&n->lock);
	int cached = cache_take_locked(n, h, r, size);
	os_mutex_unlock(&n->lock);
	starpu_ssize_t got = cached ? (starpu_ssize_t) size : h->ops->allocate_data_on_node(r->interface, node);
	if (got < 0)
	{
		/* Make room without holding our lock: eviction tries other
		 * handles' locks, and may write data back to another node. */
		r->allocating = 1;
		os_mutex_unlock(&h->lock);
		unsigned gen = atomic_load(&n->releases);
		ssize_t freed = reclaim(node, (ssize_t) size);
		os_mutex_lock(&n->lock);
		cached = cache_take_locked(n, h, r, size);
		if (!cached)
			mem_cache_flush_locked(node, (ssize_t) size);	/* evicted buffers of other shapes */
		os_mutex_unlock(&n->lock);
		os_mutex_lock(&h->lock);
		r->allocating = 0;
		os_cond_broadcast(&h->busy_cond);
		got = cached ? (starpu_ssize_t) size : h->ops->allocate_data_on_node(r->interface, node);
		if (got < 0)
			return no_room(h, h, node, size, freed, gen, quiet);
	}
	r->allocated = 1;
	r->allocated_by_runtime = 1;
	r->state = REP_INVALID;
	r->alloc_size = got > 0 ? (size_t) got : size;
	data_lru_touch(r);
	data_lookup_note_alloc(h, node);
	return 0;
}

int data_allocate_replicate_quiet(starpu_data_handle_t h, unsigned node)
{
	return allocate_replicate(h, node, 1);
}

int data_allocate_replicate(starpu_data_handle_t h, unsigned node)
{
	return allocate_replicate(h, node, 0);
}

static int allocate_private(starpu_data_handle_t h, void *iface, unsigned node, int quiet)
{
	size_t size = alloc_size_of(h);
	struct memory_node *n = &mem_nodes[node];
	if (n->total >= 0 && (ssize_t) size > n->total)
	{
		char label[96];
		if (!quiet)
			rt_error("data %s (%zu bytes) can never fit in memory node %u (%s), whose limit is %zd bytes (-ENOMEM)",
				 data_label(h, label, sizeof(label)), size, node, n->name, n->total);
		return -ENOMEM;
	}
	if (h->ops->allocate_data_on_node(iface, node) < 0)
	{
		unsigned gen = atomic_load(&n->releases);
		ssize_t freed = reclaim(node, (ssize_t) size);
		if (h->ops->allocate_data_on_node(iface, node) < 0)
			return no_room(NULL, h, node, size, freed, gen, quiet);
	}
	atomic_fetch_add(&n->private_bytes, (ssize_t) size);
	return 0;
}

int data_allocate_private(starpu_data_handle_t h, void *iface, unsigned node)
{
	return allocate_private(h, iface, node, 0);
}

int data_allocate_private_quiet(starpu_data_handle_t h, void *iface, unsigned node)
{
	return allocate_private(h, iface, node, 1);
}

void data_free_private(starpu_data_handle_t h, void *iface, unsigned node)
{
	if (h->ops->free_data_on_node)
		h->ops->free_data_on_node(iface, node);
	data_memory_releasing(node);
	atomic_fetch_sub(&mem_nodes[node].private_bytes, (ssize_t) alloc_size_of(h));
	data_memory_released(node);
}

void data_wait_memory(unsigned node)
{
	struct memory_node *n = &mem_nodes[node];
	os_mutex_lock(&n->lock);
	n->nwaiting++;
	/* Bounded: a release may come from a path that does not signal
	 * (another node's eviction making a write-back possible). */
	os_cond_timedwait(&n->released, &n->lock, os_now_us() + 10000);
	n->nwaiting--;
	os_mutex_unlock(&n->lock);
}

void data_memory_turn_take(unsigned node)
{
	struct memory_node *n = &mem_nodes[node];
	os_mutex_lock(&n->lock);
	n->nwaiting++;
	while (n->turn_taken)
		os_cond_timedwait(&n->released, &n->lock, os_now_us() + 10000);
	n->turn_taken = 1;
	n->nwaiting--;
	os_mutex_unlock(&n->lock);
}

void data_memory_turn_give(unsigned node)
{
	struct memory_node *n = &mem_nodes[node];
	os_mutex_lock(&n->lock);
	n->turn_taken = 0;
	if (n->nwaiting)
		os_cond_broadcast(&n->released);
	os_mutex_unlock(&n->lock);
}

void data_memory_releasing(unsigned node)
{
	atomic_fetch_add_explicit(&mem_nodes[node].releases, 1, memory_order_relaxed);
}

void data_memory_released(unsigned node)
{
	struct memory_node *n = &mem_nodes[node];
	if (!atomic_load_explicit(&n->nwaiting, memory_order_relaxed))
		return;
	os_mutex_lock(&n->lock);
	if (n->nwaiting)
		os_cond_broadcast(&n->released);
	os_mutex_unlock(&n->lock);
}

void starpu_memchunk_tidy(unsigned memory_node)
{
	if (memory_node >= mem_nnodes)
		return;
	struct memory_node *n = &mem_nodes[memory_node];
	os_mutex_lock(&n->lock);
	mem_cache_flush_locked(memory_node, -1);
	os_mutex_unlock(&n->lock);
}
