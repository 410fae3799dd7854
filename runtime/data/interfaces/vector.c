/* vector.c — the vector interface: nx contiguous elements of elemsize bytes. */
#include "data/data.h"
#include "data/memory.h"
#include "core/rt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void vector_register(starpu_data_handle_t handle, unsigned home_node, void *data_interface)
{
	struct starpu_vector_interface *src = data_interface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct starpu_vector_interface *v = starpu_data_get_interface_on_node(handle, node);
		*v = *src;
		v->id = STARPU_VECTOR_INTERFACE_ID;
		if (node != home_node)
		{
			v->ptr = 0;
			v->dev_handle = 0;
			v->offset = 0;
		}
	}
}

static size_t vector_bytes(const struct starpu_vector_interface *v)
{
	return v->allocsize ? v->allocsize : (size_t) v->nx * v->elemsize;
}

static starpu_ssize_t vector_allocate(void *data_interface, unsigned node)
{
	struct starpu_vector_interface *v = data_interface;
	size_t bytes = vector_bytes(v);
	uintptr_t p = starpu_malloc_on_node(node, bytes);
	if (!p)
		return -ENOMEM;
	v->ptr = p;
	v->dev_handle = p;
	v->offset = 0;
	return (starpu_ssize_t) bytes;
}

static void vector_free(void *data_interface, unsigned node)
{
	struct starpu_vector_interface *v = data_interface;
	starpu_free_on_node(node, v->dev_handle, vector_bytes(v));
	v->ptr = 0;
	v->dev_handle = 0;
}

static int vector_copy(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *async_data)
{
	struct starpu_vector_interface *s = src_interface, *d = dst_interface;
	return starpu_interface_copy(s->dev_handle, s->offset, src_node, d->dev_handle, d->offset, dst_node,
				     (size_t) s->nx * s->elemsize, async_data);
}

static const struct starpu_data_copy_methods vector_copy_methods = {
	.any_to_any = vector_copy,
};

static struct starpu_vector_interface *home_iface(starpu_data_handle_t handle)
{
	return data_accessor_iface(handle, STARPU_MAIN_RAM);
}

static size_t vector_get_size(starpu_data_handle_t handle)
{
	struct starpu_vector_interface *v = home_iface(handle);
	return (size_t) v->nx * v->elemsize;
}

static size_t vector_get_alloc_size(starpu_data_handle_t handle)
{
	return vector_bytes(home_iface(handle));
}

static uint32_t vector_footprint(starpu_data_handle_t handle)
{
	return data_hash_u32(home_iface(handle)->nx, 0);
}

static int vector_compare(void *a, void *b)
{
	struct starpu_vector_interface *x = a, *y = b;
	return x->nx == y->nx && x->elemsize == y->elemsize;
}

/* The allocation cache hands a freed replicate's whole interface to the
 * next allocation it matches: every field that is not a buffer must be
 * equal, a piece's slice_base included. */
static int vector_alloc_compare(void *a, void *b)
{
	struct starpu_vector_interface *x = a, *y = b;
	return vector_compare(a, b) && x->slice_base == y->slice_base && x->allocsize == y->allocsize;
}

static starpu_ssize_t vector_describe(void *data_interface, char *buf, size_t size)
{
	struct starpu_vector_interface *v = data_interface;
	return snprintf(buf, size, "V%ux%zu", v->nx, v->elemsize);
}

static void vector_display(starpu_data_handle_t handle, FILE *f)
{
	fprintf(f, "%u\t", home_iface(handle)->nx);
}

static void *vector_to_pointer(void *data_interface, unsigned node)
{
	(void) node;
	return (void *) ((struct starpu_vector_interface *) data_interface)->ptr;
}

static int vector_pointer_is_inside(void *data_interface, unsigned node, void *ptr)
{
	(void) node;
	struct starpu_vector_interface *v = data_interface;
	return (uintptr_t) ptr >= v->ptr && (uintptr_t) ptr < v->ptr + (size_t) v->nx * v->elemsize;
}

static int vector_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct starpu_vector_interface *v = starpu_data_get_interface_on_node(handle, node);
	size_t bytes = (size_t) v->nx * v->elemsize;
	*count = (starpu_ssize_t) bytes;
	if (ptr)
	{
		*ptr = (void *) starpu_malloc_on_node_flags(node, bytes, 0);
		if (!*ptr)
			return -ENOMEM;
		memcpy(*ptr, (void *) v->ptr, bytes);
	}
	return 0;
}

static int vector_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t count)
{
	struct starpu_vector_interface *v = starpu_data_get_interface_on_node(handle, node);
	if (count != (size_t) v->nx * v->elemsize)
		return -EINVAL;
	memcpy((void *) v->ptr, ptr, count);
	starpu_free_on_node_flags(node, (uintptr_t) ptr, count, 0);
	return 0;
}

struct starpu_data_interface_ops starpu_interface_vector_ops = {
	.register_data_handle = vector_register,
	.allocate_data_on_node = vector_allocate,
	.free_data_on_node = vector_free,
	.copy_methods = &vector_copy_methods,
	.get_size = vector_get_size,
	.get_alloc_size = vector_get_alloc_size,
	.footprint = vector_footprint,
	.compare = vector_compare,
	.alloc_compare = vector_alloc_compare,
	.describe = vector_describe,
	.display = vector_display,
	.to_pointer = vector_to_pointer,
	.pointer_is_inside = vector_pointer_is_inside,
	.pack_data = vector_pack,
	.unpack_data = vector_unpack,
	.interfaceid = STARPU_VECTOR_INTERFACE_ID,
	.interface_size = sizeof(struct starpu_vector_interface),
	.name = "STARPU_VECTOR_INTERFACE",
};

void starpu_vector_data_register_allocsize(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, uint32_t nx, size_t elemsize, size_t allocsize)
{
	if (home_node >= 0 && !ptr)
	{
		rt_error("starpu_vector_data_register: ptr is NULL with home node %d (use home node -1 for data the runtime allocates)", home_node);
		if (handle)
			*handle = NULL;
		return;
	}
	if (!elemsize)
	{
		rt_error("starpu_vector_data_register: elemsize is 0 (%u elements of no size)", nx);
		if (handle)
			*handle = NULL;
		return;
	}
	struct starpu_vector_interface v = {
		.id = STARPU_VECTOR_INTERFACE_ID,
		.ptr = ptr,
		.dev_handle = ptr,
		.offset = 0,
		.nx = nx,
		.elemsize = elemsize,
		.slice_base = 0,
		.allocsize = allocsize,
	};
	data_register_common(handle, home_node, &v, &starpu_interface_vector_ops);
}

void starpu_vector_data_register(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, uint32_t nx, size_t elemsize)
{
	starpu_vector_data_register_allocsize(handle, home_node, ptr, nx, elemsize, (size_t) nx * elemsize);
}

void starpu_vector_ptr_register(starpu_data_handle_t handle, unsigned node, uintptr_t ptr, uintptr_t dev_handle, size_t offset)
{
	struct starpu_vector_interface *v = starpu_data_get_interface_on_node(handle, node);
	if (data_ptr_register(handle, node, "starpu_vector_ptr_register"))
		return;
	v->ptr = ptr;
	v->dev_handle = dev_handle;
	v->offset = offset;
}

uint32_t starpu_vector_get_nx(starpu_data_handle_t handle)
{
	return home_iface(handle)->nx;
}

size_t starpu_vector_get_elemsize(starpu_data_handle_t handle)
{
	return home_iface(handle)->elemsize;
}

size_t starpu_vector_get_allocsize(starpu_data_handle_t handle)
{
	return vector_bytes(home_iface(handle));
}

uintptr_t starpu_vector_get_local_ptr(starpu_data_handle_t handle)
{
	unsigned node = starpu_worker_get_local_memory_node();
	return ((struct starpu_vector_interface *) data_accessor_iface(handle, node))->ptr;
}
