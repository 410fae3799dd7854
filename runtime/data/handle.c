/* handle.c — registering and unregistering data, and the per-handle
 * settings (name, user data, sequential consistency, reduction methods).
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static _Atomic unsigned default_seq_consistency = 1;
static _Atomic int next_interface_id = STARPU_MAX_INTERFACE_ID;

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
	struct starpu_data_state *h = calloc(1, sizeof(*h));
	if (!h)
	{
		rt_error("starpu_data_register: out of memory");
		return;
	}
	os_mutex_init(&h->lock);
	os_cond_init(&h->busy_cond);
	h->ops = ops;
	h->home_node = home_node;
	h->seq_consistency = atomic_load(&default_seq_consistency);
	for (unsigned node = 0; node < mem_nnodes; node++)
	{
		h->rep[node].interface = calloc(1, ops->interface_size);
		if (!h->rep[node].interface)
		{
			rt_error("starpu_data_register: out of memory");
			for (unsigned k = 0; k < node; k++)
				free(h->rep[k].interface);
			free(h);
			return;
		}
	}
	h->magic = DATA_MAGIC;
	/* With home_node -1, (unsigned) -1 matches no node: every replicate
	 * gets the shape of data_interface but no buffer. */
	ops->register_data_handle(h, (unsigned) home_node, data_interface);
	if (home_node >= 0)
	{
		h->rep[home_node].allocated = 1;
		h->rep[home_node].state = REP_OWNER;
	}
	else
	{
		/* No data yet: the buffers describe nothing until allocated. */
		for (unsigned node = 0; node < mem_nnodes; node++)
			h->rep[node].allocated = 0;
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
	data_register_common(handledst, -1, handlesrc->rep[template_node].interface, handlesrc->ops);
}

static void handle_free(starpu_data_handle_t h)
{
	for (unsigned node = 0; node < mem_nnodes; node++)
	{
		struct data_replicate *r = &h->rep[node];
		if (r->allocated && r->allocated_by_runtime && h->ops->free_data_on_node)
			h->ops->free_data_on_node(r->interface, node);
		free(r->interface);
	}
	if (h->ops->unregister_data_handle)
		h->ops->unregister_data_handle(h);
	h->magic = 0;
	free(h->name);
	os_cond_destroy(&h->busy_cond);
	os_mutex_destroy(&h->lock);
	free(h);
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
	return 0;
}

static void unregister(starpu_data_handle_t h, const char *fn)
{
	if (unregister_checks(h, fn))
		return;
	if (rt_may_not_block(fn))
		return;
	/* Wait for the tasks submitted before (sequential consistency), then
	 * for any others still using it. */
	if (h->seq_consistency && starpu_data_acquire(h, STARPU_RW) == 0)
		starpu_data_release(h);
	os_mutex_lock(&h->lock);
	h->unregister_waiting = 1;
	while (h->nrefs > 0)
		os_cond_wait(&h->busy_cond, &h->lock);
	if (h->acquisitions)
	{
		os_mutex_unlock(&h->lock);
		rt_error("%s: handle %p is still acquired by the application; release it first", fn, (void *) h);
		h->unregister_waiting = 0;
		return;
	}
	os_mutex_unlock(&h->lock);
	handle_free(h);
}

void starpu_data_unregister(starpu_data_handle_t handle)
{
	unregister(handle, "starpu_data_unregister");
}

void starpu_data_unregister_no_coherency(starpu_data_handle_t handle)
{
	unregister(handle, "starpu_data_unregister_no_coherency");
}

/* Asynchronous unregistration: once the tasks submitted before are done,
 * the handle is freed as soon as nothing uses it any more. */
static void unregister_when_acquired(void *arg)
{
	starpu_data_handle_t h = arg;
	os_mutex_lock(&h->lock);
	h->unregister_waiting = 2;	/* free on the last reference */
	os_mutex_unlock(&h->lock);
	starpu_data_release(h);
}

void starpu_data_unregister_submit(starpu_data_handle_t handle)
{
	if (unregister_checks(handle, "starpu_data_unregister_submit"))
		return;
	if (starpu_data_acquire_cb(handle, STARPU_RW, unregister_when_acquired, handle))
		rt_error("starpu_data_unregister_submit: could not schedule the unregistration of %p", (void *) handle);
}

/* Called by data_release_job with the handle unlocked, after the last
 * reference of a handle whose asynchronous unregistration is pending. */
void data_handle_free_deferred(starpu_data_handle_t h)
{
	handle_free(h);
}

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

void *starpu_data_get_interface_on_node(starpu_data_handle_t handle, unsigned memory_node)
{
	if (!handle || memory_node >= STARPU_MAXNODES)
		return NULL;
	return handle->rep[memory_node].interface;
}

void *starpu_data_handle_to_pointer(starpu_data_handle_t handle, unsigned node)
{
	if (!data_handle_valid(handle) || node >= mem_nnodes || !handle->rep[node].allocated)
		return NULL;
	if (handle->ops->to_pointer)
		return handle->ops->to_pointer(handle->rep[node].interface, node);
	if (handle->ops->handle_to_pointer)
		return handle->ops->handle_to_pointer(handle, node);
	return NULL;
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
