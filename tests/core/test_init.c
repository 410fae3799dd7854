/* test_init: runtime bring-up and tear-down.
 *
 * Covers starpu_conf_init defaults, starpu_init / starpu_initialize /
 * starpu_shutdown (also many times in a row), starpu_is_initialized, the
 * CPU worker count chosen from starpu_conf and from STARPU_NCPU (and which of
 * the two wins), and starpu_pause / starpu_resume holding back execution.
 * Every case starts and stops its own runtime so that cases stay independent.
 */
#include <starpu.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vtest.h"

static atomic_int counter;

static void count_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	atomic_fetch_add(&counter, 1);
}

static struct starpu_codelet count_cl =
{
	.cpu_funcs = { count_cpu },
	.nbuffers = 0,
};

/* Submits n counting tasks (detached, auto-destroyed). Returns how many
 * submissions succeeded. */
static int submit_counting(int n)
{
	int ok = 0;
	for (int i = 0; i < n; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &count_cl;
		if (starpu_task_submit(task) == 0)
			ok++;
	}
	return ok;
}

/* Saved value of an environment variable, restored by env_restore. */
struct saved_env
{
	const char *name;
	char *value;	/* strdup'd copy, NULL when unset; freed by env_restore */
};

static struct saved_env env_save(const char *name)
{
	struct saved_env s = { name, NULL };
	const char *v = getenv(name);
	if (v)
		s.value = strdup(v);
	return s;
}

static void env_restore(struct saved_env *s)
{
	if (s->value)
		setenv(s->name, s->value, 1);
	else
		unsetenv(s->name);
	free(s->value);
	s->value = NULL;
}

static void test_conf_init_defaults(void)
{
	struct saved_env ncpu = env_save("STARPU_NCPU");
	struct saved_env sched = env_save("STARPU_SCHED");
	unsetenv("STARPU_NCPU");
	unsetenv("STARPU_SCHED");

	struct starpu_conf conf;
	memset(&conf, 0x5a, sizeof(conf));
	CU_ASSERT_EQUAL(starpu_conf_init(&conf), 0);
	CU_ASSERT_EQUAL(conf.ncpus, -1);
	CU_ASSERT_EQUAL(conf.ncuda, -1);
	CU_ASSERT_EQUAL(conf.nopencl, -1);
	CU_ASSERT_PTR_NULL(conf.sched_policy_name);
	CU_ASSERT_PTR_NULL(conf.sched_policy);
	CU_ASSERT_EQUAL(conf.precedence_over_environment_variables, 0);
	CU_ASSERT_PTR_NULL(conf.not_launched_drivers);
	CU_ASSERT_EQUAL(conf.n_not_launched_drivers, 0);

	env_restore(&ncpu);
	env_restore(&sched);
}

/* starpu_conf_init already picks up the environment: a conf filled while
 * STARPU_NCPU / STARPU_SCHED are set carries their values. */
static void test_conf_init_reads_env(void)
{
	struct saved_env ncpu = env_save("STARPU_NCPU");
	struct saved_env sched = env_save("STARPU_SCHED");
	setenv("STARPU_NCPU", "1", 1);
	setenv("STARPU_SCHED", "prio", 1);

	struct starpu_conf conf;
	CU_ASSERT_EQUAL(starpu_conf_init(&conf), 0);
	CU_ASSERT_EQUAL(conf.ncpus, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(conf.sched_policy_name);
	CU_ASSERT_STRING_EQUAL(conf.sched_policy_name, "prio");

	env_restore(&ncpu);
	env_restore(&sched);
}

static void test_init_null_shutdown(void)
{
	CU_ASSERT_EQUAL(starpu_is_initialized(), 0);
	int ret = starpu_init(NULL);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_NOT_EQUAL(starpu_is_initialized(), 0);
	CU_ASSERT(starpu_worker_get_count() >= 1);
	CU_ASSERT(starpu_cpu_worker_get_count() >= 1);

	atomic_store(&counter, 0);
	CU_ASSERT_EQUAL(submit_counting(8), 8);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), 8);

	starpu_shutdown();
	CU_ASSERT_EQUAL(starpu_is_initialized(), 0);
}

static void test_repeated_init_shutdown(void)
{
	struct starpu_conf conf;
	for (int cycle = 0; cycle < 20; cycle++)
	{
		starpu_conf_init(&conf);
		/* alternate between one and the default number of CPU workers */
		if (cycle % 2)
			conf.ncpus = 1;
		int ret = starpu_init(&conf);
		CU_ASSERT_EQUAL_FATAL(ret, 0);
		CU_ASSERT_NOT_EQUAL(starpu_is_initialized(), 0);

		atomic_store(&counter, 0);
		CU_ASSERT_EQUAL(submit_counting(5), 5);
		CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
		CU_ASSERT_EQUAL(atomic_load(&counter), 5);

		starpu_shutdown();
		CU_ASSERT_EQUAL(starpu_is_initialized(), 0);
	}
}

static void test_conf_ncpus_one(void)
{
	struct saved_env ncpu = env_save("STARPU_NCPU");
	unsetenv("STARPU_NCPU");

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	int ret = starpu_init(&conf);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), 1);
	CU_ASSERT_EQUAL(starpu_worker_get_count(), 1);

	atomic_store(&counter, 0);
	CU_ASSERT_EQUAL(submit_counting(4), 4);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&counter), 4);
	starpu_shutdown();

	env_restore(&ncpu);
}

/* Starts with the given conf.ncpus / precedence flag while STARPU_NCPU holds
 * env_value, returns the CPU worker count StarPU ended up with. */
static int cpu_count_with(const char *env_value, int conf_ncpus, int precedence)
{
	struct saved_env ncpu = env_save("STARPU_NCPU");
	if (env_value)
		setenv("STARPU_NCPU", env_value, 1);
	else
		unsetenv("STARPU_NCPU");

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = conf_ncpus;
	conf.precedence_over_environment_variables = precedence;
	int ret = starpu_init(&conf);
	/* the environment is only read during init */
	env_restore(&ncpu);
	if (ret != 0)
		return -1;
	int n = (int) starpu_cpu_worker_get_count();
	starpu_shutdown();
	return n;
}

static void test_env_ncpu(void)
{
	struct saved_env ncpu = env_save("STARPU_NCPU");
	setenv("STARPU_NCPU", "1", 1);
	int ret = starpu_init(NULL);
	env_restore(&ncpu);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), 1);
	starpu_shutdown();

	/* and two when asked for two (this machine has at least two cores) */
	CU_ASSERT_EQUAL(cpu_count_with("2", -1, 0), 2);
}

/* By default the environment wins over the conf; with
 * precedence_over_environment_variables=1 the conf wins. */
static void test_env_vs_conf_precedence(void)
{
	CU_ASSERT_EQUAL(cpu_count_with("1", 2, 0), 1);
	CU_ASSERT_EQUAL(cpu_count_with("2", 1, 0), 2);
	CU_ASSERT_EQUAL(cpu_count_with("1", 2, 1), 2);
	CU_ASSERT_EQUAL(cpu_count_with("2", 1, 1), 1);
	/* no environment: the conf is used either way */
	CU_ASSERT_EQUAL(cpu_count_with(NULL, 1, 0), 1);
	CU_ASSERT_EQUAL(cpu_count_with(NULL, 2, 0), 2);
}

/* Name of the policy the runtime ended up with for the given conf policy
 * and STARPU_SCHED value (NULL: unset); NULL if init failed. */
static const char *policy_with(const char *env_value, const char *conf_name)
{
	static char name[64];
	struct saved_env sched = env_save("STARPU_SCHED");
	if (env_value)
		setenv("STARPU_SCHED", env_value, 1);
	else
		unsetenv("STARPU_SCHED");

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	conf.sched_policy_name = conf_name;
	int ret = starpu_init(&conf);
	env_restore(&sched);
	if (ret != 0)
		return NULL;
	struct starpu_sched_policy *policy = starpu_sched_ctx_get_sched_policy(0);
	snprintf(name, sizeof(name), "%s", policy && policy->policy_name ? policy->policy_name : "?");
	starpu_shutdown();
	return name;
}

static void test_sched_policy_selection(void)
{
	const char *name = policy_with(NULL, "prio");
	CU_ASSERT_PTR_NOT_NULL_FATAL(name);
	CU_ASSERT_STRING_EQUAL(name, "prio");
	name = policy_with(NULL, "eager");
	CU_ASSERT_PTR_NOT_NULL_FATAL(name);
	CU_ASSERT_STRING_EQUAL(name, "eager");
	/* the environment wins over the conf */
	name = policy_with("eager", "prio");
	CU_ASSERT_PTR_NOT_NULL_FATAL(name);
	CU_ASSERT_STRING_EQUAL(name, "eager");
	name = policy_with("prio", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(name);
	CU_ASSERT_STRING_EQUAL(name, "prio");
	/* StarPU 1.3's names of the component-tree policies */
	name = policy_with("modular-heft", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(name);
	CU_ASSERT_STRING_EQUAL(name, "tree-heft");
	name = policy_with(NULL, "modular-eager-prefetching");
	CU_ASSERT_PTR_NOT_NULL_FATAL(name);
	CU_ASSERT_STRING_EQUAL(name, "tree-eager-prefetching");
}

/* No worker at all is refused with -ENODEV. */
static void test_no_worker_fails(void)
{
	struct saved_env ncpu = env_save("STARPU_NCPU");
	unsetenv("STARPU_NCPU");
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 0;
	conf.ncuda = 0;
	conf.nopencl = 0;
	int ret = starpu_init(&conf);
	env_restore(&ncpu);
	CU_ASSERT_EQUAL(ret, -ENODEV);
	CU_ASSERT_EQUAL(starpu_is_initialized(), 0);
	if (ret == 0)
		starpu_shutdown();
}

static void test_initialize_argc_argv(void)
{
	char arg0[] = "test_init";
	char arg1[] = "--some-application-option";
	char *args[] = { arg0, arg1, NULL };
	int argc = 2;
	char **argv = args;

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	int ret = starpu_initialize(&conf, &argc, &argv);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_NOT_EQUAL(starpu_is_initialized(), 0);
	/* arguments StarPU does not know are left alone */
	CU_ASSERT_EQUAL(argc, 2);
	CU_ASSERT_PTR_EQUAL(argv, args);
	CU_ASSERT_STRING_EQUAL(argv[1], "--some-application-option");

	atomic_store(&counter, 0);
	CU_ASSERT_EQUAL(submit_counting(3), 3);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&counter), 3);
	starpu_shutdown();
	CU_ASSERT_EQUAL(starpu_is_initialized(), 0);

	/* NULL argc/argv are accepted too */
	ret = starpu_initialize(NULL, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	starpu_shutdown();
}

static void test_pause_resume(void)
{
	int ret = starpu_init(NULL);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	atomic_store(&counter, 0);

	starpu_pause();
	CU_ASSERT_EQUAL(submit_counting(10), 10);
	vtest_sleep_ms(50);
	CU_ASSERT_EQUAL(atomic_load(&counter), 0);
	starpu_resume();
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), 10);

	/* a second pause / resume round behaves the same */
	starpu_pause();
	CU_ASSERT_EQUAL(submit_counting(5), 5);
	vtest_sleep_ms(50);
	CU_ASSERT_EQUAL(atomic_load(&counter), 10);
	starpu_resume();
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&counter), 15);

	starpu_shutdown();
}

static const struct vtest_case conf_cases[] =
{
	{ "conf_init_defaults", test_conf_init_defaults },
	{ "conf_init_reads_env", test_conf_init_reads_env },
	VTEST_END
};

static const struct vtest_case init_cases[] =
{
	{ "init_null_shutdown", test_init_null_shutdown },
	{ "repeated_init_shutdown", test_repeated_init_shutdown },
	{ "conf_ncpus_one", test_conf_ncpus_one },
	{ "env_ncpu", test_env_ncpu },
	{ "env_vs_conf_precedence", test_env_vs_conf_precedence },
	{ "sched_policy_selection", test_sched_policy_selection },
	{ "no_worker_fails", test_no_worker_fails },
	{ "initialize_argc_argv", test_initialize_argc_argv },
	{ "pause_resume", test_pause_resume },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "conf", NULL, NULL, conf_cases },
	{ "init", NULL, NULL, init_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
