/* compat_resubmit: submitting tasks again and reusing tags (issue 23,
 * group 1). A task submitted again from its own callback, from a
 * successor's callback (a subgraph repeated, declared dependencies kept)
 * and after waiting for its tag; several unfinished tasks carrying one tag;
 * a cycle of tags gone round by regenerated tasks; starpu_tag_get_task
 * after completion; a large grid of tag dependencies declared backwards.
 */
#include "compat.h"

#include <pthread.h>

#define ROUNDS 20

static int runs;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static void count_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	__atomic_fetch_add(&runs, 1, __ATOMIC_SEQ_CST);
}

static struct starpu_codelet count_cl = { .cpu_funcs = { count_cpu }, .nbuffers = 0 };

static void incr_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	(*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
	__atomic_fetch_add(&runs, 1, __ATOMIC_SEQ_CST);
}

static struct starpu_codelet incr_cl = { .cpu_funcs = { incr_cpu }, .nbuffers = 1, .modes = { STARPU_RW } };

/* ---- own callback ---- */

static int self_rounds, resubmit_errors;

static void resubmit_self(void *arg)
{
	struct starpu_task *task = arg;
	if (__atomic_add_fetch(&self_rounds, 1, __ATOMIC_SEQ_CST) < ROUNDS && starpu_task_submit(task))
		__atomic_fetch_add(&resubmit_errors, 1, __ATOMIC_SEQ_CST);
}

static void own_callback(void)
{
	runs = self_rounds = resubmit_errors = 0;
	struct starpu_task *task = starpu_task_create();
	task->cl = &count_cl;
	task->destroy = 0;
	task->callback_func = resubmit_self;
	task->callback_arg = task;
	CHECK(starpu_task_submit(task) == 0);
	starpu_task_wait_for_all();
	CHECK(resubmit_errors == 0);
	CHECK(runs == ROUNDS);
	starpu_task_destroy(task);
}

/* ---- a subgraph repeated from its last task's callback ---- */

static struct starpu_task ta, tb, tc, td;
static int loops, x, order_bad, sub_seq, sub_stamp[4];

static void sub_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	int i = (int) (intptr_t) cl_arg;
	sub_stamp[i] = __atomic_fetch_add(&sub_seq, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&runs, 1, __ATOMIC_SEQ_CST);
}

static struct starpu_codelet sub_cl = { .cpu_funcs = { sub_cpu }, .nbuffers = 0 };

static void repeat(void *arg)
{
	(void) arg;
	/* this round's order: A, then B and C, then D */
	if (!(sub_stamp[0] < sub_stamp[1] && sub_stamp[0] < sub_stamp[2] && sub_stamp[1] < sub_stamp[3] && sub_stamp[2] < sub_stamp[3]))
		order_bad++;
	pthread_mutex_lock(&mutex);
	int again = ++loops < ROUNDS;
	pthread_mutex_unlock(&mutex);
	if (again && (starpu_task_submit(&ta) || starpu_task_submit(&tb) || starpu_task_submit(&tc) || starpu_task_submit(&td)))
		__atomic_fetch_add(&resubmit_errors, 1, __ATOMIC_SEQ_CST);
}

static void subgraph(void)
{
	runs = loops = resubmit_errors = order_bad = sub_seq = 0;
	struct starpu_task *t[4] = { &ta, &tb, &tc, &td };
	for (int i = 0; i < 4; i++)
	{
		starpu_task_init(t[i]);
		t[i]->cl = &sub_cl;
		t[i]->cl_arg = (void *) (intptr_t) i;
	}
	/* declared once: they hold for every round */
	starpu_task_declare_deps_array(&tb, 1, (struct starpu_task *[]) { &ta });
	starpu_task_declare_deps_array(&tc, 1, (struct starpu_task *[]) { &ta });
	starpu_task_declare_deps_array(&td, 2, (struct starpu_task *[]) { &tb, &tc });
	td.callback_func = repeat;
	for (int i = 3; i >= 0; i--)
		CHECK(starpu_task_submit(t[i]) == 0);
	starpu_task_wait_for_all();
	CHECK(resubmit_errors == 0);
	CHECK(loops == ROUNDS);
	CHECK(runs == 4 * ROUNDS);
	CHECK(order_bad == 0);
	for (int i = 0; i < 4; i++)
		starpu_task_clean(t[i]);
}

/* ---- declared dependencies stay: the successor submitted alone waits ---- */

static int seq, sa, sb;

static void stamp_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	*(int *) cl_arg = __atomic_fetch_add(&seq, 1, __ATOMIC_SEQ_CST);
}

static struct starpu_codelet stamp_cl = { .cpu_funcs = { stamp_cpu }, .nbuffers = 0 };

static void kept_deps(void)
{
	seq = 0;
	struct starpu_task a, b;
	starpu_task_init(&a);
	starpu_task_init(&b);
	a.cl = b.cl = &stamp_cl;
	a.cl_arg = &sa;
	b.cl_arg = &sb;
	starpu_task_declare_deps_array(&b, 1, (struct starpu_task *[]) { &a });
	CHECK(starpu_task_submit(&a) == 0);
	CHECK(starpu_task_submit(&b) == 0);
	starpu_task_wait_for_all();
	CHECK(sa == 0 && sb == 1);
	CHECK(starpu_task_submit(&b) == 0);
	compat_sleep_ms(50);
	CHECK(sb == 1);		/* waits for a's next run */
	CHECK(starpu_task_submit(&a) == 0);
	starpu_task_wait_for_all();
	CHECK(sa == 2 && sb == 3);
	starpu_task_clean(&a);
	starpu_task_clean(&b);
}

/* ---- after waiting for its tag ---- */

static void slow_callback(void *arg)
{
	(void) arg;
	compat_sleep_ms(2);
}

static void after_tag_wait(void)
{
	runs = 0;
	x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	struct starpu_task *task = starpu_task_create();
	task->cl = &incr_cl;
	task->handles[0] = h;
	task->destroy = 0;
	task->use_tag = 1;
	task->tag_id = 0x7e57;
	task->callback_func = slow_callback;
	for (int i = 0; i < ROUNDS; i++)
	{
		CHECK(starpu_task_submit(task) == 0);
		CHECK(starpu_tag_wait(0x7e57) == 0);
		CHECK(runs == i + 1);
	}
	starpu_task_wait_for_all();
	starpu_task_destroy(task);
	starpu_data_unregister(h);
	CHECK(x == ROUNDS);
}

/* ---- several unfinished tasks carrying one tag ---- */

static int gate_open;

static void gated_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	for (int i = 0; i < 5000 && !__atomic_load_n(&gate_open, __ATOMIC_SEQ_CST); i++)
		compat_sleep_ms(1);
	__atomic_fetch_add(&runs, 1, __ATOMIC_SEQ_CST);
}

static struct starpu_codelet gated_cl = { .cpu_funcs = { gated_cpu }, .nbuffers = 0 };

static void shared_tag(void)
{
	runs = 0;
	gate_open = 0;
	starpu_tag_declare_deps(0xa001, 1, (starpu_tag_t) 0xa000);
	CHECK(starpu_task_insert(&count_cl, STARPU_TAG, (starpu_tag_t) 0xa001, 0) == 0);
	CHECK(starpu_task_insert(&gated_cl, STARPU_TAG, (starpu_tag_t) 0xa000, 0) == 0);
	CHECK(starpu_task_insert(&count_cl, STARPU_TAG, (starpu_tag_t) 0xa000, 0) == 0);
	CHECK(starpu_tag_wait(0xa001) == 0);
	CHECK(runs == 2);	/* the gated carrier has not ended */
	__atomic_store_n(&gate_open, 1, __ATOMIC_SEQ_CST);
	starpu_task_wait_for_all();
	CHECK(runs == 3);
}

/* ---- a cycle of tags with regenerated tasks ---- */

static struct starpu_task cyc[4];
static int cyc_runs[4], cyc_order[4 * ROUNDS], cyc_pos, cyc_done;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

static void cyc_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	int i = __atomic_fetch_add(&cyc_pos, 1, __ATOMIC_SEQ_CST);
	if (i < 4 * ROUNDS)
		cyc_order[i] = (int) (intptr_t) cl_arg;
}

static struct starpu_codelet cyc_cl = { .cpu_funcs = { cyc_cpu }, .nbuffers = 0 };

static void cyc_callback(void *arg)
{
	int i = (int) (intptr_t) arg;
	if (++cyc_runs[i] == ROUNDS)
	{
		cyc[i].regenerate = 0;
		if (i == 3)
		{
			pthread_mutex_lock(&mutex);
			cyc_done = 1;
			pthread_cond_signal(&cond);
			pthread_mutex_unlock(&mutex);
		}
	}
}

static void tag_cycle(void)
{
	cyc_pos = cyc_done = 0;
	for (int i = 0; i < 4; i++)
	{
		cyc_runs[i] = 0;
		starpu_task_init(&cyc[i]);
		cyc[i].cl = &cyc_cl;
		cyc[i].cl_arg = (void *) (intptr_t) i;
		cyc[i].regenerate = 1;
		cyc[i].use_tag = 1;
		cyc[i].tag_id = 0xb000 + (starpu_tag_t) i;
		cyc[i].callback_func = cyc_callback;
		cyc[i].callback_arg = (void *) (intptr_t) i;
	}
	starpu_tag_declare_deps(0xb001, 1, (starpu_tag_t) 0xb000);
	starpu_tag_declare_deps(0xb002, 1, (starpu_tag_t) 0xb000);
	starpu_tag_declare_deps(0xb003, 2, (starpu_tag_t) 0xb001, (starpu_tag_t) 0xb002);
	starpu_tag_declare_deps(0xb000, 1, (starpu_tag_t) 0xb003);
	for (int i = 0; i < 4; i++)
		CHECK(starpu_task_submit(&cyc[i]) == 0);
	compat_sleep_ms(20);
	CHECK(cyc_pos == 0);
	starpu_tag_notify_restart_from_apps(0xb003);
	pthread_mutex_lock(&mutex);
	while (!cyc_done)
		pthread_cond_wait(&cond, &mutex);
	pthread_mutex_unlock(&mutex);
	starpu_task_wait_for_all();
	CHECK(cyc_pos == 4 * ROUNDS);
	for (int r = 0; r < ROUNDS; r++)
		CHECK(cyc_order[4 * r] == 0 && cyc_order[4 * r + 3] == 3);
	for (int i = 0; i < 4; i++)
		starpu_task_clean(&cyc[i]);
}

/* ---- starpu_tag_get_task after completion ---- */

static void get_task(void)
{
	struct starpu_task *task = starpu_task_create();
	task->cl = &count_cl;
	task->use_tag = 1;
	task->tag_id = 0x9100;
	task->destroy = 0;
	task->detach = 0;
	CHECK(starpu_task_submit(task) == 0);
	CHECK(starpu_task_wait(task) == 0);
	CHECK(starpu_tag_get_task(0x9100) == task);
	starpu_task_destroy(task);
}

/* ---- a 64 x 32 grid declared from the far corner ---- */

static void grid(void)
{
	enum { W = 64, H = 32 };
	runs = 0;
	const starpu_tag_t base = 0xc0000;
#define T(i, j) (base + (starpu_tag_t) ((i) * W + (j)))
	for (int i = H - 1; i >= 0; i--)
		for (int j = W - 1; j >= 0; j--)
		{
			if (i > 0 && j > 0)
				starpu_tag_declare_deps(T(i, j), 2, T(i - 1, j), T(i, j - 1));
			else if (i > 0)
				starpu_tag_declare_deps(T(i, j), 1, T(i - 1, j));
			else if (j > 0)
				starpu_tag_declare_deps(T(i, j), 1, T(i, j - 1));
		}
	for (int i = 0; i < H; i++)
		for (int j = 0; j < W; j++)
			CHECK(starpu_task_insert(&count_cl, STARPU_TAG, T(i, j), 0) == 0);
	CHECK(starpu_tag_wait(T(H - 1, W - 1)) == 0);
	CHECK(runs == W * H);
#undef T
	starpu_task_wait_for_all();
}

int main(void)
{
	int ret = compat_start(2, NULL);
	if (ret == -ENODEV)
		return 77;
	if (ret)
		return 1;
	own_callback();
	subgraph();
	kept_deps();
	after_tag_wait();
	shared_tag();
	tag_cycle();
	get_task();
	grid();
	starpu_shutdown();
	return compat_result("compat_resubmit");
}
