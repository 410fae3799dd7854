/* starpu.h — the entry point of the StarPU 1.3 API as Vela provides it.
 *
 * Including this header gives the whole public API. starpu_init() starts the
 * runtime: it discovers the machine (or, with STARPU_SIMGRID=1, reads the
 * simulated one), creates the workers and the scheduling policy; after
 * starpu_shutdown() the process may start it again.
 */
#ifndef STARPU_H
#define STARPU_H

#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>

#include <starpu_config.h>
#if defined(STARPU_USE_OPENCL) && !defined(__CUDACC__)
#include <starpu_opencl.h>
#endif
#include <starpu_util.h>
#include <starpu_thread.h>
#include <starpu_thread_util.h>
#include <starpu_data.h>
#include <starpu_data_interfaces.h>
#include <starpu_data_filters.h>
#include <starpu_disk.h>
#include <starpu_hash.h>
#include <starpu_stdlib.h>
#include <starpu_task_dep.h>
#include <starpu_task.h>
#include <starpu_worker.h>
#include <starpu_perfmodel.h>
#include <starpu_task_list.h>
#include <starpu_task_util.h>
#include <starpu_scheduler.h>
#include <starpu_sched_ctx.h>
#include <starpu_bitmap.h>
#include <starpu_rand.h>
#include <starpu_profiling.h>
#include <starpu_fxt.h>
#include <starpu_driver.h>
#include <starpu_cuda.h>
#include <starpu_cublas.h>
#include <starpu_cusparse.h>
#include <starpu_mpi_ms.h>
#include <starpu_helper.h>
#include <starpu_task_bundle.h>
#include <starpu_expert.h>
#include <starpu_bound.h>
#include <starpu_tree.h>
#include <starpu_simgrid_wrap.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_driver;
struct starpu_sched_policy;

/* Runtime configuration. Initialise with starpu_conf_init(): it sets every
 * field to "unset" (-1 or NULL), meaning "use the environment, else the
 * default". Environment variables override the fields unless
 * precedence_over_environment_variables is set. */
struct starpu_conf
{
	int magic;
	int will_use_mpi;
	/* Policy by name (STARPU_SCHED), or an application's own policy. */
	const char *sched_policy_name;
	struct starpu_sched_policy *sched_policy;
	void (*sched_policy_init)(unsigned);
	int precedence_over_environment_variables;

	/* Worker counts (-1: default; STARPU_NCPU, STARPU_NCUDA, ...). */
	int ncpus;
	int reserve_ncpus;
	int ncuda;
	int nopencl;
	int nmic;
	int nmpi_ms;

	/* Explicit binding of workers (STARPU_WORKERS_CPUID). */
	unsigned use_explicit_workers_bindid;
	unsigned workers_bindid[STARPU_NMAXWORKERS];
	unsigned use_explicit_workers_cuda_gpuid;
	unsigned workers_cuda_gpuid[STARPU_NMAXWORKERS];
	unsigned use_explicit_workers_opencl_gpuid;
	unsigned workers_opencl_gpuid[STARPU_NMAXWORKERS];
	unsigned use_explicit_workers_mic_deviceid;
	unsigned workers_mic_deviceid[STARPU_NMAXWORKERS];
	unsigned use_explicit_workers_mpi_ms_deviceid;
	unsigned workers_mpi_ms_deviceid[STARPU_NMAXWORKERS];

	int bus_calibrate;		/* STARPU_BUS_CALIBRATE */
	int calibrate;			/* STARPU_CALIBRATE */
	int single_combined_worker;
	char *mic_sink_program_path;
	int disable_asynchronous_copy;
	int disable_asynchronous_cuda_copy;
	int disable_asynchronous_opencl_copy;
	int disable_asynchronous_mic_copy;
	int disable_asynchronous_mpi_ms_copy;
	unsigned *cuda_opengl_interoperability;
	unsigned n_cuda_opengl_interoperability;

	/* Workers whose loop the application runs itself (starpu_driver.h). */
	struct starpu_driver *not_launched_drivers;
	unsigned n_not_launched_drivers;

	uint64_t trace_buffer_size;
	int global_sched_ctx_min_priority;
	int global_sched_ctx_max_priority;
	int catch_signals;
	/* Real runs: how long an idle worker polls before sleeping. */
	unsigned driver_spinning_backoff_min;
	unsigned driver_spinning_backoff_max;

	/* Vela extensions (not in StarPU 1.3), after StarPU's fields. */
	/* Trace recording: -1 (starpu_conf_init's default) follows
	 * STARPU_FXT_TRACE / STARPU_TRACE, 0 off, 1 on. */
	int vela_trace;
	/* Directory of the trace file; NULL: STARPU_FXT_PREFIX, else the
	 * current directory. */
	const char *vela_trace_prefix;
	/* Simulation (Vela extension): -1 (starpu_conf_init's default)
	 * follows STARPU_SIMGRID, 0 runs for real, 1 simulates (the calling
	 * thread joins a new simulation, as with STARPU_SIMGRID=1 set only
	 * before starpu_init). One simulation per process: a real run may
	 * come before it, not after. */
	int vela_simulate;
};

/* Fills conf with defaults; returns 0, or -EINVAL for a NULL conf. */
int starpu_conf_init(struct starpu_conf *conf);

/* Starts the runtime. Returns 0; -ENODEV when no worker can be started;
 * -EINVAL for an invalid configuration or environment value (a message
 * names it). conf may be NULL. */
int starpu_init(struct starpu_conf *conf) STARPU_WARN_UNUSED_RESULT;
/* Same, and may consume runtime options from the command line. */
int starpu_initialize(struct starpu_conf *user_conf, int *argc, char ***argv);
int starpu_is_initialized(void);
void starpu_wait_initialized(void);
/* Waits for the ready tasks to finish, stops the workers and frees the
 * runtime. Tasks still blocked on dependencies are reported and dropped. */
void starpu_shutdown(void);

/* Workers stop taking new tasks until the matching starpu_resume();
 * submission continues. Calls nest. */
void starpu_pause(void);
void starpu_resume(void);

void starpu_topology_print(FILE *f);
int starpu_asynchronous_copy_disabled(void);
void starpu_display_stats(void);
void starpu_get_version(int *major, int *minor, int *release);

/* Vela extension (not in StarPU 1.3): 1 when this run is simulated
 * (STARPU_SIMGRID=1: kernels are not executed, time is simulated), so an
 * application can skip checking its results; 0 in a real run. Unlike
 * StarPU's STARPU_SIMGRID macro (never defined by Vela), it is decided at
 * run time: the same binary runs both ways. Environment of a simulation:
 *   STARPU_SIMGRID=1             simulate (at process start: main() runs in
 *                                a simulated actor; set later, starpu_init
 *                                attaches to a slower thread-based one)
 *   STARPU_SIMGRID_PLATFORM=f    the platform file; default: this host's
 *                                (or STARPU_HOSTNAME's) calibration,
 *                                <sampling dir>/bus/<host>.platform.v4.xml
 *   STARPU_SIMGRID_DEFAULT_TASK_US=d  duration of tasks whose codelet has no
 *                                usable model (default: such a task fails)
 *   VELA_SIM_BOOT=attach         always attach (thread contexts)
 *   VELA_SIM_PLUGIN=path         the plugin (default: the installed one)
 *   VELA_SIMGRID_ARGS="--cfg=..."  options for SimGrid itself
 * The platform's CPU<k> hosts are CPU workers, its CUDA<k> and OpenCL<k>
 * hosts GPU workers with a memory node each (STARPU_NCUDA, STARPU_NOPENCL
 * restrict them). */
int vela_is_simulated(void);

/* Vela extension: a stand-in for a device kernel that exists only in
 * simulation. A codelet is schedulable on simulated CUDA (resp. OpenCL)
 * workers when it declares cuda_funcs (resp. opencl_funcs); an application
 * without a CUDA kernel may name this function there, e.g.
 *   .cuda_funcs = { vela_sim_placeholder },
 * Kernels never run in simulation; called for real (a real CUDA or OpenCL
 * worker), it prints which task called it and aborts the process. */
void vela_sim_placeholder(void *buffers[], void *cl_arg);

#ifdef __cplusplus
}
#endif

#include <starpu_deprecated_api.h>

#endif /* STARPU_H */
