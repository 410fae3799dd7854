/* sim.h — the contract between libvela and its simulation plugin.
 *
 * libvela never links SimGrid: when simulation is requested it dlopen()s
 * libvela-sim.so (runtime/core/sim_loader.c) and reads the one symbol
 * vela_sim_plugin, a versioned table (new members appended, version
 * bumped). The plugin brings the SimGrid backend of the OS seam (os_sg.c),
 * the simulated drivers (driver_sg.c: CPU and GPU workers; node_sg.c: the
 * memory nodes of simulated devices, whose copies are SimGrid
 * communications along the platform's routes) and the two ways to start a
 * simulation (boot.c):
 *   hijack  STARPU_SIMGRID=1 in the environment when the process starts:
 *           libvela's __libc_start_main interposer calls boot_hijack, whose
 *           initial thread becomes SimGrid's maestro and runs the
 *           application's main() in an actor (fast raw contexts);
 *   attach  simulation requested only at starpu_init (or
 *           VELA_SIM_BOOT=attach): boot_attach turns the calling thread
 *           into an actor (thread contexts only, ~50x slower).
 * Only one simulation may run per process; once started it lasts until
 * the process exits.
 *
 * The plugin calls libvela back only through struct sim_core (libvela's
 * internal symbols are not exported).
 */
#ifndef VELA_SIM_H
#define VELA_SIM_H

#include <stddef.h>
#include <sys/types.h>

struct os_ops;
struct drv_ops;
struct drv_node_ops;
struct worker;
struct job;

typedef int (*sim_main_fn)(int argc, char **argv, char **envp);

/* What libvela offers the plugin. */
struct sim_core
{
	unsigned version;
	/* The simulated duration of job on w, in µs: 0 and *us set, or a
	 * negative errno after printing why (no usable model). */
	int (*task_duration_us)(struct worker *w, struct job *j, double *us);
	/* Installs the plugin's OS backend (hijack: just before main()). */
	void (*set_backend)(const struct os_ops *ops);
	/* Version 2. The platform host of memory node `node` ("RAM",
	 * "CUDA<k>", "OpenCL<k>", "DISK<k>"): 0 and buf filled, or -EINVAL for
	 * a node that does not exist. */
	int (*node_host)(unsigned node, char *buf, size_t size);
	/* Version 3. Whether job j's kernel may be queued on device worker w
	 * without waiting for it: w keeps tasks in flight
	 * (STARPU_<KIND>_PIPELINE > 0) and j's implementation is asynchronous
	 * (STARPU_CUDA_ASYNC, STARPU_OPENCL_ASYNC). 1 or 0. */
	int (*may_queue)(struct worker *w, struct job *j);
};

#define SIM_CORE_VERSION 3

/* A simulated device, from the platform's CUDA<k>, OpenCL<k> and MPI_MS<k>
 * hosts. */
struct sim_device
{
	int arch;			/* STARPU_CUDA_WORKER, STARPU_OPENCL_WORKER or STARPU_MPI_MS_WORKER */
	int devid;			/* k */
	ssize_t memsize;		/* bytes (host property memsize), -1 if absent */
	char host[32];			/* the platform host: "CUDA<k>", "OpenCL<k>", "MPI_MS<k>" */
	/* Version 3. An MPI slave's cores: its hosts MPI_MS<k>_CPU0.. (one
	 * worker each); 0 for GPUs. */
	unsigned ncores;
};

/* Where to boot; strings are copied by the plugin. */
struct sim_boot
{
	const char *progname;
	const char *platform;		/* platform file (XML) */
	const char *extra_args;		/* VELA_SIMGRID_ARGS: more "--cfg=..." for SimGrid, or NULL */
	int verbose;			/* keep SimGrid's own log at info level */
};

#define SIM_PLUGIN_VERSION 4

struct sim_plugin
{
	unsigned version;
	/* Gives the plugin libvela's callbacks; called right after dlopen. */
	void (*setup)(const struct sim_core *core);
	/* Hijack boot: starts the engine, runs main in an actor, returns its
	 * status once the simulation ends. If the engine cannot start,
	 * returns -1 before calling main, with the reason in err. */
	int (*boot_hijack)(const struct sim_boot *b, sim_main_fn main, int argc, char **argv, char **envp,
			   int *main_ret, char *err, size_t errsize);
	/* Attach boot: the calling thread becomes actor "main". 0, or a
	 * negative errno with the reason in err. */
	int (*boot_attach)(const struct sim_boot *b, char *err, size_t errsize);
	/* Attach boot, at process exit: waits for the end of the simulation. */
	void (*detach)(void);
	/* The OS seam backend and the simulated CPU driver. */
	const struct os_ops *os;
	const struct drv_ops *cpu_driver;
	/* Simulated CPU workers: the platform's CPU0..CPU<n-1> hosts. */
	unsigned (*ncpus)(void);

	/* Version 2: devices and transfers. */
	/* The platform's devices, CUDA<k> (k = 0, 1, ... while the host exists)
	 * then OpenCL<k>: copies up to max into out, returns how many there
	 * are. */
	unsigned (*devices)(struct sim_device *out, unsigned max);
	/* Drivers of simulated GPU workers (the kernel is not run: the worker
	 * waits for the predicted duration). */
	const struct drv_ops *cuda_driver;
	const struct drv_ops *opencl_driver;
	/* Memory nodes of simulated devices: allocations are accounted, not
	 * made (a unique fake address comes back); a copy is a communication
	 * of its size from the source node's host to the destination's, along
	 * the platform route, blocking the calling actor. */
	const struct drv_node_ops *device_node_ops;
	/* The route between two platform hosts: 0 with its bottleneck
	 * bandwidth (bytes/s) and total latency (s), or -ENOENT when a host
	 * or the route does not exist. */
	int (*route)(const char *src_host, const char *dst_host, double *bandwidth, double *latency);
	/* The memsize property of a platform host (bytes), or -1 when the
	 * host or the property is absent ("RAM": main memory's capacity). */
	ssize_t (*host_memsize)(const char *host);

	/* Version 3: MPI slaves (master/slave without processes: a slave is
	 * the platform's MPI_MS<k> memory host and MPI_MS<k>_CPU<i> cores;
	 * its copies go over the platform's network like any device's). */
	const struct drv_ops *mpi_ms_driver;

	/* Version 4. A numeric property of a platform host (a device's
	 * measured allocation cost, perfmodel/dev_costs.h): 0 and *value, or
	 * -ENOENT when the host or the property is absent. */
	int (*host_number)(const char *host, const char *prop, double *value);
};

/* The symbol libvela looks up in the plugin. */
extern const struct sim_plugin vela_sim_plugin;

/* Exported by libvela for launchers that load several copies of it in one
 * process (vela-simrun, sim/simrun.c): the plugin this copy loads when
 * simulation starts, before VELA_SIM_PLUGIN and the default places, so
 * that each copy gets its own plugin (and its own plugin state). */
void vela_sim_set_plugin(const char *path);

#endif /* VELA_SIM_H */
