/* starpu_cuda.h — what CUDA codelets use: the worker's stream, the
 * device's properties, copies between RAM and GPU memory, error reports.
 *
 * A CUDA worker drives one GPU (STARPU_NWORKER_PER_CUDA workers may share
 * one); a codelet's cuda_funcs run on the worker's thread, with the
 * worker's device current, and queue their kernels on
 * starpu_cuda_get_local_stream(). A codelet flagged STARPU_CUDA_ASYNC
 * returns once its work is queued: the worker records an event on the
 * stream and starts the next task meanwhile (STARPU_CUDA_PIPELINE).
 * Otherwise the worker waits for the stream before the task counts as
 * done. Buffers on a CUDA node are device pointers (the interfaces' ptr
 * and dev_handle).
 */
#ifndef STARPU_CUDA_H
#define STARPU_CUDA_H

#include <starpu_config.h>

#if defined(STARPU_USE_CUDA) && !defined(STARPU_DONT_INCLUDE_CUDA_HEADERS)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>
#include <starpu_util.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Print the error (function, file, line) and abort, as StarPU does. */
void starpu_cuda_report_error(const char *func, const char *file, int line, cudaError_t status);
#define STARPU_CUDA_REPORT_ERROR(status) starpu_cuda_report_error(__starpu_func__, __FILE__, __LINE__, status)
void starpu_cublas_report_error(const char *func, const char *file, int line, int status);
#define STARPU_CUBLAS_REPORT_ERROR(status) starpu_cublas_report_error(__starpu_func__, __FILE__, __LINE__, status)

/* The calling CUDA worker's stream (NULL elsewhere). */
cudaStream_t starpu_cuda_get_local_stream(void);
/* The properties of a CUDA worker's device (NULL for other workers). */
const struct cudaDeviceProp *starpu_cuda_get_device_properties(unsigned workerid);

/* Copies between nodes: on stream (queued: returns -EAGAIN) or, with
 * stream NULL, complete on return (0); a negative errno on failure. kind
 * is CUDA's direction for the pair of nodes. */
int starpu_cuda_copy_async_sync(void *src_ptr, unsigned src_node, void *dst_ptr, unsigned dst_node, size_t ssize,
				cudaStream_t stream, enum cudaMemcpyKind kind);
int starpu_cuda_copy2d_async_sync(void *src_ptr, unsigned src_node, void *dst_ptr, unsigned dst_node, size_t blocksize,
				  size_t numblocks, size_t ld_src, size_t ld_dst, cudaStream_t stream, enum cudaMemcpyKind kind);
int starpu_cuda_copy3d_async_sync(void *src_ptr, unsigned src_node, void *dst_ptr, unsigned dst_node, size_t blocksize,
				  size_t numblocks_1, size_t ld1_src, size_t ld1_dst, size_t numblocks_2, size_t ld2_src,
				  size_t ld2_dst, cudaStream_t stream, enum cudaMemcpyKind kind);

/* Makes devid the calling thread's current device. */
void starpu_cuda_set_device(unsigned devid);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_USE_CUDA && !STARPU_DONT_INCLUDE_CUDA_HEADERS */
#endif /* STARPU_CUDA_H */
