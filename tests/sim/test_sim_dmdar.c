/* test_sim_dmdar.c — dmdar's "ready first" on a simulated GPU, against
 * dmda on the same program.
 *
 * The child runs on data/2cuda.platform.v4.xml with one GPU (STARPU_NCUDA=1:
 * worker 0 is CUDA0, memory node 1) and the hand-made model of data/models
 * (a 1 MB vector: 500 us on a GPU; a lone 1 MB copy RAM -> CUDA0: 1010 us).
 * The codelet is CUDA-only, so every task goes to CUDA0's queue.
 *
 * Setup: vectors B and C (1 MB each) are brought to CUDA0 by one task
 * each, and the runtime waits. Then, at t = 0, three tasks are submitted
 * in this order (the main actor submits all of them before the GPU worker
 * gets a turn, see test_sim.c's golden cases):
 *   T0 on C (on the GPU), T1 on A (only in RAM), T2 on B (on the GPU).
 * Pushing T1 queues the prefetch of A to CUDA0, which the GPU's transfer
 * thread starts once the worker has seen it between two tasks (as a real
 * device's worker starts its prefetches): after T0, [500, 1510].
 *   dmda pops in queue order: T0 [0, 500]; T1 waits for A, [1510, 2010];
 *     T2 [2010, 2510].
 *   dmdar pops first a queued task whose data are on the node: T0 [0, 500];
 *     at 500 A is on its way, so T2 [500, 1000]; then T1, whose data
 *     arrive at 1510, [1510, 2010].
 * The child prints the completion order and each task's end (callback
 * date, which in simulation is the end of the task's simulated run).
 */
#define _GNU_SOURCE
#include "vtest.h"
#include "sim_child.h"

#include <starpu.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The child. */

static struct starpu_perfmodel scale_model = { .type = STARPU_NL_REGRESSION_BASED, .symbol = "vtest_sim_scale" };
static struct starpu_codelet scale_gpu_cl = {
	.where = STARPU_CUDA,
	.cuda_funcs = { vela_sim_placeholder },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.model = &scale_model,
	.name = "scale_gpu",
};

#define NTASKS 3
static double t0, end_at[NTASKS];
static char order[2 * NTASKS + 1];	/* written by callbacks: one GPU worker, one at a time */
static unsigned norder;

static void record_end(void *arg)
{
	int i = (int) (intptr_t) arg;
	end_at[i] = starpu_timing_now() - t0;
	order[norder++] = (char) ('0' + i);
}

static int submit_on(starpu_data_handle_t h, int i)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = &scale_gpu_cl;
	t->handles[0] = h;
	if (i >= 0)
	{
		t->callback_func = record_end;
		t->callback_arg = (void *) (intptr_t) i;
	}
	return starpu_task_submit(t);
}

static int child_main(void)
{
	int ret = starpu_init(NULL);
	printf("ret=%d\n", ret);
	if (ret)
		return 0;
	const uint32_t elems = 125000;	/* 1 MB of doubles */
	double *v[3];
	starpu_data_handle_t h[3];	/* A, B, C */
	for (int k = 0; k < 3; k++)
	{
		v[k] = calloc(elems, sizeof(double));
		starpu_vector_data_register(&h[k], STARPU_MAIN_RAM, (uintptr_t) v[k], elems, sizeof(double));
	}
	/* B and C onto CUDA0. */
	ret = submit_on(h[1], -1) | submit_on(h[2], -1);
	starpu_task_wait_for_all();
	unsigned gpu = starpu_worker_get_memory_node(0);
	printf("setup=%d b_on_gpu=%d c_on_gpu=%d a_on_gpu=%d\n", ret, starpu_data_is_on_node(h[1], gpu),
	       starpu_data_is_on_node(h[2], gpu), starpu_data_is_on_node(h[0], gpu));
	t0 = starpu_timing_now();
	ret = submit_on(h[2], 0) | submit_on(h[0], 1) | submit_on(h[1], 2);
	starpu_task_wait_for_all();
	printf("submit=%d order=%s end0=%.17g end1=%.17g end2=%.17g\n", ret, order, end_at[0], end_at[1], end_at[2]);
	for (int k = 0; k < 3; k++)
	{
		starpu_data_unregister(h[k]);
		free(v[k]);
	}
	starpu_shutdown();
	return 0;
}

/* ------------------------------------------------------------------ */
/* The cases. */

static void run(const char *sched, struct child *c)
{
	char sched_env[64];
	snprintf(sched_env, sizeof(sched_env), "STARPU_SCHED=%s", sched);
	const char *env[] = { "STARPU_SIMGRID=1", "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/2cuda.platform.v4.xml",
			      "STARPU_PERF_MODEL_DIR=" VTEST_SIM_DATA "/models", "STARPU_HOSTNAME=simtest",
			      "STARPU_NCUDA=1", "STARPU_PREFETCH=1", sched_env, NULL };
	run_child(sched, env, c);
	CU_ASSERT(exited_ok(c));
	CU_ASSERT_EQUAL(c->ret, 0);
	CU_ASSERT_EQUAL(out_num(c, "setup"), 0);
	CU_ASSERT_EQUAL(out_num(c, "submit"), 0);
	/* The premise: B and C on the GPU, A not. */
	CU_ASSERT_EQUAL(out_num(c, "b_on_gpu"), 1);
	CU_ASSERT_EQUAL(out_num(c, "c_on_gpu"), 1);
	CU_ASSERT_EQUAL(out_num(c, "a_on_gpu"), 0);
}

static void test_dmdar_ready_first(void)
{
	NEED_SIMGRID();
	struct child c;
	run("dmdar", &c);
	expect_str(&c, "order", "021");	/* T2 (data there) overtakes T1 */
	CU_ASSERT(close_to(out_num(&c, "end0"), 500.0));
	CU_ASSERT(close_to(out_num(&c, "end2"), 1000.0));
	CU_ASSERT(close_to(out_num(&c, "end1"), 2010.0));
}

static void test_dmda_queue_order(void)
{
	NEED_SIMGRID();
	struct child c;
	run("dmda", &c);
	expect_str(&c, "order", "012");	/* T2 waits behind T1's transfer */
	CU_ASSERT(close_to(out_num(&c, "end0"), 500.0));
	CU_ASSERT(close_to(out_num(&c, "end1"), 2010.0));
	CU_ASSERT(close_to(out_num(&c, "end2"), 2510.0));
}

static const struct vtest_case cases[] = {
	{ "dmdar_ready_first", test_dmdar_ready_first },
	{ "dmda_queue_order", test_dmda_queue_order },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "dmdar", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	if (getenv("VTEST_SIM_CHILD"))
		return child_main();
	return vtest_run(argc, argv, suites);
}
