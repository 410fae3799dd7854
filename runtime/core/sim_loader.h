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
#include <sys/types.h>

#include "os/os.h"

struct drv_ops;
struct drv_node_ops;
struct sim_device;
struct worker;

/* Called by starpu_init before anything else: when simulation is requested
 * (conf->vela_simulate, else STARPU_SIMGRID=1) and not already running,
 * loads the plugin and attaches the calling thread to a new simulation;
 * in a simulation, reads the overhead costs below. 0, or a negative errno
 * after a one-line message (-ENODEV: no plugin; -EINVAL: bad platform,
 * bad cost, conf.vela_simulate out of range or 0 in a simulation). */
int sim_start(const struct starpu_conf *conf);
/* Whether this process runs a simulation (the OS backend is simulated). */
int sim_running(void);
/* Simulated CPU workers the platform offers (its CPU<k> hosts). */
unsigned sim_ncpus(void);
/* The driver of simulated CPU workers. */
const struct drv_ops *sim_cpu_driver(void);
/* The platform host worker w's thread runs on (NULL in a real run): CPU<k>
 * for CPU workers, CUDA<k> / OpenCL<k> for device workers. */
const char *sim_worker_host(const struct worker *w);
/* The simulated devices (sim/sim.h, struct sim_device): the platform's
 * CUDA<k> then OpenCL<k> hosts. Copies up to max, returns how many exist
 * (0 in a real run). */
unsigned sim_devices(struct sim_device *out, unsigned max);
/* The driver of simulated workers of kind arch (CUDA, OpenCL), and the
 * node driver of simulated device memory; NULL in a real run. */
const struct drv_ops *sim_device_driver(enum starpu_worker_archtype arch);
const struct drv_node_ops *sim_device_node_ops(void);
/* The platform host of memory node `node`: 0 and buf filled, -EINVAL for
 * no such node. Meaningful in any run (the platform file's names). */
int sim_node_host(unsigned node, char *buf, size_t size);
/* The platform route between two memory nodes' hosts: 0 with its
 * bottleneck bandwidth (bytes/s) and total latency (s); a negative errno
 * in a real run or without such a route. */
int sim_node_route(unsigned src, unsigned dst, double *bandwidth, double *latency);
/* The memsize property of a platform host, -1 if absent or in a real run. */
ssize_t sim_host_memsize(const char *host);
/* A numeric property of a platform host: 0 and *value, -ENOENT if absent
 * or malformed, -ENODEV in a real run. */
int sim_host_number(const char *host, const char *prop, double *value);

/* The runtime's own costs in a simulation (sim/README.md, "Overheads"):
 * work that takes real time in a real run but none in a simulated one
 * unless charged. Each is µs of simulated time, charged to the thread
 * doing the work through the OS seam (os_model_cost). All zero in a real
 * run, so a charge point costs one load and one predictable branch. */
enum sim_cost_kind
{
	SIM_COST_SUBMIT,	/* STARPU_SIMGRID_TASK_SUBMIT_COST: per starpu_task_submit */
	SIM_COST_SCHED,		/* STARPU_SIMGRID_SCHED_COST: per task, its push and pop, charged to the pusher */
	SIM_COST_FETCH,		/* STARPU_SIMGRID_FETCHING_INPUT_COST: per datum a worker makes valid for its task */
	SIM_COST_TRANSFER,	/* STARPU_SIMGRID_TRANSFER_COST: set-up of each copy the data layer makes */
	SIM_COST_DEV_MALLOC,	/* STARPU_SIMGRID_CUDA_MALLOC_COST: per allocation on a device */
	SIM_COST_DEV_QUEUE,	/* STARPU_SIMGRID_CUDA_QUEUE_COST: per kernel queued on a device */
	SIM_NCOSTS
};
/* Written by sim_start (no runtime thread running), read by everyone. */
extern double sim_costs[SIM_NCOSTS];

/* What allocating size bytes on device node `node` costs in a simulation
 * (µs): STARPU_SIMGRID_CUDA_MALLOC_COST when set, else the platform's
 * measured figures for the node's host (malloc_cost_us +
 * malloc_cost_us_per_mib x MiB), else the default of that variable. */
double sim_dev_malloc_us(unsigned node, size_t size);

/* Charges n times cost k to the calling thread (a no-op in a real run). */
static inline void sim_cost(enum sim_cost_kind k, unsigned n)
{
	if (__builtin_expect(sim_costs[k] > 0.0, 0) && n)
		os_model_cost(sim_costs[k] * n);
}

#endif /* VELA_SIM_LOADER_H */
