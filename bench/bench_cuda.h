/* bench_cuda.h — what the CUDA benchmarks (cuda_tasks.c, cuda_copy.c)
 * share beside bench_util.h: the GPU check that makes them skip (exit 77)
 * on a machine without one, a clock that works before starpu_init (their
 * bare-CUDA references run before the runtime starts), and the CUDA error
 * check. Header-only, like bench_util.h, so that each benchmark stays one
 * C source that builds against Vela and against StarPU 1.3 with CUDA.
 */
#ifndef BENCH_CUDA_H
#define BENCH_CUDA_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <starpu.h>

#include "bench_util.h"

#ifndef STARPU_USE_CUDA
#error "the CUDA benchmarks need a runtime built with CUDA (STARPU_USE_CUDA): Vela configured with a CUDA toolkit, or StarPU 1.3 --enable-cuda"
#endif
#include <cuda_runtime.h>

/* Microseconds on the monotonic clock (starpu_timing_now may need the
 * runtime started; the references are timed before it is). */
static inline double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* Exits on a CUDA error, naming the call. */
static inline void cuda_check(cudaError_t err, const char *what)
{
	if (err != cudaSuccess) {
		fprintf(stderr, "%s: %s failed: %s (%d)\n", bench_name, what, cudaGetErrorString(err), (int)err);
		exit(EXIT_FAILURE);
	}
}

/* 0 when CUDA sees a GPU; otherwise says why and returns 77 (skipped).
 * Called first, so that a machine without a GPU never reaches
 * starpu_init with STARPU_NCPU=0. */
static inline int bench_cuda_gpu_or_skip(void)
{
	int n = 0;
	cudaError_t err = cudaGetDeviceCount(&n);

	if (err != cudaSuccess) {
		fprintf(stderr, "%s: no CUDA GPU: cudaGetDeviceCount failed: %s (%d); skipped\n",
			bench_name, cudaGetErrorString(err), (int)err);
		return 77;
	}
	if (n == 0) {
		fprintf(stderr, "%s: no CUDA GPU: cudaGetDeviceCount found none; skipped\n", bench_name);
		return 77;
	}
	return 0;
}

/* The GPU's name and the driver's CUDA version, for the output's header. */
static inline void bench_cuda_describe(char *buf, size_t len)
{
	struct cudaDeviceProp prop;
	int drv = 0;

	if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
		snprintf(prop.name, sizeof(prop.name), "?");
	cudaDriverGetVersion(&drv);
	snprintf(buf, len, "%.100s, driver CUDA %d.%d", prop.name, drv / 1000, (drv % 1000) / 10);
}

/* Only the CUDA worker runs tasks unless the caller chose otherwise:
 * STARPU_NCPU=0, set before starpu_init (both runtimes read it there). */
static inline void bench_cuda_only_worker(void)
{
	setenv("STARPU_NCPU", "0", 0);
}

#endif /* BENCH_CUDA_H */
