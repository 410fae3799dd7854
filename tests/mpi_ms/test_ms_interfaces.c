/* test_ms_interfaces.c — every built-in interface's round trip master ->
 * slave 0 -> slave 1 -> master, byte for byte.
 *
 * Each datum is registered in the master's RAM with a pattern, then
 * written on slave 0 (a task there adds 1 to every byte the datum holds),
 * which leaves slave 0 the only valid copy, so that the next task, on
 * slave 1, gets it straight from slave 0; it adds 1 again; acquiring it
 * on the master brings it home. Every byte must be its pattern plus 2,
 * and the bytes a strided datum does not cover (a matrix's or a block's
 * padding) untouched. Sizes cover small data, a matrix and a block with
 * padding (strided copies), and 3 MiB (several MPI fragments).
 */
#include "mstest.h"

#include <stdint.h>

static void bump(void *p, size_t n)
{
	unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		c[i]++;
}

/* The kernels, found on the slaves by name: external linkage. */
void ms_bump_void(void *buffers[], void *arg);
void ms_bump_variable(void *buffers[], void *arg);
void ms_bump_vector(void *buffers[], void *arg);
void ms_bump_matrix(void *buffers[], void *arg);
void ms_bump_block(void *buffers[], void *arg);
void ms_bump_csr(void *buffers[], void *arg);
void ms_bump_bcsr(void *buffers[], void *arg);
void ms_bump_coo(void *buffers[], void *arg);

void ms_bump_void(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

void ms_bump_variable(void *buffers[], void *arg)
{
	(void) arg;
	bump((void *) STARPU_VARIABLE_GET_PTR(buffers[0]), STARPU_VARIABLE_GET_ELEMSIZE(buffers[0]));
}

void ms_bump_vector(void *buffers[], void *arg)
{
	(void) arg;
	bump((void *) STARPU_VECTOR_GET_PTR(buffers[0]), (size_t) STARPU_VECTOR_GET_NX(buffers[0]) * STARPU_VECTOR_GET_ELEMSIZE(buffers[0]));
}

void ms_bump_matrix(void *buffers[], void *arg)
{
	(void) arg;
	size_t es = STARPU_MATRIX_GET_ELEMSIZE(buffers[0]);
	char *p = (char *) STARPU_MATRIX_GET_PTR(buffers[0]);
	for (size_t j = 0; j < STARPU_MATRIX_GET_NY(buffers[0]); j++)
		bump(p + j * STARPU_MATRIX_GET_LD(buffers[0]) * es, STARPU_MATRIX_GET_NX(buffers[0]) * es);
}

void ms_bump_block(void *buffers[], void *arg)
{
	(void) arg;
	size_t es = STARPU_BLOCK_GET_ELEMSIZE(buffers[0]);
	char *p = (char *) STARPU_BLOCK_GET_PTR(buffers[0]);
	for (size_t z = 0; z < STARPU_BLOCK_GET_NZ(buffers[0]); z++)
		for (size_t y = 0; y < STARPU_BLOCK_GET_NY(buffers[0]); y++)
			bump(p + (z * STARPU_BLOCK_GET_LDZ(buffers[0]) + y * STARPU_BLOCK_GET_LDY(buffers[0])) * es,
			     STARPU_BLOCK_GET_NX(buffers[0]) * es);
}

void ms_bump_csr(void *buffers[], void *arg)
{
	(void) arg;
	void *b = buffers[0];
	bump((void *) STARPU_CSR_GET_NZVAL(b), (size_t) STARPU_CSR_GET_NNZ(b) * STARPU_CSR_GET_ELEMSIZE(b));
	bump(STARPU_CSR_GET_COLIND(b), STARPU_CSR_GET_NNZ(b) * sizeof(uint32_t));
	bump(STARPU_CSR_GET_ROWPTR(b), (STARPU_CSR_GET_NROW(b) + 1) * sizeof(uint32_t));
}

void ms_bump_bcsr(void *buffers[], void *arg)
{
	(void) arg;
	void *b = buffers[0];
	bump((void *) STARPU_BCSR_GET_NZVAL(b), (size_t) STARPU_BCSR_GET_NNZ(b) * STARPU_BCSR_GET_R(b) * STARPU_BCSR_GET_C(b) *
						 STARPU_BCSR_GET_ELEMSIZE(b));
	bump(STARPU_BCSR_GET_COLIND(b), STARPU_BCSR_GET_NNZ(b) * sizeof(uint32_t));
	bump(STARPU_BCSR_GET_ROWPTR(b), (STARPU_BCSR_GET_NROW(b) + 1) * sizeof(uint32_t));
}

void ms_bump_coo(void *buffers[], void *arg)
{
	(void) arg;
	void *b = buffers[0];
	bump(STARPU_COO_GET_COLUMNS(b), STARPU_COO_GET_NVALUES(b) * sizeof(uint32_t));
	bump(STARPU_COO_GET_ROWS(b), STARPU_COO_GET_NVALUES(b) * sizeof(uint32_t));
	bump((void *) STARPU_COO_GET_VALUES(b), (size_t) STARPU_COO_GET_NVALUES(b) * STARPU_COO_GET_ELEMSIZE(b));
}

#define CODELET(kind) \
	static struct starpu_codelet cl_##kind = { \
		.cpu_funcs = { ms_bump_##kind }, \
		.cpu_funcs_name = { "ms_bump_" #kind }, \
		.nbuffers = 1, \
		.modes = { STARPU_RW }, \
		.name = "bump_" #kind, \
	}
CODELET(void);
CODELET(variable);
CODELET(vector);
CODELET(matrix);
CODELET(block);
CODELET(csr);
CODELET(bcsr);
CODELET(coo);

static void fill(void *p, size_t n, unsigned seed)
{
	unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		c[i] = (unsigned char) (i * 131 + seed * 7 + (i >> 8));
}

/* Bytes [0, n) of p must be the pattern of seed plus add. */
static void check_bytes(const char *what, const void *p, size_t n, unsigned seed, unsigned add)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
	{
		unsigned char want = (unsigned char) ((unsigned char) (i * 131 + seed * 7 + (i >> 8)) + add);
		if (c[i] != want)
		{
			fprintf(stderr, "[%s] %s: byte %zu of %zu is %u, expected %u\n", ms_name, what, i, n, c[i], want);
			exit(1);
		}
	}
}

/* Slave 0 then slave 1 write it, the master reads it. */
static void round_trip(starpu_data_handle_t h, struct starpu_codelet *cl)
{
	for (int s = 0; s < 2; s++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = cl;
		t->handles[0] = h;
		t->execute_on_a_specific_worker = 1;
		t->workerid = (unsigned) ms_slave_worker(s, 0);
		t->synchronous = 1;
		CHECK_EQ(starpu_task_submit(t), 0);
		/* The only valid copy is on that slave now. */
		CHECK(starpu_data_is_on_node(h, ms_slave_node(s)));
		CHECK(!starpu_data_is_on_node(h, STARPU_MAIN_RAM));
	}
	CHECK_EQ(starpu_data_acquire(h, STARPU_R), 0);
	starpu_data_release(h);
}

int main(void)
{
	ms_start("test_ms_interfaces", 1, 2);

	/* void: a task with no data moves nothing, and runs. */
	starpu_data_handle_t h;
	starpu_void_data_register(&h);
	round_trip(h, &cl_void);
	starpu_data_unregister(h);

	/* variable */
	double var;
	fill(&var, sizeof(var), 1);
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &var, sizeof(var));
	round_trip(h, &cl_variable);
	starpu_data_unregister(h);
	check_bytes("variable", &var, sizeof(var), 1, 2);

	/* vector: small, and 3 MiB */
	size_t sizes[] = { 5, 3u << 20 };
	for (int k = 0; k < 2; k++)
	{
		char *v = malloc(sizes[k]);
		CHECK(v);
		fill(v, sizes[k], 2 + k);
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, (uint32_t) sizes[k], 1);
		round_trip(h, &cl_vector);
		starpu_data_unregister(h);
		check_bytes("vector", v, sizes[k], 2 + k, 2);
		free(v);
	}

	/* matrix with padding: nx=37 doubles of ld=50, ny=29 */
	{
		uint32_t nx = 37, ld = 50, ny = 29;
		size_t n = (size_t) ld * ny * sizeof(double);
		char *m = malloc(n), *ref = malloc(n);
		CHECK(m && ref);
		fill(m, n, 4);
		memcpy(ref, m, n);
		starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) m, ld, nx, ny, sizeof(double));
		round_trip(h, &cl_matrix);
		starpu_data_unregister(h);
		for (uint32_t j = 0; j < ny; j++)
		{
			size_t col = (size_t) j * ld * sizeof(double);
			for (size_t i = 0; i < (size_t) ld * sizeof(double); i++)
			{
				unsigned add = i < nx * sizeof(double) ? 2 : 0;
				if ((unsigned char) m[col + i] != (unsigned char) (ref[col + i] + add))
				{
					fprintf(stderr, "[%s] matrix: byte %zu of column %u is %u, expected %u\n", ms_name, i, j,
						(unsigned char) m[col + i], (unsigned char) (ref[col + i] + add));
					exit(1);
				}
			}
		}
		free(m);
		free(ref);
	}

	/* block with padding: 7 x 5 x 3 floats, ldy 9, ldz 9*6 */
	{
		uint32_t nx = 7, ny = 5, nz = 3, ldy = 9, ldz = 9 * 6;
		size_t n = (size_t) ldz * nz * sizeof(float);
		char *b = malloc(n), *ref = malloc(n);
		CHECK(b && ref);
		fill(b, n, 5);
		memcpy(ref, b, n);
		starpu_block_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) b, ldy, ldz, nx, ny, nz, sizeof(float));
		round_trip(h, &cl_block);
		starpu_data_unregister(h);
		for (size_t i = 0; i < n / sizeof(float); i++)
		{
			size_t x = i % ldy, y = (i % ldz) / ldy, z = i / ldz;
			unsigned add = x < nx && y < ny && z < nz ? 2 : 0;
			for (size_t k = 0; k < sizeof(float); k++)
				if ((unsigned char) b[i * sizeof(float) + k] != (unsigned char) (ref[i * sizeof(float) + k] + add))
				{
					fprintf(stderr, "[%s] block: element (%zu,%zu,%zu) byte %zu wrong\n", ms_name, x, y, z, k);
					exit(1);
				}
		}
		free(b);
		free(ref);
	}

	/* CSR: 6 rows, 11 non-zeros */
	{
		uint32_t nnz = 11, nrow = 6;
		double nzval[11];
		uint32_t colind[11], rowptr[7];
		fill(nzval, sizeof(nzval), 6);
		fill(colind, sizeof(colind), 7);
		fill(rowptr, sizeof(rowptr), 8);
		starpu_csr_data_register(&h, STARPU_MAIN_RAM, nnz, nrow, (uintptr_t) nzval, colind, rowptr, 0, sizeof(double));
		round_trip(h, &cl_csr);
		starpu_data_unregister(h);
		check_bytes("csr nzval", nzval, sizeof(nzval), 6, 2);
		check_bytes("csr colind", colind, sizeof(colind), 7, 2);
		check_bytes("csr rowptr", rowptr, sizeof(rowptr), 8, 2);
	}

	/* BCSR: 3 block rows, 4 blocks of 2 x 3 floats */
	{
		uint32_t nnz = 4, nrow = 3, r = 2, c = 3;
		float nzval[4 * 2 * 3];
		uint32_t colind[4], rowptr[4];
		fill(nzval, sizeof(nzval), 9);
		fill(colind, sizeof(colind), 10);
		fill(rowptr, sizeof(rowptr), 11);
		starpu_bcsr_data_register(&h, STARPU_MAIN_RAM, nnz, nrow, (uintptr_t) nzval, colind, rowptr, 0, r, c, sizeof(float));
		round_trip(h, &cl_bcsr);
		starpu_data_unregister(h);
		check_bytes("bcsr nzval", nzval, sizeof(nzval), 9, 2);
		check_bytes("bcsr colind", colind, sizeof(colind), 10, 2);
		check_bytes("bcsr rowptr", rowptr, sizeof(rowptr), 11, 2);
	}

	/* COO: 9 values in a 20 x 30 matrix */
	{
		uint32_t n = 9;
		uint32_t cols[9], rows[9];
		double vals[9];
		fill(cols, sizeof(cols), 12);
		fill(rows, sizeof(rows), 13);
		fill(vals, sizeof(vals), 14);
		starpu_coo_data_register(&h, STARPU_MAIN_RAM, 20, 30, n, cols, rows, (uintptr_t) vals, sizeof(double));
		round_trip(h, &cl_coo);
		starpu_data_unregister(h);
		check_bytes("coo columns", cols, sizeof(cols), 12, 2);
		check_bytes("coo rows", rows, sizeof(rows), 13, 2);
		check_bytes("coo values", vals, sizeof(vals), 14, 2);
	}

	starpu_shutdown();
	fprintf(stderr, "[%s] every interface went master -> slave 0 -> slave 1 -> master intact\n", ms_name);
	return 0;
}
