/* matrix.c — the matrix interface: ny columns of nx elements, successive
 * columns ld elements apart (column-major, as BLAS expects). Copies between
 * nodes are strided when ld differs from nx. */
#include "data/data.h"
#include "data/memory.h"
#include "core/rt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void matrix_register(starpu_data_handle_t handle, unsigned home_node, void *data_interface)
{
	struct starpu_matrix_interface *src = data_interface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct starpu_matrix_interface *m = starpu_data_get_interface_on_node(handle, node);
		*m = *src;
		m->id = STARPU_MATRIX_INTERFACE_ID;
		if (node != home_node)
		{
			/* Replicates are allocated packed. */
			m->ptr = 0;
			m->dev_handle = 0;
			m->offset = 0;
			m->ld = src->nx;
		}
	}
}

static size_t matrix_packed_bytes(const struct starpu_matrix_interface *m)
{
	return (size_t) m->nx * m->ny * m->elemsize;
}

static size_t matrix_alloc_bytes(const struct starpu_matrix_interface *m)
{
	return m->allocsize ? m->allocsize : matrix_packed_bytes(m);
}

static starpu_ssize_t matrix_allocate(void *data_interface, unsigned node)
{
	struct starpu_matrix_interface *m = data_interface;
	size_t bytes = matrix_alloc_bytes(m);
	uintptr_t p = starpu_malloc_on_node(node, bytes);
	if (!p)
		return -ENOMEM;
	m->ptr = p;
	m->dev_handle = p;
	m->offset = 0;
	m->ld = m->nx;
	return (starpu_ssize_t) bytes;
}

static void matrix_free(void *data_interface, unsigned node)
{
	struct starpu_matrix_interface *m = data_interface;
	starpu_free_on_node(node, m->dev_handle, matrix_alloc_bytes(m));
	m->ptr = 0;
	m->dev_handle = 0;
}

static int matrix_copy(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *async_data)
{
	struct starpu_matrix_interface *s = src_interface, *d = dst_interface;
	size_t col = (size_t) s->nx * s->elemsize;
	if ((s->ld == s->nx && d->ld == d->nx) || s->ny <= 1)
		return starpu_interface_copy(s->dev_handle, s->offset, src_node, d->dev_handle, d->offset, dst_node,
					     col * s->ny, async_data);
	return starpu_interface_copy2d(s->dev_handle, s->offset, src_node, d->dev_handle, d->offset, dst_node,
				       col, s->ny, (size_t) s->ld * s->elemsize, (size_t) d->ld * d->elemsize, async_data);
}

static const struct starpu_data_copy_methods matrix_copy_methods = {
	.any_to_any = matrix_copy,
};

static struct starpu_matrix_interface *home_iface(starpu_data_handle_t handle)
{
	return data_accessor_iface(handle, STARPU_MAIN_RAM);
}

static size_t matrix_get_size(starpu_data_handle_t handle)
{
	return matrix_packed_bytes(home_iface(handle));
}

static size_t matrix_get_alloc_size(starpu_data_handle_t handle)
{
	return matrix_alloc_bytes(home_iface(handle));
}

static uint32_t matrix_footprint(starpu_data_handle_t handle)
{
	struct starpu_matrix_interface *m = home_iface(handle);
	/* As StarPU: nx hashed from ny as the seed. */
	return data_hash_u32(m->nx, m->ny);
}

static int matrix_compare(void *a, void *b)
{
	struct starpu_matrix_interface *x = a, *y = b;
	return x->nx == y->nx && x->ny == y->ny && x->elemsize == y->elemsize;
}

static starpu_ssize_t matrix_describe(void *data_interface, char *buf, size_t size)
{
	struct starpu_matrix_interface *m = data_interface;
	return snprintf(buf, size, "M%ux%ux%zu", m->nx, m->ny, m->elemsize);
}

static void matrix_display(starpu_data_handle_t handle, FILE *f)
{
	struct starpu_matrix_interface *m = home_iface(handle);
	fprintf(f, "%u\t%u\t", m->nx, m->ny);
}

static void *matrix_to_pointer(void *data_interface, unsigned node)
{
	(void) node;
	return (void *) ((struct starpu_matrix_interface *) data_interface)->ptr;
}

static int matrix_pointer_is_inside(void *data_interface, unsigned node, void *ptr)
{
	(void) node;
	struct starpu_matrix_interface *m = data_interface;
	uintptr_t p = (uintptr_t) ptr;
	if (p < m->ptr)
		return 0;
	size_t off = (p - m->ptr) / m->elemsize;
	if (m->ny <= 1)
		return off < m->nx;	/* ld unused, maybe 0 */
	return off < (size_t) m->ld * m->ny && off % m->ld < m->nx;
}

static int matrix_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct starpu_matrix_interface *m = starpu_data_get_interface_on_node(handle, node);
	size_t col = (size_t) m->nx * m->elemsize;
	*count = (starpu_ssize_t) (col * m->ny);
	if (ptr)
	{
		char *buf = (char *) starpu_malloc_on_node_flags(node, col * m->ny, 0);
		if (!buf)
			return -ENOMEM;
		for (uint32_t j = 0; j < m->ny; j++)
			memcpy(buf + j * col, (char *) m->ptr + (size_t) j * m->ld * m->elemsize, col);
		*ptr = buf;
	}
	return 0;
}

static int matrix_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t count)
{
	struct starpu_matrix_interface *m = starpu_data_get_interface_on_node(handle, node);
	size_t col = (size_t) m->nx * m->elemsize;
	if (count != col * m->ny)
		return -EINVAL;
	for (uint32_t j = 0; j < m->ny; j++)
		memcpy((char *) m->ptr + (size_t) j * m->ld * m->elemsize, (char *) ptr + j * col, col);
	starpu_free_on_node_flags(node, (uintptr_t) ptr, count, 0);
	return 0;
}

struct starpu_data_interface_ops starpu_interface_matrix_ops = {
	.register_data_handle = matrix_register,
	.allocate_data_on_node = matrix_allocate,
	.free_data_on_node = matrix_free,
	.copy_methods = &matrix_copy_methods,
	.get_size = matrix_get_size,
	.get_alloc_size = matrix_get_alloc_size,
	.footprint = matrix_footprint,
	.compare = matrix_compare,
	.describe = matrix_describe,
	.display = matrix_display,
	.to_pointer = matrix_to_pointer,
	.pointer_is_inside = matrix_pointer_is_inside,
	.pack_data = matrix_pack,
	.unpack_data = matrix_unpack,
	.interfaceid = STARPU_MATRIX_INTERFACE_ID,
	.interface_size = sizeof(struct starpu_matrix_interface),
	.name = "STARPU_MATRIX_INTERFACE",
};

void starpu_matrix_data_register_allocsize(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, uint32_t ld,
					   uint32_t nx, uint32_t ny, size_t elemsize, size_t allocsize)
{
	if (handle)
		*handle = NULL;
	if (home_node >= 0 && !ptr)
	{
		rt_error("starpu_matrix_data_register: ptr is NULL with home node %d (use home node -1 for data the runtime allocates)", home_node);
		return;
	}
	if (!elemsize)
	{
		rt_error("starpu_matrix_data_register: elemsize is 0 (%ux%u elements of no size)", nx, ny);
		return;
	}
	/* With one column, ld is never used: StarPU 1.3 accepts any (0 is
	 * common) and keeps it. */
	if (ld < nx && ny > 1)
	{
		rt_error("starpu_matrix_data_register: ld=%u is smaller than nx=%u (with ny=%u columns)", ld, nx, ny);
		return;
	}
	struct starpu_matrix_interface m = {
		.id = STARPU_MATRIX_INTERFACE_ID,
		.ptr = ptr,
		.dev_handle = ptr,
		.offset = 0,
		.nx = nx,
		.ny = ny,
		.ld = ld,
		.elemsize = elemsize,
		.allocsize = allocsize,
	};
	data_register_common(handle, home_node, &m, &starpu_interface_matrix_ops);
}

void starpu_matrix_data_register(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, uint32_t ld, uint32_t nx, uint32_t ny, size_t elemsize)
{
	starpu_matrix_data_register_allocsize(handle, home_node, ptr, ld, nx, ny, elemsize, (size_t) nx * ny * elemsize);
}

void starpu_matrix_ptr_register(starpu_data_handle_t handle, unsigned node, uintptr_t ptr, uintptr_t dev_handle, size_t offset, uint32_t ld)
{
	struct starpu_matrix_interface *m = starpu_data_get_interface_on_node(handle, node);
	if (data_ptr_register(handle, node, "starpu_matrix_ptr_register"))
		return;
	m->ptr = ptr;
	m->dev_handle = dev_handle;
	m->offset = offset;
	m->ld = ld;
}

uint32_t starpu_matrix_get_nx(starpu_data_handle_t handle)
{
	return home_iface(handle)->nx;
}

uint32_t starpu_matrix_get_ny(starpu_data_handle_t handle)
{
	return home_iface(handle)->ny;
}

uint32_t starpu_matrix_get_local_ld(starpu_data_handle_t handle)
{
	unsigned node = starpu_worker_get_local_memory_node();
	return ((struct starpu_matrix_interface *) data_accessor_iface(handle, node))->ld;
}

uintptr_t starpu_matrix_get_local_ptr(starpu_data_handle_t handle)
{
	unsigned node = starpu_worker_get_local_memory_node();
	return ((struct starpu_matrix_interface *) data_accessor_iface(handle, node))->ptr;
}

size_t starpu_matrix_get_elemsize(starpu_data_handle_t handle)
{
	return home_iface(handle)->elemsize;
}

size_t starpu_matrix_get_allocsize(starpu_data_handle_t handle)
{
	return matrix_alloc_bytes(home_iface(handle));
}
