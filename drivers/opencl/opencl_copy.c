/* opencl_copy.c — copies between RAM and OpenCL buffers (contiguous and
 * strided), queued on the device's copy queue, and OpenCL's error codes
 * in words.
 *
 * A copy with an event pointer is queued and flushed (so that polling its
 * event sees it progress); without, it is complete on return. Two devices
 * with separate contexts cannot copy one to the other directly: such a
 * copy goes through a bounce buffer in RAM, synchronously (the data layer
 * never asks for one: it routes device-to-device copies through RAM).
 */
#include "drivers/opencl/opencl.h"
#include "core/rt.h"

#include <stdlib.h>

static cl_int fail(cl_int err, const char *what, size_t size, unsigned src_node, unsigned dst_node)
{
	rt_error("OpenCL %s of %zu bytes from memory node %u to %u failed: %s (%d)", what, size, src_node, dst_node,
		 starpu_opencl_error_string(err), err);
	return err;
}

/* Queued copies must reach the device before anyone polls their event. */
static cl_int submitted(cl_int err, cl_command_queue q, cl_event *event)
{
	if (err == CL_SUCCESS && event && *event)
		err = clFlush(q);
	return err;
}

cl_int ocl_copy(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
		unsigned dst_node, size_t size, cl_event *event)
{
	if (event)
		*event = NULL;
	if (size == 0)
		return CL_SUCCESS;	/* OpenCL refuses empty copies */
	enum starpu_node_kind sk = starpu_node_get_kind(src_node), dk = starpu_node_get_kind(dst_node);
	cl_bool blocking = event ? CL_FALSE : CL_TRUE;
	cl_int err;
	if (sk == STARPU_CPU_RAM && dk == STARPU_OPENCL_RAM)
	{
		struct ocl_device *d = ocl_device_of_node(dst_node, "OpenCL copy");
		if (!d)
			return CL_INVALID_VALUE;
		err = clEnqueueWriteBuffer(d->xfer, (cl_mem) dst, blocking, dst_offset, size, (const char *) src + src_offset,
					   0, NULL, event);
		err = submitted(err, d->xfer, event);
	}
	else if (sk == STARPU_OPENCL_RAM && dk == STARPU_CPU_RAM)
	{
		struct ocl_device *d = ocl_device_of_node(src_node, "OpenCL copy");
		if (!d)
			return CL_INVALID_VALUE;
		err = clEnqueueReadBuffer(d->xfer, (cl_mem) src, blocking, src_offset, size, (char *) dst + dst_offset, 0,
					  NULL, event);
		err = submitted(err, d->xfer, event);
	}
	else if (sk == STARPU_OPENCL_RAM && dk == STARPU_OPENCL_RAM)
	{
		struct ocl_device *s = ocl_device_of_node(src_node, "OpenCL copy"), *d = ocl_device_of_node(dst_node, "OpenCL copy");
		if (!s || !d)
			return CL_INVALID_VALUE;
		if (s == d)
		{
			err = clEnqueueCopyBuffer(d->xfer, (cl_mem) src, (cl_mem) dst, src_offset, dst_offset, size, 0, NULL, event);
			if (err == CL_SUCCESS && !event)
				err = clFinish(d->xfer);
			err = submitted(err, d->xfer, event);
		}
		else
		{
			/* Separate contexts: through RAM. */
			char *bounce = malloc(size);
			if (!bounce)
				return fail(CL_OUT_OF_HOST_MEMORY, "copy", size, src_node, dst_node);
			err = clEnqueueReadBuffer(s->xfer, (cl_mem) src, CL_TRUE, src_offset, size, bounce, 0, NULL, NULL);
			if (err == CL_SUCCESS)
				err = clEnqueueWriteBuffer(d->xfer, (cl_mem) dst, CL_TRUE, dst_offset, size, bounce, 0, NULL, NULL);
			free(bounce);
		}
	}
	else
	{
		rt_error("OpenCL copy from memory node %u to %u: neither is an OpenCL node reachable from the other (CL_INVALID_VALUE)",
			 src_node, dst_node);
		return CL_INVALID_VALUE;
	}
	if (err != CL_SUCCESS)
		return fail(err, "copy", size, src_node, dst_node);
	return CL_SUCCESS;
}

/* A byte offset into a buffer of rows ld bytes apart, as an origin. */
static void origin(size_t o[3], size_t offset, size_t ld)
{
	o[0] = ld ? offset % ld : offset;
	o[1] = ld ? offset / ld : 0;
	o[2] = 0;
}

cl_int ocl_copy2d(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
		  unsigned dst_node, size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst, cl_event *event)
{
	if (event)
		*event = NULL;
	if (numblocks <= 1 || (ld_src == blocksize && ld_dst == blocksize))
		return ocl_copy(src, src_offset, src_node, dst, dst_offset, dst_node, blocksize * numblocks, event);
	if (blocksize == 0)
		return CL_SUCCESS;
	if (ld_src < blocksize || ld_dst < blocksize)
	{
		rt_error("OpenCL strided copy from memory node %u to %u: rows of %zu bytes do not fit strides of %zu and %zu "
			 "(CL_INVALID_VALUE)", src_node, dst_node, blocksize, ld_src, ld_dst);
		return CL_INVALID_VALUE;
	}
	enum starpu_node_kind sk = starpu_node_get_kind(src_node), dk = starpu_node_get_kind(dst_node);
	cl_bool blocking = event ? CL_FALSE : CL_TRUE;
	size_t region[3] = { blocksize, numblocks, 1 }, so[3], dor[3], zero[3] = { 0, 0, 0 };
	origin(so, src_offset, ld_src);
	origin(dor, dst_offset, ld_dst);
	cl_int err;
	if (sk == STARPU_CPU_RAM && dk == STARPU_OPENCL_RAM)
	{
		struct ocl_device *d = ocl_device_of_node(dst_node, "OpenCL copy");
		if (!d)
			return CL_INVALID_VALUE;
		err = clEnqueueWriteBufferRect(d->xfer, (cl_mem) dst, blocking, dor, zero, region, ld_dst, 0, ld_src, 0,
					       (const char *) src + src_offset, 0, NULL, event);
		err = submitted(err, d->xfer, event);
	}
	else if (sk == STARPU_OPENCL_RAM && dk == STARPU_CPU_RAM)
	{
		struct ocl_device *d = ocl_device_of_node(src_node, "OpenCL copy");
		if (!d)
			return CL_INVALID_VALUE;
		err = clEnqueueReadBufferRect(d->xfer, (cl_mem) src, blocking, so, zero, region, ld_src, 0, ld_dst, 0,
					      (char *) dst + dst_offset, 0, NULL, event);
		err = submitted(err, d->xfer, event);
	}
	else if (sk == STARPU_OPENCL_RAM && dk == STARPU_OPENCL_RAM &&
		 ocl_device_of_node(src_node, NULL) == ocl_device_of_node(dst_node, NULL) && ocl_device_of_node(src_node, NULL))
	{
		struct ocl_device *d = ocl_device_of_node(src_node, NULL);
		err = clEnqueueCopyBufferRect(d->xfer, (cl_mem) src, (cl_mem) dst, so, dor, region, ld_src, 0, ld_dst, 0, 0,
					      NULL, event);
		if (err == CL_SUCCESS && !event)
			err = clFinish(d->xfer);
		err = submitted(err, d->xfer, event);
	}
	else
	{
		/* Row by row, synchronously (separate contexts, or a node that
		 * is not OpenCL's: ocl_copy says). */
		err = CL_SUCCESS;
		for (size_t i = 0; i < numblocks && err == CL_SUCCESS; i++)
			err = ocl_copy(src, src_offset + i * ld_src, src_node, dst, dst_offset + i * ld_dst, dst_node, blocksize, NULL);
		return err;
	}
	if (err != CL_SUCCESS)
		return fail(err, "strided copy", blocksize * numblocks, src_node, dst_node);
	return CL_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Errors. */

const char *starpu_opencl_error_string(cl_int status)
{
	switch (status)
	{
#define E(c) case c: return #c;
	E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
	E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
	E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH)
	E(CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
	E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
	E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
	E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
	E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE)
	E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
	E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE) E(CL_INVALID_SAMPLER)
	E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE)
	E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION) E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX)
	E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE) E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION)
	E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET)
	E(CL_INVALID_EVENT_WAIT_LIST) E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT)
	E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
	E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS) E(CL_INVALID_LINKER_OPTIONS)
	E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
	default:
		return "unknown OpenCL error";
	}
}

void starpu_opencl_display_error(const char *func, const char *file, int line, const char *msg, cl_int status)
{
	fprintf(stderr, "[vela] OpenCL error in %s (%s:%d)%s%s: %s (%d)\n", func ? func : "?", file ? file : "?", line,
		msg ? ": " : "", msg ? msg : "", starpu_opencl_error_string(status), status);
}
