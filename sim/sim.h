/* sim.h — the contract between libvela and its simulation plugin.
 *
 * libvela never links SimGrid: when simulation is requested it dlopen()s
 * libvela-sim.so (runtime/core/sim_loader.c) and reads the one symbol
 * vela_sim_plugin, a versioned table (new members appended, version
 * bumped). The plugin brings the SimGrid backend of the OS seam (os_sg.c),
 * the simulated CPU driver (driver_sg.c) and the two ways to start a
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

struct os_ops;
struct drv_ops;
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
};

/* Where to boot; strings are copied by the plugin. */
struct sim_boot
{
	const char *progname;
	const char *platform;		/* platform file (XML) */
	const char *extra_args;		/* VELA_SIMGRID_ARGS: more "--cfg=..." for SimGrid, or NULL */
	int verbose;			/* keep SimGrid's own log at info level */
};

#define SIM_PLUGIN_VERSION 1

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
};

/* The symbol libvela looks up in the plugin. */
extern const struct sim_plugin vela_sim_plugin;

#endif /* VELA_SIM_H */
