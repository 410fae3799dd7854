/* test_dm: the performance-model policies dm, dmda, dmdar, dmdas.
 *
 * Mapping checks run with paused workers: every task is pushed (and mapped
 * to a worker's queue, which is never stolen from) before any runs, so the
 * per-worker counts are the policy's decisions alone. Models live in a
 * private directory (STARPU_PERF_MODEL_DIR) and are calibrated in the test
 * with starpu_perfmodel_update_history, or by the runs themselves for the
 * forced-calibration case.
 */
#include "vtest.h"

#include <starpu.h>

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NTASKS 40
#define PRIME 1000003u

static char tmpdir[256];
static atomic_uint per_worker[STARPU_NMAXWORKERS];
static atomic_uint per_impl[2];
static atomic_uint runs;

static void reset_counts(void)
{
	for (unsigned w = 0; w < STARPU_NMAXWORKERS; w++)
		atomic_store(&per_worker[w], 0);
	atomic_store(&per_impl[0], 0);
	atomic_store(&per_impl[1], 0);
	atomic_store(&runs, 0);
}

static void busy_us(double us)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double end = ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3 + us;
	do
		clock_gettime(CLOCK_MONOTONIC, &ts);
	while (ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3 < end);
}

static void count(unsigned impl)
{
	int w = starpu_worker_get_id();
	if (w >= 0 && w < STARPU_NMAXWORKERS)
		atomic_fetch_add(&per_worker[w], 1);
	atomic_fetch_add(&per_impl[impl], 1);
	atomic_fetch_add(&runs, 1);
}

static void kernel0(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	count(0);
}

static void kernel1_slow(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	busy_us(1500);
	count(1);
}

static int start(const char *policy, int ncpus)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = policy;
	conf.ncpus = ncpus;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf);
}

/* Submits n tasks of cl (no data) while the workers are paused. */
static void submit_paused(struct starpu_codelet *cl, unsigned n)
{
	starpu_pause();
	for (unsigned i = 0; i < n; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = cl;
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	starpu_resume();
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
}

/* Records samples of length us for cl's impl on the CPU arch (the mean
 * also counts what earlier runs measured). */
static void calibrate(struct starpu_codelet *cl, unsigned impl, double us, unsigned nsamples)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->destroy = 0;
	struct starpu_perfmodel_arch *a = starpu_worker_get_perf_archtype(0, 0);
	for (unsigned i = 0; i < nsamples; i++)
		starpu_perfmodel_update_history(cl->model, t, a, 0, impl, us);
	CU_ASSERT(!isnan(starpu_task_expected_length(t, a, impl)));
	starpu_task_destroy(t);
}

/* ---- balance ---- */

static struct starpu_perfmodel bal_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_dm_balance" };
static struct starpu_codelet bal_cl = { .cpu_funcs = { kernel0 }, .nbuffers = 0, .model = &bal_model, .name = "dm_balance" };
static struct starpu_codelet nomodel_cl = { .cpu_funcs = { kernel0 }, .nbuffers = 0, .name = "dm_nomodel" };

static void check_balanced(unsigned n)
{
	CU_ASSERT_EQUAL(atomic_load(&runs), n);
	unsigned a = atomic_load(&per_worker[0]), b = atomic_load(&per_worker[1]);
	CU_ASSERT_EQUAL(a + b, n);
	CU_ASSERT(a >= n / 2 - 1 && a <= n / 2 + 1);
}

/* Equal calibrated lengths: the expected ends alternate between the two
 * workers, so each gets half. */
static void test_balance_calibrated(void)
{
	static const char *const policies[] = { "dm", "dmda", "dmdas" };
	for (unsigned p = 0; p < 3; p++)
	{
		CU_ASSERT_EQUAL_FATAL(start(policies[p], 2), 0);
		calibrate(&bal_cl, 0, 1000.0, 3);
		reset_counts();
		submit_paused(&bal_cl, NTASKS);
		check_balanced(NTASKS);
		starpu_shutdown();
	}
}

/* No model: lengths are 0, ties go to the shorter queue. */
static void test_balance_no_model(void)
{
	CU_ASSERT_EQUAL_FATAL(start("dm", 2), 0);
	reset_counts();
	submit_paused(&nomodel_cl, NTASKS);
	check_balanced(NTASKS);
	starpu_shutdown();
}

/* ---- workers that cannot run a codelet ---- */

static int not_worker0(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
	(void) task;
	(void) nimpl;
	return workerid != 0;
}

static struct starpu_perfmodel picky_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_dm_picky" };
static struct starpu_codelet picky_cl = { .cpu_funcs = { kernel0 }, .can_execute = not_worker0, .nbuffers = 0, .model = &picky_model, .name = "dm_picky" };

static void test_never_on_incapable_worker(void)
{
	static const char *const policies[] = { "dm", "dmda", "dmdar", "dmdas" };
	for (unsigned p = 0; p < 4; p++)
	{
		CU_ASSERT_EQUAL_FATAL(start(policies[p], 2), 0);
		reset_counts();
		/* Uncalibrated (forced calibration must not pick worker 0
		 * either), then calibrated. */
		submit_paused(&picky_cl, NTASKS);
		calibrate(&picky_cl, 0, 10.0, 3);
		submit_paused(&picky_cl, NTASKS);
		CU_ASSERT_EQUAL(atomic_load(&runs), 2 * NTASKS);
		CU_ASSERT_EQUAL(atomic_load(&per_worker[0]), 0);
		CU_ASSERT_EQUAL(atomic_load(&per_worker[1]), 2 * NTASKS);
		starpu_shutdown();
	}
}

/* ---- forced calibration ---- */

static struct starpu_perfmodel force_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_dm_force" };
static struct starpu_codelet force_cl = { .cpu_funcs = { kernel0, kernel1_slow }, .nbuffers = 0, .model = &force_model, .name = "dm_force" };

/* Implementation 0 is calibrated (fast), 1 is not: dm runs 1 until it has
 * STARPU_CALIBRATE_MINIMUM measurements, then prefers 0, which the
 * measurements show is much faster. A greedy policy would never run 1. */
static void test_forced_calibration(void)
{
	CU_ASSERT_EQUAL_FATAL(start("dm", 1), 0);
	calibrate(&force_cl, 0, 5.0, 3);
	reset_counts();
	for (unsigned i = 0; i < 10; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &force_cl;
		t->synchronous = 1;
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	CU_ASSERT_EQUAL(atomic_load(&runs), 10);
	CU_ASSERT(atomic_load(&per_impl[1]) >= 3);
	CU_ASSERT(atomic_load(&per_impl[1]) <= 5);
	CU_ASSERT(atomic_load(&per_impl[0]) >= 5);

	struct starpu_task *t = starpu_task_create();
	t->cl = &force_cl;
	t->destroy = 0;
	double len1 = starpu_task_expected_length(t, starpu_worker_get_perf_archtype(0, 0), 1);
	CU_ASSERT(!isnan(len1) && len1 > 500.0);
	starpu_task_destroy(t);
	starpu_shutdown();
}

/* ---- dmdas: priority order on one worker ---- */

#define ORDER_TASKS 30
static int order_prio[ORDER_TASKS];
static unsigned order_seen[ORDER_TASKS];
static atomic_uint order_n;

static void order_kernel(void *buffers[], void *arg)
{
	(void) buffers;
	unsigned k = atomic_fetch_add(&order_n, 1);
	if (k < ORDER_TASKS)
		order_seen[k] = (unsigned) (uintptr_t) arg;
}

static struct starpu_codelet order_cl = { .cpu_funcs = { order_kernel }, .nbuffers = 0, .name = "dm_order" };

static void run_order(const char *policy)
{
	CU_ASSERT_EQUAL_FATAL(start(policy, 1), 0);
	atomic_store(&order_n, 0);
	starpu_pause();
	for (unsigned i = 0; i < ORDER_TASKS; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &order_cl;
		t->cl_arg = (void *) (uintptr_t) i;
		order_prio[i] = (int) ((i * 7) % 11) - 5;
		t->priority = order_prio[i];
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	starpu_resume();
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL_FATAL(atomic_load(&order_n), ORDER_TASKS);
	starpu_shutdown();
}

static void test_dmdas_priority_order(void)
{
	run_order("dmdas");
	for (unsigned k = 1; k < ORDER_TASKS; k++)
	{
		unsigned a = order_seen[k - 1], b = order_seen[k];
		CU_ASSERT(order_prio[a] > order_prio[b] || (order_prio[a] == order_prio[b] && a < b));
	}
}

/* dm keeps arrival order: a queue sorted by priority would fail this. */
static void test_dm_fifo_order(void)
{
	run_order("dm");
	for (unsigned k = 0; k < ORDER_TASKS; k++)
		CU_ASSERT_EQUAL(order_seen[k], k);
}

/* ---- a data-dependent graph, checked against a sequential replay ---- */

#define NVARS 4
#define DAG_TASKS 400

static uint64_t vars[NVARS];

static void dag_kernel(void *buffers[], void *arg)
{
	uint64_t *x = (uint64_t *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	const uint64_t *y = (const uint64_t *) STARPU_VARIABLE_GET_PTR(buffers[1]);
	unsigned i = (unsigned) (uintptr_t) arg;
	*x = (*x * 31 + *y + i) % PRIME;
	count(0);
}

static struct starpu_perfmodel dag_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_dm_dag" };
static struct starpu_codelet dag_cl = {
	.cpu_funcs = { dag_kernel },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_R },
	.model = &dag_model,
	.name = "dm_dag",
};

static void run_dag(const char *policy)
{
	uint64_t expect[NVARS];
	for (unsigned v = 0; v < NVARS; v++)
		vars[v] = expect[v] = v + 1;
	for (unsigned i = 0; i < DAG_TASKS; i++)
	{
		unsigned a = i % NVARS, b = (i * 7 + 1) % NVARS;
		if (b == a)
			b = (a + 1) % NVARS;
		expect[a] = (expect[a] * 31 + expect[b] + i) % PRIME;
	}

	CU_ASSERT_EQUAL_FATAL(start(policy, 2), 0);
	reset_counts();
	starpu_data_handle_t h[NVARS];
	for (unsigned v = 0; v < NVARS; v++)
		starpu_variable_data_register(&h[v], STARPU_MAIN_RAM, (uintptr_t) &vars[v], sizeof(vars[v]));
	for (unsigned i = 0; i < DAG_TASKS; i++)
	{
		unsigned a = i % NVARS, b = (i * 7 + 1) % NVARS;
		if (b == a)
			b = (a + 1) % NVARS;
		struct starpu_task *t = starpu_task_create();
		t->cl = &dag_cl;
		t->handles[0] = h[a];
		t->handles[1] = h[b];
		t->cl_arg = (void *) (uintptr_t) i;
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (unsigned v = 0; v < NVARS; v++)
		starpu_data_unregister(h[v]);
	CU_ASSERT_EQUAL(atomic_load(&runs), DAG_TASKS);
	for (unsigned v = 0; v < NVARS; v++)
		CU_ASSERT_EQUAL(vars[v], expect[v]);
	starpu_shutdown();
}

static void test_dag_dmda(void) { run_dag("dmda"); }
static void test_dag_dmdar(void) { run_dag("dmdar"); }
static void test_dag_dmdas(void) { run_dag("dmdas"); }

/* ---- workers leaving and joining at run time ---- */

/* Tasks queued on a worker that leaves the context are re-pushed to the
 * others, never lost; a worker that joins again gets work again. */
static void test_remove_worker_repushes(void)
{
	static const char *const policies[] = { "dm", "dmdas" };
	for (unsigned p = 0; p < 2; p++)
	{
		CU_ASSERT_EQUAL_FATAL(start(policies[p], 2), 0);
		struct starpu_sched_policy *pol = starpu_sched_ctx_get_sched_policy(0);
		CU_ASSERT_FATAL(pol && pol->remove_workers && pol->add_workers);
		reset_counts();
		int one = 1;
		starpu_pause();
		for (unsigned i = 0; i < NTASKS; i++)
		{
			struct starpu_task *t = starpu_task_create();
			t->cl = &nomodel_cl;
			CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
		}
		/* Half the tasks wait in worker 1's queue now. */
		pol->remove_workers(0, &one, 1);
		starpu_resume();
		CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
		CU_ASSERT_EQUAL(atomic_load(&runs), NTASKS);
		CU_ASSERT_EQUAL(atomic_load(&per_worker[0]), NTASKS);
		CU_ASSERT_EQUAL(atomic_load(&per_worker[1]), 0);

		pol->add_workers(0, &one, 1);
		reset_counts();
		submit_paused(&nomodel_cl, NTASKS);
		check_balanced(NTASKS);
		starpu_shutdown();
	}
}

/* Workers leave and join over and over while a data graph runs: the
 * results and the task count must not change. */
static void test_membership_churn(void)
{
	static const char *const policies[] = { "dmda", "dmdar" };
	for (unsigned p = 0; p < 2; p++)
	{
		uint64_t expect[NVARS];
		for (unsigned v = 0; v < NVARS; v++)
			vars[v] = expect[v] = v + 1;
		CU_ASSERT_EQUAL_FATAL(start(policies[p], 3), 0);
		struct starpu_sched_policy *pol = starpu_sched_ctx_get_sched_policy(0);
		reset_counts();
		starpu_data_handle_t h[NVARS];
		for (unsigned v = 0; v < NVARS; v++)
			starpu_variable_data_register(&h[v], STARPU_MAIN_RAM, (uintptr_t) &vars[v], sizeof(vars[v]));
		for (unsigned i = 0; i < DAG_TASKS; i++)
		{
			unsigned a = i % NVARS, b = (i * 7 + 1) % NVARS;
			if (b == a)
				b = (a + 1) % NVARS;
			expect[a] = (expect[a] * 31 + expect[b] + i) % PRIME;
			struct starpu_task *t = starpu_task_create();
			t->cl = &dag_cl;
			t->handles[0] = h[a];
			t->handles[1] = h[b];
			t->cl_arg = (void *) (uintptr_t) i;
			CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
			/* Worker 0 stays; 1 and 2 come and go. */
			int w = 1 + (int) (i % 2);
			if (i % 3 == 0)
				pol->remove_workers(0, &w, 1);
			else if (i % 3 == 2)
				pol->add_workers(0, &w, 1);
		}
		int all[2] = { 1, 2 };
		pol->add_workers(0, all, 2);
		CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
		for (unsigned v = 0; v < NVARS; v++)
			starpu_data_unregister(h[v]);
		CU_ASSERT_EQUAL(atomic_load(&runs), DAG_TASKS);
		for (unsigned v = 0; v < NVARS; v++)
			CU_ASSERT_EQUAL(vars[v], expect[v]);
		starpu_shutdown();
	}
}

/* ---- STARPU_IDLE_POWER ---- */

/* With alpha = beta = 0 every placement of equal tasks has the same
 * fitness, and ties go to the first worker; STARPU_IDLE_POWER (times
 * gamma) charges a placement that ends after every queue would have: the
 * others idle meanwhile. So the second task goes to the idle worker, and
 * the tasks alternate. */
static void test_idle_power(void)
{
	vtest_setenv("STARPU_SCHED_ALPHA", "0");
	vtest_setenv("STARPU_SCHED_BETA", "0");
	for (int with = 0; with < 2; with++)
	{
		vtest_setenv("STARPU_IDLE_POWER", with ? "1000" : NULL);
		CU_ASSERT_EQUAL_FATAL(start("dmda", 2), 0);
		calibrate(&bal_cl, 0, 1000.0, 3);
		reset_counts();
		submit_paused(&bal_cl, NTASKS);
		if (with)
			check_balanced(NTASKS);
		else
			CU_ASSERT_EQUAL(atomic_load(&per_worker[0]), NTASKS);
		starpu_shutdown();
	}
	vtest_setenv("STARPU_IDLE_POWER", NULL);
	vtest_setenv("STARPU_SCHED_ALPHA", NULL);
	vtest_setenv("STARPU_SCHED_BETA", NULL);
}

/* ---- STARPU_PREFETCH ---- */

static void test_prefetch_flag(void)
{
	vtest_setenv("STARPU_PREFETCH", NULL);
	CU_ASSERT_EQUAL_FATAL(start("dmda", 1), 0);
	CU_ASSERT_EQUAL(starpu_get_prefetch_flag(), 1);
	starpu_shutdown();
	vtest_setenv("STARPU_PREFETCH", "0");
	CU_ASSERT_EQUAL_FATAL(start("dmda", 1), 0);
	CU_ASSERT_EQUAL(starpu_get_prefetch_flag(), 0);
	/* Still runs a graph correctly without prefetching. */
	starpu_shutdown();
	run_dag("dmda");
	vtest_setenv("STARPU_PREFETCH", NULL);
}

/* ---- setup ---- */

static int suite_init(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/vtest-dm-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	vtest_setenv("STARPU_PERF_MODEL_DIR", tmpdir);
	vtest_setenv("STARPU_HOSTNAME", "vtestdm");
	vtest_setenv("STARPU_CALIBRATE", "0");
	vtest_setenv("STARPU_CALIBRATE_MINIMUM", "3");
	vtest_setenv("STARPU_HISTORY_MAX_ERROR", "1000000");
	vtest_setenv("STARPU_SCHED_GAMMA", NULL);
	return 0;
}

static int suite_clean(void)
{
	vtest_env_restore();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct vtest_case cases[] = {
		{ "dm/dmda/dmdas balance equal calibrated tasks over 2 workers", test_balance_calibrated },
		{ "dmda: STARPU_IDLE_POWER spreads equal-fitness tasks", test_idle_power },
		{ "dm balances tasks without a model by queue length", test_balance_no_model },
		{ "dm*: never on a worker whose can_execute refuses", test_never_on_incapable_worker },
		{ "dm: forced calibration of an uncalibrated implementation", test_forced_calibration },
		{ "dmdas: highest priority first on one worker", test_dmdas_priority_order },
		{ "dm: arrival order on one worker", test_dm_fifo_order },
		{ "dmda: data graph matches sequential replay", test_dag_dmda },
		{ "dmdar: data graph matches sequential replay", test_dag_dmdar },
		{ "dmdas: data graph matches sequential replay", test_dag_dmdas },
		{ "remove_workers re-pushes queued tasks, add_workers brings a worker back", test_remove_worker_repushes },
		{ "workers leave and join while a graph runs", test_membership_churn },
		{ "STARPU_PREFETCH sets starpu_get_prefetch_flag", test_prefetch_flag },
		VTEST_END
	};
	static const struct vtest_suite suites[] = {
		{ "dm", suite_init, suite_clean, cases },
		{ NULL, NULL, NULL, NULL }
	};
	return vtest_run(argc, argv, suites);
}
