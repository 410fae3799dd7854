/*
 * data_overhead: per-task cost of the data layer, measured with empty tasks
 * that carry 1, 2, 4 or 8 small vector handles, so that the clock sees task
 * management plus what each buffer adds: implicit dependencies (sequential
 * consistency), coherency and locking of each handle, and handing the
 * interfaces to the kernel.  The vectors are registered once, before the
 * clock, in main RAM, so no data ever moves.
 *
 * Written only against the public StarPU 1.3 C API, so the same source builds
 * against Vela and against StarPU (bench/compare-data does both).
 *
 * Modes:
 *   R   N tasks that all read the same nbuffers handles: readers do not
 *       depend on each other, so the tasks are independent.
 *   RW  task i accesses in RW the handles of set i % C (C chains, -c, default
 *       1): each task depends, through every one of its handles, on the
 *       previous task of its set, so the tasks form C chains.  With C = 1 the
 *       tasks run one after the other, and the per-task time is the larger of
 *       the submission cost and the dependency-release latency.
 *
 * Task structures come from one array allocated before the clock starts
 * (starpu_task_init, detach=0, destroy=0; waited for and cleaned off the
 * clock), so malloc of the task is not measured.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <starpu.h>

#include "bench_util.h"

#define MAX_NBUF 8
/* Elements per vector: small, so that the data is only ever bookkeeping. */
#define VEC_NX 16

static void empty_cpu(void *buffers[], void *arg)
{
	(void)buffers;
	(void)arg;
}

/* One repetition's wall-clock times, in µs for the whole batch. */
struct sample {
	double submit;
	double exec;
	double total;
};

struct opts {
	unsigned n;
	unsigned reps;
	unsigned chains;	/* RW: number of independent handle sets */
	unsigned nbufs[MAX_NBUF];	/* buffer counts to measure, in order */
	unsigned nnbufs;
	int do_r;
	int do_rw;
	int machine;
	const char *policy;	/* NULL: leave the choice to STARPU_SCHED/default */
};

/*
 * handles[c * MAX_NBUF + k]: handle k of set c.  Set 0 is also the one every
 * R task reads.  The vectors behind them are owned by vec_data (freed after
 * unregistration).
 */
static starpu_data_handle_t *handles;
static float *vec_data;

static void register_handles(unsigned nsets)
{
	size_t nh = (size_t)nsets * MAX_NBUF;

	handles = calloc(nh, sizeof(*handles));
	vec_data = calloc(nh * VEC_NX, sizeof(*vec_data));
	if (!handles || !vec_data)
		die("calloc", -ENOMEM);
	for (size_t h = 0; h < nh; h++)
		starpu_vector_data_register(&handles[h], STARPU_MAIN_RAM,
					    (uintptr_t)&vec_data[h * VEC_NX],
					    VEC_NX, sizeof(float));
}

static void unregister_handles(unsigned nsets)
{
	for (size_t h = 0; h < (size_t)nsets * MAX_NBUF; h++)
		starpu_data_unregister(handles[h]);
	free(handles);
	free(vec_data);
}

static void tasks_prepare(struct starpu_task *tasks, unsigned n,
			  struct starpu_codelet *cl, unsigned nbuf,
			  unsigned chains, int rw)
{
	for (unsigned i = 0; i < n; i++) {
		struct starpu_task *t = &tasks[i];
		unsigned set = rw ? i % chains : 0;

		starpu_task_init(t);
		t->cl = cl;
		t->detach = 0;
		t->destroy = 0;
		for (unsigned k = 0; k < nbuf; k++)
			t->handles[k] = handles[set * MAX_NBUF + k];
	}
}

/* The API only lets starpu_task_clean() run after the task has been waited
 * for explicitly; that happens off the clock. */
static void tasks_release(struct starpu_task *tasks, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int ret = starpu_task_wait(&tasks[i]);

		if (ret != 0)
			die("starpu_task_wait", ret);
		starpu_task_clean(&tasks[i]);
	}
}

static struct sample run_once(struct starpu_task *tasks, const struct opts *o,
			      struct starpu_codelet *cl, unsigned nbuf, int rw)
{
	struct sample s;
	double t0, t1, t2;
	int ret;

	tasks_prepare(tasks, o->n, cl, nbuf, o->chains, rw);

	t0 = starpu_timing_now();
	for (unsigned i = 0; i < o->n; i++) {
		ret = starpu_task_submit(&tasks[i]);
		if (ret != 0)
			die("starpu_task_submit", ret);
	}
	t1 = starpu_timing_now();
	ret = starpu_task_wait_for_all();
	t2 = starpu_timing_now();
	if (ret != 0)
		die("starpu_task_wait_for_all", ret);

	tasks_release(tasks, o->n);

	s.submit = t1 - t0;
	s.exec = t2 - t1;
	s.total = t2 - t0;
	return s;
}

static void report(const struct opts *o, const char *mode, unsigned nbuf,
		   const char *policy, const struct sample *samples)
{
	double *sub = calloc(3 * (size_t)o->reps, sizeof(double));
	double *exe = sub + o->reps, *tot = exe + o->reps;
	double msub, mexe, mtot;

	if (!sub)
		die("calloc", -ENOMEM);

	for (unsigned r = 0; r < o->reps; r++) {
		sub[r] = samples[r].submit / o->n;
		exe[r] = samples[r].exec / o->n;
		tot[r] = samples[r].total / o->n;
	}
	msub = median(sub, o->reps);
	mexe = median(exe, o->reps);
	mtot = median(tot, o->reps);
	/* After median() each array is sorted, so [0] is the minimum. */
	if (o->machine)
		printf("%s %u %s %u %.3f %.3f %.3f %.3f %.3f %.3f\n", mode, nbuf,
		       policy, o->n, msub, mexe, mtot, sub[0], exe[0], tot[0]);
	else
		printf("mode=%s nbuffers=%u policy=%s n=%u submit_us=%.3f exec_us=%.3f"
		       " total_us=%.3f (median of %u; min %.3f/%.3f/%.3f)\n",
		       mode, nbuf, policy, o->n, msub, mexe, mtot, o->reps,
		       sub[0], exe[0], tot[0]);
	fflush(stdout);
	free(sub);
}

static void measure(const struct opts *o, struct starpu_task *tasks,
		    const char *policy, struct sample *samples,
		    unsigned nbuf, int rw)
{
	enum starpu_data_access_mode mode = rw ? STARPU_RW : STARPU_R;
	struct starpu_codelet cl;

	/* One codelet per (nbuffers, mode): the modes live in the codelet,
	 * as in most applications. */
	memset(&cl, 0, sizeof(cl));
	cl.cpu_funcs[0] = empty_cpu;
	cl.nbuffers = (int)nbuf;
	for (unsigned k = 0; k < nbuf; k++)
		cl.modes[k] = mode;
	cl.name = rw ? "empty_rw" : "empty_r";

	for (unsigned r = 0; r < o->reps; r++)
		samples[r] = run_once(tasks, o, &cl, nbuf, rw);
	report(o, rw ? "RW" : "R", nbuf, policy, samples);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: data_overhead [-n N] [-r R] [-b \"1 2 4 8\"] [-a R|RW|both] [-c C]\n"
		"                     [-p policy] [-m]\n"
		"  -n N       tasks per repetition (default 20000)\n"
		"  -r R       repetitions; the median and minimum are reported (default 5)\n"
		"  -b LIST    buffer counts, 1 to %d, space- or comma-separated (default \"1 2 4 8\")\n"
		"  -a MODE    R (independent readers of the same handles), RW (chains),\n"
		"             or both (default both)\n"
		"  -c C       RW: task i uses handle set i %% C, giving C chains (default 1)\n"
		"  -p POLICY  scheduling policy, overriding STARPU_SCHED\n"
		"             (default: STARPU_SCHED or the runtime's default)\n"
		"  -m         machine-readable output: mode nbuffers policy n submit exec\n"
		"             total (medians) then the three minima, in µs per task\n",
		MAX_NBUF);
}

static void parse_nbufs(struct opts *o, char *list)
{
	char *save = NULL;

	o->nnbufs = 0;
	for (char *tok = strtok_r(list, " ,", &save); tok;
	     tok = strtok_r(NULL, " ,", &save)) {
		if (o->nnbufs == MAX_NBUF) {
			fprintf(stderr, "data_overhead: at most %d buffer counts in -b\n",
				MAX_NBUF);
			exit(EXIT_FAILURE);
		}
		o->nbufs[o->nnbufs++] = parse_count(tok, "buffer count", MAX_NBUF);
	}
	if (o->nnbufs == 0) {
		fprintf(stderr, "data_overhead: -b needs at least one buffer count\n");
		exit(EXIT_FAILURE);
	}
}

int main(int argc, char **argv)
{
	bench_name = "data_overhead";
	struct opts o = {
		.n = 20000, .reps = 5, .chains = 1,
		.nbufs = { 1, 2, 4, 8 }, .nnbufs = 4, .do_r = 1, .do_rw = 1,
	};
	struct starpu_task *tasks;
	struct sample *samples;
	const char *policy;
	unsigned nsets;
	int c;

	while ((c = getopt(argc, argv, "n:r:b:a:c:p:mh")) != -1) {
		switch (c) {
		case 'n':
			o.n = parse_count(optarg, "task count", UINT32_MAX / 2);
			break;
		case 'r':
			o.reps = parse_count(optarg, "repetition count", 1000);
			break;
		case 'b':
			parse_nbufs(&o, optarg);
			break;
		case 'a':
			o.do_r = strcmp(optarg, "R") == 0 || strcmp(optarg, "both") == 0;
			o.do_rw = strcmp(optarg, "RW") == 0 || strcmp(optarg, "both") == 0;
			if (!o.do_r && !o.do_rw) {
				fprintf(stderr, "data_overhead: bad mode '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'c':
			o.chains = parse_count(optarg, "chain count", 1u << 16);
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

	policy = policy_label(o.policy);

	/* Allocated before init so that the whole run's memory is in place
	 * before anything is timed. */
	tasks = calloc(o.n, sizeof(*tasks));
	samples = calloc(o.reps, sizeof(*samples));
	if (!tasks || !samples) {
		fprintf(stderr, "data_overhead: cannot allocate %u tasks\n", o.n);
		return EXIT_FAILURE;
	}

	if (bench_init(o.policy) == 77)
		return 77;

	nsets = o.do_rw ? o.chains : 1;
	register_handles(nsets);
	for (unsigned b = 0; b < o.nnbufs; b++) {
		if (o.do_r)
			measure(&o, tasks, policy, samples, o.nbufs[b], 0);
		if (o.do_rw)
			measure(&o, tasks, policy, samples, o.nbufs[b], 1);
	}
	unregister_handles(nsets);

	starpu_shutdown();
	free(samples);
	free(tasks);
	return EXIT_SUCCESS;
}
