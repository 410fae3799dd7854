/*
 * tasks_overhead: per-task cost of the runtime itself, measured with empty
 * tasks so that nothing but submission, scheduling, dependency tracking and
 * termination is on the clock.
 *
 * Written only against the public StarPU 1.3 C API, so the same source builds
 * against Vela and against StarPU (bench/compare-overhead does both).
 *
 * Shapes:
 *   indep  N independent tasks; submit them all, then wait for all.
 *   chain  N tasks linked by tags (task i waits for tag i-1).  Tasks 1..N-1
 *          are submitted first and cannot start; submitting task 0 releases
 *          the chain, and the clock stops when tag N-1 is done.  This measures
 *          the dependency-release path one task at a time.
 *
 * Task structures come from one array allocated before the clock starts, so
 * malloc is not measured; -c adds the starpu_task_create() variant, where
 * allocating and freeing the task is part of the cost.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <starpu.h>

#include "bench_util.h"

static void dummy_cpu(void *buffers[], void *arg)
{
	(void)buffers;
	(void)arg;
}

static struct starpu_codelet dummy_cl = {
	.cpu_funcs = { dummy_cpu },
	.nbuffers = 0,
	.name = "dummy",
};

/* One repetition's wall-clock times, in µs for the whole batch. */
struct sample {
	double submit;
	double exec;
	double total;
};

struct opts {
	unsigned n;
	unsigned reps;
	int indep;
	int chain;
	int with_create;
	int only_create;	/* -s indep-create / chain-create */
	int machine;
	const char *policy;	/* NULL: leave the choice to STARPU_SCHED/default */
};

static void submit_or_die(struct starpu_task *task)
{
	int ret = starpu_task_submit(task);

	if (ret != 0)
		die("starpu_task_submit", ret);
}

/*
 * Static tasks are submitted non-detached: the API only lets
 * starpu_task_clean() run after the task has been waited for explicitly, and
 * that wait happens outside the timed region.
 */
static void static_tasks_prepare(struct starpu_task *tasks, unsigned n, int tagged)
{
	for (unsigned i = 0; i < n; i++) {
		struct starpu_task *t = &tasks[i];

		starpu_task_init(t);
		t->cl = &dummy_cl;
		t->detach = 0;
		t->destroy = 0;
		if (tagged) {
			t->use_tag = 1;
			t->tag_id = (starpu_tag_t)i;
		}
	}
}

static void static_tasks_release(struct starpu_task *tasks, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int ret = starpu_task_wait(&tasks[i]);

		if (ret != 0)
			die("starpu_task_wait", ret);
		starpu_task_clean(&tasks[i]);
	}
}

static struct starpu_task *created_task(unsigned i, int tagged)
{
	struct starpu_task *t = starpu_task_create();

	if (!t)
		die("starpu_task_create", -ENOMEM);
	t->cl = &dummy_cl;
	t->detach = 1;
	t->destroy = 1;
	if (tagged) {
		t->use_tag = 1;
		t->tag_id = (starpu_tag_t)i;
	}
	return t;
}

static struct sample run_indep(struct starpu_task *tasks, unsigned n, int create)
{
	struct sample s;
	double t0, t1, t2;
	int ret;

	if (!create)
		static_tasks_prepare(tasks, n, 0);

	t0 = starpu_timing_now();
	for (unsigned i = 0; i < n; i++)
		submit_or_die(create ? created_task(i, 0) : &tasks[i]);
	t1 = starpu_timing_now();
	ret = starpu_task_wait_for_all();
	t2 = starpu_timing_now();
	if (ret != 0)
		die("starpu_task_wait_for_all", ret);

	if (!create)
		static_tasks_release(tasks, n);

	s.submit = t1 - t0;
	s.exec = t2 - t1;
	s.total = t2 - t0;
	return s;
}

static struct sample run_chain(struct starpu_task *tasks, unsigned n, int create)
{
	struct sample s;
	double t0, t1, t2;
	int ret;

	/* Dependencies are declared off the clock: we time the tasks, not
	 * building the graph. */
	for (unsigned i = 1; i < n; i++)
		starpu_tag_declare_deps((starpu_tag_t)i, 1, (starpu_tag_t)(i - 1));
	if (!create)
		static_tasks_prepare(tasks, n, 1);

	/* Tasks 1..N-1 wait on a predecessor that is not submitted yet, so
	 * this loop measures submission alone, with no worker competing. */
	t0 = starpu_timing_now();
	for (unsigned i = 1; i < n; i++)
		submit_or_die(create ? created_task(i, 1) : &tasks[i]);
	t1 = starpu_timing_now();
	submit_or_die(create ? created_task(0, 1) : &tasks[0]);
	ret = starpu_tag_wait((starpu_tag_t)(n - 1));
	t2 = starpu_timing_now();
	if (ret != 0)
		die("starpu_tag_wait", ret);

	/* tag_wait can return while the last tasks are still being torn down;
	 * they must be finished before their tags go away. */
	if (create) {
		ret = starpu_task_wait_for_all();
		if (ret != 0)
			die("starpu_task_wait_for_all", ret);
	} else {
		static_tasks_release(tasks, n);
	}
	/* Fresh tags for the next repetition: a done tag would not block. */
	for (unsigned i = 0; i < n; i++)
		starpu_tag_remove((starpu_tag_t)i);

	s.submit = t1 - t0;
	s.exec = t2 - t1;
	s.total = t2 - t0;
	return s;
}

static void report(const struct opts *o, const char *shape, const char *policy,
		   const struct sample *samples)
{
	double *sub = calloc(3 * (size_t)o->reps, sizeof(double));
	double *exe = sub + o->reps, *tot = exe + o->reps;
	double msub, mexe, mtot;
	/* The chain times the submission of N-1 tasks (task 0 goes with the
	 * execution phase); total and exec cover all N. */
	double nsub = (strncmp(shape, "chain", 5) == 0 && o->n > 1) ? o->n - 1 : o->n;

	if (!sub)
		die("calloc", -ENOMEM);

	for (unsigned r = 0; r < o->reps; r++) {
		sub[r] = samples[r].submit / nsub;
		exe[r] = samples[r].exec / o->n;
		tot[r] = samples[r].total / o->n;
	}
	msub = median(sub, o->reps);
	mexe = median(exe, o->reps);
	mtot = median(tot, o->reps);
	/* After median() each array is sorted, so [0] is the minimum. */
	if (o->machine)
		printf("%s %s %u %.3f %.3f %.3f %.3f %.3f %.3f\n", shape, policy,
		       o->n, msub, mexe, mtot, sub[0], exe[0], tot[0]);
	else
		printf("shape=%s policy=%s n=%u submit_us=%.3f exec_us=%.3f total_us=%.3f"
		       " (median of %u; min %.3f/%.3f/%.3f)\n",
		       shape, policy, o->n, msub, mexe, mtot, o->reps,
		       sub[0], exe[0], tot[0]);
	fflush(stdout);
	free(sub);
}

static void measure(const struct opts *o, struct starpu_task *tasks,
		    const char *policy, struct sample *samples, int chain, int create)
{
	char shape[32];

	snprintf(shape, sizeof(shape), "%s%s", chain ? "chain" : "indep",
		 create ? "-create" : "");
	for (unsigned r = 0; r < o->reps; r++)
		samples[r] = chain ? run_chain(tasks, o->n, create)
				   : run_indep(tasks, o->n, create);
	report(o, shape, policy, samples);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tasks_overhead [-n N] [-r R] [-s indep|chain|both] [-p policy] [-c] [-m]\n"
		"  -n N       tasks per repetition (default 100000)\n"
		"  -r R       repetitions; the median and minimum are reported (default 5)\n"
		"  -s SHAPE   indep, chain, both, indep-create or chain-create (default both)\n"
		"  -p POLICY  scheduling policy, overriding STARPU_SCHED\n"
		"             (default: STARPU_SCHED or the runtime's default)\n"
		"  -c         also measure tasks from starpu_task_create() (destroy=1)\n"
		"  -m         machine-readable output: shape policy n submit exec total\n"
		"             (medians) then the three minima, in µs per task\n");
}

int main(int argc, char **argv)
{
	bench_name = "tasks_overhead";
	struct opts o = { .n = 100000, .reps = 5, .indep = 1, .chain = 1 };
	struct starpu_task *tasks;
	struct sample *samples;
	const char *policy;
	int c;

	while ((c = getopt(argc, argv, "n:r:s:p:cmh")) != -1) {
		switch (c) {
		case 'n':
			o.n = parse_count(optarg, "task count", UINT32_MAX / 2);
			break;
		case 'r':
			o.reps = parse_count(optarg, "repetition count", UINT32_MAX / 2);
			break;
		case 's':
			if (strcmp(optarg, "indep") == 0) {
				o.indep = 1;
				o.chain = 0;
			} else if (strcmp(optarg, "chain") == 0) {
				o.indep = 0;
				o.chain = 1;
			} else if (strcmp(optarg, "both") == 0) {
				o.indep = o.chain = 1;
			} else if (strcmp(optarg, "indep-create") == 0) {
				o.indep = 1;
				o.chain = 0;
				o.only_create = 1;
			} else if (strcmp(optarg, "chain-create") == 0) {
				o.indep = 0;
				o.chain = 1;
				o.only_create = 1;
			} else {
				fprintf(stderr, "tasks_overhead: bad shape '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'p':
			o.policy = optarg;
			break;
		case 'c':
			o.with_create = 1;
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

	/* Other STARPU_* variables (STARPU_NCPU...) keep their usual
	 * precedence. */
	policy = policy_label(o.policy);

	/* Allocated before init so that the whole run's memory is in place
	 * before anything is timed. */
	tasks = calloc(o.n, sizeof(*tasks));
	samples = calloc(o.reps, sizeof(*samples));
	if (!tasks || !samples) {
		fprintf(stderr, "tasks_overhead: cannot allocate %u tasks\n", o.n);
		return EXIT_FAILURE;
	}

	if (bench_init(o.policy) == 77)
		return 77;

	if (o.indep && !o.only_create)
		measure(&o, tasks, policy, samples, 0, 0);
	if (o.chain && !o.only_create)
		measure(&o, tasks, policy, samples, 1, 0);
	if ((o.with_create || o.only_create) && o.indep)
		measure(&o, tasks, policy, samples, 0, 1);
	if ((o.with_create || o.only_create) && o.chain)
		measure(&o, tasks, policy, samples, 1, 1);

	starpu_shutdown();
	free(samples);
	free(tasks);
	return EXIT_SUCCESS;
}
