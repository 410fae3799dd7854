/* test_redux_ooc: reductions under a memory limit (STARPU_LIMIT_CPU_MEM).
 *
 * A reduction contribution lives until its fold, which only the next
 * non-REDUX access of its handle brings in. Here every handle gets its
 * contributions and only then, after starpu_task_wait_for_all, a reader:
 * the contributions at rest need more RAM than the limit.
 *
 *   spilled_exact  with a swap disk they go there and come back for the
 *                  fold: every value exact.
 *   no_disk_error  without one, a contribution that cannot get memory
 *                  fails its task with -ENOMEM and a message naming the
 *                  task, the data, the node and the contributions; the
 *                  run ends; the others are folded exactly.
 *
 * Both used to stall for ever in starpu_task_wait_for_all (a task waited
 * for memory that only the folds release): an alarm turns a stall into a
 * failure.
 */
#include <starpu.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vtest.h"

enum { ELEMS = (128 << 10) / (int) sizeof(int64_t), NH = 16, NREDUX = 3 };

static void stalled(int sig)
{
	(void) sig;
	static const char msg[] = "test_redux_ooc: stalled for 60 s (reductions under a memory limit)\n";
	ssize_t w = write(2, msg, sizeof(msg) - 1);
	(void) w;
	_exit(1);
}

static void set_cpu(void *buffers[], void *arg)
{
	int64_t *v = (int64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	int64_t x = (int64_t) (intptr_t) arg;
	for (int e = 0; e < ELEMS; e++)
		v[e] = x + e;
}

static void add_cpu(void *buffers[], void *arg)
{
	int64_t *v = (int64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	int64_t x = (int64_t) (intptr_t) arg;
	for (int e = 0; e < ELEMS; e++)
		v[e] += x;
}

static void zero_cpu(void *buffers[], void *arg)
{
	(void) arg;
	memset((void *) STARPU_VECTOR_GET_PTR(buffers[0]), 0, STARPU_VECTOR_GET_NX(buffers[0]) * sizeof(int64_t));
}

static void fold_cpu(void *buffers[], void *arg)
{
	(void) arg;
	int64_t *d = (int64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	const int64_t *s = (const int64_t *) STARPU_VECTOR_GET_PTR(buffers[1]);
	for (unsigned e = 0; e < STARPU_VECTOR_GET_NX(buffers[0]); e++)
		d[e] += s[e];
}

static struct starpu_codelet set_cl = { .cpu_funcs = { set_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "set" };
static struct starpu_codelet add_cl = { .cpu_funcs = { add_cpu }, .nbuffers = 1, .modes = { STARPU_REDUX }, .name = "contribute" };
static struct starpu_codelet zero_cl = { .cpu_funcs = { zero_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "zero" };
static struct starpu_codelet redux_cl = { .cpu_funcs = { fold_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "add" };

static int start(int ncpus)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = ncpus;
	conf.ncuda = 0;
	conf.nopencl = 0;
	return starpu_init(&conf);
}

static void submit(struct starpu_codelet *cl, starpu_data_handle_t h, int64_t x)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->cl_arg = (void *) (intptr_t) x;
	t->handles[0] = h;
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
}

/* Sets handle i to 1000 i + e, then NREDUX contributions of i + k. */
static void set_and_contribute(starpu_data_handle_t *h)
{
	for (int i = 0; i < NH; i++)
	{
		starpu_data_set_reduction_methods(h[i], &redux_cl, &zero_cl);
		submit(&set_cl, h[i], 1000 * i);
	}
	for (int k = 0; k < NREDUX; k++)
		for (int i = 0; i < NH; i++)
			submit(&add_cl, h[i], i + k);
}

/* Whether h[i] holds 1000 i + e plus the contributions of n tasks. */
static int holds(starpu_data_handle_t h, int i, int n)
{
	int64_t extra = 0;
	for (int k = 0; k < n; k++)
		extra += i + k;
	if (starpu_data_acquire(h, STARPU_R))
		return 0;
	const int64_t *v = (const int64_t *) starpu_vector_get_local_ptr(h);
	int ok = 1;
	for (int e = 0; e < ELEMS && ok; e++)
		ok = v[e] == 1000 * i + e + extra;
	starpu_data_release(h);
	return ok;
}

static void test_spilled_exact(void)
{
	/* 2 MiB of data and up to 4 MiB of contributions (2 workers) through
	 * 1 MiB of RAM and a swap disk. */
	char dir[] = "/tmp/vela-redux-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	vtest_setenv("STARPU_DISK_SWAP", dir);
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "1");
	CU_ASSERT_EQUAL_FATAL(start(2), 0);
	starpu_data_handle_t h[NH];
	for (int i = 0; i < NH; i++)
		starpu_vector_data_register(&h[i], -1, 0, ELEMS, sizeof(int64_t));
	alarm(60);
	set_and_contribute(h);
	starpu_task_wait_for_all();
	int exact = 0;
	for (int i = 0; i < NH; i++)
		exact += holds(h[i], i, NREDUX);
	alarm(0);
	CU_ASSERT_EQUAL(exact, NH);
	for (int i = 0; i < NH; i++)
		starpu_data_unregister(h[i]);
	starpu_shutdown();
	vtest_env_restore();
	CU_ASSERT_EQUAL(rmdir(dir), 0);	/* nothing left behind */
}

static void test_no_disk_error(void)
{
	/* Application buffers (never evicted, not counted) and one worker:
	 * the contributions of 8 handles fill 1 MiB, the others find no room
	 * and nothing that waiting could free. */
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "1");
	CU_ASSERT_EQUAL_FATAL(start(1), 0);
	starpu_data_handle_t h[NH];
	int64_t *buf[NH];
	for (int i = 0; i < NH; i++)
	{
		buf[i] = malloc(ELEMS * sizeof(int64_t));
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf[i]);
		starpu_vector_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) buf[i], ELEMS, sizeof(int64_t));
	}
	alarm(60);
	vtest_capture_stderr_begin();
	set_and_contribute(h);
	starpu_task_wait_for_all();
	const char *err = vtest_capture_stderr_end();
	int full = 0, none = 0;
	for (int i = 0; i < NH; i++)
	{
		full += holds(h[i], i, NREDUX);
		none += holds(h[i], i, 0);
	}
	alarm(0);
	/* Those whose contribution got memory are exact; the others kept
	 * their value (their REDUX tasks failed). */
	CU_ASSERT_EQUAL(full, 8);
	CU_ASSERT_EQUAL(full + none, NH);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "task 'contribute': cannot allocate the reduction buffer of handle"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot be allocated on memory node 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "held by reduction contributions awaiting their fold"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "(-ENOMEM)"));
	for (int i = 0; i < NH; i++)
	{
		starpu_data_unregister(h[i]);
		free(buf[i]);
	}
	starpu_shutdown();
	vtest_env_restore();
}

static const struct vtest_case cases[] =
{
	{ "spilled_exact", test_spilled_exact },
	{ "no_disk_error", test_no_disk_error },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "redux_ooc", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	signal(SIGALRM, stalled);
	return vtest_run(argc, argv, suites);
}
