/* calibrate_wakeup.c — `vela calibrate-wakeup`: what a thread that sleeps
 * and wakes costs a core it shares with a computing thread, as a rank of a
 * StarPU-MPI run bound to one core shares it between its worker and its
 * MPI progression thread (platforms/calibrate-mpi.sh --cores; sim/README.md
 * "Clusters"). On the CPU it starts on, both threads bound there:
 *   - the computing thread sweeps a 256 KiB array (a 3-point stencil, the
 *     cache footprint of a tile kernel) a fixed number of times, alone,
 *     then beside the sleeper, alternately (RUNS of each);
 *   - the sleeper sleeps PERIOD µs (clock_nanosleep), wakes, touches 4 KiB
 *     of its own, sleeps again, counting its wake-ups and how late each
 *     sleep ended.
 * Prints `overshoot_us X` (the median lateness of the sleeper's sleeps
 * beside the computing thread: the timer slack and the wake-up) and
 * `wakeup_us Y` (what each wake-up takes of the core: the computing
 * thread's extra CPU time beside the sleeper (the caches it refills) plus
 * the sleeper's own CPU time (switches, the timer's interrupt), over the
 * wake-ups; the median over the runs), then the figures they come from.
 * CPU times (CLOCK_THREAD_CPUTIME_ID), not wall times: another process
 * taking the same core now and then, on a loaded machine, leaves them as
 * they are.
 */
#define _GNU_SOURCE
#include "tools/vela.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SWEEP_DOUBLES 32768	/* 256 KiB */
#define MAX_RUNS 50

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vela calibrate-wakeup [-p PERIOD_US] [-r RUNS]\n"
		"Measures, on the CPU it starts on, what a thread sleeping PERIOD_US (default\n"
		"100) between wake-ups costs a thread computing on the same core (RUNS\n"
		"alternate runs, default 7): prints overshoot_us (how late its sleeps end,\n"
		"median) and wakeup_us (the computing thread's slowdown per wake-up, median).\n");
}

static double clock_us(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static double now_us(void)
{
	return clock_us(CLOCK_MONOTONIC);
}

static double cpu_us(void)
{
	return clock_us(CLOCK_THREAD_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct
{
	unsigned period_us;
	atomic_int stop;
	atomic_long wakeups;
	double cpu;		/* the sleeper's CPU time, µs, when it ends */
	double *late;		/* per wake-up, µs (up to nlate_max) */
	size_t nlate, nlate_max;
	cpu_set_t cpuset;
} S;

static void *sleeper(void *arg)
{
	(void) arg;
	pthread_setaffinity_np(pthread_self(), sizeof(S.cpuset), &S.cpuset);
	static volatile char own[4096];
	struct timespec d = { 0, (long) S.period_us * 1000 };
	double c0 = cpu_us();
	while (!atomic_load(&S.stop))
	{
		double t = now_us();
		clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
		double late = now_us() - t - S.period_us;
		for (size_t i = 0; i < sizeof(own); i += 64)
			own[i]++;
		if (S.nlate < S.nlate_max)
			S.late[S.nlate++] = late;
		atomic_fetch_add(&S.wakeups, 1);
	}
	S.cpu = cpu_us() - c0;
	return NULL;
}

/* sweeps passes over v: the CPU time it took, µs. */
static double compute(double *v, unsigned passes)
{
	double t = cpu_us();
	for (unsigned p = 0; p < passes; p++)
	{
		double prev = v[SWEEP_DOUBLES - 1];
		for (int i = 0; i < SWEEP_DOUBLES; i++)
		{
			double next = v[i + 1 < SWEEP_DOUBLES ? i + 1 : 0], cur = v[i];
			v[i] = (prev + cur + next) / 3;
			prev = cur;
		}
	}
	return cpu_us() - t;
}

int vela_calibrate_wakeup(int argc, char **argv)
{
	unsigned period = 100, runs = 7;
	for (int i = 1; i < argc; i++)
	{
		if (vela_is_help(argv[i]))
		{
			usage(stdout);
			return VELA_EXIT_OK;
		}
		unsigned *dst = !strcmp(argv[i], "-p") ? &period : !strcmp(argv[i], "-r") ? &runs : NULL;
		char *end;
		unsigned long v = dst && i + 1 < argc ? strtoul(argv[i + 1], &end, 10) : 0;
		if (!dst || i + 1 >= argc || *end || !*argv[i + 1] || v < 1 ||
		    v > (dst == &period ? 100000ul : (unsigned long) MAX_RUNS))
		{
			fprintf(stderr, "vela calibrate-wakeup: %s%s%s: expected -p PERIOD_US (1-100000) or -r RUNS (1-%d)\n",
				argv[i], i + 1 < argc && dst ? " " : "", i + 1 < argc && dst ? argv[i + 1] : "", MAX_RUNS);
			usage(stderr);
			return VELA_EXIT_USAGE;
		}
		*dst = (unsigned) v;
		i++;
	}
	int cpu = sched_getcpu();
	CPU_ZERO(&S.cpuset);
	CPU_SET(cpu >= 0 ? cpu : 0, &S.cpuset);
	if (pthread_setaffinity_np(pthread_self(), sizeof(S.cpuset), &S.cpuset))
	{
		fprintf(stderr, "vela calibrate-wakeup: cannot bind to CPU %d\n", cpu);
		return VELA_EXIT_FAIL;
	}
	double *v = malloc(sizeof(double) * SWEEP_DOUBLES);
	S.nlate_max = 200000;
	S.late = malloc(sizeof(double) * S.nlate_max);
	if (!v || !S.late)
	{
		fprintf(stderr, "vela calibrate-wakeup: out of memory\n");
		free(v);
		free(S.late);
		return VELA_EXIT_FAIL;
	}
	for (int i = 0; i < SWEEP_DOUBLES; i++)
		v[i] = i % 97;
	S.period_us = period;
	/* Passes for about 100 periods' worth of computing, at least 20. */
	double one = compute(v, 20) / 20;
	unsigned passes = (unsigned) (100.0 * period / (one > 0.01 ? one : 0.01));
	if (passes < 20)
		passes = 20;
	compute(v, passes);	/* warm */
	double alone[MAX_RUNS], beside[MAX_RUNS], per[MAX_RUNS], wk[MAX_RUNS], own[MAX_RUNS];
	for (unsigned r = 0; r < runs; r++)
	{
		alone[r] = compute(v, passes);
		atomic_store(&S.stop, 0);
		atomic_store(&S.wakeups, 0);
		pthread_t t;
		if (pthread_create(&t, NULL, sleeper, NULL))
		{
			fprintf(stderr, "vela calibrate-wakeup: cannot start the sleeping thread\n");
			free(v);
			free(S.late);
			return VELA_EXIT_FAIL;
		}
		long w0 = atomic_load(&S.wakeups);
		beside[r] = compute(v, passes);
		long w = atomic_load(&S.wakeups) - w0;
		atomic_store(&S.stop, 1);
		pthread_join(t, NULL);
		wk[r] = (double) w;
		own[r] = S.cpu;
		per[r] = w > 0 ? (beside[r] - alone[r] + S.cpu) / (double) w : 0;
	}
	double overshoot = S.nlate ? median(S.late, S.nlate) : 0;
	double cost = median(per, runs);
	printf("overshoot_us %.3f\n", overshoot > 0 ? overshoot : 0);
	printf("wakeup_us %.3f\n", cost > 0 ? cost : 0);
	printf("# CPU %d, period %u us, %u runs of %u passes over 256 KiB: CPU time alone %.0f us, beside the sleeper "
	       "%.0f us, the sleeper's %.0f us, %.0f wake-ups (medians)\n", cpu, period, runs, passes, median(alone, runs),
	       median(beside, runs), median(own, runs), median(wk, runs));
	free(v);
	free(S.late);
	return VELA_EXIT_OK;
}
