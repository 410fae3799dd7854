/* test_resubmit: submitting a task again as soon as StarPU 1.3 allows it.
 *
 * StarPU terminates a task in this order: its data is released, then its
 * tag and its successors (they may start), then its callback runs; the task
 * counts as finished for starpu_task_wait once the callback returned. A
 * task may be submitted again from its own callback, from the callback of
 * a task that depended on it (the "subgraph repeat" pattern), or by a
 * thread that waited for its tag. Each case checks the count of runs, that
 * every submission waits for the right things, and (under ASan) that
 * nothing is touched after being freed. Each case starts its own runtime on
 * two CPU workers.
 */
#include <starpu.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vtest.h"

static atomic_int runs;

static void count_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	atomic_fetch_add(&runs, 1);
}

static struct starpu_codelet count_cl =
{
	.cpu_funcs = { count_cpu },
	.nbuffers = 0,
	.name = "count",
};

/* Adds one to a variable: tasks on it are ordered by implicit deps. */
static void incr_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	int *x = (int *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	(*x)++;
	atomic_fetch_add(&runs, 1);
}

static struct starpu_codelet incr_cl =
{
	.cpu_funcs = { incr_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "incr",
};

static int start(void)
{
	atomic_store(&runs, 0);
	return vtest_start_cpus(2);
}

/* ---- from its own callback ------------------------------------------- */

#define ROUNDS 20
static atomic_int cb_rounds;
static atomic_int resubmit_errors;

static void resubmit_self(void *arg)
{
	struct starpu_task *task = arg;
	if (atomic_fetch_add(&cb_rounds, 1) + 1 < ROUNDS && starpu_task_submit(task) != 0)
		atomic_fetch_add(&resubmit_errors, 1);
}

static void test_own_callback(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);

	/* A created task kept by the application. */
	atomic_store(&cb_rounds, 0);
	atomic_store(&resubmit_errors, 0);
	struct starpu_task *task = starpu_task_create();
	task->cl = &count_cl;
	task->destroy = 0;
	task->callback_func = resubmit_self;
	task->callback_arg = task;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&resubmit_errors), 0);
	CU_ASSERT_EQUAL(atomic_load(&runs), ROUNDS);
	CU_ASSERT_EQUAL(atomic_load(&cb_rounds), ROUNDS);
	starpu_task_destroy(task);

	/* A created task the runtime frees after its last run. */
	atomic_store(&runs, 0);
	atomic_store(&cb_rounds, 0);
	task = starpu_task_create();
	task->cl = &count_cl;
	task->callback_func = resubmit_self;
	task->callback_arg = task;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&resubmit_errors), 0);
	CU_ASSERT_EQUAL(atomic_load(&runs), ROUNDS);

	/* A task the application waits for: the wait returns after the last
	 * submission's callback. */
	atomic_store(&runs, 0);
	atomic_store(&cb_rounds, 0);
	struct starpu_task stack_task;
	starpu_task_init(&stack_task);
	stack_task.cl = &count_cl;
	stack_task.detach = 0;
	stack_task.callback_func = resubmit_self;
	stack_task.callback_arg = &stack_task;
	CU_ASSERT_EQUAL(starpu_task_submit(&stack_task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(&stack_task), 0);
	CU_ASSERT_EQUAL(atomic_load(&cb_rounds), ROUNDS);
	CU_ASSERT_EQUAL(atomic_load(&runs), ROUNDS);
	CU_ASSERT_EQUAL(atomic_load(&resubmit_errors), 0);
	starpu_task_clean(&stack_task);

	starpu_shutdown();
}

/* ---- from a successor's callback ------------------------------------- */

/* A, then B and C (explicit dependencies on A), then D (implicit data
 * dependency on B and C through x); D's callback submits the four again. */
static struct starpu_task sub_a, sub_b, sub_c, sub_d;
static atomic_int sub_loops;
static int sub_x;

static void repeat_subgraph(void *arg)
{
	(void) arg;
	if (atomic_fetch_add(&sub_loops, 1) + 1 >= ROUNDS)
		return;
	if (starpu_task_submit(&sub_a) || starpu_task_submit(&sub_b) || starpu_task_submit(&sub_c) ||
	    starpu_task_submit(&sub_d))
		atomic_fetch_add(&resubmit_errors, 1);
}

static void test_successor_callback(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	atomic_store(&sub_loops, 0);
	atomic_store(&resubmit_errors, 0);
	sub_x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &sub_x, sizeof(sub_x));
	struct starpu_task *tasks[] = { &sub_a, &sub_b, &sub_c, &sub_d };
	for (int i = 0; i < 4; i++)
	{
		starpu_task_init(tasks[i]);
		tasks[i]->cl = &incr_cl;
		tasks[i]->handles[0] = h;
	}
	/* B and C do not touch x's order among themselves: A alone orders
	 * them, by explicit dependencies (declared once, they stay). */
	sub_a.cl = &count_cl;
	sub_b.cl = &count_cl;
	sub_c.cl = &count_cl;
	starpu_task_declare_deps_array(&sub_b, 1, (struct starpu_task *[]) { &sub_a });
	starpu_task_declare_deps_array(&sub_c, 1, (struct starpu_task *[]) { &sub_a });
	starpu_task_declare_deps_array(&sub_d, 2, (struct starpu_task *[]) { &sub_b, &sub_c });
	sub_d.callback_func = repeat_subgraph;
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(starpu_task_submit(tasks[i]), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&resubmit_errors), 0);
	CU_ASSERT_EQUAL(atomic_load(&sub_loops), ROUNDS);
	CU_ASSERT_EQUAL(atomic_load(&runs), 4 * ROUNDS);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(sub_x, ROUNDS);
	for (int i = 0; i < 4; i++)
		starpu_task_clean(tasks[i]);
	starpu_shutdown();
}

/* B's callback submits A again while A may still be in its own callback. */
static struct starpu_task *pp_a, *pp_b;
static atomic_int pp_rounds;

static void pp_b_callback(void *arg)
{
	(void) arg;
	if (atomic_fetch_add(&pp_rounds, 1) + 1 >= ROUNDS)
		return;
	starpu_task_declare_deps_array(pp_b, 1, &pp_a);
	if (starpu_task_submit(pp_a) || starpu_task_submit(pp_b))
		atomic_fetch_add(&resubmit_errors, 1);
}

static void pp_a_callback(void *arg)
{
	(void) arg;
	vtest_sleep_ms(1);	/* give B the time to run and resubmit A */
}

static void test_successor_callback_overlap(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	atomic_store(&pp_rounds, 0);
	atomic_store(&resubmit_errors, 0);
	pp_a = starpu_task_create();
	pp_b = starpu_task_create();
	pp_a->cl = pp_b->cl = &count_cl;
	pp_a->destroy = pp_b->destroy = 0;
	pp_a->callback_func = pp_a_callback;
	pp_b->callback_func = pp_b_callback;
	starpu_task_declare_deps_array(pp_b, 1, &pp_a);
	CU_ASSERT_EQUAL(starpu_task_submit(pp_b), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(pp_a), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&resubmit_errors), 0);
	CU_ASSERT_EQUAL(atomic_load(&pp_rounds), ROUNDS);
	CU_ASSERT_EQUAL(atomic_load(&runs), 2 * ROUNDS);
	starpu_task_destroy(pp_a);
	starpu_task_destroy(pp_b);
	starpu_shutdown();
}

/* ---- after waiting for its tag --------------------------------------- */

static atomic_int slow_cb_done;

static void slow_callback(void *arg)
{
	(void) arg;
	vtest_sleep_ms(2);
	atomic_fetch_add(&slow_cb_done, 1);
}

static void test_after_tag_wait(void)
{
	CU_ASSERT_EQUAL_FATAL(start(), 0);
	atomic_store(&slow_cb_done, 0);
	int x = 0;
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
		/* The tag is done before the callback: the task is submitted
		 * again while its previous callback may still run. */
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
		CU_ASSERT_EQUAL(starpu_tag_wait(0x7e57), 0);
		CU_ASSERT_EQUAL(atomic_load(&runs), i + 1);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&slow_cb_done), ROUNDS);
	/* starpu_task_wait on a waited-for task, submitted again the same way. */
	task->detach = 0;
	for (int i = 0; i < 3; i++)
	{
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
		CU_ASSERT_EQUAL(starpu_tag_wait(0x7e57), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait(task), 0);
	CU_ASSERT_EQUAL(atomic_load(&slow_cb_done), ROUNDS + 3);
	starpu_task_destroy(task);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, ROUNDS + 3);
	starpu_shutdown();
}

/* ---- the order of termination ---------------------------------------- */

/* A's callback holds on until its explicit successor B, the next task on
 * its data C and the application's tag wait have all gone ahead (or a
 * second passed). */
static atomic_int b_ran, c_ran, tag_seen, order_ok;

static void b_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	atomic_store(&b_ran, 1);
}

static void c_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	atomic_store(&c_ran, 1);
}

static struct starpu_codelet b_cl = { .cpu_funcs = { b_cpu }, .nbuffers = 0, .name = "B" };
static struct starpu_codelet c_cl = { .cpu_funcs = { c_cpu }, .nbuffers = 1, .modes = { STARPU_R }, .name = "C" };

static void hold_callback(void *arg)
{
	(void) arg;
	for (int i = 0; i < 1000 && !(atomic_load(&b_ran) && atomic_load(&c_ran) && atomic_load(&tag_seen)); i++)
		vtest_sleep_ms(1);
	atomic_store(&order_ok, atomic_load(&b_ran) && atomic_load(&c_ran) && atomic_load(&tag_seen));
}

static void test_termination_order(void)
{
	/* Three workers: A's callback holds one, B and C need the others. */
	atomic_store(&runs, 0);
	CU_ASSERT_EQUAL_FATAL(vtest_start_cpus(3), 0);
	atomic_store(&b_ran, 0);
	atomic_store(&c_ran, 0);
	atomic_store(&tag_seen, 0);
	atomic_store(&order_ok, 0);
	int x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	struct starpu_task *a = starpu_task_create(), *b = starpu_task_create();
	a->cl = &incr_cl;
	a->handles[0] = h;
	a->use_tag = 1;
	a->tag_id = 0x0de4;
	a->detach = 0;
	a->callback_func = hold_callback;
	b->cl = &b_cl;
	starpu_task_declare_deps_array(b, 1, &a);
	CU_ASSERT_EQUAL(starpu_task_submit(a), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(b), 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&c_cl, STARPU_R, h, 0), 0);
	CU_ASSERT_EQUAL(starpu_tag_wait(0x0de4), 0);
	atomic_store(&tag_seen, 1);
	/* starpu_task_wait returns once the callback is over. */
	CU_ASSERT_EQUAL(starpu_task_wait(a), 0);
	CU_ASSERT_EQUAL(atomic_load(&order_ok), 1);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_data_unregister(h);
	starpu_shutdown();
}

static const struct vtest_case resubmit_cases[] =
{
	{ "own_callback", test_own_callback },
	{ "successor_callback", test_successor_callback },
	{ "successor_callback_overlap", test_successor_callback_overlap },
	{ "after_tag_wait", test_after_tag_wait },
	{ "termination_order", test_termination_order },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "resubmit", NULL, NULL, resubmit_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
