/* test_sim.c — simulation mode (issue 7, first part): the same binary runs
 * real and simulated, switched by STARPU_SIMGRID at run time.
 *
 * Each case re-executes this program (/proc/self/exe) with a chosen
 * environment and a scenario in VTEST_SIM_CHILD, and checks what the child
 * printed: a simulation starts in the environment of a new process (the
 * hijack boot runs main() inside SimGrid), and one process gets one
 * simulation. Simulated times are deterministic, so makespans are asserted
 * exactly (to 1e-9 relative, the rounding of summed sleeps).
 */
#define _GNU_SOURCE
#include "vtest.h"

#include <starpu.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TASK_US 10.0

/* ------------------------------------------------------------------ */
/* The child's scenarios. */

static int executed;

static void kernel(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	__atomic_fetch_add(&executed, 1, __ATOMIC_RELAXED);	/* real runs: several workers */
}

static double cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	(void) task;
	(void) arch;
	(void) nimpl;
	return TASK_US;
}

static struct starpu_perfmodel model = { .type = STARPU_PER_ARCH, .arch_cost_function = cost };
static struct starpu_codelet modelled_cl = { .cpu_funcs = { kernel }, .nbuffers = 0, .model = &model, .name = "modelled" };
static struct starpu_perfmodel history = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_sim_history" };
static struct starpu_codelet history_cl = { .cpu_funcs = { kernel }, .nbuffers = 0, .model = &history, .name = "history" };
static struct starpu_codelet unmodelled_cl = { .cpu_funcs = { kernel }, .nbuffers = 0, .name = "unmodelled" };

static int submit_and_wait(struct starpu_codelet *cl, int n, double *makespan)
{
	double t0 = starpu_timing_now();
	for (int i = 0; i < n; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = cl;
		int ret = starpu_task_submit(t);
		if (ret)
			return ret;
	}
	starpu_task_wait_for_all();
	*makespan = starpu_timing_now() - t0;
	return 0;
}

static void *plain_thread(void *arg)
{
	(void) arg;
	struct starpu_task *t = starpu_task_create();
	t->cl = &modelled_cl;
	int ret = starpu_task_submit(t);
	printf("plain thread submitted: %d\n", ret);
	return NULL;
}

static int child_main(const char *scenario)
{
	int n = getenv("VTEST_SIM_N") ? atoi(getenv("VTEST_SIM_N")) : 100;
	if (!strcmp(scenario, "real-then-sim"))
	{
		/* A real run first, then simulation switched on at starpu_init
		 * (the attach boot). */
		double real_makespan;
		int ret = starpu_init(NULL);
		if (ret || submit_and_wait(&modelled_cl, n, &real_makespan) || vela_is_simulated())
			return 3;
		starpu_shutdown();
		if (executed != n)
			return 4;
		executed = 0;
		setenv("STARPU_SIMGRID", "1", 1);
		scenario = "run";
	}
	int ret = starpu_init(NULL);
	printf("ret=%d\n", ret);
	if (ret)
		return 0;
	double makespan = 0.0;
	if (!strcmp(scenario, "run"))
		ret = submit_and_wait(&modelled_cl, n, &makespan);
	else if (!strcmp(scenario, "nomodel"))
		ret = submit_and_wait(&unmodelled_cl, n, &makespan);
	else if (!strcmp(scenario, "history"))
		ret = submit_and_wait(&history_cl, n, &makespan);
	else if (!strcmp(scenario, "pthread"))
	{
		pthread_t th;
		pthread_create(&th, NULL, plain_thread, NULL);
		pthread_join(th, NULL);
	}
	printf("sim=%d nworkers=%u makespan=%.17g executed=%d submit=%d\n", vela_is_simulated(),
	       starpu_worker_get_count(), makespan, executed, ret);
	starpu_shutdown();
	return 0;
}

/* ------------------------------------------------------------------ */
/* The parent: runs a scenario in a child process. */

struct child
{
	int status;
	char out[8192];
	char err[16384];
	int ret, sim, executed, submit;
	unsigned nworkers;
	double makespan;
};

static void read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* env: "NAME=value" to set, "NAME" to unset; NULL-terminated. */
static void run_child(const char *scenario, const char *const *env, struct child *c)
{
	char out[] = "/tmp/vtest_sim_outXXXXXX", err[] = "/tmp/vtest_sim_errXXXXXX";
	int fo = mkstemp(out), fe = mkstemp(err);
	memset(c, 0, sizeof(*c));
	c->ret = 99;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
	{
		dup2(fo, 1);
		dup2(fe, 2);
		setenv("VTEST_SIM_CHILD", scenario, 1);
		setenv("VELA_SIM_PLUGIN", VTEST_SIM_PLUGIN, 1);
		setenv("STARPU_SIMGRID_PLATFORM", VTEST_SIM_DATA "/4cpu.platform.v4.xml", 1);
		unsetenv("STARPU_NCPU");
		unsetenv("VELA_SIM_BOOT");
		for (const char *const *e = env; *e; e++)
		{
			char name[256];
			const char *eq = strchr(*e, '=');
			if (eq)
			{
				snprintf(name, sizeof(name), "%.*s", (int) (eq - *e), *e);
				setenv(name, eq + 1, 1);
			}
			else
				unsetenv(*e);
		}
		alarm(60);	/* a hang fails the case instead of the whole program */
		execl("/proc/self/exe", "test_sim", (char *) NULL);
		_exit(127);
	}
	waitpid(pid, &c->status, 0);
	read_file(out, c->out, sizeof(c->out));
	read_file(err, c->err, sizeof(c->err));
	close(fo);
	close(fe);
	unlink(out);
	unlink(err);
	const char *r = strstr(c->out, "ret=");
	if (r)
		sscanf(r, "ret=%d", &c->ret);
	const char *s = strstr(c->out, "sim=");
	if (s)
		sscanf(s, "sim=%d nworkers=%u makespan=%lg executed=%d submit=%d", &c->sim, &c->nworkers, &c->makespan,
		       &c->executed, &c->submit);
	if (c->err[0])
		fprintf(stderr, "--- child (%s) stderr:\n%s", scenario, c->err);
}

static int exited_ok(const struct child *c)
{
	return WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0;
}

static int close_to(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fabs(want);
}

/* Simulation cases need the plugin: not built without SimGrid, nor by
 * static-only builds (make check-asan). */
static int plugin_missing(void)
{
#ifdef VELA_HAVE_SIMGRID
	if (access(VTEST_SIM_PLUGIN, R_OK) == 0)
		return 0;
	fprintf(stderr, "skipped: no plugin %s (static-only build?)\n", VTEST_SIM_PLUGIN);
#else
	fprintf(stderr, "skipped: this build has no SimGrid\n");
#endif
	return 1;
}
#define NEED_SIMGRID() do { if (plugin_missing()) return; } while (0)

/* ------------------------------------------------------------------ */
/* Cases. */

static void test_real_run(void)
{
	const char *env[] = { "STARPU_SIMGRID", "VTEST_SIM_N=20", NULL };
	struct child c;
	run_child("run", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 0);
	CU_ASSERT_EQUAL(c.executed, 20);
}

static void test_hijack_makespan(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=1001", NULL };
	struct child a, b;
	run_child("run", env, &a);
	run_child("run", env, &b);
	CU_ASSERT(exited_ok(&a));
	CU_ASSERT_EQUAL(a.ret, 0);
	CU_ASSERT_EQUAL(a.sim, 1);
	CU_ASSERT_EQUAL(a.nworkers, 4);
	CU_ASSERT_EQUAL(a.executed, 0);	/* kernels are not run */
	/* starpu_timing_now advanced by ceil(1001/4) task durations. */
	CU_ASSERT(close_to(a.makespan, 251 * TASK_US));
	/* Deterministic: bit for bit. */
	CU_ASSERT(a.makespan == b.makespan);
}

static void test_attach_same_makespan(void)
{
	NEED_SIMGRID();
	const char *hijack[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=201", NULL };
	const char *attach[] = { "STARPU_SIMGRID=1", "VELA_SIM_BOOT=attach", "VTEST_SIM_N=201", NULL };
	struct child h, a;
	run_child("run", hijack, &h);
	run_child("run", attach, &a);
	CU_ASSERT(exited_ok(&a));
	CU_ASSERT_EQUAL(a.ret, 0);
	CU_ASSERT_EQUAL(a.sim, 1);
	CU_ASSERT_EQUAL(a.executed, 0);
	CU_ASSERT(close_to(a.makespan, 51 * TASK_US));
	CU_ASSERT(close_to(a.makespan, h.makespan));
}

static void test_real_then_simulated(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID", "VTEST_SIM_N=41", NULL };
	struct child c;
	run_child("real-then-sim", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 1);
	CU_ASSERT_EQUAL(c.executed, 0);
	CU_ASSERT(close_to(c.makespan, 11 * TASK_US));
}

static void test_ncpu_restricts(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", "STARPU_NCPU=3", "VTEST_SIM_N=30", NULL };
	struct child c;
	run_child("run", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.nworkers, 3);
	CU_ASSERT(close_to(c.makespan, 10 * TASK_US));
}

static void test_no_model(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=4", NULL };
	struct child c;
	run_child("nomodel", env, &c);
	CU_ASSERT(exited_ok(&c));	/* the task fails, the program goes on */
	CU_ASSERT_EQUAL(c.executed, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "codelet 'unmodelled'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "cpu"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "STARPU_SIMGRID_DEFAULT_TASK_US"));

	const char *fallback[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=9", "STARPU_SIMGRID_DEFAULT_TASK_US=5", NULL };
	run_child("nomodel", fallback, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT(close_to(c.makespan, 3 * 5.0));
	CU_ASSERT_PTR_NULL(strstr(c.err, "unmodelled"));
}

/* A simulated kernel lasts what the model predicts (here the fallback, the
 * history being empty): recording that as a measurement would feed the
 * model its own output, so a simulated run never writes a sample, even
 * with STARPU_CALIBRATE=1. */
static void test_no_calibration_in_simulation(void)
{
	NEED_SIMGRID();
	char home[] = "/tmp/vtest_sim_homeXXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(home));
	char home_env[64], dir[128], cmd[256];
	snprintf(home_env, sizeof(home_env), "STARPU_HOME=%s", home);
	const char *env[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=40", "STARPU_SIMGRID_DEFAULT_TASK_US=5",
			      "STARPU_CALIBRATE=1", home_env, "STARPU_PERF_MODEL_DIR", NULL };
	struct child c;
	run_child("history", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 1);
	CU_ASSERT_EQUAL(c.executed, 0);
	CU_ASSERT(close_to(c.makespan, 10 * 5.0));
	/* No model file for the symbol appeared. */
	snprintf(dir, sizeof(dir), "%s/.starpu/sampling/codelets/45", home);
	snprintf(cmd, sizeof(cmd), "ls %s 2>/dev/null | grep -q '^vtest_sim_history'", dir);
	CU_ASSERT_NOT_EQUAL(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_plugin_missing(void)
{
	/* Both boots, and in a build without SimGrid. */
	const char *hijack[] = { "STARPU_SIMGRID=1", "VELA_SIM_PLUGIN=/nonexistent/libvela-sim.so", NULL };
	const char *attach[] = { "STARPU_SIMGRID=1", "VELA_SIM_BOOT=attach", "VELA_SIM_PLUGIN=/nonexistent/libvela-sim.so", NULL };
	const char *const *envs[] = { hijack, attach };
	for (int i = 0; i < 2; i++)
	{
		struct child c;
		run_child("run", envs[i], &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -ENODEV);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "STARPU_SIMGRID"));
#ifdef VELA_HAVE_SIMGRID
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "/nonexistent/libvela-sim.so"));
#else
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "no SimGrid support"));
#endif
	}
}

static void test_bad_platform(void)
{
	NEED_SIMGRID();
	const char *boots[] = { "VELA_SIM_BOOT=hijack", "VELA_SIM_BOOT=attach" };
	for (int i = 0; i < 2; i++)
	{
		const char *missing[] = { "STARPU_SIMGRID=1", boots[i], "STARPU_SIMGRID_PLATFORM=/nonexistent/p.xml", NULL };
		struct child c;
		run_child("run", missing, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "/nonexistent/p.xml"));

		const char *corrupt[] = { "STARPU_SIMGRID=1", boots[i],
					  "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/corrupt.platform.v4.xml", NULL };
		run_child("run", corrupt, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "corrupt.platform.v4.xml:"));	/* file:line */
	}
	/* No STARPU_SIMGRID_PLATFORM, and no calibration for that host. */
	const char *nohost[] = { "STARPU_SIMGRID=1", "STARPU_SIMGRID_PLATFORM", "STARPU_HOSTNAME=no-such-host", NULL };
	struct child c;
	run_child("run", nohost, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "no-such-host.platform"));
}

static void test_plain_pthread(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", NULL };
	struct child c;
	run_child("pthread", env, &c);
	/* A clear fatal error, not a hang. */
	CU_ASSERT(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGABRT);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "pthread_create"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "not part of the simulation"));
}

static const struct vtest_case cases[] = {
	{ "real run of the same binary", test_real_run },
	{ "hijack boot: exact, deterministic makespan", test_hijack_makespan },
	{ "attach boot: same makespan", test_attach_same_makespan },
	{ "real run, then simulated, in one process", test_real_then_simulated },
	{ "STARPU_NCPU restricts simulated CPUs", test_ncpu_restricts },
	{ "task without a model", test_no_model },
	{ "simulated runs record no calibration", test_no_calibration_in_simulation },
	{ "plugin cannot be loaded", test_plugin_missing },
	{ "missing or corrupt platform", test_bad_platform },
	{ "plain pthread calling Vela", test_plain_pthread },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "simulation", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	const char *scenario = getenv("VTEST_SIM_CHILD");
	if (scenario)
		return child_main(scenario);
	return vtest_run(argc, argv, suites);
}
