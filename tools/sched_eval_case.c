/* sched_eval_case.c — one case of `vela sched-eval`: its simulation run in
 * a child process (the program with STARPU_SIMGRID=1, or `vela replay`),
 * its trace turned into figures and a Gantt chart, the result written to
 * a small file that the parent reads back (the case runs in a process of
 * the pool, so the reading of large traces is parallel too).
 *
 * The result file, CASE/result, is one "key value" line per figure; an
 * error is "error MESSAGE" (one line).
 */
#define _GNU_SOURCE	/* asprintf, strsignal */
#include "tools/sched_eval.h"
#include "tools/trace_reader.h"
#include "trace/trace_format.h"
#include "sched/sched.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <starpu.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void fail(struct se_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct se_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	r->ok = 0;
	for (char *p = r->error; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

/* dir/name, malloc'ed; NULL when out of memory (callers then fail). */
static char *join(const char *dir, const char *name)
{
	char *p;
	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* Removes what an earlier evaluation left in the case's directory. */
static void clean_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
	{
		if (e->d_name[0] == '.')
			continue;
		char *p = join(dir, e->d_name);
		if (p)
			unlink(p);
		free(p);
	}
	closedir(d);
}

/* What the run said last about its failure: the first line of its stderr
 * that reports an error ("error:", as the runtime's messages do), else its
 * last non-empty line (a tool's "vela replay: ..."). */
static void failure_line(const char *path, char *buf, size_t len)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[1024];
	int found = 0;
	while (!found && fgets(line, sizeof(line), f))
	{
		size_t n = strcspn(line, "\r\n");
		line[n] = 0;
		found = strstr(line, "error:") != NULL;
		if (n)
			snprintf(buf, len, "%.*s", (int) len - 1, line);
	}
	fclose(f);
}

/* argv with "{sched}" replaced by the policy's name (owned array; the
 * strings it makes are leaked into the exec'ed child). */
static char **program_args(char **argv, const char *policy)
{
	size_t n = 0;
	while (argv[n])
		n++;
	char **a = calloc(n + 1, sizeof(*a));
	if (!a)
		return NULL;
	for (size_t i = 0; i < n; i++)
	{
		const char *s = argv[i], *m = strstr(s, "{sched}");
		if (!m)
		{
			a[i] = argv[i];
			continue;
		}
		size_t len = strlen(s) + strlen(policy) + 1;
		char *x = malloc(len);
		if (!x)
			return NULL;
		snprintf(x, len, "%.*s%s%s", (int) (m - s), s, policy, m + 7);
		a[i] = x;
	}
	return a;
}

static int setenv_opt(const char *name, const char *value)
{
	return value ? setenv(name, value, 1) : unsetenv(name);
}

/* The simulation's process group, killed when the case runs out of time. */
static volatile pid_t sim_pid;
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void) sig;
	timed_out = 1;
	if (sim_pid > 0)
		kill(-sim_pid, SIGKILL);
}

/* In the forked child: the simulation itself. Never returns. */
static void exec_simulation(const struct se_run *run, const struct se_case *c, const char *dir)
{
	/* Its own process group: a timeout kills whatever it started too. */
	setpgid(0, 0);
	const struct se_platform *pl = &run->platforms[c->platform];
	const struct se_policy *po = &run->policies[c->policy];
	char gpus[16];
	snprintf(gpus, sizeof(gpus), "%d", c->gpus);
	char *out_path = join(dir, "stdout"), *err_path = join(dir, "stderr"), *trace_dir = join(dir, "");
	if (!out_path || !err_path || !trace_dir)
		_exit(126);
	int in = open("/dev/null", O_RDONLY);
	int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	close(in);
	close(out);
	close(err);
	if (run->rec)
	{
		/* vela replay sets the simulation's environment from its options. */
		const char *args[32];
		unsigned n = 0;
		args[n++] = "vela";
		args[n++] = "replay";
		args[n++] = run->rec;
		args[n++] = "--platform";
		args[n++] = pl->file;
		if (pl->models)
		{
			args[n++] = "--models";
			args[n++] = pl->models;
		}
		if (pl->hostname)
		{
			args[n++] = "--hostname";
			args[n++] = pl->hostname;
		}
		args[n++] = po->kind == SE_LIBRARY ? "--sched-lib" : "--sched";
		args[n++] = po->kind == SE_LIBRARY ? po->spec : po->name;
		if (c->gpus >= 0)
		{
			args[n++] = "--ncuda";
			args[n++] = gpus;
		}
		if (run->ncpu)
		{
			args[n++] = "--ncpu";
			args[n++] = run->ncpu;
		}
		if (run->default_us)
		{
			args[n++] = "--default-task-us";
			args[n++] = run->default_us;
		}
		if (run->where)
		{
			args[n++] = "--where";
			args[n++] = run->where;
		}
		args[n++] = "--trace";
		args[n++] = trace_dir;
		args[n] = NULL;
		unsetenv("VELA_REPLAY_CHILD");
		execv("/proc/self/exe", (char **) args);
		fprintf(stderr, "cannot run vela replay (/proc/self/exe): %s\n", strerror(errno));
		_exit(127);
	}
	if (setenv("STARPU_SIMGRID", "1", 1) || setenv("STARPU_SIMGRID_PLATFORM", pl->file, 1) ||
	    (pl->models && setenv("STARPU_PERF_MODEL_DIR", pl->models, 1)) ||
	    (pl->hostname && setenv("STARPU_HOSTNAME", pl->hostname, 1)) ||
	    setenv_opt("STARPU_SCHED", po->kind == SE_BUILTIN ? po->name : NULL) ||
	    (c->gpus >= 0 && setenv("STARPU_NCUDA", gpus, 1)) || (run->ncpu && setenv("STARPU_NCPU", run->ncpu, 1)) ||
	    (run->default_us && setenv("STARPU_SIMGRID_DEFAULT_TASK_US", run->default_us, 1)) ||
	    setenv("STARPU_FXT_TRACE", "1", 1) || setenv("STARPU_FXT_PREFIX", trace_dir, 1))
		_exit(126);
	char **args = program_args(run->argv, po->name);
	if (!args)
		_exit(126);
	execvp(args[0], args);
	fprintf(stderr, "cannot run '%s': %s\n", args[0], strerror(errno));
	_exit(127);
}

/* The trace the run left in dir: its path, or -1 (none). */
static char *find_trace(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	struct dirent *e;
	char *found = NULL;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "vela_trace_", 11))
		{
			free(found);
			found = join(dir, e->d_name);
		}
	closedir(d);
	return found;
}

/* The name under which the runtime knows a built-in policy (modular-X
 * is tree-X), to compare with the trace's. */
static const char *canonical(const struct se_policy *po)
{
	if (po->kind == SE_BUILTIN)
	{
		struct starpu_sched_policy *p = sched_find_policy(po->name);
		if (p)
			return p->policy_name;
	}
	return po->name;
}

static void analyse(const struct se_run *run, const struct se_case *c, const char *dir, struct se_result *r)
{
	char err[1024];
	char *path = find_trace(dir);
	if (!path)
	{
		fail(r, "the run recorded no trace: did the program call starpu_init (of Vela, not StarPU)?");
		return;
	}
	struct trace t;
	if (trace_load(path, &t, err, sizeof(err)))
	{
		fail(r, "its trace: %s", err);
		free(path);
		return;
	}
	struct trace_stats s;
	const struct se_policy *po = &run->policies[c->policy];
	unsigned long failed = 0;
	const struct tr_task *first_failed = NULL;
	for (unsigned i = 0; i < t.ntasks; i++)
		if (t.tasks[i].flags & TTF_FAILED && !failed++)
			first_failed = &t.tasks[i];
	if (!t.complete)
		fail(r, "its trace is incomplete: %s", t.stop_reason);
	else if (!(t.flags & TRACE_FILE_SIMULATED))
		fail(r, "the run was not simulated (is the SimGrid plugin there? VELA_SIM_PLUGIN)");
	else if (failed)
		fail(r, "%lu task(s) failed, the first job %llu (%s); see %s/stderr", failed,
		     (unsigned long long) first_failed->job, first_failed->name ? first_failed->name : "no name", c->dir);
	else if (!t.policy || strcmp(t.policy, canonical(po)))
		fail(r, "policy '%s': the run used '%s'%s", po->name, t.policy ? t.policy : "?",
		     po->kind == SE_PROGRAM ? " (not a built-in policy: the program must select its own, e.g. from "
		     "{sched} in its arguments)" : "");
	else if (trace_compute_stats(&t, &s))
		fail(r, "out of memory reading its trace");
	else
	{
		r->ok = 1;
		r->makespan_ms = s.makespan_us / 1e3;
		r->ntasks = s.ntasks;
		snprintf(r->policy_ran, sizeof(r->policy_ran), "%.127s", t.policy);
		for (unsigned i = 0; i < t.ntasks; i++)
			r->gflop += t.tasks[i].flops / 1e9;
		double idle[3] = { 0, 0, 0 };
		unsigned count[3] = { 0, 0, 0 };
		for (unsigned w = 0; w < t.nworkers; w++)
		{
			unsigned k = t.workers[w].arch == STARPU_CPU_WORKER ? 0 : t.workers[w].arch == STARPU_CUDA_WORKER ? 1
				   : t.workers[w].arch == STARPU_OPENCL_WORKER ? 2 : 3;
			if (k > 2)
				continue;
			count[k]++;
			idle[k] += s.workers[w].idle_us + s.workers[w].sleep_us;
		}
		double *shares[3] = { &r->idle_cpu, &r->idle_cuda, &r->idle_opencl };
		for (unsigned k = 0; k < 3; k++)
			*shares[k] = count[k] && s.makespan_us > 0 ? idle[k] / (count[k] * s.makespan_us) : -1;
		r->ncpu = count[0];
		r->ncuda = count[1];
		r->nopencl = count[2];
		for (unsigned i = 0; i < t.ntransfers; i++)
			r->bytes_moved += t.transfers[i].bytes;
		r->ntransfers = t.ntransfers;
		trace_stats_free(&s);
		if (run->gantt)
		{
			char *svg = join(dir, "gantt.svg");
			FILE *f = svg ? fopen(svg, "w") : NULL;
			int ret = f ? trace_export_svg(&t, f) : -errno;
			if (f && fclose(f) && !ret)
				ret = -EIO;
			if (ret)
				fail(r, "cannot write its Gantt chart %s: %s", svg ? svg : dir, strerror(-ret));
			else
				snprintf(r->gantt, sizeof(r->gantt), "%.60s/gantt.svg", c->dir);
			free(svg);
		}
	}
	trace_free(&t);
	if (!run->keep_traces)
		unlink(path);
	free(path);
}

static void check_case(const struct se_run *run, const struct se_case *c, struct se_result *r)
{
	const struct se_platform *pl = &run->platforms[c->platform];
	const struct se_policy *po = &run->policies[c->policy];
	if (pl->error)
		fail(r, "%s", pl->error);
	else if (po->error)
		fail(r, "%s", po->error);
	else
		r->ok = 1;
}

void se_case_run(const struct se_run *run, const struct se_case *c)
{
	struct se_result r;
	memset(&r, 0, sizeof(r));
	char *dir = join(run->outdir, c->dir), *err_path = dir ? join(dir, "stderr") : NULL,
	     *path = dir ? join(dir, "result") : NULL;
	if (!dir || !err_path || !path)
		return;
	clean_dir(dir);
	check_case(run, c, &r);
	if (r.ok)
	{
		r.ok = 0;
		pid_t pid = fork();
		if (pid == 0)
			exec_simulation(run, c, dir);
		int status = 0, w = -1;
		if (pid > 0)
		{
			setpgid(pid, pid);	/* also here: no race with the child's own call */
			sim_pid = pid;
			signal(SIGALRM, on_alarm);
			alarm(run->timeout_s);
			while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
				;
			alarm(0);
		}
		if (pid < 0)
			fail(&r, "cannot start a process: %s", strerror(errno));
		else if (w < 0)
			fail(&r, "waitpid: %s", strerror(errno));
		else
		{
			char line[400];
			failure_line(err_path, line, sizeof(line));
			if (timed_out)
				fail(&r, "the run took longer than %u s (--timeout) and was killed", run->timeout_s);
			else if (WIFSIGNALED(status))
				fail(&r, "the run was killed by signal %d (%s)%s%s", WTERMSIG(status), strsignal(WTERMSIG(status)),
				     *line ? ": " : "", line);
			else if (WEXITSTATUS(status))
				fail(&r, "the run exited with status %d%s%s", WEXITSTATUS(status), *line ? ": " : "", line);
			else
				analyse(run, c, dir, &r);
		}
	}
	FILE *f = fopen(path, "w");
	free(dir);
	free(err_path);
	free(path);
	if (!f)
		return;
	if (!r.ok)
		fprintf(f, "error %s\n", r.error);
	else
		fprintf(f, "makespan_ms %.6f\ngflop %.9g\ntasks %lu\nworkers %u %u %u\nidle %.6f %.6f %.6f\n"
			"moved %llu %lu\npolicy %s\ngantt %s\n", r.makespan_ms, r.gflop, r.ntasks, r.ncpu, r.ncuda,
			r.nopencl, r.idle_cpu, r.idle_cuda, r.idle_opencl, (unsigned long long) r.bytes_moved, r.ntransfers,
			r.policy_ran, r.gantt);
	fclose(f);
}

int se_result_read(const struct se_run *run, struct se_case *c)
{
	struct se_result *r = &c->r;
	memset(r, 0, sizeof(*r));
	char line[1024];
	char *dir = join(run->outdir, c->dir), *path = dir ? join(dir, "result") : NULL;
	FILE *f = path ? fopen(path, "r") : NULL;
	free(dir);
	if (!f)
	{
		fail(r, "the case's process wrote no result (%s/result)", c->dir);
		free(path);
		return -1;
	}
	int ok = 0;
	unsigned long long moved = 0;
	while (fgets(line, sizeof(line), f))
	{
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "error ", 6))
		{
			fail(r, "%s", line + 6);
			fclose(f);
			free(path);
			return 0;
		}
		ok |= sscanf(line, "makespan_ms %lf", &r->makespan_ms) == 1;
		sscanf(line, "gflop %lf", &r->gflop);
		sscanf(line, "tasks %lu", &r->ntasks);
		sscanf(line, "workers %u %u %u", &r->ncpu, &r->ncuda, &r->nopencl);
		sscanf(line, "idle %lf %lf %lf", &r->idle_cpu, &r->idle_cuda, &r->idle_opencl);
		if (sscanf(line, "moved %llu %lu", &moved, &r->ntransfers) == 2)
			r->bytes_moved = moved;
		if (!strncmp(line, "policy ", 7))
			snprintf(r->policy_ran, sizeof(r->policy_ran), "%.127s", line + 7);
		if (!strncmp(line, "gantt ", 6))
			snprintf(r->gantt, sizeof(r->gantt), "%.255s", line + 6);
	}
	fclose(f);
	free(path);
	r->ok = ok;
	if (!ok)
		fail(r, "the case's result file %s/result is incomplete", c->dir);
	return ok ? 0 : -1;
}
