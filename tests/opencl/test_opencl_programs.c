/* test_opencl_programs.c — the programs of starpu_opencl.h on a real
 * OpenCL device (PoCL's CPU device in CI): program sources found as given
 * or through STARPU_OPENCL_PROGRAM_DIR, programs built from files (with
 * #include) and strings, with build options and build failures, unloaded,
 * and compiled into cached binaries then loaded back.
 *
 * Every program built is run: its kernel adds a known value to a known
 * pattern and the whole buffer is compared, so the result proves which
 * source, options or binary were used. Invalid arguments must return the
 * documented code and print one line naming the call and the argument.
 * (test_opencl_api.c tests the rest of starpu_opencl.h.)
 */
#define _GNU_SOURCE
#include "opencl_api_common.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Files: a temporary directory per test that needs one. */

/* Half a path: the file names built under it always fit a PATH_MAX buffer. */
static char tmpdir[PATH_MAX / 2];

static void make_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	int n = snprintf(tmpdir, sizeof(tmpdir), "%s/vela-ocl-XXXXXX", t && *t ? t : "/tmp");
	CU_ASSERT_FATAL(n > 0 && (size_t) n < sizeof(tmpdir));	/* TMPDIR too long */
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
/* The kernel of a file that includes its constant from a header beside
 * it. */

static const char *inc_src =
	"#include \"vela_inc_value.h\"\n"
	"__kernel void add(__global int *v, unsigned n, int a)\n"
	"{ size_t i = get_global_id(0); if (i < n) v[i] += a + INC_VALUE; }\n";
static const char *inc_header = "#define INC_VALUE 40\n";

static int programs_empty(const struct starpu_opencl_program *p)
{
	for (int i = 0; i < STARPU_MAXOPENCLDEVS; i++)
		if (p->programs[i])
			return 0;
	return 1;
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
	char spaced[PATH_MAX / 2 + 32];
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

static int stop(void)
{
	vtest_env_restore();
	remove_tmpdir();
	return vtest_stop();
}

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

static const struct vtest_suite suites[] = {
	{ "opencl_programs", opencl_api_start, stop, program_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run_opencl(argc, argv, suites);
}
