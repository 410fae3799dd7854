/* test_opencl_api.c — starpu_opencl.h on a real OpenCL device (PoCL's CPU
 * device in CI): contexts and queues by device id and from a codelet,
 * kernel arguments, program sources found as given or through
 * STARPU_OPENCL_PROGRAM_DIR, programs built from files (with #include),
 * strings and cached binaries, kernels, statistics, error reporting, and
 * the copy helpers with and without events, at offsets.
 *
 * Every result is checked: kernels add a known value to a known pattern
 * and the whole buffer is compared; copies land at an offset inside a
 * buffer filled with another pattern, and both the copied range and what
 * surrounds it are compared byte for byte. Invalid arguments must return
 * the documented code and print one line naming the call and the argument.
 */
#define _GNU_SOURCE
#include "vtest.h"

#include <starpu.h>
#include <starpu_opencl.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The run's OpenCL device (set up by the suite). */
static int devid = -1;
static unsigned node;

static const char *msg;
#define CAPTURE(stmt)                                \
	do                                           \
	{                                            \
		vtest_capture_stderr_begin();        \
		stmt;                                \
		msg = vtest_capture_stderr_end();    \
	} while (0)

static int has(const char *s, const char *what)
{
	return s && strstr(s, what) != NULL;
}

/* One line: the message is not empty and ends at its only newline. */
static int one_line(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && strchr(s, '\n') == s + n - 1;
}

/* ------------------------------------------------------------------ */
/* Files: a temporary directory per test that needs one. */

static char tmpdir[PATH_MAX];

static void make_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/vela-ocl-XXXXXX", t && *t ? t : "/tmp");
	CU_ASSERT_FATAL(mkdtemp(tmpdir) != NULL);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	return remove(path);
}

static void remove_tmpdir(void)
{
	if (tmpdir[0])
		nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	tmpdir[0] = 0;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static int file_exists(const char *path)
{
	return access(path, R_OK) == 0;
}

/* ------------------------------------------------------------------ */
/* Kernels: add adds a + ADD_VALUE (a build option, 0 by default) to each
 * element; the file version includes its constant from a header beside
 * it. */

static const char *add_src =
	"#ifndef ADD_VALUE\n#define ADD_VALUE 0\n#endif\n"
	"__kernel void add(__global int *v, unsigned n, int a)\n"
	"{ size_t i = get_global_id(0); if (i < n) v[i] += a + ADD_VALUE; }\n"
	"__kernel void other(__global int *v) { v[0] = 1; }\n";

static const char *inc_src =
	"#include \"vela_inc_value.h\"\n"
	"__kernel void add(__global int *v, unsigned n, int a)\n"
	"{ size_t i = get_global_id(0); if (i < n) v[i] += a + INC_VALUE; }\n";
static const char *inc_header = "#define INC_VALUE 40\n";

#define NV 1000

/* Runs add(v, NV, a) of prog on the run's device from this thread, with
 * the buffer sent and read back through the copy helpers; returns how many
 * elements are not pattern + expect (-1 if a step failed). */
static int run_add(struct starpu_opencl_program *prog, int a, int expect)
{
	int host[NV];
	for (int i = 0; i < NV; i++)
		host[i] = i * 3;
	cl_mem buf = NULL;
	cl_kernel k = NULL;
	cl_command_queue q = NULL;
	int ret = -1, bad = -1;
	cl_int err;
	if (starpu_opencl_allocate_memory(devid, &buf, sizeof(host), CL_MEM_READ_WRITE) != CL_SUCCESS)
		return -1;
	if (starpu_opencl_copy_ram_to_opencl(host, STARPU_MAIN_RAM, buf, node, sizeof(host), 0, NULL, &ret) != CL_SUCCESS || ret)
		goto out;
	if (starpu_opencl_load_kernel(&k, &q, prog, "add", devid) != CL_SUCCESS)
		goto out;
	cl_uint n = NV;
	if (starpu_opencl_set_kernel_args(&err, &k, sizeof(buf), &buf, sizeof(n), &n, sizeof(a), &a, 0) != 3)
		goto out;
	size_t global = NV;
	if (clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) != CL_SUCCESS || clFinish(q) != CL_SUCCESS)
		goto out;
	memset(host, 0xEE, sizeof(host));
	if (starpu_opencl_copy_opencl_to_ram(buf, node, host, STARPU_MAIN_RAM, sizeof(host), 0, NULL, &ret) != CL_SUCCESS || ret)
		goto out;
	bad = 0;
	for (int i = 0; i < NV; i++)
		bad += host[i] != i * 3 + expect;
out:
	if (k)
		starpu_opencl_release_kernel(k);
	clReleaseMemObject(buf);
	return bad;
}

static int programs_empty(const struct starpu_opencl_program *p)
{
	for (int i = 0; i < STARPU_MAXOPENCLDEVS; i++)
		if (p->programs[i])
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Devices. */

static void test_get_by_devid(void)
{
	cl_context ctx = NULL;
	cl_device_id dev = NULL;
	cl_command_queue q = NULL;
	starpu_opencl_get_context(devid, &ctx);
	starpu_opencl_get_device(devid, &dev);
	starpu_opencl_get_queue(devid, &q);
	CU_ASSERT_FATAL(ctx && dev && q);
	/* The queue belongs to that context and device. */
	cl_context qctx = NULL;
	cl_device_id qdev = NULL;
	CU_ASSERT_EQUAL(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof(qctx), &qctx, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(qdev), &qdev, NULL), CL_SUCCESS);
	CU_ASSERT(qctx == ctx);
	CU_ASSERT(qdev == dev);
	/* Its profiling is on: starpu_opencl_collect_stats reads it. */
	cl_command_queue_properties props = 0;
	CU_ASSERT_EQUAL(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(props), &props, NULL), CL_SUCCESS);
	CU_ASSERT(props & CL_QUEUE_PROFILING_ENABLE);
	cl_device_type type = 0;
	CU_ASSERT_EQUAL(clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
	CU_ASSERT(type & CL_DEVICE_TYPE_CPU);
}

static void test_get_bad_devid(void)
{
	int bad[] = { -1, STARPU_MAXOPENCLDEVS, 1000 };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		char val[16];
		snprintf(val, sizeof(val), "%d", bad[i]);
		cl_context ctx = (cl_context) 1;
		cl_device_id dev = (cl_device_id) 1;
		cl_command_queue q = (cl_command_queue) 1;
		CAPTURE(starpu_opencl_get_context(bad[i], &ctx));
		CU_ASSERT(ctx == NULL);
		CU_ASSERT(has(msg, "starpu_opencl_get_context") && has(msg, "devid") && has(msg, val) && one_line(msg));
		CAPTURE(starpu_opencl_get_device(bad[i], &dev));
		CU_ASSERT(dev == NULL);
		CU_ASSERT(has(msg, "starpu_opencl_get_device") && has(msg, "devid") && has(msg, val) && one_line(msg));
		CAPTURE(starpu_opencl_get_queue(bad[i], &q));
		CU_ASSERT(q == NULL);
		CU_ASSERT(has(msg, "starpu_opencl_get_queue") && has(msg, "devid") && has(msg, val) && one_line(msg));
	}
}

static void test_current_from_main(void)
{
	cl_context ctx = (cl_context) 1;
	cl_command_queue q = (cl_command_queue) 1;
	CAPTURE(starpu_opencl_get_current_context(&ctx));
	CU_ASSERT(ctx == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_get_current_context") && one_line(msg));
	CAPTURE(starpu_opencl_get_current_queue(&q));
	CU_ASSERT(q == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_get_current_queue") && one_line(msg));
}

/* A codelet: its worker's context, queue and device id, and a kernel run
 * on the current queue whose event goes to starpu_opencl_collect_stats. */
static struct starpu_opencl_program add_prog;
static struct
{
	cl_context ctx;
	cl_command_queue q;
	int devid;
	cl_int kernel_err, wait_err, stats;
} seen;

static void current_ocl(void *buffers[], void *arg)
{
	(void) arg;
	seen.devid = starpu_worker_get_devid(starpu_worker_get_id());
	starpu_opencl_get_current_context(&seen.ctx);
	starpu_opencl_get_current_queue(&seen.q);
	cl_mem v = (cl_mem) STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]);
	cl_uint n = STARPU_VECTOR_GET_NX(buffers[0]);
	int a = 5;
	cl_kernel k;
	seen.kernel_err = starpu_opencl_load_kernel(&k, NULL, &add_prog, "add", seen.devid);
	if (seen.kernel_err != CL_SUCCESS)
		return;
	cl_event ev = NULL;
	size_t global = n;
	if (starpu_opencl_set_kernel_args(&seen.kernel_err, &k, sizeof(v), &v, sizeof(n), &n, sizeof(a), &a, 0) == 3)
		seen.kernel_err = clEnqueueNDRangeKernel(seen.q, k, 1, NULL, &global, NULL, 0, NULL, &ev);
	if (seen.kernel_err == CL_SUCCESS)
	{
		seen.wait_err = clWaitForEvents(1, &ev);
		seen.stats = starpu_opencl_collect_stats(ev);
		clReleaseEvent(ev);
	}
	starpu_opencl_release_kernel(k);
}

static struct starpu_codelet current_cl = {
	.opencl_funcs = { current_ocl },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "current",
};

static void test_current_in_codelet(void)
{
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &add_prog, NULL), CL_SUCCESS);
	memset(&seen, 0, sizeof(seen));
	seen.kernel_err = seen.wait_err = seen.stats = -12345;
	int v[NV];
	for (int i = 0; i < NV; i++)
		v[i] = -i;
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, NV, sizeof(int));
	CU_ASSERT_EQUAL(starpu_task_insert(&current_cl, STARPU_RW, h, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_data_unregister(h);
	cl_context ctx;
	cl_command_queue q;
	starpu_opencl_get_context(devid, &ctx);
	starpu_opencl_get_queue(devid, &q);
	CU_ASSERT_EQUAL(seen.devid, devid);
	CU_ASSERT(seen.ctx != NULL && seen.ctx == ctx);
	CU_ASSERT(seen.q != NULL && seen.q == q);
	CU_ASSERT_EQUAL(seen.kernel_err, CL_SUCCESS);
	CU_ASSERT_EQUAL(seen.wait_err, CL_SUCCESS);
	CU_ASSERT_EQUAL(seen.stats, CL_SUCCESS);
	int bad = 0;
	for (int i = 0; i < NV; i++)
		bad += v[i] != -i + 5;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(starpu_opencl_unload_opencl(&add_prog), CL_SUCCESS);
}

/* ------------------------------------------------------------------ */
/* Kernel arguments. */

static void test_set_kernel_args(void)
{
	struct starpu_opencl_program p;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, NULL), CL_SUCCESS);
	cl_kernel k;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_kernel(&k, NULL, &p, "add", devid), CL_SUCCESS);
	cl_mem buf;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_allocate_memory(devid, &buf, 64, CL_MEM_READ_WRITE), CL_SUCCESS);
	cl_uint n = 16;
	int a = 1;
	cl_int err = -12345;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, &k, sizeof(buf), &buf, sizeof(n), &n, sizeof(a), &a, 0), 3);
	CU_ASSERT_EQUAL(err, CL_SUCCESS);
	/* None. */
	err = -12345;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, &k, 0), 0);
	CU_ASSERT_EQUAL(err, CL_SUCCESS);
	/* The second argument has the wrong size: index 1 fails. */
	double d = 1;
	err = CL_SUCCESS;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, &k, sizeof(buf), &buf, sizeof(d), &d, sizeof(a), &a, 0), 1);
	CU_ASSERT_EQUAL(err, CL_INVALID_ARG_SIZE);
	/* One argument too many: index 3 fails. */
	err = CL_SUCCESS;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, &k, sizeof(buf), &buf, sizeof(n), &n, sizeof(a), &a, sizeof(a), &a, 0), 3);
	CU_ASSERT_EQUAL(err, CL_INVALID_ARG_INDEX);
	/* No kernel. */
	err = CL_SUCCESS;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, NULL, sizeof(a), &a, 0), 0);
	CU_ASSERT_EQUAL(err, CL_INVALID_KERNEL);
	clReleaseMemObject(buf);
	starpu_opencl_release_kernel(k);
	starpu_opencl_unload_opencl(&p);
	/* The arguments set are those the kernel runs with. */
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(run_add(&p, 11, 11), 0);
	starpu_opencl_unload_opencl(&p);
}

/* ------------------------------------------------------------------ */
/* Program sources. */

static void check_source(const char *name, const char *want_file, const char *want_dir, const char *want_src)
{
	char file[PATH_MAX], dir[PATH_MAX], src[4096];
	memset(file, 'x', sizeof(file));
	memset(dir, 'x', sizeof(dir));
	memset(src, 'x', sizeof(src));
	CAPTURE(starpu_opencl_load_program_source(name, file, dir, src));
	CU_ASSERT_STRING_EQUAL(file, want_file);
	CU_ASSERT_STRING_EQUAL(dir, want_dir);
	CU_ASSERT_STRING_EQUAL(src, want_src);
	char *mfile = NULL, *mdir = NULL, *msrc = NULL;
	CAPTURE(starpu_opencl_load_program_source_malloc(name, &mfile, &mdir, &msrc));
	CU_ASSERT_FATAL(mfile && mdir && msrc);
	CU_ASSERT_STRING_EQUAL(mfile, want_file);
	CU_ASSERT_STRING_EQUAL(mdir, want_dir);
	CU_ASSERT_STRING_EQUAL(msrc, want_src);
	free(mfile);
	free(mdir);
	free(msrc);
}

static void test_source_as_given(void)
{
	make_tmpdir();
	write_file(tmpdir, "k.cl", add_src);
	char path[PATH_MAX], dir[PATH_MAX];
	snprintf(path, sizeof(path), "%s/k.cl", tmpdir);
	snprintf(dir, sizeof(dir), "%s/", tmpdir);
	vtest_setenv("STARPU_OPENCL_PROGRAM_DIR", NULL);
	check_source(path, path, dir, add_src);
	CU_ASSERT_STRING_EQUAL(msg, "");
	/* A name relative to the current directory: found there. */
	char cwd[PATH_MAX];
	CU_ASSERT_FATAL(getcwd(cwd, sizeof(cwd)) != NULL);
	CU_ASSERT_FATAL(chdir(tmpdir) == 0);
	check_source("k.cl", "k.cl", "./", add_src);
	CU_ASSERT_STRING_EQUAL(msg, "");
	/* And built there, with a header beside it. */
	write_file(".", "vela_inc.cl", inc_src);
	write_file(".", "vela_inc_value.h", inc_header);
	struct starpu_opencl_program p;
	CU_ASSERT_EQUAL(starpu_opencl_load_opencl_from_file("vela_inc.cl", &p, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(chdir(cwd), 0);
	CU_ASSERT_EQUAL(run_add(&p, 1, 41), 0);
	starpu_opencl_unload_opencl(&p);
	vtest_env_restore();
	remove_tmpdir();
}

static void test_source_program_dir(void)
{
	make_tmpdir();
	write_file(tmpdir, "vela_only_here.cl", inc_src);
	char path[PATH_MAX], dir[PATH_MAX];
	snprintf(path, sizeof(path), "%s/vela_only_here.cl", tmpdir);
	snprintf(dir, sizeof(dir), "%s/", tmpdir);
	vtest_setenv("STARPU_OPENCL_PROGRAM_DIR", tmpdir);
	check_source("vela_only_here.cl", path, dir, inc_src);
	CU_ASSERT_STRING_EQUAL(msg, "");
	vtest_env_restore();
	remove_tmpdir();
}

static void test_source_not_found(void)
{
	make_tmpdir();
	vtest_setenv("STARPU_OPENCL_PROGRAM_DIR", tmpdir);
	check_source("vela_no_such_file.cl", "", "", "");
	CU_ASSERT(has(msg, "starpu_opencl_load_program_source_malloc") && has(msg, "vela_no_such_file.cl") && one_line(msg));
	char file[8] = "x", dir[8] = "x", src[8] = "x";
	CAPTURE(starpu_opencl_load_program_source(NULL, file, dir, src));
	CU_ASSERT(file[0] == 0 && dir[0] == 0 && src[0] == 0);
	CU_ASSERT(has(msg, "starpu_opencl_load_program_source") && has(msg, "source_file_name") && one_line(msg));
	vtest_env_restore();
	remove_tmpdir();
}

/* ------------------------------------------------------------------ */
/* Building programs. */

static void test_from_string(void)
{
	struct starpu_opencl_program p;
	memset(&p, 0xAB, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, NULL), CL_SUCCESS);
	CU_ASSERT(p.programs[devid] != NULL);
	/* Only the run's devices have a program. */
	for (int i = 0; i < STARPU_MAXOPENCLDEVS; i++)
		if (i != devid)
			CU_ASSERT(p.programs[i] == NULL);
	CU_ASSERT_EQUAL(run_add(&p, 3, 3), 0);
	starpu_opencl_unload_opencl(&p);
	/* Build options reach the compiler. */
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, "-DADD_VALUE=100"), CL_SUCCESS);
	CU_ASSERT_EQUAL(run_add(&p, 3, 103), 0);
	starpu_opencl_unload_opencl(&p);
	/* NULL arguments. */
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_opencl_from_string(NULL, &p, NULL), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_opencl_from_string") && has(msg, "source") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_opencl_from_string(add_src, NULL, NULL), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_opencl_from_string") && has(msg, "opencl_programs") && one_line(msg));
}

static void test_from_file_include(void)
{
	make_tmpdir();
	write_file(tmpdir, "vela_inc.cl", inc_src);
	write_file(tmpdir, "vela_inc_value.h", inc_header);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/vela_inc.cl", tmpdir);
	struct starpu_opencl_program p;
	/* By its path: the header beside it is found. */
	vtest_setenv("STARPU_OPENCL_PROGRAM_DIR", NULL);
	CU_ASSERT_EQUAL(starpu_opencl_load_opencl_from_file(path, &p, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(run_add(&p, 2, 42), 0);
	starpu_opencl_unload_opencl(&p);
	/* Through STARPU_OPENCL_PROGRAM_DIR, with options of the caller. */
	vtest_setenv("STARPU_OPENCL_PROGRAM_DIR", tmpdir);
	CU_ASSERT_EQUAL(starpu_opencl_load_opencl_from_file("vela_inc.cl", &p, "-DUNUSED=1"), CL_SUCCESS);
	CU_ASSERT_EQUAL(run_add(&p, -2, 38), 0);
	starpu_opencl_unload_opencl(&p);
	/* A directory whose name has a space cannot be an include path (build
	 * options are split at spaces), but a file there that includes
	 * nothing builds, with the caller's options. */
	char spaced[PATH_MAX];
	snprintf(spaced, sizeof(spaced), "%s/dir with space", tmpdir);
	CU_ASSERT_FATAL(mkdir(spaced, 0755) == 0);
	write_file(spaced, "vela_add.cl", add_src);
	snprintf(path, sizeof(path), "%s/vela_add.cl", spaced);
	CU_ASSERT_EQUAL(starpu_opencl_load_opencl_from_file(path, &p, "-DADD_VALUE=9"), CL_SUCCESS);
	CU_ASSERT_EQUAL(run_add(&p, 1, 10), 0);
	starpu_opencl_unload_opencl(&p);
	/* Missing file, NULL name. */
	memset(&p, 0, sizeof(p));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_opencl_from_file("vela_missing.cl", &p, NULL), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_opencl_from_file") && has(msg, "vela_missing.cl") && one_line(msg));
	CU_ASSERT(programs_empty(&p));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_opencl_from_file(NULL, &p, NULL), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_opencl_from_file") && has(msg, "source_file_name") && one_line(msg));
	vtest_env_restore();
	remove_tmpdir();
}

static void test_build_failure(void)
{
	const char *broken = "__kernel void broken(__global int *v) { v[0] = vela_undeclared_name; }\n";
	struct starpu_opencl_program p;
	memset(&p, 0, sizeof(p));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_opencl_from_string(broken, &p, NULL), CL_BUILD_PROGRAM_FAILURE));
	CU_ASSERT(has(msg, "starpu_opencl_load_opencl_from_string"));
	CU_ASSERT(has(msg, "build log"));
	/* The compiler's own words about the offending name. */
	CU_ASSERT(has(msg, "vela_undeclared_name"));
	CU_ASSERT(programs_empty(&p));
	/* Options the compiler refuses. */
	int ret;
	CAPTURE(ret = starpu_opencl_load_opencl_from_string(add_src, &p, "-vela-no-such-option"));
	CU_ASSERT(ret == CL_INVALID_BUILD_OPTIONS || ret == CL_BUILD_PROGRAM_FAILURE);
	CU_ASSERT(has(msg, "starpu_opencl_load_opencl_from_string"));
	CU_ASSERT(programs_empty(&p));
}

static void test_unload(void)
{
	struct starpu_opencl_program p;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, NULL), CL_SUCCESS);
	cl_program prog = p.programs[devid];
	clRetainProgram(prog);
	cl_uint refs = 0;
	CU_ASSERT_EQUAL(starpu_opencl_unload_opencl(&p), CL_SUCCESS);
	CU_ASSERT(programs_empty(&p));
	/* Released once: only our own reference is left. */
	CU_ASSERT_EQUAL(clGetProgramInfo(prog, CL_PROGRAM_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(refs, 1);
	clReleaseProgram(prog);
	/* Again: nothing to release. */
	CU_ASSERT_EQUAL(starpu_opencl_unload_opencl(&p), CL_SUCCESS);
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_unload_opencl(NULL), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_unload_opencl") && has(msg, "opencl_programs") && one_line(msg));
}

/* Binaries: compiled into a temporary STARPU_HOME, loaded back by name;
 * the build option is in the binary, so the result proves which was run. */
static void binary_file(char *path, size_t size, const char *kernel_id)
{
	cl_device_id dev;
	cl_uint vendor = 0;
	starpu_opencl_get_device(devid, &dev);
	clGetDeviceInfo(dev, CL_DEVICE_VENDOR_ID, sizeof(vendor), &vendor, NULL);
	snprintf(path, size, "%s/.starpu/opencl/%s.cpu.vendor_id_%u_device_id_%d", tmpdir, kernel_id, (unsigned) vendor, devid);
}

static void test_binary_from_string(void)
{
	make_tmpdir();
	vtest_setenv("STARPU_HOME", tmpdir);
	char path[PATH_MAX];
	binary_file(path, sizeof(path), "vela_add_bin");
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_compile_opencl_from_string(add_src, "vela_add_bin", "-DADD_VALUE=7"), CL_SUCCESS);
	CU_ASSERT(file_exists(path));
	struct starpu_opencl_program p;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_binary_opencl("vela_add_bin", &p), CL_SUCCESS);
	CU_ASSERT(p.programs[devid] != NULL);
	CU_ASSERT_EQUAL(run_add(&p, 1, 8), 0);
	CU_ASSERT_EQUAL(starpu_opencl_unload_opencl(&p), CL_SUCCESS);
	/* Names that are not plain file names. */
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_compile_opencl_from_string(add_src, "a/b", NULL), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_compile_opencl_from_string") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_compile_opencl_from_string(NULL, "x", NULL), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_compile_opencl_from_string") && has(msg, "source") && one_line(msg));
	vtest_env_restore();
	remove_tmpdir();
}

static void test_binary_from_file(void)
{
	make_tmpdir();
	vtest_setenv("STARPU_HOME", tmpdir);
	write_file(tmpdir, "vela_inc.cl", inc_src);
	write_file(tmpdir, "vela_inc_value.h", inc_header);
	char src[PATH_MAX], path[PATH_MAX];
	snprintf(src, sizeof(src), "%s/vela_inc.cl", tmpdir);
	binary_file(path, sizeof(path), "vela_inc.cl");
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_compile_opencl_from_file(src, NULL), CL_SUCCESS);
	CU_ASSERT(file_exists(path));
	/* The binary stands alone: no source nor header needed any more. */
	unlink(src);
	struct starpu_opencl_program p;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_binary_opencl("vela_inc.cl", &p), CL_SUCCESS);
	CU_ASSERT_EQUAL(run_add(&p, 0, 40), 0);
	starpu_opencl_unload_opencl(&p);
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_compile_opencl_from_file(src, NULL), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_compile_opencl_from_file") && has(msg, "vela_inc.cl") && one_line(msg));
	vtest_env_restore();
	remove_tmpdir();
}

static void test_binary_missing(void)
{
	make_tmpdir();
	vtest_setenv("STARPU_HOME", tmpdir);
	struct starpu_opencl_program p;
	memset(&p, 0, sizeof(p));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_binary_opencl("vela_never_compiled", &p), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_binary_opencl") && has(msg, "vela_never_compiled") && one_line(msg));
	CU_ASSERT(programs_empty(&p));
	/* A file that is not a binary. */
	char path[PATH_MAX], dir[PATH_MAX + 32];
	binary_file(path, sizeof(path), "vela_garbage");
	snprintf(dir, sizeof(dir), "%s/.starpu", tmpdir);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/.starpu/opencl", tmpdir);
	mkdir(dir, 0755);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("not a program binary", f);
	fclose(f);
	int ret;
	CAPTURE(ret = starpu_opencl_load_binary_opencl("vela_garbage", &p));
	CU_ASSERT(ret != CL_SUCCESS);
	CU_ASSERT(has(msg, "starpu_opencl_load_binary_opencl"));
	CU_ASSERT(programs_empty(&p));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_binary_opencl(NULL, &p), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "kernel_id") && one_line(msg));
	vtest_env_restore();
	remove_tmpdir();
}

/* ------------------------------------------------------------------ */
/* Kernels. */

static void test_load_kernel(void)
{
	struct starpu_opencl_program p;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, NULL), CL_SUCCESS);
	cl_kernel k = NULL;
	cl_command_queue q = NULL, want;
	starpu_opencl_get_queue(devid, &want);
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_kernel(&k, &q, &p, "other", devid), CL_SUCCESS);
	CU_ASSERT(q == want);
	char name[32] = "";
	CU_ASSERT_EQUAL(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL), CL_SUCCESS);
	CU_ASSERT_STRING_EQUAL(name, "other");
	/* Released once: only our own reference is left. */
	clRetainKernel(k);
	CU_ASSERT_EQUAL(starpu_opencl_release_kernel(k), CL_SUCCESS);
	cl_uint refs = 0;
	CU_ASSERT_EQUAL(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(refs, 1);
	clReleaseKernel(k);
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_release_kernel(NULL), CL_INVALID_KERNEL));
	CU_ASSERT(has(msg, "starpu_opencl_release_kernel") && has(msg, "kernel") && one_line(msg));

	/* Unknown kernel name. */
	k = (cl_kernel) 1;
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, &p, "vela_no_kernel", devid), CL_INVALID_KERNEL_NAME));
	CU_ASSERT(k == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "vela_no_kernel") && one_line(msg));
	/* No program struct, no kernel pointer, no name. */
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, NULL, "add", devid), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "opencl_programs") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(NULL, &q, &p, "add", devid), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "kernel") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, &p, NULL, devid), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "kernel_name") && one_line(msg));
	/* A device that is not the run's. */
	k = (cl_kernel) 1;
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, &p, "add", STARPU_MAXOPENCLDEVS - 1), CL_INVALID_VALUE));
	CU_ASSERT(k == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "devid") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, &p, "add", -3), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "-3") && has(msg, "devid") && one_line(msg));
	starpu_opencl_unload_opencl(&p);
	/* A program never built for the device. */
	k = (cl_kernel) 1;
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_load_kernel(&k, &q, &p, "add", devid), CL_INVALID_PROGRAM));
	CU_ASSERT(k == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_load_kernel") && has(msg, "add") && one_line(msg));
}

static void test_collect_stats(void)
{
	/* A finished kernel's event (from this thread; the codelet case is
	 * test_current_in_codelet's). */
	struct starpu_opencl_program p;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_opencl_from_string(add_src, &p, NULL), CL_SUCCESS);
	cl_kernel k;
	cl_command_queue q;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_load_kernel(&k, &q, &p, "other", devid), CL_SUCCESS);
	cl_mem buf;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_allocate_memory(devid, &buf, sizeof(int), CL_MEM_READ_WRITE), CL_SUCCESS);
	cl_int err;
	CU_ASSERT_EQUAL(starpu_opencl_set_kernel_args(&err, &k, sizeof(buf), &buf, 0), 1);
	size_t one = 1;
	cl_event ev = NULL;
	CU_ASSERT_EQUAL_FATAL(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, &ev), CL_SUCCESS);
	CU_ASSERT_EQUAL(clWaitForEvents(1, &ev), CL_SUCCESS);
	CU_ASSERT_EQUAL(starpu_opencl_collect_stats(ev), CL_SUCCESS);
	int v = 0, ret = -1;
	CU_ASSERT_EQUAL(starpu_opencl_copy_opencl_to_ram(buf, node, &v, STARPU_MAIN_RAM, sizeof(v), 0, NULL, &ret), CL_SUCCESS);
	CU_ASSERT_EQUAL(v, 1);
	clReleaseEvent(ev);
	clReleaseMemObject(buf);
	starpu_opencl_release_kernel(k);
	starpu_opencl_unload_opencl(&p);
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_collect_stats(NULL), CL_INVALID_EVENT));
	CU_ASSERT(has(msg, "starpu_opencl_collect_stats") && has(msg, "event") && one_line(msg));
}

/* ------------------------------------------------------------------ */
/* Errors. */

static void test_error_string(void)
{
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_SUCCESS), "CL_SUCCESS");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_INVALID_VALUE), "CL_INVALID_VALUE");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_MEM_OBJECT_ALLOCATION_FAILURE), "CL_MEM_OBJECT_ALLOCATION_FAILURE");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_INVALID_KERNEL_NAME), "CL_INVALID_KERNEL_NAME");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(CL_INVALID_ARG_SIZE), "CL_INVALID_ARG_SIZE");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(-9999), "unknown OpenCL error");
	CU_ASSERT_STRING_EQUAL(starpu_opencl_error_string(7), "unknown OpenCL error");
}

static void test_display_error(void)
{
	CAPTURE(starpu_opencl_display_error("my_func", "my_file.c", 4242, "while testing", CL_INVALID_MEM_OBJECT));
	CU_ASSERT(has(msg, "my_func") && has(msg, "my_file.c") && has(msg, "4242"));
	CU_ASSERT(has(msg, "while testing") && has(msg, "CL_INVALID_MEM_OBJECT") && one_line(msg));
	int line = __LINE__ + 1;
	CAPTURE(STARPU_OPENCL_DISPLAY_ERROR(CL_OUT_OF_RESOURCES));
	char l[16];
	snprintf(l, sizeof(l), ":%d", line);
	CU_ASSERT(has(msg, "test_display_error") && has(msg, __FILE__) && has(msg, l));
	CU_ASSERT(has(msg, "CL_OUT_OF_RESOURCES") && !has(msg, "(null)") && one_line(msg));
}

/* ------------------------------------------------------------------ */
/* Memory and copies. */

static void test_allocate(void)
{
	cl_mem m = NULL;
	CU_ASSERT_EQUAL_FATAL(starpu_opencl_allocate_memory(devid, &m, 12345, CL_MEM_READ_ONLY), CL_SUCCESS);
	CU_ASSERT_FATAL(m != NULL);
	size_t size = 0;
	cl_context ctx = NULL, want;
	cl_mem_flags flags = 0;
	starpu_opencl_get_context(devid, &want);
	CU_ASSERT_EQUAL(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(size), &size, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof(ctx), &ctx, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof(flags), &flags, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(size, 12345);
	CU_ASSERT(ctx == want);
	CU_ASSERT(flags & CL_MEM_READ_ONLY);
	clReleaseMemObject(m);
	m = (cl_mem) 1;
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_allocate_memory(STARPU_MAXOPENCLDEVS - 1, &m, 16, CL_MEM_READ_WRITE), CL_INVALID_VALUE));
	CU_ASSERT(m == NULL);
	CU_ASSERT(has(msg, "starpu_opencl_allocate_memory") && has(msg, "devid") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_allocate_memory(devid, NULL, 16, CL_MEM_READ_WRITE), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_allocate_memory") && has(msg, "addr") && one_line(msg));
	m = (cl_mem) 1;
	CU_ASSERT_EQUAL(starpu_opencl_allocate_memory(devid, &m, 0, CL_MEM_READ_WRITE), CL_INVALID_BUFFER_SIZE);
	CU_ASSERT(m == NULL);
}

#define NB 4096
static unsigned char pa[NB], pb[NB], out[NB], want[NB];

static void patterns(void)
{
	for (int i = 0; i < NB; i++)
	{
		pa[i] = (unsigned char) (i * 7 + 1);
		pb[i] = (unsigned char) (i * 13 + 5 + (i >> 8));
	}
}

/* A device buffer holding pa (synchronously, checked). */
static cl_mem device_pa(void)
{
	cl_mem m = NULL;
	int ret = -1;
	CU_ASSERT_EQUAL(starpu_opencl_allocate_memory(devid, &m, NB, CL_MEM_READ_WRITE), CL_SUCCESS);
	CU_ASSERT_EQUAL(starpu_opencl_copy_ram_to_opencl(pa, STARPU_MAIN_RAM, m, node, NB, 0, NULL, &ret), CL_SUCCESS);
	CU_ASSERT_EQUAL(ret, 0);
	return m;
}

/* The whole of a device buffer, read synchronously into out. */
static int read_all(cl_mem m)
{
	int ret = -1;
	memset(out, 0xEE, NB);
	return starpu_opencl_copy_opencl_to_ram(m, node, out, STARPU_MAIN_RAM, NB, 0, NULL, &ret) == CL_SUCCESS && ret == 0;
}

/* Waits for a queued copy: -EAGAIN and an event, which completes. */
static void wait_queued(cl_int err, int ret, cl_event ev)
{
	CU_ASSERT_EQUAL(err, CL_SUCCESS);
	CU_ASSERT_EQUAL(ret, -EAGAIN);
	CU_ASSERT_FATAL(ev != NULL);
	CU_ASSERT_EQUAL(clWaitForEvents(1, &ev), CL_SUCCESS);
	clReleaseEvent(ev);
}

static void test_copy_ram_opencl(void)
{
	patterns();
	for (int async = 0; async < 2; async++)
	{
		cl_mem m = device_pa();
		cl_event ev = NULL, *evp = async ? &ev : NULL;
		int ret = 12345;
		/* pb[0..1000) into the buffer at 1000. */
		cl_int err = starpu_opencl_copy_ram_to_opencl(pb, STARPU_MAIN_RAM, m, node, 1000, 1000, evp, &ret);
		if (async)
			wait_queued(err, ret, ev);
		else
			CU_ASSERT(err == CL_SUCCESS && ret == 0);
		memcpy(want, pa, NB);
		memcpy(want + 1000, pb, 1000);
		CU_ASSERT(read_all(m) && memcmp(out, want, NB) == 0);
		/* The buffer's bytes [1500, 2500) into RAM. */
		memset(out, 0xEE, NB);
		ev = NULL;
		ret = 12345;
		err = starpu_opencl_copy_opencl_to_ram(m, node, out, STARPU_MAIN_RAM, 1000, 1500, evp, &ret);
		if (async)
			wait_queued(err, ret, ev);
		else
			CU_ASSERT(err == CL_SUCCESS && ret == 0);
		CU_ASSERT(memcmp(out, want + 1500, 1000) == 0);
		CU_ASSERT(out[1000] == 0xEE);
		/* Nothing to copy: done at once, no event. */
		ev = (cl_event) 1;
		ret = 12345;
		CU_ASSERT_EQUAL(starpu_opencl_copy_ram_to_opencl(pb, STARPU_MAIN_RAM, m, node, 0, 0, evp ? &ev : NULL, &ret), CL_SUCCESS);
		CU_ASSERT_EQUAL(ret, 0);
		if (async)
			CU_ASSERT(ev == NULL);
		CU_ASSERT(read_all(m) && memcmp(out, want, NB) == 0);
		clReleaseMemObject(m);
	}
}

static void test_copy_opencl_opencl(void)
{
	patterns();
	for (int async = 0; async < 2; async++)
	{
		cl_mem a = device_pa(), b = NULL;
		int ret = 12345;
		CU_ASSERT_EQUAL_FATAL(starpu_opencl_allocate_memory(devid, &b, NB, CL_MEM_READ_WRITE), CL_SUCCESS);
		CU_ASSERT_EQUAL(starpu_opencl_copy_ram_to_opencl(pb, STARPU_MAIN_RAM, b, node, NB, 0, NULL, &ret), CL_SUCCESS);
		cl_event ev = NULL, *evp = async ? &ev : NULL;
		ret = 12345;
		/* a[100..1100) to b[3000..4000). */
		cl_int err = starpu_opencl_copy_opencl_to_opencl(a, node, 100, b, node, 3000, 1000, evp, &ret);
		if (async)
			wait_queued(err, ret, ev);
		else
			CU_ASSERT(err == CL_SUCCESS && ret == 0);
		memcpy(want, pb, NB);
		memcpy(want + 3000, pa + 100, 1000);
		CU_ASSERT(read_all(b) && memcmp(out, want, NB) == 0);
		/* The source is untouched. */
		CU_ASSERT(read_all(a) && memcmp(out, pa, NB) == 0);
		clReleaseMemObject(a);
		clReleaseMemObject(b);
	}
}

/* starpu_opencl_copy_async_sync by node kinds, offsets on both sides. */
static void test_copy_async_sync(void)
{
	patterns();
	for (int async = 0; async < 2; async++)
	{
		cl_mem a = device_pa(), b = device_pa();
		cl_event ev = NULL, *evp = async ? &ev : NULL;
		int want_ret = async ? -EAGAIN : 0;
		/* RAM pb[10..510) to a[2000..2500). */
		cl_int r = starpu_opencl_copy_async_sync((uintptr_t) pb, 10, STARPU_MAIN_RAM, (uintptr_t) a, 2000, node, 500, evp);
		CU_ASSERT_EQUAL(r, want_ret);
		if (async)
			wait_queued(CL_SUCCESS, r, ev);
		memcpy(want, pa, NB);
		memcpy(want + 2000, pb + 10, 500);
		CU_ASSERT(read_all(a) && memcmp(out, want, NB) == 0);
		/* a[1990..2510) to b[0..520). */
		ev = NULL;
		r = starpu_opencl_copy_async_sync((uintptr_t) a, 1990, node, (uintptr_t) b, 0, node, 520, evp);
		CU_ASSERT_EQUAL(r, want_ret);
		if (async)
			wait_queued(CL_SUCCESS, r, ev);
		unsigned char wb[NB];
		memcpy(wb, pa, NB);
		memcpy(wb, want + 1990, 520);
		CU_ASSERT(read_all(b) && memcmp(out, wb, NB) == 0);
		/* b[5..105) to RAM at 7 (the RAM side's offset counts too). */
		unsigned char ram[200];
		memset(ram, 0x5A, sizeof(ram));
		ev = NULL;
		r = starpu_opencl_copy_async_sync((uintptr_t) b, 5, node, (uintptr_t) ram, 7, STARPU_MAIN_RAM, 100, evp);
		CU_ASSERT_EQUAL(r, want_ret);
		if (async)
			wait_queued(CL_SUCCESS, r, ev);
		CU_ASSERT(memcmp(ram + 7, wb + 5, 100) == 0);
		CU_ASSERT(ram[6] == 0x5A && ram[107] == 0x5A);
		clReleaseMemObject(a);
		clReleaseMemObject(b);
	}
}

/* Copies between nodes of the wrong kinds fail cleanly (nothing is taken
 * for a cl_mem that is not one). */
static void test_copy_bad_nodes(void)
{
	cl_mem m = device_pa();
	unsigned char ram[64];
	int ret = 0;
	cl_event ev = (cl_event) 1;
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_copy_ram_to_opencl(ram, node, m, node, 64, 0, &ev, &ret), CL_INVALID_VALUE));
	CU_ASSERT(ev == NULL && ret == -EINVAL);
	CU_ASSERT(has(msg, "starpu_opencl_copy_ram_to_opencl") && has(msg, "src_node") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_copy_ram_to_opencl(ram, STARPU_MAIN_RAM, m, STARPU_MAIN_RAM, 64, 0, NULL, &ret), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_copy_ram_to_opencl") && has(msg, "dst_node") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_copy_opencl_to_ram(m, node, ram, node, 64, 0, NULL, &ret), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_copy_opencl_to_ram") && has(msg, "dst_node") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_copy_opencl_to_opencl(m, STARPU_MAIN_RAM, 0, m, node, 0, 64, NULL, &ret), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_copy_opencl_to_opencl") && has(msg, "src_node") && one_line(msg));
	CAPTURE(CU_ASSERT_EQUAL(starpu_opencl_copy_async_sync((uintptr_t) ram, 0, STARPU_MAIN_RAM, (uintptr_t) ram, 0, STARPU_MAIN_RAM, 64, NULL), CL_INVALID_VALUE));
	CU_ASSERT(has(msg, "starpu_opencl_copy_async_sync") && one_line(msg));
	/* Past the end of the buffer: OpenCL's own error, nothing written. */
	memset(ram, 0x11, sizeof(ram));
	cl_int err;
	CAPTURE(err = starpu_opencl_copy_opencl_to_ram(m, node, ram, STARPU_MAIN_RAM, 64, NB - 32, NULL, &ret));
	CU_ASSERT_EQUAL(err, CL_INVALID_VALUE);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(ram[0] == 0x11 && ram[63] == 0x11);
	clReleaseMemObject(m);
}

/* ------------------------------------------------------------------ */

static int start(void)
{
	if (vtest_start_opencl(1, 1))
		return -1;
	int w = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0);
	devid = starpu_worker_get_devid(w);
	node = starpu_worker_get_memory_node((unsigned) w);
	return 0;
}

static int stop(void)
{
	vtest_env_restore();
	remove_tmpdir();
	return vtest_stop();
}

static const struct vtest_case device_cases[] = {
	{ "get_by_devid", test_get_by_devid },
	{ "get_bad_devid", test_get_bad_devid },
	{ "current_from_main", test_current_from_main },
	{ "current_in_codelet", test_current_in_codelet },
	{ "set_kernel_args", test_set_kernel_args },
	VTEST_END
};

static const struct vtest_case program_cases[] = {
	{ "source_as_given", test_source_as_given },
	{ "source_program_dir", test_source_program_dir },
	{ "source_not_found", test_source_not_found },
	{ "from_string", test_from_string },
	{ "from_file_include", test_from_file_include },
	{ "build_failure", test_build_failure },
	{ "unload", test_unload },
	{ "binary_from_string", test_binary_from_string },
	{ "binary_from_file", test_binary_from_file },
	{ "binary_missing", test_binary_missing },
	VTEST_END
};

static const struct vtest_case kernel_cases[] = {
	{ "load_kernel", test_load_kernel },
	{ "collect_stats", test_collect_stats },
	{ "error_string", test_error_string },
	{ "display_error", test_display_error },
	VTEST_END
};

static const struct vtest_case memory_cases[] = {
	{ "allocate", test_allocate },
	{ "copy_ram_opencl", test_copy_ram_opencl },
	{ "copy_opencl_opencl", test_copy_opencl_opencl },
	{ "copy_async_sync", test_copy_async_sync },
	{ "copy_bad_nodes", test_copy_bad_nodes },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "opencl_devices", start, stop, device_cases },
	{ "opencl_programs", start, stop, program_cases },
	{ "opencl_kernels", start, stop, kernel_cases },
	{ "opencl_memory", start, stop, memory_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	char why[128];
	if (!vtest_opencl_available(why, sizeof(why)))
		return vtest_skip(why);
	return vtest_run(argc, argv, suites);
}
