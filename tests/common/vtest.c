/* vtest: see vtest.h. Runs CUnit suites and leaves a one-line count record
 * next to the test log (<program>.cunit) for the aggregated summary. */
#include "vtest.h"

#include <CUnit/Basic.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void write_record(const char *argv0)
{
	/* The record goes to the current directory (the harness runs tests
	 * from the build directory), named after the program. */
	const char *base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	/* libtool wrappers run the real binary as lt-<name> */
	if (strncmp(base, "lt-", 3) == 0)
		base += 3;

	char path[4096];
	snprintf(path, sizeof(path), "%s.cunit", base);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "%u %u %u %u %u %u %u %u %u %u %u\n",
		CU_get_number_of_suites_run(), CU_get_number_of_suites_failed(),
		CU_get_number_of_tests_run(), CU_get_number_of_tests_failed(),
		CU_get_number_of_asserts(), CU_get_number_of_successes(),
		CU_get_number_of_failures(),
		CU_get_registry()->uiNumberOfSuites,
		CU_get_registry()->uiNumberOfTests,
		CU_get_number_of_suites_inactive(),
		CU_get_number_of_tests_inactive());
	fclose(f);
}

int vtest_run(int argc, char **argv, const struct vtest_suite *suites)
{
	/* An argument selects the cases whose name contains it. */
	const char *only = argc > 1 ? argv[1] : NULL;
	if (CU_initialize_registry() != CUE_SUCCESS)
	{
		fprintf(stderr, "vtest: CU_initialize_registry failed: %s\n", CU_get_error_msg());
		return 1;
	}

	unsigned selected = 0;
	for (const struct vtest_suite *s = suites; s->name; s++)
	{
		CU_pSuite suite = CU_add_suite(s->name, s->init, s->clean);
		if (!suite)
		{
			fprintf(stderr, "vtest: cannot add suite %s: %s\n", s->name, CU_get_error_msg());
			CU_cleanup_registry();
			return 1;
		}
		for (const struct vtest_case *c = s->cases; c->name; c++)
		{
			if (only && !strstr(c->name, only))
				continue;
			if (!CU_add_test(suite, c->name, c->fn))
			{
				fprintf(stderr, "vtest: cannot add test %s: %s\n", c->name, CU_get_error_msg());
				CU_cleanup_registry();
				return 1;
			}
			selected++;
		}
	}
	if (only && !selected)
	{
		/* A filter that selects nothing would pass without testing. */
		fprintf(stderr, "vtest: no test case name contains '%s'\n", only);
		CU_cleanup_registry();
		return 2;
	}

	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	write_record(argv[0]);

	int failed = CU_get_number_of_failures() != 0
		|| CU_get_number_of_suites_failed() != 0
		|| CU_get_number_of_tests_failed() != 0;
	CU_cleanup_registry();
	return failed ? 1 : 0;
}

int vtest_skip(const char *reason)
{
	printf("SKIP: %s\n", reason);
	return 77;
}

void vtest_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static int saved_stderr = -1;
static FILE *capture_file;
static char captured[16384];

void vtest_capture_stderr_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	if (!capture_file)
		return;
	saved_stderr = dup(2);
	dup2(fileno(capture_file), 2);
}

const char *vtest_capture_stderr_end(void)
{
	captured[0] = 0;
	if (!capture_file)
		return captured;
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	rewind(capture_file);
	size_t n = fread(captured, 1, sizeof(captured) - 1, capture_file);
	captured[n] = 0;
	fclose(capture_file);
	capture_file = NULL;
	fputs(captured, stderr);
	return captured;
}

#define MAX_SAVED_ENV 32
static struct
{
	char *name;
	char *value;	/* NULL: was unset */
} saved_env[MAX_SAVED_ENV];
static int nsaved_env;

void vtest_setenv(const char *name, const char *value)
{
	int known = 0;
	for (int i = 0; i < nsaved_env; i++)
		if (strcmp(saved_env[i].name, name) == 0)
			known = 1;
	if (!known && nsaved_env < MAX_SAVED_ENV)
	{
		const char *old = getenv(name);
		saved_env[nsaved_env].name = strdup(name);
		saved_env[nsaved_env].value = old ? strdup(old) : NULL;
		nsaved_env++;
	}
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

void vtest_env_restore(void)
{
	for (int i = 0; i < nsaved_env; i++)
	{
		if (saved_env[i].value)
			setenv(saved_env[i].name, saved_env[i].value, 1);
		else
			unsetenv(saved_env[i].name);
		free(saved_env[i].name);
		free(saved_env[i].value);
	}
	nsaved_env = 0;
}

int vtest_start_cpus(int ncpus)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = ncpus;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf) == 0 ? 0 : -1;
}

void vtest_opencl_env(void)
{
	setenv("STARPU_OPENCL_ON_CPUS", "1", 1);
	/* PoCL's CPU device takes every core otherwise; the CI machine has 2. */
	setenv("POCL_CPU_MAX_CU_COUNT", "1", 0);
}

int vtest_opencl_available(char *why, size_t size)
{
#ifndef STARPU_USE_OPENCL
	snprintf(why, size, "Vela was built without OpenCL (configure found no ICD loader)");
	return 0;
#else
	vtest_opencl_env();
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	conf.ncuda = 0;
	conf.nopencl = 1;
	if (starpu_init(&conf) != 0)
	{
		snprintf(why, size, "starpu_init failed");
		return 0;
	}
	unsigned n = starpu_opencl_worker_get_count();
	starpu_shutdown();
	if (n == 0)
		snprintf(why, size, "no OpenCL device found (install pocl-opencl-icd for a CPU device)");
	return n > 0;
#endif
}

int vtest_run_opencl(int argc, char **argv, const struct vtest_suite *suites)
{
	char why[128];
	if (!vtest_opencl_available(why, sizeof(why)))
		return vtest_skip(why);
	return vtest_run(argc, argv, suites);
}

int vtest_start_opencl(int nopencl, int ncpus)
{
	vtest_opencl_env();
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = ncpus;
	conf.ncuda = 0;
	conf.nopencl = nopencl;
	if (starpu_init(&conf) != 0)
		return -1;
	if ((int) starpu_opencl_worker_get_count() < nopencl)
	{
		starpu_shutdown();
		return -1;
	}
	return 0;
}

int vtest_stop(void)
{
	starpu_task_wait_for_all();
	starpu_shutdown();
	return 0;
}
