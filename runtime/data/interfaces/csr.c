/* csr.c — the CSR interface (compressed sparse rows): nnz values with
 * their column indices, and nrow+1 row starts counted from firstentry. */
#include "data/data.h"
#include "data/interfaces/sparse.h"
#include "core/rt.h"

#include <errno.h>
#include <stdio.h>

static unsigned csr_arrays(struct starpu_csr_interface *c, struct sparse_array *a)
{
	a[0] = (struct sparse_array) { &c->nzval, (size_t) c->nnz * c->elemsize };
	a[1] = (struct sparse_array) { &c->colind, (size_t) c->nnz * sizeof(uint32_t) };
	a[2] = (struct sparse_array) { &c->rowptr, ((size_t) c->nrow + 1) * sizeof(uint32_t) };
	return 3;
}

static void csr_register(starpu_data_handle_t handle, unsigned home_node, void *data_interface)
{
	struct starpu_csr_interface *src = data_interface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct starpu_csr_interface *c = starpu_data_get_interface_on_node(handle, node);
		*c = *src;
		c->id = STARPU_CSR_INTERFACE_ID;
		if (node != home_node)
		{
			c->nzval = 0;
			c->colind = NULL;
			c->rowptr = NULL;
		}
	}
}

static starpu_ssize_t csr_allocate(void *data_interface, unsigned node)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	return sparse_alloc(node, a, csr_arrays(data_interface, a));
}

static void csr_free(void *data_interface, unsigned node)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	sparse_free(node, a, csr_arrays(data_interface, a));
}

static int csr_copy(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *async_data)
{
	(void) async_data;
	struct sparse_array s[SPARSE_MAX_ARRAYS], d[SPARSE_MAX_ARRAYS];
	unsigned n = csr_arrays(src_interface, s);
	csr_arrays(dst_interface, d);
	return sparse_copy(s, src_node, d, dst_node, n);
}

static const struct starpu_data_copy_methods csr_copy_methods = {
	.any_to_any = csr_copy,
};

static struct starpu_csr_interface *home_iface(starpu_data_handle_t handle)
{
	return data_accessor_iface(handle, STARPU_MAIN_RAM);
}

static size_t csr_get_size(starpu_data_handle_t handle)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	unsigned n = csr_arrays(home_iface(handle), a);
	size_t total = 0;
	for (unsigned i = 0; i < n; i++)
		total += a[i].bytes ? a[i].bytes : 1;
	return total;
}

static uint32_t csr_footprint(starpu_data_handle_t handle)
{
	/* As StarPU: the number of nonzeros alone. */
	return data_hash_u32(home_iface(handle)->nnz, 0);
}

static int csr_compare(void *x, void *y)
{
	struct starpu_csr_interface *a = x, *b = y;
	return a->nnz == b->nnz && a->nrow == b->nrow && a->elemsize == b->elemsize;
}

/* The allocation cache hands a freed replicate's whole interface to the
 * next allocation it matches: every field that is not a buffer must be
 * equal, firstentry included. */
static int csr_alloc_compare(void *x, void *y)
{
	struct starpu_csr_interface *a = x, *b = y;
	return csr_compare(x, y) && a->firstentry == b->firstentry;
}

static starpu_ssize_t csr_describe(void *data_interface, char *buf, size_t size)
{
	struct starpu_csr_interface *c = data_interface;
	return snprintf(buf, size, "C%ux%ux%zu", c->nnz, c->nrow, c->elemsize);
}

static void csr_display(starpu_data_handle_t handle, FILE *f)
{
	struct starpu_csr_interface *c = home_iface(handle);
	fprintf(f, "%u\t%u\t", c->nnz, c->nrow);
}

static int csr_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	return sparse_pack(node, a, csr_arrays(starpu_data_get_interface_on_node(handle, node), a), ptr, count);
}

static int csr_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t count)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	return sparse_unpack(node, a, csr_arrays(starpu_data_get_interface_on_node(handle, node), a), ptr, count);
}

struct starpu_data_interface_ops starpu_interface_csr_ops = {
	.register_data_handle = csr_register,
	.allocate_data_on_node = csr_allocate,
	.free_data_on_node = csr_free,
	.copy_methods = &csr_copy_methods,
	.get_size = csr_get_size,
	.footprint = csr_footprint,
	.compare = csr_compare,
	.alloc_compare = csr_alloc_compare,
	.describe = csr_describe,
	.display = csr_display,
	.pack_data = csr_pack,
	.unpack_data = csr_unpack,
	.interfaceid = STARPU_CSR_INTERFACE_ID,
	.interface_size = sizeof(struct starpu_csr_interface),
	.name = "STARPU_CSR_INTERFACE",
};

void starpu_csr_data_register(starpu_data_handle_t *handle, int home_node, uint32_t nnz, uint32_t nrow, uintptr_t nzval,
			      uint32_t *colind, uint32_t *rowptr, uint32_t firstentry, size_t elemsize)
{
	if (handle)
		*handle = NULL;
	if (home_node >= 0 && (!rowptr || (nnz && (!nzval || !colind))))
	{
		rt_error("starpu_csr_data_register: an array is NULL with home node %d", home_node);
		return;
	}
	struct starpu_csr_interface c = {
		.id = STARPU_CSR_INTERFACE_ID,
		.nnz = nnz, .nrow = nrow, .nzval = nzval, .colind = colind, .rowptr = rowptr,
		.firstentry = firstentry, .elemsize = elemsize,
	};
	data_register_common(handle, home_node, &c, &starpu_interface_csr_ops);
}

static struct starpu_csr_interface *local_iface(starpu_data_handle_t handle)
{
	return data_accessor_iface(handle, starpu_worker_get_local_memory_node());
}

uint32_t starpu_csr_get_nnz(starpu_data_handle_t handle) { return home_iface(handle)->nnz; }
uint32_t starpu_csr_get_nrow(starpu_data_handle_t handle) { return home_iface(handle)->nrow; }
uint32_t starpu_csr_get_firstentry(starpu_data_handle_t handle) { return home_iface(handle)->firstentry; }
size_t starpu_csr_get_elemsize(starpu_data_handle_t handle) { return home_iface(handle)->elemsize; }
uintptr_t starpu_csr_get_local_nzval(starpu_data_handle_t handle) { return local_iface(handle)->nzval; }
uint32_t *starpu_csr_get_local_colind(starpu_data_handle_t handle) { return local_iface(handle)->colind; }
uint32_t *starpu_csr_get_local_rowptr(starpu_data_handle_t handle) { return local_iface(handle)->rowptr; }
