/* mp_loader.c — whether this process takes part in master/slave, loading
 * the channel plugin, and the boot: at the first starpu_init of a process
 * started by an MPI launcher, every process joins the channel; the master
 * (rank 0, or STARPU_MPI_MASTER_NODE) goes on with the application, every
 * other process becomes a sink and never comes back from starpu_init.
 *
 * The mode is on when all of these hold (README.md, "When"):
 *   - the process was started by an MPI launcher with 2 processes or more
 *     (OMPI_COMM_WORLD_SIZE, PMI_SIZE, MV2_COMM_WORLD_SIZE);
 *   - STARPU_NMPI_MS (conf.nmpi_ms) is not 0;
 *   - the process is not a StarPU-MPI application (libvela-mpi loaded:
 *     there every process is the application's, each with its own
 *     workers; the two modes are one build, one per process);
 *   - the run is not simulated (a simulated run's slaves are hosts of its
 *     platform, no process: core/devices.c, sim/).
 * Otherwise nothing is loaded, and the run has local workers only.
 */
#define _GNU_SOURCE
#include "drivers/mp/mp.h"
#include "drivers/mp/mp_driver.h"
#include "core/rt.h"
#include "core/sim_loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef VELA_MPI_MS_PLUGIN_PATH
#define VELA_MPI_MS_PLUGIN_PATH "libvela-mpi-ms.so"
#endif
#define MPI_MS_PLUGIN_NAME "libvela-mpi-ms.so"

const struct mp_channel *mp_chan;
int mp_rank, mp_size = 1, mp_master;
int mp_app_owns_channel;

/* 0: not decided yet; 1: this process is the master of a job with
 * sinks; -1: no master/slave in this process (decided once, at the first
 * starpu_init). */
static int state;

int mp_active(void)
{
	return state == 1;
}

/* The launcher's count of processes, 0 when not started by one. */
static int launcher_size(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", NULL };
	for (const char *const *v = vars; *v; v++)
	{
		const char *s = getenv(*v);
		if (s && *s)
			return atoi(s) > 0 ? atoi(s) : 1;
	}
	return 0;
}

/* VELA_MPI_MS_PLUGIN, else the installed one, else the one beside libvela. */
static int load_plugin(char *err, size_t errsize)
{
	char path[4096];
	const char *env = getenv("VELA_MPI_MS_PLUGIN");
	void *h = NULL;
	/* RTLD_GLOBAL: Open MPI's own components find libmpi's symbols. */
	if (env && *env)
	{
		snprintf(path, sizeof(path), "%s", env);
		h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	}
	else
	{
		snprintf(path, sizeof(path), "%s", VELA_MPI_MS_PLUGIN_PATH);
		h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
		Dl_info info;
		if (!h && dladdr((void *) load_plugin, &info) && info.dli_fname)
		{
			const char *slash = strrchr(info.dli_fname, '/');
			if (slash)
			{
				snprintf(path, sizeof(path), "%.*s/%s", (int) (slash - info.dli_fname), info.dli_fname,
					 MPI_MS_PLUGIN_NAME);
				h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
			}
		}
	}
	if (!h)
	{
		const char *why = dlerror();
		snprintf(err, errsize, "the MPI channel plugin %s cannot be loaded: %s (VELA_MPI_MS_PLUGIN names another)",
			 path, why ? why : "?");
		return -ENODEV;
	}
	const struct mp_channel *c = dlsym(h, MP_CHANNEL_SYMBOL);
	if (!c || c->version != MP_CHANNEL_VERSION)
	{
		snprintf(err, errsize, "%s is not a Vela master/slave channel of version %d", path, MP_CHANNEL_VERSION);
		dlclose(h);
		return -ENODEV;
	}
	mp_chan = c;	/* the handle stays open for the life of the process */
	return 0;
}

static void at_exit(void)
{
	mp_end();
}

void mp_end(void)
{
	if (state == 1)
	{
		state = -1;
		mp_source_exit();
	}
}

static int master_rank(int size, int *out)
{
	const char *s = getenv("STARPU_MPI_MASTER_NODE");
	*out = 0;
	if (!s || !*s)
		return 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0 || v >= size)
	{
		rt_error("starpu_init: STARPU_MPI_MASTER_NODE='%s' must be a rank of the job, 0 to %d (-EINVAL)", s, size - 1);
		return -EINVAL;
	}
	*out = (int) v;
	return 0;
}

int mp_boot(const struct starpu_conf *conf)
{
	if (state)
		return 0;
	int want = conf->nmpi_ms;	/* -1: all there are */
	/* Simulated slaves are the platform's hosts (core/devices.c): no
	 * process, no channel. */
	if (want == 0 || sim_running())
	{
		state = -1;
		return 0;
	}
	/* A StarPU-MPI application: every process is the application's. */
	if (dlsym(RTLD_DEFAULT, "starpu_mpi_init_conf"))
	{
		if (want > 0)
			rt_warn("starpu_init: this is a StarPU-MPI application (libvela-mpi): its processes are not MPI "
				"slaves (STARPU_NMPI_MS=%d ignored)", want);
		state = -1;
		return 0;
	}
	int size = launcher_size();
	if (size < 2)
	{
		const char *why = size == 1 ? "started by an MPI launcher with one process" : "not started by an MPI launcher (mpirun -np N)";
		/* Without a launcher and without STARPU_NMPI_MS this is an
		 * ordinary run (the driver is built by default): nothing to say. */
		if (want > 0)
			rt_warn("starpu_init: MPI master/slave: no slaves (%s): running with local workers only", why);
		else if (size == 1)
			rt_info("starpu_init: MPI master/slave: no slaves (%s): running with local workers only", why);
		state = -1;
		return 0;
	}
	char err[1024];
	int ret = load_plugin(err, sizeof(err));
	if (!ret && (ret = mp_chan->init(&mp_rank, &mp_size, err, sizeof(err))) < 0)
		mp_chan = NULL;
	if (ret == 1)
	{
		/* MPI initialised by the application: it finalises it too, so
		 * the slaves leave at the end of the first session. */
		mp_app_owns_channel = 1;
		ret = 0;
	}
	if (ret)
	{
		rt_error("starpu_init: MPI master/slave: %s (%d)", err, ret);
		state = -1;
		return ret;
	}
	if ((ret = master_rank(mp_size, &mp_master)))
	{
		mp_chan->abort(1);
		return ret;
	}
	if (mp_size < 2)
	{
		rt_info("starpu_init: MPI master/slave: no slaves (the job has one process): running with local workers only");
		mp_chan->fini(0);
		state = -1;
		return 0;
	}
	if (mp_rank != mp_master)
		mp_sink_main();	/* never returns */
	state = 1;
	atexit(at_exit);
	if ((ret = mp_source_boot()))
	{
		mp_chan->abort(1);
		return ret;
	}
	return 0;
}
