/* test_cuda_nogpu.c — a build with CUDA on a machine without a usable GPU
 * (every CI machine): CUDA reports no device (without a driver,
 * cudaGetDeviceCount fails and leaves the count unset), which must mean
 * zero CUDA workers, no core kept for them, plain memory from
 * starpu_malloc, STARPU_NCUDA=1 a warning and a run that goes on, a
 * CUDA-only codelet -ENODEV at submission, malformed CUDA variables
 * -EINVAL naming them. On a machine with a GPU this program is skipped:
 * tests/cuda/test_cuda_gpu covers it there.
 */
#include "vtest.h"

#include <starpu.h>
#include <hwloc.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static int ncores(void)
{
	hwloc_topology_t t;
	hwloc_topology_init(&t);
	hwloc_topology_load(t);
	int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	hwloc_topology_destroy(t);
	return n;
}

static void test_no_worker_no_reserved_core(void)
{
	CU_ASSERT_EQUAL_FATAL(starpu_init(NULL), 0);
	CU_ASSERT_EQUAL(starpu_cuda_worker_get_count(), 0);
	/* Every core runs a CPU worker: none is kept for a CUDA driver. */
	CU_ASSERT_EQUAL((int) starpu_cpu_worker_get_count(), ncores());
	/* cuBLAS / cuSPARSE set-up with no CUDA worker: nothing to do. */
	starpu_cublas_init();
	starpu_cusparse_init();
	starpu_cublas_shutdown();
	starpu_cusparse_shutdown();
	starpu_shutdown();
}

static void test_ncuda_warns(void)
{
	vtest_setenv("STARPU_NCUDA", "1");
	vtest_setenv("STARPU_SILENT", "0");	/* the warning is what is checked */
	vtest_capture_stderr_begin();
	int ret = starpu_init(NULL);
	const char *msg = vtest_capture_stderr_end();
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "STARPU_NCUDA"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "0 found"));
	CU_ASSERT_EQUAL(starpu_cuda_worker_get_count(), 0);
	CU_ASSERT(starpu_cpu_worker_get_count() > 0);
	starpu_shutdown();
}

static void cuda_only(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	CU_FAIL("a CUDA-only codelet ran without a CUDA worker");
}

static struct starpu_codelet cuda_cl = { .cuda_funcs = { cuda_only }, .nbuffers = 0, .name = "cuda_only" };

static void test_cuda_only_codelet(void)
{
	CU_ASSERT_EQUAL_FATAL(starpu_init(NULL), 0);
	struct starpu_task *t = starpu_task_create();
	t->cl = &cuda_cl;
	vtest_capture_stderr_begin();
	int ret = starpu_task_submit(t);
	vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -ENODEV);
	if (ret)
		starpu_task_destroy(t);
	starpu_task_wait_for_all();
	starpu_shutdown();
}

/* starpu_malloc asks for pinned memory; with no CUDA worker it is plain
 * memory, usable and freed as such. */
static void test_plain_memory(void)
{
	CU_ASSERT_EQUAL_FATAL(starpu_init(NULL), 0);
	void *p = NULL;
	CU_ASSERT_EQUAL(starpu_malloc(&p, 1 << 20), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memset(p, 0x5a, 1 << 20);
	CU_ASSERT_EQUAL(((unsigned char *) p)[12345], 0x5a);
	CU_ASSERT_EQUAL(starpu_free(p), 0);
	CU_ASSERT_EQUAL(starpu_malloc_flags(&p, 4096, STARPU_MALLOC_PINNED | STARPU_MALLOC_COUNT), 0);
	CU_ASSERT_EQUAL(starpu_free_flags(p, 4096, STARPU_MALLOC_PINNED | STARPU_MALLOC_COUNT), 0);
	char buf[256];
	CU_ASSERT_EQUAL(starpu_memory_pin(buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(starpu_memory_unpin(buf, sizeof(buf)), 0);
	starpu_shutdown();
}

static void bad_variable(const char *var, const char *value)
{
	vtest_setenv(var, value);
	vtest_capture_stderr_begin();
	int ret = starpu_init(NULL);
	const char *msg = vtest_capture_stderr_end();
	vtest_env_restore();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, var));
	if (ret != -EINVAL || !strstr(msg, var))
		fprintf(stderr, "%s='%s': starpu_init gave %d\n", var, value, ret);
	if (ret == 0)
		starpu_shutdown();
}

static void test_malformed_variables(void)
{
	bad_variable("STARPU_CUDA_PIPELINE", "deep");
	bad_variable("STARPU_CUDA_PIPELINE", "-1");
	bad_variable("STARPU_NWORKER_PER_CUDA", "0");
	bad_variable("STARPU_NWORKER_PER_CUDA", "two");
	bad_variable("STARPU_NCUDA", "lots");
	bad_variable("STARPU_WORKERS_CUDAID", "0 x");
	bad_variable("STARPU_LIMIT_CUDA_MEM", "1G");
	/* A device that does not exist, named explicitly. */
	bad_variable("STARPU_WORKERS_CUDAID", "0");
	bad_variable("STARPU_DISABLE_ASYNCHRONOUS_CUDA_COPY", "yes");
	/* The runtime starts again afterwards. */
	CU_ASSERT_EQUAL(starpu_init(NULL), 0);
	starpu_shutdown();
}

/* Whether a library whose file name starts with prefix is mapped here. */
static int mapped(const char *prefix)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f))
	{
		const char *slash = strrchr(line, '/');
		found = slash && strncmp(slash + 1, prefix, strlen(prefix)) == 0;
	}
	if (f)
		fclose(f);
	return found;
}

/* cuBLAS and cuSPARSE (with cuBLASLt, hundreds of MB) are loaded when the
 * application asks for them, not with libvela: this program links only
 * the CUDA runtime, and a run without CUDA worker never loads them. Asked
 * for (starpu_cublas_report_error needs cuBLAS's message), cuBLAS loads. */
static void test_libraries_on_demand(void)
{
	CU_ASSERT_EQUAL(mapped("libcublas"), 0);
	CU_ASSERT_EQUAL(mapped("libcusparse"), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_init(NULL), 0);
	starpu_cublas_init();
	starpu_cusparse_init();
	starpu_cublas_shutdown();
	starpu_cusparse_shutdown();
	starpu_shutdown();
	CU_ASSERT_EQUAL(mapped("libcublas"), 0);
	CU_ASSERT_EQUAL(mapped("libcusparse"), 0);

	/* The error report aborts: in a child, its message read back. */
	int fds[2];
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	pid_t pid = fork();
	if (pid == 0)
	{
		dup2(fds[1], 2);
		starpu_cublas_report_error("kernel_f", "file.c", 12, 1 /* CUBLAS_STATUS_NOT_INITIALIZED */);
		_exit(0);
	}
	close(fds[1]);
	char msg[512] = "";
	size_t got = 0;
	ssize_t r;
	while (got < sizeof(msg) - 1 && (r = read(fds[0], msg + got, sizeof(msg) - 1 - got)) > 0)
		got += (size_t) r;
	msg[got] = 0;
	close(fds[0]);
	int status = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cuBLAS error in kernel_f (file.c:12): "));
	/* cuBLAS's own words, not "?" (the library could not be loaded). */
	CU_ASSERT_PTR_NULL(strstr(msg, "): ? (1)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "(1)"));
}

static const struct vtest_case cases[] = {
	{ "libraries_on_demand", test_libraries_on_demand },
	{ "no_worker_no_reserved_core", test_no_worker_no_reserved_core },
	{ "ncuda_warns", test_ncuda_warns },
	{ "cuda_only_codelet_enodev", test_cuda_only_codelet },
	{ "plain_memory", test_plain_memory },
	{ "malformed_variables", test_malformed_variables },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "cuda_without_gpu", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	/* The machine's environment decides nothing here. */
	unsetenv("STARPU_NCUDA");
	unsetenv("STARPU_NCPU");
	unsetenv("STARPU_NCPUS");
	setenv("STARPU_NOPENCL", "0", 1);
	int n = 0;
	if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0)
		return vtest_skip("this machine has a GPU: tests/cuda/test_cuda_gpu covers it");
	(void) cudaGetLastError();
	return vtest_run(argc, argv, suites);
}
