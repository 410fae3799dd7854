/* kernels.cu — the CUDA kernels of tests/cuda/test_cuda_gpu.c, each
 * behind a C launcher that queues it on the given stream. */
#include <cuda_runtime.h>

__global__ static void add_kernel(float *v, unsigned n, float a)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		v[i] += a;
}

__global__ static void inc_kernel(int *x)
{
	*x += 1;
}

__global__ static void scratch_kernel(float *s, float *v, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
	{
		s[i] = 2.0f * v[i];
		v[i] = s[i] + 1.0f;
	}
}

/* A single thread turning for a while: a long kernel. */
__global__ static void spin_kernel(float *v, long long cycles)
{
	long long start = clock64();
	float x = v[0];
	while (clock64() - start < cycles)
		x = x * 0.999999f + 0.5f;
	v[0] = x;
}

/* The same, reading v only (tasks of mode R): the store that keeps the
 * loop never happens (x stays positive). */
__global__ static void spin_read_kernel(const float *v, float *never, long long cycles)
{
	long long start = clock64();
	float x = v[0] + 1.0f;
	while (clock64() - start < cycles)
		x = x * 0.999999f + 0.5f;
	if (x < 0.0f)
		*never = x;
}

extern "C" void vela_test_add(float *v, unsigned n, float a, cudaStream_t s)
{
	add_kernel<<<(n + 255) / 256, 256, 0, s>>>(v, n, a);
}

extern "C" void vela_test_inc(int *x, cudaStream_t s)
{
	inc_kernel<<<1, 1, 0, s>>>(x);
}

extern "C" void vela_test_scratch(float *scratch, float *v, unsigned n, cudaStream_t s)
{
	scratch_kernel<<<(n + 255) / 256, 256, 0, s>>>(scratch, v, n);
}

extern "C" void vela_test_spin(float *v, long long cycles, cudaStream_t s)
{
	spin_kernel<<<1, 1, 0, s>>>(v, cycles);
}

extern "C" void vela_test_spin_read(const float *v, long long cycles, cudaStream_t s)
{
	spin_read_kernel<<<1, 1, 0, s>>>(v, (float *) v, cycles);
}
