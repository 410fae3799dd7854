/* starpu_cublas_v2.h — the calling CUDA worker's cuBLAS handle (after
 * starpu_cublas_init), bound to its stream. */
#ifndef STARPU_CUBLAS_V2_H
#define STARPU_CUBLAS_V2_H

#include <starpu_config.h>

#if defined(STARPU_USE_CUDA) && !defined(STARPU_DONT_INCLUDE_CUDA_HEADERS)
#include <cublas_v2.h>

#ifdef __cplusplus
extern "C"
{
#endif

cublasHandle_t starpu_cublas_get_local_handle(void);

#ifdef __cplusplus
}
#endif

#endif
#endif /* STARPU_CUBLAS_V2_H */
