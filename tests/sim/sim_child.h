/* sim_child.h — what the simulation test programs share: each case
 * re-executes the program (/proc/self/exe) with a chosen environment and a
 * scenario in VTEST_SIM_CHILD, then checks what the child printed ("key=value"
 * words) and its exit status. A simulation starts in the environment of a
 * new process, and one process gets one simulation.
 *
 * Each child starts with the runtime's overhead costs at 0
 * (STARPU_SIMGRID_*_COST), so that golden times count kernels and transfers
 * only; a case sets the ones it tests.
 */
#ifndef VTEST_SIM_CHILD_H
#define VTEST_SIM_CHILD_H

#include "vtest.h"

#include <starpu.h>	/* VELA_HAVE_SIMGRID */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>


struct child
{
	int status;
	char out[8192];
	char err[16384];
	int ret, sim, executed, submit;
	unsigned nworkers;
	double makespan;
};

static inline void read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* The program's main: the child's scenario (VTEST_SIM_CHILD) when it is
 * one, else the cases. */
static inline int sim_test_main(int argc, char **argv, const struct vtest_suite *suites,
				int (*child)(const char *scenario))
{
	const char *scenario = getenv("VTEST_SIM_CHILD");
	return scenario ? child(scenario) : vtest_run(argc, argv, suites);
}

/* env: "NAME=value" to set, "NAME" to unset; NULL-terminated. */
static inline void run_child(const char *scenario, const char *const *env, struct child *c)
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
		/* The golden times below leave the runtime's own costs out
		 * (test_sim_machine.c tests them). */
		static const char *const costs[] = { "TASK_SUBMIT", "SCHED", "FETCHING_INPUT", "TRANSFER", "CUDA_MALLOC",
						     "CUDA_QUEUE" };
		for (size_t k = 0; k < sizeof(costs) / sizeof(costs[0]); k++)
		{
			char var[64];
			snprintf(var, sizeof(var), "STARPU_SIMGRID_%s_COST", costs[k]);
			setenv(var, "0", 1);
		}
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

/* The number after "key=" in the child's output (NAN when absent). */
static inline double out_num(const struct child *c, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "%s=", key);
	for (const char *p = strstr(c->out, pat); p; p = strstr(p + 1, pat))
		if (p == c->out || p[-1] == ' ' || p[-1] == '\n')
			return strtod(p + strlen(pat), NULL);
	return NAN;
}

/* The word after "key=" in the child's output ("" when absent). */
static inline const char *out_str(const struct child *c, const char *key, char *buf, size_t size)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "%s=", key);
	buf[0] = '\0';
	for (const char *p = strstr(c->out, pat); p; p = strstr(p + 1, pat))
		if (p == c->out || p[-1] == ' ' || p[-1] == '\n')
		{
			p += strlen(pat);
			size_t n = strcspn(p, " \n");
			snprintf(buf, size, "%.*s", (int) (n < size ? n : size - 1), p);
			break;
		}
	return buf;
}

static inline int exited_ok(const struct child *c)
{
	return WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0;
}

static inline int close_to(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fabs(want);
}

/* Simulation cases need the plugin: not built without SimGrid, nor by
 * static-only builds (make check-asan). */
static inline int plugin_missing(void)
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

static inline void expect_str(const struct child *c, const char *key, const char *want)
{
	char buf[128];
	out_str(c, key, buf, sizeof(buf));
	if (strcmp(buf, want))
		fprintf(stderr, "%s: got '%s', want '%s'\n", key, buf, want);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

#endif /* VTEST_SIM_CHILD_H */
