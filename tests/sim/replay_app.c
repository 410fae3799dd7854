/* replay_app.c — the application whose recorded task graph
 * tests/sim/check_replay.sh replays (`vela replay`): the task graph of a
 * tiled Cholesky factorisation (potrf, trsm, syrk, gemm on NT x NT tiles
 * of 128 x 128 doubles, critical-path priorities, flops), with the model
 * symbols of examples/cholesky.c so that perfmodels/ci-2core predicts
 * every task. The kernels do nothing: the program is meant to run in
 * simulation, where a task lasts what its model predicts; each codelet also
 * runs on simulated GPUs (the simulator's placeholder as its CUDA kernel),
 * whose durations models such as perfmodels/epyc2-4xa100-pcie give.
 *
 * Prints "makespan: US us", measured as `vela replay` measures it (first
 * submission to the end of starpu_task_wait_for_all), and "tasks: N".
 *   replay_app [NT]     (default 4)
 */
#include <starpu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BS 128

static void nothing(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static struct starpu_perfmodel potrf_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dpotrf" };
static struct starpu_perfmodel trsm_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dtrsm" };
static struct starpu_perfmodel syrk_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dsyrk" };
static struct starpu_perfmodel gemm_model = { .type = STARPU_HISTORY_BASED, .symbol = "vela_dgemm" };

static struct starpu_codelet potrf_cl = { .cpu_funcs = { nothing }, .cuda_funcs = { vela_sim_placeholder }, .nbuffers = 1, .modes = { STARPU_RW },
					  .model = &potrf_model, .name = "potrf" };
static struct starpu_codelet trsm_cl = { .cpu_funcs = { nothing }, .cuda_funcs = { vela_sim_placeholder }, .nbuffers = 2, .modes = { STARPU_R, STARPU_RW },
					 .model = &trsm_model, .name = "trsm" };
static struct starpu_codelet syrk_cl = { .cpu_funcs = { nothing }, .cuda_funcs = { vela_sim_placeholder }, .nbuffers = 2, .modes = { STARPU_R, STARPU_RW },
					 .model = &syrk_model, .name = "syrk" };
static struct starpu_codelet gemm_cl = { .cpu_funcs = { nothing }, .cuda_funcs = { vela_sim_placeholder }, .nbuffers = 3,
					 .modes = { STARPU_R, STARPU_R, STARPU_RW }, .model = &gemm_model, .name = "gemm" };

/* An application that waits for a task that can never run: it depends on
 * a tag nothing triggers (tests/sim/check_deadlock.sh). A real run would
 * hang; a simulated one must say so and fail. */
static int deadlock(void)
{
	int ret = starpu_init(NULL);
	if (ret == -ENODEV)
		return 77;
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_init");
	starpu_tag_declare_deps((starpu_tag_t) 1, 1, (starpu_tag_t) 2);
	struct starpu_task *t = starpu_task_create();
	t->cl = NULL;
	t->use_tag = 1;
	t->tag_id = 1;
	ret = starpu_task_submit(t);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_submit");
	starpu_task_wait_for_all();
	printf("returned\n");
	starpu_shutdown();
	return 0;
}

/* Prefetches of 8 tiles to the first GPU (or OpenCL device) with no task,
 * then their unregistration (tests/sim/check_deadlock.sh): the copies
 * must run. */
static int prefetch_only(void)
{
	int ret = starpu_init(NULL);
	if (ret == -ENODEV)
		return 77;
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_init");
	int gpu = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0);
	if (gpu < 0)
		gpu = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0);
	if (gpu < 0)
	{
		fprintf(stderr, "prefetch: no CUDA or OpenCL worker\n");
		starpu_shutdown();
		return 1;
	}
	unsigned node = starpu_worker_get_memory_node((unsigned) gpu);
	enum { N = 8 };
	static double a[N][BS * BS];
	starpu_data_handle_t h[N];
	for (int i = 0; i < N; i++)
	{
		starpu_matrix_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) a[i], BS, BS, BS, sizeof(double));
		ret = starpu_data_prefetch_on_node(h[i], node, 1);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_data_prefetch_on_node");
	}
	for (int i = 0; i < N; i++)
		starpu_data_unregister(h[i]);
	printf("prefetched: %d\n", N);
	starpu_shutdown();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "deadlock"))
		return deadlock();
	if (argc > 1 && !strcmp(argv[1], "prefetch"))
		return prefetch_only();
	int nt = argc > 1 ? atoi(argv[1]) : 4;
	if (nt < 1 || nt > 64)
	{
		fprintf(stderr, "usage: replay_app [NT between 1 and 64]\n");
		return 2;
	}
	int ret = starpu_init(NULL);
	if (ret == -ENODEV)
		return 77;
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_init");
	double *a = calloc((size_t) nt * nt * BS * BS, sizeof(double));
	starpu_data_handle_t *h = calloc((size_t) nt * nt, sizeof(*h));
	if (!a || !h)
		return 1;
	for (int i = 0; i < nt; i++)
		for (int j = 0; j <= i; j++)
			starpu_matrix_data_register(&h[i * nt + j], STARPU_MAIN_RAM, (uintptr_t) &a[(size_t) (i * nt + j) * BS * BS],
						    BS, BS, BS, sizeof(double));
	double n3 = (double) BS * BS * BS;
	int ntasks = 0;
	double t0 = starpu_timing_now();
	for (int k = 0; k < nt; k++)
	{
		ret = starpu_task_insert(&potrf_cl, STARPU_RW, h[k * nt + k], STARPU_PRIORITY, 3 * (nt - k),
					 STARPU_FLOPS, n3 / 3, 0);
		ntasks++;
		for (int i = k + 1; i < nt && !ret; i++, ntasks++)
			ret = starpu_task_insert(&trsm_cl, STARPU_R, h[k * nt + k], STARPU_RW, h[i * nt + k], STARPU_PRIORITY,
						 3 * (nt - k) - 1, STARPU_FLOPS, n3, 0);
		for (int i = k + 1; i < nt && !ret; i++)
		{
			ret = starpu_task_insert(&syrk_cl, STARPU_R, h[i * nt + k], STARPU_RW, h[i * nt + i], STARPU_PRIORITY,
						 3 * (nt - k) - 2, STARPU_FLOPS, n3, 0);
			ntasks++;
			for (int j = k + 1; j < i && !ret; j++, ntasks++)
				ret = starpu_task_insert(&gemm_cl, STARPU_R, h[i * nt + k], STARPU_R, h[j * nt + k], STARPU_RW,
							 h[i * nt + j], STARPU_PRIORITY, 3 * (nt - k) - 3, STARPU_FLOPS, 2 * n3, 0);
		}
		if (ret)
		{
			fprintf(stderr, "replay_app: submission failed (%d)\n", ret);
			return 1;
		}
	}
	starpu_task_wait_for_all();
	double us = starpu_timing_now() - t0;
	printf("tasks: %d\nmakespan: %.3f us\n", ntasks, us);
	for (int i = 0; i < nt; i++)
		for (int j = 0; j <= i; j++)
			starpu_data_unregister(h[i * nt + j]);
	starpu_shutdown();
	free(a);
	free(h);
	return 0;
}
