/*
 * dmda_ties.c — where dmda puts tasks released by workers that finish at
 * the same moment.
 *
 * W writer tasks (each RW its own datum) start together on W idle CPU
 * workers and, all of the same length L, end together; each releases one
 * reader (R the writer's datum, RW one of its own). A scheduler that sees
 * each release in turn puts the W readers on W workers: makespan 2 L. One
 * that decides all of them from the queues as they were before any was
 * placed puts them on the same worker, the first: (W + 1) L.
 *
 * Durations come from a cost function (a STARPU_PER_ARCH model, no file), so
 * the same source runs for real (the kernel spins for L µs) and simulated
 * (Vela with STARPU_SIMGRID=1, or StarPU built with SimGrid), under any
 * scheduler named by STARPU_SCHED (the point is dmda). bench/compare-dmda-ties
 * runs it on all sides; bench/README.md, "dmda_ties", has the figures.
 *
 * Usage: dmda_ties [-w W] [-l L_US] [-r REPS]
 *   -w W      writers and readers (default: the number of CPU workers)
 *   -l L_US   each task's length in microseconds (default 20000)
 *   -r REPS   repetitions in the same session (default 1)
 * Prints one line per repetition: the makespan, in L, and how many distinct
 * workers ran the readers; then a summary line. Exit 0, 1 on error, 77 when
 * no CPU worker is available.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>

static double task_us = 20000.0;

static void spin_kernel(void *buffers[], void *arg)
{
	(void)buffers;
	(void)arg;
	double end = starpu_timing_now() + task_us;
	while (starpu_timing_now() < end)
		;
}

/* Per arch, so that no relative speed scales it (a STARPU_COMMON model's
 * cost is divided by the arch's speed-up, which StarPU 1.4 makes 0.5 for a
 * CPU). */
static double cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	(void)task;
	(void)arch;
	(void)nimpl;
	return task_us;
}

static struct starpu_perfmodel model = { .type = STARPU_PER_ARCH, .arch_cost_function = cost, .symbol = "dmda_ties" };
static struct starpu_codelet writer_cl = {
	.cpu_funcs = { spin_kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &model, .name = "writer",
};
static struct starpu_codelet reader_cl = {
	.cpu_funcs = { spin_kernel }, .nbuffers = 2, .modes = { STARPU_R, STARPU_RW }, .model = &model, .name = "reader",
};

static int parse_pos(const char *opt, const char *v, long max, long *out)
{
	char *end;
	errno = 0;
	long x = v ? strtol(v, &end, 10) : 0;
	if (!v || errno || *end || x < 1 || x > max) {
		fprintf(stderr, "dmda_ties: %s needs an integer in 1..%ld, got '%s'\n", opt, max, v ? v : "");
		return -1;
	}
	*out = x;
	return 0;
}

/* The worker that ran each reader, written by its callback. */
static void note_worker(void *arg)
{
	*(int *)arg = starpu_worker_get_id();
}

static int submit(struct starpu_codelet *cl, starpu_data_handle_t a, starpu_data_handle_t b, int *slot)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->handles[0] = a;
	if (b)
		t->handles[1] = b;
	if (slot) {
		t->callback_func = note_worker;
		t->callback_arg = slot;
	}
	return starpu_task_submit(t);
}

int main(int argc, char **argv)
{
	long w = 0, reps = 1, l = 20000;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "-w") == 0) {
			if (parse_pos("-w", v, 4096, &w))
				return 1;
		} else if (strcmp(argv[i], "-l") == 0) {
			if (parse_pos("-l", v, 100000000, &l))
				return 1;
		} else if (strcmp(argv[i], "-r") == 0) {
			if (parse_pos("-r", v, 100000, &reps))
				return 1;
		} else {
			fprintf(stderr, "dmda_ties: unknown argument '%s'\nusage: dmda_ties [-w W] [-l L_US] [-r REPS]\n", argv[i]);
			return 1;
		}
		i++;
	}
	task_us = (double)l;

	int ret = starpu_init(NULL);
	if (ret == -ENODEV)
		return 77;
	if (ret) {
		fprintf(stderr, "dmda_ties: starpu_init failed: %s\n", strerror(-ret));
		return 1;
	}
	int ncpu = (int)starpu_cpu_worker_get_count();
	if (ncpu == 0) {
		starpu_shutdown();
		return 77;
	}
	if (w == 0)
		w = ncpu;
	double *vals = calloc((size_t)(2 * w), sizeof(*vals));
	int *slot = calloc((size_t)w, sizeof(*slot));
	char *used = calloc((size_t)starpu_worker_get_count(), 1);
	starpu_data_handle_t *h = calloc((size_t)(2 * w), sizeof(*h));
	if (!vals || !slot || !used || !h) {
		fprintf(stderr, "dmda_ties: out of memory\n");
		return 1;
	}
	for (long i = 0; i < 2 * w; i++)
		starpu_vector_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t)&vals[i], 1, sizeof(double));

	printf("# dmda_ties: %ld writers then %ld readers of %.0f us, %d CPU workers, sched %s\n", w, w, task_us, ncpu,
	       getenv("STARPU_SCHED") ? getenv("STARPU_SCHED") : "(default)");
	long spread = 0;
	double sum = 0.0;
	for (long r = 0; r < reps && ret == 0; r++) {
		memset(used, 0, starpu_worker_get_count());
		double t0 = starpu_timing_now();
		for (long i = 0; i < w && ret == 0; i++)
			ret = submit(&writer_cl, h[i], NULL, NULL);
		for (long i = 0; i < w && ret == 0; i++) {
			slot[i] = -1;
			ret = submit(&reader_cl, h[i], h[w + i], &slot[i]);
		}
		starpu_task_wait_for_all();
		double span = (starpu_timing_now() - t0) / task_us;
		long distinct = 0;
		for (long i = 0; i < w; i++)
			if (slot[i] >= 0 && !used[slot[i]]) {
				used[slot[i]] = 1;
				distinct++;
			}
		printf("rep %ld  makespan %.3f L  readers on %ld distinct workers\n", r, span, distinct);
		spread += distinct == w;
		sum += span;
	}
	if (ret)
		fprintf(stderr, "dmda_ties: starpu_task_submit failed: %s\n", strerror(-ret));
	else
		printf("summary: readers on %ld distinct workers in %ld of %ld repetitions; mean makespan %.3f L\n", w, spread,
		       reps, sum / (double)reps);
	for (long i = 0; i < 2 * w; i++)
		starpu_data_unregister(h[i]);
	starpu_shutdown();
	free(vals);
	free(slot);
	free(used);
	free(h);
	return ret ? 1 : 0;
}
