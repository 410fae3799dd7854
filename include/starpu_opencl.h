/* starpu_opencl.h — what OpenCL codelets use: the devices' contexts and
 * command queues, building programs for every device, loading kernels,
 * copies between RAM and device buffers, and error reporting.
 *
 * An OpenCL worker drives one device; a codelet's opencl_funcs run on that
 * worker's thread and queue their kernels on starpu_opencl_get_current_queue().
 * A codelet flagged STARPU_OPENCL_ASYNC returns once its kernels are queued:
 * the worker learns they are done from an event it queues after them, and
 * meanwhile starts the next task. Otherwise the worker waits for the queue
 * to drain before the task counts as done.
 *
 * Buffers on an OpenCL memory node are cl_mem objects: the interfaces'
 * dev_handle (and ptr) hold the cl_mem, offset the byte offset into it.
 *
 * Errors: the functions return CL_SUCCESS or an OpenCL error code. An
 * argument that is not valid (NULL, a devid that is not one of the run's
 * devices, a node of the wrong kind, a missing file) gives CL_INVALID_VALUE
 * and one line on stderr naming the call and the argument; a program never
 * built for the device gives CL_INVALID_PROGRAM, and a NULL kernel or event
 * OpenCL's own CL_INVALID_KERNEL / CL_INVALID_EVENT. A program that does
 * not build gives CL_BUILD_PROGRAM_FAILURE with its build log printed.
 */
#ifndef STARPU_OPENCL_H
#define STARPU_OPENCL_H

#include <starpu_config.h>

#ifdef STARPU_USE_OPENCL

/* StarPU 1.3 targets OpenCL 1.0 unless the application chose a version. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 100
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif
#include <assert.h>
#include <starpu_util.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* A program built for each OpenCL device (indexed by device id). */
struct starpu_opencl_program
{
	cl_program programs[STARPU_MAXOPENCLDEVS];
};

/* Devices by id (starpu_worker_get_devid of the OpenCL workers): NULL
 * (message printed) for an id that is not one of the run's devices;
 * get_device takes any device found. */
void starpu_opencl_get_context(int devid, cl_context *context);
void starpu_opencl_get_device(int devid, cl_device_id *device);
void starpu_opencl_get_queue(int devid, cl_command_queue *queue);
/* The calling OpenCL worker's context and kernel queue; NULL (message
 * printed) from any other thread. */
void starpu_opencl_get_current_context(cl_context *context);
void starpu_opencl_get_current_queue(cl_command_queue *queue);

/* Sets a kernel's arguments from (size_t size, void *value) pairs ended by
 * a 0 size. Returns how many were set; on a failure, the index of the
 * argument that failed, with *err set to OpenCL's error. */
int starpu_opencl_set_kernel_args(cl_int *err, cl_kernel *kernel, ...);

/* Program sources: a file is looked for as given, then in
 * STARPU_OPENCL_PROGRAM_DIR; the directory found ends with '/'. A file not
 * found gives three empty strings (message printed). The buffers of the
 * first form must be large enough (the file's size + 1, and PATH_MAX for
 * the names); the second form mallocs all three (the caller frees them). */
void starpu_opencl_load_program_source(const char *source_file_name, char *located_file_name, char *located_dir_name, char *opencl_program_source);
void starpu_opencl_load_program_source_malloc(const char *source_file_name, char **located_file_name, char **located_dir_name, char **opencl_program_source);

/* Builds a program for every OpenCL device of the run (the other entries
 * are NULL). From a file, its directory is added to the include path
 * (unless its name has a space: build options cannot name it). On a
 * build failure the build log is printed and the OpenCL error returned,
 * with no program kept. */
int starpu_opencl_load_opencl_from_file(const char *source_file_name, struct starpu_opencl_program *opencl_programs, const char *build_options);
int starpu_opencl_load_opencl_from_string(const char *opencl_program_source, struct starpu_opencl_program *opencl_programs, const char *build_options);
int starpu_opencl_unload_opencl(struct starpu_opencl_program *opencl_programs);
/* Binaries: compiled for every device into $STARPU_HOME/.starpu/opencl/
 * (one file per device), loaded back by kernel_id. */
int starpu_opencl_compile_opencl_from_file(const char *source_file_name, const char *build_options);
int starpu_opencl_compile_opencl_from_string(const char *opencl_program_source, const char *file_name, const char *build_options);
int starpu_opencl_load_binary_opencl(const char *kernel_id, struct starpu_opencl_program *opencl_programs);

/* A kernel of the program built for devid, and the device's kernel queue. */
int starpu_opencl_load_kernel(cl_kernel *kernel, cl_command_queue *queue, struct starpu_opencl_program *opencl_programs, const char *kernel_name, int devid);
int starpu_opencl_release_kernel(cl_kernel kernel);

/* Checks that a finished kernel's profiling times can be read (the kernel
 * queues profile): CL_SUCCESS, or the OpenCL error. StarPU reads vendor
 * counters (cycles, energy) here that no device Vela drives has; a task's
 * own times are the runtime's, not this function's. */
int starpu_opencl_collect_stats(cl_event event);

/* Errors. */
const char *starpu_opencl_error_string(cl_int status);
void starpu_opencl_display_error(const char *func, const char *file, int line, const char *msg, cl_int status);
#define STARPU_OPENCL_DISPLAY_ERROR(status) starpu_opencl_display_error(__starpu_func__, __FILE__, __LINE__, NULL, status)
static __starpu_inline void starpu_opencl_report_error(const char *func, const char *file, int line, const char *msg, cl_int status)
{
	starpu_opencl_display_error(func, file, line, msg, status);
	assert(0);
}
#define STARPU_OPENCL_REPORT_ERROR(status) starpu_opencl_report_error(__starpu_func__, __FILE__, __LINE__, NULL, status)
#define STARPU_OPENCL_REPORT_ERROR_WITH_MSG(msg, status) starpu_opencl_report_error(__starpu_func__, __FILE__, __LINE__, msg, status)

/* Memory and copies. With event NULL a copy is complete on return (*ret 0);
 * else it is queued, *event tells when it is done and *ret is -EAGAIN. */
cl_int starpu_opencl_allocate_memory(int devid, cl_mem *addr, size_t size, cl_mem_flags flags);
cl_int starpu_opencl_copy_ram_to_opencl(void *ptr, unsigned src_node, cl_mem buffer, unsigned dst_node, size_t size, size_t offset, cl_event *event, int *ret);
cl_int starpu_opencl_copy_opencl_to_ram(cl_mem buffer, unsigned src_node, void *ptr, unsigned dst_node, size_t size, size_t offset, cl_event *event, int *ret);
cl_int starpu_opencl_copy_opencl_to_opencl(cl_mem src, unsigned src_node, size_t src_offset, cl_mem dst, unsigned dst_node, size_t dst_offset, size_t size, cl_event *event, int *ret);
/* Any of the three by node kinds: 0 done, -EAGAIN queued (event set), or
 * an OpenCL error. */
cl_int starpu_opencl_copy_async_sync(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset, unsigned dst_node, size_t size, cl_event *event);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_USE_OPENCL */
#endif /* STARPU_OPENCL_H */
