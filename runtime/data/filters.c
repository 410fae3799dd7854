/* filters.c — cutting a handle into pieces, synchronously.
 *
 * A piece (child) is an ordinary handle whose home is its parent's "view
 * node" (the parent's home if that is a RAM node, else main RAM) and whose
 * buffer there is a view into the parent's buffer, filled by the filter.
 * On other nodes a piece has buffers of its own, like any handle, so tasks
 * on pieces move only their piece. While a piece exists it pins the
 * parent's view buffer (it cannot be evicted or freed under the views) and
 * holds a reference on the parent (the parent is not freed before it).
 *
 * starpu_data_partition() waits for the tasks using the parent, brings its
 * data to the view node and makes the pieces the owners of their parts;
 * until starpu_data_unpartition() the parent itself may not be used.
 * Unpartitioning waits for the pieces' tasks, brings every piece home
 * (into the parent's buffer) and frees them.
 *
 * The asynchronous variant, which orders these steps with tasks instead of
 * waiting, is in partition_plan.c.
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/rt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

unsigned data_view_node(starpu_data_handle_t h)
{
	if (h->home_node >= 0 && mem_nodes[h->home_node].kind == STARPU_CPU_RAM)
		return (unsigned) h->home_node;
	return STARPU_MAIN_RAM;
}

int data_check_not_partitioned(starpu_data_handle_t h, enum starpu_data_access_mode mode, const char *fn)
{
	int writes = (mode & (STARPU_W | STARPU_REDUX | STARPU_COMMUTE)) != 0;
	if (h->partitioned)
	{
		rt_error("%s: handle %p is partitioned (starpu_data_partition): use its pieces, or unpartition it first (-EINVAL)",
			 fn, (void *) h);
		return -EINVAL;
	}
	if (h->active_plans && (writes || !h->partition_readonly))
	{
		rt_error("%s: handle %p is partitioned (starpu_data_partition%s_submit): %s (-EINVAL)", fn, (void *) h,
			 h->partition_readonly ? "_readonly" : "",
			 h->partition_readonly ? "it may only be read until unpartitioned" : "use its pieces, or unpartition it first");
		return -EINVAL;
	}
	return data_check_piece(h, writes, fn);
}

int data_check_piece(starpu_data_handle_t h, int writes, const char *fn)
{
	starpu_data_handle_t p = h->parent;
	if (p && h->plan_id && !h->cleaning)
	{
		int state = data_piece_plan_state(h);
		if (!state)
		{
			rt_error("%s: handle %p is a piece of a partition plan of %p that is not submitted (call starpu_data_partition_submit first) (-EINVAL)",
				 fn, (void *) h, (void *) p);
			return -EINVAL;
		}
		if (state == 1 && writes)
		{
			rt_error("%s: handle %p is a piece of a read-only partition of %p: it may only be read (-EINVAL)",
				 fn, (void *) h, (void *) p);
			return -EINVAL;
		}
	}
	return 0;
}

/* Whether h holds data: a valid replicate somewhere (data registered with
 * no home has none until first written). */
static int has_data(starpu_data_handle_t h)
{
	int valid = 0;
	os_mutex_lock(&h->lock);
	for (unsigned n = 0; n < mem_nnodes && !valid; n++)
		valid = rep_valid(data_rep(h, n));
	os_mutex_unlock(&h->lock);
	return valid;
}

unsigned data_filter_nparts(starpu_data_handle_t h, struct starpu_data_filter *f, const char *fn)
{
	if (!f || !f->filter_func)
	{
		rt_error("%s: %s is NULL (-EINVAL)", fn, f ? "filter->filter_func" : "the filter");
		return 0;
	}
	unsigned n = f->get_nchildren ? f->get_nchildren(f, h) : f->nchildren;
	if (n == 0)
		rt_error("%s: the filter makes 0 pieces (set nchildren) (-EINVAL)", fn);
	return n;
}

int data_make_children(starpu_data_handle_t h, struct starpu_data_filter *f, unsigned nparts, unsigned plan_id,
		       starpu_data_handle_t *children, const char *fn)
{
	unsigned node = data_view_node(h);
	void *father = data_rep(h, node)->interface;
	char why[256];
	if (data_filter_validate(f, father, nparts, why, sizeof(why)))
	{
		rt_error("%s: %s (-EINVAL)", fn, why);
		return -EINVAL;
	}
	void *tmp = malloc(STARPU_MAX(h->ops->interface_size, 256u));
	if (!tmp)
		return -ENOMEM;
	unsigned made = 0;
	int ret = 0;
	for (; made < nparts; made++)
	{
		struct starpu_data_interface_ops *ops = f->get_child_ops ? f->get_child_ops(f, made) : h->ops;
		if (!ops || !ops->register_data_handle || !ops->interface_size)
		{
			rt_error("%s: the interface of piece %u is incomplete (-EINVAL)", fn, made);
			ret = -EINVAL;
			break;
		}
		if (ops->interface_size > STARPU_MAX(h->ops->interface_size, 256u))
		{
			void *bigger = realloc(tmp, ops->interface_size);
			if (!bigger)
			{
				ret = -ENOMEM;
				break;
			}
			tmp = bigger;
		}
		/* A filter of the same interface starts from the parent's
		 * description and changes what differs. */
		if (ops == h->ops)
			memcpy(tmp, father, ops->interface_size);
		else
			memset(tmp, 0, ops->interface_size);
		f->filter_func(father, tmp, f, made, nparts);

		starpu_data_handle_t c = data_handle_new(ops, (int) node);
		if (!c)
		{
			ret = -ENOMEM;
			break;
		}
		ops->register_data_handle(c, node, tmp);
		if (data_handle_publish(c))
		{
			data_handle_free(c);
			ret = -ENOMEM;
			break;
		}
		struct data_replicate *view = data_rep(c, node);
		view->allocated = 1;
		view->allocated_by_runtime = 0;
		view->state = REP_OWNER;
		c->parent = h;
		c->child_index = made;
		c->plan_id = plan_id;
		c->seq_consistency = h->seq_consistency;
		c->wt_mask = h->wt_mask;
		c->ooc = h->ooc;
		c->redux_cl = h->redux_cl;
		c->init_cl = h->init_cl;
		children[made] = c;
	}
	free(tmp);
	os_mutex_lock(&h->lock);
	data_rep(h, node)->refcnt += made;
	h->nrefs += made;
	os_mutex_unlock(&h->lock);
	if (ret)
	{
		for (unsigned i = 0; i < made; i++)
			data_handle_free(children[i]);
		if (ret == -ENOMEM)
			rt_error("%s: out of memory creating the pieces (-ENOMEM)", fn);
	}
	return ret;
}

void data_child_gone(starpu_data_handle_t c)
{
	starpu_data_handle_t h = c->parent;
	unsigned node = data_view_node(h);
	int free_parent = 0, released;
	os_mutex_lock(&h->lock);
	released = --data_rep(h, node)->refcnt == 0;
	if (released)
		data_memory_releasing(node);
	free_parent = data_unref_locked(h);
	os_mutex_unlock(&h->lock);
	if (released)
		data_memory_released(node);
	if (free_parent)
		data_handle_free_deferred(h);
}

void starpu_data_partition(starpu_data_handle_t initial_handle, struct starpu_data_filter *f)
{
	const char *fn = "starpu_data_partition";
	starpu_data_handle_t h = initial_handle;
	if (!data_handle_valid(h))
	{
		rt_error("%s: handle %p is not registered (-EINVAL)", fn, (void *) h);
		return;
	}
	if (h->partitioned || h->active_plans)
	{
		rt_error("%s: handle %p is already partitioned (-EINVAL)", fn, (void *) h);
		return;
	}
	unsigned nparts = data_filter_nparts(h, f, fn);
	if (!nparts || rt_may_not_block(fn))
		return;
	/* Hold the parent, up to date and pinned in its view buffer, while
	 * the pieces take over its parts. Data never written (registered
	 * with no home) only needs the buffer: the pieces will write it. */
	unsigned node = data_view_node(h);
	if (data_held_by_caller(h, STARPU_RW, fn) || starpu_data_acquire_on_node(h, STARPU_ACQUIRE_NO_NODE, STARPU_RW))
		return;
	int ret;
	enum starpu_data_access_mode mode = has_data(h) ? STARPU_RW : STARPU_W;
	while ((ret = data_make_valid(h, node, mode)) == -EAGAIN)
		data_wait_memory(node);
	if (ret)
	{
		rt_error("%s: handle %p could not be brought to memory node %u (%d)", fn, (void *) h, node, ret);
		starpu_data_release_on_node(h, STARPU_ACQUIRE_NO_NODE);
		return;
	}
	starpu_data_handle_t *children = calloc(nparts, sizeof(*children));
	if (!children)
		rt_error("%s: out of memory (-ENOMEM)", fn);
	else if (data_make_children(h, f, nparts, 0, children, fn))
	{
		free(children);
		children = NULL;
	}
	if (children)
	{
		os_mutex_lock(&h->lock);
		/* The pieces write into the view buffer: other copies of the
		 * parent are outdated from now on. */
		data_invalidate_others_locked(h, node);
		h->children = children;
		h->nchildren = nparts;
		h->partitioned = 1;
		os_mutex_unlock(&h->lock);
	}
	data_unpin(h, node, mode);
	starpu_data_release_on_node(h, STARPU_ACQUIRE_NO_NODE);
}

/* A piece of h, at any depth of synchronous partitions, that has a plan
 * submitted, or NULL: it must be gathered (asynchronously) before h can
 * be. */
static starpu_data_handle_t piece_with_plan(starpu_data_handle_t h)
{
	for (unsigned i = 0; i < h->nchildren; i++)
	{
		starpu_data_handle_t c = h->children[i], busy;
		if (c->active_plans)
			return c;
		if (c->partitioned && (busy = piece_with_plan(c)))
			return busy;
	}
	return NULL;
}

void starpu_data_unpartition(starpu_data_handle_t root_data, unsigned gathering_node)
{
	const char *fn = "starpu_data_unpartition";
	starpu_data_handle_t h = root_data;
	if (!data_handle_valid(h))
	{
		rt_error("%s: handle %p is not registered (-EINVAL)", fn, (void *) h);
		return;
	}
	if (!h->partitioned)
	{
		rt_error("%s: handle %p is not partitioned (-EINVAL)", fn, (void *) h);
		return;
	}
	if (gathering_node >= mem_nnodes && gathering_node != (unsigned) STARPU_ACQUIRE_NO_NODE)
	{
		rt_error("%s: gathering node %u does not exist (-EINVAL)", fn, gathering_node);
		return;
	}
	starpu_data_handle_t busy = piece_with_plan(h);
	if (busy)
	{
		rt_error("%s: piece %p of handle %p is partitioned by a plan: unpartition it first (starpu_data_unpartition_submit) (-EINVAL)",
			 fn, (void *) busy, (void *) h);
		return;
	}
	if (rt_may_not_block(fn))
		return;
	for (unsigned i = 0; i < h->nchildren; i++)
	{
		starpu_data_handle_t c = h->children[i];
		if (c->partitioned)
			starpu_data_unpartition(c, data_view_node(c));
		/* Waits for the piece's tasks and writes it home: into the
		 * parent's view buffer. */
		c->cleaning = 1;
		starpu_data_unregister(c);
	}
	os_mutex_lock(&h->lock);
	free(h->children);
	h->children = NULL;
	h->nchildren = 0;
	h->partitioned = 0;
	/* Copies made while partitioned (prefetches) are outdated. */
	data_invalidate_others_locked(h, data_view_node(h));
	os_mutex_unlock(&h->lock);
	if (gathering_node < mem_nnodes && gathering_node != data_view_node(h))
		starpu_data_fetch_on_node(h, gathering_node, 0);
}

starpu_data_handle_t starpu_data_get_child(starpu_data_handle_t handle, unsigned i)
{
	if (!data_handle_valid(handle) || !handle->partitioned)
	{
		rt_error("starpu_data_get_child: handle %p is not partitioned (-EINVAL)", (void *) handle);
		return NULL;
	}
	if (i >= handle->nchildren)
	{
		rt_error("starpu_data_get_child: piece %u of %u (-EINVAL)", i, handle->nchildren);
		return NULL;
	}
	return handle->children[i];
}

int starpu_data_get_nb_children(starpu_data_handle_t handle)
{
	return data_handle_valid(handle) && handle->partitioned ? (int) handle->nchildren : 0;
}

starpu_data_handle_t starpu_data_vget_sub_data(starpu_data_handle_t root_data, unsigned depth, va_list pa)
{
	starpu_data_handle_t h = root_data;
	for (unsigned d = 0; d < depth && h; d++)
		h = starpu_data_get_child(h, va_arg(pa, unsigned));
	return h;
}

starpu_data_handle_t starpu_data_get_sub_data(starpu_data_handle_t root_data, unsigned depth, ...)
{
	va_list pa;
	va_start(pa, depth);
	starpu_data_handle_t h = starpu_data_vget_sub_data(root_data, depth, pa);
	va_end(pa);
	return h;
}

/* Applies filters[0] to h, filters[1] to each of its pieces, ... */
static void map_filters(starpu_data_handle_t h, unsigned nfilters, struct starpu_data_filter **filters)
{
	if (!nfilters)
		return;
	starpu_data_partition(h, filters[0]);
	if (!h->partitioned)
		return;
	for (unsigned i = 0; i < h->nchildren; i++)
		map_filters(h->children[i], nfilters - 1, filters + 1);
}

void starpu_data_vmap_filters(starpu_data_handle_t root_data, unsigned nfilters, va_list pa)
{
	struct starpu_data_filter **filters = calloc(nfilters ? nfilters : 1, sizeof(*filters));
	if (!filters)
	{
		rt_error("starpu_data_map_filters: out of memory (-ENOMEM)");
		return;
	}
	for (unsigned i = 0; i < nfilters; i++)
		filters[i] = va_arg(pa, struct starpu_data_filter *);
	map_filters(root_data, nfilters, filters);
	free(filters);
}

void starpu_data_map_filters(starpu_data_handle_t root_data, unsigned nfilters, ...)
{
	va_list pa;
	va_start(pa, nfilters);
	starpu_data_vmap_filters(root_data, nfilters, pa);
	va_end(pa);
}
