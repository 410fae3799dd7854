/* test_interfaces_sparse.c — the sparse data interfaces, one suite per
 * kind: CSR, BCSR, COO; the same checks as test_interfaces.c makes of the
 * dense ones (interfaces_common.h).
 */
#include "interfaces_common.h"

/* ================================================================== */
/* CSR: 5 rows of a 5 x 6 matrix (row 1 empty), 9 floats */

enum { CNROW = 5, CNNZ = 9 };
static const uint32_t csr_rowptr_ref[CNROW + 1] = { 0, 2, 2, 5, 6, 9 };
static const uint32_t csr_colind_ref[CNNZ] = { 0, 4, 1, 2, 5, 3, 0, 1, 5 };
static const int csr_row_of[CNNZ] = { 0, 0, 2, 2, 2, 3, 4, 4, 4 };
static float csr_nzval[CNNZ], csr_nzval_orig[CNNZ];
static uint32_t csr_colind[CNNZ], csr_rowptr[CNROW + 1];

struct csr_seen
{
	uintptr_t nzval;
	uint32_t *colind, *rowptr;
	unsigned nnz, nrow, firstentry;
	size_t elemsize;
};

static void csr_update_cpu(void *buffers[], void *arg)
{
	struct csr_seen *s = arg;
	s->nnz = STARPU_CSR_GET_NNZ(buffers[0]);
	s->nrow = STARPU_CSR_GET_NROW(buffers[0]);
	s->nzval = STARPU_CSR_GET_NZVAL(buffers[0]);
	s->colind = STARPU_CSR_GET_COLIND(buffers[0]);
	s->rowptr = STARPU_CSR_GET_ROWPTR(buffers[0]);
	s->firstentry = STARPU_CSR_GET_FIRSTENTRY(buffers[0]);
	s->elemsize = STARPU_CSR_GET_ELEMSIZE(buffers[0]);
	float *v = (float *) s->nzval;
	for (unsigned r = 0; r < s->nrow; r++)
		for (uint32_t k = s->rowptr[r] - s->firstentry; k < s->rowptr[r + 1] - s->firstentry; k++)
			v[k] = v[k] * 2 + 10 * r + s->colind[k];
}

static struct starpu_codelet csr_update_cl = {
	.cpu_funcs = { csr_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "csr_update",
};

/* Writes the reference structure and values 0.5 * k. */
static void csr_fill_cpu(void *buffers[], void *arg)
{
	(void) arg;
	float *v = (float *) STARPU_CSR_GET_NZVAL(buffers[0]);
	memcpy(STARPU_CSR_GET_COLIND(buffers[0]), csr_colind_ref, sizeof(csr_colind_ref));
	memcpy(STARPU_CSR_GET_ROWPTR(buffers[0]), csr_rowptr_ref, sizeof(csr_rowptr_ref));
	for (unsigned k = 0; k < STARPU_CSR_GET_NNZ(buffers[0]); k++)
		v[k] = 0.5f * k;
}

static struct starpu_codelet csr_fill_cl = {
	.cpu_funcs = { csr_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "csr_fill",
};

static void csr_clobber(void)
{
	memset(csr_nzval, 0, sizeof(csr_nzval));
	memset(csr_colind, 0, sizeof(csr_colind));
	memset(csr_rowptr, 0, sizeof(csr_rowptr));
}

static int csr_intact(void)
{
	return !memcmp(csr_nzval, csr_nzval_orig, sizeof(csr_nzval)) && !memcmp(csr_colind, csr_colind_ref, sizeof(csr_colind))
		&& !memcmp(csr_rowptr, csr_rowptr_ref, sizeof(csr_rowptr));
}

static const size_t csr_bytes = CNNZ * sizeof(float) + CNNZ * sizeof(uint32_t) + (CNROW + 1) * sizeof(uint32_t);

static void test_csr_home(void)
{
	for (int k = 0; k < CNNZ; k++)
		csr_nzval[k] = 1.5f + k;
	memcpy(csr_nzval_orig, csr_nzval, sizeof(csr_nzval));
	memcpy(csr_colind, csr_colind_ref, sizeof(csr_colind));
	memcpy(csr_rowptr, csr_rowptr_ref, sizeof(csr_rowptr));

	starpu_data_handle_t h;
	starpu_csr_data_register(&h, STARPU_MAIN_RAM, CNNZ, CNROW, (uintptr_t) csr_nzval, csr_colind, csr_rowptr, 0, sizeof(float));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_CSR_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_csr_get_nnz(h), CNNZ);
	CU_ASSERT_EQUAL(starpu_csr_get_nrow(h), CNROW);
	CU_ASSERT_EQUAL(starpu_csr_get_firstentry(h), 0);
	CU_ASSERT_EQUAL(starpu_csr_get_elemsize(h), sizeof(float));
	CU_ASSERT_EQUAL(starpu_csr_get_local_nzval(h), (uintptr_t) csr_nzval);
	CU_ASSERT_PTR_EQUAL(starpu_csr_get_local_colind(h), csr_colind);
	CU_ASSERT_PTR_EQUAL(starpu_csr_get_local_rowptr(h), csr_rowptr);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), csr_bytes);

	struct pack_case pc = { h, NULL, csr_bytes, csr_clobber, csr_intact };
	check_pack(&pc);

	struct csr_seen s;
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(submit(&csr_update_cl, &s, h), 0);
	float expect[CNNZ];
	for (int k = 0; k < CNNZ; k++)
		expect[k] = csr_nzval_orig[k] * 2 + 10 * csr_row_of[k] + csr_colind_ref[k];
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(csr_nzval, expect, sizeof(expect)) == 0);
	CU_ASSERT(memcmp(csr_colind, csr_colind_ref, sizeof(csr_colind)) == 0);
	CU_ASSERT(memcmp(csr_rowptr, csr_rowptr_ref, sizeof(csr_rowptr)) == 0);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(s.nzval, (uintptr_t) csr_nzval);
	CU_ASSERT_PTR_EQUAL(s.colind, csr_colind);
	CU_ASSERT_PTR_EQUAL(s.rowptr, csr_rowptr);
	CU_ASSERT_EQUAL(s.nnz, CNNZ);
	CU_ASSERT_EQUAL(s.nrow, CNROW);
	CU_ASSERT_EQUAL(s.firstentry, 0);
	CU_ASSERT_EQUAL(s.elemsize, sizeof(float));

	float bv[CNNZ];
	uint32_t bc[CNNZ], br[CNROW + 1];
	memset(bv, 0, sizeof(bv));
	memset(bc, 0, sizeof(bc));
	memset(br, 0, sizeof(br));
	struct starpu_csr_interface dst = {
		.id = STARPU_CSR_INTERFACE_ID, .nnz = CNNZ, .nrow = CNROW, .nzval = (uintptr_t) bv,
		.colind = bc, .rowptr = br, .firstentry = 0, .elemsize = sizeof(float),
	};
	through_disk(h, &dst);
	CU_ASSERT(memcmp(bv, expect, sizeof(bv)) == 0);
	CU_ASSERT(memcmp(bc, csr_colind_ref, sizeof(bc)) == 0);
	CU_ASSERT(memcmp(br, csr_rowptr_ref, sizeof(br)) == 0);

	starpu_data_unregister(h);
	CU_ASSERT(memcmp(csr_nzval, expect, sizeof(expect)) == 0);
}

static void test_csr_no_home(void)
{
	starpu_data_handle_t h;
	starpu_csr_data_register(&h, -1, CNNZ, CNROW, 0, NULL, NULL, 0, sizeof(float));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_csr_get_nnz(h), CNNZ);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), csr_bytes);
	CU_ASSERT_EQUAL(submit(&csr_fill_cl, NULL, h), 0);
	struct csr_seen s;
	CU_ASSERT_EQUAL(submit(&csr_update_cl, &s, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	const float *v = (const float *) starpu_csr_get_local_nzval(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT(memcmp(starpu_csr_get_local_colind(h), csr_colind_ref, sizeof(csr_colind_ref)) == 0);
	CU_ASSERT(memcmp(starpu_csr_get_local_rowptr(h), csr_rowptr_ref, sizeof(csr_rowptr_ref)) == 0);
	int bad = 0;
	for (int k = 0; k < CNNZ; k++)
		bad += v[k] != 0.5f * k * 2 + 10 * csr_row_of[k] + csr_colind_ref[k];
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void test_csr_shape_copy(void)
{
	float v1[CNNZ], v2[CNNZ];
	uint32_t c1[CNNZ], c2[CNNZ], r1[CNROW + 1], r2[CNROW + 1];
	for (int k = 0; k < CNNZ; k++)
		v1[k] = 3.25f * k;
	memcpy(c1, csr_colind_ref, sizeof(c1));
	memcpy(r1, csr_rowptr_ref, sizeof(r1));
	memset(v2, 0, sizeof(v2));
	memset(c2, 0xff, sizeof(c2));
	memset(r2, 0xff, sizeof(r2));
	starpu_data_handle_t ha, hb, hc;
	starpu_csr_data_register(&ha, STARPU_MAIN_RAM, CNNZ, CNROW, (uintptr_t) v1, c1, r1, 0, sizeof(float));
	starpu_csr_data_register(&hb, STARPU_MAIN_RAM, CNNZ, CNROW, (uintptr_t) v2, c2, r2, 0, sizeof(float));
	/* the first 3 rows only: 5 entries */
	starpu_csr_data_register(&hc, STARPU_MAIN_RAM, 5, 3, (uintptr_t) v1, c1, r1, 0, sizeof(float));
	check_shape_ops(ha, hb, hc);
	CU_ASSERT_EQUAL(starpu_data_get_size(hc), 5 * sizeof(float) + 5 * sizeof(uint32_t) + 4 * sizeof(uint32_t));

	CU_ASSERT_EQUAL(ram_copy(ops_of(ha), ram_iface(ha), ram_iface(hb)), 0);
	CU_ASSERT(memcmp(v1, v2, sizeof(v1)) == 0);
	CU_ASSERT(memcmp(c1, c2, sizeof(c1)) == 0);
	CU_ASSERT(memcmp(r1, r2, sizeof(r1)) == 0);
	starpu_data_unregister_no_coherency(ha);
	starpu_data_unregister_no_coherency(hb);
	starpu_data_unregister_no_coherency(hc);
}

static const struct vtest_case csr_cases[] = {
	{ "home_accessors_task_pack_disk", test_csr_home },
	{ "no_home", test_csr_no_home },
	{ "shape_ops_copy", test_csr_shape_copy },
	VTEST_END
};

/* ================================================================== */
/* BCSR: 3 block rows (row 1 empty), 4 blocks of 2 x 3 doubles */

enum { BSNROW = 3, BSNNZ = 4, BSR = 2, BSC = 3, BSBLK = BSR * BSC };
static const uint32_t bcsr_rowptr_ref[BSNROW + 1] = { 0, 2, 2, 4 };
static const uint32_t bcsr_colind_ref[BSNNZ] = { 0, 2, 1, 3 };
static const int bcsr_row_of[BSNNZ] = { 0, 0, 2, 2 };
static double bcsr_nzval[BSNNZ * BSBLK], bcsr_nzval_orig[BSNNZ * BSBLK];
static uint32_t bcsr_colind[BSNNZ], bcsr_rowptr[BSNROW + 1];

struct bcsr_seen
{
	uintptr_t nzval;
	uint32_t *colind, *rowptr;
	unsigned nnz, nrow, firstentry, r, c;
	size_t elemsize;
};

static void bcsr_update_cpu(void *buffers[], void *arg)
{
	struct bcsr_seen *s = arg;
	s->nnz = STARPU_BCSR_GET_NNZ(buffers[0]);
	s->nrow = STARPU_BCSR_GET_NROW(buffers[0]);
	s->nzval = STARPU_BCSR_GET_NZVAL(buffers[0]);
	s->colind = STARPU_BCSR_GET_COLIND(buffers[0]);
	s->rowptr = STARPU_BCSR_GET_ROWPTR(buffers[0]);
	s->firstentry = STARPU_BCSR_GET_FIRSTENTRY(buffers[0]);
	s->r = STARPU_BCSR_GET_R(buffers[0]);
	s->c = STARPU_BCSR_GET_C(buffers[0]);
	s->elemsize = STARPU_BCSR_GET_ELEMSIZE(buffers[0]);
	double *v = (double *) s->nzval;
	unsigned blk = s->r * s->c;
	for (unsigned row = 0; row < s->nrow; row++)
		for (uint32_t b = s->rowptr[row] - s->firstentry; b < s->rowptr[row + 1] - s->firstentry; b++)
			for (unsigned e = 0; e < blk; e++)
				v[b * blk + e] += 100 * row + 10 * s->colind[b] + e;
}

static struct starpu_codelet bcsr_update_cl = {
	.cpu_funcs = { bcsr_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "bcsr_update",
};

static void bcsr_fill_cpu(void *buffers[], void *arg)
{
	(void) arg;
	double *v = (double *) STARPU_BCSR_GET_NZVAL(buffers[0]);
	memcpy(STARPU_BCSR_GET_COLIND(buffers[0]), bcsr_colind_ref, sizeof(bcsr_colind_ref));
	memcpy(STARPU_BCSR_GET_ROWPTR(buffers[0]), bcsr_rowptr_ref, sizeof(bcsr_rowptr_ref));
	for (unsigned k = 0; k < BSNNZ * BSBLK; k++)
		v[k] = -1.0 * k;
}

static struct starpu_codelet bcsr_fill_cl = {
	.cpu_funcs = { bcsr_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "bcsr_fill",
};

static void bcsr_clobber(void)
{
	memset(bcsr_nzval, 0, sizeof(bcsr_nzval));
	memset(bcsr_colind, 0, sizeof(bcsr_colind));
	memset(bcsr_rowptr, 0, sizeof(bcsr_rowptr));
}

static int bcsr_intact(void)
{
	return !memcmp(bcsr_nzval, bcsr_nzval_orig, sizeof(bcsr_nzval)) && !memcmp(bcsr_colind, bcsr_colind_ref, sizeof(bcsr_colind))
		&& !memcmp(bcsr_rowptr, bcsr_rowptr_ref, sizeof(bcsr_rowptr));
}

static const size_t bcsr_bytes = BSNNZ * BSBLK * sizeof(double) + BSNNZ * sizeof(uint32_t) + (BSNROW + 1) * sizeof(uint32_t);

static void test_bcsr_home(void)
{
	for (int k = 0; k < BSNNZ * BSBLK; k++)
		bcsr_nzval[k] = 0.125 * k + 1;
	memcpy(bcsr_nzval_orig, bcsr_nzval, sizeof(bcsr_nzval));
	memcpy(bcsr_colind, bcsr_colind_ref, sizeof(bcsr_colind));
	memcpy(bcsr_rowptr, bcsr_rowptr_ref, sizeof(bcsr_rowptr));

	starpu_data_handle_t h;
	starpu_bcsr_data_register(&h, STARPU_MAIN_RAM, BSNNZ, BSNROW, (uintptr_t) bcsr_nzval, bcsr_colind, bcsr_rowptr, 0,
				  BSR, BSC, sizeof(double));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_BCSR_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_bcsr_get_nnz(h), BSNNZ);
	CU_ASSERT_EQUAL(starpu_bcsr_get_nrow(h), BSNROW);
	CU_ASSERT_EQUAL(starpu_bcsr_get_firstentry(h), 0);
	CU_ASSERT_EQUAL(starpu_bcsr_get_r(h), BSR);
	CU_ASSERT_EQUAL(starpu_bcsr_get_c(h), BSC);
	CU_ASSERT_EQUAL(starpu_bcsr_get_elemsize(h), sizeof(double));
	CU_ASSERT_EQUAL(starpu_bcsr_get_local_nzval(h), (uintptr_t) bcsr_nzval);
	CU_ASSERT_PTR_EQUAL(starpu_bcsr_get_local_colind(h), bcsr_colind);
	CU_ASSERT_PTR_EQUAL(starpu_bcsr_get_local_rowptr(h), bcsr_rowptr);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), bcsr_bytes);

	struct pack_case pc = { h, NULL, bcsr_bytes, bcsr_clobber, bcsr_intact };
	check_pack(&pc);

	struct bcsr_seen s;
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(submit(&bcsr_update_cl, &s, h), 0);
	double expect[BSNNZ * BSBLK];
	for (int b = 0; b < BSNNZ; b++)
		for (int e = 0; e < BSBLK; e++)
			expect[b * BSBLK + e] = bcsr_nzval_orig[b * BSBLK + e] + 100 * bcsr_row_of[b] + 10 * bcsr_colind_ref[b] + e;
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(bcsr_nzval, expect, sizeof(expect)) == 0);
	CU_ASSERT(memcmp(bcsr_colind, bcsr_colind_ref, sizeof(bcsr_colind)) == 0);
	CU_ASSERT(memcmp(bcsr_rowptr, bcsr_rowptr_ref, sizeof(bcsr_rowptr)) == 0);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(s.nzval, (uintptr_t) bcsr_nzval);
	CU_ASSERT_PTR_EQUAL(s.colind, bcsr_colind);
	CU_ASSERT_PTR_EQUAL(s.rowptr, bcsr_rowptr);
	CU_ASSERT_EQUAL(s.nnz, BSNNZ);
	CU_ASSERT_EQUAL(s.nrow, BSNROW);
	CU_ASSERT_EQUAL(s.firstentry, 0);
	CU_ASSERT_EQUAL(s.r, BSR);
	CU_ASSERT_EQUAL(s.c, BSC);
	CU_ASSERT_EQUAL(s.elemsize, sizeof(double));

	double bv[BSNNZ * BSBLK];
	uint32_t bc[BSNNZ], br[BSNROW + 1];
	memset(bv, 0, sizeof(bv));
	memset(bc, 0, sizeof(bc));
	memset(br, 0, sizeof(br));
	struct starpu_bcsr_interface dst = {
		.id = STARPU_BCSR_INTERFACE_ID, .nnz = BSNNZ, .nrow = BSNROW, .nzval = (uintptr_t) bv,
		.colind = bc, .rowptr = br, .firstentry = 0, .r = BSR, .c = BSC, .elemsize = sizeof(double),
	};
	through_disk(h, &dst);
	CU_ASSERT(memcmp(bv, expect, sizeof(bv)) == 0);
	CU_ASSERT(memcmp(bc, bcsr_colind_ref, sizeof(bc)) == 0);
	CU_ASSERT(memcmp(br, bcsr_rowptr_ref, sizeof(br)) == 0);

	starpu_data_unregister(h);
	CU_ASSERT(memcmp(bcsr_nzval, expect, sizeof(expect)) == 0);
}

static void test_bcsr_no_home(void)
{
	starpu_data_handle_t h;
	starpu_bcsr_data_register(&h, -1, BSNNZ, BSNROW, 0, NULL, NULL, 0, BSR, BSC, sizeof(double));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), bcsr_bytes);
	CU_ASSERT_EQUAL(submit(&bcsr_fill_cl, NULL, h), 0);
	struct bcsr_seen s;
	CU_ASSERT_EQUAL(submit(&bcsr_update_cl, &s, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	const double *v = (const double *) starpu_bcsr_get_local_nzval(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT(memcmp(starpu_bcsr_get_local_colind(h), bcsr_colind_ref, sizeof(bcsr_colind_ref)) == 0);
	CU_ASSERT(memcmp(starpu_bcsr_get_local_rowptr(h), bcsr_rowptr_ref, sizeof(bcsr_rowptr_ref)) == 0);
	int bad = 0;
	for (int b = 0; b < BSNNZ; b++)
		for (int e = 0; e < BSBLK; e++)
			bad += v[b * BSBLK + e] != -1.0 * (b * BSBLK + e) + 100 * bcsr_row_of[b] + 10 * bcsr_colind_ref[b] + e;
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void test_bcsr_shape_copy(void)
{
	double v1[BSNNZ * BSBLK], v2[BSNNZ * BSBLK];
	uint32_t c1[BSNNZ], c2[BSNNZ], r1[BSNROW + 1], r2[BSNROW + 1];
	for (int k = 0; k < BSNNZ * BSBLK; k++)
		v1[k] = 7.5 * k;
	memcpy(c1, bcsr_colind_ref, sizeof(c1));
	memcpy(r1, bcsr_rowptr_ref, sizeof(r1));
	memset(v2, 0, sizeof(v2));
	memset(c2, 0xff, sizeof(c2));
	memset(r2, 0xff, sizeof(r2));
	starpu_data_handle_t ha, hb, hc, hd;
	starpu_bcsr_data_register(&ha, STARPU_MAIN_RAM, BSNNZ, BSNROW, (uintptr_t) v1, c1, r1, 0, BSR, BSC, sizeof(double));
	starpu_bcsr_data_register(&hb, STARPU_MAIN_RAM, BSNNZ, BSNROW, (uintptr_t) v2, c2, r2, 0, BSR, BSC, sizeof(double));
	/* the same arrays seen with 3 x 2 blocks */
	starpu_bcsr_data_register(&hc, STARPU_MAIN_RAM, BSNNZ, BSNROW, (uintptr_t) v1, c1, r1, 0, BSC, BSR, sizeof(double));
	/* 6 x 1 blocks */
	starpu_bcsr_data_register(&hd, STARPU_MAIN_RAM, BSNNZ, BSNROW, (uintptr_t) v1, c1, r1, 0, BSBLK, 1, sizeof(double));
	check_shape_ops(ha, hb, hc);
	CU_ASSERT_NOT_EQUAL(footprint_of(ha), footprint_of(hd));
	CU_ASSERT_FALSE(ops_of(ha)->compare(ram_iface(ha), ram_iface(hd)));

	CU_ASSERT_EQUAL(ram_copy(ops_of(ha), ram_iface(ha), ram_iface(hb)), 0);
	CU_ASSERT(memcmp(v1, v2, sizeof(v1)) == 0);
	CU_ASSERT(memcmp(c1, c2, sizeof(c1)) == 0);
	CU_ASSERT(memcmp(r1, r2, sizeof(r1)) == 0);
	starpu_data_unregister_no_coherency(ha);
	starpu_data_unregister_no_coherency(hb);
	starpu_data_unregister_no_coherency(hc);
	starpu_data_unregister_no_coherency(hd);
}

/* What a codelet sees of the first entry of a CSR or BCSR. */
static void firstentry_cpu(void *buffers[], void *arg)
{
	void *iface = buffers[0];
	if (*(enum starpu_data_interface_id *) iface == STARPU_CSR_INTERFACE_ID)
		*(uint32_t *) arg = STARPU_CSR_GET_FIRSTENTRY(iface);
	else
		*(uint32_t *) arg = STARPU_BCSR_GET_FIRSTENTRY(iface);
}

static struct starpu_codelet firstentry_cl = {
	.cpu_funcs = { firstentry_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "firstentry",
};

/* A buffer freed by one handle and reused (allocation cache) for another
 * of the same size keeps the new handle's description: firstentry 0, then
 * 1 (rows counted from 1), then 0 again. */
static void test_sparse_reuse_keeps_firstentry(void)
{
	const uint32_t fes[3] = { 0, 1, 0 };
	for (int bcsr = 0; bcsr < 2; bcsr++)
		for (int i = 0; i < 3; i++)
		{
			starpu_data_handle_t h;
			if (bcsr)
				starpu_bcsr_data_register(&h, -1, BSNNZ, BSNROW, 0, NULL, NULL, fes[i], BSR, BSC, sizeof(double));
			else
				starpu_csr_data_register(&h, -1, CNNZ, CNROW, 0, NULL, NULL, fes[i], sizeof(float));
			CU_ASSERT_PTR_NOT_NULL_FATAL(h);
			uint32_t seen = 99;
			CU_ASSERT_EQUAL(submit(&firstentry_cl, &seen, h), 0);
			CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
			CU_ASSERT_EQUAL(seen, fes[i]);
			CU_ASSERT_EQUAL(bcsr ? starpu_bcsr_get_firstentry(h) : starpu_csr_get_firstentry(h), fes[i]);
			starpu_data_unregister(h);
		}
}

static const struct vtest_case bcsr_cases[] = {
	{ "home_accessors_task_pack_disk", test_bcsr_home },
	{ "no_home", test_bcsr_no_home },
	{ "csr_bcsr_reuse_keeps_firstentry", test_sparse_reuse_keeps_firstentry },
	{ "shape_ops_copy", test_bcsr_shape_copy },
	VTEST_END
};

/* ================================================================== */
/* COO: 7 entries of a 6 x 5 matrix, int32 values */

enum { ONX = 6, ONY = 5, ONV = 7 };
static const uint32_t coo_rows_ref[ONV] = { 0, 0, 1, 2, 3, 4, 4 };
static const uint32_t coo_cols_ref[ONV] = { 1, 5, 0, 3, 3, 2, 4 };
static int32_t coo_values[ONV], coo_values_orig[ONV];
static uint32_t coo_rows[ONV], coo_cols[ONV];

struct coo_seen
{
	uint32_t *rows, *cols;
	uintptr_t values;
	unsigned nx, ny, n;
	size_t elemsize;
};

static void coo_update_cpu(void *buffers[], void *arg)
{
	struct coo_seen *s = arg;
	s->rows = STARPU_COO_GET_ROWS(buffers[0]);
	s->cols = STARPU_COO_GET_COLUMNS(buffers[0]);
	s->values = STARPU_COO_GET_VALUES(buffers[0]);
	s->nx = STARPU_COO_GET_NX(buffers[0]);
	s->ny = STARPU_COO_GET_NY(buffers[0]);
	s->n = STARPU_COO_GET_NVALUES(buffers[0]);
	s->elemsize = STARPU_COO_GET_ELEMSIZE(buffers[0]);
	int32_t *v = (int32_t *) s->values;
	for (unsigned k = 0; k < s->n; k++)
		v[k] += 100 * (int32_t) s->rows[k] + (int32_t) s->cols[k];
}

static struct starpu_codelet coo_update_cl = {
	.cpu_funcs = { coo_update_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "coo_update",
};

static void coo_fill_cpu(void *buffers[], void *arg)
{
	(void) arg;
	memcpy(STARPU_COO_GET_ROWS(buffers[0]), coo_rows_ref, sizeof(coo_rows_ref));
	memcpy(STARPU_COO_GET_COLUMNS(buffers[0]), coo_cols_ref, sizeof(coo_cols_ref));
	int32_t *v = (int32_t *) STARPU_COO_GET_VALUES(buffers[0]);
	for (unsigned k = 0; k < STARPU_COO_GET_NVALUES(buffers[0]); k++)
		v[k] = 11 * (int32_t) k;
}

static struct starpu_codelet coo_fill_cl = {
	.cpu_funcs = { coo_fill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "coo_fill",
};

static void coo_clobber(void)
{
	memset(coo_values, 0, sizeof(coo_values));
	memset(coo_rows, 0, sizeof(coo_rows));
	memset(coo_cols, 0, sizeof(coo_cols));
}

static int coo_intact(void)
{
	return !memcmp(coo_values, coo_values_orig, sizeof(coo_values)) && !memcmp(coo_rows, coo_rows_ref, sizeof(coo_rows))
		&& !memcmp(coo_cols, coo_cols_ref, sizeof(coo_cols));
}

/* What COO data takes (its entries), and the size StarPU reports for it
 * (that of the dense matrix, which performance models are keyed by). */
static const size_t coo_bytes = ONV * sizeof(int32_t) + 2 * ONV * sizeof(uint32_t);
static const size_t coo_dense_bytes = (size_t) ONX * ONY * sizeof(int32_t);

static void test_coo_home(void)
{
	for (int k = 0; k < ONV; k++)
		coo_values[k] = 3 - 2 * k;
	memcpy(coo_values_orig, coo_values, sizeof(coo_values));
	memcpy(coo_rows, coo_rows_ref, sizeof(coo_rows));
	memcpy(coo_cols, coo_cols_ref, sizeof(coo_cols));

	starpu_data_handle_t h;
	starpu_coo_data_register(&h, STARPU_MAIN_RAM, ONX, ONY, ONV, coo_cols, coo_rows, (uintptr_t) coo_values, sizeof(int32_t));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_interface_id(h), STARPU_COO_INTERFACE_ID);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), coo_dense_bytes);
	CU_ASSERT_EQUAL(starpu_data_get_alloc_size(h), coo_bytes);
	struct starpu_coo_interface *ci = ram_iface(h);
	CU_ASSERT_EQUAL(STARPU_COO_GET_NX(ci), ONX);
	CU_ASSERT_EQUAL(STARPU_COO_GET_NY(ci), ONY);
	CU_ASSERT_EQUAL(STARPU_COO_GET_NVALUES(ci), ONV);
	CU_ASSERT_PTR_EQUAL(STARPU_COO_GET_ROWS(ci), coo_rows);
	CU_ASSERT_PTR_EQUAL(STARPU_COO_GET_COLUMNS(ci), coo_cols);
	CU_ASSERT_EQUAL(STARPU_COO_GET_VALUES(ci), (uintptr_t) coo_values);

	struct pack_case pc = { h, NULL, coo_bytes, coo_clobber, coo_intact };
	check_pack(&pc);

	struct coo_seen s;
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(submit(&coo_update_cl, &s, h), 0);
	int32_t expect[ONV];
	for (int k = 0; k < ONV; k++)
		expect[k] = coo_values_orig[k] + 100 * (int32_t) coo_rows_ref[k] + (int32_t) coo_cols_ref[k];
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(coo_values, expect, sizeof(expect)) == 0);
	CU_ASSERT(memcmp(coo_rows, coo_rows_ref, sizeof(coo_rows)) == 0);
	CU_ASSERT(memcmp(coo_cols, coo_cols_ref, sizeof(coo_cols)) == 0);
	starpu_data_release(h);
	CU_ASSERT_PTR_EQUAL(s.rows, coo_rows);
	CU_ASSERT_PTR_EQUAL(s.cols, coo_cols);
	CU_ASSERT_EQUAL(s.values, (uintptr_t) coo_values);
	CU_ASSERT_EQUAL(s.nx, ONX);
	CU_ASSERT_EQUAL(s.ny, ONY);
	CU_ASSERT_EQUAL(s.n, ONV);
	CU_ASSERT_EQUAL(s.elemsize, sizeof(int32_t));

	int32_t bv[ONV];
	uint32_t brow[ONV], bcol[ONV];
	memset(bv, 0, sizeof(bv));
	memset(brow, 0, sizeof(brow));
	memset(bcol, 0, sizeof(bcol));
	struct starpu_coo_interface dst = {
		.id = STARPU_COO_INTERFACE_ID, .columns = bcol, .rows = brow, .values = (uintptr_t) bv,
		.nx = ONX, .ny = ONY, .n_values = ONV, .elemsize = sizeof(int32_t),
	};
	through_disk(h, &dst);
	CU_ASSERT(memcmp(bv, expect, sizeof(bv)) == 0);
	CU_ASSERT(memcmp(brow, coo_rows_ref, sizeof(brow)) == 0);
	CU_ASSERT(memcmp(bcol, coo_cols_ref, sizeof(bcol)) == 0);

	starpu_data_unregister(h);
	CU_ASSERT(memcmp(coo_values, expect, sizeof(expect)) == 0);
}

static void test_coo_no_home(void)
{
	starpu_data_handle_t h;
	starpu_coo_data_register(&h, -1, ONX, ONY, ONV, NULL, NULL, 0, sizeof(int32_t));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(starpu_data_get_size(h), coo_dense_bytes);
	CU_ASSERT_EQUAL(starpu_data_get_alloc_size(h), coo_bytes);
	CU_ASSERT_EQUAL(submit(&coo_fill_cl, NULL, h), 0);
	struct coo_seen s;
	CU_ASSERT_EQUAL(submit(&coo_update_cl, &s, h), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	struct starpu_coo_interface *ci = ram_iface(h);
	const int32_t *v = (const int32_t *) STARPU_COO_GET_VALUES(ci);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT(memcmp(STARPU_COO_GET_ROWS(ci), coo_rows_ref, sizeof(coo_rows_ref)) == 0);
	CU_ASSERT(memcmp(STARPU_COO_GET_COLUMNS(ci), coo_cols_ref, sizeof(coo_cols_ref)) == 0);
	int bad = 0;
	for (int k = 0; k < ONV; k++)
		bad += v[k] != 11 * k + 100 * (int32_t) coo_rows_ref[k] + (int32_t) coo_cols_ref[k];
	CU_ASSERT_EQUAL(bad, 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

static void test_coo_shape_copy(void)
{
	int32_t v1[ONV], v2[ONV];
	uint32_t r1[ONV], r2[ONV], c1[ONV], c2[ONV];
	for (int k = 0; k < ONV; k++)
		v1[k] = 1000 + k;
	memcpy(r1, coo_rows_ref, sizeof(r1));
	memcpy(c1, coo_cols_ref, sizeof(c1));
	memset(v2, 0, sizeof(v2));
	memset(r2, 0xff, sizeof(r2));
	memset(c2, 0xff, sizeof(c2));
	starpu_data_handle_t ha, hb, hc, hd;
	starpu_coo_data_register(&ha, STARPU_MAIN_RAM, ONX, ONY, ONV, c1, r1, (uintptr_t) v1, sizeof(int32_t));
	starpu_coo_data_register(&hb, STARPU_MAIN_RAM, ONX, ONY, ONV, c2, r2, (uintptr_t) v2, sizeof(int32_t));
	/* the same entries in a larger matrix */
	starpu_coo_data_register(&hc, STARPU_MAIN_RAM, ONX + 1, ONY, ONV, c1, r1, (uintptr_t) v1, sizeof(int32_t));
	/* fewer entries in the same matrix: as in StarPU, the footprint is
	 * that of the dense shape, but the buffers differ */
	starpu_coo_data_register(&hd, STARPU_MAIN_RAM, ONX, ONY, ONV - 1, c1, r1, (uintptr_t) v1, sizeof(int32_t));
	check_shape_ops(ha, hb, hc);
	CU_ASSERT_EQUAL(footprint_of(ha), footprint_of(hd));
	CU_ASSERT_FALSE(ops_of(ha)->compare(ram_iface(ha), ram_iface(hd)));

	CU_ASSERT_EQUAL(ram_copy(ops_of(ha), ram_iface(ha), ram_iface(hb)), 0);
	CU_ASSERT(memcmp(v1, v2, sizeof(v1)) == 0);
	CU_ASSERT(memcmp(r1, r2, sizeof(r1)) == 0);
	CU_ASSERT(memcmp(c1, c2, sizeof(c1)) == 0);
	starpu_data_unregister_no_coherency(ha);
	starpu_data_unregister_no_coherency(hb);
	starpu_data_unregister_no_coherency(hc);
	starpu_data_unregister_no_coherency(hd);
}

static const struct vtest_case coo_cases[] = {
	{ "home_accessors_task_pack_disk", test_coo_home },
	{ "no_home", test_coo_no_home },
	{ "shape_ops_copy", test_coo_shape_copy },
	VTEST_END
};


static const struct vtest_suite suites[] = {
	{ "csr", start_runtime, stop_runtime, csr_cases },
	{ "bcsr", start_runtime, stop_runtime, bcsr_cases },
	{ "coo", start_runtime, stop_runtime, coo_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
