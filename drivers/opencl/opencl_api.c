/* opencl_api.c — starpu_opencl.h: the devices' contexts and queues,
 * programs built for every device of the run (from source files, strings
 * or cached binaries), kernels, copies, and error reporting.
 *
 * Errors: these functions return CL_SUCCESS or an OpenCL error code, as
 * their StarPU counterparts; arguments that are not valid (NULL, a device
 * that is not one of the run's, a node of the wrong kind, a missing file)
 * give CL_INVALID_VALUE (CL_INVALID_PROGRAM for a program not built,
 * OpenCL's CL_INVALID_KERNEL / CL_INVALID_EVENT for a NULL kernel or event)
 * with a message naming them, and a program that does not build gives
 * CL_BUILD_PROGRAM_FAILURE with its build log printed. They are checked
 * before OpenCL sees them: a wrong object given to OpenCL can crash it.
 */
#include "drivers/opencl/opencl.h"
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Devices. */

/* The run's device devid, or NULL with a message naming fn and devid. */
static struct ocl_device *run_device(int devid, const char *fn)
{
	struct ocl_device *d = ocl_device_used(devid, NULL);
	if (!d)
		rt_error("%s: devid %d is not an OpenCL device of this run (%u driven) (CL_INVALID_VALUE)", fn, devid,
			 starpu_opencl_worker_get_count());
	return d;
}

void starpu_opencl_get_context(int devid, cl_context *context)
{
	struct ocl_device *d = run_device(devid, "starpu_opencl_get_context");
	if (context)
		*context = d ? d->context : NULL;
}

/* Any device found, driven by the run or not (its id is all it needs). */
void starpu_opencl_get_device(int devid, cl_device_id *device)
{
	struct ocl_device *d = devid >= 0 && devid < (int) ocl_ndevices ? &ocl_devices[devid] : NULL;
	if (!d)
		rt_error("starpu_opencl_get_device: devid %d is not an OpenCL device (%u found) (CL_INVALID_VALUE)", devid,
			 ocl_ndevices);
	if (device)
		*device = d ? d->id : NULL;
}

void starpu_opencl_get_queue(int devid, cl_command_queue *queue)
{
	struct ocl_device *d = run_device(devid, "starpu_opencl_get_queue");
	if (queue)
		*queue = d ? d->queue : NULL;
}

/* The calling thread's OpenCL device, or NULL (message naming fn). */
static struct ocl_device *current_device(const char *fn)
{
	struct worker *w = worker_self();
	if (!w || w->arch != STARPU_OPENCL_WORKER)
	{
		rt_error("%s: not called by an OpenCL worker (the result is NULL)", fn);
		return NULL;
	}
	return run_device(w->devid, fn);
}

void starpu_opencl_get_current_context(cl_context *context)
{
	struct ocl_device *d = current_device("starpu_opencl_get_current_context");
	if (context)
		*context = d ? d->context : NULL;
}

void starpu_opencl_get_current_queue(cl_command_queue *queue)
{
	struct ocl_device *d = current_device("starpu_opencl_get_current_queue");
	if (queue)
		*queue = d ? d->queue : NULL;
}

int starpu_opencl_set_kernel_args(cl_int *err, cl_kernel *kernel, ...)
{
	va_list ap;
	va_start(ap, kernel);
	int n = 0;
	cl_int e = CL_SUCCESS;
	for (;;)
	{
		size_t size = va_arg(ap, size_t);
		if (size == 0)
			break;
		void *value = va_arg(ap, void *);
		e = kernel ? clSetKernelArg(*kernel, (cl_uint) n, size, value) : CL_INVALID_KERNEL;
		if (e != CL_SUCCESS)
			break;
		n++;
	}
	va_end(ap);
	if (err)
		*err = e;
	return n;
}

/* ------------------------------------------------------------------ */
/* Program sources. */

/* Finds source_file_name as given, then in STARPU_OPENCL_PROGRAM_DIR; the
 * path found in path (PATH_MAX), its directory in dir. 0 or -ENOENT. */
static int locate(const char *name, char *path, char *dir)
{
	struct stat st;
	const char *pdir = getenv("STARPU_OPENCL_PROGRAM_DIR");
	const char *tries[2] = { NULL, pdir };
	for (int i = 0; i < 2; i++)
	{
		if (i == 0)
			snprintf(path, PATH_MAX, "%s", name);
		else if (tries[i] && *tries[i] && name[0] != '/')
			snprintf(path, PATH_MAX, "%s/%s", tries[i], name);
		else
			continue;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		{
			snprintf(dir, PATH_MAX, "%s", path);
			char *slash = strrchr(dir, '/');
			if (slash)
				slash[1] = 0;
			else
				snprintf(dir, PATH_MAX, "./");
			return 0;
		}
	}
	path[0] = dir[0] = 0;
	return -ENOENT;
}

/* The whole file, NUL-terminated (malloc'd), or NULL. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t size = 0, cap = 0;
	for (;;)
	{
		if (size + 4096 + 1 > cap)
		{
			cap = (cap ? cap * 2 : 8192);
			char *nb = realloc(buf, cap);
			if (!nb)
			{
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + size, 1, cap - size - 1, f);
		size += got;
		if (got == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad)
	{
		free(buf);
		return NULL;
	}
	buf[size] = 0;
	if (len)
		*len = size;
	return buf;
}

/* Both forms: the three strings malloc'd (the caller frees them), empty
 * when the file is not found (message naming fn and the file). */
static void load_source(const char *fn, const char *source_file_name, char **located_file_name, char **located_dir_name,
			char **opencl_program_source)
{
	char path[PATH_MAX], dir[PATH_MAX];
	char *src = NULL;
	const char *pdir = getenv("STARPU_OPENCL_PROGRAM_DIR");
	if (!source_file_name)
		rt_error("%s: source_file_name is NULL", fn);
	else if (locate(source_file_name, path, dir))
		rt_error("%s: '%s' was found neither as given nor in STARPU_OPENCL_PROGRAM_DIR (%s)", fn, source_file_name,
			 pdir ? pdir : "unset");
	else if (!(src = slurp(path, NULL)))
		rt_error("%s: cannot read '%s'", fn, path);
	if (!src)
		path[0] = dir[0] = 0;
	if (located_file_name)
		*located_file_name = strdup(path);
	if (located_dir_name)
		*located_dir_name = strdup(dir);
	if (opencl_program_source)
		*opencl_program_source = src ? src : strdup("");
	else
		free(src);
}

void starpu_opencl_load_program_source_malloc(const char *source_file_name, char **located_file_name,
					      char **located_dir_name, char **opencl_program_source)
{
	load_source("starpu_opencl_load_program_source_malloc", source_file_name, located_file_name, located_dir_name,
		    opencl_program_source);
}

void starpu_opencl_load_program_source(const char *source_file_name, char *located_file_name, char *located_dir_name,
				       char *opencl_program_source)
{
	char *file, *dir, *src;
	load_source("starpu_opencl_load_program_source", source_file_name, &file, &dir, &src);
	if (located_file_name)
		strcpy(located_file_name, file ? file : "");
	if (located_dir_name)
		strcpy(located_dir_name, dir ? dir : "");
	if (opencl_program_source)
		strcpy(opencl_program_source, src ? src : "");
	free(file);
	free(dir);
	free(src);
}

/* ------------------------------------------------------------------ */
/* Building programs. */

static void print_build_log(const char *fn, cl_program p, int devid)
{
	struct ocl_device *d = &ocl_devices[devid];
	size_t len = 0;
	clGetProgramBuildInfo(p, d->id, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
	char *log = len ? malloc(len + 1) : NULL;
	if (log && clGetProgramBuildInfo(p, d->id, CL_PROGRAM_BUILD_LOG, len, log, NULL) == CL_SUCCESS)
	{
		log[len] = 0;
		fprintf(stderr, "[vela] %s: build log for OpenCL device %d (%s):\n%s\n", fn, devid, d->name, log);
	}
	free(log);
}

/* Builds p for device devid; on failure prints the log and releases p. */
static cl_int build(const char *fn, cl_program p, int devid, const char *options)
{
	struct ocl_device *d = &ocl_devices[devid];
	cl_int err = clBuildProgram(p, 1, &d->id, options, NULL, NULL);
	if (err == CL_SUCCESS)
		return CL_SUCCESS;
	rt_error("%s: the program does not build for OpenCL device %d (%s): %s (%d)", fn, devid, d->name,
		 starpu_opencl_error_string(err), err);
	print_build_log(fn, p, devid);
	clReleaseProgram(p);
	return err;
}

static void release_programs(struct starpu_opencl_program *progs)
{
	for (unsigned i = 0; i < STARPU_MAXOPENCLDEVS; i++)
		if (progs->programs[i])
		{
			clReleaseProgram(progs->programs[i]);
			progs->programs[i] = NULL;
		}
}

static cl_int load_from_string(const char *fn, const char *source, struct starpu_opencl_program *progs,
			       const char *options)
{
	if (!source || !progs)
	{
		rt_error("%s: %s is NULL (CL_INVALID_VALUE)", fn, !source ? "the program source" : "opencl_programs");
		return CL_INVALID_VALUE;
	}
	memset(progs, 0, sizeof(*progs));
	for (unsigned i = 0; i < ocl_ndevices; i++)
	{
		struct ocl_device *d = &ocl_devices[i];
		if (!d->used)
			continue;
		cl_int err;
		cl_program p = clCreateProgramWithSource(d->context, 1, &source, NULL, &err);
		if (err == CL_SUCCESS)
			err = build(fn, p, (int) i, options);
		else
			rt_error("%s: OpenCL device %u (%s) does not take the program: %s (%d)", fn, i, d->name,
				 starpu_opencl_error_string(err), err);
		if (err != CL_SUCCESS)
		{
			release_programs(progs);
			return err;
		}
		progs->programs[i] = p;
	}
	return CL_SUCCESS;
}

int starpu_opencl_load_opencl_from_string(const char *opencl_program_source, struct starpu_opencl_program *opencl_programs,
					  const char *build_options)
{
	return load_from_string("starpu_opencl_load_opencl_from_string", opencl_program_source, opencl_programs, build_options);
}

/* The source of a file and the options to build it with: the caller's,
 * plus the file's directory for its #includes. NULL (message) if absent. */
static char *file_source(const char *fn, const char *name, const char *options, char **full_options)
{
	char path[PATH_MAX], dir[PATH_MAX];
	if (!name)
	{
		rt_error("%s: source_file_name is NULL (CL_INVALID_VALUE)", fn);
		return NULL;
	}
	if (locate(name, path, dir))
	{
		const char *pdir = getenv("STARPU_OPENCL_PROGRAM_DIR");
		rt_error("%s: '%s' was found neither as given nor in STARPU_OPENCL_PROGRAM_DIR (%s) (CL_INVALID_VALUE)", fn, name,
			 pdir ? pdir : "unset");
		return NULL;
	}
	char *src = slurp(path, NULL);
	if (!src)
	{
		rt_error("%s: cannot read '%s' (CL_INVALID_VALUE)", fn, path);
		return NULL;
	}
	/* OpenCL build options are split at spaces, with no quoting that every
	 * implementation takes (PoCL passes quotes and backslashes through):
	 * a directory with a space cannot be named, so it is left out rather
	 * than break the build of a file that includes nothing. */
	int named = !strpbrk(dir, " \t\n");
	if (!named)
		rt_warn("%s: the directory of '%s' has a space and cannot be passed to the OpenCL compiler: files it "
			"#includes from there will not be found", fn, path);
	size_t len = strlen(dir) + (options ? strlen(options) : 0) + 8;
	*full_options = malloc(len);
	if (!*full_options)
	{
		free(src);
		return NULL;
	}
	snprintf(*full_options, len, "%s%s%s%s", named ? "-I " : "", named ? dir : "", named && options ? " " : "",
		 options ? options : "");
	return src;
}

int starpu_opencl_load_opencl_from_file(const char *source_file_name, struct starpu_opencl_program *opencl_programs,
					const char *build_options)
{
	const char *fn = "starpu_opencl_load_opencl_from_file";
	char *options = NULL;
	char *src = file_source(fn, source_file_name, build_options, &options);
	if (!src)
		return CL_INVALID_VALUE;
	cl_int err = load_from_string(fn, src, opencl_programs, options);
	free(src);
	free(options);
	return err;
}

int starpu_opencl_unload_opencl(struct starpu_opencl_program *opencl_programs)
{
	if (!opencl_programs)
	{
		rt_error("starpu_opencl_unload_opencl: opencl_programs is NULL (CL_INVALID_VALUE)");
		return CL_INVALID_VALUE;
	}
	release_programs(opencl_programs);
	return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Binaries cached under $STARPU_HOME/.starpu/opencl. */

static int binary_path(char *path, size_t size, const char *kernel_id, int devid)
{
	const char *home = getenv("STARPU_HOME");
	if (!home || !*home)
		home = getenv("HOME");
	if (!home || !*home)
		home = "/tmp";
	struct ocl_device *d = &ocl_devices[devid];
	const char *type = d->type & CL_DEVICE_TYPE_GPU ? "gpu" : d->type & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "cpu";
	int n = snprintf(path, size, "%s/.starpu/opencl/%s.%s.vendor_id_%u_device_id_%d", home, kernel_id, type,
			 (unsigned) d->vendor_id, devid);
	return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

static int make_dirs(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/')
		{
			*p = 0;
			if (mkdir(buf, 0755) && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	return 0;
}

static cl_int save_binary(const char *fn, cl_program p, int devid, const char *kernel_id)
{
	char path[PATH_MAX];
	size_t size = 0;
	cl_int err = clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL);
	unsigned char *bin = err == CL_SUCCESS && size ? malloc(size) : NULL;
	if (!bin)
		return err != CL_SUCCESS ? err : CL_OUT_OF_HOST_MEMORY;
	err = clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL);
	if (err == CL_SUCCESS)
	{
		FILE *f = NULL;
		if (binary_path(path, sizeof(path), kernel_id, devid) || make_dirs(path) || !(f = fopen(path, "wb")) ||
		    fwrite(bin, 1, size, f) != size)
		{
			rt_error("%s: cannot write the binary for OpenCL device %d to '%s' (CL_INVALID_VALUE)", fn, devid, path);
			err = CL_INVALID_VALUE;
		}
		if (f && fclose(f) && err == CL_SUCCESS)
			err = CL_INVALID_VALUE;
	}
	free(bin);
	return err;
}

static cl_int compile_string(const char *fn, const char *source, const char *kernel_id, const char *options)
{
	if (!source || !kernel_id || !*kernel_id || strchr(kernel_id, '/'))
	{
		rt_error("%s: %s (CL_INVALID_VALUE)", fn, !source ? "the program source is NULL"
			 : "the file name must be a plain, non-empty name");
		return CL_INVALID_VALUE;
	}
	struct starpu_opencl_program progs;
	cl_int err = load_from_string(fn, source, &progs, options);
	for (unsigned i = 0; i < STARPU_MAXOPENCLDEVS && err == CL_SUCCESS; i++)
		if (progs.programs[i])
			err = save_binary(fn, progs.programs[i], (int) i, kernel_id);
	release_programs(&progs);
	return err;
}

int starpu_opencl_compile_opencl_from_string(const char *opencl_program_source, const char *file_name,
					     const char *build_options)
{
	return compile_string("starpu_opencl_compile_opencl_from_string", opencl_program_source, file_name, build_options);
}

int starpu_opencl_compile_opencl_from_file(const char *source_file_name, const char *build_options)
{
	const char *fn = "starpu_opencl_compile_opencl_from_file";
	char *options = NULL;
	char *src = file_source(fn, source_file_name, build_options, &options);
	if (!src)
		return CL_INVALID_VALUE;
	const char *base = strrchr(source_file_name, '/');
	cl_int err = compile_string(fn, src, base ? base + 1 : source_file_name, options);
	free(src);
	free(options);
	return err;
}

int starpu_opencl_load_binary_opencl(const char *kernel_id, struct starpu_opencl_program *opencl_programs)
{
	const char *fn = "starpu_opencl_load_binary_opencl";
	if (!kernel_id || !opencl_programs)
	{
		rt_error("%s: %s is NULL (CL_INVALID_VALUE)", fn, !kernel_id ? "kernel_id" : "opencl_programs");
		return CL_INVALID_VALUE;
	}
	memset(opencl_programs, 0, sizeof(*opencl_programs));
	for (unsigned i = 0; i < ocl_ndevices; i++)
	{
		struct ocl_device *d = &ocl_devices[i];
		if (!d->used)
			continue;
		char path[PATH_MAX];
		size_t size = 0;
		unsigned char *bin = NULL;
		if (binary_path(path, sizeof(path), kernel_id, (int) i) == 0)
			bin = (unsigned char *) slurp(path, &size);
		if (!bin)
		{
			rt_error("%s: no binary of '%s' for OpenCL device %u: cannot read '%s' (compile it first with "
				 "starpu_opencl_compile_opencl_from_file/_string) (CL_INVALID_VALUE)", fn, kernel_id, i, path);
			release_programs(opencl_programs);
			return CL_INVALID_VALUE;
		}
		cl_int err, status;
		const unsigned char *b = bin;
		cl_program p = clCreateProgramWithBinary(d->context, 1, &d->id, &size, &b, &status, &err);
		free(bin);
		if (err == CL_SUCCESS)
			err = build(fn, p, (int) i, NULL);
		else
			rt_error("%s: '%s' is not a binary OpenCL device %u (%s) takes: %s (%d)", fn, path, i, d->name,
				 starpu_opencl_error_string(err), err);
		if (err != CL_SUCCESS)
		{
			release_programs(opencl_programs);
			return err;
		}
		opencl_programs->programs[i] = p;
	}
	return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Kernels. */

int starpu_opencl_load_kernel(cl_kernel *kernel, cl_command_queue *queue, struct starpu_opencl_program *opencl_programs,
			      const char *kernel_name, int devid)
{
	const char *fn = "starpu_opencl_load_kernel";
	if (!kernel || !opencl_programs || !kernel_name)
	{
		rt_error("%s: %s is NULL (CL_INVALID_VALUE)", fn, !kernel ? "kernel" : !opencl_programs ? "opencl_programs" : "kernel_name");
		return CL_INVALID_VALUE;
	}
	*kernel = NULL;
	struct ocl_device *d = run_device(devid, fn);
	if (!d)
		return CL_INVALID_VALUE;
	cl_program p = opencl_programs->programs[devid];
	if (!p)
	{
		rt_error("%s: no program was built for OpenCL device %d (kernel '%s'): load it with "
			 "starpu_opencl_load_opencl_from_file/_string after starpu_init (CL_INVALID_PROGRAM)", fn, devid, kernel_name);
		return CL_INVALID_PROGRAM;
	}
	cl_int err;
	*kernel = clCreateKernel(p, kernel_name, &err);
	if (err != CL_SUCCESS)
	{
		rt_error("%s: kernel '%s' for OpenCL device %d: %s (%d)", fn, kernel_name, devid, starpu_opencl_error_string(err), err);
		*kernel = NULL;
		return err;
	}
	if (queue)
		*queue = d->queue;
	return CL_SUCCESS;
}

int starpu_opencl_release_kernel(cl_kernel kernel)
{
	if (!kernel)
	{
		rt_error("starpu_opencl_release_kernel: kernel is NULL (CL_INVALID_KERNEL)");
		return CL_INVALID_KERNEL;
	}
	return clReleaseKernel(kernel);
}

int starpu_opencl_collect_stats(cl_event event)
{
	/* StarPU reads vendor counters (energy) that no device here has;
	 * what every device has is the kernel's time, checked readable. */
	if (!event)
	{
		rt_error("starpu_opencl_collect_stats: event is NULL (CL_INVALID_EVENT)");
		return CL_INVALID_EVENT;
	}
	cl_ulong start, end;
	cl_int err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, NULL);
	if (err == CL_SUCCESS)
		err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL);
	return err == CL_PROFILING_INFO_NOT_AVAILABLE ? CL_SUCCESS : err;
}

/* ------------------------------------------------------------------ */
/* Memory and copies. */

cl_int starpu_opencl_allocate_memory(int devid, cl_mem *addr, size_t size, cl_mem_flags flags)
{
	const char *fn = "starpu_opencl_allocate_memory";
	if (!addr)
	{
		rt_error("%s: addr is NULL (CL_INVALID_VALUE)", fn);
		return CL_INVALID_VALUE;
	}
	*addr = NULL;
	struct ocl_device *d = run_device(devid, fn);
	if (!d)
		return CL_INVALID_VALUE;
	cl_int err;
	*addr = clCreateBuffer(d->context, flags, size, NULL, &err);
	if (err != CL_SUCCESS)
		*addr = NULL;
	return err;
}

static cl_int copy_done(cl_int err, cl_event *event, int *ret)
{
	if (ret)
		*ret = err != CL_SUCCESS ? ocl_errno(err) : event && *event ? -EAGAIN : 0;
	return err;
}

/* Whether node is what a copy helper takes on that side: main RAM, or an
 * OpenCL node of the run. Checked before anything is taken for a cl_mem:
 * a host pointer handed to OpenCL as one is a crash, not an error code. */
static int node_is(const char *fn, const char *arg, unsigned node, enum starpu_node_kind kind)
{
	enum starpu_node_kind k = starpu_node_get_kind(node);
	if (k == kind && (kind != STARPU_OPENCL_RAM || ocl_device_of_node(node, NULL)))
		return 1;
	rt_error("%s: %s %u is not %s (CL_INVALID_VALUE)", fn, arg, node,
		 kind == STARPU_OPENCL_RAM ? "an OpenCL memory node of this run" : "a CPU RAM node");
	return 0;
}

/* A bad node as the copy helpers report it: nothing queued. */
static cl_int bad_node(cl_event *event, int *ret)
{
	if (event)
		*event = NULL;
	return copy_done(CL_INVALID_VALUE, event, ret);
}

cl_int starpu_opencl_copy_ram_to_opencl(void *ptr, unsigned src_node, cl_mem buffer, unsigned dst_node, size_t size,
					size_t offset, cl_event *event, int *ret)
{
	const char *fn = "starpu_opencl_copy_ram_to_opencl";
	if (!node_is(fn, "src_node", src_node, STARPU_CPU_RAM) || !node_is(fn, "dst_node", dst_node, STARPU_OPENCL_RAM))
		return bad_node(event, ret);
	cl_int err = ocl_copy((uintptr_t) ptr, 0, src_node, (uintptr_t) buffer, offset, dst_node, size, event);
	return copy_done(err, event, ret);
}

cl_int starpu_opencl_copy_opencl_to_ram(cl_mem buffer, unsigned src_node, void *ptr, unsigned dst_node, size_t size,
					size_t offset, cl_event *event, int *ret)
{
	const char *fn = "starpu_opencl_copy_opencl_to_ram";
	if (!node_is(fn, "src_node", src_node, STARPU_OPENCL_RAM) || !node_is(fn, "dst_node", dst_node, STARPU_CPU_RAM))
		return bad_node(event, ret);
	cl_int err = ocl_copy((uintptr_t) buffer, offset, src_node, (uintptr_t) ptr, 0, dst_node, size, event);
	return copy_done(err, event, ret);
}

cl_int starpu_opencl_copy_opencl_to_opencl(cl_mem src, unsigned src_node, size_t src_offset, cl_mem dst, unsigned dst_node,
					   size_t dst_offset, size_t size, cl_event *event, int *ret)
{
	const char *fn = "starpu_opencl_copy_opencl_to_opencl";
	if (!node_is(fn, "src_node", src_node, STARPU_OPENCL_RAM) || !node_is(fn, "dst_node", dst_node, STARPU_OPENCL_RAM))
		return bad_node(event, ret);
	cl_int err = ocl_copy((uintptr_t) src, src_offset, src_node, (uintptr_t) dst, dst_offset, dst_node, size, event);
	return copy_done(err, event, ret);
}

cl_int starpu_opencl_copy_async_sync(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
				     unsigned dst_node, size_t size, cl_event *event)
{
	const char *fn = "starpu_opencl_copy_async_sync";
	/* RAM to OpenCL, OpenCL to RAM, OpenCL to OpenCL: the OpenCL side
	 * decides what the other may be. */
	int src_ocl = starpu_node_get_kind(src_node) == STARPU_OPENCL_RAM;
	int dst_ocl = starpu_node_get_kind(dst_node) == STARPU_OPENCL_RAM;
	if (!src_ocl && !dst_ocl)
	{
		rt_error("%s: neither src_node %u nor dst_node %u is an OpenCL memory node (CL_INVALID_VALUE)", fn, src_node,
			 dst_node);
		return bad_node(event, NULL);
	}
	if (!node_is(fn, "src_node", src_node, src_ocl ? STARPU_OPENCL_RAM : STARPU_CPU_RAM) ||
	    !node_is(fn, "dst_node", dst_node, dst_ocl ? STARPU_OPENCL_RAM : STARPU_CPU_RAM))
		return bad_node(event, NULL);
	cl_int err = ocl_copy(src, src_offset, src_node, dst, dst_offset, dst_node, size, event);
	if (err != CL_SUCCESS)
		return err;
	return event && *event ? -EAGAIN : 0;
}
