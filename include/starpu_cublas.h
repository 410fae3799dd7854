/* starpu_cublas.h — cuBLAS on CUDA workers. starpu_cublas_init gives every
 * CUDA worker a cuBLAS handle bound to its stream (starpu_cublas_v2.h:
 * starpu_cublas_get_local_handle); starpu_cublas_shutdown releases them.
 * Built without CUDA, both exist and do nothing: applications call them
 * unconditionally.
 */
#ifndef STARPU_CUBLAS_H
#define STARPU_CUBLAS_H

#ifdef __cplusplus
extern "C"
{
#endif

void starpu_cublas_init(void);
/* Binds the calling CUDA worker's handle to its stream again (an
 * application that changed it). */
void starpu_cublas_set_stream(void);
void starpu_cublas_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_CUBLAS_H */
