/* test_tags: dependencies expressed with tags.
 *
 * Chains and diamonds built with starpu_tag_declare_deps[_array], waiting with
 * starpu_tag_wait[_array], tags released by the application
 * (starpu_tag_notify_from_apps, its "OR" behaviour and
 * starpu_tag_notify_restart_from_apps), reusing tag ids after
 * starpu_tag_remove / starpu_tag_restart, several tasks carrying one tag, a
 * cycle of tags gone round by regenerated tasks, starpu_tag_get_task after
 * completion, and the cost of the cycle check on a large grid. The order
 * tasks ran in is read from a shared sequence counter. Each case starts and
 * stops its own runtime, so tag ids never leak from one case to the next.
 */
#include <starpu.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vtest.h"

static atomic_int seq;

static int start(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncuda = 0;
	conf.nopencl = 0;
	atomic_store(&seq, 0);
	return starpu_init(&conf);
}

/* Each task writes the sequence number it ran at into the int its cl_arg
 * points to. */
static void stamp_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	*(int *) cl_arg = atomic_fetch_add(&seq, 1);
}

static struct starpu_codelet stamp_cl =
{
	.cpu_funcs = { stamp_cpu },
	.nbuffers = 0,
};

static void count_only_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	atomic_fetch_add(&seq, 1);
}

static struct starpu_codelet count_only_cl =
{
	.cpu_funcs = { count_only_cpu },
	.nbuffers = 0,
};

static int submit_tagged(starpu_tag_t tag, int *stamp)
{
	*stamp = -1;
	struct starpu_task *task = starpu_task_create();
	task->cl = &stamp_cl;
	task->cl_arg = stamp;
	task->use_tag = 1;
	task->tag_id = tag;
	return starpu_task_submit(task);
}

#define CHAIN 50

static void test_chain(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[CHAIN];
	const starpu_tag_t base = 0x1000;
	for (int i = 1; i < CHAIN; i++)
		starpu_tag_declare_deps(base + i, 1, (starpu_tag_t) (base + i - 1));
	/* submit from the end so that only the tags order the chain */
	for (int i = CHAIN - 1; i >= 0; i--)
		CU_ASSERT_EQUAL(submit_tagged(base + i, &stamp[i]), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(base + CHAIN - 1), 0);
	for (int i = 0; i < CHAIN; i++)
		CU_ASSERT_EQUAL(stamp[i], i);
	starpu_task_wait_for_all();
	starpu_shutdown();
}

static void test_declare_deps_array(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[5];
	starpu_tag_t deps[4] = { 21, 22, 23, 24 };
	starpu_tag_declare_deps_array(25, 4, deps);
	CU_ASSERT_EQUAL(submit_tagged(25, &stamp[4]), 0);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(submit_tagged(deps[i], &stamp[i]), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(25), 0);
	/* the four roots ran first, in any order, then 25 */
	int mask = 0;
	for (int i = 0; i < 4; i++)
	{
		CU_ASSERT(stamp[i] >= 0 && stamp[i] < 4);
		if (stamp[i] >= 0 && stamp[i] < 4)
			mask |= 1 << stamp[i];
	}
	CU_ASSERT_EQUAL(mask, 0xf);
	CU_ASSERT_EQUAL(stamp[4], 4);

	/* a tag with zero dependencies declared is simply ready */
	starpu_tag_declare_deps_array(26, 0, NULL);
	CU_ASSERT_EQUAL(submit_tagged(26, &stamp[0]), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(26), 0);
	CU_ASSERT_EQUAL(stamp[0], 5);
	starpu_task_wait_for_all();
	starpu_shutdown();
}

static void test_wait_array(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	enum { N = 16 };
	static int stamp[N];
	starpu_tag_t tags[N];
	for (int i = 0; i < N; i++)
	{
		tags[i] = 0x2000 + (starpu_tag_t) i;
		CU_ASSERT_EQUAL(submit_tagged(tags[i], &stamp[i]), 0);
	}
	CU_ASSERT_EQUAL(starpu_tag_wait_array(N, tags), 0);
	int mask = 0;
	for (int i = 0; i < N; i++)
	{
		CU_ASSERT(stamp[i] >= 0 && stamp[i] < N);
		if (stamp[i] >= 0 && stamp[i] < N)
			mask |= 1 << stamp[i];
	}
	CU_ASSERT_EQUAL(mask, (1 << N) - 1);
	/* waiting again on finished tags returns at once */
	CU_ASSERT_EQUAL(starpu_tag_wait_array(N, tags), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(tags[3]), 0);
	starpu_task_wait_for_all();
	starpu_shutdown();
}

static void test_notify_from_apps(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[2];
	const starpu_tag_t app_tag = 0x3000, task_tag = 0x3001, task_tag2 = 0x3002;
	starpu_tag_declare_deps(task_tag, 1, app_tag);
	starpu_tag_declare_deps(task_tag2, 1, task_tag);
	CU_ASSERT_EQUAL(submit_tagged(task_tag2, &stamp[1]), 0);
	CU_ASSERT_EQUAL(submit_tagged(task_tag, &stamp[0]), 0);
	vtest_sleep_ms(50);
	CU_ASSERT_EQUAL(atomic_load(&seq), 0);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 2);

	starpu_tag_notify_from_apps(app_tag);
	CU_ASSERT_EQUAL(starpu_tag_wait(task_tag2), 0);
	CU_ASSERT_EQUAL(stamp[0], 0);
	CU_ASSERT_EQUAL(stamp[1], 1);

	/* an application tag can be waited for like a task tag */
	CU_ASSERT_EQUAL(starpu_tag_wait(app_tag), 0);
	starpu_task_wait_for_all();
	starpu_shutdown();
}

/* Several notifications are one: the first releases the successors,
 * the later ones do nothing; a task depending on an already notified tag
 * can run at once. */
static void test_notify_twice(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[2];
	const starpu_tag_t app_tag = 0x3100;
	starpu_tag_declare_deps(0x3101, 1, app_tag);
	CU_ASSERT_EQUAL(submit_tagged(0x3101, &stamp[0]), 0);
	starpu_tag_notify_from_apps(app_tag);
	starpu_tag_notify_from_apps(app_tag);
	CU_ASSERT_EQUAL(starpu_tag_wait(0x3101), 0);
	starpu_tag_notify_from_apps(app_tag);

	starpu_tag_declare_deps(0x3102, 1, app_tag);
	CU_ASSERT_EQUAL(submit_tagged(0x3102, &stamp[1]), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(0x3102), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&seq), 2);
	CU_ASSERT_EQUAL(stamp[0], 0);
	CU_ASSERT_EQUAL(stamp[1], 1);
	starpu_shutdown();
}

static void test_restart_app_tag(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[2];
	const starpu_tag_t app_tag = 0x4000;

	starpu_tag_declare_deps(0x4001, 1, app_tag);
	CU_ASSERT_EQUAL(submit_tagged(0x4001, &stamp[0]), 0);
	starpu_tag_notify_from_apps(app_tag);
	CU_ASSERT_EQUAL(starpu_tag_wait(0x4001), 0);
	CU_ASSERT_EQUAL(atomic_load(&seq), 1);

	/* after a restart the tag must be notified again */
	starpu_tag_restart(app_tag);
	starpu_tag_declare_deps(0x4002, 1, app_tag);
	CU_ASSERT_EQUAL(submit_tagged(0x4002, &stamp[1]), 0);
	vtest_sleep_ms(50);
	CU_ASSERT_EQUAL(atomic_load(&seq), 1);
	starpu_tag_notify_from_apps(app_tag);
	CU_ASSERT_EQUAL(starpu_tag_wait(0x4002), 0);
	CU_ASSERT_EQUAL(atomic_load(&seq), 2);
	CU_ASSERT_EQUAL(stamp[1], 1);
	starpu_task_wait_for_all();
	starpu_shutdown();
}

/* starpu_tag_notify_restart_from_apps drives a cycle: each round, the
 * successor is declared again and the tag notified and re-armed at once. */
static void test_notify_restart_cycle(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	enum { ROUNDS = 5 };
	static int stamp[ROUNDS];
	const starpu_tag_t app_tag = 0x4100;
	for (int r = 0; r < ROUNDS; r++)
	{
		starpu_tag_t t = 0x4200 + (starpu_tag_t) r;
		starpu_tag_declare_deps(t, 1, app_tag);
		CU_ASSERT_EQUAL(submit_tagged(t, &stamp[r]), 0);
		vtest_sleep_ms(10);
		CU_ASSERT_EQUAL(atomic_load(&seq), r);
		starpu_tag_notify_restart_from_apps(app_tag);
		CU_ASSERT_EQUAL(starpu_tag_wait(t), 0);
		CU_ASSERT_EQUAL(stamp[r], r);
	}
	starpu_task_wait_for_all();
	starpu_shutdown();
}

/* A task tag re-used by a new task, after starpu_tag_remove or after
 * starpu_tag_restart: waiting on it waits for the new task. */
static void test_reuse_task_tag(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[3];
	const starpu_tag_t tag = 0x5000;

	CU_ASSERT_EQUAL(submit_tagged(tag, &stamp[0]), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(tag), 0);
	CU_ASSERT_EQUAL(stamp[0], 0);

	starpu_tag_remove(tag);
	CU_ASSERT_EQUAL(submit_tagged(tag, &stamp[1]), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(tag), 0);
	CU_ASSERT_EQUAL(stamp[1], 1);

	starpu_tag_restart(tag);
	CU_ASSERT_EQUAL(submit_tagged(tag, &stamp[2]), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(tag), 0);
	CU_ASSERT_EQUAL(stamp[2], 2);
	CU_ASSERT_EQUAL(atomic_load(&seq), 3);

	starpu_task_wait_for_all();
	starpu_tag_remove(tag);
	starpu_shutdown();
}

/* Tag ids are 64-bit: ids differing only in their high half are distinct. */
static void test_wide_tag_ids(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[2];
	const starpu_tag_t lo = 0x7, hi = ((starpu_tag_t) 1 << 40) | 0x7;
	starpu_tag_declare_deps(hi, 1, (starpu_tag_t) 0x6000);
	CU_ASSERT_EQUAL(submit_tagged(hi, &stamp[1]), 0);
	CU_ASSERT_EQUAL(submit_tagged(lo, &stamp[0]), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(lo), 0);
	vtest_sleep_ms(20);
	CU_ASSERT_EQUAL(atomic_load(&seq), 1);
	starpu_tag_notify_from_apps(0x6000);
	CU_ASSERT_EQUAL(starpu_tag_wait(hi), 0);
	CU_ASSERT_EQUAL(stamp[0], 0);
	CU_ASSERT_EQUAL(stamp[1], 1);
	starpu_task_wait_for_all();
	starpu_shutdown();
}

/*   A
 *  / \
 * B   C
 *  \ /
 *   D      (repeated to shake out races) */
static void test_diamond(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	for (int round = 0; round < 20; round++)
	{
		atomic_store(&seq, 0);
		int a, b, c, d;
		starpu_tag_t ta = 0x8000 + 4 * (starpu_tag_t) round;
		starpu_tag_t tb = ta + 1, tc = ta + 2, td = ta + 3;
		starpu_tag_declare_deps(tb, 1, ta);
		starpu_tag_declare_deps(tc, 1, ta);
		starpu_tag_t bc[2] = { tb, tc };
		starpu_tag_declare_deps_array(td, 2, bc);
		CU_ASSERT_EQUAL(submit_tagged(td, &d), 0);
		CU_ASSERT_EQUAL(submit_tagged(tc, &c), 0);
		CU_ASSERT_EQUAL(submit_tagged(tb, &b), 0);
		CU_ASSERT_EQUAL(submit_tagged(ta, &a), 0);
		CU_ASSERT_EQUAL(starpu_tag_wait(td), 0);
		CU_ASSERT_EQUAL(a, 0);
		CU_ASSERT((b == 1 && c == 2) || (b == 2 && c == 1));
		CU_ASSERT_EQUAL(d, 3);
		starpu_task_wait_for_all();
		starpu_tag_remove(ta);
		starpu_tag_remove(tb);
		starpu_tag_remove(tc);
		starpu_tag_remove(td);
	}
	starpu_shutdown();
}

/* starpu_tag_get_task gives back the task carrying a tag. */
static void test_get_task(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	int stamp;
	struct starpu_task *task = starpu_task_create();
	task->cl = &stamp_cl;
	task->cl_arg = &stamp;
	task->use_tag = 1;
	task->tag_id = 0x9000;
	task->destroy = 0;
	task->detach = 0;
	starpu_tag_declare_deps(0x9000, 1, (starpu_tag_t) 0x9001);
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_PTR_EQUAL(starpu_tag_get_task(0x9000), task);
	starpu_tag_notify_from_apps(0x9001);
	CU_ASSERT_EQUAL(starpu_task_wait(task), 0);
	CU_ASSERT_EQUAL(stamp, 0);
	starpu_task_destroy(task);
	starpu_shutdown();
}

/* starpu_tag_get_task still gives the task once it completed (as long as
 * it is not destroyed), as StarPU does. */
static void test_get_task_after_completion(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	int stamp;
	struct starpu_task *task = starpu_task_create();
	task->cl = &stamp_cl;
	task->cl_arg = &stamp;
	task->use_tag = 1;
	task->tag_id = 0x9100;
	task->destroy = 0;
	task->detach = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(task), 0);
	CU_ASSERT_PTR_EQUAL(starpu_tag_get_task(0x9100), task);
	starpu_task_destroy(task);
	CU_ASSERT_PTR_NULL(starpu_tag_get_task(0x9100));
	starpu_shutdown();
}

/* Several unfinished tasks may carry one tag: it is done when the first of
 * them ends, which starts what depends on it; the later ones do not
 * notify it again. */
static atomic_int gate_open;

static void gated_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	for (int i = 0; i < 5000 && !atomic_load(&gate_open); i++)
		vtest_sleep_ms(1);
	atomic_fetch_add(&seq, 1);
}

static struct starpu_codelet gated_cl = { .cpu_funcs = { gated_cpu }, .nbuffers = 0 };

static void test_shared_tag(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	CU_ASSERT_FATAL(starpu_cpu_worker_get_count() >= 2);
	atomic_store(&gate_open, 0);
	static int dep_stamp, fast_stamp;
	const starpu_tag_t shared = 0xa000, after = 0xa001;
	starpu_tag_declare_deps(after, 1, shared);
	CU_ASSERT_EQUAL(submit_tagged(after, &dep_stamp), 0);
	/* the slow one holds a worker until the gate opens */
	CU_ASSERT_EQUAL(starpu_task_insert(&gated_cl, STARPU_TAG, shared, 0), 0);
	CU_ASSERT_EQUAL(submit_tagged(shared, &fast_stamp), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(after), 0);
	/* the dependent ran while the slow carrier was still held */
	CU_ASSERT_EQUAL(atomic_load(&seq), 2);
	CU_ASSERT_EQUAL(fast_stamp, 0);
	CU_ASSERT_EQUAL(dep_stamp, 1);
	atomic_store(&gate_open, 1);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&seq), 3);

	/* A done tag stays done for another task that takes it (StarPU: "the
	 * same tag signaled by several tasks"): waiting returns at once. The
	 * same task submitted again re-arms it. */
	atomic_store(&gate_open, 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&gated_cl, STARPU_TAG, shared, 0), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(shared), 0);
	CU_ASSERT_EQUAL(atomic_load(&seq), 3);
	atomic_store(&gate_open, 1);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_shutdown();
}

/* A cycle of tags declared on purpose and gone round by regenerated tasks
 * (A before B and C, both before D, D before A again), started by the
 * application: each round runs in order, as in StarPU. */
#define CYCLE_ROUNDS 40
static struct starpu_task cyc[4];
static atomic_int cyc_runs[4];
static int cyc_order[4 * CYCLE_ROUNDS];
static atomic_int cyc_pos;

static void cyc_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	int i = atomic_fetch_add(&cyc_pos, 1);
	if (i < 4 * CYCLE_ROUNDS)
		cyc_order[i] = (int) (intptr_t) cl_arg;
}

static struct starpu_codelet cyc_cl = { .cpu_funcs = { cyc_cpu }, .nbuffers = 0 };

static void cyc_callback(void *arg)
{
	int i = (int) (intptr_t) arg;
	if (atomic_fetch_add(&cyc_runs[i], 1) + 1 == CYCLE_ROUNDS)
		cyc[i].regenerate = 0;
}

static void test_regenerate_cycle(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	const starpu_tag_t base = 0xb000;
	atomic_store(&cyc_pos, 0);
	for (int i = 0; i < 4; i++)
	{
		atomic_store(&cyc_runs[i], 0);
		starpu_task_init(&cyc[i]);
		cyc[i].cl = &cyc_cl;
		cyc[i].cl_arg = (void *) (intptr_t) i;
		cyc[i].regenerate = 1;
		cyc[i].use_tag = 1;
		cyc[i].tag_id = base + (starpu_tag_t) i;
		cyc[i].callback_func = cyc_callback;
		cyc[i].callback_arg = (void *) (intptr_t) i;
	}
	starpu_tag_declare_deps(base + 1, 1, base);
	starpu_tag_declare_deps(base + 2, 1, base);
	starpu_tag_declare_deps(base + 3, 2, base + 1, base + 2);
	vtest_capture_stderr_begin();
	starpu_tag_declare_deps(base, 1, base + 3);	/* closes the cycle: kept */
	vtest_capture_stderr_end();
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(starpu_task_submit(&cyc[i]), 0);
	/* nothing runs until the application breaks the cycle */
	vtest_sleep_ms(20);
	CU_ASSERT_EQUAL(atomic_load(&cyc_pos), 0);
	starpu_tag_notify_restart_from_apps(base + 3);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&cyc_pos), 4 * CYCLE_ROUNDS);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(atomic_load(&cyc_runs[i]), CYCLE_ROUNDS);
	int ordered = 1;
	for (int r = 0; r < CYCLE_ROUNDS; r++)
		if (cyc_order[4 * r] != 0 || cyc_order[4 * r + 3] != 3)
			ordered = 0;
	CU_ASSERT(ordered);
	for (int i = 0; i < 4; i++)
		starpu_task_clean(&cyc[i]);
	starpu_shutdown();
}

/* A 64 x 32 grid of tags, each depending on its left and upper neighbours,
 * declared from the far corner back: the cycle check at each declaration
 * visits each tag once, so this takes milliseconds (it used to explore
 * every path: exponentially many). */
static void test_grid_declare(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	enum { W = 64, H = 32 };
	const starpu_tag_t base = 0xc0000;
#define GRID_TAG(i, j) (base + (starpu_tag_t) ((i) * W + (j)))
	/* No clock here: a cycle check that walked every path of this grid
	 * (C(94, 32) of them) would never return, and the harness's time
	 * limit fails the test; a linear one takes milliseconds. */
	for (int i = H - 1; i >= 0; i--)
		for (int j = W - 1; j >= 0; j--)
		{
			if (i > 0 && j > 0)
				starpu_tag_declare_deps(GRID_TAG(i, j), 2, GRID_TAG(i - 1, j), GRID_TAG(i, j - 1));
			else if (i > 0)
				starpu_tag_declare_deps(GRID_TAG(i, j), 1, GRID_TAG(i - 1, j));
			else if (j > 0)
				starpu_tag_declare_deps(GRID_TAG(i, j), 1, GRID_TAG(i, j - 1));
		}
	atomic_store(&seq, 0);
	for (int i = 0; i < H; i++)
		for (int j = 0; j < W; j++)
			CU_ASSERT_EQUAL(starpu_task_insert(&count_only_cl, STARPU_TAG, GRID_TAG(i, j), 0), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(GRID_TAG(H - 1, W - 1)), 0);
	CU_ASSERT_EQUAL(atomic_load(&seq), W * H);
	starpu_task_wait_for_all();
#undef GRID_TAG
	starpu_shutdown();
}

static const struct vtest_case tag_cases[] =
{
	{ "chain", test_chain },
	{ "declare_deps_array", test_declare_deps_array },
	{ "wait_array", test_wait_array },
	{ "notify_from_apps", test_notify_from_apps },
	{ "notify_twice", test_notify_twice },
	{ "restart_app_tag", test_restart_app_tag },
	{ "notify_restart_cycle", test_notify_restart_cycle },
	{ "reuse_task_tag", test_reuse_task_tag },
	{ "wide_tag_ids", test_wide_tag_ids },
	{ "diamond", test_diamond },
	{ "get_task", test_get_task },
	{ "get_task_after_completion", test_get_task_after_completion },
	{ "shared_tag", test_shared_tag },
	{ "regenerate_cycle", test_regenerate_cycle },
	{ "grid_declare", test_grid_declare },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "tags", NULL, NULL, tag_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
