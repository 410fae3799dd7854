/* test_heteroprio: the heteroprio policy and its configuration API.
 *
 * The configuration comes from the starpu_conf.sched_policy_init callback,
 * as applications give it. Order checks run on one paused worker, so the
 * whole set of buckets is filled before the worker takes anything.
 */
#include "vtest.h"

#include <starpu.h>
#include <starpu_heteroprio.h>

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define NTASKS 30

static unsigned seen[NTASKS];
static atomic_uint nseen;
static int task_prio[NTASKS];

static void kernel(void *buffers[], void *arg)
{
	(void) buffers;
	unsigned k = atomic_fetch_add(&nseen, 1);
	if (k < NTASKS)
		seen[k] = (unsigned) (uintptr_t) arg;
}

static struct starpu_codelet cl = { .cpu_funcs = { kernel }, .nbuffers = 0, .name = "hp_task" };

static int start(void (*configure)(unsigned), int ncpus)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = "heteroprio";
	conf.sched_policy_init = configure;
	conf.ncpus = ncpus;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf);
}

/* Submits NTASKS tasks, priorities given by prio_of(i), to the paused
 * workers, then runs them. */
static void run(int (*prio_of)(unsigned))
{
	atomic_store(&nseen, 0);
	starpu_pause();
	for (unsigned i = 0; i < NTASKS; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &cl;
		t->cl_arg = (void *) (uintptr_t) i;
		task_prio[i] = prio_of(i);
		t->priority = task_prio[i];
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	starpu_resume();
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&nseen), NTASKS);
}

static int three_buckets(unsigned i)
{
	return (int) ((i * 7) % 3);
}

/* CPU levels 0, 1, 2 are buckets 2, 0, 1. */
static void configure_mapping(unsigned ctx)
{
	starpu_heteroprio_set_nb_prios(ctx, STARPU_CPU_IDX, 3);
	starpu_heteroprio_set_mapping(ctx, STARPU_CPU_IDX, 0, 2);
	starpu_heteroprio_set_mapping(ctx, STARPU_CPU_IDX, 1, 0);
	starpu_heteroprio_set_mapping(ctx, STARPU_CPU_IDX, 2, 1);
	starpu_heteroprio_set_faster_arch(ctx, STARPU_CPU_IDX, 0);
}

static void test_mapping_order(void)
{
	CU_ASSERT_EQUAL_FATAL(start(configure_mapping, 1), 0);
	run(three_buckets);
	/* Rank of each bucket in the CPU list; FIFO within a bucket. */
	static const int rank[3] = { 1, 2, 0 };
	for (unsigned k = 1; k < NTASKS; k++)
	{
		unsigned a = seen[k - 1], b = seen[k];
		int ra = rank[task_prio[a]], rb = rank[task_prio[b]];
		CU_ASSERT(ra < rb || (ra == rb && a < b));
	}
	starpu_shutdown();
}

/* Without a callback, every bucket in order: priority 0 first. */
static void test_default_order(void)
{
	CU_ASSERT_EQUAL_FATAL(start(NULL, 1), 0);
	run(three_buckets);
	for (unsigned k = 1; k < NTASKS; k++)
	{
		unsigned a = seen[k - 1], b = seen[k];
		CU_ASSERT(task_prio[a] < task_prio[b] || (task_prio[a] == task_prio[b] && a < b));
	}
	starpu_shutdown();
}

/* Bucket 5 is in no CPU list, and priority 1000 is no bucket: each is
 * reported, and the task still runs. */
static int unmapped(unsigned i)
{
	return i == 3 ? 5 : i == 4 ? 1000 : three_buckets(i);
}

static void test_unmapped_bucket_reported(void)
{
	CU_ASSERT_EQUAL_FATAL(start(configure_mapping, 2), 0);
	vtest_capture_stderr_begin();
	run(unmapped);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT(strstr(err, "bucket 5") != NULL);
	CU_ASSERT(strstr(err, "priority 1000") != NULL);
	starpu_shutdown();
}

static const char *bad_calls_err;

static void configure_bad(unsigned ctx)
{
	vtest_capture_stderr_begin();
	starpu_heteroprio_set_nb_prios(ctx, STARPU_NB_TYPES, 2);
	starpu_heteroprio_set_nb_prios(ctx, STARPU_CPU_IDX, STARPU_HETEROPRIO_MAX_PRIO + 1);
	starpu_heteroprio_set_mapping(ctx, STARPU_CPU_IDX, 0, STARPU_HETEROPRIO_MAX_PRIO);
	starpu_heteroprio_set_mapping(ctx, STARPU_CPU_IDX, STARPU_HETEROPRIO_MAX_PRIO, 0);
	starpu_heteroprio_set_faster_arch(ctx, (enum starpu_heteroprio_types) 42, 0);
	starpu_heteroprio_set_arch_slow_factor(ctx, STARPU_CPU_IDX, 0, -1.0f);
	starpu_heteroprio_set_nb_prios(ctx + 7, STARPU_CPU_IDX, 2);
	bad_calls_err = vtest_capture_stderr_end();
	/* A usable configuration after all. */
	starpu_heteroprio_set_nb_prios(ctx, STARPU_CPU_IDX, 3);
}

static void test_bad_input(void)
{
	bad_calls_err = NULL;
	CU_ASSERT_EQUAL_FATAL(start(configure_bad, 1), 0);
	CU_ASSERT_FATAL(bad_calls_err != NULL);
	static const char *const expect[] = {
		"starpu_heteroprio_set_nb_prios: unknown kind of worker 5",
		"starpu_heteroprio_set_nb_prios: 101 priority levels",
		"starpu_heteroprio_set_mapping: bucket 100 out of range",
		"starpu_heteroprio_set_mapping: priority level 100 out of range",
		"starpu_heteroprio_set_faster_arch: unknown kind of worker 42",
		"starpu_heteroprio_set_arch_slow_factor: slow factor -1",
		"starpu_heteroprio_set_nb_prios: no scheduling context 7",
	};
	for (unsigned i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		CU_ASSERT_PTR_NOT_NULL(strstr(bad_calls_err, expect[i]));
	run(three_buckets);
	starpu_shutdown();

	/* A context that does not use heteroprio. */
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = "eager";
	conf.ncpus = 1;
	conf.precedence_over_environment_variables = 1;
	CU_ASSERT_EQUAL_FATAL(starpu_init(&conf), 0);
	vtest_capture_stderr_begin();
	starpu_heteroprio_set_mapping(0, STARPU_CPU_IDX, 0, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(vtest_capture_stderr_end(), "does not use the heteroprio policy"));
	starpu_shutdown();
}

int main(int argc, char **argv)
{
	static const struct vtest_case cases[] = {
		{ "CPU priority levels follow set_mapping", test_mapping_order },
		{ "default: buckets in priority order", test_default_order },
		{ "tasks in no worker's buckets are reported and still run", test_unmapped_bucket_reported },
		{ "bad configuration calls are reported", test_bad_input },
		VTEST_END
	};
	static const struct vtest_suite suites[] = {
		{ "heteroprio", NULL, NULL, cases },
		{ NULL, NULL, NULL, NULL }
	};
	return vtest_run(argc, argv, suites);
}
