/* replay.c — `vela replay TASKS.rec`: re-simulates a recorded task graph
 * on a platform and a scheduler of one's choice, without the application
 * (issue 7: "evaluate schedulers in CI").
 *
 * The graph (replay_rec.c) becomes: one performance model per Model
 * symbol, loaded by the runtime from the models directory like any
 * application's, whose footprint callback returns the footprint recorded
 * for the task (so history models find the entries the original run
 * used); one codelet per (Name, Model, Where), declaring an implementation
 * for each arch the record names; one handle per recorded (handle, size),
 * at its recorded home node when that is a RAM node; the recorded modes,
 * priorities and flops; explicit dependencies from DependsOn, submitted in
 * the original order so that the runtime infers the same data
 * dependencies. Kernels never run: in simulation a task lasts what its
 * model predicts.
 *
 * Simulation wants main() inside SimGrid from the first line (the fast
 * "hijack" boot, sim/README.md): the command checks everything it can,
 * sets the environment (STARPU_SIMGRID=1, the platform, scheduler, worker
 * counts, models, trace) and re-executes itself; the second process
 * (VELA_REPLAY_CHILD=1) runs the graph and prints the makespan.
 */
#include "tools/vela.h"
#include "tools/replay.h"
#include "tools/trace_reader.h"
#include "perfmodel/perfmodel.h"
#include "sched/sched.h"
#include "os/regular_file.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <starpu.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD "replay"

struct options
{
	const char *rec;
	const char *platform;
	const char *sched;
	const char *sched_lib;		/* FILE.so[:SYMBOL]: the policy from a library */
	const char *trace;
	const char *models;
	const char *hostname;
	const char *ncpu, *ncuda, *nopencl;
	const char *default_us;
	unsigned where;			/* for records without Where; 0: cpu */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vela replay TASKS.rec [options]\n"
		"Re-simulates a recorded task graph (a tasks.rec from `vela trace export\n"
		"--format rec`, or StarPU's) on a platform and a scheduler, without the\n"
		"application, and prints the simulated makespan.\n"
		"Options:\n"
		"  --platform P.xml       SimGrid platform (default: STARPU_SIMGRID_PLATFORM,\n"
		"                         else the calibrated platform of --hostname)\n"
		"  --sched POLICY         scheduling policy (default: STARPU_SCHED, else %s)\n"
		"  --sched-lib LIB.so[:SYMBOL]\n"
		"                         the policy of a shared library: SYMBOL (default\n"
		"                         sched_policy) is its struct starpu_sched_policy\n"
		"  --ncpu N, --ncuda N, --nopencl N\n"
		"                         workers of each kind (default: what the platform has)\n"
		"  --models DIR           performance models directory (STARPU_PERF_MODEL_DIR)\n"
		"  --hostname H           whose models and platform to use (STARPU_HOSTNAME)\n"
		"  --default-task-us US   duration of a task whose model has no prediction\n"
		"                         (default: such a task is an error)\n"
		"  --where ARCHS          archs of codelets whose record has no Where field,\n"
		"                         comma-separated: cpu,cuda,opencl (default: cpu)\n"
		"  --trace PREFIX         record a trace of the replay under PREFIX\n"
		"                         (as STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX=PREFIX)\n"
		"Output: 'makespan: US us (MS ms)', the task count, GFlop/s when the\n"
		"records carry GFlop. Exit status: 0, 1 bad input or failed run, 2 usage.\n",
		SCHED_DEFAULT_POLICY);
}

static int parse_count(const char *opt, const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (!*v || *end || n < 0 || n > STARPU_NMAXWORKERS)
	{
		vela_err(CMD, "%s '%s': expected a number of workers between 0 and %d", opt, v, STARPU_NMAXWORKERS);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		if (vela_is_help(a))
		{
			usage(stdout);
			return 1;
		}
		const char **slot = NULL;
		if (!strcmp(a, "--platform"))
			slot = &o->platform;
		else if (!strcmp(a, "--sched"))
			slot = &o->sched;
		else if (!strcmp(a, "--sched-lib"))
			slot = &o->sched_lib;
		else if (!strcmp(a, "--trace"))
			slot = &o->trace;
		else if (!strcmp(a, "--models"))
			slot = &o->models;
		else if (!strcmp(a, "--hostname"))
			slot = &o->hostname;
		else if (!strcmp(a, "--ncpu"))
			slot = &o->ncpu;
		else if (!strcmp(a, "--ncuda"))
			slot = &o->ncuda;
		else if (!strcmp(a, "--nopencl"))
			slot = &o->nopencl;
		else if (!strcmp(a, "--default-task-us"))
			slot = &o->default_us;
		else if (!strcmp(a, "--where"))
		{
			if (i + 1 >= argc)
			{
				vela_err(CMD, "--where needs a value");
				return -1;
			}
			char *copy = strdup(argv[++i]), *save = NULL;
			if (!copy)
				return -1;
			for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (trace_arch_parse(tok, &o->where))
				{
					vela_err(CMD, "--where: unknown arch '%s' (cpu, cuda, opencl)", tok);
					free(copy);
					return -1;
				}
			free(copy);
			if (!o->where)
			{
				vela_err(CMD, "--where '%s' names no arch", argv[i]);
				return -1;
			}
			continue;
		}
		else if (a[0] == '-' && a[1])
		{
			vela_err(CMD, "unknown option '%s' (see --help)", a);
			return -1;
		}
		else if (o->rec)
		{
			vela_err(CMD, "one tasks.rec file only ('%s' and '%s')", o->rec, a);
			return -1;
		}
		else
		{
			o->rec = a;
			continue;
		}
		if (i + 1 >= argc || !argv[i + 1][0])
		{
			vela_err(CMD, "%s needs a value", a);
			return -1;
		}
		*slot = argv[++i];
	}
	if (!o->rec)
	{
		vela_err(CMD, "no tasks.rec file given (see --help)");
		return -1;
	}
	if ((o->ncpu && parse_count("--ncpu", o->ncpu)) || (o->ncuda && parse_count("--ncuda", o->ncuda)) ||
	    (o->nopencl && parse_count("--nopencl", o->nopencl)))
		return -1;
	if (o->default_us)
	{
		char *end;
		double d = strtod(o->default_us, &end);
		if (*end || !(d >= 0) || !isfinite(d))
		{
			vela_err(CMD, "--default-task-us '%s': expected a duration in microseconds", o->default_us);
			return -1;
		}
	}
	if (o->sched && o->sched_lib)
	{
		vela_err(CMD, "--sched and --sched-lib: one policy only");
		return -1;
	}
	if (o->sched && !sched_find_policy(o->sched))
	{
		vela_err(CMD, "--sched '%s': unknown scheduling policy (STARPU_SCHED=help lists them)", o->sched);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Models. */

/* What a Model symbol gets: its type, and whether the runtime can predict
 * with it (else the task has no model and lasts --default-task-us). */
struct model
{
	const char *symbol;
	unsigned type;			/* enum starpu_perfmodel_type */
	int usable;
	struct starpu_perfmodel *pm;	/* owned; NULL when !usable */
};

static int find_model(struct model *m, unsigned n, const char *symbol)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(m[i].symbol, symbol))
			return (int) i;
	return -1;
}

static int history_has(const struct pm_data *d, uint32_t fp)
{
	for (unsigned c = 0; c < d->ncombs; c++)
		for (unsigned i = 0; d->combs[c] && i < STARPU_MAXIMPLEMENTATIONS; i++)
		{
			struct pm_impl *impl = &d->combs[c]->impl[i];
			if (impl->present && pm_history_find(impl, fp))
				return 1;
		}
	return 0;
}

/* One entry per symbol; checks files and, for history models, that every
 * task's footprint has an entry. Without --default-task-us a model that
 * cannot predict a task is an error naming it. report: print errors
 * (the first process); the second one only rebuilds the table. */
static int check_models(const struct replay_graph *g, const struct options *o, struct model **out, unsigned *nout,
			int report)
{
	struct model *m = calloc(g->ntasks ? g->ntasks : 1, sizeof(*m));
	unsigned n = 0;
	int ret = 0;
	*out = NULL;
	*nout = 0;
	if (!m)
	{
		if (report)
			vela_err(CMD, "%s: out of memory", g->path);
		return -1;
	}
	char dir[4096];
	pm_codelets_dir(dir, sizeof(dir));
	for (unsigned i = 0; i < g->ntasks && !ret; i++)
	{
		const struct replay_task *t = &g->tasks[i];
		if (t->nocodelet || !t->model || find_model(m, n, t->model) >= 0)
			continue;
		struct model *x = &m[n++];
		x->symbol = t->model;
		x->type = t->model_type ? t->model_type : STARPU_HISTORY_BASED;
		if (x->type == STARPU_PER_ARCH || x->type == STARPU_COMMON || x->type == STARPU_MULTIPLE_REGRESSION_BASED)
		{
			/* Application functions or parameters, gone with it. */
			if (!o->default_us)
			{
				if (report)
					vela_err(CMD, "%s:%u: model '%s' is %s: its predictions come from the application, so "
						 "they cannot be replayed; give --default-task-us", g->path, t->line, x->symbol,
						 trace_model_type_name(x->type));
				ret = -1;
			}
			continue;
		}
		char path[4300], err[1024] = "";
		struct pm_data d;
		if (!pm_symbol_valid(x->symbol) || pm_model_path(x->symbol, path, sizeof(path)) ||
		    pm_file_load(path, &d, err, sizeof(err)))
		{
			if (!o->default_us)
			{
				/* A file that is there but does not load is corrupt: say why. */
				if (report && pm_symbol_valid(x->symbol) && !pm_model_path(x->symbol, path, sizeof(path)) &&
				    access(path, F_OK) == 0)
					vela_err(CMD, "%s:%u: model '%s': %s", g->path, t->line, x->symbol, err);
				else if (report)
					vela_err(CMD, "%s:%u: no performance model '%s' for host %s in %s; give --models DIR "
						 "--hostname H, or --default-task-us", g->path, t->line, x->symbol, pm_conf.hostname,
						 dir);
				ret = -1;
			}
			continue;
		}
		x->usable = 1;
		if (x->type == STARPU_HISTORY_BASED && !o->default_us)
			for (unsigned k = i; k < g->ntasks && !ret; k++)
			{
				const struct replay_task *u = &g->tasks[k];
				if (u->nocodelet || !u->model || strcmp(u->model, x->symbol) || !u->has_footprint)
					continue;
				if (!history_has(&d, u->footprint))
				{
					if (report)
						vela_err(CMD, "%s:%u: model '%s' has no entry for footprint %08x (job %llu); "
							 "give --default-task-us", g->path, u->line, x->symbol, u->footprint,
							 (unsigned long long) u->job);
					ret = -1;
				}
			}
		pm_data_free(&d);
	}
	*out = m;
	*nout = n;
	return ret;
}

/* ------------------------------------------------------------------ */
/* A policy from a shared library (--sched-lib FILE.so[:SYMBOL]). The
 * library is not linked with libvela: its calls reach the runtime linked
 * into this program (vela is linked with -export-dynamic). */

static struct starpu_sched_policy *load_policy(const char *spec)
{
	char *file = strdup(spec);
	if (!file)
		return NULL;
	char *sym = strrchr(file, ':');
	if (sym)
		*sym++ = 0;
	if (!sym || !*sym)
		sym = "sched_policy";
	struct starpu_sched_policy *p = NULL;
	void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		vela_err(CMD, "--sched-lib '%s': cannot load it: %s", spec, dlerror());
	else if (!(p = dlsym(lib, sym)))
		vela_err(CMD, "--sched-lib '%s': no symbol '%s' in %s", spec, sym, file);
	else if (!p->push_task || !p->pop_task)
	{
		vela_err(CMD, "--sched-lib '%s': '%s' lacks push_task or pop_task (is it a struct starpu_sched_policy?)",
			 spec, sym);
		p = NULL;
	}
	/* A loaded policy stays loaded until exit (the runtime uses it). */
	if (lib && !p)
		dlclose(lib);
	free(file);
	return p;
}

/* ------------------------------------------------------------------ */
/* The first process: checks, then the simulated one. */

static int set(const char *name, const char *value)
{
	if (value && setenv(name, value, 1))
	{
		vela_err(CMD, "cannot set %s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

static int launch(int argc, char **argv, const struct options *o, const struct replay_graph *g)
{
	if (o->platform && access(o->platform, R_OK))
	{
		vela_err(CMD, "--platform '%s': %s", o->platform, strerror(errno));
		return VELA_EXIT_FAIL;
	}
	struct stat st;
	if (o->platform && stat(o->platform, &st) == 0 && !S_ISREG(st.st_mode))
	{
		vela_err(CMD, "--platform '%s' is %s, not a platform file", o->platform, os_file_kind(st.st_mode));
		return VELA_EXIT_FAIL;
	}
	if (set("STARPU_PERF_MODEL_DIR", o->models) || set("STARPU_HOSTNAME", o->hostname) ||
	    pm_settings_load(1, 0))
		return VELA_EXIT_FAIL;
	struct model *m;
	unsigned n;
	int ret = check_models(g, o, &m, &n, 1);
	free(m);
	if (ret)
		return VELA_EXIT_FAIL;
	if (o->sched_lib)
	{
		if (!load_policy(o->sched_lib))
			return VELA_EXIT_FAIL;
		/* STARPU_SCHED would win over the policy given to starpu_init. */
		unsetenv("STARPU_SCHED");
	}
	if (set("STARPU_SIMGRID", "1") || set("STARPU_SIMGRID_PLATFORM", o->platform) || set("STARPU_SCHED", o->sched) ||
	    set("STARPU_NCPU", o->ncpu) || set("STARPU_NCUDA", o->ncuda) || set("STARPU_NOPENCL", o->nopencl) ||
	    set("STARPU_SIMGRID_DEFAULT_TASK_US", o->default_us) || set("VELA_REPLAY_CHILD", "1"))
		return VELA_EXIT_FAIL;
	if (o->trace && (set("STARPU_FXT_TRACE", "1") || set("STARPU_FXT_PREFIX", o->trace)))
		return VELA_EXIT_FAIL;
	/* argv is the subcommand's: the program's own argv[0] comes first. */
	char **args = calloc((size_t) argc + 2, sizeof(*args));
	if (!args)
		return VELA_EXIT_FAIL;
	args[0] = argv[-1];
	for (int i = 0; i < argc; i++)
		args[i + 1] = argv[i];
	fflush(NULL);
	execv("/proc/self/exe", args);
	vela_err(CMD, "cannot re-execute itself for the simulation (/proc/self/exe): %s", strerror(errno));
	free(args);
	return VELA_EXIT_FAIL;
}

/* ------------------------------------------------------------------ */
/* The simulated process: the graph as tasks. */

/* The kernels a codelet declares: the replay only ever runs simulated,
 * where kernels are not called, so the CPU one does nothing and the device
 * ones (declared when the record says the codelet had them) are the
 * simulator's placeholder. */
static void replay_kernel(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static void replay_device_funcs(struct starpu_codelet *cl, unsigned where)
{
	if (where & STARPU_CUDA)
		cl->cuda_funcs[0] = vela_sim_placeholder;
	if (where & STARPU_OPENCL)
		cl->opencl_funcs[0] = vela_sim_placeholder;
}

static uint32_t replay_footprint(struct starpu_task *task)
{
	const struct replay_task *t = task->cl_arg;
	return t && t->has_footprint ? t->footprint : starpu_task_data_footprint(task);
}

struct codelet
{
	const char *name, *model;
	unsigned where;
	struct starpu_codelet cl;
};

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* A vector of size bytes (elements of 1 byte, or larger ones dividing
 * size when it exceeds 32 bits), at home on a RAM node, else with none. */
static int register_handle(starpu_data_handle_t *h, uint64_t size, int home, void **mem)
{
	*mem = NULL;
	if (size == 0)
	{
		starpu_void_data_register(h);
		return 0;
	}
	uint64_t elem = 1;
	while (size / elem > UINT32_MAX || size % elem)
	{
		elem *= 2;
		if (elem > size || elem > (1u << 30))
			return -EINVAL;
	}
	if (home >= 0 && (unsigned) home < starpu_memory_nodes_get_count() && starpu_node_get_kind((unsigned) home) == STARPU_CPU_RAM)
	{
		/* Never touched (kernels do not run): calloc'ed pages cost nothing. */
		*mem = calloc(1, size);
		if (*mem)
		{
			starpu_vector_data_register(h, home, (uintptr_t) *mem, (uint32_t) (size / elem), (size_t) elem);
			return 0;
		}
	}
	starpu_vector_data_register(h, -1, 0, (uint32_t) (size / elem), (size_t) elem);
	return 0;
}

static int run(const struct options *o, struct replay_graph *g)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	if (o->sched_lib && !(conf.sched_policy = load_policy(o->sched_lib)))
		return VELA_EXIT_FAIL;
	int ret = starpu_init(&conf);
	if (ret)
	{
		vela_err(CMD, "starpu_init failed (%d): %s", ret, strerror(-ret));
		return VELA_EXIT_FAIL;
	}
	if (!vela_is_simulated())
	{
		vela_err(CMD, "the simulation did not start (see the message above)");
		starpu_shutdown();
		return VELA_EXIT_FAIL;
	}
	int status = VELA_EXIT_FAIL;
	struct model *models = NULL;
	unsigned nmodels = 0;
	struct codelet *cls = calloc(g->ntasks ? g->ntasks : 1, sizeof(*cls));
	unsigned ncls = 0;
	starpu_data_handle_t *handles = calloc(g->nhandles ? g->nhandles : 1, sizeof(*handles));
	void **mem = calloc(g->nhandles ? g->nhandles : 1, sizeof(*mem));
	unsigned nregistered = 0, ncreated = 0, nsubmitted = 0;
	/* Every failure below says why where it happens; an allocation that
	 * fails says "out of memory" (and nothing else does). */
#define NOMEM() do { vela_err(CMD, "%s: out of memory building the graph", g->path); goto out; } while (0)
	if (!cls || !handles || !mem)
		NOMEM();
	/* Checked by the first process already: it fails here only when the
	 * models changed meanwhile (it says why) or memory ran out. */
	if (check_models(g, o, &models, &nmodels, 1))
		goto out;
	for (unsigned i = 0; i < nmodels; i++)
	{
		if (!models[i].usable)
			continue;
		struct starpu_perfmodel *pm = calloc(1, sizeof(*pm));
		if (!pm)
			NOMEM();
		pm->type = (enum starpu_perfmodel_type) models[i].type;
		pm->symbol = models[i].symbol;
		pm->footprint = replay_footprint;
		models[i].pm = pm;
	}
	for (unsigned h = 0; h < g->nhandles; h++, nregistered++)
		if (register_handle(&handles[h], g->handle_size[h], g->handle_home[h], &mem[h]))
		{
			vela_err(CMD, "%s: a handle of %llu bytes cannot be registered", g->path,
				 (unsigned long long) g->handle_size[h]);
			goto out;
		}

	for (unsigned i = 0; i < g->ntasks; i++, ncreated++)
	{
		struct replay_task *t = &g->tasks[i];
		struct starpu_task *task = starpu_task_create();
		if (!task)
			NOMEM();
		t->task = task;
		task->destroy = 0;
		task->name = t->name ? t->name : t->model;
		task->priority = t->priority;
		task->flops = t->flops;
		task->cl_arg = t;
		if (t->nocodelet)
			continue;
		unsigned where = t->where ? t->where : o->where ? o->where : STARPU_CPU;
		const char *name = t->name ? t->name : t->model;
		unsigned c;
		for (c = 0; c < ncls; c++)
			if (cls[c].where == where && same(cls[c].name, name) && same(cls[c].model, t->model))
				break;
		if (c == ncls)
		{
			struct codelet *x = &cls[ncls++];
			x->name = name;
			x->model = t->model;
			x->where = where;
			if (where & STARPU_CPU)
				x->cl.cpu_funcs[0] = replay_kernel;
			replay_device_funcs(&x->cl, where);
			x->cl.nbuffers = STARPU_VARIABLE_NBUFFERS;
			x->cl.name = name;
			int k = t->model ? find_model(models, nmodels, t->model) : -1;
			x->cl.model = k >= 0 ? models[k].pm : NULL;
		}
		t->codelet = (int) c;
		task->cl = &cls[c].cl;
		/* Named by its codelet, as the application's tasks usually are
		 * (and then the trace interns the name once, not per task). */
		if (task->name && cls[c].cl.name && !strcmp(task->name, cls[c].cl.name))
			task->name = NULL;
		task->nbuffers = (int) t->nbuf;
		if (t->nbuf > STARPU_NMAXBUFS)
		{
			task->dyn_handles = malloc(t->nbuf * sizeof(*task->dyn_handles));
			task->dyn_modes = malloc(t->nbuf * sizeof(*task->dyn_modes));
			if (!task->dyn_handles || !task->dyn_modes)
				NOMEM();
		}
		for (unsigned b = 0; b < t->nbuf; b++)
		{
			unsigned mode = t->bufs[b].mode;
			/* A reduction needs the application's reduction codelets:
			 * replayed as commuting read-writes (same ordering freedom). */
			if (mode & STARPU_REDUX)
				mode = STARPU_RW | STARPU_COMMUTE;
			if (task->dyn_handles)
			{
				task->dyn_handles[b] = handles[t->bufs[b].hidx];
				task->dyn_modes[b] = (enum starpu_data_access_mode) mode;
			}
			else
			{
				task->handles[b] = handles[t->bufs[b].hidx];
				task->modes[b] = (enum starpu_data_access_mode) mode;
			}
		}
	}
	for (unsigned i = 0; i < g->ntasks; i++)
	{
		/* Only what the runtime will not infer from the data again: a
		 * duplicate edge would change nothing but the order in which
		 * successors are released, hence the schedule. */
		struct replay_task *t = &g->tasks[i];
		if (!t->nexplicit)
			continue;
		struct starpu_task **preds = malloc(t->nexplicit * sizeof(*preds));
		if (!preds)
			NOMEM();
		for (unsigned d = 0; d < t->nexplicit; d++)
			preds[d] = g->tasks[t->pred_index[d]].task;
		starpu_task_declare_deps_array(t->task, t->nexplicit, preds);
		free(preds);
	}

	double t0 = starpu_timing_now();
	for (unsigned i = 0; i < g->ntasks; i++, nsubmitted++)
	{
		struct replay_task *t = &g->tasks[i];
		ret = starpu_task_submit(t->task);
		if (ret)
		{
			vela_err(CMD, "%s:%u: job %llu (%s) could not be submitted: %s%s", g->path, t->line,
				 (unsigned long long) t->job, t->task->name ? t->task->name : "no name", strerror(-ret),
				 ret == -ENODEV ? " (no worker of this platform can run its codelet: see Where, --where, "
				 "--ncpu, --ncuda)" : "");
			break;
		}
	}
	starpu_task_wait_for_all();
	double us = starpu_timing_now() - t0;
	unsigned long nfailed = vela_task_failed_count();
	if (nsubmitted == g->ntasks && nfailed)
		vela_err(CMD, "%s: %lu of %u tasks failed (the runtime said why, and counts them at shutdown): "
			 "no makespan for an incomplete run", g->path, nfailed, g->ntasks);
	else if (nsubmitted == g->ntasks)
	{
		char sched[128];
		const char *s = conf.sched_policy ? conf.sched_policy->policy_name : o->sched ? o->sched : getenv("STARPU_SCHED");
		snprintf(sched, sizeof(sched), "%s", s && *s ? s : SCHED_DEFAULT_POLICY);
		const char *plat = getenv("STARPU_SIMGRID_PLATFORM");
		printf("replay: %s: %u tasks, %u dependencies (%u not from data), %u handles, %u codelets\n", g->path,
		       g->ntasks, g->ndeps, g->nexplicit, g->nhandles, ncls);
		printf("simulated on: %s, scheduler %s, %u CPU + %u CUDA + %u OpenCL workers\n",
		       plat && *plat ? plat : "the platform of this host", sched, starpu_cpu_worker_get_count(),
		       starpu_cuda_worker_get_count(), starpu_opencl_worker_get_count());
		printf("makespan: %.3f us (%.6f ms)\n", us, us / 1e3);
		if (g->total_flops > 0 && us > 0)
			printf("GFlop/s: %.3f (%.6g GFlop)\n", g->total_flops / us / 1e3, g->total_flops / 1e9);
		const char *path = vela_trace_get_path();
		if (o->trace && path)
			printf("trace: %s\n", path);
		status = VELA_EXIT_OK;
	}

out:
#undef NOMEM
	/* starpu_task_destroy frees dyn_handles and dyn_modes too (a task
	 * owns the arrays it was given, as in StarPU). */
	for (unsigned i = 0; i < ncreated; i++)
		starpu_task_destroy(g->tasks[i].task);
	for (unsigned h = 0; h < nregistered; h++)
		starpu_data_unregister(handles[h]);
	starpu_shutdown();
	for (unsigned h = 0; mem && h < g->nhandles; h++)
		free(mem[h]);
	for (unsigned i = 0; i < nmodels; i++)
		free(models[i].pm);
	free(models);
	free(cls);
	free(handles);
	free(mem);
	return status;
}

int vela_replay(int argc, char **argv)
{
	struct options o;
	int r = parse_args(argc, argv, &o);
	if (r)
		return r > 0 ? VELA_EXIT_OK : VELA_EXIT_USAGE;
	struct replay_graph g;
	char err[1024];
	if (replay_load(o.rec, &g, err, sizeof(err)))
	{
		vela_err(CMD, "%s", err);
		return VELA_EXIT_FAIL;
	}
	const char *child = getenv("VELA_REPLAY_CHILD");
	int ret = child && !strcmp(child, "1") ? run(&o, &g) : launch(argc, argv, &o, &g);
	replay_free(&g);
	return ret;
}
