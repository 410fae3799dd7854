/* bench_tasks.h — the empty-task loops the per-device benchmarks share
 * (opencl_tasks.c, cuda_tasks.c): N statically allocated tasks of one
 * codelet, independent or chained by tags, timed with starpu_timing_now.
 * Header-only, like bench_util.h (included first), so that each benchmark
 * stays one source file built against Vela and StarPU alike.
 */
#ifndef BENCH_TASKS_H
#define BENCH_TASKS_H

#include "bench_util.h"

static inline void bench_submit(struct starpu_task *task)
{
	int ret = starpu_task_submit(task);

	if (ret != 0)
		die("starpu_task_submit", ret);
}

static inline void bench_prepare(struct starpu_task *tasks, unsigned n, struct starpu_codelet *cl, int tagged)
{
	for (unsigned i = 0; i < n; i++) {
		struct starpu_task *t = &tasks[i];

		starpu_task_init(t);
		t->cl = cl;
		t->detach = 0;
		t->destroy = 0;
		if (tagged) {
			t->use_tag = 1;
			t->tag_id = (starpu_tag_t)i;
		}
	}
}

/* Off the clock: starpu_task_clean needs each task waited for first. */
static inline void bench_release(struct starpu_task *tasks, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int ret = starpu_task_wait(&tasks[i]);

		if (ret != 0)
			die("starpu_task_wait", ret);
		starpu_task_clean(&tasks[i]);
	}
}

/* One repetition; returns µs per task, submit to all done. */
static inline double bench_run_indep(struct starpu_task *tasks, unsigned n, struct starpu_codelet *cl)
{
	bench_prepare(tasks, n, cl, 0);
	double t0 = starpu_timing_now();
	for (unsigned i = 0; i < n; i++)
		bench_submit(&tasks[i]);
	int ret = starpu_task_wait_for_all();
	double t1 = starpu_timing_now();
	if (ret != 0)
		die("starpu_task_wait_for_all", ret);
	bench_release(tasks, n);
	return (t1 - t0) / n;
}

/* One repetition; returns µs per task from the release of the chain to its
 * end (submission of tasks 1..N-1 is off the clock: it is the runtime's
 * submission cost, which tasks_overhead measures). */
static inline double bench_run_chain(struct starpu_task *tasks, unsigned n, struct starpu_codelet *cl)
{
	for (unsigned i = 1; i < n; i++)
		starpu_tag_declare_deps((starpu_tag_t)i, 1, (starpu_tag_t)(i - 1));
	bench_prepare(tasks, n, cl, 1);
	for (unsigned i = 1; i < n; i++)
		bench_submit(&tasks[i]);
	double t0 = starpu_timing_now();
	bench_submit(&tasks[0]);
	int ret = starpu_tag_wait((starpu_tag_t)(n - 1));
	double t1 = starpu_timing_now();
	if (ret != 0)
		die("starpu_tag_wait", ret);
	bench_release(tasks, n);
	/* Fresh tags for the next repetition: a done tag would not block. */
	for (unsigned i = 0; i < n; i++)
		starpu_tag_remove((starpu_tag_t)i);
	return (t1 - t0) / n;
}

#endif /* BENCH_TASKS_H */
