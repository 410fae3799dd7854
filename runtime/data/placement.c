/* placement.c — where a handle's data is, and the application's say in
 * it: status queries, allocation requests, fetches and prefetches to a
 * node, wont_use, advice, write-through masks, the out-of-core flag. */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int check_node(starpu_data_handle_t h, int node, const char *fn)
{
	if (!data_handle_valid(h))
	{
		rt_error("%s: handle %p is not registered (-EINVAL)", fn, (void *) h);
		return -EINVAL;
	}
	if (node < 0 || (unsigned) node >= mem_nnodes)
	{
		rt_error("%s: memory node %d does not exist (-EINVAL)", fn, node);
		return -EINVAL;
	}
	return 0;
}

void starpu_data_query_status(starpu_data_handle_t handle, int memory_node, int *is_allocated, int *is_valid, int *is_requested)
{
	if (check_node(handle, memory_node, "starpu_data_query_status"))
	{
		if (is_allocated)
			*is_allocated = 0;
		if (is_valid)
			*is_valid = 0;
		if (is_requested)
			*is_requested = 0;
		return;
	}
	os_mutex_lock(&handle->lock);
	struct data_replicate *r = data_rep(handle, memory_node);
	if (is_allocated)
		*is_allocated = r->allocated;
	if (is_valid)
		*is_valid = rep_valid(r);
	if (is_requested)
		*is_requested = r->requested || r->transferring;
	os_mutex_unlock(&handle->lock);
}

unsigned starpu_data_is_on_node(starpu_data_handle_t handle, unsigned node)
{
	int valid = 0;
	starpu_data_query_status(handle, (int) node, NULL, &valid, NULL);
	return (unsigned) valid;
}

unsigned starpu_data_test_if_allocated_on_node(starpu_data_handle_t handle, unsigned memory_node)
{
	int allocated = 0;
	starpu_data_query_status(handle, (int) memory_node, &allocated, NULL, NULL);
	return (unsigned) allocated;
}

int starpu_data_request_allocation(starpu_data_handle_t handle, unsigned node)
{
	int ret = check_node(handle, (int) node, "starpu_data_request_allocation");
	if (ret)
		return ret;
	os_mutex_lock(&handle->lock);
	while ((ret = data_allocate_replicate(handle, node)) == -EAGAIN)
	{
		os_mutex_unlock(&handle->lock);
		data_wait_memory(node);
		os_mutex_lock(&handle->lock);
	}
	os_mutex_unlock(&handle->lock);
	return ret;
}

/* Fetching is an acquisition in R mode (after the tasks submitted before,
 * holding no node) during which the data is made valid on the node. */
static void fetch_now(starpu_data_handle_t h, unsigned node)
{
	int ret;
	os_mutex_lock(&h->lock);
	while ((ret = data_make_valid_locked_nopin(h, node)) == -EAGAIN)
	{
		os_mutex_unlock(&h->lock);
		data_wait_memory(node);
		os_mutex_lock(&h->lock);
	}
	if (!ret)
		data_lru_touch(data_rep(h, node));
	os_mutex_unlock(&h->lock);
	if (ret)
		rt_error("starpu_data_fetch_on_node: handle %p could not be brought to node %u (%d)", (void *) h, node, ret);
}

struct fetch_arg
{
	starpu_data_handle_t h;
	unsigned node;
};

static void fetch_when_acquired(void *arg)
{
	struct fetch_arg *a = arg;
	fetch_now(a->h, a->node);
	starpu_data_release_on_node(a->h, STARPU_ACQUIRE_NO_NODE);
	free(a);
}

static int fetch(starpu_data_handle_t h, unsigned node, unsigned async, const char *fn)
{
	int ret = check_node(h, (int) node, fn);
	if (ret)
		return ret;
	if (!async)
	{
		if (rt_may_not_block(fn))
			return -EDEADLK;
		if (data_held_by_caller(h, STARPU_R, fn))
			return -EDEADLK;
		ret = starpu_data_acquire_on_node(h, STARPU_ACQUIRE_NO_NODE, STARPU_R);
		if (ret)
			return ret;
		fetch_now(h, node);
		starpu_data_release_on_node(h, STARPU_ACQUIRE_NO_NODE);
		return 0;
	}
	struct fetch_arg *arg = malloc(sizeof(*arg));
	if (!arg)
		return -ENOMEM;
	arg->h = h;
	arg->node = node;
	ret = starpu_data_acquire_on_node_cb(h, STARPU_ACQUIRE_NO_NODE, STARPU_R, fetch_when_acquired, arg);
	if (ret)
		free(arg);
	return ret;
}

int starpu_data_fetch_on_node(starpu_data_handle_t handle, unsigned node, unsigned async)
{
	return fetch(handle, node, async, "starpu_data_fetch_on_node");
}

/* Asynchronous prefetches are queued (request.c); a synchronous one is a
 * fetch. The priority is not used: requests run in arrival order. */
static int prefetch(starpu_data_handle_t h, unsigned node, unsigned async, int idle, const char *fn)
{
	int ret = check_node(h, (int) node, fn);
	if (ret)
		return ret;
	return async ? data_prefetch(h, node, idle) : fetch(h, node, 0, fn);
}

int starpu_data_prefetch_on_node_prio(starpu_data_handle_t handle, unsigned node, unsigned async, int prio)
{
	(void) prio;
	return prefetch(handle, node, async, 0, "starpu_data_prefetch_on_node");
}

int starpu_data_prefetch_on_node(starpu_data_handle_t handle, unsigned node, unsigned async)
{
	return prefetch(handle, node, async, 0, "starpu_data_prefetch_on_node");
}

int starpu_data_idle_prefetch_on_node_prio(starpu_data_handle_t handle, unsigned node, unsigned async, int prio)
{
	(void) prio;
	return prefetch(handle, node, async, 1, "starpu_data_idle_prefetch_on_node");
}

int starpu_data_idle_prefetch_on_node(starpu_data_handle_t handle, unsigned node, unsigned async)
{
	return prefetch(handle, node, async, 1, "starpu_data_idle_prefetch_on_node");
}

void starpu_data_wont_use(starpu_data_handle_t handle)
{
	if (!data_handle_valid(handle))
	{
		rt_error("starpu_data_wont_use: handle %p is not registered", (void *) handle);
		return;
	}
	os_mutex_lock(&handle->lock);
	handle->wont_use = 1;
	/* First in line for eviction, on every node. */
	for (unsigned node = 0; node < mem_nnodes; node++)
	{
		struct data_replicate *r = data_rep(handle, node);
		if (r->in_lru)
			data_lru_touch(r);
	}
	os_mutex_unlock(&handle->lock);
	/* Write it home when idle, so that eviction is then free. */
	if (handle->home_node >= 0)
		data_prefetch(handle, (unsigned) handle->home_node, 1);
}

void starpu_data_advise_as_important(starpu_data_handle_t handle, unsigned is_important)
{
	if (!data_handle_valid(handle))
		return;
	os_mutex_lock(&handle->lock);
	handle->important = is_important ? 1 : 0;
	if (is_important)
		handle->wont_use = 0;
	os_mutex_unlock(&handle->lock);
}

void starpu_data_set_wt_mask(starpu_data_handle_t handle, uint32_t wt_mask)
{
	if (!data_handle_valid(handle))
	{
		rt_error("starpu_data_set_wt_mask: handle %p is not registered", (void *) handle);
		return;
	}
	os_mutex_lock(&handle->lock);
	handle->wt_mask = wt_mask;
	for (unsigned i = 0; i < handle->nchildren; i++)
		starpu_data_set_wt_mask(handle->children[i], wt_mask);
	os_mutex_unlock(&handle->lock);
}

void starpu_data_set_ooc_flag(starpu_data_handle_t handle, unsigned flag)
{
	if (data_handle_valid(handle))
		handle->ooc = flag ? 1 : 0;
}

unsigned starpu_data_get_ooc_flag(starpu_data_handle_t handle)
{
	return data_handle_valid(handle) ? handle->ooc : 0;
}

