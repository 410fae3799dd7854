/* boot.c — starting SimGrid: the engine's options, the platform, and the
 * two ways to make the application's main thread an actor (sim/sim.h).
 *
 * What ../shared/research/simgrid-proto measured shapes the options:
 * network/model:CM02 (the default LV08 model scales latencies and
 * bandwidths of the platform file), debug/clean-atexit:no (an exit() in
 * the main actor must not tear the engine down under it), raw contexts
 * for the hijack boot (50x faster than threads), thread contexts for
 * attach (the only factory that can attach a running thread).
 */
#include "sim/sg_internal.h"

#include <simgrid/engine.h>
#include <xbt/config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The main thread (hijack: the actor running main(); attach: the thread
 * that called starpu_init). */
static struct sg_thread main_thread;
static sg_host_t main_host;
static unsigned ncpus;
static int engine_started;
/* The platform's devices, found once the platform is loaded. */
static struct sim_device devices[SG_MAX_DEVICES];
static unsigned ndevices;
/* Joined (a rank of a simulated cluster, sim/simrun.c): this copy of the
 * plugin serves one node of a platform the launcher loaded, whose hosts
 * are named <prefix><host> ("n3.CPU0", "n3.RAM"). Empty otherwise. */
static int joined;
static char host_prefix[64];

sg_host_t sg_host_named(const char *name)
{
	if (!host_prefix[0])
		return sg_host_by_name(name);
	char full[160];
	snprintf(full, sizeof(full), "%s%s", host_prefix, name);
	return sg_host_by_name(full);
}

unsigned sg_ncpus(void)
{
	return ncpus;
}

unsigned sg_devices(struct sim_device *out, unsigned max)
{
	for (unsigned i = 0; i < ndevices && i < max; i++)
		out[i] = devices[i];
	return ndevices;
}

ssize_t sg_host_memsize(const char *host)
{
	sg_host_t h = sg_host_named(host);
	const char *mem = h ? sg_host_get_property_value(h, "memsize") : NULL;
	if (!mem)
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(mem, &end, 10);
	return errno || end == mem || *end || v <= 0 ? -1 : (ssize_t) v;
}

/* Checked when the platform was loaded (platform_check.c). */
int sg_host_number(const char *host, const char *prop, double *value)
{
	sg_host_t h = sg_host_named(host);
	const char *s = h ? sg_host_get_property_value(h, prop) : NULL;
	if (!s)
		return -ENOENT;
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= 0.0))
		return -ENOENT;
	*value = v;
	return 0;
}

/* Adds the hosts <prefix>0, <prefix>1, ... to the device list. */
static int find_devices(const struct sim_boot *b, const char *prefix, int arch, unsigned max, char *err,
			size_t errsize)
{
	for (unsigned k = 0; k < max; k++)
	{
		char name[32];
		snprintf(name, sizeof(name), "%s%u", prefix, k);
		sg_host_t h = sg_host_named(name);
		if (!h)
			break;
		if (ndevices == SG_MAX_DEVICES)
		{
			snprintf(err, errsize, "the simulated platform %s has more than %d devices", b->platform,
				 SG_MAX_DEVICES);
			return -EINVAL;
		}
		struct sim_device *d = &devices[ndevices];
		d->arch = arch;
		d->devid = (int) k;
		d->memsize = -1;
		d->ncores = 0;
		snprintf(d->host, sizeof(d->host), "%s", name);
		/* An MPI slave's cores: MPI_MS<k>_CPU0, 1, ... */
		while (arch == STARPU_MPI_MS_WORKER)
		{
			char core[48];
			snprintf(core, sizeof(core), "%s_CPU%u", name, d->ncores);
			if (!sg_host_named(core))
				break;
			d->ncores++;
		}
		if (arch == STARPU_MPI_MS_WORKER && !d->ncores)
		{
			snprintf(err, errsize, "the simulated platform %s: MPI slave %s has no core (hosts %s_CPU0, ...)",
				 b->platform, name, name);
			return -EINVAL;
		}
		const char *mem = sg_host_get_property_value(h, "memsize");
		if (mem)
		{
			char *end;
			errno = 0;
			long long v = strtoll(mem, &end, 10);
			if (errno || end == mem || *end || v <= 0)
			{
				snprintf(err, errsize, "the simulated platform %s: host %s has memsize='%s', which is not "
					 "a positive number of bytes", b->platform, name, mem);
				return -EINVAL;
			}
			d->memsize = (ssize_t) v;
		}
		ndevices++;
	}
	return 0;
}

static int platform_scan(const struct sim_boot *b, char *err, size_t errsize);

/* A simulation that ends before main() returns: every simulated thread
 * (the application's and the runtime's) waits for another, a deadlock,
 * which SimGrid detects and ends the run on. Said, and the process exits
 * with this status instead of main()'s. */
#define SIM_DEADLOCK_STATUS 3

/* SimGrid's deadlock signal, before it kills the actors. The process ends
 * here: killed, the actors unwind stacks the rest of the process cannot
 * use any more (an attached main aborts; a leak checker at exit walks
 * them and crashes), and main() will not return anyway. */
static void on_deadlock(void)
{
	fprintf(stderr, "[vela] error: the simulation stopped at %.6f s of simulated time before main() returned: "
		"every simulated thread was waiting and none could be woken (a deadlock; VELA_SIMGRID_VERBOSE=1 "
		"lists the threads); exit status %d\n", sg_clock(), SIM_DEADLOCK_STATUS);
	fflush(NULL);
	_exit(SIM_DEADLOCK_STATUS);
}

/* SimGrid's argv: ours, never the application's. */
static int engine_start(const struct sim_boot *b, const char *factory, void (*maestro)(void *), char *err,
			size_t errsize)
{
	static char *av[64];
	static char extra[2048];
	static char progname[256];
	/* What SimGrid would abort on is refused first (platform_check.c). */
	if (sg_platform_validate(b->platform, err, errsize))
		return -EINVAL;
	int ac = 0;
	if (engine_started)
	{
		snprintf(err, errsize, "a simulation already ran in this process (one per process)");
		return -EBUSY;
	}
	if (sg_delay_choose(err, errsize))
		return -EINVAL;
	engine_started = 1;
	snprintf(progname, sizeof(progname), "%s", b->progname ? b->progname : "vela");
	av[ac++] = progname;
	if (!b->verbose)
		av[ac++] = "--log=root.thresh:warning";
	av[ac++] = "--cfg=network/model:CM02";
	av[ac++] = "--cfg=debug/clean-atexit:no";
	if (b->extra_args)
	{
		snprintf(extra, sizeof(extra), "%s", b->extra_args);
		for (char *save = NULL, *tok = strtok_r(extra, " \t", &save); tok && ac < 62;
		     tok = strtok_r(NULL, " \t", &save))
			av[ac++] = tok;
	}
	av[ac] = NULL;
	/* Registered when the library loads, so settable before init. */
	sg_cfg_set_string("contexts/factory", factory);
	if (maestro)
		simgrid_set_maestro(maestro, NULL);
	simgrid_init(&ac, av);
	sg_on_deadlock(on_deadlock);
	sg_self_configure();
	sg_delay_setup();

	char why[768];
	if (sg_load_platform(b->platform, why, sizeof(why)))
	{
		/* StarPU writes a SimGrid v3 file beside its v4 one. */
		size_t n = strlen(b->platform);
		int v3 = n > 13 && !strcmp(b->platform + n - 13, ".platform.xml") && strstr(why, "version");
		snprintf(err, errsize, "cannot load the simulated platform %s: %s%s", b->platform, why,
			 v3 ? " (a SimGrid v3 file, as StarPU's <host>.platform.xml: use the <host>.platform.v4.xml "
			      "beside it)" : "");
		return -EINVAL;
	}
	return platform_scan(b, err, errsize);
}

/* The CPU workers, devices and main host of the platform (of this node's
 * hosts, when joined). */
static int platform_scan(const struct sim_boot *b, char *err, size_t errsize)
{
	ncpus = 0;
	char name[32];
	for (;;)
	{
		snprintf(name, sizeof(name), "CPU%u", ncpus);
		if (!sg_host_named(name))
			break;
		ncpus++;
	}
	if (ncpus == 0)
	{
		snprintf(err, errsize, "the simulated platform %s has no %sCPU0 host (CPU<k> hosts define the CPU workers)",
			 b->platform, host_prefix);
		return -EINVAL;
	}
	ndevices = 0;
	int ret = find_devices(b, "CUDA", STARPU_CUDA_WORKER, STARPU_MAXCUDADEVS, err, errsize);
	if (!ret)
		ret = find_devices(b, "OpenCL", STARPU_OPENCL_WORKER, STARPU_MAXOPENCLDEVS, err, errsize);
#ifdef STARPU_USE_MPI_MASTER_SLAVE
	if (!ret)
		ret = find_devices(b, "MPI_MS", STARPU_MPI_MS_WORKER, STARPU_MAXMPIDEVS, err, errsize);
#endif
	if (ret)
		return ret;
	main_host = sg_host_named("MAIN");
	if (!main_host)
		main_host = sg_host_named("CPU0");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Hijack: this, the process's initial thread, becomes maestro. */

static sim_main_fn app_main;
static int app_argc, app_ret;
static char **app_argv, **app_envp;

static void main_actor(int argc, char **argv)
{
	(void) argc;
	(void) argv;
	sg_self_enter(&main_thread);
	app_ret = app_main(app_argc, app_argv, app_envp);
	sg_self_leave(&main_thread);
}

int sg_boot_hijack(const struct sim_boot *b, sim_main_fn main, int argc, char **argv, char **envp, int *main_ret,
		   char *err, size_t errsize)
{
	const char *factory = getenv("VELA_SIM_FACTORY");
	if (!factory || !*factory)
		factory = "raw";
	if (engine_start(b, factory, NULL, err, errsize))
		return -1;
	app_main = main;
	app_argc = argc;
	app_argv = argv;
	app_envp = envp;
	sg_actor_t a = sg_actor_init("main", main_host);
	sg_actor_set_data(a, &main_thread);
	main_thread.actor = a;
	sg_core->set_backend(&os_sg_ops);
	sg_actor_start(a, main_actor, 0, NULL);
	simgrid_run();
	sg_over = 1;	/* main() returned: a deadlock ended the process (on_deadlock) */
	*main_ret = app_ret;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Attach: SimGrid starts maestro in a thread of its own, then the calling
 * thread becomes actor "main". */

static void maestro_fn(void *data)
{
	(void) data;
	simgrid_run();
}

/* Once maestro's thread exists, a platform that fails to load would leave
 * it waiting forever (and the process hanging at exit, where SimGrid joins
 * it): so the platform is first loaded by a child process, which reports
 * what is wrong with it. */
static int platform_check_in_child(const struct sim_boot *b, char *err, size_t errsize)
{
	int fds[2];
	if (pipe(fds))
		return 0;	/* cannot check: let the real load speak */
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
	{
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0)
	{
		close(fds[0]);
		char why[1024];
		int ret = engine_start(b, "thread", NULL, why, sizeof(why));
		if (ret && write(fds[1], why, strlen(why)) < 0)
			_exit(2);
		_exit(ret ? 1 : 0);
	}
	close(fds[1]);
	size_t len = 0;
	ssize_t n;
	while (len + 1 < errsize && (n = read(fds[0], err + len, errsize - 1 - len)) > 0)
		len += (size_t) n;
	err[len] = '\0';
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (!len)
		snprintf(err, errsize, "cannot load the simulated platform %s (checking it in a child process failed)",
			 b->platform);
	return -EINVAL;
}

/* Join: the calling thread is already an actor of a running simulation
 * (a rank that sim/simrun.c started on host <node>.MAIN): no engine to
 * start, the platform is loaded; this node's hosts are those whose name
 * starts like the actor's host, up to its last '.'. */
static int boot_join(const struct sim_boot *b, char *err, size_t errsize)
{
	const char *hn = sg_host_get_name(sg_host_self());
	const char *dot = strrchr(hn, '.');
	size_t n = dot ? (size_t) (dot - hn) + 1 : 0;
	if (n >= sizeof(host_prefix))
	{
		snprintf(err, errsize, "the simulated node of host '%s' has too long a name", hn);
		return -EINVAL;
	}
	memcpy(host_prefix, hn, n);
	host_prefix[n] = '\0';
	engine_started = joined = 1;
	sg_self_configure();
	sg_delay_join();
	sg_waits_configure();
	int ret = platform_scan(b, err, errsize);
	if (ret)
		return ret;
	main_thread.actor = sg_actor_self();
	sg_actor_self_set_data(&main_thread);
	sg_core->set_backend(&os_sg_ops);
	return 0;
}

int sg_boot_attach(const struct sim_boot *b, char *err, size_t errsize)
{
	if (sg_in_running_actor())
		return boot_join(b, err, errsize);
	int ret = platform_check_in_child(b, err, errsize);
	if (ret)
		return ret;
	ret = engine_start(b, "thread", maestro_fn, err, errsize);
	if (ret)
		return ret;
	sg_core->set_backend(&os_sg_ops);
	/* Returns once maestro has scheduled us. */
	main_thread.actor = sg_actor_attach("main", &main_thread, main_host, NULL);
	return 0;
}

void sg_detach(void)
{
	if (joined)
		return;	/* the launcher owns the engine */
	/* Blocks until maestro's simgrid_run() returns. */
	sg_actor_detach();
	sg_over = 1;
}
