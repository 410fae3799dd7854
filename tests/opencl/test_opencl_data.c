/* test_opencl_data.c — data on a real OpenCL device (PoCL's CPU device in
 * CI): every interface goes to the device and back byte for byte, kernels
 * compute on device buffers, a working set larger than the device's limit
 * is evicted and written back, copies and tasks run in flight.
 *
 * The round trips: the data is written on the device (a task in RW mode),
 * so the only valid copy is there; the application's buffer in RAM is then
 * scribbled over behind the runtime's back, and reading it again (acquire)
 * must bring back exactly what was sent.
 */
#include "vtest.h"

#include <dirent.h>
#include <errno.h>
#include <starpu.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned ocl_worker_node(void)
{
	int w = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0);
	return starpu_worker_get_memory_node((unsigned) w);
}

/* ------------------------------------------------------------------ */
/* Round trips. */

static void touch_ocl(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static struct starpu_codelet touch_cl = {
	.opencl_funcs = { touch_ocl },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "touch",
};

static void fill_pattern(void *p, size_t n, unsigned seed)
{
	unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char) (i * 131u + seed * 7u + (i >> 8));
}

/* Sends h to the device as its only valid copy, scribbles the home buffers
 * (regions given), brings h back and checks them against saved copies. */
struct region
{
	void *p;
	size_t n;
};

static void round_trip(starpu_data_handle_t h, struct region *r, unsigned nr)
{
	void *saved[4];
	for (unsigned i = 0; i < nr; i++)
	{
		saved[i] = malloc(r[i].n ? r[i].n : 1);
		memcpy(saved[i], r[i].p, r[i].n);
	}
	struct starpu_task *t = starpu_task_create();
	t->cl = &touch_cl;
	t->handles[0] = h;
	t->synchronous = 1;
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	int valid = -1, alloc = -1, req = -1;
	starpu_data_query_status(h, (int) ocl_worker_node(), &alloc, &valid, &req);
	CU_ASSERT_EQUAL(alloc, 1);
	CU_ASSERT_EQUAL(valid, 1);
	starpu_data_query_status(h, STARPU_MAIN_RAM, &alloc, &valid, &req);
	CU_ASSERT_EQUAL(valid, 0);
	for (unsigned i = 0; i < nr; i++)
		memset(r[i].p, 0xEE, r[i].n);
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	for (unsigned i = 0; i < nr; i++)
	{
		CU_ASSERT(memcmp(saved[i], r[i].p, r[i].n) == 0);
		free(saved[i]);
	}
	starpu_data_release(h);
}

static void test_variable(void)
{
	double v;
	fill_pattern(&v, sizeof(v), 1);
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	struct region r[] = { { &v, sizeof(v) } };
	round_trip(h, r, 1);
	starpu_data_unregister(h);
}

static void test_vector(void)
{
	unsigned n = 100003;
	float *v = malloc(n * sizeof(float));
	fill_pattern(v, n * sizeof(float), 2);
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(float));
	struct region r[] = { { v, n * sizeof(float) } };
	round_trip(h, r, 1);
	starpu_data_unregister(h);
	free(v);
}

/* A matrix whose rows are padded (ld > nx): the copy is strided, and the
 * padding in RAM must stay as it was. */
static void test_matrix(void)
{
	unsigned nx = 37, ny = 29, ld = 45;
	double *m = malloc((size_t) ld * ny * sizeof(double));
	fill_pattern(m, (size_t) ld * ny * sizeof(double), 3);
	double *copy = malloc((size_t) ld * ny * sizeof(double));
	memcpy(copy, m, (size_t) ld * ny * sizeof(double));
	starpu_data_handle_t h;
	starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) m, ld, nx, ny, sizeof(double));
	CU_ASSERT_EQUAL_FATAL(starpu_task_insert(&touch_cl, STARPU_RW, h, 0), 0);
	starpu_task_wait_for_all();
	/* Scribble the rows only: the padding is not the data's. */
	for (unsigned j = 0; j < ny; j++)
		memset(m + (size_t) j * ld, 0xEE, nx * sizeof(double));
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(m, copy, (size_t) ld * ny * sizeof(double)) == 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
	free(m);
	free(copy);
}

static void test_block(void)
{
	unsigned nx = 7, ny = 5, nz = 4, ldy = 9, ldz = 9 * 6;
	size_t bytes = (size_t) ldz * nz * sizeof(int);
	int *b = malloc(bytes), *copy = malloc(bytes);
	fill_pattern(b, bytes, 4);
	memcpy(copy, b, bytes);
	starpu_data_handle_t h;
	starpu_block_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) b, ldy, ldz, nx, ny, nz, sizeof(int));
	CU_ASSERT_EQUAL_FATAL(starpu_task_insert(&touch_cl, STARPU_RW, h, 0), 0);
	starpu_task_wait_for_all();
	for (unsigned z = 0; z < nz; z++)
		for (unsigned y = 0; y < ny; y++)
			memset(b + (size_t) z * ldz + (size_t) y * ldy, 0xEE, nx * sizeof(int));
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(b, copy, bytes) == 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
	free(b);
	free(copy);
}

static void test_csr(void)
{
	uint32_t nrow = 50, nnz = 200;
	float *nzval = malloc(nnz * sizeof(float));
	uint32_t *colind = malloc(nnz * sizeof(uint32_t)), *rowptr = malloc((nrow + 1) * sizeof(uint32_t));
	fill_pattern(nzval, nnz * sizeof(float), 5);
	for (uint32_t i = 0; i < nnz; i++)
		colind[i] = (i * 7) % 50;
	for (uint32_t i = 0; i <= nrow; i++)
		rowptr[i] = i * 4;
	starpu_data_handle_t h;
	starpu_csr_data_register(&h, STARPU_MAIN_RAM, nnz, nrow, (uintptr_t) nzval, colind, rowptr, 0, sizeof(float));
	struct region r[] = { { nzval, nnz * sizeof(float) }, { colind, nnz * sizeof(uint32_t) },
			      { rowptr, (nrow + 1) * sizeof(uint32_t) } };
	round_trip(h, r, 3);
	starpu_data_unregister(h);
	free(nzval);
	free(colind);
	free(rowptr);
}

static void test_bcsr(void)
{
	uint32_t nrow = 10, nnz = 20, rr = 3, cc = 2;
	double *nzval = malloc(nnz * rr * cc * sizeof(double));
	uint32_t *colind = malloc(nnz * sizeof(uint32_t)), *rowptr = malloc((nrow + 1) * sizeof(uint32_t));
	fill_pattern(nzval, nnz * rr * cc * sizeof(double), 6);
	for (uint32_t i = 0; i < nnz; i++)
		colind[i] = i % 10;
	for (uint32_t i = 0; i <= nrow; i++)
		rowptr[i] = i * 2;
	starpu_data_handle_t h;
	starpu_bcsr_data_register(&h, STARPU_MAIN_RAM, nnz, nrow, (uintptr_t) nzval, colind, rowptr, 0, rr, cc, sizeof(double));
	struct region r[] = { { nzval, nnz * rr * cc * sizeof(double) }, { colind, nnz * sizeof(uint32_t) },
			      { rowptr, (nrow + 1) * sizeof(uint32_t) } };
	round_trip(h, r, 3);
	starpu_data_unregister(h);
	free(nzval);
	free(colind);
	free(rowptr);
}

static void test_coo(void)
{
	uint32_t n = 64;
	uint32_t *rows = malloc(n * sizeof(uint32_t)), *cols = malloc(n * sizeof(uint32_t));
	double *vals = malloc(n * sizeof(double));
	for (uint32_t i = 0; i < n; i++)
	{
		rows[i] = i % 16;
		cols[i] = (i * 5) % 16;
	}
	fill_pattern(vals, n * sizeof(double), 7);
	starpu_data_handle_t h;
	starpu_coo_data_register(&h, STARPU_MAIN_RAM, 16, 16, n, cols, rows, (uintptr_t) vals, sizeof(double));
	struct region r[] = { { vals, n * sizeof(double) }, { cols, n * sizeof(uint32_t) }, { rows, n * sizeof(uint32_t) } };
	round_trip(h, r, 3);
	starpu_data_unregister(h);
	free(rows);
	free(cols);
	free(vals);
}

static void test_void(void)
{
	starpu_data_handle_t h;
	starpu_void_data_register(&h);
	CU_ASSERT_EQUAL(starpu_task_insert(&touch_cl, STARPU_RW, h, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_data_unregister(h);
}

/* Custom interfaces: a vector interface whose copy methods are its own,
 * per kind of node (ram_to_opencl, opencl_to_ram: synchronous; or their
 * _async forms, which queue the copy and give an event), or only
 * any_to_any. Each counts its calls, so the test sees which one the
 * runtime picked, as StarPU picks them. */
static _Atomic int n_sync, n_async, n_any;

static int v_ram_to_opencl(void *si, unsigned snode, void *di, unsigned dnode)
{
	struct starpu_vector_interface *s = si, *d = di;
	int ret;
	n_sync++;
	cl_int err = starpu_opencl_copy_ram_to_opencl((void *) s->ptr, snode, (cl_mem) d->dev_handle, dnode,
						      (size_t) s->nx * s->elemsize, d->offset, NULL, &ret);
	return err == CL_SUCCESS ? ret : -EIO;
}

static int v_opencl_to_ram(void *si, unsigned snode, void *di, unsigned dnode)
{
	struct starpu_vector_interface *s = si, *d = di;
	int ret;
	n_sync++;
	cl_int err = starpu_opencl_copy_opencl_to_ram((cl_mem) s->dev_handle, snode, (void *) d->ptr, dnode,
						      (size_t) s->nx * s->elemsize, s->offset, NULL, &ret);
	return err == CL_SUCCESS ? ret : -EIO;
}

static int v_ram_to_opencl_async(void *si, unsigned snode, void *di, unsigned dnode, cl_event *ev)
{
	struct starpu_vector_interface *s = si, *d = di;
	int ret;
	n_async++;
	cl_int err = starpu_opencl_copy_ram_to_opencl((void *) s->ptr, snode, (cl_mem) d->dev_handle, dnode,
						      (size_t) s->nx * s->elemsize, d->offset, ev, &ret);
	return err == CL_SUCCESS ? ret : -EIO;
}

/* fail_after_queue: the next device-to-RAM copy queues its copy, gives
 * its event, then says it failed (a method whose second part failed). */
static _Atomic int fail_after_queue;

static int v_opencl_to_ram_async(void *si, unsigned snode, void *di, unsigned dnode, cl_event *ev)
{
	struct starpu_vector_interface *s = si, *d = di;
	int ret;
	n_async++;
	cl_int err = starpu_opencl_copy_opencl_to_ram((cl_mem) s->dev_handle, snode, (void *) d->ptr, dnode,
						      (size_t) s->nx * s->elemsize, s->offset, ev, &ret);
	if (err == CL_SUCCESS && atomic_exchange(&fail_after_queue, 0))
		return -EIO;
	return err == CL_SUCCESS ? ret : -EIO;
}

static int v_any(void *si, unsigned snode, void *di, unsigned dnode, void *async)
{
	struct starpu_vector_interface *s = si, *d = di;
	n_any++;
	return starpu_interface_copy(s->dev_handle, s->offset, snode, d->dev_handle, d->offset, dnode,
				     (size_t) s->nx * s->elemsize, async);
}

static int v_ram_to_ram(void *si, unsigned snode, void *di, unsigned dnode)
{
	return v_any(si, snode, di, dnode, NULL);
}

static struct starpu_data_copy_methods sync_methods = {
	.ram_to_ram = v_ram_to_ram, .ram_to_opencl = v_ram_to_opencl, .opencl_to_ram = v_opencl_to_ram,
};
static struct starpu_data_copy_methods async_methods = {
	.ram_to_ram = v_ram_to_ram, .ram_to_opencl = v_ram_to_opencl, .opencl_to_ram = v_opencl_to_ram,
	.ram_to_opencl_async = v_ram_to_opencl_async, .opencl_to_ram_async = v_opencl_to_ram_async,
};
static struct starpu_data_copy_methods any_methods = { .any_to_any = v_any };

static void custom_round_trip(struct starpu_data_copy_methods *m)
{
	static struct starpu_data_interface_ops ops;
	ops = starpu_interface_vector_ops;
	ops.copy_methods = m;
	ops.interfaceid = (enum starpu_data_interface_id) starpu_data_interface_get_next_id();
	ops.name = "custom_vector";
	unsigned n = 5000;
	float *v = malloc(n * sizeof(float));
	fill_pattern(v, n * sizeof(float), 9);
	struct starpu_vector_interface iface = {
		.id = ops.interfaceid, .ptr = (uintptr_t) v, .dev_handle = (uintptr_t) v, .nx = n, .elemsize = sizeof(float),
	};
	starpu_data_handle_t h;
	starpu_data_register(&h, STARPU_MAIN_RAM, &iface, &ops);
	n_sync = n_async = n_any = 0;
	struct region r[] = { { v, n * sizeof(float) } };
	round_trip(h, r, 1);
	starpu_data_unregister(h);
	free(v);
}

static void test_custom_sync_methods(void)
{
	custom_round_trip(&sync_methods);
	/* RAM to device and back, each with the interface's own method. */
	CU_ASSERT_EQUAL(n_sync, 2);
	CU_ASSERT_EQUAL(n_async + n_any, 0);
}

static void test_custom_async_methods(void)
{
	custom_round_trip(&async_methods);
	/* The task's fetch queues its copy (the _async method), and so does
	 * the application's acquire, which then polls for its end: both
	 * with the _async method, as StarPU's data requests do. */
	CU_ASSERT_EQUAL(n_async, 2);
	CU_ASSERT_EQUAL(n_sync, 0);
	CU_ASSERT_EQUAL(n_any, 0);
}

/* A copy that fails after queuing part of itself, under a synchronous
 * fetch (queued, then polled): the fetch returns, RAM stays invalid and the
 * device's copy, the only valid one, is kept; the next acquisition copies
 * it home byte for byte. */
static void test_custom_async_failure(void)
{
	static struct starpu_data_interface_ops ops;
	ops = starpu_interface_vector_ops;
	ops.copy_methods = &async_methods;
	ops.interfaceid = (enum starpu_data_interface_id) starpu_data_interface_get_next_id();
	ops.name = "custom_vector_failing";
	unsigned n = 5000;
	float *v = malloc(n * sizeof(float)), *saved = malloc(n * sizeof(float));
	fill_pattern(v, n * sizeof(float), 11);
	memcpy(saved, v, n * sizeof(float));
	struct starpu_vector_interface iface = {
		.id = ops.interfaceid, .ptr = (uintptr_t) v, .dev_handle = (uintptr_t) v, .nx = n, .elemsize = sizeof(float),
	};
	starpu_data_handle_t h;
	starpu_data_register(&h, STARPU_MAIN_RAM, &iface, &ops);
	CU_ASSERT_EQUAL_FATAL(starpu_task_insert(&touch_cl, STARPU_RW, h, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	memset(v, 0xEE, n * sizeof(float));
	int valid = -1, alloc = -1, req = -1;
	n_async = 0;
	fail_after_queue = 1;
	starpu_data_fetch_on_node(h, STARPU_MAIN_RAM, 0);
	CU_ASSERT_EQUAL(fail_after_queue, 0);	/* the failing method ran */
	CU_ASSERT_EQUAL(n_async, 1);
	starpu_data_query_status(h, STARPU_MAIN_RAM, &alloc, &valid, &req);
	CU_ASSERT_EQUAL(valid, 0);
	starpu_data_query_status(h, (int) ocl_worker_node(), &alloc, &valid, &req);
	CU_ASSERT_EQUAL(valid, 1);
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(v, saved, n * sizeof(float)) == 0);
	starpu_data_release(h);
	starpu_data_unregister(h);
	free(v);
	free(saved);
}

static void test_custom_any_to_any(void)
{
	custom_round_trip(&any_methods);
	CU_ASSERT_EQUAL(n_any, 2);
	CU_ASSERT_EQUAL(n_sync + n_async, 0);
}

/* Data whose home is the device: the application's own buffer there
 * (starpu_malloc_on_node), filled by a copy; a CPU task changes it, and
 * unregistering brings it home to the device. */
static void scale_cpu(void *buffers[], void *arg)
{
	(void) arg;
	float *v = (float *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] *= 2.0f;
}

static struct starpu_codelet scale_cpu_cl = {
	.cpu_funcs = { scale_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "scale_cpu",
};

static void test_home_on_device(void)
{
	unsigned node = ocl_worker_node(), n = 3000;
	float *v = malloc(n * sizeof(float)), *back = malloc(n * sizeof(float));
	for (unsigned i = 0; i < n; i++)
		v[i] = (float) i;
	uintptr_t buf = starpu_malloc_on_node(node, n * sizeof(float));
	CU_ASSERT_FATAL(buf != 0);
	int ret;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_copy_ram_to_opencl(v, STARPU_MAIN_RAM, (cl_mem) buf, node, n * sizeof(float), 0, NULL,
							       &ret), CL_SUCCESS);
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, (int) node, buf, n, sizeof(float));
	CU_ASSERT_EQUAL(starpu_data_get_home_node(h), (int) node);
	CU_ASSERT_EQUAL(starpu_task_insert(&scale_cpu_cl, STARPU_RW, h, 0), 0);
	starpu_task_wait_for_all();
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_copy_opencl_to_ram((cl_mem) buf, node, back, STARPU_MAIN_RAM, n * sizeof(float), 0, NULL,
							       &ret), CL_SUCCESS);
	unsigned bad = 0;
	for (unsigned i = 0; i < n; i++)
		bad += back[i] != 2.0f * (float) i;
	CU_ASSERT_EQUAL(bad, 0);
	starpu_free_on_node(node, buf, n * sizeof(float));
	free(v);
	free(back);
}

/* ------------------------------------------------------------------ */
/* Kernels on device buffers. */

static struct starpu_opencl_program prog;
static const char *kernels =
	"__kernel void add(__global float *v, unsigned n, float a)\n"
	"{ size_t i = get_global_id(0); if (i < n) v[i] += a; }\n";

static int load_prog(void)
{
	return starpu_opencl_load_opencl_from_string(kernels, &prog, NULL);
}

static void add_ocl(void *buffers[], void *arg)
{
	float a;
	starpu_codelet_unpack_args(arg, &a);
	cl_mem v = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	cl_kernel k;
	cl_command_queue q;
	cl_int err = starpu_opencl_load_kernel(&k, &q, &prog, "add", starpu_worker_get_devid(starpu_worker_get_id()));
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	if (STARPU_VECTOR_GET_OFFSET(buffers[0]) != 0)
		STARPU_ABORT_MSG("offset");
	if (starpu_opencl_set_kernel_args(&err, &k, sizeof(v), &v, sizeof(n), &n, sizeof(a), &a, 0) != 3)
		STARPU_OPENCL_REPORT_ERROR(err);
	size_t global = n;
	err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	starpu_opencl_release_kernel(k);
}

static void add_cpu(void *buffers[], void *arg)
{
	float a;
	starpu_codelet_unpack_args(arg, &a);
	float *v = (float *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (unsigned i = 0; i < n; i++)
		v[i] += a;
}

static struct starpu_codelet add_async_cl = {
	.opencl_funcs = { add_ocl },
	.opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "add_async",
};

static struct starpu_codelet add_sync_cl = {
	.opencl_funcs = { add_ocl },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "add_sync",
};

static struct starpu_codelet add_any_cl = {
	.cpu_funcs = { add_cpu },
	.opencl_funcs = { add_ocl },
	.opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "add_any",
};

/* Many vectors, many asynchronous tasks each: several in flight on the
 * device, copies in flight, results exact (small integers in floats). */
static void run_adds(struct starpu_codelet *cl, unsigned nvec, unsigned n, unsigned rounds)
{
	float **v = malloc(nvec * sizeof(*v));
	starpu_data_handle_t *h = malloc(nvec * sizeof(*h));
	for (unsigned k = 0; k < nvec; k++)
	{
		v[k] = malloc(n * sizeof(float));
		for (unsigned i = 0; i < n; i++)
			v[k][i] = (float) (i % 1000 + k);
		starpu_vector_data_register(&h[k], STARPU_MAIN_RAM, (uintptr_t) v[k], n, sizeof(float));
	}
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
			bad += v[k][i] != (float) (i % 1000 + k) + add;
		free(v[k]);
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(v);
	free(h);
}

static void test_kernels_async(void)
{
	run_adds(&add_async_cl, 8, 4096, 10);
}

static void test_kernels_sync(void)
{
	run_adds(&add_sync_cl, 4, 4096, 5);
}

static void test_kernels_mixed(void)
{
	run_adds(&add_any_cl, 16, 2048, 12);
}

/* ------------------------------------------------------------------ */
/* Cores kept running while copies come: PoCL runs a copy on a thread of
 * its own that the copy wakes; on an idle core (a halted vCPU) that costs
 * tens of µs. A device copy therefore sets idle workers polling, for a
 * short while after the last copy only. Seen from outside: the idle CPU
 * worker's thread runnable (state R in /proc) right after a copy, not
 * once the copies stopped. */

/* CPU worker threads (named CPU<k>) runnable now. (Not the OpenCL
 * worker's: PoCL's own threads, started from it, carry its name.) */
static unsigned workers_running(void)
{
	unsigned n = 0;
	char path[96], comm[32], stat[256];
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d)))
	{
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		int got = fgets(comm, sizeof(comm), f) != NULL;
		fclose(f);
		if (!got || strncmp(comm, "CPU", 3))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/stat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		got = fgets(stat, sizeof(stat), f) != NULL;
		fclose(f);
		const char *paren = got ? strrchr(stat, ')') : NULL;
		if (paren && paren[1] == ' ' && paren[2] == 'R')
			n++;
	}
	closedir(d);
	return n;
}

static void test_copies_keep_cores_running(void)
{
	size_t n = 1 << 18;
	float *v = malloc(n * sizeof(*v));
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(*v));
	unsigned node = ocl_worker_node();
	/* Each try: the workers asleep, no copy for 30 ms; then a copy to
	 * the device and back, and a look at once. A loaded machine may
	 * delay the look past the window: a few tries. */
	int idle_seen = 0, awake_seen = 0;
	for (int t = 0; t < 20 && !(idle_seen && awake_seen); t++)
	{
		CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_W), 0);
		v[0] = (float) t;
		starpu_data_release(h);
		usleep(30000);
		if (workers_running() == 0)
			idle_seen = 1;
		CU_ASSERT_EQUAL_FATAL(starpu_data_fetch_on_node(h, node, 0), 0);
		if (workers_running() > 0)
			awake_seen = 1;
	}
	CU_ASSERT(idle_seen);	/* nothing burns a core without copies */
	CU_ASSERT(awake_seen);	/* a copy sets idle workers polling */
	starpu_data_unregister(h);
	free(v);
}

static int start(void)
{
	if (vtest_start_opencl(1, 1))
		return -1;
	return load_prog() == CL_SUCCESS ? 0 : -1;
}

static int stop(void)
{
	starpu_opencl_unload_opencl(&prog);
	return vtest_stop();
}

static const struct vtest_case roundtrip_cases[] = {
	{ "variable", test_variable },
	{ "vector", test_vector },
	{ "matrix_padded", test_matrix },
	{ "block_padded", test_block },
	{ "csr", test_csr },
	{ "bcsr", test_bcsr },
	{ "coo", test_coo },
	{ "void", test_void },
	{ "custom_sync_methods", test_custom_sync_methods },
	{ "custom_async_methods", test_custom_async_methods },
	{ "custom_async_failure", test_custom_async_failure },
	{ "custom_any_to_any", test_custom_any_to_any },
	{ "home_on_device", test_home_on_device },
	{ "copies_keep_cores_running", test_copies_keep_cores_running },
	VTEST_END
};

static const struct vtest_case kernel_cases[] = {
	{ "async_pipeline", test_kernels_async },
	{ "sync", test_kernels_sync },
	{ "cpu_and_opencl", test_kernels_mixed },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "opencl_roundtrip", start, stop, roundtrip_cases },
	{ "opencl_kernels", start, stop, kernel_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run_opencl(argc, argv, suites);
}
