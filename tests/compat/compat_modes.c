/* compat_modes: access modes and buffer counts (issue 23, group 3). A
 * codelet without modes takes those given to starpu_task_insert; more
 * buffers than STARPU_NMAXBUFS through task_insert (one by one,
 * STARPU_DATA_ARRAY with cl->dyn_modes, STARPU_DATA_MODE_ARRAY) and through
 * task->dyn_handles / dyn_modes without cl->dyn_modes; starpu_task_build
 * refusing STARPU_CL_ARGS mixed with STARPU_VALUE.
 */
#include "compat.h"

#define N 12

static void incr_all_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	struct starpu_task *task = starpu_task_get_current();
	unsigned n = STARPU_TASK_GET_NBUFFERS(task);
	for (unsigned i = 0; i < n; i++)
		(*(int *) STARPU_VARIABLE_GET_PTR(buffers[i]))++;
}

static int x[N];
static starpu_data_handle_t h[N];

static void reg(void)
{
	for (int i = 0; i < N; i++)
	{
		x[i] = 0;
		starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) &x[i], sizeof(x[i]));
	}
}

static int unreg_sum(void)
{
	int sum = 0;
	for (int i = 0; i < N; i++)
	{
		starpu_data_unregister(h[i]);
		sum += x[i];
	}
	return sum;
}

static struct starpu_codelet nomodes = { .cpu_funcs = { incr_all_cpu }, .nbuffers = 2 };
static struct starpu_codelet nomodes2 = { .cpu_funcs = { incr_all_cpu }, .nbuffers = 2 };

static void codelet_without_modes(void)
{
	reg();
	CHECK(starpu_task_insert(&nomodes, STARPU_RW, h[0], STARPU_R, h[1], 0) == 0);
	CHECK(nomodes.modes[0] == STARPU_RW && nomodes.modes[1] == STARPU_R);
	CHECK(starpu_task_insert(&nomodes, STARPU_RW, h[0], STARPU_R, h[1], 0) == 0);
	struct starpu_data_descr d[2] = { { h[2], STARPU_RW }, { h[3], STARPU_RW } };
	CHECK(starpu_task_insert(&nomodes2, STARPU_DATA_MODE_ARRAY, d, 2, 0) == 0);
	CHECK(nomodes2.modes[0] == STARPU_RW && nomodes2.modes[1] == STARPU_RW);
	starpu_task_wait_for_all();
	CHECK(unreg_sum() == 6);
}

static enum starpu_data_access_mode rw_modes[N];
static struct starpu_codelet fixed_dyn = { .cpu_funcs = { incr_all_cpu }, .nbuffers = N, .dyn_modes = rw_modes };
static struct starpu_codelet fixed = { .cpu_funcs = { incr_all_cpu }, .nbuffers = N };
static struct starpu_codelet fixed8 = { .cpu_funcs = { incr_all_cpu }, .nbuffers = N,
	.modes = { STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW } };
static struct starpu_codelet variable = { .cpu_funcs = { incr_all_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS };

static void many_buffers(void)
{
	for (int i = 0; i < N; i++)
		rw_modes[i] = STARPU_RW;
	struct starpu_data_descr d[N];
	reg();
	for (int i = 0; i < N; i++)
	{
		d[i].handle = h[i];
		d[i].mode = STARPU_RW;
	}
	CHECK(starpu_task_insert(&fixed_dyn, STARPU_DATA_ARRAY, h, N, 0) == 0);
	CHECK(starpu_task_insert(&fixed, STARPU_DATA_MODE_ARRAY, d, N, 0) == 0);
	CHECK(starpu_task_insert(&fixed8,
		STARPU_RW, h[0], STARPU_RW, h[1], STARPU_RW, h[2], STARPU_RW, h[3], STARPU_RW, h[4], STARPU_RW, h[5],
		STARPU_RW, h[6], STARPU_RW, h[7], STARPU_RW, h[8], STARPU_RW, h[9], STARPU_RW, h[10], STARPU_RW, h[11], 0) == 0);
	CHECK(starpu_task_insert(&variable,
		STARPU_RW, h[0], STARPU_RW, h[1], STARPU_RW, h[2], STARPU_RW, h[3], STARPU_RW, h[4], STARPU_RW, h[5],
		STARPU_RW, h[6], STARPU_RW, h[7], STARPU_RW, h[8], STARPU_RW, h[9], STARPU_RW, h[10], STARPU_RW, h[11], 0) == 0);
	CHECK(starpu_task_insert(&variable, STARPU_DATA_MODE_ARRAY, d, N, 0) == 0);
	/* by hand: task->dyn_modes, no cl->dyn_modes */
	struct starpu_codelet *cls[2] = { &fixed, &variable };
	for (int c = 0; c < 2; c++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = cls[c];
		t->nbuffers = N;
		t->dyn_handles = malloc(sizeof(*t->dyn_handles) * N);
		t->dyn_modes = malloc(sizeof(*t->dyn_modes) * N);
		for (int i = 0; i < N; i++)
		{
			t->dyn_handles[i] = h[i];
			t->dyn_modes[i] = STARPU_RW;
		}
		CHECK(starpu_task_submit(t) == 0);
	}
	starpu_task_wait_for_all();
	CHECK(unreg_sum() == 7 * N);
}

static void nop_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
}

static struct starpu_codelet nop_cl = { .cpu_funcs = { nop_cpu }, .nbuffers = 0 };

static void cl_args_with_value(void)
{
	int v = 3;
	static char mine[16];
	CHECK(starpu_task_build(&nop_cl, STARPU_CL_ARGS_NFREE, mine, sizeof(mine), STARPU_VALUE, &v, sizeof(v), 0) == NULL);
	CHECK(starpu_task_build(&nop_cl, STARPU_VALUE, &v, sizeof(v), STARPU_CL_ARGS_NFREE, mine, sizeof(mine), 0) == NULL);
	struct starpu_task *t = starpu_task_build(&nop_cl, STARPU_VALUE, &v, sizeof(v), 0);
	CHECK(t != NULL);
	if (t)
		CHECK(starpu_task_submit(t) == 0);
	starpu_task_wait_for_all();
}

int main(void)
{
	int ret = compat_start(2, NULL);
	if (ret == -ENODEV)
		return 77;
	if (ret)
		return 1;
	codelet_without_modes();
	many_buffers();
	cl_args_with_value();
	starpu_shutdown();
	return compat_result("compat_modes");
}
