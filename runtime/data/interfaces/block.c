/* block.c — the block interface: a 3D array of nx*ny*nz elements, element
 * (x,y,z) at x + y*ldy + z*ldz. Replicates the runtime allocates are packed
 * (ldy = nx, ldz = nx*ny); copies between differently strided replicates
 * go plane by plane, row by row. */
#include "data/data.h"
#include "data/memory.h"
#include "core/rt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void block_register(starpu_data_handle_t handle, unsigned home_node, void *data_interface)
{
	struct starpu_block_interface *src = data_interface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct starpu_block_interface *b = starpu_data_get_interface_on_node(handle, node);
		*b = *src;
		b->id = STARPU_BLOCK_INTERFACE_ID;
		if (node != home_node)
		{
			b->ptr = 0;
			b->dev_handle = 0;
			b->offset = 0;
			b->ldy = src->nx;
			b->ldz = src->nx * src->ny;
		}
	}
}

static size_t packed_bytes(const struct starpu_block_interface *b)
{
	return (size_t) b->nx * b->ny * b->nz * b->elemsize;
}

static starpu_ssize_t block_allocate(void *data_interface, unsigned node)
{
	struct starpu_block_interface *b = data_interface;
	size_t bytes = packed_bytes(b);
	uintptr_t p = starpu_malloc_on_node(node, bytes);
	if (!p)
		return -ENOMEM;
	b->ptr = p;
	b->dev_handle = p;
	b->offset = 0;
	b->ldy = b->nx;
	b->ldz = b->nx * b->ny;
	return (starpu_ssize_t) bytes;
}

static void block_free(void *data_interface, unsigned node)
{
	struct starpu_block_interface *b = data_interface;
	starpu_free_on_node(node, b->dev_handle, packed_bytes(b));
	b->ptr = 0;
	b->dev_handle = 0;
}

static int block_copy(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *async_data)
{
	struct starpu_block_interface *s = src_interface, *d = dst_interface;
	size_t row = (size_t) s->nx * s->elemsize;
	if (s->ldy == s->nx && d->ldy == d->nx && s->ldz == s->nx * s->ny && d->ldz == d->nx * d->ny)
		return starpu_interface_copy(s->dev_handle, s->offset, src_node, d->dev_handle, d->offset, dst_node,
					     row * s->ny * s->nz, async_data);
	return starpu_interface_copy3d(s->dev_handle, s->offset, src_node, d->dev_handle, d->offset, dst_node,
				       row, s->ny, (size_t) s->ldy * s->elemsize, (size_t) d->ldy * d->elemsize,
				       s->nz, (size_t) s->ldz * s->elemsize, (size_t) d->ldz * d->elemsize, async_data);
}

static const struct starpu_data_copy_methods block_copy_methods = {
	.any_to_any = block_copy,
};

static struct starpu_block_interface *home_iface(starpu_data_handle_t handle)
{
	return data_accessor_iface(handle, STARPU_MAIN_RAM);
}

static size_t block_get_size(starpu_data_handle_t handle)
{
	return packed_bytes(home_iface(handle));
}

static uint32_t block_footprint(starpu_data_handle_t handle)
{
	struct starpu_block_interface *b = home_iface(handle);
	return data_hash_u32(b->nz, data_hash_u32(b->ny, data_hash_u32(b->nx, 0)));
}

static int block_compare(void *a, void *b)
{
	struct starpu_block_interface *x = a, *y = b;
	return x->nx == y->nx && x->ny == y->ny && x->nz == y->nz && x->elemsize == y->elemsize;
}

static starpu_ssize_t block_describe(void *data_interface, char *buf, size_t size)
{
	struct starpu_block_interface *b = data_interface;
	return snprintf(buf, size, "B%ux%ux%ux%zu", b->nx, b->ny, b->nz, b->elemsize);
}

static void block_display(starpu_data_handle_t handle, FILE *f)
{
	struct starpu_block_interface *b = home_iface(handle);
	fprintf(f, "%u\t%u\t%u\t", b->nx, b->ny, b->nz);
}

static void *block_to_pointer(void *data_interface, unsigned node)
{
	(void) node;
	return (void *) ((struct starpu_block_interface *) data_interface)->ptr;
}

static int block_pointer_is_inside(void *data_interface, unsigned node, void *ptr)
{
	(void) node;
	struct starpu_block_interface *b = data_interface;
	uintptr_t p = (uintptr_t) ptr;
	if (p < b->ptr)
		return 0;
	size_t e = (p - b->ptr) / b->elemsize;
	size_t z = e / b->ldz, y = (e % b->ldz) / b->ldy, x = (e % b->ldz) % b->ldy;
	return z < b->nz && y < b->ny && x < b->nx;
}

static int block_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct starpu_block_interface *b = starpu_data_get_interface_on_node(handle, node);
	size_t row = (size_t) b->nx * b->elemsize;
	*count = (starpu_ssize_t) packed_bytes(b);
	if (!ptr)
		return 0;
	char *buf = (char *) starpu_malloc_on_node_flags(node, packed_bytes(b), 0);
	if (!buf)
		return -ENOMEM;
	char *out = buf;
	for (uint32_t z = 0; z < b->nz; z++)
		for (uint32_t y = 0; y < b->ny; y++)
		{
			memcpy(out, (char *) b->ptr + ((size_t) z * b->ldz + (size_t) y * b->ldy) * b->elemsize, row);
			out += row;
		}
	*ptr = buf;
	return 0;
}

static int block_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t count)
{
	struct starpu_block_interface *b = starpu_data_get_interface_on_node(handle, node);
	size_t row = (size_t) b->nx * b->elemsize;
	if (count != packed_bytes(b))
		return -EINVAL;
	const char *in = ptr;
	for (uint32_t z = 0; z < b->nz; z++)
		for (uint32_t y = 0; y < b->ny; y++)
		{
			memcpy((char *) b->ptr + ((size_t) z * b->ldz + (size_t) y * b->ldy) * b->elemsize, in, row);
			in += row;
		}
	starpu_free_on_node_flags(node, (uintptr_t) ptr, count, 0);
	return 0;
}

struct starpu_data_interface_ops starpu_interface_block_ops = {
	.register_data_handle = block_register,
	.allocate_data_on_node = block_allocate,
	.free_data_on_node = block_free,
	.copy_methods = &block_copy_methods,
	.get_size = block_get_size,
	.footprint = block_footprint,
	.compare = block_compare,
	.describe = block_describe,
	.display = block_display,
	.to_pointer = block_to_pointer,
	.pointer_is_inside = block_pointer_is_inside,
	.pack_data = block_pack,
	.unpack_data = block_unpack,
	.interfaceid = STARPU_BLOCK_INTERFACE_ID,
	.interface_size = sizeof(struct starpu_block_interface),
	.name = "STARPU_BLOCK_INTERFACE",
};

void starpu_block_data_register(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, uint32_t ldy, uint32_t ldz,
				uint32_t nx, uint32_t ny, uint32_t nz, size_t elemsize)
{
	if (handle)
		*handle = NULL;
	if (home_node >= 0 && !ptr)
	{
		rt_error("starpu_block_data_register: ptr is NULL with home node %d (use home node -1 for data the runtime allocates)", home_node);
		return;
	}
	if (!elemsize)
	{
		rt_error("starpu_block_data_register: elemsize is 0 (%ux%ux%u elements of no size)", nx, ny, nz);
		return;
	}
	if (ldy < nx || ldz < (size_t) ldy * ny)
	{
		rt_error("starpu_block_data_register: strides ldy=%u ldz=%u are too small for %ux%u planes", ldy, ldz, nx, ny);
		return;
	}
	struct starpu_block_interface b = {
		.id = STARPU_BLOCK_INTERFACE_ID,
		.ptr = ptr,
		.dev_handle = ptr,
		.offset = 0,
		.nx = nx, .ny = ny, .nz = nz,
		.ldy = ldy, .ldz = ldz,
		.elemsize = elemsize,
	};
	data_register_common(handle, home_node, &b, &starpu_interface_block_ops);
}

void starpu_block_ptr_register(starpu_data_handle_t handle, unsigned node, uintptr_t ptr, uintptr_t dev_handle, size_t offset, uint32_t ldy, uint32_t ldz)
{
	struct starpu_block_interface *b = starpu_data_get_interface_on_node(handle, node);
	if (data_ptr_register(handle, node, "starpu_block_ptr_register"))
		return;
	b->ptr = ptr;
	b->dev_handle = dev_handle;
	b->offset = offset;
	b->ldy = ldy;
	b->ldz = ldz;
}

uint32_t starpu_block_get_nx(starpu_data_handle_t handle) { return home_iface(handle)->nx; }
uint32_t starpu_block_get_ny(starpu_data_handle_t handle) { return home_iface(handle)->ny; }
uint32_t starpu_block_get_nz(starpu_data_handle_t handle) { return home_iface(handle)->nz; }
size_t starpu_block_get_elemsize(starpu_data_handle_t handle) { return home_iface(handle)->elemsize; }

static struct starpu_block_interface *local_iface(starpu_data_handle_t handle)
{
	return data_accessor_iface(handle, starpu_worker_get_local_memory_node());
}

uint32_t starpu_block_get_local_ldy(starpu_data_handle_t handle) { return local_iface(handle)->ldy; }
uint32_t starpu_block_get_local_ldz(starpu_data_handle_t handle) { return local_iface(handle)->ldz; }
uintptr_t starpu_block_get_local_ptr(starpu_data_handle_t handle) { return local_iface(handle)->ptr; }
