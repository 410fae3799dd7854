/* test_interfaces_custom.c — an interface defined by the application
 * (n uint32 counters: its own ops, copies, pack), registering the same
 * standard interface twice, and out-of-core data: the last suite limits RAM
 * (STARPU_LIMIT_CPU_MEM) so that data registered without a home is evicted
 * to the disk and read back, partitioned pieces included.
 */
#include "interfaces_common.h"

/* ================================================================== */
/* An interface defined by the application: n uint32 counters. */

struct counters_interface
{
	uintptr_t ptr;
	uint32_t n;
};

static void counters_register(starpu_data_handle_t h, unsigned home, void *iface)
{
	struct counters_interface *src = iface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct counters_interface *c = starpu_data_get_interface_on_node(h, node);
		c->n = src->n;
		c->ptr = node == home ? src->ptr : 0;
	}
}

static starpu_ssize_t counters_allocate(void *iface, unsigned node)
{
	struct counters_interface *c = iface;
	c->ptr = starpu_malloc_on_node(node, c->n * sizeof(uint32_t));
	return c->ptr ? (starpu_ssize_t) (c->n * sizeof(uint32_t)) : -ENOMEM;
}

static void counters_free(void *iface, unsigned node)
{
	struct counters_interface *c = iface;
	starpu_free_on_node(node, c->ptr, c->n * sizeof(uint32_t));
	c->ptr = 0;
}

static int counters_copy(void *src, unsigned src_node, void *dst, unsigned dst_node, void *async)
{
	struct counters_interface *s = src, *d = dst;
	return starpu_interface_copy(s->ptr, 0, src_node, d->ptr, 0, dst_node, s->n * sizeof(uint32_t), async);
}

static const struct starpu_data_copy_methods counters_copy_methods = { .any_to_any = counters_copy };

static size_t counters_size(starpu_data_handle_t h)
{
	return ((struct counters_interface *) ram_iface(h))->n * sizeof(uint32_t);
}

static uint32_t counters_footprint(starpu_data_handle_t h)
{
	return ((struct counters_interface *) ram_iface(h))->n;
}

static int counters_compare(void *a, void *b)
{
	return ((struct counters_interface *) a)->n == ((struct counters_interface *) b)->n;
}

static starpu_ssize_t counters_describe(void *iface, char *buf, size_t size)
{
	return snprintf(buf, size, "counters%u", ((struct counters_interface *) iface)->n);
}

static void *counters_to_pointer(void *iface, unsigned node)
{
	(void) node;
	return (void *) ((struct counters_interface *) iface)->ptr;
}

static struct starpu_data_interface_ops counters_ops = {
	.register_data_handle = counters_register,
	.allocate_data_on_node = counters_allocate,
	.free_data_on_node = counters_free,
	.copy_methods = &counters_copy_methods,
	.get_size = counters_size,
	.footprint = counters_footprint,
	.compare = counters_compare,
	.describe = counters_describe,
	.to_pointer = counters_to_pointer,
	.interface_size = sizeof(struct counters_interface),
	.name = "COUNTERS",
};

static void counters_bump_cpu(void *buffers[], void *arg)
{
	struct counters_interface *c = buffers[0];
	uint32_t *v = (uint32_t *) c->ptr;
	for (uint32_t i = 0; i < c->n; i++)
		v[i] = v[i] * 3 + (uint32_t) (uintptr_t) arg + i;
}

static struct starpu_codelet counters_bump_cl = {
	.cpu_funcs = { counters_bump_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "counters_bump",
};

static void counters_set_cpu(void *buffers[], void *arg)
{
	struct counters_interface *c = buffers[0];
	uint32_t *v = (uint32_t *) c->ptr;
	for (uint32_t i = 0; i < c->n; i++)
		v[i] = (uint32_t) (uintptr_t) arg * i;
}

static struct starpu_codelet counters_set_cl = {
	.cpu_funcs = { counters_set_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "counters_set",
};

static void test_custom_interface(void)
{
	if (!counters_ops.interfaceid)
		counters_ops.interfaceid = (enum starpu_data_interface_id) starpu_data_interface_get_next_id();
	CU_ASSERT(counters_ops.interfaceid >= STARPU_MAX_INTERFACE_ID);
	enum { N = 50 };
	uint32_t data[N];
	for (int i = 0; i < N; i++)
		data[i] = (uint32_t) (i * i);
	struct counters_interface ci = { (uintptr_t) data, N };
	starpu_data_handle_t h;
	starpu_data_register(&h, STARPU_MAIN_RAM, &ci, &counters_ops);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_PTR_EQUAL(starpu_data_get_interface_ops(h), &counters_ops);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), counters_ops.interfaceid);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), sizeof(data));
	CU_ASSERT_PTR_EQUAL(starpu_data_lookup(data), h);
	CU_ASSERT_PTR_EQUAL(starpu_data_get_local_ptr(h), data);

	for (int k = 0; k < 3; k++)
		CU_ASSERT_EQUAL(submit(&counters_bump_cl, (void *) (uintptr_t) (k + 1), h), 0);
	uint32_t expect[N];
	for (int i = 0; i < N; i++)
	{
		expect[i] = (uint32_t) (i * i);
		for (int k = 0; k < 3; k++)
			expect[i] = expect[i] * 3 + (uint32_t) (k + 1) + (uint32_t) i;
	}
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(data, expect, sizeof(data)) == 0);
	starpu_data_release(h);

	/* register_same: the shape without the data, allocated on first write */
	starpu_data_handle_t same;
	starpu_data_register_same(&same, h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(same);
	CU_ASSERT_PTR_EQUAL(starpu_data_get_interface_ops(same), &counters_ops);
	CU_ASSERT_EQUAL(starpu_data_get_size(same), sizeof(data));
	CU_ASSERT_EQUAL(footprint_of(same), footprint_of(h));
	CU_ASSERT_EQUAL(starpu_data_get_home_node(same), -1);
	CU_ASSERT_EQUAL(submit(&counters_set_cl, (void *) (uintptr_t) 7, same), 0);
	CU_ASSERT_EQUAL(submit(&counters_bump_cl, (void *) (uintptr_t) 2, same), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(same, STARPU_R), 0);
	const uint32_t *v = starpu_data_get_local_ptr(same);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT(v != data);
	int bad = 0;
	for (int i = 0; i < N; i++)
		bad += v[i] != 7u * i * 3 + 2 + i;
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(same);

	/* through the disk */
	uint32_t back[N];
	memset(back, 0, sizeof(back));
	struct counters_interface dst = { (uintptr_t) back, N };
	through_disk(h, &dst);
	CU_ASSERT(memcmp(back, expect, sizeof(back)) == 0);

	/* names, coordinates, user data */
	starpu_data_set_name(h, "counters-h");
	starpu_data_set_name(h, "counters-h2");	/* replaces, no leak */
	starpu_data_set_coordinates(h, 2, 3, 4);
	int dims[4] = { -1, -1, -1, -1 };
	CU_ASSERT_EQUAL(starpu_data_get_coordinates_array(h, 4, dims), 2);
	CU_ASSERT_EQUAL(dims[0], 3);
	CU_ASSERT_EQUAL(dims[1], 4);
	CU_ASSERT_EQUAL(dims[2], -1);
	int three[3] = { 7, 8, 9 };
	starpu_data_set_coordinates_array(same, 3, three);
	memset(dims, 0, sizeof(dims));
	CU_ASSERT_EQUAL(starpu_data_get_coordinates_array(same, 2, dims), 3);
	CU_ASSERT_EQUAL(dims[0], 7);
	CU_ASSERT_EQUAL(dims[1], 8);
	CU_ASSERT_EQUAL(dims[2], 0);	/* only 2 asked for */
	CU_ASSERT_PTR_NULL(starpu_data_get_user_data(h));
	starpu_data_set_user_data(h, &dst);
	CU_ASSERT_PTR_EQUAL(starpu_data_get_user_data(h), &dst);
	CU_ASSERT_PTR_NULL(starpu_data_get_user_data(same));

	starpu_data_unregister(same);
	starpu_data_unregister(h);
	CU_ASSERT_PTR_NULL(starpu_data_lookup(data));
	CU_ASSERT(memcmp(data, expect, sizeof(data)) == 0);
}

static const struct vtest_case custom_cases[] = {
	{ "custom_interface_register_same_names", test_custom_interface },
	VTEST_END
};

/* ================================================================== */
/* Out of core: RAM limited to 1 MiB, about 3 MiB of data registered with
 * no home. Writing it all evicts most of it to the disk; reading it back
 * brings it back, through every interface's copy methods. */

static int start_limited(void)
{
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "1");
	int ret = start_runtime();
	vtest_env_restore();
	return ret;
}

static uint32_t pat(unsigned seed, unsigned k)
{
	return seed * 2654435761u + k * 40503u + 1;
}

enum ooc_kind { OOC_VECTOR, OOC_MATRIX, OOC_BLOCK, OOC_CSR, OOC_BCSR, OOC_COO, OOC_COUNTERS, OOC_NKINDS };

struct ooc_item
{
	enum ooc_kind kind;
	unsigned seed;
	starpu_data_handle_t h;
};

/* Sizes: about 128 KiB each. */
enum { OV_N = 32768, OM_NX = 120, OM_NY = 270, OB_NX = 32, OB_NY = 32, OB_NZ = 32,
       OS_NROW = 512, OS_NNZ = 16000, OBS_NROW = 64, OBS_NNZ = 1000, OBS_R = 4, OBS_C = 6, OO_N = 10000 };

/* The value array of a handle in a codelet, and its length. */
static uint32_t *ooc_values(enum ooc_kind kind, void *iface, unsigned *n)
{
	switch (kind)
	{
	case OOC_VECTOR:
		*n = STARPU_VECTOR_GET_NX(iface);
		return (uint32_t *) STARPU_VECTOR_GET_PTR(iface);
	case OOC_MATRIX:
		/* allocated by the runtime: packed (checked in ooc_fill) */
		*n = STARPU_MATRIX_GET_NX(iface) * STARPU_MATRIX_GET_NY(iface);
		return (uint32_t *) STARPU_MATRIX_GET_PTR(iface);
	case OOC_BLOCK:
		*n = STARPU_BLOCK_GET_NX(iface) * STARPU_BLOCK_GET_NY(iface) * STARPU_BLOCK_GET_NZ(iface);
		return (uint32_t *) STARPU_BLOCK_GET_PTR(iface);
	case OOC_CSR:
		*n = STARPU_CSR_GET_NNZ(iface);
		return (uint32_t *) STARPU_CSR_GET_NZVAL(iface);
	case OOC_BCSR:
		*n = STARPU_BCSR_GET_NNZ(iface) * STARPU_BCSR_GET_R(iface) * STARPU_BCSR_GET_C(iface);
		return (uint32_t *) STARPU_BCSR_GET_NZVAL(iface);
	case OOC_COO:
		*n = STARPU_COO_GET_NVALUES(iface);
		return (uint32_t *) STARPU_COO_GET_VALUES(iface);
	default:
		*n = ((struct counters_interface *) iface)->n;
		return (uint32_t *) ((struct counters_interface *) iface)->ptr;
	}
}

/* The sparse structures: row r starts at r * nnz / nrow, entry k is in
 * column k % 97. */
static uint32_t ooc_rowptr(unsigned r, unsigned nrow, unsigned nnz)
{
	return (uint32_t) ((uint64_t) r * nnz / nrow);
}

static int ooc_packed_ok;

static void ooc_fill_cpu(void *buffers[], void *arg)
{
	struct ooc_item *it = arg;
	void *iface = buffers[0];
	unsigned n;
	uint32_t *v = ooc_values(it->kind, iface, &n);
	for (unsigned k = 0; k < n; k++)
		v[k] = pat(it->seed, k);
	if (it->kind == OOC_MATRIX && STARPU_MATRIX_GET_LD(iface) != STARPU_MATRIX_GET_NX(iface))
		ooc_packed_ok = 0;
	if (it->kind == OOC_BLOCK && (STARPU_BLOCK_GET_LDY(iface) != STARPU_BLOCK_GET_NX(iface)
				      || STARPU_BLOCK_GET_LDZ(iface) != STARPU_BLOCK_GET_NX(iface) * STARPU_BLOCK_GET_NY(iface)))
		ooc_packed_ok = 0;
	uint32_t *rowptr = NULL, *colind = NULL, nrow = 0, nnz = 0;
	if (it->kind == OOC_CSR)
	{
		rowptr = STARPU_CSR_GET_ROWPTR(iface);
		colind = STARPU_CSR_GET_COLIND(iface);
		nrow = STARPU_CSR_GET_NROW(iface);
		nnz = STARPU_CSR_GET_NNZ(iface);
	}
	else if (it->kind == OOC_BCSR)
	{
		rowptr = STARPU_BCSR_GET_ROWPTR(iface);
		colind = STARPU_BCSR_GET_COLIND(iface);
		nrow = STARPU_BCSR_GET_NROW(iface);
		nnz = STARPU_BCSR_GET_NNZ(iface);
	}
	else if (it->kind == OOC_COO)
	{
		uint32_t *rows = STARPU_COO_GET_ROWS(iface), *cols = STARPU_COO_GET_COLUMNS(iface);
		for (unsigned k = 0; k < n; k++)
		{
			rows[k] = k / 100;
			cols[k] = k % 97;
		}
	}
	for (unsigned r = 0; rowptr && r <= nrow; r++)
		rowptr[r] = ooc_rowptr(r, nrow, nnz);
	for (unsigned k = 0; colind && k < nnz; k++)
		colind[k] = k % 97;
}

static struct starpu_codelet ooc_fill_cl = {
	.cpu_funcs = { ooc_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "ooc_fill",
};

static void ooc_update_cpu(void *buffers[], void *arg)
{
	struct ooc_item *it = arg;
	unsigned n;
	uint32_t *v = ooc_values(it->kind, buffers[0], &n);
	for (unsigned k = 0; k < n; k++)
		v[k] = v[k] * 3 + 1;
}

static struct starpu_codelet ooc_update_cl = {
	.cpu_funcs = { ooc_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "ooc_update",
};

static void ooc_register(struct ooc_item *it)
{
	switch (it->kind)
	{
	case OOC_VECTOR:
		starpu_vector_data_register(&it->h, -1, 0, OV_N, sizeof(uint32_t));
		break;
	case OOC_MATRIX:
		starpu_matrix_data_register(&it->h, -1, 0, OM_NX, OM_NX, OM_NY, sizeof(uint32_t));
		break;
	case OOC_BLOCK:
		starpu_block_data_register(&it->h, -1, 0, OB_NX, OB_NX * OB_NY, OB_NX, OB_NY, OB_NZ, sizeof(uint32_t));
		break;
	case OOC_CSR:
		starpu_csr_data_register(&it->h, -1, OS_NNZ, OS_NROW, 0, NULL, NULL, 0, sizeof(uint32_t));
		break;
	case OOC_BCSR:
		starpu_bcsr_data_register(&it->h, -1, OBS_NNZ, OBS_NROW, 0, NULL, NULL, 0, OBS_R, OBS_C, sizeof(uint32_t));
		break;
	case OOC_COO:
		starpu_coo_data_register(&it->h, -1, 300, 97, OO_N * 3, NULL, NULL, 0, sizeof(uint32_t));
		break;
	default:
	{
		struct counters_interface ci = { 0, OV_N };
		starpu_data_register(&it->h, -1, &ci, &counters_ops);
		break;
	}
	}
}

/* Checks a handle's data (acquired in RAM) against the pattern after
 * nupdates updates. */
static int ooc_check(struct ooc_item *it, int nupdates)
{
	void *iface = ram_iface(it->h);
	unsigned n;
	const uint32_t *v = ooc_values(it->kind, iface, &n);
	if (!v)
		return 0;
	for (unsigned k = 0; k < n; k++)
	{
		uint32_t e = pat(it->seed, k);
		for (int u = 0; u < nupdates; u++)
			e = e * 3 + 1;
		if (v[k] != e)
			return 0;
	}
	const uint32_t *rowptr = NULL, *colind = NULL;
	unsigned nrow = 0, nnz = 0;
	if (it->kind == OOC_CSR)
	{
		rowptr = STARPU_CSR_GET_ROWPTR(iface);
		colind = STARPU_CSR_GET_COLIND(iface);
		nrow = OS_NROW;
		nnz = OS_NNZ;
	}
	else if (it->kind == OOC_BCSR)
	{
		rowptr = STARPU_BCSR_GET_ROWPTR(iface);
		colind = STARPU_BCSR_GET_COLIND(iface);
		nrow = OBS_NROW;
		nnz = OBS_NNZ;
	}
	else if (it->kind == OOC_COO)
	{
		const uint32_t *rows = STARPU_COO_GET_ROWS(iface), *cols = STARPU_COO_GET_COLUMNS(iface);
		for (unsigned k = 0; k < n; k++)
			if (rows[k] != k / 100 || cols[k] != k % 97)
				return 0;
	}
	for (unsigned r = 0; rowptr && r <= nrow; r++)
		if (rowptr[r] != ooc_rowptr(r, nrow, nnz))
			return 0;
	for (unsigned k = 0; colind && k < nnz; k++)
		if (colind[k] != k % 97)
			return 0;
	return 1;
}

static void test_out_of_core(void)
{
	if (!counters_ops.interfaceid)
		counters_ops.interfaceid = (enum starpu_data_interface_id) starpu_data_interface_get_next_id();
	CU_ASSERT_EQUAL_FATAL(starpu_memory_get_total(STARPU_MAIN_RAM), 1 << 20);
	enum { PER_KIND = 3, N = PER_KIND * OOC_NKINDS };
	static struct ooc_item items[N];
	size_t total = 0;
	for (unsigned i = 0; i < N; i++)
	{
		items[i].kind = (enum ooc_kind) (i % OOC_NKINDS);
		items[i].seed = i + 1;
		ooc_register(&items[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(items[i].h);
		total += starpu_data_get_size(items[i].h);
	}
	CU_ASSERT(total > (size_t) 2 << 20);

	ooc_packed_ok = 1;
	for (unsigned i = 0; i < N; i++)
		CU_ASSERT_EQUAL(submit(&ooc_fill_cl, &items[i], items[i].h), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_TRUE(ooc_packed_ok);

	/* most of it had to leave RAM, for the disk */
	size_t in_ram = 0;
	unsigned on_disk_only = 0, lost = 0;
	for (unsigned i = 0; i < N; i++)
	{
		int ram = starpu_data_is_on_node(items[i].h, STARPU_MAIN_RAM);
		int disk = starpu_data_is_on_node(items[i].h, (unsigned) disk_node);
		if (ram)
			in_ram += starpu_data_get_size(items[i].h);
		on_disk_only += !ram && disk;
		lost += !ram && !disk;
	}
	CU_ASSERT(in_ram <= (size_t) 1 << 20);
	CU_ASSERT(on_disk_only >= 1);
	CU_ASSERT_EQUAL(lost, 0);

	/* updated in RAM: read back from the disk, evicted again */
	for (unsigned i = 0; i < N; i++)
		CU_ASSERT_EQUAL(submit(&ooc_update_cl, &items[i], items[i].h), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	/* each one, in reverse order (the last written are in RAM) */
	unsigned good = 0;
	for (unsigned i = N; i-- > 0;)
	{
		CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(items[i].h, STARPU_R), 0);
		good += ooc_check(&items[i], 1);
		starpu_data_release(items[i].h);
	}
	CU_ASSERT_EQUAL(good, N);
	for (unsigned i = 0; i < N; i++)
		starpu_data_unregister(items[i].h);
}

/* x <- 2x + piece, on vectors of uint32. */
static void ooc_twice_cpu(void *buffers[], void *arg)
{
	uint32_t *v = (uint32_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] = v[i] * 2 + (uint32_t) (uintptr_t) arg;
}

static struct starpu_codelet ooc_twice_cl = {
	.cpu_funcs = { ooc_twice_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "ooc_twice",
};

/* Data evicted to the disk, partitioned synchronously or with a plan:
 * the parent comes back from the disk for its pieces. */
static void test_partition_evicted(void)
{
	enum { NH = 10, NX = 65536 };
	static struct ooc_item items[NH];
	for (unsigned i = 0; i < NH; i++)
	{
		items[i] = (struct ooc_item) { .kind = OOC_VECTOR, .seed = 100 + i };
		starpu_vector_data_register(&items[i].h, -1, 0, NX, sizeof(uint32_t));
		CU_ASSERT_PTR_NOT_NULL_FATAL(items[i].h);
		CU_ASSERT_EQUAL(submit(&ooc_fill_cl, &items[i], items[i].h), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	/* two that are on the disk only: one for each way of partitioning */
	int evicted[2] = { -1, -1 }, n = 0;
	for (unsigned i = 0; i < NH && n < 2; i++)
		if (!starpu_data_is_on_node(items[i].h, STARPU_MAIN_RAM) && starpu_data_is_on_node(items[i].h, (unsigned) disk_node))
			evicted[n++] = (int) i;
	CU_ASSERT_EQUAL_FATAL(n, 2);

	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	starpu_data_handle_t hs = items[evicted[0]].h, ha = items[evicted[1]].h, plan[3];
	starpu_data_partition(hs, &f);
	CU_ASSERT_EQUAL_FATAL(starpu_data_get_nb_children(hs), 3);
	starpu_data_partition_plan(ha, &f, plan);
	starpu_data_partition_submit(ha, 3, plan);
	for (uintptr_t c = 0; c < 3; c++)
	{
		CU_ASSERT_EQUAL(submit(&ooc_twice_cl, (void *) c, starpu_data_get_child(hs, (unsigned) c)), 0);
		CU_ASSERT_EQUAL(submit(&ooc_twice_cl, (void *) c, plan[c]), 0);
	}
	starpu_data_unpartition_submit(ha, 3, plan, STARPU_MAIN_RAM);
	/* the others go through RAM meanwhile */
	for (unsigned i = 0; i < NH; i++)
		if ((int) i != evicted[0] && (int) i != evicted[1])
			CU_ASSERT_EQUAL(submit(&ooc_twice_cl, (void *) 7, items[i].h), 0);
	starpu_data_unpartition(hs, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	unsigned good = 0;
	for (unsigned i = 0; i < NH; i++)
	{
		int part = (int) i == evicted[0] || (int) i == evicted[1];
		CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(items[i].h, STARPU_R), 0);
		const uint32_t *v = (const uint32_t *) starpu_vector_get_local_ptr(items[i].h);
		unsigned bad = 0;
		for (unsigned k = 0; k < NX; k++)
		{
			/* pieces of 21846, 21845, 21845 elements */
			uint32_t add = part ? (k < 21846 ? 0 : k < 43691 ? 1 : 2) : 7;
			bad += v[k] != pat(items[i].seed, k) * 2 + add;
		}
		good += !bad;
		starpu_data_release(items[i].h);
	}
	CU_ASSERT_EQUAL(good, NH);
	starpu_data_partition_clean(ha, 3, plan);
	for (unsigned i = 0; i < NH; i++)
		starpu_data_unregister(items[i].h);
}

static const struct vtest_case ooc_cases[] = {
	{ "evicted_to_disk_and_back", test_out_of_core },
	{ "partition_evicted_data", test_partition_evicted },
	VTEST_END
};


static const struct vtest_suite suites[] = {
	{ "custom", start_runtime, stop_runtime, custom_cases },
	{ "out_of_core", start_limited, stop_runtime, ooc_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
