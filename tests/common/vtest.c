/* vtest: see vtest.h. Runs CUnit suites and leaves a one-line count record
 * next to the test log (<program>.cunit) for the aggregated summary. */
#include "vtest.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	(void) argc;
	if (CU_initialize_registry() != CUE_SUCCESS)
	{
		fprintf(stderr, "vtest: CU_initialize_registry failed: %s\n", CU_get_error_msg());
		return 1;
	}

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
			if (!CU_add_test(suite, c->name, c->fn))
			{
				fprintf(stderr, "vtest: cannot add test %s: %s\n", c->name, CU_get_error_msg());
				CU_cleanup_registry();
				return 1;
			}
		}
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
