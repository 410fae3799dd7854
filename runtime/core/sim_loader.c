/* sim_loader.c — libvela's side of simulation (see sim_loader.h and
 * sim/sim.h): the STARPU_SIMGRID switch, loading libvela-sim.so, the two
 * boots, and the simulated duration of a task.
 *
 * The fast boot interposes glibc's __libc_start_main: the executable's
 * _start binds to ours because libvela precedes libc in the lookup scope.
 * With STARPU_SIMGRID=1 in the environment (and VELA_SIM_BOOT not
 * "attach"), main() then runs inside a simulated actor from its first
 * line; otherwise the real __libc_start_main runs main() untouched. When
 * the plugin or the platform cannot be loaded, main() still runs, for
 * real, and starpu_init reports the saved reason.
 */
#define _GNU_SOURCE
#include "core/sim_loader.h"
#include "core/conf.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"
#include "data/memory.h"
#include "drivers/driver.h"
#include "os/os.h"
#include "os/regular_file.h"
#include "perfmodel/perfmodel.h"
#include "perfmodel/dev_costs.h"
#include "sim/sim.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef VELA_SIM_PLUGIN_PATH
#define VELA_SIM_PLUGIN_PATH "libvela-sim.so"
#endif
#define SIM_PLUGIN_NAME "libvela-sim.so"
/* 1 when configure built the plugin (runtime/Makefile.am). */
#ifndef VELA_SIM_BUILT
#define VELA_SIM_BUILT 1
#endif

/* Set once, by the boot (before any runtime thread exists). */
static const struct sim_plugin *plugin;
/* Why the hijack boot failed, reported by starpu_init. */
static char boot_error[1024];
static int boot_failed;
static int attached;
/* STARPU_SIMGRID_DEFAULT_TASK_US: duration of a task without a usable
 * model, µs; negative: such a task fails. */
static double default_task_us = -1.0;

double sim_costs[SIM_NCOSTS];

/* Device allocations: STARPU_SIMGRID_CUDA_MALLOC_COST, when set, is the
 * cost of every one; else a device's host in the platform may give the
 * machine's measured cost (perfmodel/dev_costs.h), fixed + per MiB,
 * else the default above. Looked up on a node's first allocation. */
static int malloc_cost_env;
static struct
{
	int known;
	double fixed_us, per_mib_us;
} node_malloc[STARPU_MAXNODES];

/* The overhead costs: their variables (StarPU's names) and their defaults,
 * Vela's own costs on the machine it was developed on (sim/README.md,
 * "Overheads", says how they were measured). */
static const struct
{
	const char *var;
	double default_us;
} cost_vars[SIM_NCOSTS] = {
	[SIM_COST_SUBMIT] = { "STARPU_SIMGRID_TASK_SUBMIT_COST", 0.21 },
	[SIM_COST_SCHED] = { "STARPU_SIMGRID_SCHED_COST", 0.21 },
	[SIM_COST_FETCH] = { "STARPU_SIMGRID_FETCHING_INPUT_COST", 0.13 },
	/* No measurement of Vela's own on a GPU: StarPU's simulation's
	 * figures (sim/README.md). */
	[SIM_COST_TRANSFER] = { "STARPU_SIMGRID_TRANSFER_COST", 10.0 },
	[SIM_COST_DEV_MALLOC] = { "STARPU_SIMGRID_CUDA_MALLOC_COST", 175.0 },
	[SIM_COST_DEV_QUEUE] = { "STARPU_SIMGRID_CUDA_QUEUE_COST", 10.0 },
};

/* Reads every cost from the environment into out: 0, or -EINVAL after
 * naming the variable whose value is not a non-negative, finite number of
 * microseconds. */
static int read_costs(double out[SIM_NCOSTS])
{
	malloc_cost_env = getenv(cost_vars[SIM_COST_DEV_MALLOC].var) != NULL;
	memset(node_malloc, 0, sizeof(node_malloc));
	for (unsigned k = 0; k < SIM_NCOSTS; k++)
	{
		const char *s = getenv(cost_vars[k].var);
		out[k] = cost_vars[k].default_us;
		if (!s)
			continue;
		char *end;
		errno = 0;
		double v = strtod(s, &end);
		while (*end == ' ')
			end++;
		if (!*s || errno || *end || !(v >= 0.0) || !isfinite(v))
		{
			rt_error("starpu_init: environment variable %s='%s' must be a cost in microseconds (a non-negative "
				 "number; 0 turns it off) (-EINVAL)", cost_vars[k].var, s);
			return -EINVAL;
		}
		out[k] = v;
	}
	return 0;
}

static int env_on(const char *name)
{
	const char *s = getenv(name);
	return s && *s && strcmp(s, "0") != 0;
}

/* STARPU_SIMGRID: 1 simulate, 0 (or unset, or empty) run for real, -1 a
 * malformed value ("abc", "-1", "2", " 1"), which starpu_init refuses
 * with -EINVAL like any other variable's (the process-start boot does not
 * simulate then, so that starpu_init can say why). */
static int sim_switch(void)
{
	const char *s = getenv("STARPU_SIMGRID");
	if (!s || !*s || !strcmp(s, "0"))
		return 0;
	return strcmp(s, "1") ? -1 : 1;
}

static int sim_switch_error(void)
{
	rt_error("starpu_init: environment variable STARPU_SIMGRID='%s' must be 0 (run for real) or 1 (simulate) (-EINVAL)",
		 getenv("STARPU_SIMGRID"));
	return -EINVAL;
}

static int boot_is_attach(void)
{
	const char *s = getenv("VELA_SIM_BOOT");
	return s && !strcmp(s, "attach");
}

/* ------------------------------------------------------------------ */
/* The platform file. */

static int file_exists(const char *path)
{
	return access(path, R_OK) == 0;
}

/* STARPU_SIMGRID_PLATFORM, else this host's (or STARPU_HOSTNAME's)
 * calibration: <sampling>/bus/<host>.platform.v4.xml as `vela
 * calibrate-bus` writes it, or <host>.platform.xml. */
/* A platform that exists but is not a regular file (SimGrid would block
 * forever reading a FIFO, and abort on a directory): -EINVAL, said in err. */
static int platform_special(const char *path, char *err, size_t errsize)
{
	struct stat st;
	if (stat(path, &st) || S_ISREG(st.st_mode))
		return 0;
	snprintf(err, errsize, "platform file %s is %s, not a platform file", path, os_file_kind(st.st_mode));
	return -EINVAL;
}

static int platform_path(char *buf, size_t size, char *err, size_t errsize)
{
	const char *p = getenv("STARPU_SIMGRID_PLATFORM");
	if (p && *p)
	{
		snprintf(buf, size, "%s", p);
		return platform_special(buf, err, errsize);
	}
	pm_bus_file("platform.v4.xml", buf, size);
	if (file_exists(buf))
		return platform_special(buf, err, errsize);
	char v3[4096];
	pm_bus_file("platform.xml", v3, sizeof(v3));
	if (file_exists(v3))
	{
		snprintf(buf, size, "%s", v3);
		return platform_special(buf, err, errsize);
	}
	snprintf(err, errsize,
		 "no platform for host '%s': %s does not exist (run `vela calibrate-bus` on that machine, "
		 "or name a file with STARPU_SIMGRID_PLATFORM)", pm_conf.hostname, buf);
	return -ENOENT;
}

/* ------------------------------------------------------------------ */
/* Loading the plugin. */

static int task_duration_us(struct worker *w, struct job *j, double *us);
static int may_queue(struct worker *w, struct job *j);

static void set_backend(const struct os_ops *ops)
{
	os_set_backend(ops);
}

static const struct sim_core core_api = {
	.version = SIM_CORE_VERSION,
	.task_duration_us = task_duration_us,
	.set_backend = set_backend,
	.node_host = sim_node_host,
	.may_queue = may_queue,
};

/* This copy of libvela's plugin, when a launcher chose it
 * (vela_sim_set_plugin, sim/sim.h): it wins over everything. */
static char chosen_plugin[4096];

__attribute__((visibility("default"))) void vela_sim_set_plugin(const char *path);
void vela_sim_set_plugin(const char *path)
{
	snprintf(chosen_plugin, sizeof(chosen_plugin), "%s", path ? path : "");
}

/* The launcher's choice, else VELA_SIM_PLUGIN, else the installed one,
 * else the one beside libvela. */
static int load_plugin(char *err, size_t errsize)
{
	if (plugin)
		return 0;
	char path[4096];
	const char *env = chosen_plugin[0] ? chosen_plugin : getenv("VELA_SIM_PLUGIN");
	void *h = NULL;
	if (env && *env)
	{
		snprintf(path, sizeof(path), "%s", env);
		h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	}
	else
	{
		snprintf(path, sizeof(path), "%s", VELA_SIM_PLUGIN_PATH);
		h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
		Dl_info info;
		if (!h && dladdr((void *) load_plugin, &info) && info.dli_fname)
		{
			const char *slash = strrchr(info.dli_fname, '/');
			if (slash)
			{
				snprintf(path, sizeof(path), "%.*s/%s", (int) (slash - info.dli_fname), info.dli_fname,
					 SIM_PLUGIN_NAME);
				h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
			}
		}
	}
	if (!h)
	{
		const char *why = dlerror();
		if (VELA_SIM_BUILT)
			snprintf(err, errsize, "simulation was requested (STARPU_SIMGRID or conf.vela_simulate) but the plugin %s cannot be loaded: %s",
				 path, why ? why : "?");
		else
			snprintf(err, errsize, "simulation was requested (STARPU_SIMGRID or conf.vela_simulate) but this build of Vela has no "
				 "SimGrid support (configure found no SimGrid >= 3.32)");
		return -ENODEV;
	}
	const struct sim_plugin *p = dlsym(h, "vela_sim_plugin");
	if (!p || p->version != SIM_PLUGIN_VERSION)
	{
		snprintf(err, errsize, "simulation was requested (STARPU_SIMGRID or conf.vela_simulate) but %s is not a Vela simulation plugin "
			 "of version %d", path, SIM_PLUGIN_VERSION);
		dlclose(h);
		return -ENODEV;
	}
	p->setup(&core_api);
	plugin = p;	/* the handle stays open for the life of the process */
	return 0;
}

static void read_settings(void)
{
	const char *s = getenv("STARPU_SIMGRID_DEFAULT_TASK_US");
	if (s && *s)
	{
		char *end;
		double v = strtod(s, &end);
		if (*end || !(v >= 0))
			rt_warn("STARPU_SIMGRID_DEFAULT_TASK_US='%s' is not a duration in microseconds; ignored", s);
		else
			default_task_us = v;
	}
}

static int prepare_boot(struct sim_boot *b, char *platform, size_t psize, const char *progname, char *err,
			size_t errsize)
{
	int ret = load_plugin(err, errsize);
	if (ret)
		return ret;
	if ((ret = platform_path(platform, psize, err, errsize)))
		return ret;
	read_settings();
	b->progname = progname;
	b->platform = platform;
	b->extra_args = getenv("VELA_SIMGRID_ARGS");
	b->verbose = env_on("VELA_SIMGRID_VERBOSE");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Hijack boot. */

typedef int (*libc_start_main_fn)(sim_main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
				  void (*rtld_fini)(void), void *stack_end);

static sim_main_fn app_main;

static int hijack_main(int argc, char **argv, char **envp)
{
	char platform[4096];
	struct sim_boot b;
	int ret = prepare_boot(&b, platform, sizeof(platform), argv[0], boot_error, sizeof(boot_error));
	if (ret == 0)
	{
		int main_ret = 0;
		/* Returns once the simulation is over (main() included). */
		if (plugin->boot_hijack(&b, app_main, argc, argv, envp, &main_ret, boot_error, sizeof(boot_error)) == 0)
			return main_ret;
		ret = -EINVAL;
	}
	/* Not simulated after all: main() runs for real, starpu_init says why. */
	boot_failed = ret;
	return app_main(argc, argv, envp);
}

int __libc_start_main(sim_main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end);

__attribute__((visibility("default")))
int __libc_start_main(sim_main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end)
{
	libc_start_main_fn real = (libc_start_main_fn) dlsym(RTLD_NEXT, "__libc_start_main");
	if (!real)
	{
		static const char msg[] = "[vela] fatal: the C library's __libc_start_main was not found\n";
		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(127);
		_exit(127);
	}
	if (sim_switch() == 1 && !boot_is_attach())
	{
		app_main = main;
		return real(hijack_main, argc, argv, init, fini, rtld_fini, stack_end);
	}
	return real(main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* ------------------------------------------------------------------ */
/* Attach boot, from starpu_init. */

static void detach_at_exit(void)
{
	if (attached)
	{
		attached = 0;
		plugin->detach();
	}
}

static const char *progname(void)
{
	extern char *program_invocation_short_name;
	return program_invocation_short_name ? program_invocation_short_name : "vela";
}

int sim_start(const struct starpu_conf *conf)
{
	/* conf.vela_simulate, when conf is one (conf_resolve reports a conf
	 * that starpu_conf_init did not fill). */
	int want = conf && conf->magic == CONF_MAGIC ? conf->vela_simulate : -1;
	if (want < -1 || want > 1)
	{
		rt_error("starpu_init: conf.vela_simulate=%d must be -1 (follow STARPU_SIMGRID), 0 (real run) or 1 "
			 "(simulate) (-EINVAL)", want);
		return -EINVAL;
	}
	/* As for every variable: malformed is an error, unless the
	 * application set the field and gave it precedence. */
	int prec = conf && conf->magic == CONF_MAGIC && conf->precedence_over_environment_variables;
	if (sim_switch() < 0 && !(prec && want != -1))
		return sim_switch_error();
	double costs[SIM_NCOSTS];
	if (os_is_simulated())
	{
		/* Already simulating: one simulation per process. */
		if (want == 0)
		{
			rt_error("starpu_init: conf.vela_simulate=0 asks for a real run, but this process is simulating "
				 "(it does until it exits) (-EINVAL)");
			return -EINVAL;
		}
		if (read_costs(costs))
			return -EINVAL;
		memcpy(sim_costs, costs, sizeof(costs));
		return 0;
	}
	if (want == 0 || (want == -1 && sim_switch() != 1))
		return 0;
	if (boot_failed)
	{
		rt_error("starpu_init: %s (%d)", boot_error, boot_failed);
		return boot_failed;
	}
	/* Before the engine starts: a process gets one try. */
	if (read_costs(costs))
		return -EINVAL;
	char platform[4096], err[1024];
	struct sim_boot b;
	int ret = prepare_boot(&b, platform, sizeof(platform), progname(), err, sizeof(err));
	if (ret == 0 && (ret = plugin->boot_attach(&b, err, sizeof(err))) == 0)
	{
		attached = 1;
		/* After SimGrid's own exit handler, so that ours runs first. */
		atexit(detach_at_exit);
		memcpy(sim_costs, costs, sizeof(costs));
		return 0;
	}
	rt_error("starpu_init: %s (%d)", err, ret);
	/* The engine may have started: a process gets one try. */
	if (plugin && ret != -ENODEV)
	{
		boot_failed = ret;
		snprintf(boot_error, sizeof(boot_error), "%s", err);
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* What the core asks. */

int sim_running(void)
{
	return plugin && os_is_simulated();
}

unsigned sim_ncpus(void)
{
	return sim_running() ? plugin->ncpus() : 0;
}

const struct drv_ops *sim_cpu_driver(void)
{
	return sim_running() ? plugin->cpu_driver : NULL;
}

unsigned sim_devices(struct sim_device *out, unsigned max)
{
	return sim_running() ? plugin->devices(out, max) : 0;
}

const struct drv_ops *sim_device_driver(enum starpu_worker_archtype arch)
{
	if (!sim_running())
		return NULL;
	switch (arch)
	{
	case STARPU_CUDA_WORKER: return plugin->cuda_driver;
	case STARPU_OPENCL_WORKER: return plugin->opencl_driver;
	case STARPU_MPI_MS_WORKER: return plugin->mpi_ms_driver;
	default: return NULL;
	}
}

const struct drv_node_ops *sim_device_node_ops(void)
{
	return sim_running() ? plugin->device_node_ops : NULL;
}

/* The conventions of the platform files (perfmodel/platform.c). */
int sim_node_host(unsigned node, char *buf, size_t size)
{
	return pm_node_host(node, buf, size);
}

int sim_node_route(unsigned src, unsigned dst, double *bandwidth, double *latency)
{
	char a[32], b[32];
	if (!sim_running() || sim_node_host(src, a, sizeof(a)) || sim_node_host(dst, b, sizeof(b)))
		return -EINVAL;
	return plugin->route(a, b, bandwidth, latency);
}

double sim_dev_malloc_us(unsigned node, size_t size)
{
	double fallback = sim_costs[SIM_COST_DEV_MALLOC];
	if (malloc_cost_env || node >= STARPU_MAXNODES || !sim_running())
		return fallback;
	if (!node_malloc[node].known)
	{
		char host[32];
		double fixed, per_mib;
		node_malloc[node].fixed_us = fallback;
		node_malloc[node].per_mib_us = 0.0;
		if (sim_node_host(node, host, sizeof(host)) == 0 &&
		    plugin->host_number(host, PM_PROP_MALLOC_US, &fixed) == 0)
		{
			node_malloc[node].fixed_us = fixed;
			if (plugin->host_number(host, PM_PROP_MALLOC_US_PER_MIB, &per_mib) == 0)
				node_malloc[node].per_mib_us = per_mib;
		}
		node_malloc[node].known = 1;
	}
	return node_malloc[node].fixed_us + node_malloc[node].per_mib_us * ((double) size / (1024.0 * 1024.0));
}

ssize_t sim_host_memsize(const char *host)
{
	return sim_running() ? plugin->host_memsize(host) : -1;
}

int sim_host_number(const char *host, const char *prop, double *value)
{
	return sim_running() ? plugin->host_number(host, prop, value) : -ENODEV;
}

const char *sim_worker_host(const struct worker *w)
{
	static char names[STARPU_NMAXWORKERS][32];
	if (!sim_running() || w->id < 0 || w->id >= STARPU_NMAXWORKERS)
		return NULL;
	switch (w->arch)
	{
	case STARPU_CUDA_WORKER:
		snprintf(names[w->id], sizeof(names[w->id]), "CUDA%d", w->devid);
		break;
	case STARPU_OPENCL_WORKER:
		snprintf(names[w->id], sizeof(names[w->id]), "OpenCL%d", w->devid);
		break;
	case STARPU_MPI_MS_WORKER:
		/* One of the slave's cores. */
		snprintf(names[w->id], sizeof(names[w->id]), "MPI_MS%d_CPU%u", w->devid, w->device_rank);
		break;
	default:
	{
		unsigned n = plugin->ncpus();
		/* More workers than CPU hosts (STARPU_NCPU): they share hosts. */
		snprintf(names[w->id], sizeof(names[w->id]), "CPU%u", n ? (unsigned) w->devid % n : 0);
		break;
	}
	}
	return names[w->id];
}

/* A kernel a simulated device queues and goes on (sim/driver_sg.c), as
 * the real device's worker does (drivers/device.c): w has a pipeline and
 * j's implementation is asynchronous for w's kind. */
static int may_queue(struct worker *w, struct job *j)
{
	const struct starpu_codelet *cl = j->task->cl;
	if (!cl || !w->pipeline)
		return 0;
	if (w->arch == STARPU_CUDA_WORKER)
		return (cl->cuda_flags[j->nimpl] & STARPU_CUDA_ASYNC) != 0;
	if (w->arch == STARPU_OPENCL_WORKER)
		return (cl->opencl_flags[j->nimpl] & STARPU_OPENCL_ASYNC) != 0;
	return 0;
}

/* The predicted duration of j on w: the codelet's model for w's arch and
 * j's implementation (plus, for the first run of its footprint on that
 * arch, what first runs took more when calibrated: perfmodel/measure.c),
 * else STARPU_SIMGRID_DEFAULT_TASK_US. */
static int task_duration_us(struct worker *w, struct job *j, double *us)
{
	struct starpu_task *task = j->task;
	struct starpu_codelet *cl = task->cl;
	if (!cl)
	{
		*us = 0.0;
		return 0;
	}
	if ((cl->flags & STARPU_CODELET_SIMGRID_EXECUTE) && w->arch == STARPU_CPU_WORKER)
	{
		/* The codelet asked to run for real too (its side effects are
		 * needed); its duration still comes from the model. Only on
		 * CPUs: a simulated device's buffers have no content. */
		int ret = drv_cpu_ops.execute(w, j);
		if (ret)
			return ret;
	}
	struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(w->id, task->sched_ctx);
	struct pm_first first = { 0 };
	double d = cl->model && arch ? pm_expected_first(cl->model, task, arch, j->nimpl, &first) : NAN;
	if (d >= 0.0 && d <= 1e12)	/* more than 11 days: a corrupt model */
	{
		*us = d + pm_first_run_extra_us(cl->model, &first, j->nimpl, d);
		return 0;
	}
	if (default_task_us >= 0.0)
	{
		*us = default_task_us;
		return 0;
	}
	char archname[64] = "cpu";
	if (arch)
		starpu_perfmodel_get_arch_name(arch, archname, sizeof(archname), j->nimpl);
	rt_error("simulation: codelet '%s' has %s for arch %s (implementation %u), so its duration is unknown; "
		 "calibrate it with a real run, or set STARPU_SIMGRID_DEFAULT_TASK_US (-ENOENT)",
		 starpu_task_get_name(task),
		 !cl->model ? "no performance model" : "no usable prediction from its performance model",
		 archname, j->nimpl);
	return -ENOENT;
}

int vela_is_simulated(void)
{
	return os_is_simulated();
}

void vela_sim_placeholder(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	struct worker *w = worker_self();
	struct starpu_task *task = starpu_task_get_current();
	rt_error("vela_sim_placeholder called for real (task '%s' on %s): it stands for a device kernel in "
		 "simulation only (STARPU_SIMGRID=1); give the codelet a real implementation",
		 task ? starpu_task_get_name(task) : "?", w ? w->name : "no worker");
	abort();
}
