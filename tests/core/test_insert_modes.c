/* test_insert_modes: where the access modes of a task's buffers come from,
 * and tasks with more buffers than STARPU_NMAXBUFS, as StarPU 1.3 has it.
 *
 * A codelet that leaves a buffer's mode unset takes the first mode
 * starpu_task_insert gives for it (the codelet is updated, as StarPU does;
 * later inserts must agree). Past STARPU_NMAXBUFS: individual arguments,
 * STARPU_DATA_ARRAY (modes from cl->dyn_modes), STARPU_DATA_MODE_ARRAY,
 * and tasks built by hand with task->dyn_handles / task->dyn_modes whether
 * or not the codelet has dyn_modes. Where no mode can be found the call
 * fails with -EINVAL (it used to abort inside the library). Also:
 * STARPU_CL_ARGS and STARPU_VALUE do not mix (starpu_task_build returns
 * NULL, as in StarPU).
 */
#include <starpu.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vtest.h"

#define N 12	/* buffers: more than STARPU_NMAXBUFS */
_Static_assert(N > STARPU_NMAXBUFS, "N must exceed STARPU_NMAXBUFS");

static int suite_init(void)
{
	return vtest_start_cpus(2);
}

/* Adds one to every variable buffer the task has. */
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

/* Unregisters and returns how many increments the variables got. */
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

/* ---- modes given by task_insert -------------------------------------- */

static void test_codelet_without_modes(void)
{
	static struct starpu_codelet cl = { .cpu_funcs = { incr_all_cpu }, .nbuffers = 2, .name = "nomodes" };
	reg();
	CU_ASSERT_EQUAL(starpu_task_insert(&cl, STARPU_RW, h[0], STARPU_R, h[1], 0), 0);
	CU_ASSERT_EQUAL(cl.modes[0], STARPU_RW);
	CU_ASSERT_EQUAL(cl.modes[1], STARPU_R);
	CU_ASSERT_EQUAL(starpu_task_insert(&cl, STARPU_RW, h[0], STARPU_R, h[1], 0), 0);
	/* the codelet has modes now: another one is still refused */
	vtest_capture_stderr_begin();
	int ret = starpu_task_insert(&cl, STARPU_W, h[0], STARPU_R, h[1], 0);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "starpu_task_insert"));
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	/* the same through STARPU_DATA_MODE_ARRAY */
	static struct starpu_codelet cl2 = { .cpu_funcs = { incr_all_cpu }, .nbuffers = 2, .name = "nomodes2" };
	struct starpu_data_descr d[2] = { { h[2], STARPU_RW }, { h[3], STARPU_RW } };
	CU_ASSERT_EQUAL(starpu_task_insert(&cl2, STARPU_DATA_MODE_ARRAY, d, 2, 0), 0);
	CU_ASSERT_EQUAL(cl2.modes[0], STARPU_RW);
	CU_ASSERT_EQUAL(cl2.modes[1], STARPU_RW);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(unreg_sum(), 2 + 2 + 2);
}

/* ---- more than STARPU_NMAXBUFS ---------------------------------------- */

static enum starpu_data_access_mode rw_modes[N];

static void test_many_buffers_insert(void)
{
	for (int i = 0; i < N; i++)
		rw_modes[i] = STARPU_RW;
	static struct starpu_codelet fixed_dyn = { .cpu_funcs = { incr_all_cpu }, .nbuffers = N, .dyn_modes = rw_modes, .name = "fixed_dyn" };
	static struct starpu_codelet fixed = { .cpu_funcs = { incr_all_cpu }, .nbuffers = N, .name = "fixed" };
	static struct starpu_codelet fixed8 = { .cpu_funcs = { incr_all_cpu }, .nbuffers = N, .name = "fixed8",
		.modes = { STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW, STARPU_RW } };
	static struct starpu_codelet variable = { .cpu_funcs = { incr_all_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "variable" };
	struct starpu_data_descr d[N];
	reg();
	for (int i = 0; i < N; i++)
	{
		d[i].handle = h[i];
		d[i].mode = STARPU_RW;
	}
	/* modes from cl->dyn_modes */
	CU_ASSERT_EQUAL(starpu_task_insert(&fixed_dyn, STARPU_DATA_ARRAY, h, N, 0), 0);
	/* a fixed count past NMAXBUFS without cl->dyn_modes: modes from the
	 * task (these two used to abort on an assertion in libvela) */
	CU_ASSERT_EQUAL(starpu_task_insert(&fixed, STARPU_DATA_MODE_ARRAY, d, N, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&fixed8,
		STARPU_RW, h[0], STARPU_RW, h[1], STARPU_RW, h[2], STARPU_RW, h[3], STARPU_RW, h[4], STARPU_RW, h[5],
		STARPU_RW, h[6], STARPU_RW, h[7], STARPU_RW, h[8], STARPU_RW, h[9], STARPU_RW, h[10], STARPU_RW, h[11], 0), 0);
	/* a variable count, modes one by one or in an array */
	CU_ASSERT_EQUAL(starpu_task_insert(&variable,
		STARPU_RW, h[0], STARPU_RW, h[1], STARPU_RW, h[2], STARPU_RW, h[3], STARPU_RW, h[4], STARPU_RW, h[5],
		STARPU_RW, h[6], STARPU_RW, h[7], STARPU_RW, h[8], STARPU_RW, h[9], STARPU_RW, h[10], STARPU_RW, h[11], 0), 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&variable, STARPU_DATA_MODE_ARRAY, d, N, 0), 0);
	/* no mode anywhere: an error, not an abort (StarPU aborts) */
	vtest_capture_stderr_begin();
	int r1 = starpu_task_insert(&fixed, STARPU_DATA_ARRAY, h, N, 0);
	int r2 = starpu_task_insert(&variable, STARPU_DATA_ARRAY, h, N, 0);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(r1, -EINVAL);
	CU_ASSERT_EQUAL(r2, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "STARPU_DATA_ARRAY"));
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(unreg_sum(), 5 * N);
}

static void test_many_buffers_dyn(void)
{
	static struct starpu_codelet fixed = { .cpu_funcs = { incr_all_cpu }, .nbuffers = N, .name = "fixed" };
	static struct starpu_codelet variable = { .cpu_funcs = { incr_all_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "variable" };
	reg();
	/* task->dyn_modes without cl->dyn_modes, fixed and variable counts
	 * (a created task owns its dyn arrays, as in StarPU) */
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
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	/* neither: refused, as StarPU does (it asserts) */
	struct starpu_task *t = starpu_task_create();
	t->cl = &fixed;
	t->dyn_handles = malloc(sizeof(*t->dyn_handles) * N);
	for (int i = 0; i < N; i++)
		t->dyn_handles[i] = h[i];
	vtest_capture_stderr_begin();
	int ret = starpu_task_submit(t);
	vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	starpu_task_destroy(t);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(unreg_sum(), 2 * N);
}

/* ---- codelet arguments ------------------------------------------------- */

static void nop_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
}

static void test_cl_args_with_value(void)
{
	static struct starpu_codelet cl = { .cpu_funcs = { nop_cpu }, .nbuffers = 0, .name = "nop" };
	int v = 3;
	vtest_capture_stderr_begin();
	/* either order; STARPU_CL_ARGS hands the buffer over (freed here) */
	struct starpu_task *t1 = starpu_task_build(&cl, STARPU_CL_ARGS, malloc(16), (size_t) 16, STARPU_VALUE, &v, sizeof(v), 0);
	struct starpu_task *t2 = starpu_task_build(&cl, STARPU_VALUE, &v, sizeof(v), STARPU_CL_ARGS, malloc(16), (size_t) 16, 0);
	static char mine[16];
	struct starpu_task *t3 = starpu_task_build(&cl, STARPU_CL_ARGS_NFREE, mine, sizeof(mine), STARPU_VALUE, &v, sizeof(v), 0);
	int r = starpu_task_insert(&cl, STARPU_CL_ARGS, malloc(16), (size_t) 16, STARPU_VALUE, &v, sizeof(v), 0);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NULL(t1);
	CU_ASSERT_PTR_NULL(t2);
	CU_ASSERT_PTR_NULL(t3);
	CU_ASSERT_EQUAL(r, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "starpu_task_build: STARPU_CL_ARGS and STARPU_VALUE"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "starpu_task_insert: STARPU_CL_ARGS and STARPU_VALUE"));
	/* each alone still builds */
	struct starpu_task *ok1 = starpu_task_build(&cl, STARPU_VALUE, &v, sizeof(v), 0);
	struct starpu_task *ok2 = starpu_task_build(&cl, STARPU_CL_ARGS_NFREE, mine, sizeof(mine), 0);
	CU_ASSERT_PTR_NOT_NULL(ok1);
	CU_ASSERT_PTR_NOT_NULL(ok2);
	starpu_task_destroy(ok1);
	starpu_task_destroy(ok2);
}

static const struct vtest_case cases[] =
{
	{ "codelet_without_modes", test_codelet_without_modes },
	{ "many_buffers_insert", test_many_buffers_insert },
	{ "many_buffers_dyn", test_many_buffers_dyn },
	{ "cl_args_with_value", test_cl_args_with_value },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "insert_modes", suite_init, vtest_stop, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
