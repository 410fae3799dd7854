/*
 * opencl_tasks: per-task cost of the runtime on an OpenCL worker, measured
 * with empty tasks (a codelet whose only implementation is an empty OpenCL
 * function, no buffers), so that the clock sees submission, scheduling,
 * the OpenCL worker's task cycle and termination, not a kernel or a copy.
 *
 * Written only against the public StarPU 1.3 C API, so the same source builds
 * against Vela and against StarPU (bench/compare-opencl does both). It needs
 * an OpenCL worker: for a CPU device such as PoCL's, run it with
 * STARPU_OPENCL_ON_CPUS=1 (and POCL_CPU_MAX_CU_COUNT=1 on a small machine).
 *
 * Shapes (as in tasks_overhead.c):
 *   indep  N independent tasks; submit them all, then wait for all.
 *   chain  N tasks linked by tags (task i waits for tag i-1), submitted
 *          1..N-1 first, then task 0; the clock stops when tag N-1 is done:
 *          the latency of one task's termination releasing the next, on
 *          the OpenCL worker.
 * Flags:
 *   sync   the codelet has no opencl_flags: the task is done when the
 *          function returns (the runtime may check that the device queue
 *          is drained).
 *   async  STARPU_OPENCL_ASYNC: the function queues nothing and returns,
 *          the runtime learns the task's end from the device queue (an
 *          event after it), so every task makes a round trip through the
 *          OpenCL implementation.
 *
 * Task structures come from one array allocated before the clock starts, so
 * malloc is not measured (static tasks, detach=0, cleaned off the clock).
 *
 * With async, a reference line (shape "device") times the device without
 * tasks: a marker queued on a command queue of our own on the same device,
 * flushed and waited for with clWaitForEvents, N times, by the application
 * thread while the runtime's workers are idle. A chain of async tasks
 * cannot end faster than one such round trip per task, whatever the runtime
 * does; both libraries' binaries measure it the same way (what their idle
 * workers do meanwhile, e.g. polling, shows in it).
 */
/* clEnqueueMarkerWithWaitList is OpenCL 1.2; StarPU's header would
 * otherwise target 1.0. */
#define CL_TARGET_OPENCL_VERSION 120
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <starpu.h>

#include "bench_util.h"
#include "bench_tasks.h"

static void empty_opencl(void *buffers[], void *arg)
{
	(void)buffers;
	(void)arg;
}

static struct starpu_codelet sync_cl = {
	.where = STARPU_OPENCL,
	.opencl_funcs = { empty_opencl },
	.nbuffers = 0,
	.name = "empty_opencl",
};

static struct starpu_codelet async_cl = {
	.where = STARPU_OPENCL,
	.opencl_funcs = { empty_opencl },
	.opencl_flags = { STARPU_OPENCL_ASYNC },
	.nbuffers = 0,
	.name = "empty_opencl_async",
};

struct opts {
	unsigned n;
	unsigned reps;
	int indep, chain;	/* shapes to run */
	int sync, async;	/* flags to run */
	int machine;
	const char *policy;	/* NULL: STARPU_SCHED or the runtime's default */
};

#ifdef STARPU_USE_OPENCL
/* One repetition of the device reference; µs per marker round trip. */
static double run_device(cl_command_queue queue, unsigned n)
{
	double t0 = starpu_timing_now();
	for (unsigned i = 0; i < n; i++) {
		cl_event ev;
		cl_int err = clEnqueueMarkerWithWaitList(queue, 0, NULL, &ev);
		if (err == CL_SUCCESS)
			err = clFlush(queue);
		if (err == CL_SUCCESS)
			err = clWaitForEvents(1, &ev);
		if (err != CL_SUCCESS)
			STARPU_OPENCL_REPORT_ERROR(err);
		clReleaseEvent(ev);
	}
	return (starpu_timing_now() - t0) / n;
}

static void measure_device(const struct opts *o, const char *policy)
{
	cl_device_id device;
	cl_int err;

	starpu_opencl_get_device(0, &device);
	cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	double *us = calloc(o->reps, sizeof(double));
	if (!us)
		die("calloc", -ENOMEM);
	run_device(queue, 100);	/* warm-up: the device's thread starts */
	for (unsigned r = 0; r < o->reps; r++)
		us[r] = run_device(queue, o->n);
	double med = median(us, o->reps);
	if (o->machine)
		printf("device marker %s %u %.3f %.3f\n", policy, o->n, med, us[0]);
	else
		printf("shape=device (marker round trip, no runtime) n=%u us=%.3f (median of %u; min %.3f)\n",
		       o->n, med, o->reps, us[0]);
	fflush(stdout);
	free(us);
	clReleaseCommandQueue(queue);
	clReleaseContext(context);
}
#endif

static void measure(const struct opts *o, struct starpu_task *tasks, const char *policy,
		    int chain, int async)
{
	struct starpu_codelet *cl = async ? &async_cl : &sync_cl;
	double *us = calloc(o->reps, sizeof(double));

	if (!us)
		die("calloc", -ENOMEM);
	for (unsigned r = 0; r < o->reps; r++)
		us[r] = chain ? bench_run_chain(tasks, o->n, cl) : bench_run_indep(tasks, o->n, cl);
	double med = median(us, o->reps);
	const char *shape = chain ? "chain" : "indep", *flag = async ? "async" : "sync";
	if (o->machine)
		printf("%s %s %s %u %.3f %.3f\n", shape, flag, policy, o->n, med, us[0]);
	else
		printf("shape=%s flags=%s policy=%s n=%u us_per_task=%.3f (median of %u; min %.3f)\n",
		       shape, flag, policy, o->n, med, o->reps, us[0]);
	fflush(stdout);
	free(us);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: opencl_tasks [-n N] [-r R] [-s indep|chain|both] [-f sync|async|both] [-p POLICY] [-m]\n"
		"  -n N       tasks per repetition (default 20000)\n"
		"  -r R       repetitions; the median and minimum are reported (default 5)\n"
		"  -s SHAPE   indep, chain or both (default both)\n"
		"  -f FLAGS   sync (no opencl_flags), async (STARPU_OPENCL_ASYNC) or both (default both)\n"
		"  -p POLICY  scheduling policy, overriding STARPU_SCHED\n"
		"  -m         machine-readable output: shape flags policy n median min (µs per task);\n"
		"             with async, a line \"device marker ...\": the device's own round trip\n"
		"Needs an OpenCL worker: STARPU_OPENCL_ON_CPUS=1 for a CPU device (PoCL).\n");
}

int main(int argc, char **argv)
{
	bench_name = "opencl_tasks";
	struct opts o = { .n = 20000, .reps = 5, .indep = 1, .chain = 1, .sync = 1, .async = 1 };
	int c;

	while ((c = getopt(argc, argv, "n:r:s:f:p:mh")) != -1) {
		switch (c) {
		case 'n':
			o.n = parse_count(optarg, "task count", UINT32_MAX / 2);
			break;
		case 'r':
			o.reps = parse_count(optarg, "repetition count", UINT32_MAX / 2);
			break;
		case 's':
			o.indep = strcmp(optarg, "indep") == 0 || strcmp(optarg, "both") == 0;
			o.chain = strcmp(optarg, "chain") == 0 || strcmp(optarg, "both") == 0;
			if (!o.indep && !o.chain) {
				fprintf(stderr, "opencl_tasks: bad shape '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'f':
			o.sync = strcmp(optarg, "sync") == 0 || strcmp(optarg, "both") == 0;
			o.async = strcmp(optarg, "async") == 0 || strcmp(optarg, "both") == 0;
			if (!o.sync && !o.async) {
				fprintf(stderr, "opencl_tasks: bad flags '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'p':
			o.policy = optarg;
			break;
		case 'm':
			o.machine = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			return EXIT_FAILURE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_FAILURE;
	}
	const char *policy = policy_label(o.policy);
	struct starpu_task *tasks = calloc(o.n, sizeof(*tasks));
	if (!tasks) {
		fprintf(stderr, "opencl_tasks: cannot allocate %u tasks\n", o.n);
		return EXIT_FAILURE;
	}
	if (bench_init(o.policy) == 77)
		return 77;
	if (starpu_opencl_worker_get_count() == 0) {
		fprintf(stderr, "opencl_tasks: no OpenCL worker (for a CPU device such as PoCL, "
			"set STARPU_OPENCL_ON_CPUS=1)\n");
		starpu_shutdown();
		return 77;
	}

	for (int async = 0; async <= 1; async++) {
		if (!(async ? o.async : o.sync))
			continue;
		if (o.indep)
			measure(&o, tasks, policy, 0, async);
		if (o.chain)
			measure(&o, tasks, policy, 1, async);
	}
#ifdef STARPU_USE_OPENCL
	if (o.async)
		measure_device(&o, policy);
#endif

	starpu_shutdown();
	free(tasks);
	return EXIT_SUCCESS;
}
