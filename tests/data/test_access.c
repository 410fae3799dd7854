/* test_access: access modes and the application's acquisitions.
 *
 * SCRATCH buffers (private to a task, never transferred), reductions
 * (dot product and histogram against a sequential computation, reductions
 * interleaved with ordinary accesses), commuting writers (mutual exclusion,
 * reordering allowed, still ordered against readers), arbiters (mutual
 * exclusion over several handles), LOCALITY, and the acquire family: the
 * callback forms, try, no-node, without sequential consistency, and
 * -EDEADLK where blocking is not allowed. Two CPU workers, so that wrong
 * exclusion has a chance to show.
 */
#include <starpu.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vtest.h"

static int suite_init(void)
{
	return vtest_start_cpus(2);
}


/* A task of cl on handles h[0..n) with cl_arg; modes from the codelet. */
static struct starpu_task *make_task(struct starpu_codelet *cl, void *arg, int n, starpu_data_handle_t *h)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->cl_arg = arg;
	for (int i = 0; i < n; i++)
		t->handles[i] = h[i];
	return t;
}

static int submit(struct starpu_codelet *cl, void *arg, int n, starpu_data_handle_t *h)
{
	return starpu_task_submit(make_task(cl, arg, n, h));
}

/* Makes t wait for the application to notify tag gate. */
static void gate_task(struct starpu_task *t, starpu_tag_t gate)
{
	t->use_tag = 1;
	t->tag_id = gate + 1;
	starpu_tag_declare_deps(gate + 1, 1, gate);
}

/* Waits up to ms for *flag to become nonzero. */
static int wait_flag(atomic_int *flag, long ms)
{
	for (long i = 0; i < ms && !atomic_load(flag); i++)
		vtest_sleep_ms(1);
	return atomic_load(flag);
}

/* ---- SCRATCH ------------------------------------------------------------- */

#define SCRATCH_N 1024

static atomic_int scratch_violations;

/* buffers[0]: the task's output (RW), buffers[1]: scratch space. */
static void scratch_cpu(void *buffers[], void *cl_arg)
{
	int id = (int) (intptr_t) cl_arg;
	int *out = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	int *tmp = (int *) STARPU_VECTOR_GET_PTR(buffers[1]);
	if (STARPU_VECTOR_GET_NX(buffers[1]) != SCRATCH_N || !tmp || tmp == out)
	{
		atomic_fetch_add(&scratch_violations, 1);
		return;
	}
	for (int i = 0; i < SCRATCH_N; i++)
		tmp[i] = id * 7 + i;
	vtest_sleep_ms(2);	/* another task sharing tmp would overwrite it now */
	for (int i = 0; i < SCRATCH_N; i++)
	{
		if (tmp[i] != id * 7 + i)
		{
			atomic_fetch_add(&scratch_violations, 1);
			break;
		}
		out[i] = tmp[i] + 1;
	}
}

static struct starpu_codelet scratch_cl = {
	.cpu_funcs = { scratch_cpu },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_SCRATCH },
	.name = "scratch",
};

static void test_scratch(void)
{
	enum { NT = 16 };
	static int out[NT][SCRATCH_N];
	starpu_data_handle_t ho[NT], tmp;
	atomic_store(&scratch_violations, 0);
	/* The usual way: a handle with no home, only a shape. */
	starpu_vector_data_register(&tmp, -1, 0, SCRATCH_N, sizeof(int));
	for (int t = 0; t < NT; t++)
	{
		starpu_vector_data_register(&ho[t], STARPU_MAIN_RAM, (uintptr_t) out[t], SCRATCH_N, sizeof(int));
		starpu_data_handle_t h[2] = { ho[t], tmp };
		CU_ASSERT_EQUAL_FATAL(submit(&scratch_cl, (void *) (intptr_t) t, 2, h), 0);
	}
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&scratch_violations), 0);
	/* The scratch handle itself was never given a buffer: nothing moved. */
	int allocated = 1;
	starpu_data_query_status(tmp, STARPU_MAIN_RAM, &allocated, NULL, NULL);
	CU_ASSERT_EQUAL(allocated, 0);
	for (int t = 0; t < NT; t++)
		starpu_data_unregister(ho[t]);
	starpu_data_unregister(tmp);
	int bad = 0;
	for (int t = 0; t < NT; t++)
		for (int i = 0; i < SCRATCH_N; i++)
			bad += out[t][i] != t * 7 + i + 1;
	CU_ASSERT_EQUAL(bad, 0);
}

/* ---- REDUX: dot product ----------------------------------------------------- */

static void long_zero_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) = 0;
}

static void long_add_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) += *(long *) STARPU_VARIABLE_GET_PTR(buffers[1]);
}

static struct starpu_codelet long_zero_cl = {
	.cpu_funcs = { long_zero_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "zero",
};
static struct starpu_codelet long_add_cl = {
	.cpu_funcs = { long_add_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "add",
};

static atomic_int dot_running, dot_max_running;

static void dot_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	int running = atomic_fetch_add(&dot_running, 1) + 1;
	int seen = atomic_load(&dot_max_running);
	while (running > seen && !atomic_compare_exchange_weak(&dot_max_running, &seen, running))
		;
	const int *x = (const int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	const int *y = (const int *) STARPU_VECTOR_GET_PTR(buffers[1]);
	long *dot = (long *) STARPU_VARIABLE_GET_PTR(buffers[2]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	long s = 0;
	for (unsigned i = 0; i < n; i++)
		s += (long) x[i] * y[i];
	vtest_sleep_ms(1);	/* let contributors overlap */
	*dot += s;
	atomic_fetch_sub(&dot_running, 1);
}

static struct starpu_codelet dot_cl = {
	.cpu_funcs = { dot_cpu }, .nbuffers = 3, .modes = { STARPU_R, STARPU_R, STARPU_REDUX }, .name = "dot",
};

static void double_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) *= 2;
}

static struct starpu_codelet double_cl = {
	.cpu_funcs = { double_cpu }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "double",
};

static void test_redux_dot(void)
{
	enum { NB = 32, BS = 500 };
	static int x[NB * BS], y[NB * BS];
	unsigned seed = 12345;
	for (int i = 0; i < NB * BS; i++)
	{
		seed = seed * 1103515245u + 12345u;
		x[i] = (int) (seed >> 16) % 201 - 100;
		seed = seed * 1103515245u + 12345u;
		y[i] = (int) (seed >> 16) % 201 - 100;
	}
	long expect = 0;
	for (int i = 0; i < NB * BS; i++)
		expect += (long) x[i] * y[i];

	long dot = 17;	/* contributions add to the initial value */
	starpu_data_handle_t hx[NB], hy[NB], hd;
	starpu_variable_data_register(&hd, STARPU_MAIN_RAM, (uintptr_t) &dot, sizeof(dot));
	starpu_data_set_reduction_methods(hd, &long_add_cl, &long_zero_cl);
	for (int b = 0; b < NB; b++)
	{
		starpu_vector_data_register(&hx[b], STARPU_MAIN_RAM, (uintptr_t) &x[b * BS], BS, sizeof(int));
		starpu_vector_data_register(&hy[b], STARPU_MAIN_RAM, (uintptr_t) &y[b * BS], BS, sizeof(int));
	}
	atomic_store(&dot_max_running, 0);
	/* Two reduction phases separated by an ordinary RW access. */
	for (int b = 0; b < NB; b++)
	{
		starpu_data_handle_t h[3] = { hx[b], hy[b], hd };
		CU_ASSERT_EQUAL_FATAL(submit(&dot_cl, NULL, 3, h), 0);
	}
	CU_ASSERT_EQUAL_FATAL(submit(&double_cl, NULL, 1, &hd), 0);
	for (int b = 0; b < NB; b++)
	{
		starpu_data_handle_t h[3] = { hx[b], hy[b], hd };
		CU_ASSERT_EQUAL_FATAL(submit(&dot_cl, NULL, 3, h), 0);
	}
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(hd, STARPU_R), 0);
	CU_ASSERT_EQUAL(dot, 2 * (17 + expect) + expect);
	starpu_data_release(hd);
	/* Contributors run in parallel (one contribution per worker). */
	CU_ASSERT(atomic_load(&dot_max_running) >= 2);
	for (int b = 0; b < NB; b++)
	{
		starpu_data_unregister(hx[b]);
		starpu_data_unregister(hy[b]);
	}
	starpu_data_unregister(hd);
}

/* ---- REDUX: histogram ----------------------------------------------------- */

#define NBINS 16

static void hist_zero_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	memset((void *) STARPU_VECTOR_GET_PTR(buffers[0]), 0, NBINS * sizeof(long));
}

static void hist_add_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	long *a = (long *) STARPU_VECTOR_GET_PTR(buffers[0]);
	const long *b = (const long *) STARPU_VECTOR_GET_PTR(buffers[1]);
	for (int i = 0; i < NBINS; i++)
		a[i] += b[i];
}

static void hist_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	const unsigned *v = (const unsigned *) STARPU_VECTOR_GET_PTR(buffers[0]);
	long *bins = (long *) STARPU_VECTOR_GET_PTR(buffers[1]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		bins[v[i] % NBINS]++;
}

static struct starpu_codelet hist_zero_cl = {
	.cpu_funcs = { hist_zero_cpu }, .nbuffers = 1, .modes = { STARPU_W },
};
static struct starpu_codelet hist_add_cl = {
	.cpu_funcs = { hist_add_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R },
};
static struct starpu_codelet hist_cl = {
	.cpu_funcs = { hist_cpu }, .nbuffers = 2, .modes = { STARPU_R, STARPU_REDUX }, .name = "histogram",
};

static void test_redux_histogram(void)
{
	enum { NB = 40, BS = 997 };
	static unsigned values[NB * BS];
	long bins[NBINS] = { 0 }, expect[NBINS] = { 0 };
	unsigned seed = 7;
	for (int i = 0; i < NB * BS; i++)
	{
		seed = seed * 1664525u + 1013904223u;
		values[i] = seed >> 8;
		expect[values[i] % NBINS]++;
	}
	starpu_data_handle_t hv[NB], hb;
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) bins, NBINS, sizeof(long));
	starpu_data_set_reduction_methods(hb, &hist_add_cl, &hist_zero_cl);
	for (int b = 0; b < NB; b++)
	{
		starpu_vector_data_register(&hv[b], STARPU_MAIN_RAM, (uintptr_t) &values[b * BS], BS, sizeof(unsigned));
		starpu_data_handle_t h[2] = { hv[b], hb };
		CU_ASSERT_EQUAL_FATAL(submit(&hist_cl, NULL, 2, h), 0);
	}
	for (int b = 0; b < NB; b++)
		starpu_data_unregister(hv[b]);
	/* Unregistration folds the pending contributions. */
	starpu_data_unregister(hb);
	CU_ASSERT_EQUAL(memcmp(bins, expect, sizeof(bins)), 0);
}

/* ---- COMMUTE ------------------------------------------------------------ */

static atomic_int inside, commute_violations, commute_done;

static void commute_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	if (atomic_fetch_add(&inside, 1) != 0)
		atomic_fetch_add(&commute_violations, 1);
	long *v = (long *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	long old = *v;
	vtest_sleep_ms(1);	/* a concurrent writer would lose an update */
	*v = old + 1;
	atomic_fetch_sub(&inside, 1);
	atomic_fetch_add(&commute_done, 1);
}

static struct starpu_codelet commute_cl = {
	.cpu_funcs = { commute_cpu }, .nbuffers = 1, .modes = { STARPU_RW | STARPU_COMMUTE }, .name = "commute",
};

static long seen_by_reader;

static void read_long_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	seen_by_reader = *(long *) STARPU_VARIABLE_GET_PTR(buffers[0]);
}

static struct starpu_codelet read_long_cl = {
	.cpu_funcs = { read_long_cpu }, .nbuffers = 1, .modes = { STARPU_R }, .name = "read",
};

static void set_long_cpu(void *buffers[], void *cl_arg)
{
	vtest_sleep_ms(5);	/* commuters started early would see the old value */
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) = (long) (intptr_t) cl_arg;
}

static struct starpu_codelet set_long_cl = {
	.cpu_funcs = { set_long_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "set",
};

static void test_commute_exclusion_and_order(void)
{
	enum { N = 40 };
	long v = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	atomic_store(&commute_violations, 0);
	/* A plain write before the group, a read after it. */
	CU_ASSERT_EQUAL_FATAL(submit(&set_long_cl, (void *) (intptr_t) 1000, 1, &h), 0);
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL_FATAL(submit(&commute_cl, NULL, 1, &h), 0);
	seen_by_reader = -1;
	CU_ASSERT_EQUAL_FATAL(submit(&read_long_cl, NULL, 1, &h), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&commute_violations), 0);
	CU_ASSERT_EQUAL(seen_by_reader, 1000 + N);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(v, 1000 + N);
}

static void test_commute_reorders(void)
{
	/* A commuting writer that cannot start yet does not hold back the
	 * next one (a plain RW would). */
	long v = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	atomic_store(&commute_done, 0);
	const starpu_tag_t gate = 0x5100;
	struct starpu_task *first = make_task(&commute_cl, NULL, 1, &h);
	gate_task(first, gate);
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(first), 0);
	CU_ASSERT_EQUAL_FATAL(submit(&commute_cl, NULL, 1, &h), 0);
	CU_ASSERT(wait_flag(&commute_done, 5000));
	CU_ASSERT_EQUAL(atomic_load(&commute_done), 1);
	starpu_tag_notify_from_apps(gate);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&commute_done), 2);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(v, 2);
	starpu_tag_remove(gate);
	starpu_tag_remove(gate + 1);
}

/* ---- arbiters ---------------------------------------------------------- */

#define ARB_NH 4
static atomic_int arb_busy[ARB_NH];
static atomic_int arb_violations;

struct arb_arg
{
	int a, b;	/* the two handles the task holds */
};

static void arb_cpu(void *buffers[], void *cl_arg)
{
	struct arb_arg *x = cl_arg;
	if (atomic_exchange(&arb_busy[x->a], 1) || atomic_exchange(&arb_busy[x->b], 1))
		atomic_fetch_add(&arb_violations, 1);
	(*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
	(*(long *) STARPU_VARIABLE_GET_PTR(buffers[1]))++;
	vtest_sleep_ms(1);
	atomic_store(&arb_busy[x->a], 0);
	atomic_store(&arb_busy[x->b], 0);
}

static struct starpu_codelet arb_cl = {
	.cpu_funcs = { arb_cpu }, .nbuffers = 2,
	.modes = { STARPU_RW | STARPU_COMMUTE, STARPU_RW | STARPU_COMMUTE }, .name = "arbitered",
};

static void test_arbiter_exclusion(void)
{
	enum { NT = 60 };
	long v[ARB_NH] = { 0 }, expect[ARB_NH] = { 0 };
	static struct arb_arg args[NT];
	starpu_arbiter_t arb = starpu_arbiter_create();
	CU_ASSERT_PTR_NOT_NULL_FATAL(arb);
	starpu_data_handle_t h[ARB_NH];
	for (int i = 0; i < ARB_NH; i++)
	{
		starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) &v[i], sizeof(long));
		starpu_data_assign_arbiter(h[i], arb);
		atomic_store(&arb_busy[i], 0);
	}
	atomic_store(&arb_violations, 0);
	unsigned seed = 99;
	for (int t = 0; t < NT; t++)
	{
		seed = seed * 1103515245u + 12345u;
		int a = (int) (seed >> 16) % ARB_NH;
		int b = (a + 1 + (int) (seed >> 20) % (ARB_NH - 1)) % ARB_NH;
		args[t] = (struct arb_arg) { a, b };
		expect[a]++;
		expect[b]++;
		starpu_data_handle_t hh[2] = { h[a], h[b] };
		CU_ASSERT_EQUAL_FATAL(submit(&arb_cl, &args[t], 2, hh), 0);
	}
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&arb_violations), 0);
	for (int i = 0; i < ARB_NH; i++)
		starpu_data_unregister(h[i]);
	starpu_arbiter_destroy(arb);
	CU_ASSERT_EQUAL(memcmp(v, expect, sizeof(v)), 0);
}

/* ---- LOCALITY ------------------------------------------------------------ */

static void test_locality_accepted(void)
{
	static struct starpu_codelet cl = {
		.cpu_funcs = { commute_cpu }, .nbuffers = 1, .modes = { STARPU_RW | STARPU_LOCALITY },
	};
	long v = 5;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	CU_ASSERT_EQUAL(submit(&cl, NULL, 1, &h), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(v, 6);
}

/* ---- acquisitions ------------------------------------------------------ */

static atomic_int cb_called;

static void acquired_cb(void *arg)
{
	atomic_store(&cb_called, 1 + (int) (intptr_t) arg);
}

static void test_acquire_cb(void)
{
	long v = 3;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	/* The callback waits for the pending writer. */
	const starpu_tag_t gate = 0x5200;
	struct starpu_task *t = make_task(&set_long_cl, (void *) (intptr_t) 8, 1, &h);
	gate_task(t, gate);
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	atomic_store(&cb_called, 0);
	CU_ASSERT_EQUAL(starpu_data_acquire_cb(h, STARPU_R, acquired_cb, (void *) (intptr_t) 41), 0);
	vtest_sleep_ms(20);
	CU_ASSERT_EQUAL(atomic_load(&cb_called), 0);
	starpu_tag_notify_from_apps(gate);
	CU_ASSERT(wait_flag(&cb_called, 5000));
	CU_ASSERT_EQUAL(atomic_load(&cb_called), 42);
	CU_ASSERT_EQUAL(v, 8);
	starpu_data_release(h);

	/* Without sequential consistency, the callback does not wait. */
	t = make_task(&set_long_cl, (void *) (intptr_t) 9, 1, &h);
	gate_task(t, gate + 10);
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	atomic_store(&cb_called, 0);
	CU_ASSERT_EQUAL(starpu_data_acquire_cb_sequential_consistency(h, STARPU_R, acquired_cb, NULL, 0), 0);
	CU_ASSERT(wait_flag(&cb_called, 5000));
	CU_ASSERT_EQUAL(v, 8);
	starpu_data_release(h);
	starpu_tag_notify_from_apps(gate + 10);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(v, 9);

	/* On a node, through the macro. */
	atomic_store(&cb_called, 0);
	CU_ASSERT_EQUAL(starpu_data_acquire_on_node_cb(h, STARPU_MAIN_RAM, STARPU_RW, acquired_cb, NULL), 0);
	CU_ASSERT(wait_flag(&cb_called, 5000));
	v = 10;
	starpu_data_release_on_node(h, STARPU_MAIN_RAM);
	STARPU_DATA_ACQUIRE_CB(h, STARPU_RW, v += 1);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT_EQUAL(v, 11);
	starpu_data_release(h);
	starpu_data_unregister(h);
	for (starpu_tag_t g = gate; g <= gate + 11; g++)
		starpu_tag_remove(g);
}

static atomic_int hold_started;

static void hold_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	atomic_store(&hold_started, 1);
	vtest_sleep_ms((long) (intptr_t) cl_arg);
}

static struct starpu_codelet hold_cl = {
	.cpu_funcs = { hold_cpu }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "hold",
};

static void test_acquire_try(void)
{
	long v = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	/* Free: granted at once. */
	CU_ASSERT_EQUAL(starpu_data_acquire_try(h, STARPU_RW), 0);
	starpu_data_release(h);
	/* A task holding it: -EAGAIN, for every node form. */
	atomic_store(&hold_started, 0);
	CU_ASSERT_EQUAL_FATAL(submit(&hold_cl, (void *) (intptr_t) 100, 1, &h), 0);
	CU_ASSERT(wait_flag(&hold_started, 5000));
	CU_ASSERT_EQUAL(starpu_data_acquire_try(h, STARPU_R), -EAGAIN);
	CU_ASSERT_EQUAL(starpu_data_acquire_on_node_try(h, STARPU_MAIN_RAM, STARPU_R), -EAGAIN);
	starpu_task_wait_for_all();
	/* A pending (not yet running) task: a try would jump the queue. */
	const starpu_tag_t gate = 0x5300;
	struct starpu_task *t = make_task(&hold_cl, (void *) (intptr_t) 1, 1, &h);
	gate_task(t, gate);
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	CU_ASSERT_EQUAL(starpu_data_acquire_try(h, STARPU_R), -EAGAIN);
	starpu_tag_notify_from_apps(gate);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(starpu_data_acquire_on_node_try(h, STARPU_MAIN_RAM, STARPU_R), 0);
	starpu_data_release_on_node(h, STARPU_MAIN_RAM);
	starpu_data_unregister(h);
	starpu_tag_remove(gate);
	starpu_tag_remove(gate + 1);
}

static void test_acquire_no_node(void)
{
	/* An acquisition that moves nothing: the data has no buffer and gets
	 * none. */
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, -1, 0, 1000, sizeof(double));
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire_on_node(h, STARPU_ACQUIRE_NO_NODE, STARPU_RW), 0);
	int allocated = 1;
	starpu_data_query_status(h, STARPU_MAIN_RAM, &allocated, NULL, NULL);
	CU_ASSERT_EQUAL(allocated, 0);
	starpu_data_release_on_node(h, STARPU_ACQUIRE_NO_NODE);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire_on_node(h, STARPU_ACQUIRE_NO_NODE_LOCK_ALL, STARPU_R), 0);
	starpu_data_release_on_node(h, STARPU_ACQUIRE_NO_NODE_LOCK_ALL);
	/* A W acquisition on RAM allocates it. */
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_W), 0);
	double *p = (double *) starpu_vector_get_local_ptr(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p[999] = 2.5;
	starpu_data_release(h);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT_EQUAL(((double *) starpu_vector_get_local_ptr(h))[999], 2.5);
	starpu_data_release(h);
	starpu_data_unregister(h);
}

/* Blocking calls from a codelet or a callback fail with -EDEADLK. */
static int acquire_in_task, acquire_in_callback;
static starpu_data_handle_t deadlock_other;

static void try_block_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	acquire_in_task = starpu_data_acquire(deadlock_other, STARPU_R);
}

static void try_block_callback(void *arg)
{
	(void) arg;
	acquire_in_callback = starpu_data_acquire(deadlock_other, STARPU_R);
}

static struct starpu_codelet try_block_cl = {
	.cpu_funcs = { try_block_cpu }, .nbuffers = 1, .modes = { STARPU_RW },
};

static void test_acquire_deadlock(void)
{
	long a = 0, b = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &a, sizeof(a));
	starpu_variable_data_register(&deadlock_other, STARPU_MAIN_RAM, (uintptr_t) &b, sizeof(b));
	acquire_in_task = acquire_in_callback = 12345;
	struct starpu_task *t = make_task(&try_block_cl, NULL, 1, &h);
	t->callback_func = try_block_callback;
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(acquire_in_task, -EDEADLK);
	CU_ASSERT_EQUAL(acquire_in_callback, -EDEADLK);
	/* Nothing was taken: the application can still acquire it. */
	CU_ASSERT_EQUAL(starpu_data_acquire(deadlock_other, STARPU_RW), 0);
	starpu_data_release(deadlock_other);
	starpu_data_unregister(h);
	starpu_data_unregister(deadlock_other);
}

static void test_default_sequential_consistency(void)
{
	unsigned old = starpu_data_get_default_sequential_consistency_flag();
	starpu_data_set_default_sequential_consistency_flag(0);
	long v = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	starpu_data_set_default_sequential_consistency_flag(old);
	CU_ASSERT_EQUAL(starpu_data_get_sequential_consistency_flag(h), 0);
	/* Without implicit dependencies a later task does not wait for an
	 * earlier one that cannot start. */
	const starpu_tag_t gate = 0x5400;
	struct starpu_task *t = make_task(&set_long_cl, (void *) (intptr_t) 1, 1, &h);
	gate_task(t, gate);
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	atomic_store(&commute_done, 0);
	CU_ASSERT_EQUAL_FATAL(submit(&commute_cl, NULL, 1, &h), 0);
	CU_ASSERT(wait_flag(&commute_done, 5000));
	starpu_tag_notify_from_apps(gate);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(v, 1);
	starpu_data_unregister(h);
	starpu_tag_remove(gate);
	starpu_tag_remove(gate + 1);
}

static const struct vtest_case access_cases[] =
{
	{ "scratch", test_scratch },
	{ "redux_dot", test_redux_dot },
	{ "redux_histogram", test_redux_histogram },
	{ "commute_exclusion_and_order", test_commute_exclusion_and_order },
	{ "commute_reorders", test_commute_reorders },
	{ "arbiter_exclusion", test_arbiter_exclusion },
	{ "locality_accepted", test_locality_accepted },
	{ "acquire_cb", test_acquire_cb },
	{ "acquire_try", test_acquire_try },
	{ "acquire_no_node", test_acquire_no_node },
	{ "acquire_deadlock", test_acquire_deadlock },
	{ "default_sequential_consistency", test_default_sequential_consistency },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "access", suite_init, vtest_stop, access_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
