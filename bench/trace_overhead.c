/*
 * trace_overhead: what observing a run costs per task — nothing observed,
 * profiling (STARPU_PROFILING's per-task records and counters), trace
 * recording (STARPU_FXT_TRACE) — measured with empty tasks, so that the
 * clock sees only the runtime and its observers.
 *
 * The modes alternate inside one process, repetition after repetition,
 * so that drifts of a shared machine hit them alike: recording is switched
 * with starpu_fxt_stop_profiling / starpu_fxt_start_profiling and profiling
 * with starpu_profiling_status_set, both StarPU 1.3 API. Trace mode needs
 * the process started with STARPU_FXT_TRACE=1 (bench/compare-trace-overhead
 * does that) and a runtime that records traces: Vela, or a StarPU built
 * with FxT (Debian's is not; its line then says n/a).
 *
 * Shapes as in tasks_overhead.c: indep (N independent tasks, submit all,
 * wait) and chain (N tasks linked by tags, released one at a time).
 *
 * Usage: trace_overhead [-n N] [-r R] [-s indep|chain|both] [-p POLICY] [-m]
 * Output: one line per shape and mode, µs per task (median over R) and the
 * overhead relative to "off"; -m prints "shape mode n total_us overhead_pct".
 */
#include <errno.h>
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

enum mode { MODE_OFF, MODE_PROF, MODE_TRACE, NMODES };
static const char *mode_names[NMODES] = { "off", "profiling", "trace" };

static void set_mode(enum mode m)
{
	starpu_profiling_status_set(m == MODE_PROF ? STARPU_PROFILING_ENABLE : STARPU_PROFILING_DISABLE);
	if (m == MODE_TRACE)
		starpu_fxt_start_profiling();
	else
		starpu_fxt_stop_profiling();
}

/* µs per task for one repetition. */
static double run_indep(unsigned n)
{
	double t0 = starpu_timing_now();
	for (unsigned i = 0; i < n; i++) {
		struct starpu_task *t = starpu_task_create();
		int ret;
		t->cl = &dummy_cl;
		if ((ret = starpu_task_submit(t)))
			die("starpu_task_submit", ret);
	}
	starpu_task_wait_for_all();
	return (starpu_timing_now() - t0) / n;
}

static double run_chain(unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		starpu_tag_declare_deps((starpu_tag_t)i, 1, (starpu_tag_t)(i - 1));
	double t0 = starpu_timing_now();
	for (unsigned k = n; k-- > 0;) {
		struct starpu_task *t = starpu_task_create();
		int ret;
		t->cl = &dummy_cl;
		t->use_tag = 1;
		t->tag_id = (starpu_tag_t)k;
		if ((ret = starpu_task_submit(t)))
			die("starpu_task_submit", ret);
	}
	starpu_tag_wait((starpu_tag_t)(n - 1));
	double t = (starpu_timing_now() - t0) / n;
	starpu_task_wait_for_all();
	for (unsigned i = 0; i < n; i++)
		starpu_tag_remove((starpu_tag_t)i);
	return t;
}

int main(int argc, char **argv)
{
	bench_name = "trace_overhead";
	unsigned n = 100000, reps = 7;
	int indep = 1, chain = 1, machine = 0, c;
	const char *policy = NULL;
	while ((c = getopt(argc, argv, "n:r:s:p:mh")) != -1) {
		switch (c) {
		case 'n': n = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'r': reps = (unsigned)strtoul(optarg, NULL, 10); break;
		case 's':
			indep = strcmp(optarg, "chain") != 0;
			chain = strcmp(optarg, "indep") != 0;
			break;
		case 'p': policy = optarg; break;
		case 'm': machine = 1; break;
		default:
			fprintf(stderr, "usage: trace_overhead [-n N] [-r R] [-s indep|chain|both] [-p POLICY] [-m]\n");
			return c == 'h' ? 0 : 1;
		}
	}
	if (n < 2 || reps < 1)
		die("arguments", -EINVAL);
	const char *fxt = getenv("STARPU_FXT_TRACE");
	int trace_available = 0;
#ifdef VELA_VERSION_STRING
	/* Vela records traces whenever asked to; Debian's StarPU has no FxT. */
	trace_available = fxt && atoi(fxt) > 0;
#endif
	if (policy && getenv("STARPU_SCHED"))
		unsetenv("STARPU_SCHED");
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	if (policy)
		conf.sched_policy_name = policy;
	int ret = starpu_init(&conf);
	if (ret == -ENODEV)
		return 77;
	if (ret)
		die("starpu_init", ret);

	double *v = malloc(sizeof(double) * reps * NMODES);
	for (int s = 0; s < 2; s++) {
		if ((s == 0 && !indep) || (s == 1 && !chain))
			continue;
		const char *shape = s == 0 ? "indep" : "chain";
		/* Warm-up, unmeasured. */
		set_mode(MODE_OFF);
		(void)(s == 0 ? run_indep(n / 10) : run_chain(n / 10));
		for (unsigned r = 0; r < reps; r++)
			for (int m = 0; m < NMODES; m++) {
				/* Rotate the order so that no mode always goes first. */
				enum mode mode = (enum mode)((m + r) % NMODES);
				if (mode == MODE_TRACE && !trace_available) {
					v[mode * reps + r] = 0;
					continue;
				}
				set_mode(mode);
				v[mode * reps + r] = s == 0 ? run_indep(n) : run_chain(n);
			}
		set_mode(MODE_OFF);
		double off = median(v, reps);
		for (int m = 0; m < NMODES; m++) {
			if (m == MODE_TRACE && !trace_available) {
				if (machine)
					printf("%s %s %u n/a n/a\n", shape, mode_names[m], n);
				else
					printf("shape=%s mode=%-9s n=%u total_us=n/a (no trace recording: %s)\n", shape, mode_names[m], n,
					       fxt ? "this runtime records no trace" : "STARPU_FXT_TRACE=1 not set");
				continue;
			}
			double med = m == MODE_OFF ? off : median(v + m * reps, reps);
			double pct = 100.0 * (med - off) / off;
			if (machine)
				printf("%s %s %u %.3f %.1f\n", shape, mode_names[m], n, med, pct);
			else
				printf("shape=%s mode=%-9s n=%u total_us=%.3f overhead=%+.1f%% (median of %u)\n", shape,
				       mode_names[m], n, med, pct, reps);
		}
		fflush(stdout);
	}
	free(v);
	starpu_shutdown();
	return 0;
}
