/* std_filters.c — the standard filters: how a vector, matrix, 3D block,
 * CSR or BCSR matrix is cut into pieces. Each filter fills the interface of
 * one piece from its parent's on the same memory node; the piece's buffer
 * is a view into the parent's (same dev_handle, larger offset).
 *
 * Filters cannot fail, so partitioning first checks the arguments of the
 * standard ones with data_filter_validate (too many pieces, shadows larger
 * than the data, lengths that do not add up).
 */
#include "data/data.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

void starpu_filter_nparts_compute_chunk_size_and_offset(unsigned n, unsigned nparts, size_t elemsize, unsigned id,
							unsigned ld, unsigned *chunk_size, size_t *offset)
{
	unsigned base = n / nparts, extra = n % nparts;
	if (chunk_size)
		*chunk_size = base + (id < extra ? 1 : 0);
	if (offset)
		*offset = ((size_t) id * base + (id < extra ? id : extra)) * ld * elemsize;
}

/* A piece's buffer: off bytes into its parent's (same dev_handle, larger
 * offset; ptr too when the parent's is addressable). */
static void view_at(uintptr_t *ptr, size_t *offset, uintptr_t fptr, uintptr_t fdev, size_t foffset, size_t off)
{
	if (!fdev)
		return;
	if (fptr)
		*ptr = fptr + off;
	*offset = foffset + off;
}

/* ------------------------------------------------------------------ */
/* Vectors. */

static void vector_piece(struct starpu_vector_interface *f, struct starpu_vector_interface *c, unsigned first, unsigned nx)
{
	size_t off = (size_t) first * f->elemsize;
	*c = *f;
	c->nx = nx;
	c->allocsize = (size_t) nx * f->elemsize;
	c->slice_base = f->slice_base + first;
	view_at(&c->ptr, &c->offset, f->ptr, f->dev_handle, f->offset, off);
}

void starpu_vector_filter_block(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) f;
	struct starpu_vector_interface *v = father_interface;
	unsigned chunk;
	size_t off;
	starpu_filter_nparts_compute_chunk_size_and_offset(v->nx, nparts, 1, id, 1, &chunk, &off);
	vector_piece(v, child_interface, (unsigned) off, chunk);
}

/* Shadow filters: a margin of that many elements on each side. The inner
 * part (without the margins) is cut evenly; each piece gets its margins.
 * As in StarPU 1.3, the width is filter_arg_ptr (cast to a pointer), not
 * filter_arg. */
static unsigned shadow_of(const struct starpu_data_filter *f)
{
	return (unsigned) (uintptr_t) f->filter_arg_ptr;
}

void starpu_vector_filter_block_shadow(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	struct starpu_vector_interface *v = father_interface;
	unsigned shadow = shadow_of(f), chunk;
	size_t off;
	starpu_filter_nparts_compute_chunk_size_and_offset(v->nx - 2 * shadow, nparts, 1, id, 1, &chunk, &off);
	vector_piece(v, child_interface, (unsigned) off, chunk + 2 * shadow);
}

void starpu_vector_filter_list(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) nparts;
	const uint32_t *len = f->filter_arg_ptr;
	unsigned first = 0;
	for (unsigned i = 0; i < id; i++)
		first += len[i];
	vector_piece(father_interface, child_interface, first, len[id]);
}

void starpu_vector_filter_list_long(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) nparts;
	const long *len = f->filter_arg_ptr;
	unsigned first = 0;
	for (unsigned i = 0; i < id; i++)
		first += (unsigned) len[i];
	vector_piece(father_interface, child_interface, first, (unsigned) len[id]);
}

void starpu_vector_filter_divide_in_2(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) nparts;
	struct starpu_vector_interface *v = father_interface;
	unsigned len0 = f->filter_arg;
	if (id == 0)
		vector_piece(v, child_interface, 0, len0);
	else
		vector_piece(v, child_interface, len0, v->nx - len0);
}

/* ------------------------------------------------------------------ */
/* Matrices (column-major: nx contiguous elements, ny columns ld apart). */

static void matrix_piece(struct starpu_matrix_interface *f, struct starpu_matrix_interface *c,
			 unsigned nx, unsigned ny, size_t off)
{
	*c = *f;
	c->nx = nx;
	c->ny = ny;
	c->allocsize = (size_t) nx * ny * f->elemsize;
	view_at(&c->ptr, &c->offset, f->ptr, f->dev_handle, f->offset, off);
}

void starpu_matrix_filter_block(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) f;
	struct starpu_matrix_interface *m = father_interface;
	unsigned chunk;
	size_t off;
	starpu_filter_nparts_compute_chunk_size_and_offset(m->nx, nparts, m->elemsize, id, 1, &chunk, &off);
	matrix_piece(m, child_interface, chunk, m->ny, off);
}

void starpu_matrix_filter_block_shadow(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	struct starpu_matrix_interface *m = father_interface;
	unsigned shadow = shadow_of(f), chunk;
	size_t off;
	starpu_filter_nparts_compute_chunk_size_and_offset(m->nx - 2 * shadow, nparts, m->elemsize, id, 1, &chunk, &off);
	matrix_piece(m, child_interface, chunk + 2 * shadow, m->ny, off);
}

void starpu_matrix_filter_vertical_block(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) f;
	struct starpu_matrix_interface *m = father_interface;
	unsigned chunk;
	size_t off;
	starpu_filter_nparts_compute_chunk_size_and_offset(m->ny, nparts, m->elemsize, id, m->ld, &chunk, &off);
	matrix_piece(m, child_interface, m->nx, chunk, off);
}

void starpu_matrix_filter_vertical_block_shadow(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	struct starpu_matrix_interface *m = father_interface;
	unsigned shadow = shadow_of(f), chunk;
	size_t off;
	starpu_filter_nparts_compute_chunk_size_and_offset(m->ny - 2 * shadow, nparts, m->elemsize, id, m->ld, &chunk, &off);
	matrix_piece(m, child_interface, m->nx, chunk + 2 * shadow, off);
}

/* ------------------------------------------------------------------ */
/* 3D blocks: element (x,y,z) at x + y*ldy + z*ldz. */

static void block_piece(struct starpu_block_interface *f, struct starpu_block_interface *c,
			unsigned nx, unsigned ny, unsigned nz, size_t off)
{
	*c = *f;
	c->nx = nx;
	c->ny = ny;
	c->nz = nz;
	view_at(&c->ptr, &c->offset, f->ptr, f->dev_handle, f->offset, off);
}

/* dim: 0 cuts x, 1 cuts y, 2 cuts z. */
static void block_cut(void *father_interface, void *child_interface, unsigned shadow, unsigned dim, unsigned id, unsigned nparts)
{
	struct starpu_block_interface *b = father_interface;
	unsigned n[3] = { b->nx, b->ny, b->nz };
	unsigned ld[3] = { 1, b->ldy, b->ldz };
	unsigned chunk;
	size_t off;
	starpu_filter_nparts_compute_chunk_size_and_offset(n[dim] - 2 * shadow, nparts, b->elemsize, id, ld[dim], &chunk, &off);
	n[dim] = chunk + 2 * shadow;
	block_piece(b, child_interface, n[0], n[1], n[2], off);
}

void starpu_block_filter_block(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) f;
	block_cut(father_interface, child_interface, 0, 0, id, nparts);
}

void starpu_block_filter_block_shadow(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	block_cut(father_interface, child_interface, shadow_of(f), 0, id, nparts);
}

void starpu_block_filter_vertical_block(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) f;
	block_cut(father_interface, child_interface, 0, 1, id, nparts);
}

void starpu_block_filter_vertical_block_shadow(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	block_cut(father_interface, child_interface, shadow_of(f), 1, id, nparts);
}

void starpu_block_filter_depth_block(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) f;
	block_cut(father_interface, child_interface, 0, 2, id, nparts);
}

void starpu_block_filter_depth_block_shadow(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	block_cut(father_interface, child_interface, shadow_of(f), 2, id, nparts);
}

/* ------------------------------------------------------------------ */
/* Sparse matrices. The pieces point into the parent's arrays; rowptr
 * values stay counted from the parent's first entry, so a piece's
 * firstentry is its first row's start. These filters read rowptr: they run
 * on the view node (RAM). */

void starpu_csr_filter_vertical_block(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) f;
	struct starpu_csr_interface *p = father_interface, *c = child_interface;
	unsigned rows;
	size_t first;
	starpu_filter_nparts_compute_chunk_size_and_offset(p->nrow, nparts, 1, id, 1, &rows, &first);
	uint32_t start = p->rowptr[first] - p->firstentry;
	uint32_t end = p->rowptr[first + rows] - p->firstentry;
	*c = *p;
	c->nrow = rows;
	c->nnz = end - start;
	c->nzval = p->nzval + (size_t) start * p->elemsize;
	c->colind = p->colind + start;
	c->rowptr = p->rowptr + first;
	c->firstentry = p->rowptr[first];
}

void starpu_bcsr_filter_vertical_block(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) f;
	struct starpu_bcsr_interface *p = father_interface, *c = child_interface;
	unsigned rows;
	size_t first;
	starpu_filter_nparts_compute_chunk_size_and_offset(p->nrow, nparts, 1, id, 1, &rows, &first);
	uint32_t start = p->rowptr[first] - p->firstentry;
	uint32_t end = p->rowptr[first + rows] - p->firstentry;
	*c = *p;
	c->nrow = rows;
	c->nnz = end - start;
	c->nzval = p->nzval + (size_t) start * p->r * p->c * p->elemsize;
	c->colind = p->colind + start;
	c->rowptr = p->rowptr + first;
	c->firstentry = p->rowptr[first];
}

/* One matrix piece per block: an r x c block is stored row by row, so as a
 * column-major matrix it is c elements (contiguous) by r. */
void starpu_bcsr_filter_canonical_block(void *father_interface, void *child_interface, struct starpu_data_filter *f, unsigned id, unsigned nparts)
{
	(void) f;
	(void) nparts;
	struct starpu_bcsr_interface *p = father_interface;
	struct starpu_matrix_interface *m = child_interface;
	size_t block = (size_t) p->r * p->c * p->elemsize;
	*m = (struct starpu_matrix_interface) {
		.id = STARPU_MATRIX_INTERFACE_ID,
		.ptr = p->nzval ? p->nzval + id * block : 0,
		.dev_handle = p->nzval ? p->nzval + id * block : 0,
		.offset = 0,
		.nx = p->c,
		.ny = p->r,
		.ld = p->c,
		.elemsize = p->elemsize,
		.allocsize = block,
	};
}

unsigned starpu_bcsr_filter_canonical_block_get_nchildren(struct starpu_data_filter *f, starpu_data_handle_t handle)
{
	(void) f;
	return starpu_bcsr_get_nnz(handle);
}

struct starpu_data_interface_ops *starpu_bcsr_filter_canonical_block_child_ops(struct starpu_data_filter *f, unsigned child)
{
	(void) f;
	(void) child;
	return &starpu_interface_matrix_ops;
}

/* ------------------------------------------------------------------ */
/* Argument checks. */

#define WHY(...) (snprintf(why, whylen, __VA_ARGS__), -EINVAL)

typedef void (*filter_fn)(void *, void *, struct starpu_data_filter *, unsigned, unsigned);

/* The standard filters that cut evenly: which interface, which dimension
 * (0: x or rows, 1: y, 2: z), with or without shadow. */
static const struct even_filter
{
	filter_fn fn;
	const char *name;
	enum starpu_data_interface_id iface;
	unsigned dim;
	unsigned shadow;
} even_filters[] = {
	{ starpu_vector_filter_block, "starpu_vector_filter_block", STARPU_VECTOR_INTERFACE_ID, 0, 0 },
	{ starpu_vector_filter_block_shadow, "starpu_vector_filter_block_shadow", STARPU_VECTOR_INTERFACE_ID, 0, 1 },
	{ starpu_matrix_filter_block, "starpu_matrix_filter_block", STARPU_MATRIX_INTERFACE_ID, 0, 0 },
	{ starpu_matrix_filter_block_shadow, "starpu_matrix_filter_block_shadow", STARPU_MATRIX_INTERFACE_ID, 0, 1 },
	{ starpu_matrix_filter_vertical_block, "starpu_matrix_filter_vertical_block", STARPU_MATRIX_INTERFACE_ID, 1, 0 },
	{ starpu_matrix_filter_vertical_block_shadow, "starpu_matrix_filter_vertical_block_shadow", STARPU_MATRIX_INTERFACE_ID, 1, 1 },
	{ starpu_block_filter_block, "starpu_block_filter_block", STARPU_BLOCK_INTERFACE_ID, 0, 0 },
	{ starpu_block_filter_block_shadow, "starpu_block_filter_block_shadow", STARPU_BLOCK_INTERFACE_ID, 0, 1 },
	{ starpu_block_filter_vertical_block, "starpu_block_filter_vertical_block", STARPU_BLOCK_INTERFACE_ID, 1, 0 },
	{ starpu_block_filter_vertical_block_shadow, "starpu_block_filter_vertical_block_shadow", STARPU_BLOCK_INTERFACE_ID, 1, 1 },
	{ starpu_block_filter_depth_block, "starpu_block_filter_depth_block", STARPU_BLOCK_INTERFACE_ID, 2, 0 },
	{ starpu_block_filter_depth_block_shadow, "starpu_block_filter_depth_block_shadow", STARPU_BLOCK_INTERFACE_ID, 2, 1 },
	{ starpu_csr_filter_vertical_block, "starpu_csr_filter_vertical_block", STARPU_CSR_INTERFACE_ID, 0, 0 },
	{ starpu_bcsr_filter_vertical_block, "starpu_bcsr_filter_vertical_block", STARPU_BCSR_INTERFACE_ID, 0, 0 },
};

static const char *iface_name(enum starpu_data_interface_id id)
{
	switch (id)
	{
	case STARPU_VECTOR_INTERFACE_ID: return "vector";
	case STARPU_MATRIX_INTERFACE_ID: return "matrix";
	case STARPU_BLOCK_INTERFACE_ID: return "block";
	case STARPU_CSR_INTERFACE_ID: return "CSR";
	case STARPU_BCSR_INTERFACE_ID: return "BCSR";
	case STARPU_VARIABLE_INTERFACE_ID: return "variable";
	case STARPU_COO_INTERFACE_ID: return "COO";
	case STARPU_VOID_INTERFACE_ID: return "void";
	default: return "non-standard";
	}
}

/* The length of dimension dim of a standard interface. */
static unsigned dim_length(void *iface, enum starpu_data_interface_id id, unsigned dim)
{
	switch (id)
	{
	case STARPU_VECTOR_INTERFACE_ID:
		return ((struct starpu_vector_interface *) iface)->nx;
	case STARPU_MATRIX_INTERFACE_ID:
		return dim ? ((struct starpu_matrix_interface *) iface)->ny : ((struct starpu_matrix_interface *) iface)->nx;
	case STARPU_BLOCK_INTERFACE_ID:
	{
		struct starpu_block_interface *b = iface;
		return dim == 0 ? b->nx : dim == 1 ? b->ny : b->nz;
	}
	case STARPU_CSR_INTERFACE_ID:
		return ((struct starpu_csr_interface *) iface)->nrow;
	case STARPU_BCSR_INTERFACE_ID:
		return ((struct starpu_bcsr_interface *) iface)->nrow;
	default:
		return 0;
	}
}

static int check_kind(const char *name, enum starpu_data_interface_id want, void *father_interface, char *why, size_t whylen)
{
	/* Every standard interface starts with its id. */
	enum starpu_data_interface_id got = *(enum starpu_data_interface_id *) father_interface;
	if (got != want)
		return WHY("%s cuts %s data, the handle holds %s data", name, iface_name(want), iface_name(got));
	return 0;
}

int data_filter_validate(struct starpu_data_filter *f, void *father_interface, unsigned nparts, char *why, size_t whylen)
{
	filter_fn fn = f->filter_func;
	for (size_t i = 0; i < sizeof(even_filters) / sizeof(even_filters[0]); i++)
	{
		const struct even_filter *e = &even_filters[i];
		if (fn != e->fn)
			continue;
		if (check_kind(e->name, e->iface, father_interface, why, whylen))
			return -EINVAL;
		unsigned n = dim_length(father_interface, e->iface, e->dim);
		unsigned shadow = e->shadow ? shadow_of(f) : 0;
		if (e->shadow && (uintptr_t) f->filter_arg_ptr > UINT_MAX / 2)
			return WHY("%s: the shadow (filter_arg_ptr %p) is not a width", e->name, f->filter_arg_ptr);
		if (2 * (size_t) shadow >= n && shadow)
			return WHY("%s: the shadow (filter_arg_ptr %u) leaves nothing of the %u elements to cut", e->name, shadow, n);
		if (nparts > n - 2 * shadow)
			return WHY("%s: %u pieces of %u elements (at most one piece per element)", e->name, nparts, n - 2 * shadow);
		return 0;
	}
	if (fn == starpu_vector_filter_divide_in_2)
	{
		if (check_kind("starpu_vector_filter_divide_in_2", STARPU_VECTOR_INTERFACE_ID, father_interface, why, whylen))
			return -EINVAL;
		struct starpu_vector_interface *v = father_interface;
		if (nparts != 2)
			return WHY("starpu_vector_filter_divide_in_2: nchildren is %u, must be 2", nparts);
		if (f->filter_arg > v->nx)
			return WHY("starpu_vector_filter_divide_in_2: a first part of %u elements in a vector of %u", f->filter_arg, v->nx);
		return 0;
	}
	if (fn == starpu_vector_filter_list || fn == starpu_vector_filter_list_long)
	{
		int is_long = fn == starpu_vector_filter_list_long;
		const char *name = is_long ? "starpu_vector_filter_list_long" : "starpu_vector_filter_list";
		if (check_kind(name, STARPU_VECTOR_INTERFACE_ID, father_interface, why, whylen))
			return -EINVAL;
		if (!f->filter_arg_ptr)
			return WHY("%s: filter_arg_ptr (the piece lengths) is NULL", name);
		size_t total = 0;
		for (unsigned i = 0; i < nparts; i++)
		{
			long len = is_long ? ((const long *) f->filter_arg_ptr)[i] : (long) ((const uint32_t *) f->filter_arg_ptr)[i];
			if (len < 0)
				return WHY("%s: piece %u has a negative length %ld", name, i, len);
			total += (size_t) len;
		}
		struct starpu_vector_interface *v = father_interface;
		if (total > v->nx)
			return WHY("%s: the piece lengths add up to %zu, more than the %u elements of the vector", name, total, v->nx);
		return 0;
	}
	if (fn == starpu_bcsr_filter_canonical_block)
	{
		if (check_kind("starpu_bcsr_filter_canonical_block", STARPU_BCSR_INTERFACE_ID, father_interface, why, whylen))
			return -EINVAL;
		struct starpu_bcsr_interface *p = father_interface;
		if (nparts != p->nnz)
			return WHY("starpu_bcsr_filter_canonical_block: %u pieces for %u blocks (set get_nchildren)", nparts, p->nnz);
		if (!f->get_child_ops)
			return WHY("starpu_bcsr_filter_canonical_block: its pieces are matrices, set get_child_ops");
		return 0;
	}
	return 0;
}
