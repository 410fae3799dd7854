/*
 * cuda_tasks: per-task cost of the runtime on a CUDA worker, measured with
 * empty tasks (a codelet whose only implementation is a CUDA function, no
 * buffers), so that the clock sees submission, scheduling, the CUDA
 * worker's task cycle and termination, not a copy.
 *
 * Written only against the public StarPU 1.3 C API and the CUDA runtime, so
 * the same source builds against Vela and against StarPU 1.3 built with
 * CUDA (bench/compare-cuda does both; the empty kernel comes from
 * bench/cuda_kernels.cu, compiled by nvcc). Needs a GPU: without one it
 * exits 77 with the reason. Only the CUDA worker runs: STARPU_NCPU=0
 * unless set otherwise in the environment.
 *
 * Shapes (as in tasks_overhead.c and opencl_tasks.c):
 *   indep  N independent tasks; submit them all, then wait for all.
 *   chain  N tasks linked by tags (task i waits for tag i-1), submitted
 *          1..N-1 first, then task 0; the clock stops when tag N-1 is done:
 *          the latency of one task's termination releasing the next.
 * Flags:
 *   sync   the CUDA function is an empty host function (no launch, as in
 *          StarPU's tasks_overhead), no cuda_flags: the runtime treats it as
 *          synchronous (it may synchronize the worker's stream after it).
 *   async  the CUDA function launches one empty kernel on
 *          starpu_cuda_get_local_stream() and returns, STARPU_CUDA_ASYNC:
 *          the runtime learns the task's end from the GPU (an event after
 *          the kernel), so every task is a real launch and a real
 *          completion.
 *
 * Reference lines, no runtime at all (timed before starpu_init):
 *   raw rr4    N empty kernels issued round-robin on 4 streams of our own,
 *              each followed by a cudaEventRecord, at most W (-w, default 8)
 *              in flight per stream; one host thread issues and polls the
 *              oldest event of each stream with cudaEventQuery. What a
 *              runtime driving one GPU from one thread can hope for; the
 *              async indep line compares with it.
 *   raw chain  N empty kernels on one stream, each waited for (event,
 *              cudaEventQuery polling) before the next is launched: the
 *              floor of the async chain line.
 *
 * Task structures come from one array allocated before the clock starts,
 * so malloc is not measured (static tasks, detach=0, cleaned off the
 * clock). Each figure is the median (and minimum) over R repetitions inside
 * one process, in µs per task.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <starpu.h>

#include "bench_util.h"
#include "bench_tasks.h"
#include "bench_cuda.h"

/* bench/cuda_kernels.cu */
cudaError_t bench_launch_empty(cudaStream_t stream);

#define RAW_STREAMS 4

static void empty_host(void *buffers[], void *arg)
{
	(void)buffers;
	(void)arg;
}

static void empty_kernel_async(void *buffers[], void *arg)
{
	(void)buffers;
	(void)arg;
	cudaError_t err = bench_launch_empty(starpu_cuda_get_local_stream());

	if (err != cudaSuccess) {
		fprintf(stderr, "cuda_tasks: launching the empty kernel on the worker's stream failed: %s\n",
			cudaGetErrorString(err));
		exit(EXIT_FAILURE);
	}
}

static struct starpu_codelet sync_cl = {
	.where = STARPU_CUDA,
	.cuda_funcs = { empty_host },
	.nbuffers = 0,
	.name = "empty_cuda",
};

static struct starpu_codelet async_cl = {
	.where = STARPU_CUDA,
	.cuda_funcs = { empty_kernel_async },
	.cuda_flags = { STARPU_CUDA_ASYNC },
	.nbuffers = 0,
	.name = "empty_cuda_async",
};

struct opts {
	unsigned n;
	unsigned reps;
	unsigned window;	/* raw: events in flight per stream */
	int indep, chain;	/* shapes to run */
	int sync, async;	/* flags to run */
	int raw;		/* the reference lines */
	int machine;
	const char *policy;	/* NULL: STARPU_SCHED or the runtime's default */
};

/* ---- the references, without the runtime ------------------------------ */

/* Streams and events of our own; stream s's ring of window events is
 * ev[s * window ...]. */
struct raw {
	cudaStream_t st[RAW_STREAMS];
	cudaEvent_t *ev;
	unsigned window;
};

static void launch_or_die(cudaStream_t s)
{
	cuda_check(bench_launch_empty(s), "launching the empty kernel");
}

/* Retires the done events at the head of stream q's ring; returns how many. */
static unsigned raw_poll(struct raw *r, unsigned q, unsigned *head, unsigned *count)
{
	unsigned done = 0;

	while (count[q] > 0) {
		cudaError_t err = cudaEventQuery(r->ev[q * r->window + head[q]]);

		if (err == cudaErrorNotReady)
			break;
		cuda_check(err, "cudaEventQuery");
		head[q] = (head[q] + 1) % r->window;
		count[q]--;
		done++;
	}
	return done;
}

/* n kernels round-robin on the streams, each with its event, at most
 * window in flight per stream; µs per kernel, first issue to last done. */
static double raw_rr(struct raw *r, unsigned n)
{
	unsigned head[RAW_STREAMS] = { 0 }, count[RAW_STREAMS] = { 0 };
	unsigned issued = 0, done = 0;
	double t0 = now_us();

	while (done < n) {
		if (issued < n) {
			unsigned s = issued % RAW_STREAMS;

			if (count[s] < r->window) {
				launch_or_die(r->st[s]);
				unsigned slot = (head[s] + count[s]) % r->window;
				cuda_check(cudaEventRecord(r->ev[s * r->window + slot], r->st[s]), "cudaEventRecord");
				count[s]++;
				issued++;
			}
		}
		for (unsigned q = 0; q < RAW_STREAMS; q++)
			done += raw_poll(r, q, head, count);
	}
	return (now_us() - t0) / n;
}

/* n kernels on one stream, each waited for (polled) before the next. */
static double raw_chain(struct raw *r, unsigned n)
{
	double t0 = now_us();

	for (unsigned i = 0; i < n; i++) {
		cudaError_t err;

		launch_or_die(r->st[0]);
		cuda_check(cudaEventRecord(r->ev[0], r->st[0]), "cudaEventRecord");
		while ((err = cudaEventQuery(r->ev[0])) == cudaErrorNotReady)
			;
		cuda_check(err, "cudaEventQuery");
	}
	return (now_us() - t0) / n;
}

static void report(const struct opts *o, const char *shape, const char *flag, const char *policy,
		   double *us, const char *what)
{
	double med = median(us, o->reps);	/* sorts: us[0] is the minimum */

	if (o->machine)
		printf("%s %s %s %u %.3f %.3f\n", shape, flag, policy, o->n, med, us[0]);
	else
		printf("shape=%s flags=%s policy=%s n=%u us_per_task=%.3f (median of %u; min %.3f)%s%s\n",
		       shape, flag, policy, o->n, med, o->reps, us[0], what ? " " : "", what ? what : "");
	fflush(stdout);
}

/* Both references, before the runtime starts (a GPU is there: checked). */
static void measure_raw(const struct opts *o)
{
	struct raw r = { .window = o->window };
	double *us = calloc(o->reps, sizeof(double));
	char what[128];

	r.ev = calloc((size_t)RAW_STREAMS * o->window, sizeof(cudaEvent_t));
	if (!us || !r.ev)
		die("calloc", -ENOMEM);
	cuda_check(cudaSetDevice(0), "cudaSetDevice(0)");
	for (unsigned s = 0; s < RAW_STREAMS; s++)
		cuda_check(cudaStreamCreateWithFlags(&r.st[s], cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
	for (unsigned i = 0; i < RAW_STREAMS * o->window; i++)
		cuda_check(cudaEventCreateWithFlags(&r.ev[i], cudaEventDisableTiming), "cudaEventCreateWithFlags");

	raw_rr(&r, 1000);	/* warm-up: the kernel's module loads */
	for (unsigned k = 0; k < o->reps; k++)
		us[k] = raw_rr(&r, o->n);
	snprintf(what, sizeof(what), "(raw: %d streams round robin, <= %u in flight each, one polling thread, no runtime)",
		 RAW_STREAMS, o->window);
	report(o, "raw", "rr4", "none", us, what);

	raw_chain(&r, 200);
	for (unsigned k = 0; k < o->reps; k++)
		us[k] = raw_chain(&r, o->n);
	report(o, "raw", "chain", "none", us, "(raw: one stream, each kernel waited for before the next, no runtime)");

	cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	for (unsigned i = 0; i < RAW_STREAMS * o->window; i++)
		cudaEventDestroy(r.ev[i]);
	for (unsigned s = 0; s < RAW_STREAMS; s++)
		cudaStreamDestroy(r.st[s]);
	free(r.ev);
	free(us);
}

/* ---- through the runtime ------------------------------------------------ */

static void measure(const struct opts *o, struct starpu_task *tasks, const char *policy,
		    int chain, int async)
{
	struct starpu_codelet *cl = async ? &async_cl : &sync_cl;
	double *us = calloc(o->reps, sizeof(double));

	if (!us)
		die("calloc", -ENOMEM);
	/* Warm-up: the worker's first tasks, the kernel's module. */
	bench_run_indep(tasks, o->n < 200 ? o->n : 200, cl);
	for (unsigned r = 0; r < o->reps; r++)
		us[r] = chain ? bench_run_chain(tasks, o->n, cl) : bench_run_indep(tasks, o->n, cl);
	report(o, chain ? "chain" : "indep", async ? "async" : "sync", policy, us, NULL);
	free(us);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cuda_tasks [-n N] [-r R] [-s indep|chain|both] [-f sync|async|both] [-p POLICY]\n"
		"                  [-w W] [-X] [-m]\n"
		"  -n N       tasks (and raw kernels) per repetition (default 10000)\n"
		"  -r R       repetitions; the median and minimum are reported (default 5)\n"
		"  -s SHAPE   indep, chain or both (default both)\n"
		"  -f FLAGS   sync (empty host function) , async (an empty kernel, STARPU_CUDA_ASYNC)\n"
		"             or both (default both)\n"
		"  -p POLICY  scheduling policy, overriding STARPU_SCHED\n"
		"  -w W       raw reference: kernels in flight per stream (default 8)\n"
		"  -X         leave out the raw reference lines\n"
		"  -m         machine-readable output: shape flags policy n median min (µs per task);\n"
		"             the raw references as \"raw rr4 none ...\" and \"raw chain none ...\"\n"
		"Needs a CUDA GPU (exits 77 without one); STARPU_NCPU defaults to 0 here.\n");
}

int main(int argc, char **argv)
{
	bench_name = "cuda_tasks";
	struct opts o = { .n = 10000, .reps = 5, .window = 8, .indep = 1, .chain = 1,
			  .sync = 1, .async = 1, .raw = 1 };
	int c;

	while ((c = getopt(argc, argv, "n:r:s:f:p:w:Xmh")) != -1) {
		switch (c) {
		case 'n':
			o.n = parse_count(optarg, "task count", UINT32_MAX / 2);
			break;
		case 'r':
			o.reps = parse_count(optarg, "repetition count", 100000);
			break;
		case 's':
			o.indep = strcmp(optarg, "indep") == 0 || strcmp(optarg, "both") == 0;
			o.chain = strcmp(optarg, "chain") == 0 || strcmp(optarg, "both") == 0;
			if (!o.indep && !o.chain) {
				fprintf(stderr, "cuda_tasks: bad shape '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'f':
			o.sync = strcmp(optarg, "sync") == 0 || strcmp(optarg, "both") == 0;
			o.async = strcmp(optarg, "async") == 0 || strcmp(optarg, "both") == 0;
			if (!o.sync && !o.async) {
				fprintf(stderr, "cuda_tasks: bad flags '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'p':
			o.policy = optarg;
			break;
		case 'w':
			o.window = parse_count(optarg, "window (kernels in flight per stream)", 4096);
			break;
		case 'X':
			o.raw = 0;
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
	if (bench_cuda_gpu_or_skip() == 77)
		return 77;
	const char *policy = policy_label(o.policy);
	struct starpu_task *tasks = calloc(o.n, sizeof(*tasks));
	if (!tasks) {
		fprintf(stderr, "cuda_tasks: cannot allocate %u tasks\n", o.n);
		return EXIT_FAILURE;
	}
	char device[160];
	bench_cuda_describe(device, sizeof(device));
	printf("# device: %s\n", device);

	if (o.raw)
		measure_raw(&o);

	bench_cuda_only_worker();
	if (bench_init(o.policy) == 77)
		return 77;
	if (starpu_cuda_worker_get_count() == 0) {
		fprintf(stderr, "cuda_tasks: the runtime started no CUDA worker (STARPU_NCUDA=0?); skipped\n");
		starpu_shutdown();
		return 77;
	}
	printf("# workers: %u CUDA, %u CPU\n", starpu_cuda_worker_get_count(), starpu_cpu_worker_get_count());
	fflush(stdout);

	for (int async = 0; async <= 1; async++) {
		if (!(async ? o.async : o.sync))
			continue;
		if (o.indep)
			measure(&o, tasks, policy, 0, async);
		if (o.chain)
			measure(&o, tasks, policy, 1, async);
	}

	starpu_shutdown();
	free(tasks);
	return EXIT_SUCCESS;
}
