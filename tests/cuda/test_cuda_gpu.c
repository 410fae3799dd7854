/* test_cuda_gpu.c — the GPU suite: data and tasks on a real NVIDIA GPU.
 * Skipped (77, with the reason) where CUDA sees no GPU; run by
 * scripts/gpu-suite.sh on a machine that has one.
 *
 * Every interface goes to the GPU and back byte for byte (the only valid
 * copy on the GPU, the RAM buffer scribbled over, then read back); kernels
 * in flight (STARPU_CUDA_ASYNC) and waited for; cuBLAS on the worker's
 * stream; a working set four times STARPU_LIMIT_CUDA_MEM evicted and
 * written back; data larger than the GPU refused with -ENOMEM naming data,
 * task and node; SCRATCH and REDUX buffers on the GPU; two workers sharing
 * the GPU; pinned memory from starpu_malloc; a trace showing the next
 * task's input copied while a long kernel runs; and calibration timing
 * kernels on the GPU while others stay in flight.
 */
#include "vtest.h"
#include "trace_reader.h"

#include <starpu.h>
#include <starpu_cublas_v2.h>
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void vela_test_add(float *v, unsigned n, float a, cudaStream_t s);
void vela_test_inc(int *x, cudaStream_t s);
void vela_test_scratch(float *scratch, float *v, unsigned n, cudaStream_t s);
void vela_test_spin(float *v, long long cycles, cudaStream_t s);
void vela_test_spin_read(const float *v, long long cycles, cudaStream_t s);

#define LIMIT_MIB 4

static _Atomic int on_cuda, on_cpu;
static _Atomic int by_worker[STARPU_NMAXWORKERS];

static int start(int nworkers_per_gpu, int limit_mib)
{
	char buf[16];
	if (limit_mib)
	{
		snprintf(buf, sizeof(buf), "%d", limit_mib);
		vtest_setenv("STARPU_LIMIT_CUDA_MEM", buf);
	}
	snprintf(buf, sizeof(buf), "%d", nworkers_per_gpu);
	vtest_setenv("STARPU_NWORKER_PER_CUDA", buf);
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncuda = 1;
	conf.nopencl = 0;
	conf.ncpus = 1;
	conf.precedence_over_environment_variables = 1;
	int ret = starpu_init(&conf);
	vtest_env_restore();
	if (ret)
		return -1;
	if (starpu_cuda_worker_get_count() < (unsigned) nworkers_per_gpu)
	{
		starpu_shutdown();
		return -1;
	}
	return 0;
}

static int start_plain(void) { return start(1, 0); }
static int start_limited(void) { return start(1, LIMIT_MIB); }
static int start_two(void) { return start(2, 0); }

static int stop(void)
{
	return vtest_stop();
}

static unsigned gpu_node(void)
{
	return starpu_worker_get_memory_node((unsigned) starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0));
}

static void fill_pattern(void *p, size_t n, unsigned seed)
{
	unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char) (i * 131u + seed * 7u + (i >> 8));
}

/* ------------------------------------------------------------------ */
/* Round trips. */

static void touch(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static struct starpu_codelet touch_cl = {
	.cuda_funcs = { touch }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "touch",
};

/* Writes h on the GPU (its only valid copy there), scribbles the RAM
 * regions, reads h back: the regions must be as they were. */
static void round_trip(starpu_data_handle_t h, void **regions, const size_t *sizes, unsigned nr)
{
	void *saved[4];
	for (unsigned i = 0; i < nr; i++)
	{
		saved[i] = malloc(sizes[i] ? sizes[i] : 1);
		memcpy(saved[i], regions[i], sizes[i]);
	}
	CU_ASSERT_EQUAL_FATAL(starpu_task_insert(&touch_cl, STARPU_RW, h, 0), 0);
	starpu_task_wait_for_all();
	int alloc, valid, req;
	starpu_data_query_status(h, (int) gpu_node(), &alloc, &valid, &req);
	CU_ASSERT(alloc && valid);
	for (unsigned i = 0; i < nr; i++)
		memset(regions[i], 0xEE, sizes[i]);
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	for (unsigned i = 0; i < nr; i++)
	{
		CU_ASSERT(memcmp(saved[i], regions[i], sizes[i]) == 0);
		free(saved[i]);
	}
	starpu_data_release(h);
}

static void test_variable_vector(void)
{
	double d;
	fill_pattern(&d, sizeof(d), 1);
	unsigned n = 100003;
	float *v = malloc(n * sizeof(float));
	fill_pattern(v, n * sizeof(float), 2);
	starpu_data_handle_t hd, hv;
	starpu_variable_data_register(&hd, STARPU_MAIN_RAM, (uintptr_t) &d, sizeof(d));
	starpu_vector_data_register(&hv, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(float));
	void *r1[] = { &d }, *r2[] = { v };
	size_t s1[] = { sizeof(d) }, s2[] = { n * sizeof(float) };
	round_trip(hd, r1, s1, 1);
	round_trip(hv, r2, s2, 1);
	starpu_data_unregister(hd);
	starpu_data_unregister(hv);
	free(v);
}

/* Padded rows and planes: 2D copies (cudaMemcpy2DAsync) keep the padding. */
static void test_matrix_block(void)
{
	unsigned nx = 37, ny = 29, ld = 45;
	size_t mbytes = (size_t) ld * ny * sizeof(double);
	double *m = malloc(mbytes), *mcopy = malloc(mbytes);
	fill_pattern(m, mbytes, 3);
	memcpy(mcopy, m, mbytes);
	starpu_data_handle_t h;
	starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) m, ld, nx, ny, sizeof(double));
	CU_ASSERT_EQUAL_FATAL(starpu_task_insert(&touch_cl, STARPU_RW, h, 0), 0);
	starpu_task_wait_for_all();
	for (unsigned j = 0; j < ny; j++)
		memset(m + (size_t) j * ld, 0xEE, nx * sizeof(double));
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(m, mcopy, mbytes) == 0);
	starpu_data_release(h);
	starpu_data_unregister(h);

	unsigned bx = 7, by = 5, bz = 4, ldy = 9, ldz = 9 * 6;
	size_t bbytes = (size_t) ldz * bz * sizeof(int);
	int *b = malloc(bbytes), *bcopy = malloc(bbytes);
	fill_pattern(b, bbytes, 4);
	memcpy(bcopy, b, bbytes);
	starpu_block_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) b, ldy, ldz, bx, by, bz, sizeof(int));
	CU_ASSERT_EQUAL_FATAL(starpu_task_insert(&touch_cl, STARPU_RW, h, 0), 0);
	starpu_task_wait_for_all();
	for (unsigned z = 0; z < bz; z++)
		for (unsigned y = 0; y < by; y++)
			memset(b + (size_t) z * ldz + (size_t) y * ldy, 0xEE, bx * sizeof(int));
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(b, bcopy, bbytes) == 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
	free(m);
	free(mcopy);
	free(b);
	free(bcopy);
}

static void test_sparse(void)
{
	uint32_t nrow = 50, nnz = 200;
	float *nzval = malloc(nnz * 6 * sizeof(float));
	uint32_t *colind = malloc(nnz * sizeof(uint32_t)), *rowptr = malloc((nrow + 1) * sizeof(uint32_t));
	fill_pattern(nzval, nnz * 6 * sizeof(float), 5);
	for (uint32_t i = 0; i < nnz; i++)
		colind[i] = (i * 7) % 50;
	for (uint32_t i = 0; i <= nrow; i++)
		rowptr[i] = i * 4;
	starpu_data_handle_t h;
	void *r[] = { nzval, colind, rowptr };
	size_t s[] = { nnz * sizeof(float), nnz * sizeof(uint32_t), (nrow + 1) * sizeof(uint32_t) };
	starpu_csr_data_register(&h, STARPU_MAIN_RAM, nnz, nrow, (uintptr_t) nzval, colind, rowptr, 0, sizeof(float));
	round_trip(h, r, s, 3);
	starpu_data_unregister(h);
	/* BCSR with 3x2 blocks. */
	s[0] = nnz * 6 * sizeof(float);
	starpu_bcsr_data_register(&h, STARPU_MAIN_RAM, nnz, nrow, (uintptr_t) nzval, colind, rowptr, 0, 3, 2, sizeof(float));
	round_trip(h, r, s, 3);
	starpu_data_unregister(h);
	/* COO. */
	uint32_t *rows = malloc(nnz * sizeof(uint32_t));
	for (uint32_t i = 0; i < nnz; i++)
		rows[i] = i % 50;
	void *rc[] = { nzval, colind, rows };
	size_t sc[] = { nnz * sizeof(float), nnz * sizeof(uint32_t), nnz * sizeof(uint32_t) };
	starpu_coo_data_register(&h, STARPU_MAIN_RAM, 50, 50, nnz, colind, rows, (uintptr_t) nzval, sizeof(float));
	round_trip(h, rc, sc, 3);
	starpu_data_unregister(h);
	starpu_void_data_register(&h);
	CU_ASSERT_EQUAL(starpu_task_insert(&touch_cl, STARPU_RW, h, 0), 0);
	starpu_task_wait_for_all();
	starpu_data_unregister(h);
	free(nzval);
	free(colind);
	free(rowptr);
	free(rows);
}

/* ------------------------------------------------------------------ */
/* Kernels. */

static void add_cuda(void *buffers[], void *arg)
{
	float a;
	starpu_codelet_unpack_args(arg, &a);
	vela_test_add((float *) STARPU_VECTOR_GET_PTR(buffers[0]), STARPU_VECTOR_GET_NX(buffers[0]), a,
		      starpu_cuda_get_local_stream());
	atomic_fetch_add(&on_cuda, 1);
	atomic_fetch_add(&by_worker[starpu_worker_get_id()], 1);
}

static void add_cpu(void *buffers[], void *arg)
{
	float a;
	starpu_codelet_unpack_args(arg, &a);
	float *v = (float *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] += a;
	atomic_fetch_add(&on_cpu, 1);
}

static struct starpu_codelet add_async_cl = {
	.cuda_funcs = { add_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 1, .modes = { STARPU_RW },
	.name = "add_async",
};
static struct starpu_codelet add_sync_cl = {
	.cuda_funcs = { add_cuda }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "add_sync",
};
static struct starpu_codelet add_any_cl = {
	.cpu_funcs = { add_cpu }, .cuda_funcs = { add_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 1,
	.modes = { STARPU_RW }, .name = "add_any",
};

static void run_adds(struct starpu_codelet *cl, unsigned nvec, unsigned n, unsigned rounds)
{
	float **v = malloc(nvec * sizeof(*v));
	starpu_data_handle_t *h = malloc(nvec * sizeof(*h));
	for (unsigned k = 0; k < nvec; k++)
	{
		v[k] = malloc(n * sizeof(float));
		for (unsigned i = 0; i < n; i++)
			v[k][i] = (float) ((i + k) % 4096);
		starpu_vector_data_register(&h[k], STARPU_MAIN_RAM, (uintptr_t) v[k], n, sizeof(float));
	}
	atomic_store(&on_cuda, 0);
	atomic_store(&on_cpu, 0);
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned k = 0; k < nvec; k++)
		{
			float a = (float) (r + 1);
			CU_ASSERT_EQUAL_FATAL(starpu_task_insert(cl, STARPU_RW, h[k], STARPU_VALUE, &a, sizeof(a), 0), 0);
		}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	float add = (float) (rounds * (rounds + 1) / 2);
	unsigned bad = 0;
	for (unsigned k = 0; k < nvec; k++)
	{
		starpu_data_unregister(h[k]);
		for (unsigned i = 0; i < n; i++)
			bad += v[k][i] != (float) ((i + k) % 4096) + add;
		free(v[k]);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(atomic_load(&on_cuda) + atomic_load(&on_cpu), (int) (nvec * rounds));
	free(v);
	free(h);
}

static void test_async(void) { run_adds(&add_async_cl, 8, 1 << 16, 10); }
static void test_sync(void) { run_adds(&add_sync_cl, 4, 1 << 16, 5); }
static void test_mixed(void) { run_adds(&add_any_cl, 16, 1 << 14, 12); }

static void sscal_cuda(void *buffers[], void *arg)
{
	(void) arg;
	float two = 2.0f;
	cublasStatus_t st = cublasSscal(starpu_cublas_get_local_handle(), (int) STARPU_VECTOR_GET_NX(buffers[0]), &two,
					(float *) STARPU_VECTOR_GET_PTR(buffers[0]), 1);
	if (st != CUBLAS_STATUS_SUCCESS)
		STARPU_CUBLAS_REPORT_ERROR(st);
}

static struct starpu_codelet sscal_cl = {
	.cuda_funcs = { sscal_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 1, .modes = { STARPU_RW },
	.name = "sscal",
};

static void test_cublas(void)
{
	starpu_cublas_init();
	unsigned n = 10000;
	float *v = malloc(n * sizeof(float));
	for (unsigned i = 0; i < n; i++)
		v[i] = (float) i;
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(float));
	for (int r = 0; r < 3; r++)
		CU_ASSERT_EQUAL(starpu_task_insert(&sscal_cl, STARPU_RW, h, 0), 0);
	starpu_task_wait_for_all();
	starpu_data_unregister(h);
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++)
		bad += v[i] != 8.0f * (float) i;
	CU_ASSERT_EQUAL(bad, 0);
	starpu_cublas_shutdown();
	free(v);
}

/* starpu_malloc gives pinned memory while the run has a GPU. */
static void test_pinned(void)
{
	void *p = NULL;
	CU_ASSERT_EQUAL_FATAL(starpu_malloc(&p, 1 << 20), 0);
	struct cudaPointerAttributes attr;
	CU_ASSERT_EQUAL(cudaPointerGetAttributes(&attr, p), cudaSuccess);
	CU_ASSERT_EQUAL(attr.type, cudaMemoryTypeHost);
	memset(p, 1, 1 << 20);
	CU_ASSERT_EQUAL(starpu_free(p), 0);
	char *q = malloc(1 << 16);
	CU_ASSERT_EQUAL(starpu_memory_pin(q, 1 << 16), 0);
	CU_ASSERT_EQUAL(cudaPointerGetAttributes(&attr, q), cudaSuccess);
	CU_ASSERT_EQUAL(attr.type, cudaMemoryTypeHost);
	CU_ASSERT_EQUAL(starpu_memory_unpin(q, 1 << 16), 0);
	free(q);
}

/* ------------------------------------------------------------------ */
/* Device memory. */

static void test_eviction(void)
{
	/* 16 MiB through 4 MiB, three rounds. */
	run_adds(&add_async_cl, 64, 65536, 3);
}

static void init_cpu(void *buffers[], void *arg)
{
	float *v = (float *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] = (float) ((i + (unsigned) (uintptr_t) arg) % 4096);
}

static struct starpu_codelet init_cl = { .cpu_funcs = { init_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "init" };

static void test_eviction_runtime_allocated(void)
{
	unsigned nvec = 64, n = 65536;
	starpu_data_handle_t h[64];
	for (unsigned k = 0; k < nvec; k++)
	{
		starpu_vector_data_register(&h[k], -1, 0, n, sizeof(float));
		struct starpu_task *t = starpu_task_create();
		t->cl = &init_cl;
		t->handles[0] = h[k];
		t->cl_arg = (void *) (uintptr_t) k;
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	for (unsigned r = 0; r < 2; r++)
		for (unsigned k = 0; k < nvec; k++)
		{
			float a = 2.0f;
			CU_ASSERT_EQUAL_FATAL(starpu_task_insert(&add_async_cl, STARPU_RW, h[k], STARPU_VALUE, &a, sizeof(a), 0), 0);
		}
	starpu_task_wait_for_all();
	unsigned bad = 0;
	for (unsigned k = 0; k < nvec; k++)
	{
		CU_ASSERT_EQUAL(starpu_data_acquire(h[k], STARPU_R), 0);
		const float *p = (const float *) starpu_data_get_local_ptr(h[k]);
		for (unsigned i = 0; i < n; i++)
			bad += p[i] != (float) ((i + k) % 4096) + 4.0f;
		starpu_data_release(h[k]);
		starpu_data_unregister(h[k]);
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static void test_too_large(void)
{
	unsigned n = (2u * LIMIT_MIB << 20) / sizeof(float);
	float *v = calloc(n, sizeof(float));
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(float));
	starpu_data_set_name(h, "huge_vector");
	float a = 1.0f;
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_task_insert(&add_async_cl, STARPU_RW, h, STARPU_VALUE, &a, sizeof(a), STARPU_NAME, "too_large", 0), 0);
	starpu_task_wait_for_all();
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "-ENOMEM"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "too_large"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "huge_vector"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "CUDA 0"));
	starpu_data_unregister(h);
	free(v);
}

static void scratch_cuda(void *buffers[], void *arg)
{
	(void) arg;
	vela_test_scratch((float *) STARPU_VECTOR_GET_PTR(buffers[1]), (float *) STARPU_VECTOR_GET_PTR(buffers[0]),
			  STARPU_VECTOR_GET_NX(buffers[0]), starpu_cuda_get_local_stream());
}

static struct starpu_codelet scratch_cl = {
	.cuda_funcs = { scratch_cuda }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_SCRATCH }, .name = "scratch",
};

static void test_scratch(void)
{
	unsigned n = 4096;
	float *v = malloc(n * sizeof(float));
	for (unsigned i = 0; i < n; i++)
		v[i] = (float) (i % 100);
	starpu_data_handle_t h, s;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(float));
	starpu_vector_data_register(&s, -1, 0, n, sizeof(float));
	for (int r = 0; r < 3; r++)
		CU_ASSERT_EQUAL(starpu_task_insert(&scratch_cl, STARPU_RW, h, STARPU_SCRATCH, s, 0), 0);
	starpu_task_wait_for_all();
	starpu_data_unregister(h);
	starpu_data_unregister(s);
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++)
	{
		float e = (float) (i % 100);
		for (int r = 0; r < 3; r++)
			e = 2.0f * e + 1.0f;
		bad += v[i] != e;
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(v);
}

static void inc_cuda(void *buffers[], void *arg)
{
	(void) arg;
	vela_test_inc((int *) STARPU_VARIABLE_GET_PTR(buffers[0]), starpu_cuda_get_local_stream());
	atomic_fetch_add(&on_cuda, 1);
}

static void inc_cpu(void *buffers[], void *arg)
{
	(void) arg;
	(*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
	atomic_fetch_add(&on_cpu, 1);
}

static void zero_cpu(void *buffers[], void *arg)
{
	(void) arg;
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]) = 0;
}

static void sum_cpu(void *buffers[], void *arg)
{
	(void) arg;
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]) += *(int *) STARPU_VARIABLE_GET_PTR(buffers[1]);
}

static struct starpu_codelet inc_redux_cl = {
	.cpu_funcs = { inc_cpu }, .cuda_funcs = { inc_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 1,
	.modes = { STARPU_REDUX }, .name = "inc_redux",
};
static struct starpu_codelet zero_cl = { .cpu_funcs = { zero_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "zero" };
static struct starpu_codelet sum_cl = {
	.cpu_funcs = { sum_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "sum"
};

static void test_redux(void)
{
	int value = 7;
	starpu_data_handle_t x;
	starpu_variable_data_register(&x, STARPU_MAIN_RAM, (uintptr_t) &value, sizeof(value));
	starpu_data_set_reduction_methods(x, &sum_cl, &zero_cl);
	int wgpu = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0), wcpu = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0);
	atomic_store(&on_cuda, 0);
	atomic_store(&on_cpu, 0);
	for (int i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&inc_redux_cl, STARPU_REDUX, x, STARPU_EXECUTE_ON_WORKER, i % 2 ? wgpu : wcpu, 0), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(starpu_data_acquire(x, STARPU_R), 0);
	CU_ASSERT_EQUAL(value, 47);
	starpu_data_release(x);
	CU_ASSERT_EQUAL(atomic_load(&on_cuda), 20);
	CU_ASSERT_EQUAL(atomic_load(&on_cpu), 20);
	starpu_data_unregister(x);
}

static void test_partition(void)
{
	unsigned n = 10000, parts = 4;
	float *v = malloc(n * sizeof(float));
	for (unsigned i = 0; i < n; i++)
		v[i] = (float) (i % 100);
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(float));
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = parts };
	starpu_data_partition(h, &f);
	for (unsigned p = 0; p < parts; p++)
	{
		float a = (float) (p + 1);
		CU_ASSERT_EQUAL(starpu_task_insert(&add_async_cl, STARPU_RW, starpu_data_get_sub_data(h, 1, p), STARPU_VALUE, &a,
						   sizeof(a), 0), 0);
	}
	starpu_task_wait_for_all();
	starpu_data_unpartition(h, STARPU_MAIN_RAM);
	starpu_data_unregister(h);
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++)
		bad += v[i] != (float) (i % 100) + (float) (i / (n / parts) + 1);
	CU_ASSERT_EQUAL(bad, 0);
	free(v);
}

/* ------------------------------------------------------------------ */
/* Two workers sharing the GPU. */

static void test_two_workers(void)
{
	CU_ASSERT_EQUAL(starpu_cuda_worker_get_count(), 2);
	int w0 = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0), w1 = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 1);
	CU_ASSERT_EQUAL(starpu_worker_get_memory_node((unsigned) w0), starpu_worker_get_memory_node((unsigned) w1));
	CU_ASSERT_EQUAL(starpu_worker_get_devid(w0), starpu_worker_get_devid(w1));
	memset(by_worker, 0, sizeof(by_worker));
	unsigned nvec = 8, n = 1 << 14;
	float *v = malloc(nvec * n * sizeof(float));
	starpu_data_handle_t h[8];
	for (unsigned i = 0; i < nvec * n; i++)
		v[i] = 1.0f;
	for (unsigned k = 0; k < nvec; k++)
		starpu_vector_data_register(&h[k], STARPU_MAIN_RAM, (uintptr_t) (v + k * n), n, sizeof(float));
	for (unsigned t = 0; t < 64; t++)
	{
		float a = 1.0f;
		CU_ASSERT_EQUAL(starpu_task_insert(&add_async_cl, STARPU_RW, h[t % nvec], STARPU_VALUE, &a, sizeof(a),
						   STARPU_EXECUTE_ON_WORKER, t % 2 ? w1 : w0, 0), 0);
	}
	starpu_task_wait_for_all();
	for (unsigned k = 0; k < nvec; k++)
		starpu_data_unregister(h[k]);
	unsigned bad = 0;
	for (unsigned i = 0; i < nvec * n; i++)
		bad += v[i] != 9.0f;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(atomic_load(&by_worker[w0]), 32);
	CU_ASSERT_EQUAL(atomic_load(&by_worker[w1]), 32);
	free(v);
}

/* ------------------------------------------------------------------ */
/* A copy in flight while a kernel runs, seen in the trace. */

static void spin_cuda(void *buffers[], void *arg)
{
	(void) arg;
	vela_test_spin((float *) STARPU_VECTOR_GET_PTR(buffers[0]), 200LL * 1000 * 1000, starpu_cuda_get_local_stream());
}

static struct starpu_codelet spin_cl = {
	.cuda_funcs = { spin_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "spin",
};

static void test_trace_overlap(void)
{
	char dir[64] = "/tmp/vela-cudatrace-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncuda = 1;
	conf.nopencl = 0;
	conf.ncpus = 1;
	conf.vela_trace = 1;
	conf.vela_trace_prefix = dir;
	conf.precedence_over_environment_variables = 1;
	CU_ASSERT_EQUAL_FATAL(starpu_init(&conf), 0);
	unsigned n = 1u << 22;	/* 16 MiB */
	float *a = calloc(16, sizeof(float)), *b = calloc(n, sizeof(float));
	starpu_data_handle_t ha, hb;
	starpu_vector_data_register(&ha, STARPU_MAIN_RAM, (uintptr_t) a, 16, sizeof(float));
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) b, n, sizeof(float));
	float one = 1.0f;
	/* Both queued before the worker looks: it launches the long kernel,
	 * then fetches the next task's input while the kernel runs. */
	starpu_pause();
	starpu_task_insert(&spin_cl, STARPU_RW, ha, STARPU_NAME, "long", 0);
	starpu_task_insert(&add_async_cl, STARPU_RW, hb, STARPU_VALUE, &one, sizeof(one), STARPU_NAME, "next", 0);
	starpu_resume();
	starpu_task_wait_for_all();
	starpu_data_unregister(ha);
	starpu_data_unregister(hb);
	starpu_shutdown();
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++)
		bad += b[i] != 1.0f;
	CU_ASSERT_EQUAL(bad, 0);
	free(a);
	free(b);

	char path[256] = "";
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "vela_trace_", 11))
			snprintf(path, sizeof(path), "%.63s/%.180s", dir, e->d_name);
	if (d)
		closedir(d);
	struct trace t;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(trace_load(path, &t, err, sizeof(err)), 0);
	int il = -1, in = -1, node = -1;
	for (unsigned i = 0; i < t.ntasks; i++)
	{
		if (t.tasks[i].name && !strcmp(t.tasks[i].name, "long"))
			il = (int) i;
		if (t.tasks[i].name && !strcmp(t.tasks[i].name, "next"))
			in = (int) i;
	}
	for (unsigned i = 0; i < t.nworkers; i++)
		if (t.workers[i].arch == STARPU_CUDA_WORKER)
			node = (int) t.workers[i].node;
	CU_ASSERT_FATAL(il >= 0 && in >= 0 && node >= 0);
	const struct tr_transfer *x = NULL;
	for (unsigned i = 0; i < t.ntransfers; i++)
		if ((int) t.transfers[i].dst == node && t.transfers[i].bytes == (uint64_t) n * sizeof(float))
			x = &t.transfers[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT(x->start > t.tasks[il].exec_start);
	CU_ASSERT(x->end < t.tasks[il].exec_end);	/* a GPU copies while it computes */
	CU_ASSERT(x->end <= t.tasks[in].exec_start);
	trace_free(&t);
	unlink(path);
	rmdir(dir);
}

/* ------------------------------------------------------------------ */
/* Calibration (STARPU_CALIBRATE=1: every task is a sample). An
 * asynchronous codelet's sample is its kernels' time on the GPU, taken
 * between events around them while the worker keeps other tasks in
 * flight: the worker does not wait for its queue to empty before a
 * measured task (each launch finds the previous kernel still running), and
 * the model learns the kernel's own duration (that of the same kernel
 * queued back to back outside the runtime), without the host's launch and
 * wake-up. */

static char cal_home[] = "/tmp/vela-cuda-calibrate-XXXXXX";
static long long cal_cycles;
static _Atomic int cal_launches, cal_busy;

static int start_calibrate(void)
{
	if (!mkdtemp(cal_home))
		return -1;
	/* Kept until stop: the models are written at starpu_shutdown. */
	setenv("STARPU_HOME", cal_home, 1);
	setenv("STARPU_CALIBRATE", "1", 1);
	return start(1, 0);
}

static int stop_calibrate(void)
{
	int ret = vtest_stop();
	unsetenv("STARPU_CALIBRATE");
	unsetenv("STARPU_HOME");
	char cmd[sizeof(cal_home) + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", cal_home);
	if (system(cmd) != 0)
		ret = -1;
	return ret;
}

static void spin_read_cuda(void *buffers[], void *arg)
{
	(void) arg;
	cudaStream_t s = starpu_cuda_get_local_stream();
	cal_launches++;
	if (cudaStreamQuery(s) == cudaErrorNotReady)
		cal_busy++;
	vela_test_spin_read((const float *) STARPU_VECTOR_GET_PTR(buffers[0]), cal_cycles, s);
}

static struct starpu_perfmodel cal_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "vela_test_cuda_in_flight",
};

static struct starpu_codelet spin_read_cl = {
	.cuda_funcs = { spin_read_cuda }, .cuda_flags = { STARPU_CUDA_ASYNC }, .nbuffers = 1, .modes = { STARPU_R },
	.model = &cal_model, .name = "spin_read",
};

/* The kernel's median duration in µs, 16 queued back to back on a stream
 * of our own, each between two events. */
static double raw_spin_us(const float *dev)
{
	enum { R = 16 };
	cudaStream_t s;
	cudaEvent_t ev[R + 1];
	float us[R];
	if (cudaStreamCreate(&s) != cudaSuccess)
		return -1.0;
	for (int i = 0; i <= R; i++)
		cudaEventCreate(&ev[i]);
	vela_test_spin_read(dev, cal_cycles, s);	/* module loaded, clocks up */
	cudaEventRecord(ev[0], s);
	for (int i = 0; i < R; i++)
	{
		vela_test_spin_read(dev, cal_cycles, s);
		cudaEventRecord(ev[i + 1], s);
	}
	cudaStreamSynchronize(s);
	for (int i = 0; i < R; i++)
	{
		float ms = 0.0f;
		cudaEventElapsedTime(&ms, ev[i], ev[i + 1]);
		us[i] = 1000.0f * ms;
	}
	for (int i = 0; i <= R; i++)
		cudaEventDestroy(ev[i]);
	cudaStreamDestroy(s);
	for (int i = 1; i < R; i++)	/* insertion sort */
		for (int j = i; j > 0 && us[j - 1] > us[j]; j--)
		{
			float t = us[j];
			us[j] = us[j - 1];
			us[j - 1] = t;
		}
	return us[R / 2];
}

static void test_calibration_in_flight(void)
{
	enum { N = 40 };
	int khz = 0;
	CU_ASSERT_EQUAL_FATAL(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), cudaSuccess);
	cal_cycles = (long long) khz / 5;	/* about 200 µs */
	float *dev;
	CU_ASSERT_EQUAL_FATAL(cudaMalloc((void **) &dev, 16 * sizeof(float)), cudaSuccess);
	CU_ASSERT_EQUAL(cudaMemset(dev, 0, 16 * sizeof(float)), cudaSuccess);
	double raw = raw_spin_us(dev);
	cudaFree(dev);
	CU_ASSERT_FATAL(raw > 0.0);

	float v[16] = { 0 };
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, 16, sizeof(float));
	/* Read-only: no dependencies, the worker may keep them in flight. */
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL_FATAL(starpu_task_insert(&spin_read_cl, STARPU_R, h, 0), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(cal_launches, N);
	/* Timed alone, every launch would find the stream idle. */
	CU_ASSERT(cal_busy >= N / 2);

	struct starpu_task *t = starpu_task_create();
	t->cl = &spin_read_cl;
	t->handles[0] = h;
	t->destroy = 0;
	int w = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0);
	struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(w, STARPU_NMAX_SCHED_CTXS);
	double expected = starpu_task_expected_length(t, arch, 0);
	starpu_task_destroy(t);
	printf(" [kernel %.1f us alone on a stream, model %.1f us, %d of %d launches behind a running kernel] ", raw,
	       expected, (int) cal_busy, N);
	CU_ASSERT(expected > 0.9 * raw && expected < 1.1 * raw);
	starpu_data_unregister(h);
}

/* ------------------------------------------------------------------ */

static const struct vtest_case data_cases[] = {
	{ "roundtrip_variable_vector", test_variable_vector },
	{ "roundtrip_matrix_block_padded", test_matrix_block },
	{ "roundtrip_csr_bcsr_coo_void", test_sparse },
	{ "kernels_async_pipeline", test_async },
	{ "kernels_sync", test_sync },
	{ "kernels_cpu_and_cuda", test_mixed },
	{ "cublas", test_cublas },
	{ "pinned_memory", test_pinned },
	VTEST_END
};

static const struct vtest_case memory_cases[] = {
	{ "eviction_4x_limit", test_eviction },
	{ "eviction_runtime_allocated", test_eviction_runtime_allocated },
	{ "too_large_for_gpu", test_too_large },
	{ "scratch", test_scratch },
	{ "redux", test_redux },
	{ "partition", test_partition },
	VTEST_END
};

static const struct vtest_case two_cases[] = {
	{ "two_workers_one_gpu", test_two_workers },
	VTEST_END
};

static const struct vtest_case calibrate_cases[] = {
	{ "calibration_in_flight", test_calibration_in_flight },
	VTEST_END
};

static const struct vtest_case trace_cases[] = {
	{ "copy_overlaps_kernel", test_trace_overlap },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "cuda_data", start_plain, stop, data_cases },
	{ "cuda_memory", start_limited, stop, memory_cases },
	{ "cuda_shared_gpu", start_two, stop, two_cases },
	{ "cuda_calibrate", start_calibrate, stop_calibrate, calibrate_cases },
	{ "cuda_trace", NULL, NULL, trace_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	int n = 0;
	cudaError_t err = cudaGetDeviceCount(&n);
	if (err != cudaSuccess || n == 0)
	{
		char why[200];
		snprintf(why, sizeof(why), "no GPU usable here (%s)", err != cudaSuccess ? cudaGetErrorString(err) : "no device");
		return vtest_skip(why);
	}
	return vtest_run(argc, argv, suites);
}
