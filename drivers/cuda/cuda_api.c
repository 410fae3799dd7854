/* cuda_api.c — starpu_cuda.h, starpu_cublas.h, starpu_cublas_v2.h and
 * starpu_cusparse.h: the worker's stream and device, copies, error
 * reports, and the per-worker cuBLAS / cuSPARSE handles.
 */
#include "drivers/cuda/cuda.h"
#include "os/os.h"
#include <starpu_cublas_v2.h>
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* The calling thread's CUDA worker, or NULL. */
static struct worker *cuda_self(void)
{
	struct worker *w = worker_self();
	return w && w->arch == STARPU_CUDA_WORKER ? w : NULL;
}

cudaStream_t starpu_cuda_get_local_stream(void)
{
	struct worker *w = cuda_self();
	if (!w)
	{
		rt_error("starpu_cuda_get_local_stream: not called by a CUDA worker");
		return NULL;
	}
	return cuda_workers[w->id].stream;
}

const struct cudaDeviceProp *starpu_cuda_get_device_properties(unsigned workerid)
{
	if (workerid >= starpu_worker_get_count() || starpu_worker_get_type((int) workerid) != STARPU_CUDA_WORKER)
	{
		rt_error("starpu_cuda_get_device_properties: workerid %u is not a CUDA worker", workerid);
		return NULL;
	}
	return &cuda_devices[starpu_worker_get_devid((int) workerid)].prop;
}

void starpu_cuda_set_device(unsigned devid)
{
	cudaError_t err = cudaSetDevice((int) devid);
	if (err != cudaSuccess)
	{
		rt_error("starpu_cuda_set_device: devid %u: %s (%d)", devid, cudaGetErrorString(err), (int) err);
		(void) cudaGetLastError();
	}
}

void starpu_cuda_report_error(const char *func, const char *file, int line, cudaError_t status)
{
	fprintf(stderr, "[vela] CUDA error in %s (%s:%d): %s (%d)\n", func ? func : "?", file ? file : "?", line,
		cudaGetErrorString(status), (int) status);
	abort();
}

void starpu_cublas_report_error(const char *func, const char *file, int line, int status)
{
	const char *what = cuda_cublas_load("starpu_cublas_report_error") ? "?"
			   : cuda_cublas.status_string((cublasStatus_t) status);
	fprintf(stderr, "[vela] cuBLAS error in %s (%s:%d): %s (%d)\n", func ? func : "?", file ? file : "?", line,
		what, status);
	abort();
}

/* kind is implied by the nodes: CUDA infers it with unified addressing. */
int starpu_cuda_copy_async_sync(void *src_ptr, unsigned src_node, void *dst_ptr, unsigned dst_node, size_t ssize,
				cudaStream_t stream, enum cudaMemcpyKind kind)
{
	(void) kind;
	int ret = cuda_copy((uintptr_t) src_ptr, 0, src_node, (uintptr_t) dst_ptr, 0, dst_node, ssize, stream, NULL);
	if (ret || !stream)
		return ret;
	return -EAGAIN;
}

int starpu_cuda_copy2d_async_sync(void *src_ptr, unsigned src_node, void *dst_ptr, unsigned dst_node, size_t blocksize,
				  size_t numblocks, size_t ld_src, size_t ld_dst, cudaStream_t stream, enum cudaMemcpyKind kind)
{
	(void) kind;
	int ret = cuda_copy2d((uintptr_t) src_ptr, 0, src_node, (uintptr_t) dst_ptr, 0, dst_node, blocksize, numblocks,
			      ld_src, ld_dst, stream, NULL);
	if (ret || !stream)
		return ret;
	return -EAGAIN;
}

int starpu_cuda_copy3d_async_sync(void *src_ptr, unsigned src_node, void *dst_ptr, unsigned dst_node, size_t blocksize,
				  size_t numblocks_1, size_t ld1_src, size_t ld1_dst, size_t numblocks_2, size_t ld2_src,
				  size_t ld2_dst, cudaStream_t stream, enum cudaMemcpyKind kind)
{
	(void) kind;
	for (size_t j = 0; j < numblocks_2; j++)
	{
		int ret = cuda_copy2d((uintptr_t) src_ptr, j * ld2_src, src_node, (uintptr_t) dst_ptr, j * ld2_dst, dst_node,
				      blocksize, numblocks_1, ld1_src, ld1_dst, stream, NULL);
		if (ret)
			return ret;
	}
	return stream ? -EAGAIN : 0;
}

/* ------------------------------------------------------------------ */
/* cuBLAS and cuSPARSE handles, one per CUDA worker, made on its thread. */

static void cublas_init_one(void *arg)
{
	(void) arg;
	struct worker *w = cuda_self();
	struct cuda_worker *c = &cuda_workers[w->id];
	cublasStatus_t st = cuda_cublas.create(&c->cublas);
	if (st == CUBLAS_STATUS_SUCCESS)
		st = cuda_cublas.set_stream(c->cublas, c->stream);
	if (st != CUBLAS_STATUS_SUCCESS)
		rt_error("starpu_cublas_init: %s: %s", w->name, cuda_cublas.status_string(st));
}

static void cublas_shutdown_one(void *arg)
{
	(void) arg;
	struct cuda_worker *c = &cuda_workers[cuda_self()->id];
	if (c->cublas)
		cuda_cublas.destroy(c->cublas);
	c->cublas = NULL;
}

/* In simulation, CUDA workers are simulated: no library to set up. */
void starpu_cublas_init(void)
{
	if (os_is_simulated() || !starpu_cuda_worker_get_count() || cuda_cublas_load("starpu_cublas_init"))
		return;
	starpu_execute_on_each_worker_ex(cublas_init_one, NULL, STARPU_CUDA, "cublas_init");
}

void starpu_cublas_shutdown(void)
{
	if (os_is_simulated() || !cuda_cublas.destroy)
		return;
	starpu_execute_on_each_worker_ex(cublas_shutdown_one, NULL, STARPU_CUDA, "cublas_shutdown");
}

void starpu_cublas_set_stream(void)
{
	struct worker *w = cuda_self();
	if (w && cuda_workers[w->id].cublas)
		cuda_cublas.set_stream(cuda_workers[w->id].cublas, cuda_workers[w->id].stream);
}

cublasHandle_t starpu_cublas_get_local_handle(void)
{
	struct worker *w = cuda_self();
	if (!w || !cuda_workers[w->id].cublas)
	{
		rt_error("starpu_cublas_get_local_handle: %s", w ? "starpu_cublas_init was not called" : "not called by a CUDA worker");
		return NULL;
	}
	return cuda_workers[w->id].cublas;
}

static void cusparse_init_one(void *arg)
{
	(void) arg;
	struct worker *w = cuda_self();
	struct cuda_worker *c = &cuda_workers[w->id];
	cusparseStatus_t st = cuda_cusparse.create(&c->cusparse);
	if (st == CUSPARSE_STATUS_SUCCESS)
		st = cuda_cusparse.set_stream(c->cusparse, c->stream);
	if (st != CUSPARSE_STATUS_SUCCESS)
		rt_error("starpu_cusparse_init: %s: %s", w->name, cuda_cusparse.error_string(st));
}

static void cusparse_shutdown_one(void *arg)
{
	(void) arg;
	struct cuda_worker *c = &cuda_workers[cuda_self()->id];
	if (c->cusparse)
		cuda_cusparse.destroy(c->cusparse);
	c->cusparse = NULL;
}

void starpu_cusparse_init(void)
{
	if (os_is_simulated() || !starpu_cuda_worker_get_count() || cuda_cusparse_load("starpu_cusparse_init"))
		return;
	starpu_execute_on_each_worker_ex(cusparse_init_one, NULL, STARPU_CUDA, "cusparse_init");
}

void starpu_cusparse_shutdown(void)
{
	if (os_is_simulated() || !cuda_cusparse.destroy)
		return;
	starpu_execute_on_each_worker_ex(cusparse_shutdown_one, NULL, STARPU_CUDA, "cusparse_shutdown");
}

cusparseHandle_t starpu_cusparse_get_local_handle(void)
{
	struct worker *w = cuda_self();
	if (!w || !cuda_workers[w->id].cusparse)
	{
		rt_error("starpu_cusparse_get_local_handle: %s",
			 w ? "starpu_cusparse_init was not called" : "not called by a CUDA worker");
		return NULL;
	}
	return cuda_workers[w->id].cusparse;
}
