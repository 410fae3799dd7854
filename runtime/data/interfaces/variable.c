/* variable.c — the variable interface: one element of elemsize bytes. */
#include "data/data.h"
#include "data/memory.h"
#include "core/rt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void variable_register(starpu_data_handle_t handle, unsigned home_node, void *data_interface)
{
	struct starpu_variable_interface *src = data_interface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct starpu_variable_interface *v = starpu_data_get_interface_on_node(handle, node);
		v->id = STARPU_VARIABLE_INTERFACE_ID;
		v->elemsize = src->elemsize;
		if (node == home_node)
		{
			v->ptr = src->ptr;
			v->dev_handle = src->dev_handle;
			v->offset = src->offset;
		}
		else
		{
			v->ptr = 0;
			v->dev_handle = 0;
			v->offset = 0;
		}
	}
}

static starpu_ssize_t variable_allocate(void *data_interface, unsigned node)
{
	struct starpu_variable_interface *v = data_interface;
	uintptr_t p = starpu_malloc_on_node(node, v->elemsize);
	if (!p)
		return -ENOMEM;
	v->ptr = p;
	v->dev_handle = p;
	v->offset = 0;
	return (starpu_ssize_t) v->elemsize;
}

static void variable_free(void *data_interface, unsigned node)
{
	struct starpu_variable_interface *v = data_interface;
	starpu_free_on_node(node, v->dev_handle, v->elemsize);
	v->ptr = 0;
	v->dev_handle = 0;
}

static int variable_copy(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *async_data)
{
	struct starpu_variable_interface *s = src_interface, *d = dst_interface;
	return starpu_interface_copy(s->dev_handle, s->offset, src_node, d->dev_handle, d->offset, dst_node, s->elemsize, async_data);
}

static const struct starpu_data_copy_methods variable_copy_methods = {
	.any_to_any = variable_copy,
};

static size_t variable_get_size(starpu_data_handle_t handle)
{
	struct starpu_variable_interface *v = starpu_data_get_interface_on_node(handle, STARPU_MAIN_RAM);
	return v->elemsize;
}

static uint32_t variable_footprint(starpu_data_handle_t handle)
{
	return data_hash_u32((uint32_t) variable_get_size(handle), 0);
}

static int variable_compare(void *a, void *b)
{
	return ((struct starpu_variable_interface *) a)->elemsize == ((struct starpu_variable_interface *) b)->elemsize;
}

static starpu_ssize_t variable_describe(void *data_interface, char *buf, size_t size)
{
	return snprintf(buf, size, "v%zu", ((struct starpu_variable_interface *) data_interface)->elemsize);
}

static void variable_display(starpu_data_handle_t handle, FILE *f)
{
	fprintf(f, "%zu\t", variable_get_size(handle));
}

static void *variable_to_pointer(void *data_interface, unsigned node)
{
	(void) node;
	return (void *) ((struct starpu_variable_interface *) data_interface)->ptr;
}

static int variable_pointer_is_inside(void *data_interface, unsigned node, void *ptr)
{
	(void) node;
	struct starpu_variable_interface *v = data_interface;
	return (uintptr_t) ptr >= v->ptr && (uintptr_t) ptr < v->ptr + v->elemsize;
}

static int variable_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct starpu_variable_interface *v = starpu_data_get_interface_on_node(handle, node);
	*count = (starpu_ssize_t) v->elemsize;
	if (ptr)
	{
		*ptr = (void *) starpu_malloc_on_node_flags(node, v->elemsize, 0);
		if (!*ptr)
			return -ENOMEM;
		memcpy(*ptr, (void *) v->ptr, v->elemsize);
	}
	return 0;
}

static int variable_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t count)
{
	struct starpu_variable_interface *v = starpu_data_get_interface_on_node(handle, node);
	if (count != v->elemsize)
		return -EINVAL;
	memcpy((void *) v->ptr, ptr, count);
	starpu_free_on_node_flags(node, (uintptr_t) ptr, count, 0);
	return 0;
}

struct starpu_data_interface_ops starpu_interface_variable_ops = {
	.register_data_handle = variable_register,
	.allocate_data_on_node = variable_allocate,
	.free_data_on_node = variable_free,
	.copy_methods = &variable_copy_methods,
	.get_size = variable_get_size,
	.footprint = variable_footprint,
	.compare = variable_compare,
	.describe = variable_describe,
	.display = variable_display,
	.to_pointer = variable_to_pointer,
	.pointer_is_inside = variable_pointer_is_inside,
	.pack_data = variable_pack,
	.unpack_data = variable_unpack,
	.interfaceid = STARPU_VARIABLE_INTERFACE_ID,
	.interface_size = sizeof(struct starpu_variable_interface),
	.name = "STARPU_VARIABLE_INTERFACE",
};

void starpu_variable_data_register(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, size_t size)
{
	if (home_node >= 0 && !ptr)
	{
		rt_error("starpu_variable_data_register: ptr is NULL with home node %d (use home node -1 for data the runtime allocates)", home_node);
		if (handle)
			*handle = NULL;
		return;
	}
	struct starpu_variable_interface v = {
		.id = STARPU_VARIABLE_INTERFACE_ID,
		.ptr = ptr,
		.dev_handle = ptr,
		.offset = 0,
		.elemsize = size,
	};
	data_register_common(handle, home_node, &v, &starpu_interface_variable_ops);
}

void starpu_variable_ptr_register(starpu_data_handle_t handle, unsigned node, uintptr_t ptr, uintptr_t dev_handle, size_t offset)
{
	struct starpu_variable_interface *v = starpu_data_get_interface_on_node(handle, node);
	if (data_ptr_register(handle, node, "starpu_variable_ptr_register"))
		return;
	v->ptr = ptr;
	v->dev_handle = dev_handle;
	v->offset = offset;
}

size_t starpu_variable_get_elemsize(starpu_data_handle_t handle)
{
	return ((struct starpu_variable_interface *) data_accessor_iface(handle, STARPU_MAIN_RAM))->elemsize;
}

uintptr_t starpu_variable_get_local_ptr(starpu_data_handle_t handle)
{
	unsigned node = starpu_worker_get_local_memory_node();
	return ((struct starpu_variable_interface *) data_accessor_iface(handle, node))->ptr;
}
