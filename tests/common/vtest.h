/* vtest: the small CUnit harness every unit-test program in tests/ uses.
 *
 * A test file lists its cases in suites and hands them to vtest_run(), which
 * registers them with CUnit, runs them with the basic (verbose) interface,
 * and records the counts so that `make check` can end with one aggregated
 * CUnit run summary over all programs (see tests/Makefile.am, check-local).
 *
 * Exit status follows the automake harness: 0 all passed, 1 a failure,
 * 77 skipped (the whole program: use vtest_skip() before vtest_run()).
 */
#ifndef VTEST_H
#define VTEST_H

#include <CUnit/CUnit.h>

struct vtest_case
{
	const char *name;
	void (*fn)(void);
};

struct vtest_suite
{
	const char *name;
	int (*init)(void);		/* may be NULL */
	int (*clean)(void);		/* may be NULL */
	const struct vtest_case *cases;	/* terminated by { NULL, NULL } */
};

#define VTEST_END { NULL, NULL }

/* Runs the suites (terminated by an entry with name NULL) and returns the
 * process exit code. With an argument, runs only the cases whose name
 * contains it. */
int vtest_run(int argc, char **argv, const struct vtest_suite *suites);

/* Prints why the program is skipped and returns 77 (exit code for "skip"). */
int vtest_skip(const char *reason);

/* Captures what the process writes to stderr between begin and end (into a
 * temporary file), so that a test can check an error message. end returns
 * the text (static buffer, valid until the next capture) and also copies it
 * to the real stderr for the test log. */
void vtest_capture_stderr_begin(void);
const char *vtest_capture_stderr_end(void);

/* Sleeps for ms milliseconds of wall-clock time. */
void vtest_sleep_ms(long ms);

/* Sets (value non-NULL) or unsets an environment variable, remembering the
 * previous value; vtest_env_restore() puts every remembered one back. */
void vtest_setenv(const char *name, const char *value);
void vtest_env_restore(void);

/* Suite set-up and clean-up for programs that want the runtime on ncpus CPU
 * workers and nothing else (no GPU, the environment's settings ignored):
 * vtest_start_cpus returns 0, or -1 if starpu_init failed; vtest_stop
 * waits for every task, shuts the runtime down and returns 0. */
int vtest_start_cpus(int ncpus);
int vtest_stop(void);

/* OpenCL tests run on a real device: PoCL's CPU device behind the ICD
 * loader (STARPU_OPENCL_ON_CPUS=1, POCL_CPU_MAX_CU_COUNT=1 unless set).
 * vtest_opencl_env sets that environment; vtest_opencl_available then
 * tells whether starpu_init finds an OpenCL device (0: none, with the
 * reason in why, for vtest_skip). vtest_start_opencl starts the runtime on
 * nopencl devices and ncpus CPU workers: 0, or -1 if starpu_init failed
 * or found fewer devices. */
void vtest_opencl_env(void);
int vtest_opencl_available(char *why, size_t size);
int vtest_start_opencl(int nopencl, int ncpus);
/* vtest_run for a program whose suites need an OpenCL device: without
 * one, vtest_skip with the reason. */
int vtest_run_opencl(int argc, char **argv, const struct vtest_suite *suites);

#endif
