/* test_sim_env: the STARPU_SIMGRID variable itself (issue 22 item 9).
 *
 * "abc", "-1", "2", "1x" and " 1" all used to mean "simulate" (anything but
 * "0"). Like every other variable, a malformed value now makes starpu_init
 * fail with -EINVAL and a message naming the variable and the value, in
 * both boots: at process start (the hijack boot must not start a
 * simulation for it) and in starpu_init (VELA_SIM_BOOT=attach). "0" and an
 * empty value run for real; "1" simulates; an application that sets
 * conf.vela_simulate with precedence_over_environment_variables is not
 * concerned by the variable. A platform file that is a FIFO or a
 * directory is refused too (item 8). Each case runs in a fresh process
 * (sim_child.h).
 */
#include "sim_child.h"

#include <errno.h>
#include <sys/stat.h>

static int child_main(const char *scenario)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	if (!strcmp(scenario, "conf-real"))
	{
		conf.vela_simulate = 0;
		conf.precedence_over_environment_variables = 1;
	}
	int ret = starpu_init(&conf);
	printf("ret=%d\n", ret);
	if (ret)
		return 0;
	printf("sim=%d nworkers=%u makespan=0 executed=0 submit=0\n", vela_is_simulated(), starpu_worker_get_count());
	starpu_shutdown();
	return 0;
}

static const char *const malformed[] = { "abc", "-1", "2", "1x", " 1", "yes" };

static void test_malformed(void)
{
	static const char *const boots[] = { "VELA_SIM_BOOT", "VELA_SIM_BOOT=attach" };
	for (size_t b = 0; b < sizeof(boots) / sizeof(boots[0]); b++)
		for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++)
		{
			char var[64], quoted[64];
			snprintf(var, sizeof(var), "STARPU_SIMGRID=%s", malformed[i]);
			snprintf(quoted, sizeof(quoted), "STARPU_SIMGRID='%s'", malformed[i]);
			const char *env[] = { var, boots[b], "STARPU_SILENT", NULL };
			struct child c;
			run_child("run", env, &c);
			CU_ASSERT(exited_ok(&c));
			if (c.ret != -EINVAL)
				fprintf(stderr, "%s (%s): ret=%d\n", var, boots[b], c.ret);
			CU_ASSERT_EQUAL(c.ret, -EINVAL);
			CU_ASSERT_PTR_NOT_NULL(strstr(c.err, quoted));
			CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "must be 0"));
			/* Not simulated: no SimGrid banner or platform error. */
			CU_ASSERT_PTR_NULL(strstr(c.err, "platform"));
		}
}

static void test_valid(void)
{
	struct child c;
	static const char *const real[] = { "STARPU_SIMGRID=0", "STARPU_SIMGRID=" };
	for (size_t i = 0; i < 2; i++)
	{
		const char *env[] = { real[i], NULL };
		run_child("run", env, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, 0);
		CU_ASSERT_EQUAL(c.sim, 0);
	}
	/* The application decided, with precedence: the variable is not read. */
	const char *conf_real[] = { "STARPU_SIMGRID=abc", NULL };
	run_child("conf-real", conf_real, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 0);
	NEED_SIMGRID();
	static const char *const boots[] = { "VELA_SIM_BOOT", "VELA_SIM_BOOT=attach" };
	for (size_t b = 0; b < 2; b++)
	{
		const char *env[] = { "STARPU_SIMGRID=1", boots[b], NULL };
		run_child("run", env, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, 0);
		CU_ASSERT_EQUAL(c.sim, 1);
		CU_ASSERT_EQUAL(c.nworkers, 1);
	}
}

/* A platform that is a FIFO (SimGrid blocked reading it forever) or a
 * directory (SimGrid's scanner ended the process): -EINVAL naming it, in
 * both boots (issue 22 item 8). */
static void test_special_platform(void)
{
	NEED_SIMGRID();
	char dir[] = "/tmp/vtest_sim_env_XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	char fifo[64], var_fifo[96], var_dir[96];
	snprintf(fifo, sizeof(fifo), "%s/p.fifo", dir);
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	snprintf(var_fifo, sizeof(var_fifo), "STARPU_SIMGRID_PLATFORM=%s", fifo);
	snprintf(var_dir, sizeof(var_dir), "STARPU_SIMGRID_PLATFORM=%s", dir);
	static const char *const boots[] = { "VELA_SIM_BOOT", "VELA_SIM_BOOT=attach" };
	for (size_t b = 0; b < 2; b++)
	{
		const char *env1[] = { "STARPU_SIMGRID=1", boots[b], var_fifo, NULL };
		struct child c;
		run_child("run", env1, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "p.fifo is a FIFO"));
		const char *env2[] = { "STARPU_SIMGRID=1", boots[b], var_dir, NULL };
		run_child("run", env2, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "is a directory, not a platform file"));
	}
	unlink(fifo);
	rmdir(dir);
}

static const struct vtest_case cases[] = {
	{ "malformed STARPU_SIMGRID values are refused in both boots", test_malformed },
	{ "0, empty and 1; conf.vela_simulate with precedence", test_valid },
	{ "a FIFO or a directory as platform is refused", test_special_platform },
	VTEST_END
};

int main(int argc, char **argv)
{
	const char *scenario = getenv("VTEST_SIM_CHILD");
	if (scenario)
		return child_main(scenario);
	const struct vtest_suite suites[] = {
		{ "sim_env", NULL, NULL, cases },
		{ NULL, NULL, NULL, NULL }
	};
	return vtest_run(argc, argv, suites);
}
