/* cuda_kernels.cu — the one kernel of bench/cuda_tasks.c: an empty kernel,
 * behind a C launcher, so that the benchmark itself stays C and builds
 * against Vela and StarPU alike (compiled by nvcc once, linked into both
 * sides by bench/compare-cuda or bench/Makefile.am). */
#include <cuda_runtime.h>

__global__ static void empty_kernel(void)
{
}

/* Queues one empty kernel (1 block of 1 thread) on stream; returns the
 * launch's error (cudaSuccess when it was queued). */
extern "C" cudaError_t bench_launch_empty(cudaStream_t stream)
{
	empty_kernel<<<1, 1, 0, stream>>>();
	return cudaGetLastError();
}
