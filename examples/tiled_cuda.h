/*
 * tiled_cuda.h — what the tiled factorizations need to run their kernels on
 * CUDA workers: cuBLAS (starpu_cublas_init gives each CUDA worker a handle
 * on its stream) and, for the panel factorizations, a cuSOLVER handle per
 * CUDA worker on the same stream with a workspace sized for one tile and
 * an info word on the GPU.
 *
 * Included by tiled_app.h; empty without CUDA (a StarPU or Vela built
 * without it, where the examples keep their CPU kernels only). In a
 * simulated run nothing is set up: simulated GPUs run no kernel.
 */
#ifndef VELA_EXAMPLES_TILED_CUDA_H
#define VELA_EXAMPLES_TILED_CUDA_H

#ifdef STARPU_USE_CUDA
#include <starpu_cublas_v2.h>
#include <cusolverDn.h>

/* Infos read back without waiting: pinned slots, checked at tiled_cuda_stop. */
#define TILED_CUDA_INFO_SLOTS 4096

struct tiled_cuda_solver {
	cusolverDnHandle_t handle;
	double *work;	/* lwork doubles on the worker's GPU */
	int lwork;
	int *info;	/* one int on the GPU */
	int *late;	/* TILED_CUDA_INFO_SLOTS pinned host ints */
	int nlate;	/* slots used in this session */
};

/* Indexed by worker id; set up on each CUDA worker's own thread. */
static struct tiled_cuda_solver tiled_solvers[STARPU_NMAXWORKERS];
static int tiled_cuda_bs;
static int tiled_cuda_failed;
static int tiled_cuda_late_failure;	/* first non-zero info found at stop */

static void tiled_cuda_init_one(void *arg)
{
	(void)arg;
	struct tiled_cuda_solver *s = &tiled_solvers[starpu_worker_get_id()];
	int bs = tiled_cuda_bs, l1 = 0, l2 = 0;
	if (cusolverDnCreate(&s->handle) != CUSOLVER_STATUS_SUCCESS
	    || cusolverDnSetStream(s->handle, starpu_cuda_get_local_stream()) != CUSOLVER_STATUS_SUCCESS
	    || cusolverDnDpotrf_bufferSize(s->handle, CUBLAS_FILL_MODE_LOWER, bs, NULL, bs, &l1) != CUSOLVER_STATUS_SUCCESS
	    || cusolverDnDgetrf_bufferSize(s->handle, bs, bs, NULL, bs, &l2) != CUSOLVER_STATUS_SUCCESS) {
		tiled_cuda_failed = 1;
		return;
	}
	s->lwork = l1 > l2 ? l1 : l2;
	s->nlate = 0;
	if (cudaMalloc((void **)&s->work, (size_t)(s->lwork > 0 ? s->lwork : 1) * sizeof(double)) != cudaSuccess
	    || cudaMalloc((void **)&s->info, sizeof(int)) != cudaSuccess
	    || cudaHostAlloc((void **)&s->late, TILED_CUDA_INFO_SLOTS * sizeof(int), cudaHostAllocDefault) != cudaSuccess)
		tiled_cuda_failed = 1;
}

static void tiled_cuda_shutdown_one(void *arg)
{
	(void)arg;
	struct tiled_cuda_solver *s = &tiled_solvers[starpu_worker_get_id()];
	cudaStreamSynchronize(starpu_cuda_get_local_stream());
	for (int k = 0; k < s->nlate; k++)
		if (s->late[k] != 0 && !tiled_cuda_late_failure)
			tiled_cuda_late_failure = s->late[k];
	cudaFreeHost(s->late);
	cudaFree(s->work);
	cudaFree(s->info);
	if (s->handle)
		cusolverDnDestroy(s->handle);
	memset(s, 0, sizeof(*s));
}

/* After starpu_init: 0, or -1 (said on stderr) when a worker's libraries
 * could not be set up. */
static int tiled_cuda_start(int bs)
{
	if (starpu_cuda_worker_get_count() == 0)
		return 0;
	starpu_cublas_init();
	tiled_cuda_bs = bs;
	tiled_cuda_failed = 0;
	tiled_cuda_late_failure = 0;
	starpu_execute_on_each_worker(tiled_cuda_init_one, NULL, STARPU_CUDA);
	if (tiled_cuda_failed)
		fprintf(stderr, "cannot set cuSOLVER up on the CUDA workers\n");
	return tiled_cuda_failed ? -1 : 0;
}

/* Before starpu_shutdown. */
static void tiled_cuda_stop(void)
{
	if (starpu_cuda_worker_get_count() == 0)
		return;
	starpu_execute_on_each_worker(tiled_cuda_shutdown_one, NULL, STARPU_CUDA);
	starpu_cublas_shutdown();
}

static struct tiled_cuda_solver *tiled_cuda_solver(void)
{
	return &tiled_solvers[starpu_worker_get_id()];
}

/* The info a cuSOLVER factorization left on the GPU (waits for the
 * worker's stream). */
static int tiled_cuda_info(const struct tiled_cuda_solver *s)
{
	int info = 0;
	cudaStream_t stream = starpu_cuda_get_local_stream();
	if (cudaMemcpyAsync(&info, s->info, sizeof(int), cudaMemcpyDeviceToHost, stream) != cudaSuccess
	    || cudaStreamSynchronize(stream) != cudaSuccess)
		return -1;
	return info;
}

/*
 * The info of the factorization just queued, without waiting: copied on
 * the worker's stream into the next pinned slot, read at tiled_cuda_stop
 * (tiled_cuda_late_info). The codelet can then be STARPU_CUDA_ASYNC, and
 * the panel does not drain the GPU's queue. 0, or -1 when the copy cannot
 * be queued (the slots full: the caller waits with tiled_cuda_info).
 */
static int tiled_cuda_info_later(struct tiled_cuda_solver *s)
{
	if (s->nlate >= TILED_CUDA_INFO_SLOTS)
		return -1;
	int *slot = &s->late[s->nlate++];
	*slot = 0;
	return cudaMemcpyAsync(slot, s->info, sizeof(int), cudaMemcpyDeviceToHost,
			       starpu_cuda_get_local_stream()) == cudaSuccess ? 0 : -1;
}

/* After tiled_cuda_stop: the first non-zero info of the session, or 0. */
static int tiled_cuda_late_info(void)
{
	return tiled_cuda_late_failure;
}

#else /* !STARPU_USE_CUDA */

static int tiled_cuda_late_info(void)
{
	return 0;
}

static int tiled_cuda_start(int bs)
{
	(void)bs;
	return 0;
}

static void tiled_cuda_stop(void)
{
}

#endif
#endif /* VELA_EXAMPLES_TILED_CUDA_H */
