/* cuda.h — the CUDA backend's own state, shared by its files:
 * driver_cuda.c (devices, the worker and memory-node drivers, pinned
 * memory), cuda_copy.c (copies), cuda_api.c (starpu_cuda.h,
 * starpu_cublas.h, starpu_cusparse.h) and cuda_libs.c (cuBLAS and
 * cuSPARSE, loaded on first use).
 *
 * Devices are counted once per process (cudaGetDeviceCount; without a
 * driver it fails, which means no device). A run sets up, per device it
 * drives: its properties, a stream for copies into it, one for copies out
 * of it and one for copies within or between devices; per worker (several
 * may share a device: STARPU_NWORKER_PER_CUDA): a stream for its kernels,
 * created on its thread, and its cuBLAS / cuSPARSE handles once
 * starpu_cublas_init / starpu_cusparse_init ran.
 */
#ifndef VELA_CUDA_H
#define VELA_CUDA_H

#include <starpu.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusparse.h>

struct cuda_device
{
	int used;			/* driven by this run */
	unsigned node;
	struct cudaDeviceProp prop;
	cudaStream_t in, out, peer;	/* copies to, from, between devices */
	int async_copies;		/* copies may be queued (not disabled) */
	unsigned char peers[STARPU_MAXCUDADEVS];	/* direct copies to device d enabled */
};

struct cuda_worker
{
	cudaStream_t stream;		/* its kernels' */
	cublasHandle_t cublas;
	cusparseHandle_t cusparse;
};

extern struct cuda_device cuda_devices[STARPU_MAXCUDADEVS];
extern struct cuda_worker cuda_workers[STARPU_NMAXWORKERS];

/* cuBLAS and cuSPARSE, loaded on first use (cuda_libs.c): the functions
 * libvela calls. cuda_*_load: 0 once they are resolved, else -ENODEV with
 * a message naming fn and the library (each later call fails alike). */
struct cuda_cublas_fns
{
	cublasStatus_t (*create)(cublasHandle_t *);
	cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
	cublasStatus_t (*destroy)(cublasHandle_t);
	const char *(*status_string)(cublasStatus_t);
};
struct cuda_cusparse_fns
{
	cusparseStatus_t (*create)(cusparseHandle_t *);
	cusparseStatus_t (*set_stream)(cusparseHandle_t, cudaStream_t);
	cusparseStatus_t (*destroy)(cusparseHandle_t);
	const char *(*error_string)(cusparseStatus_t);
};
extern struct cuda_cublas_fns cuda_cublas;
extern struct cuda_cusparse_fns cuda_cusparse;
int cuda_cublas_load(const char *fn);
int cuda_cusparse_load(const char *fn);

/* The run's device behind a CUDA memory node, or NULL (message naming fn
 * when fn is not NULL). */
struct cuda_device *cuda_device_of_node(unsigned node, const char *fn);
/* The device number of a CUDA node (-1 if it is not one). */
int cuda_node_devid(unsigned node);

/* Copies between RAM and CUDA nodes, or between CUDA nodes: queued on
 * stream (the right copy stream when stream is NULL and queue is set),
 * with *event recorded after it when event is not NULL; complete on return
 * otherwise. 0 or a negative errno (message printed). */
int cuda_copy(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset, unsigned dst_node,
	      size_t size, cudaStream_t stream, cudaEvent_t *event);
int cuda_copy2d(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
		unsigned dst_node, size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst, cudaStream_t stream,
		cudaEvent_t *event);
/* The stream a copy between these nodes goes on, and the device current
 * for it (-1: none). */
cudaStream_t cuda_copy_stream(unsigned src_node, unsigned dst_node, int *devid);

/* A CUDA error as a negative errno for the runtime. */
int cuda_errno(cudaError_t err);
/* A new event recorded on stream (flags: cudaEventCreateWithFlags's;
 * cudaEventDisableTiming unless it must tell time); on failure *ev is NULL
 * and CUDA's error comes back (cuda_copy.c). */
cudaError_t cuda_event_on(cudaStream_t stream, unsigned flags, cudaEvent_t *ev);

#endif /* VELA_CUDA_H */
