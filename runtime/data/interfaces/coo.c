/* coo.c — the COO interface (coordinate format): an nx x ny sparse matrix
 * given as n_values entries, entry i being values[i] at (rows[i],
 * columns[i]). */
#include "data/data.h"
#include "data/interfaces/sparse.h"
#include "core/rt.h"

#include <errno.h>
#include <stdio.h>

static unsigned coo_arrays(struct starpu_coo_interface *c, struct sparse_array *a)
{
	a[0] = (struct sparse_array) { &c->values, (size_t) c->n_values * c->elemsize };
	a[1] = (struct sparse_array) { &c->columns, (size_t) c->n_values * sizeof(uint32_t) };
	a[2] = (struct sparse_array) { &c->rows, (size_t) c->n_values * sizeof(uint32_t) };
	return 3;
}

static void coo_register(starpu_data_handle_t handle, unsigned home_node, void *data_interface)
{
	struct starpu_coo_interface *src = data_interface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct starpu_coo_interface *c = starpu_data_get_interface_on_node(handle, node);
		*c = *src;
		c->id = STARPU_COO_INTERFACE_ID;
		if (node != home_node)
		{
			c->values = 0;
			c->columns = NULL;
			c->rows = NULL;
		}
	}
}

static starpu_ssize_t coo_allocate(void *data_interface, unsigned node)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	return sparse_alloc(node, a, coo_arrays(data_interface, a));
}

static void coo_free(void *data_interface, unsigned node)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	sparse_free(node, a, coo_arrays(data_interface, a));
}

static int coo_copy(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *async_data)
{
	(void) async_data;
	struct sparse_array s[SPARSE_MAX_ARRAYS], d[SPARSE_MAX_ARRAYS];
	unsigned n = coo_arrays(src_interface, s);
	coo_arrays(dst_interface, d);
	return sparse_copy(s, src_node, d, dst_node, n);
}

static const struct starpu_data_copy_methods coo_copy_methods = {
	.any_to_any = coo_copy,
};

static struct starpu_coo_interface *home_iface(starpu_data_handle_t handle)
{
	return data_accessor_iface(handle, STARPU_MAIN_RAM);
}

/* The size StarPU reports for COO data is that of the dense matrix (so are
 * performance models keyed); what is allocated is the entries. */
static size_t coo_get_size(starpu_data_handle_t handle)
{
	struct starpu_coo_interface *c = home_iface(handle);
	return (size_t) c->nx * c->ny * c->elemsize;
}

static size_t coo_get_alloc_size(starpu_data_handle_t handle)
{
	struct starpu_coo_interface *c = home_iface(handle);
	return (size_t) c->n_values * (c->elemsize + 2 * sizeof(uint32_t));
}

static uint32_t coo_footprint(starpu_data_handle_t handle)
{
	/* As StarPU: the dense shape. */
	struct starpu_coo_interface *c = home_iface(handle);
	return data_hash_u32(c->nx * c->ny, 0);
}

static int coo_compare(void *x, void *y)
{
	struct starpu_coo_interface *a = x, *b = y;
	return a->nx == b->nx && a->ny == b->ny && a->n_values == b->n_values && a->elemsize == b->elemsize;
}

static starpu_ssize_t coo_describe(void *data_interface, char *buf, size_t size)
{
	struct starpu_coo_interface *c = data_interface;
	return snprintf(buf, size, "O%ux%ux%ux%zu", c->nx, c->ny, c->n_values, c->elemsize);
}

static void coo_display(starpu_data_handle_t handle, FILE *f)
{
	struct starpu_coo_interface *c = home_iface(handle);
	fprintf(f, "%u\t%u\t%u\t", c->nx, c->ny, c->n_values);
}

static int coo_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	return sparse_pack(node, a, coo_arrays(starpu_data_get_interface_on_node(handle, node), a), ptr, count);
}

static int coo_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t count)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	return sparse_unpack(node, a, coo_arrays(starpu_data_get_interface_on_node(handle, node), a), ptr, count);
}

struct starpu_data_interface_ops starpu_interface_coo_ops = {
	.register_data_handle = coo_register,
	.allocate_data_on_node = coo_allocate,
	.free_data_on_node = coo_free,
	.copy_methods = &coo_copy_methods,
	.get_size = coo_get_size,
	.get_alloc_size = coo_get_alloc_size,
	.footprint = coo_footprint,
	.compare = coo_compare,
	.describe = coo_describe,
	.display = coo_display,
	.pack_data = coo_pack,
	.unpack_data = coo_unpack,
	.interfaceid = STARPU_COO_INTERFACE_ID,
	.interface_size = sizeof(struct starpu_coo_interface),
	.name = "STARPU_COO_INTERFACE",
};

void starpu_coo_data_register(starpu_data_handle_t *handleptr, int home_node, uint32_t nx, uint32_t ny, uint32_t n_values,
			      uint32_t *columns, uint32_t *rows, uintptr_t values, size_t elemsize)
{
	if (handleptr)
		*handleptr = NULL;
	if (home_node >= 0 && n_values && (!columns || !rows || !values))
	{
		rt_error("starpu_coo_data_register: %s is NULL with home node %d",
			 !columns ? "columns" : !rows ? "rows" : "values", home_node);
		return;
	}
	struct starpu_coo_interface c = {
		.id = STARPU_COO_INTERFACE_ID,
		.columns = columns, .rows = rows, .values = values,
		.nx = nx, .ny = ny, .n_values = n_values, .elemsize = elemsize,
	};
	data_register_common(handleptr, home_node, &c, &starpu_interface_coo_ops);
}
