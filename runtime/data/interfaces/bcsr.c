/* bcsr.c — the BCSR interface (block CSR): nnz blocks of r x c values with
 * their block column indices, and nrow+1 block-row starts from firstentry. */
#include "data/data.h"
#include "data/interfaces/sparse.h"
#include "core/rt.h"

#include <errno.h>
#include <stdio.h>

static unsigned bcsr_arrays(struct starpu_bcsr_interface *c, struct sparse_array *a)
{
	a[0] = (struct sparse_array) { &c->nzval, (size_t) c->nnz * c->r * c->c * c->elemsize };
	a[1] = (struct sparse_array) { &c->colind, (size_t) c->nnz * sizeof(uint32_t) };
	a[2] = (struct sparse_array) { &c->rowptr, ((size_t) c->nrow + 1) * sizeof(uint32_t) };
	return 3;
}

static void bcsr_register(starpu_data_handle_t handle, unsigned home_node, void *data_interface)
{
	struct starpu_bcsr_interface *src = data_interface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct starpu_bcsr_interface *c = starpu_data_get_interface_on_node(handle, node);
		*c = *src;
		c->id = STARPU_BCSR_INTERFACE_ID;
		if (node != home_node)
		{
			c->nzval = 0;
			c->colind = NULL;
			c->rowptr = NULL;
		}
	}
}

static starpu_ssize_t bcsr_allocate(void *data_interface, unsigned node)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	return sparse_alloc(node, a, bcsr_arrays(data_interface, a));
}

static void bcsr_free(void *data_interface, unsigned node)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	sparse_free(node, a, bcsr_arrays(data_interface, a));
}

static int bcsr_copy(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *async_data)
{
	(void) async_data;
	struct sparse_array s[SPARSE_MAX_ARRAYS], d[SPARSE_MAX_ARRAYS];
	unsigned n = bcsr_arrays(src_interface, s);
	bcsr_arrays(dst_interface, d);
	return sparse_copy(s, src_node, d, dst_node, n);
}

static const struct starpu_data_copy_methods bcsr_copy_methods = {
	.any_to_any = bcsr_copy,
};

static struct starpu_bcsr_interface *home_iface(starpu_data_handle_t handle)
{
	return data_accessor_iface(handle, STARPU_MAIN_RAM);
}

static size_t bcsr_get_size(starpu_data_handle_t handle)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	unsigned n = bcsr_arrays(home_iface(handle), a);
	size_t total = 0;
	for (unsigned i = 0; i < n; i++)
		total += a[i].bytes ? a[i].bytes : 1;
	return total;
}

static uint32_t bcsr_footprint(starpu_data_handle_t handle)
{
	struct starpu_bcsr_interface *c = home_iface(handle);
	/* As StarPU: nonzero blocks, then the block shape. */
	return data_hash_u32(c->r, data_hash_u32(c->c, data_hash_u32(c->nnz, 0)));
}

static int bcsr_compare(void *x, void *y)
{
	struct starpu_bcsr_interface *a = x, *b = y;
	return a->nnz == b->nnz && a->nrow == b->nrow && a->r == b->r && a->c == b->c && a->elemsize == b->elemsize;
}

/* The allocation cache hands a freed replicate's whole interface to the
 * next allocation it matches: every field that is not a buffer must be
 * equal, firstentry included. */
static int bcsr_alloc_compare(void *x, void *y)
{
	struct starpu_bcsr_interface *a = x, *b = y;
	return bcsr_compare(x, y) && a->firstentry == b->firstentry;
}

static starpu_ssize_t bcsr_describe(void *data_interface, char *buf, size_t size)
{
	struct starpu_bcsr_interface *c = data_interface;
	return snprintf(buf, size, "S%ux%ux%ux%ux%zu", c->nnz, c->nrow, c->r, c->c, c->elemsize);
}

static void bcsr_display(starpu_data_handle_t handle, FILE *f)
{
	struct starpu_bcsr_interface *c = home_iface(handle);
	fprintf(f, "%u\t%u\t", c->nnz, c->nrow);
}

static int bcsr_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	return sparse_pack(node, a, bcsr_arrays(starpu_data_get_interface_on_node(handle, node), a), ptr, count);
}

static int bcsr_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t count)
{
	struct sparse_array a[SPARSE_MAX_ARRAYS];
	return sparse_unpack(node, a, bcsr_arrays(starpu_data_get_interface_on_node(handle, node), a), ptr, count);
}

struct starpu_data_interface_ops starpu_interface_bcsr_ops = {
	.register_data_handle = bcsr_register,
	.allocate_data_on_node = bcsr_allocate,
	.free_data_on_node = bcsr_free,
	.copy_methods = &bcsr_copy_methods,
	.get_size = bcsr_get_size,
	.footprint = bcsr_footprint,
	.compare = bcsr_compare,
	.alloc_compare = bcsr_alloc_compare,
	.describe = bcsr_describe,
	.display = bcsr_display,
	.pack_data = bcsr_pack,
	.unpack_data = bcsr_unpack,
	.interfaceid = STARPU_BCSR_INTERFACE_ID,
	.interface_size = sizeof(struct starpu_bcsr_interface),
	.name = "STARPU_BCSR_INTERFACE",
};

void starpu_bcsr_data_register(starpu_data_handle_t *handle, int home_node, uint32_t nnz, uint32_t nrow, uintptr_t nzval,
			       uint32_t *colind, uint32_t *rowptr, uint32_t firstentry, uint32_t r, uint32_t c, size_t elemsize)
{
	if (handle)
		*handle = NULL;
	if (home_node >= 0 && (!rowptr || (nnz && (!nzval || !colind))))
	{
		rt_error("starpu_bcsr_data_register: an array is NULL with home node %d", home_node);
		return;
	}
	if (!r || !c)
	{
		rt_error("starpu_bcsr_data_register: block size %ux%u is empty", r, c);
		return;
	}
	struct starpu_bcsr_interface b = {
		.id = STARPU_BCSR_INTERFACE_ID,
		.nnz = nnz, .nrow = nrow, .nzval = nzval, .colind = colind, .rowptr = rowptr,
		.firstentry = firstentry, .r = r, .c = c, .elemsize = elemsize,
	};
	data_register_common(handle, home_node, &b, &starpu_interface_bcsr_ops);
}

static struct starpu_bcsr_interface *local_iface(starpu_data_handle_t handle)
{
	return data_accessor_iface(handle, starpu_worker_get_local_memory_node());
}

uint32_t starpu_bcsr_get_nnz(starpu_data_handle_t handle) { return home_iface(handle)->nnz; }
uint32_t starpu_bcsr_get_nrow(starpu_data_handle_t handle) { return home_iface(handle)->nrow; }
uint32_t starpu_bcsr_get_firstentry(starpu_data_handle_t handle) { return home_iface(handle)->firstentry; }
size_t starpu_bcsr_get_elemsize(starpu_data_handle_t handle) { return home_iface(handle)->elemsize; }
uint32_t starpu_bcsr_get_r(starpu_data_handle_t handle) { return home_iface(handle)->r; }
uint32_t starpu_bcsr_get_c(starpu_data_handle_t handle) { return home_iface(handle)->c; }
uintptr_t starpu_bcsr_get_local_nzval(starpu_data_handle_t handle) { return local_iface(handle)->nzval; }
uint32_t *starpu_bcsr_get_local_colind(starpu_data_handle_t handle) { return local_iface(handle)->colind; }
uint32_t *starpu_bcsr_get_local_rowptr(starpu_data_handle_t handle) { return local_iface(handle)->rowptr; }
