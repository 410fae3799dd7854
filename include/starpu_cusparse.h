/* starpu_cusparse.h — cuSPARSE on CUDA workers, as starpu_cublas.h: a
 * handle per CUDA worker bound to its stream; without CUDA, init and
 * shutdown do nothing. */
#ifndef STARPU_CUSPARSE_H
#define STARPU_CUSPARSE_H

#include <starpu_config.h>

#if defined(STARPU_USE_CUDA) && !defined(STARPU_DONT_INCLUDE_CUDA_HEADERS)
/* Recent cuSPARSE headers use, in their own declarations, types they mark
 * deprecated: including them would warn in every file that includes
 * starpu.h. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
#include <cusparse.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#endif

#ifdef __cplusplus
extern "C"
{
#endif

void starpu_cusparse_init(void);
void starpu_cusparse_shutdown(void);
#if defined(STARPU_USE_CUDA) && !defined(STARPU_DONT_INCLUDE_CUDA_HEADERS)
cusparseHandle_t starpu_cusparse_get_local_handle(void);
#endif

#ifdef __cplusplus
}
#endif

#endif /* STARPU_CUSPARSE_H */
