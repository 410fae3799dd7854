/* sim_loader.h — libvela's side of simulation: deciding to simulate,
 * loading the plugin (sim/sim.h), starting the simulation, and the few
 * facts the core asks about the simulated machine.
 *
 * The core never calls the simulator: it reaches it through the OS seam
 * (which the plugin's backend replaces) and the driver seam (the plugin's
 * simulated CPU driver). Everything here is inert in a real run.
 */
#ifndef VELA_SIM_LOADER_H
#define VELA_SIM_LOADER_H

#include <starpu.h>

struct drv_ops;
struct worker;

/* Called by starpu_init before anything else: when simulation is requested
 * (STARPU_SIMGRID=1) and not already running, loads the plugin and attaches
 * the calling thread to a new simulation. 0, or a negative errno after a
 * one-line message (-ENODEV: no plugin; -EINVAL: bad platform). */
int sim_start(const struct starpu_conf *conf);
/* Whether this process runs a simulation (the OS backend is simulated). */
int sim_running(void);
/* Simulated CPU workers the platform offers (its CPU<k> hosts). */
unsigned sim_ncpus(void);
/* The driver of simulated CPU workers. */
const struct drv_ops *sim_cpu_driver(void);
/* The platform host worker w's thread runs on (NULL in a real run). */
const char *sim_worker_host(const struct worker *w);

#endif /* VELA_SIM_LOADER_H */
