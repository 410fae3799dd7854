/* cuda_none.c — starpu_cublas.h and starpu_cusparse.h in a build without
 * CUDA: StarPU applications call these unconditionally, and with no CUDA
 * worker there is nothing to set up (the null object of the CUDA backend).
 */
#include <starpu.h>

void starpu_cublas_init(void)
{
}

void starpu_cublas_set_stream(void)
{
}

void starpu_cublas_shutdown(void)
{
}

void starpu_cusparse_init(void)
{
}

void starpu_cusparse_shutdown(void)
{
}
