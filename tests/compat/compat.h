/* compat.h — what the programs of tests/compat share. Each program is an
 * ordinary StarPU 1.3 application: check_compat.sh builds it against
 * Debian's StarPU 1.3 and against Vela, and both runs must pass (exit 0).
 * Nothing here may use Vela's extensions or test helpers.
 */
#ifndef COMPAT_H
#define COMPAT_H

#include <starpu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int compat_failures;

/* Counts and reports a failed check, and goes on. */
#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		compat_failures++; \
	} \
} while (0)

/* starpu_init with ncpus CPU workers and policy (NULL: the default). */
static inline int compat_start(int ncpus, const char *policy)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = ncpus;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.sched_policy_name = policy;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf);
}

static inline void compat_sleep_ms(int ms)
{
	usleep((useconds_t) ms * 1000);
}

/* The exit status: 0 when every check passed. */
static inline int compat_result(const char *name)
{
	if (compat_failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, compat_failures);
	else
		printf("%s: all checks passed\n", name);
	return compat_failures ? 1 : 0;
}

#endif
