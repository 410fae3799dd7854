/* handle.c — registering and unregistering data, the lookup table, and
 * the per-handle settings; where the data is (queries, fetches,
 * prefetches, advice) is placement.c's.
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"
#include <vela_extension.h>
#include "core/workers.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static _Atomic unsigned default_seq_consistency = 1;
static _Atomic int next_interface_id = STARPU_MAX_INTERFACE_ID;

/* ------------------------------------------------------------------ */
/* starpu_data_lookup: home pointer -> handle, an open hash table. */

static os_mutex_t lookup_lock = OS_MUTEX_INITIALIZER;
static struct lookup_entry
{
	void *key;
	starpu_data_handle_t handle;
	struct lookup_entry *next;
} **lookup_table;
static unsigned lookup_size, lookup_count;

static void quarantine_flush(void);

static unsigned lookup_hash(const void *p, unsigned size)
{
	return (unsigned) ((((uintptr_t) p) * 0x9e3779b97f4a7c15ULL) >> 40) & (size - 1);
}

static void lookup_insert(void *key, starpu_data_handle_t h)
{
	struct lookup_entry *e = malloc(sizeof(*e));
	if (!e)
		return;	/* lookup is a convenience: the handle works without it */
	os_mutex_lock(&lookup_lock);
	if (lookup_count >= lookup_size)
	{
		unsigned size = lookup_size ? lookup_size * 2 : 256;
		struct lookup_entry **t = calloc(size, sizeof(*t));
		if (t)
		{
			for (unsigned i = 0; i < lookup_size; i++)
				while (lookup_table[i])
				{
					struct lookup_entry *x = lookup_table[i];
					lookup_table[i] = x->next;
					unsigned k = lookup_hash(x->key, size);
					x->next = t[k];
					t[k] = x;
				}
			free(lookup_table);
			lookup_table = t;
			lookup_size = size;
		}
	}
	if (!lookup_size)
	{
		os_mutex_unlock(&lookup_lock);
		free(e);
		return;
	}
	unsigned k = lookup_hash(key, lookup_size);
	e->key = key;
	e->handle = h;
	e->next = lookup_table[k];
	lookup_table[k] = e;
	lookup_count++;
	h->lookup_key = key;
	os_mutex_unlock(&lookup_lock);
}

static void lookup_remove(starpu_data_handle_t h)
{
	os_mutex_lock(&lookup_lock);
	if (!h->lookup_key)
	{
		os_mutex_unlock(&lookup_lock);
		return;
	}
	if (lookup_size)
		for (struct lookup_entry **pe = &lookup_table[lookup_hash(h->lookup_key, lookup_size)]; *pe; pe = &(*pe)->next)
			if ((*pe)->handle == h)
			{
				struct lookup_entry *e = *pe;
				*pe = e->next;
				free(e);
				lookup_count--;
				break;
			}
	h->lookup_key = NULL;
	os_mutex_unlock(&lookup_lock);
}

void data_lookup_note_alloc(starpu_data_handle_t h, unsigned node)
{
	if (h->lookup_key || !h->ops->to_pointer || mem_nodes[node].kind != STARPU_CPU_RAM)
		return;
	void *key = h->ops->to_pointer(data_rep(h, node)->interface, node);
	if (key)
		lookup_insert(key, h);
}

void data_lookup_note_free(starpu_data_handle_t h, unsigned node)
{
	if (!h->lookup_key || !h->ops->to_pointer || mem_nodes[node].kind != STARPU_CPU_RAM)
		return;
	if (h->ops->to_pointer(data_rep(h, node)->interface, node) == h->lookup_key)
		lookup_remove(h);
}

starpu_data_handle_t starpu_data_lookup(const void *ptr)
{
	starpu_data_handle_t h = NULL;
	os_mutex_lock(&lookup_lock);
	if (lookup_size)
		for (struct lookup_entry *e = lookup_table[lookup_hash(ptr, lookup_size)]; e; e = e->next)
			if (e->key == ptr)
			{
				h = e->handle;
				break;
			}
	os_mutex_unlock(&lookup_lock);
	return h;
}

void data_lookup_fini(void)
{
	os_mutex_lock(&lookup_lock);
	for (unsigned i = 0; i < lookup_size; i++)
		while (lookup_table[i])
		{
			struct lookup_entry *e = lookup_table[i];
			lookup_table[i] = e->next;
			free(e);
		}
	free(lookup_table);
	lookup_table = NULL;
	lookup_size = lookup_count = 0;
	os_mutex_unlock(&lookup_lock);
	quarantine_flush();
}

/* ------------------------------------------------------------------ */
/* Registration. */

/* Registration numbers (struct starpu_data_state.order). */
static _Atomic uint64_t handles_registered;

/* Interfaces are laid out after the replicates, each aligned as malloc
 * would align it. */
static size_t align_max(size_t bytes)
{
	return (bytes + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
}

starpu_data_handle_t data_handle_new(struct starpu_data_interface_ops *ops, int home_node)
{
	/* One block: the handle, a replicate per existing node, their
	 * interfaces and the spare interface (data.h). */
	unsigned nrep = __atomic_load_n(&mem_nnodes, __ATOMIC_ACQUIRE);
	size_t stride = align_max(ops->interface_size);
	size_t head = align_max(sizeof(struct starpu_data_state) + nrep * sizeof(struct data_replicate));
	struct starpu_data_state *h = calloc(1, head + (nrep + 1) * stride);
	if (!h)
		return NULL;
	h->order = atomic_fetch_add(&handles_registered, 1) + 1;
	os_mutex_init(&h->lock);
	os_cond_init(&h->busy_cond);
	h->ops = ops;
	h->home_node = home_node;
	h->seq_undefined = home_node < 0;
	h->seq_consistency = atomic_load(&default_seq_consistency);
	h->ooc = 1;
	h->important = 1;
	h->nrep = nrep;
	char *ifaces = (char *) h + head;
	for (unsigned node = 0; node < nrep; node++)
	{
		h->rep[node].handle = h;
		h->rep[node].node = node;
		h->rep[node].interface = ifaces + node * stride;
	}
	h->iface_spare = ifaces + nrep * stride;
	h->magic = DATA_MAGIC;
	return h;
}

/* The live handles (data.h): a leaf lock, nothing taken under it but
 * malloc. */
static os_mutex_t live_lock = OS_MUTEX_INITIALIZER;
static struct starpu_data_state *live_head;

/* Gives h the replicates of the nodes from h->nrep to STARPU_MAXNODES (live
 * lock held, or h not yet visible). 0 or -ENOMEM. */
static int handle_grow(struct starpu_data_state *h)
{
	if (h->late)
		return 0;
	unsigned n = STARPU_MAXNODES - h->nrep;
	size_t stride = align_max(h->ops->interface_size);
	size_t head = align_max(n * sizeof(struct data_replicate));
	struct data_replicate *late = calloc(1, head + n * stride);
	if (!late)
		return -ENOMEM;
	char *ifaces = (char *) late + head;
	for (unsigned i = 0; i < n; i++)
	{
		late[i].handle = h;
		late[i].node = h->nrep + i;
		late[i].interface = ifaces + i * stride;
		memcpy(late[i].interface, h->iface_spare, h->ops->interface_size);
	}
	/* Release: handle_iface reads it without the live lock. */
	__atomic_store_n(&h->late, late, __ATOMIC_RELEASE);
	return 0;
}

int data_handle_publish(starpu_data_handle_t h)
{
	os_mutex_lock(&live_lock);
	/* A disk added since data_handle_new: this handle was not listed. */
	int ret = __atomic_load_n(&mem_nnodes, __ATOMIC_ACQUIRE) > h->nrep ? handle_grow(h) : 0;
	if (ret == 0)
	{
		h->all_next = live_head;
		if (live_head)
			live_head->all_prev = h;
		live_head = h;
		h->listed = 1;
	}
	os_mutex_unlock(&live_lock);
	return ret;
}

int data_handles_grow(unsigned node)
{
	os_mutex_lock(&live_lock);
	for (struct starpu_data_state *h = live_head; h; h = h->all_next)
		if (node >= h->nrep && handle_grow(h))
		{
			os_mutex_unlock(&live_lock);
			return -ENOMEM;
		}
	return 0;
}

void data_handles_unlock(void)
{
	os_mutex_unlock(&live_lock);
}

static void handle_unlist(struct starpu_data_state *h)
{
	if (!h->listed)
		return;
	os_mutex_lock(&live_lock);
	if (h->all_prev)
		h->all_prev->all_next = h->all_next;
	else
		live_head = h->all_next;
	if (h->all_next)
		h->all_next->all_prev = h->all_prev;
	h->listed = 0;
	os_mutex_unlock(&live_lock);
}

void data_register_common(starpu_data_handle_t *handleptr, int home_node, void *data_interface, struct starpu_data_interface_ops *ops)
{
	if (!handleptr)
	{
		rt_error("starpu_data_register: the handle pointer is NULL");
		return;
	}
	*handleptr = NULL;
	if (!rt_is_up())
	{
		rt_error("starpu_data_register: the runtime is not initialised (call starpu_init first)");
		return;
	}
	if (!ops || !ops->register_data_handle || !ops->interface_size)
	{
		rt_error("starpu_data_register: the interface ops are incomplete (register_data_handle and interface_size are required)");
		return;
	}
	if (home_node < -1 || home_node >= (int) mem_nnodes)
	{
		rt_error("starpu_data_register: home node %d does not exist (nodes 0..%u, or -1)", home_node, mem_nnodes - 1);
		return;
	}
	starpu_data_handle_t h = data_handle_new(ops, home_node);
	if (!h)
	{
		rt_error("starpu_data_register: out of memory");
		return;
	}
	/* With home_node -1, (unsigned) -1 matches no node: every replicate
	 * gets the shape of data_interface but no buffer. */
	ops->register_data_handle(h, (unsigned) home_node, data_interface);
	if (data_handle_publish(h))
	{
		rt_error("starpu_data_register: out of memory");
		data_handle_free(h);
		return;
	}
	if (home_node >= 0)
	{
		struct data_replicate *home = data_rep(h, (unsigned) home_node);
		home->allocated = 1;
		home->state = REP_OWNER;
		void *key = ops->to_pointer ? ops->to_pointer(home->interface, (unsigned) home_node) : NULL;
		if (key && mem_nodes[home_node].kind == STARPU_CPU_RAM)
			lookup_insert(key, h);
	}
	*handleptr = h;
}

void starpu_data_register(starpu_data_handle_t *handleptr, int home_node, void *data_interface, struct starpu_data_interface_ops *ops)
{
	data_register_common(handleptr, home_node, data_interface, ops);
}

void starpu_data_register_same(starpu_data_handle_t *handledst, starpu_data_handle_t handlesrc)
{
	if (!data_handle_valid(handlesrc))
	{
		rt_error("starpu_data_register_same: the source handle is not registered");
		if (handledst)
			*handledst = NULL;
		return;
	}
	/* Same shape, no data: the new handle is allocated on first write. */
	int template_node = handlesrc->home_node >= 0 ? handlesrc->home_node : 0;
	data_register_common(handledst, -1, data_rep(handlesrc, (unsigned) template_node)->interface, handlesrc->ops);
}

int data_ptr_register(starpu_data_handle_t handle, unsigned node, const char *fn)
{
	if (!data_handle_valid(handle) || node >= mem_nnodes)
	{
		rt_error("%s: invalid handle %p or node %u (-EINVAL)", fn, (void *) handle, node);
		return -EINVAL;
	}
	os_mutex_lock(&handle->lock);
	struct data_replicate *r = data_rep(handle, node);
	int ret = 0;
	if (r->allocated)
	{
		rt_error("%s: handle %p already has a buffer on node %u (-EEXIST)", fn, (void *) handle, node);
		ret = -EEXIST;
	}
	else
	{
		/* The application gives the buffer: it is ours to use, not to
		 * free or evict. Its content is not the data's (yet). */
		r->allocated = 1;
		r->allocated_by_runtime = 0;
		r->state = REP_INVALID;
	}
	os_mutex_unlock(&handle->lock);
	return ret;
}

void starpu_data_ptr_register(starpu_data_handle_t handle, unsigned node)
{
	data_ptr_register(handle, node, "starpu_data_ptr_register");
}

/* ------------------------------------------------------------------ */
/* Unregistration. */

/* Freed handles stay allocated, marked unregistered, for a while: using a
 * handle after unregistering it (twice, in a task) is then reported instead
 * of reading freed memory. */
#define QUARANTINE 512
static os_mutex_t quarantine_lock = OS_MUTEX_INITIALIZER;
static struct starpu_data_state *quarantine[QUARANTINE];
static unsigned quarantine_next;

static void quarantine_put(starpu_data_handle_t h)
{
	os_mutex_lock(&quarantine_lock);
	struct starpu_data_state *old = quarantine[quarantine_next];
	quarantine[quarantine_next] = h;
	quarantine_next = (quarantine_next + 1) % QUARANTINE;
	os_mutex_unlock(&quarantine_lock);
	free(old);
}

static void quarantine_flush(void)
{
	os_mutex_lock(&quarantine_lock);
	for (unsigned i = 0; i < QUARANTINE; i++)
	{
		free(quarantine[i]);
		quarantine[i] = NULL;
	}
	os_mutex_unlock(&quarantine_lock);
}

void data_handle_free(starpu_data_handle_t h)
{
	/* Before anything goes: the hook may still look at the handle. */
	if (h->unregister_hook)
		h->unregister_hook(h);
	handle_unlist(h);
	if (h->parent)
		data_child_gone(h);
	lookup_remove(h);
	arbiter_forget_handle(h);
	data_redux_free(h);
	data_implicit_free(h);
	os_mutex_lock(&h->lock);
	/* A handle that failed to publish may lack a late node's replicate
	 * (it has no buffer there). */
	unsigned nnodes = h->late ? mem_nnodes : STARPU_MIN(mem_nnodes, h->nrep);
	for (unsigned node = 0; node < nnodes; node++)
	{
		struct data_replicate *r = data_rep(h, node);
		if (r->allocated && r->allocated_by_runtime)
			data_free_replicate(h, node);
		else if (r->in_lru)
			data_lru_remove(r);
	}
	os_mutex_unlock(&h->lock);
	if (h->ops->unregister_data_handle)
		h->ops->unregister_data_handle(h);
	h->magic = 0;
	free(h->late);
	h->late = NULL;
	free(h->name);
	free(h->children);
	os_cond_destroy(&h->busy_cond);
	os_mutex_destroy(&h->lock);
	quarantine_put(h);
}

int data_unref_locked(starpu_data_handle_t h)
{
	if (--h->nrefs)
		return 0;
	if (h->unregister_waiting == 2)
		return 1;
	if (h->unregister_waiting)
		os_cond_broadcast(&h->busy_cond);
	return 0;
}

const char *data_label(starpu_data_handle_t h, char *buf, size_t size)
{
	if (h && h->name)
		snprintf(buf, size, "'%s' (%p)", h->name, (void *) h);
	else
		snprintf(buf, size, "%p", (void *) h);
	return buf;
}

void data_handle_free_deferred(starpu_data_handle_t h)
{
	data_handle_free(h);
}

static int unregister_checks(starpu_data_handle_t h, const char *fn)
{
	if (!h)
	{
		rt_error("%s: handle is NULL", fn);
		return -EINVAL;
	}
	if (!data_handle_valid(h))
	{
		rt_error("%s: handle %p is not registered (unregistered twice?)", fn, (void *) h);
		return -EINVAL;
	}
	if (h->partitioned || h->active_plans)
	{
		rt_error("%s: handle %p is partitioned; unpartition it first (-EBUSY)", fn, (void *) h);
		return -EBUSY;
	}
	/* Held by a blocking acquisition, the data would never come free;
	 * one made with starpu_data_acquire_cb (the MPI layer's, for one) is
	 * released by whoever holds it, and waited for below. */
	os_mutex_lock(&h->lock);
	int acquired = data_blocking_acquisition_locked(h);
	os_mutex_unlock(&h->lock);
	if (acquired)
	{
		rt_error("%s: handle %p is still acquired by the application; release it first (-EBUSY)", fn, (void *) h);
		return -EBUSY;
	}
	if (h->parent && !h->cleaning)
	{
		rt_error("%s: handle %p is a piece of handle %p: it goes with starpu_data_unpartition or starpu_data_partition_clean (-EINVAL)",
			 fn, (void *) h, (void *) h->parent);
		return -EINVAL;
	}
	return 0;
}

static void unregister(starpu_data_handle_t h, int coherency, const char *fn)
{
	if (unregister_checks(h, fn))
		return;
	if (rt_may_not_block(fn))
		return;
	data_plans_clean_all(h, 1);
	/* Wait for the tasks submitted before (sequential consistency; this
	 * also folds pending reductions), then for any others still using it. */
	if (h->seq_consistency && starpu_data_acquire_on_node(h, STARPU_ACQUIRE_NO_NODE, STARPU_RW) == 0)
		starpu_data_release_on_node(h, STARPU_ACQUIRE_NO_NODE);
	os_mutex_lock(&h->lock);
	h->unregister_waiting = 1;
	while (h->nrefs > 0)
		data_wait_busy_locked(h);	/* ends its copies in flight, if any */
	if (h->acquisitions)
	{
		h->unregister_waiting = 0;
		os_mutex_unlock(&h->lock);
		rt_error("%s: handle %p is still acquired by the application; release it first", fn, (void *) h);
		return;
	}
	os_mutex_unlock(&h->lock);
	if (coherency)
	{
		int ret = data_write_back_home(h);
		if (ret)
			rt_error("%s: handle %p could not be written back to its home node %d (%d)", fn, (void *) h, h->home_node, ret);
	}
	data_handle_free(h);
}

void starpu_data_unregister(starpu_data_handle_t handle)
{
	unregister(handle, 1, "starpu_data_unregister");
}

void starpu_data_unregister_no_coherency(starpu_data_handle_t handle)
{
	unregister(handle, 0, "starpu_data_unregister_no_coherency");
}

/* Asynchronous unregistration: once the tasks submitted before are done,
 * the data goes home and the handle is freed as soon as nothing uses it. */
static void unregister_when_acquired(void *arg)
{
	starpu_data_handle_t h = arg;
	data_write_back_home(h);
	os_mutex_lock(&h->lock);
	h->unregister_waiting = 2;	/* free on the last reference */
	os_mutex_unlock(&h->lock);
	starpu_data_release_on_node(h, STARPU_ACQUIRE_NO_NODE);
}

void starpu_data_unregister_submit(starpu_data_handle_t handle)
{
	if (unregister_checks(handle, "starpu_data_unregister_submit"))
		return;
	data_plans_clean_all(handle, 0);
	if (starpu_data_acquire_on_node_cb(handle, STARPU_ACQUIRE_NO_NODE, STARPU_RW, unregister_when_acquired, handle))
		rt_error("starpu_data_unregister_submit: could not schedule the unregistration of %p", (void *) handle);
}

/* ------------------------------------------------------------------ */
/* Invalidation. */

/* What is submitted from now on finds nothing written (a reduction
 * starts from init_cl). */
static void mark_undefined(starpu_data_handle_t h)
{
	os_mutex_lock(&h->lock);
	h->seq_undefined = 1;
	os_mutex_unlock(&h->lock);
}

static void invalidate_now(starpu_data_handle_t h)
{
	os_mutex_lock(&h->lock);
	for (unsigned node = 0; node < mem_nnodes; node++)
	{
		struct data_replicate *r = data_rep(h, node);
		if (r->transferring)
			r->stale = 1;
		r->state = REP_INVALID;
		if (r->allocated && r->allocated_by_runtime && !r->refcnt && !r->transferring)
			data_free_replicate(h, node);
	}
	os_mutex_unlock(&h->lock);
	data_redux_free(h);
}

void starpu_data_invalidate(starpu_data_handle_t handle)
{
	if (!data_handle_valid(handle))
	{
		rt_error("starpu_data_invalidate: handle %p is not registered", (void *) handle);
		return;
	}
	if (rt_may_not_block("starpu_data_invalidate"))
		return;
	/* After the tasks submitted before. */
	if (data_held_by_caller(handle, STARPU_W, "starpu_data_invalidate"))
		return;
	if (starpu_data_acquire_on_node(handle, STARPU_ACQUIRE_NO_NODE, STARPU_W) == 0)
	{
		invalidate_now(handle);
		mark_undefined(handle);
		starpu_data_release_on_node(handle, STARPU_ACQUIRE_NO_NODE);
	}
}

static void invalidate_when_acquired(void *arg)
{
	starpu_data_handle_t h = arg;
	invalidate_now(h);
	starpu_data_release_on_node(h, STARPU_ACQUIRE_NO_NODE);
}

void starpu_data_invalidate_submit(starpu_data_handle_t handle)
{
	if (!data_handle_valid(handle))
	{
		rt_error("starpu_data_invalidate_submit: handle %p is not registered", (void *) handle);
		return;
	}
	if (starpu_data_acquire_on_node_cb(handle, STARPU_ACQUIRE_NO_NODE, STARPU_W, invalidate_when_acquired, handle) == 0)
		mark_undefined(handle);	/* for what is submitted after */
}

/* ------------------------------------------------------------------ */
/* Settings. */

void starpu_data_set_name(starpu_data_handle_t handle, const char *name)
{
	if (!data_handle_valid(handle))
		return;
	char *copy = name ? strdup(name) : NULL;
	os_mutex_lock(&handle->lock);
	free(handle->name);
	handle->name = copy;
	os_mutex_unlock(&handle->lock);
}

void starpu_data_set_coordinates_array(starpu_data_handle_t handle, unsigned dimensions, int dims[])
{
	if (!data_handle_valid(handle))
		return;
	if (dimensions > 4)
		dimensions = 4;
	handle->ndims = (int) dimensions;
	for (unsigned i = 0; i < dimensions; i++)
		handle->coords[i] = dims[i];
}

void starpu_data_set_coordinates(starpu_data_handle_t handle, unsigned dimensions, ...)
{
	int dims[4] = { 0 };
	va_list ap;
	va_start(ap, dimensions);
	for (unsigned i = 0; i < dimensions && i < 4; i++)
		dims[i] = va_arg(ap, int);
	va_end(ap);
	starpu_data_set_coordinates_array(handle, dimensions, dims);
}

unsigned starpu_data_get_coordinates_array(starpu_data_handle_t handle, unsigned dimensions, int dims[])
{
	if (!data_handle_valid(handle))
		return 0;
	unsigned n = (unsigned) handle->ndims < dimensions ? (unsigned) handle->ndims : dimensions;
	for (unsigned i = 0; i < n; i++)
		dims[i] = handle->coords[i];
	return (unsigned) handle->ndims;
}

void starpu_data_set_sequential_consistency_flag(starpu_data_handle_t handle, unsigned flag)
{
	if (!data_handle_valid(handle))
	{
		rt_error("starpu_data_set_sequential_consistency_flag: handle %p is not registered", (void *) handle);
		return;
	}
	os_mutex_lock(&handle->lock);
	handle->seq_consistency = flag ? 1 : 0;
	os_mutex_unlock(&handle->lock);
}

unsigned starpu_data_get_sequential_consistency_flag(starpu_data_handle_t handle)
{
	return data_handle_valid(handle) ? handle->seq_consistency : 0;
}

unsigned starpu_data_get_default_sequential_consistency_flag(void)
{
	return atomic_load(&default_seq_consistency);
}

void starpu_data_set_default_sequential_consistency_flag(unsigned flag)
{
	atomic_store(&default_seq_consistency, flag ? 1 : 0);
}

void starpu_data_set_reduction_methods(starpu_data_handle_t handle, struct starpu_codelet *redux_cl, struct starpu_codelet *init_cl)
{
	if (!data_handle_valid(handle))
	{
		rt_error("starpu_data_set_reduction_methods: handle %p is not registered", (void *) handle);
		return;
	}
	os_mutex_lock(&handle->lock);
	handle->redux_cl = redux_cl;
	handle->init_cl = init_cl;
	os_mutex_unlock(&handle->lock);
}

void vela_data_get_reduction_methods(starpu_data_handle_t handle, struct starpu_codelet **redux_cl, struct starpu_codelet **init_cl)
{
	struct starpu_codelet *redux = NULL, *init = NULL;
	if (data_handle_valid(handle))
	{
		os_mutex_lock(&handle->lock);
		redux = handle->redux_cl;
		init = handle->init_cl;
		os_mutex_unlock(&handle->lock);
	}
	if (redux_cl)
		*redux_cl = redux;
	if (init_cl)
		*init_cl = init;
}

void vela_data_set_unregister_hook(starpu_data_handle_t handle, void (*hook)(starpu_data_handle_t handle))
{
	if (!data_handle_valid(handle))
	{
		rt_error("vela_data_set_unregister_hook: handle %p is not registered", (void *) handle);
		return;
	}
	os_mutex_lock(&handle->lock);
	handle->unregister_hook = hook;
	os_mutex_unlock(&handle->lock);
}

void *vela_data_layer_area(starpu_data_handle_t handle)
{
	return data_handle_valid(handle) ? handle->layer_area : NULL;
}

struct starpu_data_interface_ops *starpu_data_get_interface_ops(starpu_data_handle_t handle)
{
	return data_handle_valid(handle) ? handle->ops : NULL;
}

void starpu_data_set_user_data(starpu_data_handle_t handle, void *user_data)
{
	if (data_handle_valid(handle))
		handle->user_data = user_data;
}

void *starpu_data_get_user_data(starpu_data_handle_t handle)
{
	return data_handle_valid(handle) ? handle->user_data : NULL;
}

/* The interface of node (< STARPU_MAXNODES): its replicate's, or the spare
 * one for a node that does not exist (yet): register and unregister
 * callbacks walk all STARPU_MAXNODES. */
static void *handle_iface(starpu_data_handle_t h, unsigned node)
{
	if (node < h->nrep)
		return h->rep[node].interface;
	struct data_replicate *late = __atomic_load_n(&h->late, __ATOMIC_ACQUIRE);
	return late ? late[node - h->nrep].interface : h->iface_spare;
}

void *starpu_data_get_interface_on_node(starpu_data_handle_t handle, unsigned memory_node)
{
	if (!data_handle_valid(handle) || memory_node >= STARPU_MAXNODES)
		return NULL;
	return handle_iface(handle, memory_node);
}

void *data_accessor_iface(starpu_data_handle_t handle, unsigned node)
{
	/* Big enough and aligned for any standard interface; all zeros, so a
	 * stale handle reads as empty data instead of crashing. */
	static _Alignas(64) const char dead[512];
	if (data_handle_valid(handle) && node < STARPU_MAXNODES)
		return handle_iface(handle, node);
	rt_error("data accessor: handle %p is not registered (used after starpu_data_unregister?)", (void *) handle);
	return (void *) dead;
}

void *starpu_data_handle_to_pointer(starpu_data_handle_t handle, unsigned node)
{
	if (!data_handle_valid(handle) || node >= mem_nnodes)
		return NULL;
	struct data_replicate *r = data_rep(handle, node);
	if (!r->allocated)
		return NULL;
	if (handle->ops->to_pointer)
		return handle->ops->to_pointer(r->interface, node);
	if (handle->ops->handle_to_pointer)
		return handle->ops->handle_to_pointer(handle, node);
	return NULL;
}

int starpu_data_pointer_is_inside(starpu_data_handle_t handle, unsigned node, void *ptr)
{
	if (!data_handle_valid(handle) || node >= mem_nnodes || !handle->ops->pointer_is_inside)
		return 0;
	return handle->ops->pointer_is_inside(data_rep(handle, node)->interface, node, ptr);
}

void *starpu_data_get_local_ptr(starpu_data_handle_t handle)
{
	return starpu_data_handle_to_pointer(handle, starpu_worker_get_local_memory_node());
}

enum starpu_data_interface_id starpu_data_get_interface_id(starpu_data_handle_t handle)
{
	return data_handle_valid(handle) ? handle->ops->interfaceid : STARPU_UNKNOWN_INTERFACE_ID;
}

size_t starpu_data_get_size(starpu_data_handle_t handle)
{
	return data_handle_valid(handle) && handle->ops->get_size ? handle->ops->get_size(handle) : 0;
}

size_t starpu_data_get_alloc_size(starpu_data_handle_t handle)
{
	if (!data_handle_valid(handle))
		return 0;
	if (handle->ops->get_alloc_size)
		return handle->ops->get_alloc_size(handle);
	return starpu_data_get_size(handle);
}

int starpu_data_get_home_node(starpu_data_handle_t handle)
{
	return data_handle_valid(handle) ? handle->home_node : -1;
}

int starpu_data_interface_get_next_id(void)
{
	return atomic_fetch_add(&next_interface_id, 1);
}

/* Packing is done on a RAM node where the data is valid (the caller holds
 * it, as StarPU requires: acquired, or inside a task). */
int starpu_data_pack(starpu_data_handle_t handle, void **ptr, starpu_ssize_t *count)
{
	if (!data_handle_valid(handle) || !handle->ops->pack_data)
		return -EINVAL;
	return handle->ops->pack_data(handle, starpu_worker_get_local_memory_node(), ptr, count);
}

int starpu_data_unpack(starpu_data_handle_t handle, void *ptr, size_t count)
{
	if (!data_handle_valid(handle) || !handle->ops->unpack_data)
		return -EINVAL;
	return handle->ops->unpack_data(handle, starpu_worker_get_local_memory_node(), ptr, count);
}
