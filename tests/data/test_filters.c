/* test_filters.c — partitioning data with every standard filter, the
 * synchronous way (starpu_data_partition / unpartition, map_filters);
 * the asynchronous way (partition plans) is test_partition_async.c.
 *
 * For each filter: the pieces' shapes and pointers against the cut
 * computed here (uneven sizes: 10 elements in 3 pieces), tasks on the
 * pieces that first read them (each piece shows the parent's data, shadow
 * margins included) and then write distinct values into their own part,
 * and after unpartitioning the parent compared byte for byte with what the
 * writes should have made of it (padding left alone).
 */
#include <starpu.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filters_common.h"
#include "vtest.h"

/* ------------------------------------------------------------------ */
/* Dense data (vector, matrix, block) seen as 3D: element (x,y,z) at
 * x + y*ldy + z*ldz. */

struct geom
{
	uintptr_t ptr;
	unsigned nx, ny, nz, ldy, ldz;
	size_t elemsize;
};

static void geom_of(void *iface, struct geom *g)
{
	switch (*(enum starpu_data_interface_id *) iface)
	{
	case STARPU_VECTOR_INTERFACE_ID:
		*g = (struct geom) { STARPU_VECTOR_GET_PTR(iface), STARPU_VECTOR_GET_NX(iface), 1, 1,
				     STARPU_VECTOR_GET_NX(iface), STARPU_VECTOR_GET_NX(iface), STARPU_VECTOR_GET_ELEMSIZE(iface) };
		break;
	case STARPU_MATRIX_INTERFACE_ID:
		*g = (struct geom) { STARPU_MATRIX_GET_PTR(iface), STARPU_MATRIX_GET_NX(iface), STARPU_MATRIX_GET_NY(iface), 1,
				     STARPU_MATRIX_GET_LD(iface), STARPU_MATRIX_GET_LD(iface) * STARPU_MATRIX_GET_NY(iface),
				     STARPU_MATRIX_GET_ELEMSIZE(iface) };
		break;
	case STARPU_BLOCK_INTERFACE_ID:
		*g = (struct geom) { STARPU_BLOCK_GET_PTR(iface), STARPU_BLOCK_GET_NX(iface), STARPU_BLOCK_GET_NY(iface),
				     STARPU_BLOCK_GET_NZ(iface), STARPU_BLOCK_GET_LDY(iface), STARPU_BLOCK_GET_LDZ(iface),
				     STARPU_BLOCK_GET_ELEMSIZE(iface) };
		break;
	default:
		memset(g, 0, sizeof(*g));
	}
}

/* Elements are int32 or int64. */
static int64_t elem_get(uintptr_t base, size_t elemsize, size_t idx)
{
	if (elemsize == 4)
		return ((const int32_t *) base)[idx];
	return ((const int64_t *) base)[idx];
}

static void elem_set(uintptr_t base, size_t elemsize, size_t idx, int64_t v)
{
	if (elemsize == 4)
		((int32_t *) base)[idx] = (int32_t) v;
	else
		((int64_t *) base)[idx] = v;
}

static size_t geom_index(const struct geom *g, unsigned x, unsigned y, unsigned z)
{
	return x + (size_t) y * g->ldy + (size_t) z * g->ldz;
}

/* What a piece must be, in the parent's coordinates; lo/hi: margins (per
 * dimension) that the piece's task must not write. */
struct box
{
	unsigned x0, y0, z0, nx, ny, nz;
	unsigned lo[3], hi[3];
};

/* Read task: copies what it sees, packed, into values (capacity n). */
struct snap
{
	struct geom seen;
	int64_t *values;
	size_t n;
};

static void snap_cpu(void *buffers[], void *arg)
{
	struct snap *s = arg;
	geom_of(buffers[0], &s->seen);
	const struct geom *g = &s->seen;
	if ((size_t) g->nx * g->ny * g->nz != s->n)
		return;
	size_t k = 0;
	for (unsigned z = 0; z < g->nz; z++)
		for (unsigned y = 0; y < g->ny; y++)
			for (unsigned x = 0; x < g->nx; x++)
				s->values[k++] = elem_get(g->ptr, g->elemsize, geom_index(g, x, y, z));
}

static struct starpu_codelet snap_cl = {
	.cpu_funcs = { snap_cpu },
	.nbuffers = 1,
	.modes = { STARPU_R },
	.name = "snap",
};

/* The value piece `tag` writes at its local (x,y,z). */
static int64_t written(int tag, unsigned x, unsigned y, unsigned z)
{
	return (int64_t) tag * 1000000 + x + 100 * y + 10000 * z;
}

struct wr
{
	int tag;
	unsigned lo[3], hi[3];
};

static void write_cpu(void *buffers[], void *arg)
{
	const struct wr *w = arg;
	struct geom g;
	geom_of(buffers[0], &g);
	unsigned n[3] = { g.nx, g.ny, g.nz };
	for (unsigned z = w->lo[2]; z + w->hi[2] < n[2]; z++)
		for (unsigned y = w->lo[1]; y + w->hi[1] < n[1]; y++)
			for (unsigned x = w->lo[0]; x + w->hi[0] < n[0]; x++)
				elem_set(g.ptr, g.elemsize, geom_index(&g, x, y, z), written(w->tag, x, y, z));
}

static struct starpu_codelet write_cl = {
	.cpu_funcs = { write_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "write",
};

/* Adds 1 to every element, slowly: tasks that should wait for it would
 * otherwise overtake it. */
static void slow_add_cpu(void *buffers[], void *arg)
{
	(void) arg;
	vtest_sleep_ms(20);
	struct geom g;
	geom_of(buffers[0], &g);
	for (unsigned z = 0; z < g.nz; z++)
		for (unsigned y = 0; y < g.ny; y++)
			for (unsigned x = 0; x < g.nx; x++)
			{
				size_t i = geom_index(&g, x, y, z);
				elem_set(g.ptr, g.elemsize, i, elem_get(g.ptr, g.elemsize, i) + 1);
			}
}

static struct starpu_codelet slow_add_cl = {
	.cpu_funcs = { slow_add_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "slow_add",
};

/* A parent buffer of the given geometry (ldy/ldz include padding), filled
 * with distinct values, padding with a sentinel. */
struct parent
{
	enum starpu_data_interface_id kind;
	struct geom g;
	size_t nstore;		/* elements of storage */
	uintptr_t data;		/* owned */
	uintptr_t expect;	/* owned: what data must become */
	starpu_data_handle_t h;
};

static int64_t initial(unsigned x, unsigned y, unsigned z)
{
	return 7 + 3 * (int64_t) x + 1000 * (int64_t) y + 100000 * (int64_t) z;
}

static void parent_init(struct parent *p, enum starpu_data_interface_id kind, size_t elemsize,
			unsigned nx, unsigned ny, unsigned nz, unsigned ldy, unsigned ldz)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->nstore = (size_t) ldz * nz;
	p->data = (uintptr_t) malloc(p->nstore * elemsize);
	p->expect = (uintptr_t) malloc(p->nstore * elemsize);
	p->g = (struct geom) { p->data, nx, ny, nz, ldy, ldz, elemsize };
	for (size_t i = 0; i < p->nstore; i++)
		elem_set(p->data, elemsize, i, -99);
	for (unsigned z = 0; z < nz; z++)
		for (unsigned y = 0; y < ny; y++)
			for (unsigned x = 0; x < nx; x++)
				elem_set(p->data, elemsize, geom_index(&p->g, x, y, z), initial(x, y, z));
	memcpy((void *) p->expect, (void *) p->data, p->nstore * elemsize);
	switch (kind)
	{
	case STARPU_VECTOR_INTERFACE_ID:
		starpu_vector_data_register(&p->h, STARPU_MAIN_RAM, p->data, nx, elemsize);
		break;
	case STARPU_MATRIX_INTERFACE_ID:
		starpu_matrix_data_register(&p->h, STARPU_MAIN_RAM, p->data, ldy, nx, ny, elemsize);
		break;
	default:
		starpu_block_data_register(&p->h, STARPU_MAIN_RAM, p->data, ldy, ldz, nx, ny, nz, elemsize);
		break;
	}
}

static void parent_fini(struct parent *p)
{
	if (p->h)
		starpu_data_unregister(p->h);
	free((void *) p->data);
	free((void *) p->expect);
}

/* The application-side description of a piece against the expected box. */
static void check_piece_shape(struct parent *p, starpu_data_handle_t c, const struct box *b)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(c), p->kind);
	uintptr_t where = p->data + geom_index(&p->g, b->x0, b->y0, b->z0) * p->g.elemsize;
	size_t size = (size_t) b->nx * b->ny * b->nz * p->g.elemsize;
	CU_ASSERT_EQUAL(starpu_data_get_size(c), size);
	switch (p->kind)
	{
	case STARPU_VECTOR_INTERFACE_ID:
		CU_ASSERT_EQUAL(starpu_vector_get_nx(c), b->nx);
		CU_ASSERT_EQUAL(starpu_vector_get_elemsize(c), p->g.elemsize);
		CU_ASSERT_EQUAL(starpu_vector_get_local_ptr(c), where);
		break;
	case STARPU_MATRIX_INTERFACE_ID:
		CU_ASSERT_EQUAL(starpu_matrix_get_nx(c), b->nx);
		CU_ASSERT_EQUAL(starpu_matrix_get_ny(c), b->ny);
		CU_ASSERT_EQUAL(starpu_matrix_get_local_ld(c), p->g.ldy);
		CU_ASSERT_EQUAL(starpu_matrix_get_elemsize(c), p->g.elemsize);
		CU_ASSERT_EQUAL(starpu_matrix_get_local_ptr(c), where);
		break;
	default:
		CU_ASSERT_EQUAL(starpu_block_get_nx(c), b->nx);
		CU_ASSERT_EQUAL(starpu_block_get_ny(c), b->ny);
		CU_ASSERT_EQUAL(starpu_block_get_nz(c), b->nz);
		CU_ASSERT_EQUAL(starpu_block_get_local_ldy(c), p->g.ldy);
		CU_ASSERT_EQUAL(starpu_block_get_local_ldz(c), p->g.ldz);
		CU_ASSERT_EQUAL(starpu_block_get_elemsize(c), p->g.elemsize);
		CU_ASSERT_EQUAL(starpu_block_get_local_ptr(c), where);
		break;
	}
}

/* Runs the read tasks then the write tasks on the pieces (piece i writes
 * tag i + 1 inside its margins), checks what each read, and records in
 * p->expect what the writes must make of the parent. The pieces' data is
 * expected to be the parent's current expect. */
static void exercise_pieces(struct parent *p, unsigned n, starpu_data_handle_t *pieces, const struct box *boxes)
{
	struct snap *snaps = calloc(n, sizeof(*snaps));
	struct wr *wrs = calloc(n, sizeof(*wrs));
	for (unsigned i = 0; i < n; i++)
	{
		snaps[i].n = (size_t) boxes[i].nx * boxes[i].ny * boxes[i].nz;
		snaps[i].values = calloc(snaps[i].n + 1, sizeof(int64_t));
		CU_ASSERT_EQUAL(submit(&snap_cl, &snaps[i], pieces[i]), 0);
	}
	/* Shadow pieces overlap: the reads end before any write starts. */
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	struct geom eg = p->g;
	eg.ptr = p->expect;
	for (unsigned i = 0; i < n; i++)
	{
		const struct box *b = &boxes[i];
		const struct geom *s = &snaps[i].seen;
		CU_ASSERT_EQUAL(s->nx, b->nx);
		CU_ASSERT_EQUAL(s->ny, b->ny);
		CU_ASSERT_EQUAL(s->nz, b->nz);
		CU_ASSERT_EQUAL(s->elemsize, p->g.elemsize);
		CU_ASSERT_EQUAL(s->ptr, p->data + geom_index(&p->g, b->x0, b->y0, b->z0) * p->g.elemsize);
		size_t k = 0, bad = 0;
		for (unsigned z = 0; z < b->nz; z++)
			for (unsigned y = 0; y < b->ny; y++)
				for (unsigned x = 0; x < b->nx; x++)
					bad += snaps[i].values[k++] != elem_get(p->expect, p->g.elemsize,
										geom_index(&eg, b->x0 + x, b->y0 + y, b->z0 + z));
		CU_ASSERT_EQUAL(bad, 0);
		free(snaps[i].values);
	}
	for (unsigned i = 0; i < n; i++)
	{
		wrs[i].tag = (int) i + 1;
		memcpy(wrs[i].lo, boxes[i].lo, sizeof(wrs[i].lo));
		memcpy(wrs[i].hi, boxes[i].hi, sizeof(wrs[i].hi));
		CU_ASSERT_EQUAL(submit(&write_cl, &wrs[i], pieces[i]), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (unsigned i = 0; i < n; i++)
	{
		const struct box *b = &boxes[i];
		for (unsigned z = b->lo[2]; z + b->hi[2] < b->nz; z++)
			for (unsigned y = b->lo[1]; y + b->hi[1] < b->ny; y++)
				for (unsigned x = b->lo[0]; x + b->hi[0] < b->nx; x++)
					elem_set(p->expect, p->g.elemsize, geom_index(&eg, b->x0 + x, b->y0 + y, b->z0 + z),
						 written((int) i + 1, x, y, z));
	}
	free(snaps);
	free(wrs);
}

/* The parent's buffer, padding included, is what the pieces' writes made
 * of it; and the parent works again (a task on it). */
static void check_parent(struct parent *p)
{
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(p->h, STARPU_R), 0);
	CU_ASSERT(memcmp((void *) p->data, (void *) p->expect, p->nstore * p->g.elemsize) == 0);
	starpu_data_release(p->h);
	CU_ASSERT_EQUAL(submit(&slow_add_cl, NULL, p->h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(p->h, STARPU_R), 0);
	struct geom eg = p->g;
	eg.ptr = p->expect;
	for (unsigned z = 0; z < p->g.nz; z++)
		for (unsigned y = 0; y < p->g.ny; y++)
			for (unsigned x = 0; x < p->g.nx; x++)
			{
				size_t i = geom_index(&eg, x, y, z);
				elem_set(p->expect, p->g.elemsize, i, elem_get(p->expect, p->g.elemsize, i) + 1);
			}
	CU_ASSERT(memcmp((void *) p->data, (void *) p->expect, p->nstore * p->g.elemsize) == 0);
	starpu_data_release(p->h);
}

/* The whole synchronous cycle with filter f, whose pieces must be boxes. A
 * slow task on the parent submitted just before partitioning must be done
 * before the pieces are made. */
static void run_sync(struct parent *p, struct starpu_data_filter *f, unsigned n, const struct box *boxes)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->h);
	CU_ASSERT_EQUAL(submit(&slow_add_cl, NULL, p->h), 0);
	struct geom eg = p->g;
	eg.ptr = p->expect;
	for (unsigned z = 0; z < p->g.nz; z++)
		for (unsigned y = 0; y < p->g.ny; y++)
			for (unsigned x = 0; x < p->g.nx; x++)
			{
				size_t i = geom_index(&eg, x, y, z);
				elem_set(p->expect, p->g.elemsize, i, elem_get(p->expect, p->g.elemsize, i) + 1);
			}
	starpu_data_partition(p->h, f);
	CU_ASSERT_EQUAL_FATAL(starpu_data_get_nb_children(p->h), (int) n);
	starpu_data_handle_t *pieces = calloc(n, sizeof(*pieces));
	for (unsigned i = 0; i < n; i++)
	{
		pieces[i] = starpu_data_get_child(p->h, i);
		CU_ASSERT_PTR_EQUAL(starpu_data_get_sub_data(p->h, 1, i), pieces[i]);
		check_piece_shape(p, pieces[i], &boxes[i]);
	}
	exercise_pieces(p, n, pieces, boxes);
	starpu_data_unpartition(p->h, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL(starpu_data_get_nb_children(p->h), 0);
	check_parent(p);
	free(pieces);
}

/* Boxes cutting dimension dim of an nx x ny x nz parent in n pieces, with
 * shadow elements of margin on each side of each piece. */
static void cut_boxes(unsigned nx, unsigned ny, unsigned nz, unsigned dim, unsigned n, unsigned shadow, struct box *boxes)
{
	unsigned len[3] = { nx, ny, nz };
	for (unsigned i = 0; i < n; i++)
	{
		unsigned first, l;
		split(len[dim] - 2 * shadow, n, i, &first, &l);
		struct box *b = &boxes[i];
		memset(b, 0, sizeof(*b));
		unsigned org[3] = { 0, 0, 0 }, ext[3] = { nx, ny, nz };
		org[dim] = first;
		ext[dim] = l + 2 * shadow;
		b->x0 = org[0];
		b->y0 = org[1];
		b->z0 = org[2];
		b->nx = ext[0];
		b->ny = ext[1];
		b->nz = ext[2];
		b->lo[dim] = b->hi[dim] = shadow;
	}
}

/* ---- vector filters ---------------------------------------------- */

static void test_vector_block(void)
{
	struct parent p;
	struct box boxes[4];
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	parent_init(&p, STARPU_VECTOR_INTERFACE_ID, sizeof(int64_t), 10, 1, 1, 10, 10);
	cut_boxes(10, 1, 1, 0, 3, 0, boxes);
	CU_ASSERT_EQUAL(boxes[0].nx, 4);	/* the split itself: 4 3 3 */
	CU_ASSERT_EQUAL(boxes[2].x0, 7);
	run_sync(&p, &f, 3, boxes);
	/* again with 4 pieces: 3 3 2 2 */
	f.nchildren = 4;
	cut_boxes(10, 1, 1, 0, 4, 0, boxes);
	run_sync(&p, &f, 4, boxes);
	parent_fini(&p);

	/* one piece per element */
	struct box one[5];
	parent_init(&p, STARPU_VECTOR_INTERFACE_ID, sizeof(int32_t), 5, 1, 1, 5, 5);
	f.nchildren = 5;
	cut_boxes(5, 1, 1, 0, 5, 0, one);
	run_sync(&p, &f, 5, one);
	parent_fini(&p);
}

static void test_vector_block_shadow(void)
{
	struct parent p;
	struct box boxes[3];
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block_shadow, .nchildren = 3, .filter_arg_ptr = (void *) (uintptr_t) 2 };
	parent_init(&p, STARPU_VECTOR_INTERFACE_ID, sizeof(int64_t), 14, 1, 1, 14, 14);
	cut_boxes(14, 1, 1, 0, 3, 2, boxes);
	CU_ASSERT_EQUAL(boxes[0].nx, 4 + 4);
	CU_ASSERT_EQUAL(boxes[1].x0, 4);
	run_sync(&p, &f, 3, boxes);
	parent_fini(&p);
}

static void list_boxes(const long *len, unsigned n, struct box *boxes)
{
	unsigned pos = 0;
	for (unsigned i = 0; i < n; i++)
	{
		memset(&boxes[i], 0, sizeof(boxes[i]));
		boxes[i].x0 = pos;
		boxes[i].nx = (unsigned) len[i];
		boxes[i].ny = boxes[i].nz = 1;
		pos += (unsigned) len[i];
	}
}

static void test_vector_list(void)
{
	struct parent p;
	struct box boxes[4];
	/* 10 of the 12 elements, in pieces of 3, 0, 5 and 2 */
	uint32_t len32[4] = { 3, 0, 5, 2 };
	long len[4] = { 3, 0, 5, 2 };
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_list, .nchildren = 4, .filter_arg_ptr = len32 };
	parent_init(&p, STARPU_VECTOR_INTERFACE_ID, sizeof(int64_t), 12, 1, 1, 12, 12);
	list_boxes(len, 4, boxes);
	run_sync(&p, &f, 4, boxes);
	parent_fini(&p);

	long llen[3] = { 4, 1, 5 };
	struct starpu_data_filter fl = { .filter_func = starpu_vector_filter_list_long, .nchildren = 3, .filter_arg_ptr = llen };
	parent_init(&p, STARPU_VECTOR_INTERFACE_ID, sizeof(int32_t), 10, 1, 1, 10, 10);
	list_boxes(llen, 3, boxes);
	run_sync(&p, &fl, 3, boxes);
	parent_fini(&p);
}

static void test_vector_divide_in_2(void)
{
	struct parent p;
	struct box boxes[2];
	long len[2] = { 3, 7 };
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_divide_in_2, .nchildren = 2, .filter_arg = 3 };
	parent_init(&p, STARPU_VECTOR_INTERFACE_ID, sizeof(int64_t), 10, 1, 1, 10, 10);
	list_boxes(len, 2, boxes);
	run_sync(&p, &f, 2, boxes);
	parent_fini(&p);
}

static const struct vtest_case vector_cases[] = {
	{ "block", test_vector_block },
	{ "block_shadow", test_vector_block_shadow },
	{ "list_and_list_long", test_vector_list },
	{ "divide_in_2", test_vector_divide_in_2 },
	VTEST_END
};

/* ---- matrix filters ---------------------------------------------- */

static void test_matrix_block(void)
{
	struct parent p;
	struct box boxes[3];
	struct starpu_data_filter f = { .filter_func = starpu_matrix_filter_block, .nchildren = 3 };
	parent_init(&p, STARPU_MATRIX_INTERFACE_ID, sizeof(int64_t), 10, 4, 1, 13, 13 * 4);
	cut_boxes(10, 4, 1, 0, 3, 0, boxes);
	run_sync(&p, &f, 3, boxes);
	parent_fini(&p);
}

static void test_matrix_block_shadow(void)
{
	struct parent p;
	struct box boxes[3];
	struct starpu_data_filter f = { .filter_func = starpu_matrix_filter_block_shadow, .nchildren = 3, .filter_arg_ptr = (void *) (uintptr_t) 1 };
	parent_init(&p, STARPU_MATRIX_INTERFACE_ID, sizeof(int32_t), 12, 5, 1, 15, 15 * 5);
	cut_boxes(12, 5, 1, 0, 3, 1, boxes);
	run_sync(&p, &f, 3, boxes);
	parent_fini(&p);
}

static void test_matrix_vertical_block(void)
{
	struct parent p;
	struct box boxes[3];
	struct starpu_data_filter f = { .filter_func = starpu_matrix_filter_vertical_block, .nchildren = 3 };
	parent_init(&p, STARPU_MATRIX_INTERFACE_ID, sizeof(int64_t), 4, 10, 1, 6, 6 * 10);
	cut_boxes(4, 10, 1, 1, 3, 0, boxes);
	run_sync(&p, &f, 3, boxes);
	parent_fini(&p);
}

static void test_matrix_vertical_block_shadow(void)
{
	struct parent p;
	struct box boxes[3];
	struct starpu_data_filter f = { .filter_func = starpu_matrix_filter_vertical_block_shadow, .nchildren = 3, .filter_arg_ptr = (void *) (uintptr_t) 2 };
	parent_init(&p, STARPU_MATRIX_INTERFACE_ID, sizeof(int64_t), 3, 14, 1, 5, 5 * 14);
	cut_boxes(3, 14, 1, 1, 3, 2, boxes);
	run_sync(&p, &f, 3, boxes);
	parent_fini(&p);
}

static const struct vtest_case matrix_cases[] = {
	{ "block", test_matrix_block },
	{ "block_shadow", test_matrix_block_shadow },
	{ "vertical_block", test_matrix_vertical_block },
	{ "vertical_block_shadow", test_matrix_vertical_block_shadow },
	VTEST_END
};

/* ---- 3D block filters ----------------------------------------------- */

/* Cuts dimension dim (10 elements, plus margins) of a padded block. */
static void run_block_filter(void (*fn)(void *, void *, struct starpu_data_filter *, unsigned, unsigned), unsigned dim, unsigned shadow)
{
	unsigned n[3] = { 3, 4, 2 };
	n[dim] = 10 + 2 * shadow;
	unsigned ldy = n[0] + 2, ldz = ldy * n[1] + 3;
	struct parent p;
	struct box boxes[3];
	struct starpu_data_filter f = { .filter_func = fn, .nchildren = 3, .filter_arg_ptr = (void *) (uintptr_t) shadow };
	parent_init(&p, STARPU_BLOCK_INTERFACE_ID, sizeof(int32_t), n[0], n[1], n[2], ldy, ldz);
	cut_boxes(n[0], n[1], n[2], dim, 3, shadow, boxes);
	run_sync(&p, &f, 3, boxes);
	parent_fini(&p);
}

static void test_block_block(void) { run_block_filter(starpu_block_filter_block, 0, 0); }
static void test_block_block_shadow(void) { run_block_filter(starpu_block_filter_block_shadow, 0, 1); }
static void test_block_vertical(void) { run_block_filter(starpu_block_filter_vertical_block, 1, 0); }
static void test_block_vertical_shadow(void) { run_block_filter(starpu_block_filter_vertical_block_shadow, 1, 2); }
static void test_block_depth(void) { run_block_filter(starpu_block_filter_depth_block, 2, 0); }
static void test_block_depth_shadow(void) { run_block_filter(starpu_block_filter_depth_block_shadow, 2, 1); }

static const struct vtest_case block_cases[] = {
	{ "block", test_block_block },
	{ "block_shadow", test_block_block_shadow },
	{ "vertical_block", test_block_vertical },
	{ "vertical_block_shadow", test_block_vertical_shadow },
	{ "depth_block", test_block_depth },
	{ "depth_block_shadow", test_block_depth_shadow },
	VTEST_END
};

/* ---- map_filters, sub data, chunk sizes --------------------------------- */

static void test_map_filters(void)
{
	enum { NX = 10, NY = 9, LD = 12, PX = 2, PY = 3 };
	struct parent p;
	parent_init(&p, STARPU_MATRIX_INTERFACE_ID, sizeof(int64_t), NX, NY, 1, LD, LD * NY);
	struct starpu_data_filter fx = { .filter_func = starpu_matrix_filter_block, .nchildren = PX };
	struct starpu_data_filter fy = { .filter_func = starpu_matrix_filter_vertical_block, .nchildren = PY };
	starpu_data_map_filters(p.h, 2, &fx, &fy);
	CU_ASSERT_EQUAL_FATAL(starpu_data_get_nb_children(p.h), PX);
	starpu_data_handle_t pieces[PX * PY];
	struct box boxes[PX * PY];
	for (unsigned i = 0; i < PX; i++)
	{
		starpu_data_handle_t c = starpu_data_get_sub_data(p.h, 1, i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(starpu_data_get_nb_children(c), PY);
		for (unsigned j = 0; j < PY; j++)
		{
			struct box *b = &boxes[i * PY + j];
			memset(b, 0, sizeof(*b));
			split(NX, PX, i, &b->x0, &b->nx);
			split(NY, PY, j, &b->y0, &b->ny);
			b->nz = 1;
			pieces[i * PY + j] = starpu_data_get_sub_data(p.h, 2, i, j);
			CU_ASSERT_PTR_EQUAL(pieces[i * PY + j], starpu_data_get_child(c, j));
			check_piece_shape(&p, pieces[i * PY + j], b);
		}
	}
	/* depth 0 is the root itself */
	CU_ASSERT_PTR_EQUAL(starpu_data_get_sub_data(p.h, 0), p.h);
	exercise_pieces(&p, PX * PY, pieces, boxes);
	/* unpartitioning the root gathers the grandchildren too */
	starpu_data_unpartition(p.h, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL(starpu_data_get_nb_children(p.h), 0);
	check_parent(&p);
	parent_fini(&p);
}

static void test_chunk_size_and_offset(void)
{
	const unsigned ns[] = { 1, 2, 3, 7, 10, 64, 1000, 1001 };
	const unsigned parts[] = { 1, 2, 3, 4, 7 };
	const unsigned lds[] = { 1, 5 };
	const size_t elemsizes[] = { 1, 8 };
	for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
		for (size_t b = 0; b < sizeof(parts) / sizeof(parts[0]); b++)
			for (size_t c = 0; c < sizeof(lds) / sizeof(lds[0]); c++)
				for (size_t d = 0; d < sizeof(elemsizes) / sizeof(elemsizes[0]); d++)
				{
					unsigned n = ns[a], np = parts[b], ld = lds[c];
					size_t es = elemsizes[d];
					if (np > n)
						continue;
					unsigned total = 0, prev = ~0u;
					size_t next_off = 0;
					int bad = 0;
					for (unsigned id = 0; id < np; id++)
					{
						unsigned chunk = ~0u;
						size_t off = ~(size_t) 0;
						starpu_filter_nparts_compute_chunk_size_and_offset(n, np, es, id, ld, &chunk, &off);
						/* contiguous, non-increasing, differing by at most one */
						bad += off != next_off;
						bad += id && (chunk > prev || prev - chunk > 1);
						bad += chunk < n / np || chunk > n / np + 1;
						next_off = off + (size_t) chunk * ld * es;
						total += chunk;
						prev = chunk;
					}
					bad += total != n;
					CU_ASSERT_EQUAL(bad, 0);
				}
	/* the first n % nparts pieces are the bigger ones */
	unsigned chunk;
	size_t off;
	starpu_filter_nparts_compute_chunk_size_and_offset(10, 3, 4, 0, 1, &chunk, &off);
	CU_ASSERT_EQUAL(chunk, 4);
	CU_ASSERT_EQUAL(off, 0);
	starpu_filter_nparts_compute_chunk_size_and_offset(10, 3, 4, 2, 1, &chunk, &off);
	CU_ASSERT_EQUAL(chunk, 3);
	CU_ASSERT_EQUAL(off, 7 * 4);
	/* ld counts in elements: a row of ld elements per unit */
	starpu_filter_nparts_compute_chunk_size_and_offset(10, 3, 8, 1, 6, &chunk, &off);
	CU_ASSERT_EQUAL(chunk, 3);
	CU_ASSERT_EQUAL(off, (size_t) 4 * 6 * 8);
	/* either output may be omitted */
	starpu_filter_nparts_compute_chunk_size_and_offset(10, 3, 8, 1, 6, NULL, &off);
	starpu_filter_nparts_compute_chunk_size_and_offset(10, 3, 8, 1, 6, &chunk, NULL);
	CU_ASSERT_EQUAL(chunk, 3);
}

static const struct vtest_case misc_cases[] = {
	{ "map_filters_two_levels", test_map_filters },
	{ "chunk_size_and_offset", test_chunk_size_and_offset },
	VTEST_END
};

/* ---- sparse filters ------------------------------------------------- */

/* CSR / BCSR pieces: a task adds tag * 1000 + 10 * local row + colind to
 * each value (element e of a block adds e more). */
static void sparse_mark_cpu(void *buffers[], void *arg)
{
	int tag = (int) (intptr_t) arg;
	void *iface = buffers[0];
	if (*(enum starpu_data_interface_id *) iface == STARPU_CSR_INTERFACE_ID)
	{
		double *v = (double *) STARPU_CSR_GET_NZVAL(iface);
		uint32_t *rowptr = STARPU_CSR_GET_ROWPTR(iface), *colind = STARPU_CSR_GET_COLIND(iface);
		uint32_t fe = STARPU_CSR_GET_FIRSTENTRY(iface);
		for (unsigned r = 0; r < STARPU_CSR_GET_NROW(iface); r++)
			for (uint32_t k = rowptr[r] - fe; k < rowptr[r + 1] - fe; k++)
				v[k] += tag * 1000 + 10 * r + colind[k];
	}
	else
	{
		double *v = (double *) STARPU_BCSR_GET_NZVAL(iface);
		uint32_t *rowptr = STARPU_BCSR_GET_ROWPTR(iface), *colind = STARPU_BCSR_GET_COLIND(iface);
		uint32_t fe = STARPU_BCSR_GET_FIRSTENTRY(iface);
		unsigned blk = STARPU_BCSR_GET_R(iface) * STARPU_BCSR_GET_C(iface);
		for (unsigned r = 0; r < STARPU_BCSR_GET_NROW(iface); r++)
			for (uint32_t b = rowptr[r] - fe; b < rowptr[r + 1] - fe; b++)
				for (unsigned e = 0; e < blk; e++)
					v[b * blk + e] += tag * 1000 + 10 * r + colind[b] + e;
	}
}

static struct starpu_codelet sparse_mark_cl = {
	.cpu_funcs = { sparse_mark_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "sparse_mark",
};

/* 10 rows of a 10 x 8 matrix; rows 1, 5 and 6 empty. */
enum { SP_NROW = 10, SP_NCOL = 8 };
static const unsigned sp_row_len[SP_NROW] = { 3, 0, 2, 1, 4, 0, 0, 2, 1, 3 };

/* Builds rowptr (counted from fe) and colind for sp_row_len; returns nnz. */
static unsigned sp_build(uint32_t fe, uint32_t *rowptr, uint32_t *colind, int *row_of)
{
	unsigned k = 0;
	for (unsigned r = 0; r < SP_NROW; r++)
	{
		rowptr[r] = fe + k;
		for (unsigned j = 0; j < sp_row_len[r]; j++, k++)
		{
			colind[k] = (r * 3 + j * 2) % SP_NCOL;
			row_of[k] = (int) r;
		}
	}
	rowptr[SP_NROW] = fe + k;
	return k;
}

static void run_csr(uint32_t fe, unsigned nparts)
{
	uint32_t rowptr[SP_NROW + 1], colind[32];
	int row_of[32];
	double nzval[32];
	unsigned nnz = sp_build(fe, rowptr, colind, row_of);
	CU_ASSERT_EQUAL_FATAL(nnz, 16);
	for (unsigned k = 0; k < nnz; k++)
		nzval[k] = 0.5 * k;
	uint32_t rowptr0[SP_NROW + 1], colind0[32];
	memcpy(rowptr0, rowptr, sizeof(rowptr));
	memcpy(colind0, colind, sizeof(colind));

	starpu_data_handle_t h;
	starpu_csr_data_register(&h, STARPU_MAIN_RAM, nnz, SP_NROW, (uintptr_t) nzval, colind, rowptr, fe, sizeof(double));
	struct starpu_data_filter f = { .filter_func = starpu_csr_filter_vertical_block, .nchildren = nparts };
	starpu_data_partition(h, &f);
	CU_ASSERT_EQUAL_FATAL(starpu_data_get_nb_children(h), (int) nparts);
	double expect[32];
	memcpy(expect, nzval, sizeof(expect));
	for (unsigned i = 0; i < nparts; i++)
	{
		unsigned first, rows;
		split(SP_NROW, nparts, i, &first, &rows);
		unsigned start = 0, cnt = 0;
		for (unsigned r = 0; r < first; r++)
			start += sp_row_len[r];
		for (unsigned r = first; r < first + rows; r++)
			cnt += sp_row_len[r];
		starpu_data_handle_t c = starpu_data_get_child(h, i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(starpu_data_get_interface_id(c), STARPU_CSR_INTERFACE_ID);
		CU_ASSERT_EQUAL(starpu_csr_get_nrow(c), rows);
		CU_ASSERT_EQUAL(starpu_csr_get_nnz(c), cnt);
		CU_ASSERT_EQUAL(starpu_csr_get_elemsize(c), sizeof(double));
		CU_ASSERT_EQUAL(starpu_csr_get_local_nzval(c), (uintptr_t) (nzval + start));
		CU_ASSERT_PTR_EQUAL(starpu_csr_get_local_colind(c), colind + start);
		CU_ASSERT_PTR_EQUAL(starpu_csr_get_local_rowptr(c), rowptr + first);
		/* the piece's rowptr[0] - firstentry is its first entry: 0 */
		CU_ASSERT_EQUAL(starpu_csr_get_firstentry(c), fe + start);
		CU_ASSERT_EQUAL(submit(&sparse_mark_cl, (void *) (intptr_t) (i + 1), c), 0);
		for (unsigned k = start; k < start + cnt; k++)
			expect[k] += (i + 1) * 1000 + 10 * (row_of[k] - (int) first) + colind0[k];
	}
	starpu_data_unpartition(h, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(nzval, expect, nnz * sizeof(double)) == 0);
	CU_ASSERT(memcmp(rowptr, rowptr0, sizeof(rowptr)) == 0);
	CU_ASSERT(memcmp(colind, colind0, nnz * sizeof(uint32_t)) == 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void test_csr_vertical_block(void)
{
	run_csr(0, 3);
	run_csr(0, 10);	/* one row each, some empty */
	run_csr(1, 3);	/* rows counted from 1 */
}

enum { BS_R = 2, BS_C = 3, BS_BLK = BS_R * BS_C };

static void run_bcsr_vertical(uint32_t fe, unsigned nparts)
{
	uint32_t rowptr[SP_NROW + 1], colind[32];
	int row_of[32];
	unsigned nnz = sp_build(fe, rowptr, colind, row_of);
	double nzval[32 * BS_BLK], expect[32 * BS_BLK];
	for (unsigned k = 0; k < nnz * BS_BLK; k++)
		nzval[k] = expect[k] = -0.25 * k;
	starpu_data_handle_t h;
	starpu_bcsr_data_register(&h, STARPU_MAIN_RAM, nnz, SP_NROW, (uintptr_t) nzval, colind, rowptr, fe, BS_R, BS_C, sizeof(double));
	struct starpu_data_filter f = { .filter_func = starpu_bcsr_filter_vertical_block, .nchildren = nparts };
	starpu_data_partition(h, &f);
	CU_ASSERT_EQUAL_FATAL(starpu_data_get_nb_children(h), (int) nparts);
	for (unsigned i = 0; i < nparts; i++)
	{
		unsigned first, rows;
		split(SP_NROW, nparts, i, &first, &rows);
		unsigned start = 0, cnt = 0;
		for (unsigned r = 0; r < first; r++)
			start += sp_row_len[r];
		for (unsigned r = first; r < first + rows; r++)
			cnt += sp_row_len[r];
		starpu_data_handle_t c = starpu_data_get_child(h, i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(starpu_data_get_interface_id(c), STARPU_BCSR_INTERFACE_ID);
		CU_ASSERT_EQUAL(starpu_bcsr_get_nrow(c), rows);
		CU_ASSERT_EQUAL(starpu_bcsr_get_nnz(c), cnt);
		CU_ASSERT_EQUAL(starpu_bcsr_get_r(c), BS_R);
		CU_ASSERT_EQUAL(starpu_bcsr_get_c(c), BS_C);
		CU_ASSERT_EQUAL(starpu_bcsr_get_local_nzval(c), (uintptr_t) (nzval + start * BS_BLK));
		CU_ASSERT_PTR_EQUAL(starpu_bcsr_get_local_colind(c), colind + start);
		CU_ASSERT_PTR_EQUAL(starpu_bcsr_get_local_rowptr(c), rowptr + first);
		CU_ASSERT_EQUAL(starpu_bcsr_get_firstentry(c), fe + start);
		CU_ASSERT_EQUAL(submit(&sparse_mark_cl, (void *) (intptr_t) (i + 1), c), 0);
		for (unsigned b = start; b < start + cnt; b++)
			for (unsigned e = 0; e < BS_BLK; e++)
				expect[b * BS_BLK + e] += (i + 1) * 1000 + 10 * (row_of[b] - (int) first) + colind[b] + e;
	}
	starpu_data_unpartition(h, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(nzval, expect, nnz * BS_BLK * sizeof(double)) == 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void test_bcsr_vertical_block(void)
{
	run_bcsr_vertical(0, 3);
	run_bcsr_vertical(1, 4);
}

/* Block pieces are r x c matrices; a task sets element (x,y) (x along the
 * c contiguous columns of a block row) to tag * 100 + 10 * y + x. */
static void block_mark_cpu(void *buffers[], void *arg)
{
	int tag = (int) (intptr_t) arg;
	double *m = (double *) STARPU_MATRIX_GET_PTR(buffers[0]);
	unsigned nx = STARPU_MATRIX_GET_NX(buffers[0]), ny = STARPU_MATRIX_GET_NY(buffers[0]);
	unsigned ld = STARPU_MATRIX_GET_LD(buffers[0]);
	for (unsigned y = 0; y < ny; y++)
		for (unsigned x = 0; x < nx; x++)
			m[y * ld + x] = tag * 100 + 10 * y + x;
}

static struct starpu_codelet block_mark_cl = {
	.cpu_funcs = { block_mark_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "block_mark",
};

static void test_bcsr_canonical_block(void)
{
	uint32_t rowptr[SP_NROW + 1], colind[32];
	int row_of[32];
	unsigned nnz = sp_build(0, rowptr, colind, row_of);
	double nzval[32 * BS_BLK], expect[32 * BS_BLK];
	for (unsigned k = 0; k < nnz * BS_BLK; k++)
		nzval[k] = 1.0 + k;
	starpu_data_handle_t h;
	starpu_bcsr_data_register(&h, STARPU_MAIN_RAM, nnz, SP_NROW, (uintptr_t) nzval, colind, rowptr, 0, BS_R, BS_C, sizeof(double));
	struct starpu_data_filter f = {
		.filter_func = starpu_bcsr_filter_canonical_block,
		.get_nchildren = starpu_bcsr_filter_canonical_block_get_nchildren,
		.get_child_ops = starpu_bcsr_filter_canonical_block_child_ops,
	};
	CU_ASSERT_EQUAL(starpu_bcsr_filter_canonical_block_get_nchildren(&f, h), nnz);
	CU_ASSERT_PTR_EQUAL(starpu_bcsr_filter_canonical_block_child_ops(&f, 0), &starpu_interface_matrix_ops);
	starpu_data_partition(h, &f);
	CU_ASSERT_EQUAL_FATAL(starpu_data_get_nb_children(h), (int) nnz);
	for (unsigned b = 0; b < nnz; b++)
	{
		starpu_data_handle_t c = starpu_data_get_child(h, b);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(starpu_data_get_interface_id(c), STARPU_MATRIX_INTERFACE_ID);
		/* a block row of c elements is contiguous: nx = c, ny = r */
		CU_ASSERT_EQUAL(starpu_matrix_get_nx(c), BS_C);
		CU_ASSERT_EQUAL(starpu_matrix_get_ny(c), BS_R);
		CU_ASSERT_EQUAL(starpu_matrix_get_local_ld(c), BS_C);
		CU_ASSERT_EQUAL(starpu_matrix_get_elemsize(c), sizeof(double));
		CU_ASSERT_EQUAL(starpu_matrix_get_local_ptr(c), (uintptr_t) (nzval + b * BS_BLK));
		CU_ASSERT_EQUAL(starpu_data_get_size(c), BS_BLK * sizeof(double));
		CU_ASSERT_EQUAL(submit(&block_mark_cl, (void *) (intptr_t) (b + 1), c), 0);
		for (unsigned y = 0; y < BS_R; y++)
			for (unsigned x = 0; x < BS_C; x++)
				expect[b * BS_BLK + y * BS_C + x] = (b + 1) * 100 + 10 * y + x;
	}
	starpu_data_unpartition(h, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(nzval, expect, nnz * BS_BLK * sizeof(double)) == 0);
	starpu_data_release(h);

	/* the same as a plan */
	starpu_data_handle_t pieces[32];
	starpu_data_partition_plan(h, &f, pieces);
	starpu_data_partition_submit(h, nnz, pieces);
	for (unsigned b = 0; b < nnz; b++)
		CU_ASSERT_EQUAL(submit(&block_mark_cl, (void *) (intptr_t) (b + 50), pieces[b]), 0);
	starpu_data_unpartition_submit(h, nnz, pieces, STARPU_MAIN_RAM);
	starpu_data_partition_clean(h, nnz, pieces);
	for (unsigned b = 0; b < nnz; b++)
		for (unsigned y = 0; y < BS_R; y++)
			for (unsigned x = 0; x < BS_C; x++)
				expect[b * BS_BLK + y * BS_C + x] = (b + 50) * 100 + 10 * y + x;
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(nzval, expect, nnz * BS_BLK * sizeof(double)) == 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static const struct vtest_case sparse_cases[] = {
	{ "csr_vertical_block", test_csr_vertical_block },
	{ "bcsr_vertical_block", test_bcsr_vertical_block },
	{ "bcsr_canonical_block", test_bcsr_canonical_block },
	VTEST_END
};

/* A vertical partition plan (asynchronous partitioning) on a padded
 * matrix: the pieces' shapes, their reads and writes, padding untouched;
 * the plans' dependencies are test_partition_async.c's. */
static void test_matrix_plan(void)
{
	struct parent p;
	struct box boxes[3];
	parent_init(&p, STARPU_MATRIX_INTERFACE_ID, sizeof(int64_t), 4, 10, 1, 7, 70);
	cut_boxes(4, 10, 1, 1, 3, 0, boxes);
	struct starpu_data_filter fv = { .filter_func = starpu_matrix_filter_vertical_block, .nchildren = 3 };
	starpu_data_handle_t mc[3];
	starpu_data_partition_plan(p.h, &fv, mc);
	for (unsigned i = 0; i < 3; i++)
		check_piece_shape(&p, mc[i], &boxes[i]);
	starpu_data_partition_submit(p.h, 3, mc);
	exercise_pieces(&p, 3, mc, boxes);
	starpu_data_unpartition_submit(p.h, 3, mc, STARPU_MAIN_RAM);
	check_parent(&p);
	starpu_data_partition_clean(p.h, 3, mc);
	parent_fini(&p);
}

static const struct vtest_case plan_cases[] = {
	{ "vertical_plan_padded", test_matrix_plan },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "vector_filters", start_runtime, stop_runtime, vector_cases },
	{ "matrix_filters", start_runtime, stop_runtime, matrix_cases },
	{ "block_filters", start_runtime, stop_runtime, block_cases },
	{ "sparse_filters", start_runtime, stop_runtime, sparse_cases },
	{ "map_and_chunks", start_runtime, stop_runtime, misc_cases },
	{ "matrix_plan", start_runtime, stop_runtime, plan_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
