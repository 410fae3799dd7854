/* test_bound_deps.c — starpu_bound with dependencies (starpu_bound_start
 * with deps=1, and prio): graphs small enough to solve by hand, with exact
 * lengths from a cost-function model, on 2 CPU workers. Each expected
 * value is worked out in the comment above its check; the bound with
 * dependencies is at least the one without, and the integer one is the
 * shortest schedule, which a real run (kernels sleeping their length)
 * cannot beat.
 */
#include <starpu.h>
#include <starpu_bound.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vtest.h"

static int start_runtime(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.sched_policy_name = "eager";
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf) == 0 ? 0 : -1;
}

static int stop_runtime(void)
{
	starpu_task_wait_for_all();
	starpu_shutdown();
	return 0;
}

static double cost(struct starpu_task *task, unsigned nimpl)
{
	(void) nimpl;
	return (double) (intptr_t) task->cl_arg;	/* µs */
}

static int sleeping;	/* kernels sleep their length (the real-run case) */

static void kernel(void *b[], void *arg)
{
	(void) b;
	if (sleeping)
		usleep((useconds_t) (intptr_t) arg);
}

static struct starpu_perfmodel model = { .type = STARPU_COMMON, .cost_function = cost, .symbol = "bound_deps_len" };
static struct starpu_codelet cl0 = { .cpu_funcs = { kernel }, .nbuffers = 0, .model = &model, .name = "len" };
static struct starpu_codelet cl1 = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &model, .name = "len_rw" };

static struct starpu_task *task_of(int us, starpu_data_handle_t h)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = h ? &cl1 : &cl0;
	if (h)
		t->handles[0] = h;
	t->cl_arg = (void *) (intptr_t) us;
	return t;
}

static void submit_rw(int us, starpu_data_handle_t h)
{
	CU_ASSERT_EQUAL(starpu_task_submit(task_of(us, h)), 0);
}

static void compute(double *res, double *ires)
{
	*res = *ires = -7;
	starpu_bound_compute(res, ires, 1);
}

static char *print_to_string(void (*print)(FILE *))
{
	static char buf[65536];
	FILE *f = tmpfile();
	if (!f)
		return NULL;
	print(f);
	rewind(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* A chain on one handle, 1 ms -> 3 ms -> 1 ms, and an independent 3 ms
 * task: without dependencies the area, (1+3+1+3)/2 = 4 ms; with them the
 * chain, 5 ms (the 3 ms task beside it), whole tasks too. */
static void chain(int deps, double *res, double *ires)
{
	int x = 0, y = 0;
	starpu_data_handle_t hx, hy;
	starpu_variable_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	starpu_variable_data_register(&hy, STARPU_MAIN_RAM, (uintptr_t) &y, sizeof(y));
	starpu_bound_start(deps, 0);
	submit_rw(1000, hx);
	submit_rw(3000, hx);
	submit_rw(1000, hx);
	submit_rw(3000, hy);
	starpu_task_wait_for_all();
	starpu_bound_stop();
	compute(res, ires);
	starpu_data_unregister(hx);
	starpu_data_unregister(hy);
}

static void test_chain(void)
{
	double res, ires, dres, dires;
	chain(0, &res, &ires);
	CU_ASSERT_DOUBLE_EQUAL(res, 4.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(ires, 4.0, 1e-6);
	chain(1, &dres, &dires);
	CU_ASSERT_DOUBLE_EQUAL(dres, 5.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(dires, 5.0, 1e-6);
	CU_ASSERT(dres >= res);

	/* the outputs show the graph: two edges, four tasks */
	char *dot = print_to_string(starpu_bound_print_dot);
	CU_ASSERT(dot && strstr(dot, "strict digraph bounddeps"));
	unsigned arrows = 0, labels = 0;
	for (char *p = dot; p && (p = strstr(p, "->")); p++)
		arrows++;
	for (char *p = dot; p && (p = strstr(p, "label=")); p++)
		labels++;
	CU_ASSERT_EQUAL(arrows, 2);
	CU_ASSERT_EQUAL(labels, 4);
	char *lp = print_to_string(starpu_bound_print_lp);
	CU_ASSERT(lp && strstr(lp, "dep_") && strstr(lp, "order_") && strstr(lp, "Generals"));
	char *mps = print_to_string(starpu_bound_print_mps);
	CU_ASSERT(mps && strstr(mps, "ROWS") && strstr(mps, "dep_") && strstr(mps, "MARKER"));
	FILE *f = tmpfile();
	if (f)
	{
		starpu_bound_print(f, 1);
		rewind(f);
		char line[256];
		CU_ASSERT(fgets(line, sizeof(line), f) && strstr(line, "with dependencies") && strstr(line, "5.0"));
		fclose(f);
	}
}

/* A diamond of explicit task dependencies, top 1 ms, sides 2 and 4 ms,
 * bottom 1 ms: critical path 1+4+1 = 6 ms above the area (8/2 = 4 ms). */
static void test_diamond(void)
{
	starpu_bound_start(1, 0);
	struct starpu_task *top = task_of(1000, NULL), *l = task_of(2000, NULL), *r = task_of(4000, NULL),
			   *bottom = task_of(1000, NULL);
	starpu_task_declare_deps(l, 1, top);
	starpu_task_declare_deps(r, 1, top);
	starpu_task_declare_deps(bottom, 2, l, r);
	/* submitted bottom first: the order of submission does not matter */
	CU_ASSERT_EQUAL(starpu_task_submit(bottom), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(r), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(l), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(top), 0);
	starpu_task_wait_for_all();
	starpu_bound_stop();
	double res, ires;
	compute(&res, &ires);
	CU_ASSERT_DOUBLE_EQUAL(res, 6.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(ires, 6.0, 1e-6);
}

/* Three independent 2 ms tasks on two workers: 3 ms when tasks may be
 * shared, 4 ms with whole tasks on workers (two on one of them). */
static void test_whole_tasks(void)
{
	starpu_bound_start(1, 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(starpu_task_submit(task_of(2000, NULL)), 0);
	starpu_task_wait_for_all();
	starpu_bound_stop();
	double res, ires;
	compute(&res, &ires);
	CU_ASSERT_DOUBLE_EQUAL(res, 3.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(ires, 4.0, 1e-6);
}

/* Tags: 30 waits for 20, 20 for 10 (2 ms each, tasks submitted last
 * first), beside an untagged 1 ms task: the chain, 6 ms. */
static void test_tags(void)
{
	starpu_tag_declare_deps((starpu_tag_t) 0xb020, 1, (starpu_tag_t) 0xb010);
	starpu_tag_declare_deps((starpu_tag_t) 0xb030, 1, (starpu_tag_t) 0xb020);
	starpu_bound_start(1, 0);
	for (int k = 3; k >= 1; k--)
	{
		struct starpu_task *t = task_of(2000, NULL);
		t->use_tag = 1;
		t->tag_id = (starpu_tag_t) (0xb000 + 0x10 * k);
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_submit(task_of(1000, NULL)), 0);
	starpu_task_wait_for_all();
	starpu_bound_stop();
	double res, ires;
	compute(&res, &ires);
	CU_ASSERT_DOUBLE_EQUAL(res, 6.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(ires, 6.0, 1e-6);
	for (int k = 1; k <= 3; k++)
		starpu_tag_remove((starpu_tag_t) (0xb000 + 0x10 * k));
}

/* prio: a chain 1 ms -> 3 ms (priority 0) and an independent 5 ms task of
 * priority -5. Without priorities the 5 ms task starts at 0: 5 ms. With
 * them it starts after both chain tasks started (at 1 ms): 6 ms. */
static void prio_graph(int prio, double *res, double *ires)
{
	int x = 0;
	starpu_data_handle_t hx;
	starpu_variable_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	starpu_bound_start(1, prio);
	submit_rw(1000, hx);
	submit_rw(3000, hx);
	struct starpu_task *low = task_of(5000, NULL);
	low->priority = -5;
	CU_ASSERT_EQUAL(starpu_task_submit(low), 0);
	starpu_task_wait_for_all();
	starpu_bound_stop();
	compute(res, ires);
	starpu_data_unregister(hx);
}

static void test_prio(void)
{
	double res, ires;
	prio_graph(0, &res, &ires);
	CU_ASSERT_DOUBLE_EQUAL(res, 5.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(ires, 5.0, 1e-6);
	prio_graph(1, &res, &ires);
	CU_ASSERT_DOUBLE_EQUAL(res, 6.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(ires, 6.0, 1e-6);
}

/* The dependency on a task that finished before its successor was
 * submitted counts too (the graph does not depend on timing). */
static void test_finished_predecessor(void)
{
	int x = 0;
	starpu_data_handle_t hx;
	starpu_variable_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	starpu_bound_start(1, 0);
	submit_rw(2000, hx);
	starpu_task_wait_for_all();
	submit_rw(2000, hx);
	starpu_task_wait_for_all();
	starpu_bound_stop();
	double res, ires;
	compute(&res, &ires);
	CU_ASSERT_DOUBLE_EQUAL(res, 4.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(ires, 4.0, 1e-6);
	starpu_data_unregister(hx);
}

/* A real run of the chain graph with kernels sleeping their length takes
 * at least the shortest schedule. */
static void test_real_run(void)
{
	sleeping = 1;
	double t0 = starpu_timing_now();
	double res, ires;
	chain(1, &res, &ires);
	double ms = (starpu_timing_now() - t0) / 1000.0;
	sleeping = 0;
	CU_ASSERT_DOUBLE_EQUAL(ires, 5.0, 1e-6);
	CU_ASSERT(ms >= ires);
}

/* No prediction, ever: a history model would become calibrated after ten
 * runs sharing the test home. */
static double no_cost(struct starpu_task *task, unsigned nimpl)
{
	(void) task;
	(void) nimpl;
	return NAN;
}

/* A task without prediction: no bound, said so. */
static void test_no_prediction(void)
{
	static struct starpu_perfmodel empty = { .type = STARPU_COMMON, .cost_function = no_cost, .symbol = "bound_deps_no_prediction" };
	static struct starpu_codelet other = { .cpu_funcs = { kernel }, .nbuffers = 0, .model = &empty };
	starpu_bound_start(1, 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&other, 0), 0);
	starpu_task_wait_for_all();
	starpu_bound_stop();
	double res = 0, ires = 0;
	vtest_capture_stderr_begin();
	starpu_bound_compute(&res, &ires, 1);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT(strstr(msg, "starpu_bound_compute") && strstr(msg, "no performance prediction"));
	CU_ASSERT_DOUBLE_EQUAL(res, -1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ires, -1.0, 1e-9);
}

static const struct vtest_case cases[] = {
	{ "chain", test_chain },
	{ "diamond", test_diamond },
	{ "whole_tasks", test_whole_tasks },
	{ "tags", test_tags },
	{ "prio", test_prio },
	{ "finished_predecessor", test_finished_predecessor },
	{ "real_run", test_real_run },
	{ "no_prediction", test_no_prediction },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "bound_deps", start_runtime, stop_runtime, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
#ifndef STARPU_HAVE_GLPK_H
	return vtest_skip("Vela was built without GLPK (libglpk-dev): no starpu_bound");
#endif
	return vtest_run(argc, argv, suites);
}
