/* sched_eval.c — `vela sched-eval`: the command line, the list of cases
 * (platform × GPU count × policy), the pool of processes that simulates
 * them, and the verdict (tools/sched_eval.h says how the parts fit).
 *
 * Bad input that concerns some cases only (an unknown policy, a missing
 * platform, a program that fails on one machine) is an error of those
 * cases: the others still run, every error is one line naming its case,
 * and the exit status is 1. Only a malformed command line stops at once
 * (exit 2).
 */
#define _GNU_SOURCE	/* vasprintf */
#include "tools/sched_eval.h"
#include "tools/vela.h"
#include "sched/sched.h"
#include "os/regular_file.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <starpu.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vela sched-eval [options] TASKS.rec\n"
		"       vela sched-eval [options] -- PROGRAM [ARGS...]\n"
		"Simulates a recorded task graph (replayed as by `vela replay`) or a program\n"
		"(run with STARPU_SIMGRID=1) on every combination of platform, scheduling\n"
		"policy and GPU count, in parallel processes, and compares the policies:\n"
		"a table per platform on stdout, OUT/report.html (bar charts, each case's\n"
		"Gantt chart), OUT/results.json and OUT/results.csv.\n"
		"Options:\n"
		"  -p, --platforms LIST  comma-separated PLATFORM[:MODELS[:HOST]]: an example\n"
		"                        machine by name (platforms/NAME.platform.v4.xml with the\n"
		"                        models of perfmodels/NAME), or a platform file; MODELS a\n"
		"                        models directory or the name of one in perfmodels/, HOST\n"
		"                        the hostname of its files (default: its name)\n"
		"  -s, --sched LIST      comma-separated policies: built-in names, `all` (every\n"
		"                        built-in one), for a program any other name (its own\n"
		"                        policy: STARPU_SCHED is unset and `{sched}` in its\n"
		"                        arguments becomes the name), for a graph LIB.so[:SYMBOL]\n"
		"                        (a struct starpu_sched_policy, default symbol\n"
		"                        `sched_policy`) (default: dmda)\n"
		"  -g, --gpus LIST       GPU counts, e.g. 1,2,4 (default: what each platform has)\n"
		"  --ncpu N              CPU workers (default: the platform's, one core kept per GPU)\n"
		"  -j, --jobs N          simulations at once (default: the number of cores)\n"
		"  --timeout S           a case running longer is killed and fails (default 600,\n"
		"                        0: none)\n"
		"  -o, --output DIR      output directory (default: sched-eval.out)\n"
		"  --baseline FILE       an earlier results.json: a case slower than there by more\n"
		"                        than the tolerance is a regression (exit 1)\n"
		"  --tolerance X         relative slack, e.g. 0.02 or 2%% (default 1%%)\n"
		"  --default-task-us US  duration of tasks without a usable model\n"
		"  --where ARCHS         (graph) archs of records without Where: cpu,cuda,opencl\n"
		"  --no-gantt            no Gantt charts;  --keep-traces: keep each case's trace\n"
		"  -q, --quiet           no progress lines on stderr\n"
		"Exit status: 0 every case ran and none regressed, 1 a case failed or\n"
		"regressed (one line each on stderr), 2 usage error.\n");
}

/* ------------------------------------------------------------------ */
/* Small helpers. */

static char *xstrdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
	{
		vela_err(SE_CMD, "out of memory");
		exit(VELA_EXIT_FAIL);
	}
	return d;
}

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
	{
		vela_err(SE_CMD, "out of memory");
		exit(VELA_EXIT_FAIL);
	}
	va_end(ap);
	return s;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
	{
		vela_err(SE_CMD, "out of memory");
		exit(VELA_EXIT_FAIL);
	}
	return p;
}

/* Splits a comma-separated list into a NULL-terminated array (owned,
 * free with free_list); empty items are an error. */
static char **split(const char *opt, const char *list, unsigned *n)
{
	char **items = xcalloc(strlen(list) + 2, sizeof(*items));
	*n = 0;
	const char *p = list;
	for (;;)
	{
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t) (e - p) : strlen(p);
		if (!len)
		{
			vela_err(SE_CMD, "%s '%s': empty item", opt, list);
			for (unsigned i = 0; i < *n; i++)
				free(items[i]);
			free(items);
			return NULL;
		}
		if (!(items[(*n)++] = strndup(p, len)))
		{
			vela_err(SE_CMD, "out of memory");
			exit(VELA_EXIT_FAIL);
		}
		if (!e)
			break;
		p = e + 1;
	}
	return items;
}

static void free_list(char **items, unsigned n)
{
	for (unsigned i = 0; items && i < n; i++)
		free(items[i]);
	free(items);
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *absolute(const char *p)
{
	if (p[0] == '/')
		return xstrdup(p);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return xstrdup(p);
	return xprintf("%s/%s", cwd, p);
}

/* The shipped files: VELA_DATA_DIR, the installed copy, the source tree. */
static char *data_path(const char *rel)
{
	const char *dirs[] = { getenv("VELA_DATA_DIR"), VELA_PKGDATADIR, VELA_SRCDIR };
	for (unsigned i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
	{
		if (!dirs[i] || !*dirs[i])
			continue;
		char *p = xprintf("%s/%s", dirs[i], rel);
		if (access(p, F_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

/* ------------------------------------------------------------------ */
/* Platforms. */

/* Counts the CUDA hosts; checks that the file looks like a platform. */
static int scan_platform(struct se_platform *pl)
{
	FILE *f = fopen(pl->file, "r");
	if (!f)
	{
		pl->error = xprintf("platform '%s': %s", pl->file, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode))
	{
		pl->error = xprintf("platform '%s' is %s, not a platform file", pl->file, os_file_kind(st.st_mode));
		fclose(f);
		return -1;
	}
	char line[4096];
	int platform = 0, cpu0 = 0;
	while (fgets(line, sizeof(line), f))
	{
		platform |= strstr(line, "<platform") != NULL;
		cpu0 |= strstr(line, "id=\"CPU0\"") != NULL || strstr(line, "id='CPU0'") != NULL;
		for (const char *p = line; (p = strstr(p, "<host id=\"CUDA")); p++)
			if (isdigit((unsigned char) p[14]))
				pl->ngpus++;
	}
	fclose(f);
	if (!platform || !cpu0)
	{
		pl->error = xprintf("platform '%s': not a SimGrid platform of Vela (%s)", pl->file,
				    !platform ? "no <platform> element" : "no host CPU0");
		return -1;
	}
	return 0;
}

static void resolve_platform(struct se_platform *pl, const char *spec)
{
	char *copy = xstrdup(spec);
	char *models = strchr(copy, ':'), *host = NULL;
	if (models)
	{
		*models++ = 0;
		if ((host = strchr(models, ':')))
			*host++ = 0;
	}
	const char *plat = copy;
	size_t len = strlen(plat);
	int by_name = !strchr(plat, '/') && !(len > 4 && !strcmp(plat + len - 4, ".xml")) && access(plat, F_OK);
	if (by_name)
	{
		pl->name = xstrdup(plat);
		char *rel = xprintf("platforms/%s.platform.v4.xml", plat);
		pl->file = data_path(rel);
		if (!pl->file)
			pl->error = xprintf("platform '%s': no file %s among the example machines (platforms/README.md) "
					    "and no such file", plat, rel);
		free(rel);
	}
	else
	{
		pl->file = absolute(plat);
		const char *b = base_name(plat);
		size_t bl = strlen(b);
		const char *suffixes[] = { ".platform.v4.xml", ".platform.xml", ".xml" };
		for (unsigned i = 0; i < 3; i++)
		{
			size_t sl = strlen(suffixes[i]);
			if (bl > sl && !strcmp(b + bl - sl, suffixes[i]))
			{
				bl -= sl;
				break;
			}
		}
		pl->name = strndup(b, bl);
	}
	/* Models: given (a directory, or a name in perfmodels/), else those
	 * of an example machine of the same name, else the environment's. */
	const char *mname = models && *models ? models : by_name ? plat : NULL;
	if (mname && (strchr(mname, '/') || is_dir(mname)))
	{
		if (!is_dir(mname))
		{
			if (!pl->error)
				pl->error = xprintf("platform '%s': models '%s': no such directory", pl->name, mname);
		}
		else
			pl->models = absolute(mname);
	}
	else if (mname)
	{
		char *rel = xprintf("perfmodels/%s", mname);
		pl->models = data_path(rel);
		if (!pl->models && models && *models && !pl->error)
			pl->error = xprintf("platform '%s': models '%s': no such directory, nor a directory of perfmodels/",
					    pl->name, mname);
		free(rel);
	}
	if (pl->models)
		pl->hostname = xstrdup(host && *host ? host : base_name(pl->models));
	else if (host && *host)
		pl->hostname = xstrdup(host);
	if (!pl->error && pl->file)
		scan_platform(pl);
	free(copy);
}

/* ------------------------------------------------------------------ */
/* Policies. */

static void add_policy(struct se_run *run, const char *spec, int graph)
{
	struct se_policy *p = &run->policies[run->npolicies++];
	p->spec = xstrdup(spec);
	int library = strstr(spec, ".so") || strchr(spec, '/');
	if (sched_find_policy(spec))
	{
		p->kind = SE_BUILTIN;
		p->name = xstrdup(spec);
	}
	else if (!library && !graph)
	{
		p->kind = SE_PROGRAM;
		p->name = xstrdup(spec);
	}
	else if (!library)
	{
		char names[512];
		sched_policy_names(names, sizeof(names));
		p->kind = SE_UNKNOWN;
		p->name = xstrdup(spec);
		p->error = xprintf("policy '%s': unknown (built-in: %s; or LIB.so[:SYMBOL])", spec, names);
	}
	else if (!graph)
	{
		p->kind = SE_UNKNOWN;
		p->name = xstrdup(spec);
		p->error = xprintf("policy '%s': a policy from a shared library is for a replayed graph; "
				   "a program brings its own policy", spec);
	}
	else
	{
		/* Only to learn its name and check it: the replay loads it again. */
		p->kind = SE_LIBRARY;
		char *file = xstrdup(spec), *sym = strrchr(file, ':');
		if (sym)
			*sym++ = 0;
		if (!sym || !*sym)
			sym = "sched_policy";
		void *lib = dlopen(file, RTLD_LAZY | RTLD_LOCAL);
		const struct starpu_sched_policy *sp = lib ? dlsym(lib, sym) : NULL;
		if (!lib)
			p->error = xprintf("policy '%s': cannot load the library: %s", spec, dlerror());
		else if (!sp)
			p->error = xprintf("policy '%s': no symbol '%s' in %s", spec, sym, file);
		p->name = xstrdup(sp && sp->policy_name && *sp->policy_name ? sp->policy_name : spec);
		if (p->error)
			p->kind = SE_UNKNOWN;
		if (lib)
			dlclose(lib);
		free(file);
	}
}

/* ------------------------------------------------------------------ */
/* Arguments. */

static int parse_number(const char *opt, const char *v, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < lo || n > hi)
	{
		vela_err(SE_CMD, "%s '%s': expected a whole number from %ld to %ld", opt, v, lo, hi);
		return -1;
	}
	*out = n;
	return 0;
}

struct args
{
	const char *platforms, *sched, *gpus, *baseline, *tolerance, *output, *jobs, *timeout;
};

static int parse_args(int argc, char **argv, struct se_run *run, struct args *a)
{
	memset(a, 0, sizeof(*a));
	run->gantt = 1;
	for (int i = 1; i < argc; i++)
	{
		const char *o = argv[i];
		const char **slot = NULL;
		if (vela_is_help(o))
		{
			usage(stdout);
			return 1;
		}
		if (!strcmp(o, "--"))
		{
			if (i + 1 >= argc)
			{
				vela_err(SE_CMD, "'--' must be followed by a program to run");
				return -1;
			}
			run->argv = argv + i + 1;
			break;
		}
		if (!strcmp(o, "-p") || !strcmp(o, "--platforms"))
			slot = &a->platforms;
		else if (!strcmp(o, "-s") || !strcmp(o, "--sched"))
			slot = &a->sched;
		else if (!strcmp(o, "-g") || !strcmp(o, "--gpus"))
			slot = &a->gpus;
		else if (!strcmp(o, "-j") || !strcmp(o, "--jobs"))
			slot = &a->jobs;
		else if (!strcmp(o, "-o") || !strcmp(o, "--output"))
			slot = &a->output;
		else if (!strcmp(o, "--baseline"))
			slot = &a->baseline;
		else if (!strcmp(o, "--timeout"))
			slot = &a->timeout;
		else if (!strcmp(o, "--tolerance"))
			slot = &a->tolerance;
		else if (!strcmp(o, "--ncpu"))
			slot = &run->ncpu;
		else if (!strcmp(o, "--default-task-us"))
			slot = &run->default_us;
		else if (!strcmp(o, "--where"))
			slot = &run->where;
		else if (!strcmp(o, "--no-gantt"))
			run->gantt = 0;
		else if (!strcmp(o, "--keep-traces"))
			run->keep_traces = 1;
		else if (!strcmp(o, "-q") || !strcmp(o, "--quiet"))
			run->quiet = 1;
		else if (o[0] == '-' && o[1])
		{
			vela_err(SE_CMD, "unknown option '%s' (see --help)", o);
			return -1;
		}
		else if (run->rec)
		{
			vela_err(SE_CMD, "one tasks.rec only ('%s' and '%s'); a program comes after '--'", run->rec, o);
			return -1;
		}
		else
			run->rec = o;
		if (!slot)
			continue;
		if (i + 1 >= argc || !argv[i + 1][0])
		{
			vela_err(SE_CMD, "%s needs a value", o);
			return -1;
		}
		*slot = argv[++i];
	}
	if (!run->rec == !run->argv)
	{
		vela_err(SE_CMD, run->rec ? "a tasks.rec or a program after '--', not both"
				 : "nothing to evaluate: give a tasks.rec, or '--' and a program (see --help)");
		return -1;
	}
	if (!a->platforms)
	{
		vela_err(SE_CMD, "no platform: give -p NAME|FILE,... (platforms/README.md lists the example machines)");
		return -1;
	}
	if (run->where && !run->rec)
	{
		vela_err(SE_CMD, "--where is for a replayed graph");
		return -1;
	}
	return 0;
}

static int parse_tolerance(const char *s, double *tol)
{
	char *end;
	double v = strtod(s, &end);
	if (end != s && *end == '%' && !end[1])
		v /= 100;
	else if (end == s || *end)
		v = -1;
	if (!(v >= 0) || !isfinite(v))
	{
		vela_err(SE_CMD, "--tolerance '%s': expected a fraction (0.05) or a percentage (5%%)", s);
		return -1;
	}
	*tol = v;
	return 0;
}

/* Platforms, policies, GPU counts, then the cases in a fixed order:
 * platform, GPU count, policy. */
static int build_cases(struct se_run *run, const struct args *a)
{
	char **items;
	unsigned n;
	if (!(items = split("--platforms", a->platforms, &n)))
		return -1;
	run->platforms = xcalloc(n, sizeof(*run->platforms));
	for (unsigned i = 0; i < n; i++)
		resolve_platform(&run->platforms[run->nplatforms++], items[i]);
	free_list(items, n);

	if (!(items = split("--sched", a->sched ? a->sched : "dmda", &n)))
		return -1;
	unsigned nbuiltin = 0;
	while (sched_predefined[nbuiltin])
		nbuiltin++;
	run->policies = xcalloc(n * (nbuiltin + 1), sizeof(*run->policies));
	for (unsigned i = 0; i < n; i++)
	{
		if (strcmp(items[i], "all"))
			add_policy(run, items[i], run->rec != NULL);
		else
			for (unsigned k = 0; k < nbuiltin; k++)
				add_policy(run, sched_predefined[k]->policy_name, run->rec != NULL);
	}
	free_list(items, n);

	if (a->gpus)
	{
		if (!(items = split("--gpus", a->gpus, &n)))
			return -1;
		run->gpus = xcalloc(n, sizeof(*run->gpus));
		for (unsigned i = 0; i < n; i++)
		{
			long g;
			if (parse_number("--gpus", items[i], 0, STARPU_NMAXWORKERS, &g))
			{
				free_list(items, n);
				return -1;
			}
			run->gpus[run->ngpus++] = (int) g;
		}
		free_list(items, n);
	}
	else
	{
		run->gpus = xcalloc(1, sizeof(*run->gpus));
		run->gpus[0] = -1;
		run->ngpus = 1;
	}

	/* A GPU count above what a machine has is left out for that machine
	 * (a CPU-only machine beside GPU ones), with a note. */
	run->cases = xcalloc((size_t) run->nplatforms * run->ngpus * run->npolicies, sizeof(*run->cases));
	for (unsigned p = 0; p < run->nplatforms; p++)
		for (unsigned g = 0; g < run->ngpus; g++)
		{
			const struct se_platform *pl = &run->platforms[p];
			if (!pl->error && run->gpus[g] > pl->ngpus)
			{
				if (!run->quiet)
					fprintf(stderr, "vela %s: note: %s has %d GPU%s: %d left out\n", SE_CMD, pl->name,
						pl->ngpus, pl->ngpus == 1 ? "" : "s", run->gpus[g]);
				continue;
			}
			for (unsigned k = 0; k < run->npolicies; k++)
			{
				struct se_case *c = &run->cases[run->ncases];
				c->platform = p;
				c->policy = k;
				c->gpus = run->gpus[g];
				snprintf(c->dir, sizeof(c->dir), "cases/%03u", run->ncases);
				run->ncases++;
			}
		}
	return 0;
}

const char *se_case_label(const struct se_run *run, const struct se_case *c, char *buf, size_t len)
{
	const struct se_platform *pl = &run->platforms[c->platform];
	int g = c->gpus >= 0 ? c->gpus : pl->ngpus;
	snprintf(buf, len, "%s on %s, %d GPU%s", run->policies[c->policy].name, pl->name, g, g == 1 ? "" : "s");
	return buf;
}

/* ------------------------------------------------------------------ */
/* The pool: one process per case, at most run->jobs at once. Each writes
 * its result file; the order of completion changes nothing. */

static void run_cases(struct se_run *run)
{
	pid_t *pids = xcalloc(run->ncases, sizeof(*pids));
	unsigned next = 0, running = 0, done = 0;
	fflush(NULL);
	while (done < run->ncases)
	{
		while (running < run->jobs && next < run->ncases)
		{
			struct se_case *c = &run->cases[next];
			char *dir = xprintf("%s/%s", run->outdir, c->dir);
			mkdir(dir, 0777);
			free(dir);
			pid_t pid = fork();
			if (pid == 0)
			{
				free(pids);
				se_case_run(run, c);
				fflush(NULL);
				_exit(0);
			}
			if (pid < 0)
			{
				snprintf(c->r.error, sizeof(c->r.error), "cannot start a process: %s", strerror(errno));
				done++;
			}
			else
			{
				pids[next] = pid;
				running++;
			}
			next++;
		}
		int status;
		pid_t pid = wait(&status);
		if (pid < 0)
			break;
		for (unsigned i = 0; i < run->ncases; i++)
			if (pids[i] == pid)
			{
				struct se_case *c = &run->cases[i];
				pids[i] = 0;
				running--;
				done++;
				se_result_read(run, c);
				if (!run->quiet)
				{
					char label[256];
					se_case_label(run, c, label, sizeof(label));
					if (c->r.ok)
						fprintf(stderr, "[%u/%u] %s: %.3f ms\n", done, run->ncases, label, c->r.makespan_ms);
					else
						fprintf(stderr, "[%u/%u] %s: error\n", done, run->ncases, label);
				}
			}
	}
	free(pids);
}

static void compute_ratios(struct se_run *run)
{
	for (unsigned i = 0; i < run->ncases; i++)
	{
		struct se_case *c = &run->cases[i];
		double best = 0;
		for (unsigned j = 0; j < run->ncases; j++)
		{
			const struct se_case *d = &run->cases[j];
			if (d->r.ok && d->platform == c->platform && d->gpus == c->gpus &&
			    (best == 0 || d->r.makespan_ms < best))
				best = d->r.makespan_ms;
		}
		c->vs_best = c->r.ok && best > 0 ? c->r.makespan_ms / best : 0;
	}
}

/* One line per bad platform or policy (its cases did not run), then one
 * per case that failed. Returns the number of failed cases. */
static unsigned report_errors(const struct se_run *run)
{
	unsigned nfailed = 0;
	for (unsigned p = 0; p < run->nplatforms; p++)
		if (run->platforms[p].error)
			vela_err(SE_CMD, "%s (its cases not run)", run->platforms[p].error);
	for (unsigned k = 0; k < run->npolicies; k++)
		if (run->policies[k].error)
			vela_err(SE_CMD, "%s (its cases not run)", run->policies[k].error);
	for (unsigned i = 0; i < run->ncases; i++)
	{
		const struct se_case *c = &run->cases[i];
		if (c->r.ok)
			continue;
		nfailed++;
		if (run->platforms[c->platform].error || run->policies[c->policy].error)
			continue;
		char label[256];
		vela_err(SE_CMD, "%s: %s", se_case_label(run, c, label, sizeof(label)), c->r.error);
	}
	return nfailed;
}

static void free_run(struct se_run *run)
{
	for (unsigned i = 0; i < run->nplatforms; i++)
	{
		struct se_platform *p = &run->platforms[i];
		free(p->name);
		free(p->file);
		free(p->models);
		free(p->hostname);
		free(p->error);
	}
	for (unsigned i = 0; i < run->npolicies; i++)
	{
		free(run->policies[i].name);
		free(run->policies[i].spec);
		free(run->policies[i].error);
	}
	free(run->platforms);
	free(run->policies);
	free(run->gpus);
	free(run->cases);
}

int vela_sched_eval(int argc, char **argv)
{
	struct se_run run;
	struct args a;
	memset(&run, 0, sizeof(run));
	int r = parse_args(argc, argv, &run, &a);
	if (r)
		return r > 0 ? VELA_EXIT_OK : VELA_EXIT_USAGE;
	double tolerance = 0.01;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN), timeout = 600;
	if ((a.tolerance && parse_tolerance(a.tolerance, &tolerance)) ||
	    (a.jobs && parse_number("--jobs", a.jobs, 1, 1024, &jobs)) ||
	    (a.timeout && parse_number("--timeout", a.timeout, 0, 7 * 24 * 3600, &timeout)) ||
	    (run.ncpu && parse_number("--ncpu", run.ncpu, 0, STARPU_NMAXWORKERS, &(long) { 0 })))
		return VELA_EXIT_USAGE;
	if (run.default_us)
	{
		char *end;
		double d = strtod(run.default_us, &end);
		if (*end || end == run.default_us || !(d >= 0) || !isfinite(d))
		{
			vela_err(SE_CMD, "--default-task-us '%s': expected a duration in microseconds", run.default_us);
			return VELA_EXIT_USAGE;
		}
	}
	run.jobs = jobs > 0 ? (unsigned) jobs : 1;
	run.timeout_s = (unsigned) timeout;
	if (a.baseline && access(a.baseline, R_OK))
	{
		vela_err(SE_CMD, "--baseline '%s': %s", a.baseline, strerror(errno));
		return VELA_EXIT_USAGE;
	}
	if (run.rec)
	{
		/* Read by every case; an unreadable one is still each case's error. */
		char *abs = absolute(run.rec);
		run.rec = abs;
	}
	if (build_cases(&run, &a))
	{
		free_run(&run);
		free((char *) run.rec);
		return VELA_EXIT_USAGE;
	}
	char *outdir = absolute(a.output ? a.output : "sched-eval.out");
	run.outdir = outdir;
	char *cases = xprintf("%s/cases", outdir);
	if ((mkdir(outdir, 0777) && errno != EEXIST) || (mkdir(cases, 0777) && errno != EEXIST) || !is_dir(cases))
	{
		vela_err(SE_CMD, "--output '%s': cannot create the directory: %s", outdir, strerror(errno));
		free(cases);
		free(outdir);
		free_run(&run);
		free((char *) run.rec);
		return VELA_EXIT_FAIL;
	}
	free(cases);

	run_cases(&run);
	compute_ratios(&run);

	int status = report_errors(&run) ? VELA_EXIT_FAIL : VELA_EXIT_OK;
	se_print_tables(&run, stdout);
	char *json = xprintf("%s/results.json", outdir), *csv = xprintf("%s/results.csv", outdir),
	     *html = xprintf("%s/report.html", outdir);
	if (se_write_json(&run, json) || se_write_csv(&run, csv) || se_write_html(&run, html))
		status = VELA_EXIT_FAIL;
	else
		printf("\nreport: %s\nresults: %s, %s\n", html, json, csv);
	free(json);
	free(csv);
	free(html);
	if (a.baseline)
	{
		fflush(stdout);
		int nreg = se_compare_baseline(&run, a.baseline, tolerance, stdout, stderr);
		if (nreg != 0)
			status = VELA_EXIT_FAIL;
	}
	free_run(&run);
	free((char *) run.rec);
	free(outdir);
	return status;
}
