/* test_interfaces.c — every interface can be sent: rank 0 sends, rank 1
 * receives into handles registered with home node -1 (the runtime
 * allocates them) and checks every byte. Variable, vector, matrix (a
 * sub-matrix with ld > nx into a dense one), block with padding, CSR,
 * BCSR, COO, void; the pieces of a partitioned vector and matrix; an
 * interface of the application sent with its pack/unpack methods, and one
 * sent with an MPI datatype registered per interface and per handle.
 * Then the other way round, into registered application buffers.
 */
#include "mpitest.h"

#define NX 7
#define NY 5
#define LD 11

static double dval(int i)
{
	return 0.5 + i * 1.25;
}

/* ------------------------------------------------------------------ */
/* An application interface: a header (count) and values, two buffers. */

struct pair_interface
{
	int32_t *head;		/* 2 ints */
	double *vals;		/* n doubles */
	uint32_t n;
};

static struct starpu_data_interface_ops pair_ops;

static void pair_register(starpu_data_handle_t h, unsigned home, void *iface)
{
	struct pair_interface *src = iface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct pair_interface *p = starpu_data_get_interface_on_node(h, node);
		p->n = src->n;
		p->head = node == home ? src->head : NULL;
		p->vals = node == home ? src->vals : NULL;
	}
}

static starpu_ssize_t pair_allocate(void *iface, unsigned node)
{
	struct pair_interface *p = iface;
	p->head = (int32_t *) starpu_malloc_on_node(node, 2 * sizeof(int32_t));
	p->vals = (double *) starpu_malloc_on_node(node, p->n * sizeof(double));
	if (!p->head || !p->vals)
		return -ENOMEM;
	return (starpu_ssize_t) (2 * sizeof(int32_t) + p->n * sizeof(double));
}

static void pair_free(void *iface, unsigned node)
{
	struct pair_interface *p = iface;
	starpu_free_on_node(node, (uintptr_t) p->head, 2 * sizeof(int32_t));
	starpu_free_on_node(node, (uintptr_t) p->vals, p->n * sizeof(double));
	p->head = NULL;
	p->vals = NULL;
}

static int pair_copy(void *src, unsigned src_node, void *dst, unsigned dst_node, void *async)
{
	struct pair_interface *s = src, *d = dst;
	int ret = starpu_interface_copy((uintptr_t) s->head, 0, src_node, (uintptr_t) d->head, 0, dst_node, 2 * sizeof(int32_t), async);
	if (ret && ret != -EAGAIN)
		return ret;
	return starpu_interface_copy((uintptr_t) s->vals, 0, src_node, (uintptr_t) d->vals, 0, dst_node, s->n * sizeof(double), async);
}

static const struct starpu_data_copy_methods pair_copy_methods = { .any_to_any = pair_copy };

static size_t pair_size(starpu_data_handle_t h)
{
	struct pair_interface *p = starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
	return 2 * sizeof(int32_t) + p->n * sizeof(double);
}

static uint32_t pair_footprint(starpu_data_handle_t h)
{
	return ((struct pair_interface *) starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM))->n;
}

static int pair_compare(void *a, void *b)
{
	return ((struct pair_interface *) a)->n == ((struct pair_interface *) b)->n;
}

static int pair_pack(starpu_data_handle_t h, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct pair_interface *p = starpu_data_get_interface_on_node(h, node);
	size_t bytes = 2 * sizeof(int32_t) + p->n * sizeof(double);
	*count = (starpu_ssize_t) bytes;
	if (ptr)
	{
		char *b = (char *) starpu_malloc_on_node_flags(node, bytes, 0);
		memcpy(b, p->head, 2 * sizeof(int32_t));
		memcpy(b + 2 * sizeof(int32_t), p->vals, p->n * sizeof(double));
		*ptr = b;
	}
	return 0;
}

static int pair_unpack(starpu_data_handle_t h, unsigned node, void *ptr, size_t count)
{
	struct pair_interface *p = starpu_data_get_interface_on_node(h, node);
	if (count != 2 * sizeof(int32_t) + p->n * sizeof(double))
		return -EINVAL;
	memcpy(p->head, ptr, 2 * sizeof(int32_t));
	memcpy(p->vals, (char *) ptr + 2 * sizeof(int32_t), p->n * sizeof(double));
	starpu_free_on_node_flags(node, (uintptr_t) ptr, count, 0);
	return 0;
}

static void pair_ops_init(void)
{
	pair_ops.register_data_handle = pair_register;
	pair_ops.allocate_data_on_node = pair_allocate;
	pair_ops.free_data_on_node = pair_free;
	pair_ops.copy_methods = &pair_copy_methods;
	pair_ops.get_size = pair_size;
	pair_ops.footprint = pair_footprint;
	pair_ops.compare = pair_compare;
	pair_ops.pack_data = pair_pack;
	pair_ops.unpack_data = pair_unpack;
	pair_ops.interfaceid = (enum starpu_data_interface_id) starpu_data_interface_get_next_id();
	pair_ops.interface_size = sizeof(struct pair_interface);
	pair_ops.name = "PAIR";
}

/* The same interface without pack/unpack: an MPI datatype on absolute
 * addresses instead. */
static struct starpu_data_interface_ops pair_dt_ops;
static int datatype_calls;

static int pair_datatype(starpu_data_handle_t h, MPI_Datatype *dt)
{
	struct pair_interface *p = starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
	int lens[2] = { 2, (int) p->n };
	MPI_Aint displs[2];
	MPI_Datatype types[2] = { MPI_INT32_T, MPI_DOUBLE };
	MPI_Get_address(p->head, &displs[0]);
	MPI_Get_address(p->vals, &displs[1]);
	MPI_Type_create_struct(2, lens, displs, types, dt);
	MPI_Type_commit(dt);
	__atomic_add_fetch(&datatype_calls, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void pair_datatype_free(MPI_Datatype *dt)
{
	MPI_Type_free(dt);
}

static void *pair_to_null(void *iface, unsigned node)
{
	(void) iface;
	(void) node;
	return NULL;	/* the datatype holds absolute addresses: MPI_BOTTOM */
}

static void pair_dt_ops_init(void)
{
	pair_dt_ops = pair_ops;
	pair_dt_ops.pack_data = NULL;
	pair_dt_ops.unpack_data = NULL;
	pair_dt_ops.to_pointer = pair_to_null;
	pair_dt_ops.interfaceid = (enum starpu_data_interface_id) starpu_data_interface_get_next_id();
	pair_dt_ops.name = "PAIR_DT";
}

static void check_pair(starpu_data_handle_t h, int seed)
{
	CHECK_EQ(starpu_data_acquire(h, STARPU_R), 0);
	struct pair_interface *p = starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
	CHECK_EQ(p->head[0], seed);
	CHECK_EQ(p->head[1], (int) p->n);
	for (uint32_t i = 0; i < p->n; i++)
		CHECK(p->vals[i] == dval((int) i + seed));
	starpu_data_release(h);
}

/* ------------------------------------------------------------------ */

struct sent
{
	int var;
	double vec[100];
	double mat[LD * NY];
	float blk[4 * 5 * 3 + 40];
	double csr_val[6];
	uint32_t csr_col[6], csr_row[4];
	double bcsr_val[2 * 2 * 3];
	uint32_t bcsr_col[3], bcsr_row[3];
	uint32_t coo_r[5], coo_c[5];
	double coo_v[5];
	int32_t pair_head[3][2];	/* one per pair handle: handles never share buffers */
	double pair_vals[3][9];
};

static void fill_sent(struct sent *s, int seed)
{
	s->var = 1234 + seed;
	for (int i = 0; i < 100; i++)
		s->vec[i] = dval(i + seed);
	for (int i = 0; i < LD * NY; i++)
		s->mat[i] = (i % LD) < NX ? dval(i + seed) : -1;
	for (int i = 0; i < (int) (sizeof(s->blk) / sizeof(float)); i++)
		s->blk[i] = (float) (i + seed);
	for (int i = 0; i < 6; i++)
	{
		s->csr_val[i] = dval(i + seed);
		s->csr_col[i] = (uint32_t) (i % 3);
	}
	uint32_t rows[4] = { 0, 2, 4, 6 };
	memcpy(s->csr_row, rows, sizeof(rows));
	for (int i = 0; i < 12; i++)
		s->bcsr_val[i] = dval(2 * i + seed);
	uint32_t bc[3] = { 0, 1, 1 }, br[3] = { 0, 1, 3 };
	memcpy(s->bcsr_col, bc, sizeof(bc));
	memcpy(s->bcsr_row, br, sizeof(br));
	for (int i = 0; i < 5; i++)
	{
		s->coo_r[i] = (uint32_t) i;
		s->coo_c[i] = (uint32_t) (4 - i);
		s->coo_v[i] = dval(3 * i + seed);
	}
	for (int k = 0; k < 3; k++)
	{
		s->pair_head[k][0] = seed;
		s->pair_head[k][1] = 9;
		for (int i = 0; i < 9; i++)
			s->pair_vals[k][i] = dval(i + seed);
	}
}

enum { H_VAR, H_VEC, H_MAT, H_BLK, H_CSR, H_BCSR, H_COO, H_VOID, H_PAIR, H_PAIR_DT, H_PAIR_DT_HANDLE, NH };

/* Handles over the sender's buffers (home RAM) or empty ones (home -1). */
static void register_all(starpu_data_handle_t *h, struct sent *s)
{
	int home = s ? STARPU_MAIN_RAM : -1;
	starpu_variable_data_register(&h[H_VAR], home, s ? (uintptr_t) &s->var : 0, sizeof(int));
	starpu_vector_data_register(&h[H_VEC], home, s ? (uintptr_t) s->vec : 0, 100, sizeof(double));
	/* The sender's matrix is NX x NY inside LD rows; the receiver's is dense. */
	starpu_matrix_data_register(&h[H_MAT], home, s ? (uintptr_t) s->mat : 0, s ? LD : NX, NX, NY, sizeof(double));
	starpu_block_data_register(&h[H_BLK], home, s ? (uintptr_t) s->blk : 0, s ? 5 : 4, s ? 5 * 4 : 4 * 3, 4, 3, 3, sizeof(float));
	starpu_csr_data_register(&h[H_CSR], home, 6, 3, s ? (uintptr_t) s->csr_val : 0, s ? s->csr_col : NULL, s ? s->csr_row : NULL, 0, sizeof(double));
	starpu_bcsr_data_register(&h[H_BCSR], home, 3, 2, s ? (uintptr_t) s->bcsr_val : 0, s ? s->bcsr_col : NULL, s ? s->bcsr_row : NULL, 0, 2, 2, sizeof(double));
	starpu_coo_data_register(&h[H_COO], home, 5, 5, 5, s ? s->coo_c : NULL, s ? s->coo_r : NULL, s ? (uintptr_t) s->coo_v : 0, sizeof(double));
	starpu_void_data_register(&h[H_VOID]);
	struct pair_interface pi[3];
	for (int k = 0; k < 3; k++)
	{
		pi[k].head = s ? s->pair_head[k] : NULL;
		pi[k].vals = s ? s->pair_vals[k] : NULL;
		pi[k].n = 9;
	}
	starpu_data_register(&h[H_PAIR], home, &pi[0], &pair_ops);
	starpu_data_register(&h[H_PAIR_DT], home, &pi[1], &pair_dt_ops);
	starpu_data_register(&h[H_PAIR_DT_HANDLE], home, &pi[2], &pair_ops);
	/* This handle of a pack/unpack interface goes by its own datatype. */
	starpu_mpi_datatype_register(h[H_PAIR_DT_HANDLE], pair_datatype, pair_datatype_free);
}

static void check_received(starpu_data_handle_t *h, int seed)
{
	struct sent e;
	fill_sent(&e, seed);
	CHECK_EQ(starpu_data_acquire(h[H_VAR], STARPU_R), 0);
	CHECK_EQ(*(int *) starpu_variable_get_local_ptr(h[H_VAR]), e.var);
	starpu_data_release(h[H_VAR]);

	CHECK_EQ(starpu_data_acquire(h[H_VEC], STARPU_R), 0);
	double *v = (double *) starpu_vector_get_local_ptr(h[H_VEC]);
	for (int i = 0; i < 100; i++)
		CHECK(v[i] == e.vec[i]);
	starpu_data_release(h[H_VEC]);

	CHECK_EQ(starpu_data_acquire(h[H_MAT], STARPU_R), 0);
	double *m = (double *) starpu_matrix_get_local_ptr(h[H_MAT]);
	uint32_t ld = starpu_matrix_get_local_ld(h[H_MAT]);
	for (int y = 0; y < NY; y++)
		for (int x = 0; x < NX; x++)
			CHECK(m[y * ld + x] == e.mat[y * LD + x]);
	starpu_data_release(h[H_MAT]);

	CHECK_EQ(starpu_data_acquire(h[H_BLK], STARPU_R), 0);
	struct starpu_block_interface *b = starpu_data_get_interface_on_node(h[H_BLK], STARPU_MAIN_RAM);
	float *bp = (float *) b->ptr;
	for (int z = 0; z < 3; z++)
		for (int y = 0; y < 3; y++)
			for (int x = 0; x < 4; x++)
				CHECK(bp[z * b->ldz + y * b->ldy + x] == e.blk[z * 20 + y * 5 + x]);
	starpu_data_release(h[H_BLK]);

	CHECK_EQ(starpu_data_acquire(h[H_CSR], STARPU_R), 0);
	struct starpu_csr_interface *c = starpu_data_get_interface_on_node(h[H_CSR], STARPU_MAIN_RAM);
	CHECK(!memcmp((void *) c->nzval, e.csr_val, sizeof(e.csr_val)));
	CHECK(!memcmp(c->colind, e.csr_col, sizeof(e.csr_col)));
	CHECK(!memcmp(c->rowptr, e.csr_row, sizeof(e.csr_row)));
	starpu_data_release(h[H_CSR]);

	CHECK_EQ(starpu_data_acquire(h[H_BCSR], STARPU_R), 0);
	struct starpu_bcsr_interface *bc = starpu_data_get_interface_on_node(h[H_BCSR], STARPU_MAIN_RAM);
	CHECK(!memcmp((void *) bc->nzval, e.bcsr_val, sizeof(e.bcsr_val)));
	CHECK(!memcmp(bc->colind, e.bcsr_col, sizeof(e.bcsr_col)));
	CHECK(!memcmp(bc->rowptr, e.bcsr_row, sizeof(e.bcsr_row)));
	starpu_data_release(h[H_BCSR]);

	CHECK_EQ(starpu_data_acquire(h[H_COO], STARPU_R), 0);
	struct starpu_coo_interface *co = starpu_data_get_interface_on_node(h[H_COO], STARPU_MAIN_RAM);
	CHECK(!memcmp((void *) co->values, e.coo_v, sizeof(e.coo_v)));
	CHECK(!memcmp(co->rows, e.coo_r, sizeof(e.coo_r)));
	CHECK(!memcmp(co->columns, e.coo_c, sizeof(e.coo_c)));
	starpu_data_release(h[H_COO]);

	check_pair(h[H_PAIR], seed);
	check_pair(h[H_PAIR_DT], seed);
	check_pair(h[H_PAIR_DT_HANDLE], seed);
}

static void exchange(int rank, int sender, starpu_data_handle_t *h, int tagbase)
{
	for (int i = 0; i < NH; i++)
	{
		if (rank == sender)
			CHECK_EQ(starpu_mpi_isend_detached(h[i], 1 - sender, tagbase + i, MPI_COMM_WORLD, NULL, NULL), 0);
		else
			CHECK_EQ(starpu_mpi_irecv_detached(h[i], sender, tagbase + i, MPI_COMM_WORLD, NULL, NULL), 0);
	}
}

/* Pieces of partitioned data go like any handle: a vector's and a
 * matrix's (whose pieces have ld > nx). */
static void test_pieces(int rank)
{
	double vec[64], mat[16 * 8];
	starpu_data_handle_t hv, hm;
	for (int i = 0; i < 64; i++)
		vec[i] = rank == 0 ? dval(i) : 0;
	for (int i = 0; i < 16 * 8; i++)
		mat[i] = rank == 0 ? dval(1000 + i) : 0;
	starpu_vector_data_register(&hv, STARPU_MAIN_RAM, (uintptr_t) vec, 64, sizeof(double));
	starpu_matrix_data_register(&hm, STARPU_MAIN_RAM, (uintptr_t) mat, 16, 16, 8, sizeof(double));
	struct starpu_data_filter fv = { .filter_func = starpu_vector_filter_block, .nchildren = 4 };
	struct starpu_data_filter fm = { .filter_func = starpu_matrix_filter_block, .nchildren = 4 };
	starpu_data_partition(hv, &fv);
	starpu_data_partition(hm, &fm);
	for (int i = 0; i < 4; i++)
	{
		starpu_data_handle_t pv = starpu_data_get_sub_data(hv, 1, i);
		starpu_data_handle_t pm = starpu_data_get_sub_data(hm, 1, i);
		if (rank == 0)
		{
			CHECK_EQ(starpu_mpi_isend_detached(pv, 1, 500 + i, MPI_COMM_WORLD, NULL, NULL), 0);
			CHECK_EQ(starpu_mpi_isend_detached(pm, 1, 600 + i, MPI_COMM_WORLD, NULL, NULL), 0);
		}
		else
		{
			CHECK_EQ(starpu_mpi_irecv_detached(pv, 0, 500 + i, MPI_COMM_WORLD, NULL, NULL), 0);
			CHECK_EQ(starpu_mpi_irecv_detached(pm, 0, 600 + i, MPI_COMM_WORLD, NULL, NULL), 0);
		}
	}
	starpu_data_unpartition(hv, STARPU_MAIN_RAM);
	starpu_data_unpartition(hm, STARPU_MAIN_RAM);
	starpu_data_unregister(hv);
	starpu_data_unregister(hm);
	if (rank == 1)
	{
		for (int i = 0; i < 64; i++)
			CHECK(vec[i] == dval(i));
		for (int i = 0; i < 16 * 8; i++)
			CHECK(mat[i] == dval(1000 + i));
	}
}

int main(int argc, char **argv)
{
	int size;
	int rank = mt_start(&argc, &argv, "test_interfaces", 1, &size);
	pair_ops_init();
	pair_dt_ops_init();
	CHECK_EQ(starpu_mpi_interface_datatype_register(pair_dt_ops.interfaceid, pair_datatype, pair_datatype_free), 0);
	if (rank < 2)
	{
		/* 0 -> 1 into runtime-allocated handles. */
		static struct sent s0;
		fill_sent(&s0, 3);
		starpu_data_handle_t h[NH];
		register_all(h, rank == 0 ? &s0 : NULL);
		exchange(rank, 0, h, 100);
		if (rank == 1)
			check_received(h, 3);
		for (int i = 0; i < NH; i++)
			starpu_data_unregister(h[i]);

		/* 1 -> 0 into the application's buffers, registered on both. */
		static struct sent a, b;
		fill_sent(&a, 7);
		memset(&b, 0, sizeof(b));
		starpu_data_handle_t g[NH];
		register_all(g, rank == 1 ? &a : &b);
		exchange(rank, 1, g, 200);
		if (rank == 0)
			check_received(g, 7);
		for (int i = 0; i < NH; i++)
			starpu_data_unregister(g[i]);
		if (rank == 0)
		{
			CHECK_EQ(b.var, a.var);
			CHECK(!memcmp(b.vec, a.vec, sizeof(a.vec)));
		}
		test_pieces(rank);
		CHECK(datatype_calls >= 4);

		/* A handle's own datatype unregistered: its interface's
		 * pack/unpack take over. */
		int calls = datatype_calls;
		static struct sent c;
		fill_sent(&c, 11);
		starpu_data_handle_t hh[NH];
		register_all(hh, rank == 0 ? &c : NULL);
		CHECK_EQ(starpu_mpi_datatype_unregister(hh[H_PAIR_DT_HANDLE]), 0);
		if (rank == 0)
			CHECK_EQ(starpu_mpi_send(hh[H_PAIR_DT_HANDLE], 1, 300, MPI_COMM_WORLD), 0);
		else
		{
			CHECK_EQ(starpu_mpi_recv(hh[H_PAIR_DT_HANDLE], 0, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
			check_pair(hh[H_PAIR_DT_HANDLE], 11);
		}
		CHECK_EQ(datatype_calls, calls);
		for (int i = 0; i < NH; i++)
			starpu_data_unregister(hh[i]);
	}
	CHECK_EQ(starpu_mpi_interface_datatype_unregister(pair_dt_ops.interfaceid), 0);
	CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
	if (rank == 0)
		printf("test_interfaces: %d interfaces and partition pieces sent both ways\n", NH);
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
