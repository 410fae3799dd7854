/* bench_util.h — what the benchmarks share: failing loudly, parsing counts,
 * medians, the policy label. Header-only (static functions), so that each
 * benchmark stays one source file that compare-lib.sh builds against Vela
 * and against StarPU alike. Each benchmark sets bench_name first.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <starpu.h>

/* The program's name in messages. */
static const char *bench_name = "bench";

static inline void die(const char *what, int ret)
{
	fprintf(stderr, "%s: %s failed: %s (%d)\n", bench_name, what, strerror(ret < 0 ? -ret : ret), ret);
	exit(EXIT_FAILURE);
}

/* A count between 1 and max, or exit with a message naming what. */
static inline unsigned long parse_count(const char *s, const char *what, unsigned long max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v == 0 || v > max) {
		fprintf(stderr, "%s: bad %s '%s'\n", bench_name, what, s);
		exit(EXIT_FAILURE);
	}
	return v;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v in place; for even counts, the mean of the two middle values. */
static inline double median(double *v, unsigned k)
{
	qsort(v, k, sizeof(*v), cmp_double);
	return (k % 2) ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2.0;
}

/* The policy label of a run. STARPU_SCHED takes precedence over
 * conf.sched_policy_name, so an explicit choice clears it or the label
 * would lie; without one the runtime reads STARPU_SCHED itself. */
static inline const char *policy_label(const char *chosen)
{
	if (chosen && getenv("STARPU_SCHED"))
		unsetenv("STARPU_SCHED");
	const char *p = chosen ? chosen : getenv("STARPU_SCHED");
	return p && *p ? p : "default";
}

/* starpu_init with the policy chosen on the command line (NULL: the
 * runtime's default, or STARPU_SCHED). Returns 0, or 77 (the test suite's
 * "skipped") after saying so when no worker is available; exits on any
 * other failure. */
static inline int bench_init(const char *policy)
{
	struct starpu_conf conf;
	int ret = starpu_conf_init(&conf);

	if (ret != 0)
		die("starpu_conf_init", ret);
	if (policy)
		conf.sched_policy_name = policy;
	ret = starpu_init(&conf);
	if (ret == -ENODEV) {
		fprintf(stderr, "%s: no worker available\n", bench_name);
		return 77;
	}
	if (ret != 0)
		die("starpu_init", ret);
	return 0;
}

#endif /* BENCH_UTIL_H */
