/* sg_internal.h — what the files of the simulation plugin share. Only
 * sim/ includes SimGrid headers; every difference between SimGrid versions
 * belongs in sg_compat.cpp and here.
 */
#ifndef VELA_SG_INTERNAL_H
#define VELA_SG_INTERNAL_H

#include "sim/sim.h"
#include "os/os.h"
#include "sg_delay.h"

#include <starpu.h>

#include <simgrid/actor.h>
#include <stdint.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mutex.h>
#include <xbt/dynar.h>
#include <stddef.h>

#define SG_MAX_KEYS 64
/* Simulated devices per platform (CUDA, OpenCL and MPI slaves together). */
#ifdef STARPU_MAXMPIDEVS
#define SG_MAX_DEVICES (STARPU_MAXCUDADEVS + STARPU_MAXOPENCLDEVS + STARPU_MAXMPIDEVS)
#else
#define SG_MAX_DEVICES (STARPU_MAXCUDADEVS + STARPU_MAXOPENCLDEVS)
#endif

/* A runtime thread: one actor (main, workers, application threads made
 * with starpu_pthread_create). It is the actor's data, so the thread's
 * keys are per actor: __thread variables are shared by all actors on raw
 * contexts. Owned by the thread's creator until joined (or by the thread
 * itself when detached). */
struct sg_thread
{
	void *(*fn)(void *);
	void *arg;
	void *ret;
	sg_actor_t actor;
	int detached;
	/* The top of the actor's stack below which its runtime calls run
	 * ([win_lo, win_hi); 0, 0: unknown), for sg_self_fast (os_sg.c). */
	uintptr_t win_lo, win_hi;
	void *keys[SG_MAX_KEYS];
	/* The SimGrid mutex of this thread's timed condition waits
	 * (os_sg.c, cond_notify), made on its first: never contended. */
	sg_mutex_t wait_mutex;
	/* This thread's delays (delay_sg.cpp). */
	struct sg_delay_slot delay;
	/* Its host's timing properties (os_sg.c, thread_host), read on first
	 * need (an actor stays on its host): 0 not yet, 1 read, 2 read and
	 * the host is time-shared; the host's timer overshoot and wake-up
	 * cost (µs). */
	int host_facts;
	double overshoot_us, wakeup_us;
};

/* The calling actor is found by stack address before asking SimGrid
 * (os_sg.c, self_fast). t runs from here: its stack window starts at the caller's frame. */
void sg_self_enter(struct sg_thread *t);
/* t is ending (or its struct is about to be freed). */
void sg_self_leave(struct sg_thread *t);
/* Sizes the windows from SimGrid's contexts/stack-size (after init). */
void sg_self_configure(void);
/* Conditions wait with sg_block where it is served (sg_delay.h; after
 * sg_delay_join). */
void sg_waits_configure(void);

/* libvela's callbacks (plugin.c). */
extern const struct sim_core *sg_core;
/* Set once the simulation has ended: the process is single-threaded
 * again, and the seam's locks become no-ops. */
extern int sg_over;

extern const struct os_ops os_sg_ops;
extern const struct drv_ops drv_sg_cpu_ops;
extern const struct drv_ops drv_sg_cuda_ops;
extern const struct drv_ops drv_sg_opencl_ops;
extern const struct drv_ops drv_sg_mpi_ms_ops;
/* node_sg.c: memory nodes of simulated devices. */
extern const struct drv_node_ops drv_sg_device_node_ops;
int sg_route(const char *src_host, const char *dst_host, double *bandwidth, double *latency);
/* engine_sg.c: a device whose copies run on the engine that runs its
 * kernels (its host's property copies_on_compute=1: PoCL's CPU device,
 * whose threads do both), one command at a time; NULL for any other host.
 * Its kernels are queued with sg_engine_kernel (a reference for the
 * caller, released with sg_kernel_put), and end when sg_kernel_end says
 * (a copy queued before they start moves them); sg_engine_copy blocks
 * the calling actor for a copy of that many seconds on one or two such
 * engines (the other NULL). */
/* The names perfmodel/dev_costs.h writes (vela calibrate-bus). */
#define SG_PROP_COPIES_ON_COMPUTE "copies_on_compute"
#define SG_PROP_FIRST_COPY_US_PER_MIB "first_copy_us_per_mib"
/* A CPU host whose one core every runtime thread placed on it shares
 * (make-cluster.py --cores: a rank bound to one core, its main, worker and
 * MPI progression thread on it): value 1. */
#define SG_PROP_TIME_SHARED "time_shared"
/* Microseconds by which a timed wait or sleep of a thread on that host
 * ends after its deadline when it times out (calibrate-mpi.sh measures
 * it: Linux's timer slack and the wake-up). */
#define SG_PROP_TIMER_OVERSHOOT "timer_overshoot_us"
/* Microseconds of a time-shared core that a thread on it takes each time
 * it wakes from a wait or a sleep (vela calibrate-wakeup measures it: the
 * switches, the interrupt, the caches the computing thread refills). */
#define SG_PROP_WAKEUP_COST "wakeup_us"
/* The calling actor is busy for us microseconds of work: a sleep, or on a
 * time-shared host (SG_PROP_TIME_SHARED) an execution of that many
 * microseconds of the host's speed, which shares the core with the other
 * actors computing there (os_sg.c). */
void sg_busy_us(double us);
/* The simulated clock (s): see sg_delay.h. */
static inline double sg_clock(void)
{
	return sg_clock_cached ? sg_clock_now : simgrid_get_clock();
}
struct sg_engine;
struct sg_kernel;
struct sg_engine *sg_engine_of(sg_host_t host);
struct sg_kernel *sg_engine_kernel(struct sg_engine *e, double seconds);
double sg_engine_last_end(struct sg_engine *e);
void sg_engine_copy(struct sg_engine *a, struct sg_engine *b, double seconds);
struct sg_kernel *sg_kernel_get(struct sg_kernel *k);
void sg_kernel_put(struct sg_kernel *k);
double sg_kernel_end(const struct sg_kernel *k);
/* Sleeps until k ends, however often a copy moves it. */
void sg_kernel_wait(const struct sg_kernel *k);

/* boot.c */
int sg_boot_hijack(const struct sim_boot *b, sim_main_fn main, int argc, char **argv, char **envp,
		   int *main_ret, char *err, size_t errsize);
int sg_boot_attach(const struct sim_boot *b, char *err, size_t errsize);
/* Refuses, with file:line and the reason (err), what SimGrid would abort
 * on in the platform file (platform_check.c): 0 or -EINVAL. */
int sg_platform_validate(const char *path, char *err, size_t errsize);
void sg_detach(void);
unsigned sg_ncpus(void);
unsigned sg_devices(struct sim_device *out, unsigned max);
ssize_t sg_host_memsize(const char *host);
int sg_host_number(const char *host, const char *prop, double *value);
/* The host of this runtime's node named `name` ("CPU0", "RAM"): the
 * platform's host of that name, or, in a rank of a simulated cluster, of
 * its node's prefix and that name. */
sg_host_t sg_host_named(const char *name);

/* sg_compat.cpp: what the C API of SimGrid 3.32 lacks. */
/* The calling actor's struct sg_thread; NULL outside any actor (a plain
 * pthread, or maestro). */
struct sg_thread *sg_self(void);
/* Whether the calling thread is an actor of a simulation already running
 * (not maestro, not a plain thread). */
int sg_in_running_actor(void);
/* simgrid_load_platform without letting a C++ exception through: 0, or -1
 * with SimGrid's reason in err. */
int sg_load_platform(const char *path, char *err, size_t errsize);
/* cb runs when SimGrid finds every actor waiting for another (a deadlock),
 * before it kills them. */
void sg_on_deadlock(void (*cb)(void));
/* sg_host_get_route without letting an exception through: 0 and the
 * route's links appended to links (a dynar of sg_link_t), or -1 when the
 * platform has no route between the two hosts. */
int sg_route_links(sg_host_t from, sg_host_t to, xbt_dynar_t links);

#endif /* VELA_SG_INTERNAL_H */
