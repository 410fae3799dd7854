/* test_deps: explicit dependencies between tasks.
 *
 * starpu_task_declare_deps[_array] (order enforced, predecessors already
 * finished, predecessors submitted after their successor), end dependencies
 * (starpu_task_declare_end_deps_array, starpu_task_end_dep_add / _release:
 * a task whose codelet has run is not terminated, so neither its waiters nor
 * its successors go on, until its end dependencies are met), and
 * starpu_task_get_task_succs; declared dependencies kept across submissions
 * (as in StarPU). Order is read from a shared sequence counter.
 */
#include <starpu.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* Writes the sequence number it ran at into *(int *) cl_arg. */
static void stamp_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	/* Atomic store: some tests poll the stamp while the task runs. */
	__atomic_store_n((int *) cl_arg, atomic_fetch_add(&seq, 1), __ATOMIC_SEQ_CST);
}

static struct starpu_codelet stamp_cl =
{
	.cpu_funcs = { stamp_cpu },
	.nbuffers = 0,
};

static struct starpu_task *stamp_task(int *stamp)
{
	*stamp = -1;
	struct starpu_task *task = starpu_task_create();
	task->cl = &stamp_cl;
	task->cl_arg = stamp;
	return task;
}

#define CHAIN 40

static void test_chain_order(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[CHAIN];
	struct starpu_task *t[CHAIN];
	for (int i = 0; i < CHAIN; i++)
	{
		t[i] = stamp_task(&stamp[i]);
		if (i > 0)
			starpu_task_declare_deps_array(t[i], 1, &t[i - 1]);
	}
	for (int i = CHAIN - 1; i >= 0; i--)
		CU_ASSERT_EQUAL(starpu_task_submit(t[i]), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (int i = 0; i < CHAIN; i++)
		CU_ASSERT_EQUAL(stamp[i], i);
	starpu_shutdown();
}

/* Fan-in with several calls adding up, redundant entries, and the
 * variadic form. */
static void test_fan_in(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[6];
	struct starpu_task *t[6];
	for (int i = 0; i < 6; i++)
		t[i] = stamp_task(&stamp[i]);
	/* t5 after t0..t4: two array calls, one redundant entry, one varargs */
	starpu_task_declare_deps_array(t[5], 2, &t[0]);
	starpu_task_declare_deps_array(t[5], 2, &t[1]);
	starpu_task_declare_deps(t[5], 2, t[3], t[4]);
	starpu_task_declare_deps_array(t[5], 0, NULL);
	CU_ASSERT_EQUAL(starpu_task_submit(t[5]), 0);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(starpu_task_submit(t[i]), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (int i = 0; i < 5; i++)
		CU_ASSERT(stamp[i] >= 0 && stamp[i] < 5);
	CU_ASSERT_EQUAL(stamp[5], 5);
	starpu_shutdown();
}

static void test_dep_on_finished_task(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[3];
	struct starpu_task *a = stamp_task(&stamp[0]);
	a->detach = 0;
	a->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(a), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(a), 0);

	/* a detached, finished (and still allocated) predecessor */
	struct starpu_task *b = stamp_task(&stamp[1]);
	b->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(b), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	struct starpu_task *preds[2] = { a, b };
	struct starpu_task *c = stamp_task(&stamp[2]);
	c->detach = 0;
	starpu_task_declare_deps_array(c, 2, preds);
	CU_ASSERT_EQUAL(starpu_task_submit(c), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(c), 0);
	CU_ASSERT_EQUAL(stamp[0], 0);
	CU_ASSERT_EQUAL(stamp[1], 1);
	CU_ASSERT_EQUAL(stamp[2], 2);
	starpu_task_destroy(a);
	starpu_task_destroy(b);
	starpu_shutdown();
}

static void test_dep_before_predecessor_submitted(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[2];
	struct starpu_task *a = stamp_task(&stamp[0]);
	struct starpu_task *b = stamp_task(&stamp[1]);
	starpu_task_declare_deps_array(b, 1, &a);
	CU_ASSERT_EQUAL(starpu_task_submit(b), 0);
	vtest_sleep_ms(50);
	/* b waits for a task nobody submitted yet */
	CU_ASSERT_EQUAL(atomic_load(&seq), 0);
	CU_ASSERT_EQUAL(stamp[1], -1);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 1);
	CU_ASSERT_EQUAL(starpu_task_submit(a), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(stamp[0], 0);
	CU_ASSERT_EQUAL(stamp[1], 1);
	starpu_shutdown();
}

/* Repeated wide fan-out / fan-in, to shake out races in dependency release. */
static void test_fan_out_in_stress(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	enum { WIDTH = 32, ROUNDS = 20 };
	for (int r = 0; r < ROUNDS; r++)
	{
		atomic_store(&seq, 0);
		int s_root, s_mid[WIDTH], s_sink;
		struct starpu_task *root = stamp_task(&s_root);
		struct starpu_task *mid[WIDTH];
		struct starpu_task *sink = stamp_task(&s_sink);
		for (int i = 0; i < WIDTH; i++)
		{
			mid[i] = stamp_task(&s_mid[i]);
			starpu_task_declare_deps_array(mid[i], 1, &root);
		}
		starpu_task_declare_deps_array(sink, WIDTH, mid);
		CU_ASSERT_EQUAL(starpu_task_submit(sink), 0);
		for (int i = 0; i < WIDTH; i++)
			CU_ASSERT_EQUAL(starpu_task_submit(mid[i]), 0);
		CU_ASSERT_EQUAL(starpu_task_submit(root), 0);
		CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
		CU_ASSERT_EQUAL(s_root, 0);
		for (int i = 0; i < WIDTH; i++)
			CU_ASSERT(s_mid[i] >= 1 && s_mid[i] <= WIDTH);
		CU_ASSERT_EQUAL(s_sink, WIDTH + 1);
	}
	starpu_shutdown();
}

/* ---- end dependencies --------------------------------------------------- */

struct waiter
{
	struct starpu_task *task;
	atomic_int done;
	int ret;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	w->ret = starpu_task_wait(w->task);
	atomic_store(&w->done, 1);
	return NULL;
}

static void wait_for_stamp(const int *stamp)
{
	/* bounded: a broken runtime fails the checks below instead of hanging */
	for (int i = 0; i < 10000 && __atomic_load_n(stamp, __ATOMIC_SEQ_CST) < 0; i++)
		vtest_sleep_ms(1);
}

static void test_end_dep_add_release(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[2];
	struct starpu_task *t = stamp_task(&stamp[0]);
	t->detach = 0;
	t->destroy = 0;
	struct starpu_task *succ = stamp_task(&stamp[1]);
	starpu_task_declare_deps_array(succ, 1, &t);
	starpu_task_end_dep_add(t, 2);

	CU_ASSERT_EQUAL(starpu_task_submit(succ), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	struct waiter w = { .task = t, .ret = -1 };
	atomic_store(&w.done, 0);
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, wait_thread, &w), 0);

	/* t's codelet runs, but t does not terminate */
	wait_for_stamp(&stamp[0]);
	CU_ASSERT_EQUAL(__atomic_load_n(&stamp[0], __ATOMIC_SEQ_CST), 0);
	vtest_sleep_ms(50);
	CU_ASSERT_EQUAL(__atomic_load_n(&stamp[1], __ATOMIC_SEQ_CST), -1);
	CU_ASSERT_EQUAL(atomic_load(&w.done), 0);
	CU_ASSERT_EQUAL(starpu_task_finished(t), 0);

	/* one of two releases is not enough */
	starpu_task_end_dep_release(t);
	vtest_sleep_ms(50);
	CU_ASSERT_EQUAL(stamp[1], -1);
	CU_ASSERT_EQUAL(atomic_load(&w.done), 0);
	CU_ASSERT_EQUAL(starpu_task_finished(t), 0);

	starpu_task_end_dep_release(t);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(w.ret, 0);
	CU_ASSERT_EQUAL(atomic_load(&w.done), 1);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(stamp[1], 1);
	starpu_task_destroy(t);
	starpu_shutdown();
}

/* End dependencies released from the task's own codelet complete it as
 * usual. */
static void release_self_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	atomic_fetch_add(&seq, 1);
	starpu_task_end_dep_release(starpu_task_get_current());
}

static struct starpu_codelet release_self_cl =
{
	.cpu_funcs = { release_self_cpu },
	.nbuffers = 0,
};

static void test_end_dep_release_in_codelet(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	struct starpu_task *t = starpu_task_create();
	t->cl = &release_self_cl;
	t->detach = 0;
	starpu_task_end_dep_add(t, 1);
	CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(t), 0);
	CU_ASSERT_EQUAL(atomic_load(&seq), 1);
	starpu_shutdown();
}

/* t terminates only once u (held back by an application tag) has. */
static void test_declare_end_deps_array(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[3];
	const starpu_tag_t gate = 0x77;

	struct starpu_task *u = stamp_task(&stamp[0]);
	u->use_tag = 1;
	u->tag_id = 0x78;
	starpu_tag_declare_deps(0x78, 1, gate);
	u->detach = 0;
	u->destroy = 0;

	struct starpu_task *t = stamp_task(&stamp[1]);
	t->detach = 0;
	t->destroy = 0;
	starpu_task_declare_end_deps_array(t, 1, &u);

	struct starpu_task *succ = stamp_task(&stamp[2]);
	starpu_task_declare_deps_array(succ, 1, &t);

	CU_ASSERT_EQUAL(starpu_task_submit(u), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(succ), 0);

	wait_for_stamp(&stamp[1]);
	CU_ASSERT_EQUAL(stamp[1], 0);
	vtest_sleep_ms(50);
	CU_ASSERT_EQUAL(stamp[0], -1);
	CU_ASSERT_EQUAL(stamp[2], -1);
	CU_ASSERT_EQUAL(starpu_task_finished(t), 0);

	starpu_tag_notify_from_apps(gate);
	CU_ASSERT_EQUAL(starpu_task_wait(t), 0);
	CU_ASSERT_EQUAL(stamp[0], 1);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(stamp[2], 2);
	CU_ASSERT_NOT_EQUAL(starpu_task_finished(u), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(u), 0);
	starpu_task_destroy(t);
	starpu_task_destroy(u);
	starpu_shutdown();
}

static void test_get_task_succs(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int stamp[4];
	const starpu_tag_t gate = 0x99;
	struct starpu_task *a = stamp_task(&stamp[0]);
	a->use_tag = 1;
	a->tag_id = 0x98;
	starpu_tag_declare_deps(0x98, 1, gate);
	struct starpu_task *b = stamp_task(&stamp[1]);
	struct starpu_task *c = stamp_task(&stamp[2]);
	struct starpu_task *d = stamp_task(&stamp[3]);
	starpu_task_declare_deps_array(b, 1, &a);
	starpu_task_declare_deps_array(c, 1, &a);
	starpu_task_declare_deps_array(d, 1, &b);
	CU_ASSERT_EQUAL(starpu_task_submit(a), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(b), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(c), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(d), 0);

	/* a cannot have completed: it waits for the gate */
	/* (StarPU 1.3 returns the number stored, at most ndeps, not the total
	 * the documentation promises: calls with a short array are left out) */
	struct starpu_task *succs[4] = { NULL, NULL, NULL, NULL };
	CU_ASSERT_EQUAL(starpu_task_get_task_succs(a, 4, succs), 2);
	CU_ASSERT((succs[0] == b && succs[1] == c) || (succs[0] == c && succs[1] == b));
	CU_ASSERT_EQUAL(starpu_task_get_task_succs(b, 4, succs), 1);
	CU_ASSERT_PTR_EQUAL(succs[0], d);
	CU_ASSERT_EQUAL(starpu_task_get_task_succs(d, 4, succs), 0);

	starpu_tag_notify_from_apps(gate);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(stamp[0], 0);
	CU_ASSERT(stamp[3] > stamp[1]);
	CU_ASSERT(stamp[2] > 0);
	starpu_shutdown();
}

/* Declared dependencies stay, as in StarPU: a task submitted again waits
 * again for its predecessors' next termination, whichever is submitted
 * first; a predecessor finished before the declaration counts once; a
 * destroyed predecessor is no longer waited for. */
static void test_kept_on_resubmission(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	static int sa, sb;
	struct starpu_task *a = stamp_task(&sa), *b = stamp_task(&sb);
	a->destroy = b->destroy = 0;
	starpu_task_declare_deps_array(b, 1, &a);
	CU_ASSERT_EQUAL(starpu_task_submit(a), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(b), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(sa, 0);
	CU_ASSERT_EQUAL(sb, 1);
	for (int round = 1; round < 4; round++)
	{
		/* b first: it waits for a's next run */
		CU_ASSERT_EQUAL(starpu_task_submit(b), 0);
		vtest_sleep_ms(20);
		CU_ASSERT_EQUAL(sb, 2 * round - 1);
		CU_ASSERT_EQUAL(starpu_task_submit(a), 0);
		CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
		CU_ASSERT_EQUAL(sa, 2 * round);
		CU_ASSERT_EQUAL(sb, 2 * round + 1);
	}

	/* declared on a finished task: it counts once */
	static int sc;
	struct starpu_task *c = stamp_task(&sc);
	c->destroy = 0;
	starpu_task_declare_deps_array(c, 1, &a);
	CU_ASSERT_EQUAL(starpu_task_submit(c), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(sc, 8);
	CU_ASSERT_EQUAL(starpu_task_submit(c), 0);
	vtest_sleep_ms(20);
	CU_ASSERT_EQUAL(sc, 8);
	/* a goes away: c no longer waits for it */
	starpu_task_destroy(a);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(sc, 9);
	/* b's dependency went with it too */
	CU_ASSERT_EQUAL(starpu_task_submit(b), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(sb, 10);
	starpu_task_destroy(b);
	starpu_task_destroy(c);
	starpu_shutdown();
}

static const struct vtest_case deps_cases[] =
{
	{ "chain_order", test_chain_order },
	{ "fan_in", test_fan_in },
	{ "dep_on_finished_task", test_dep_on_finished_task },
	{ "dep_before_predecessor_submitted", test_dep_before_predecessor_submitted },
	{ "fan_out_in_stress", test_fan_out_in_stress },
	{ "get_task_succs", test_get_task_succs },
	{ "kept_on_resubmission", test_kept_on_resubmission },
	VTEST_END
};

static const struct vtest_case end_deps_cases[] =
{
	{ "end_dep_add_release", test_end_dep_add_release },
	{ "end_dep_release_in_codelet", test_end_dep_release_in_codelet },
	{ "declare_end_deps_array", test_declare_end_deps_array },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "task_deps", NULL, NULL, deps_cases },
	{ "end_deps", NULL, NULL, end_deps_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
