/* opencl.h — the OpenCL backend's own state, shared by its two files:
 * driver_opencl.c (devices, the worker and memory-node drivers) and
 * opencl_api.c (starpu_opencl.h: programs, kernels, copies, errors).
 *
 * Devices are found once per process through the ICD loader (finding the
 * platforms loads every installed implementation, tens of milliseconds);
 * a run sets up a context and two in-order queues for each device it
 * drives: one for kernels (the worker's, which codelets queue on) and one
 * for copies, so that copies overlap kernels. Device ids are the devices'
 * positions in the list found, as StarPU numbers them.
 */
#ifndef VELA_OPENCL_H
#define VELA_OPENCL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <starpu.h>
#include <starpu_opencl.h>

struct ocl_device
{
	/* Found once per process. */
	cl_platform_id platform;
	cl_device_id id;
	cl_device_type type;
	cl_uint vendor_id;
	cl_ulong global_mem;
	char name[48];
	/* Set up for the run (used != 0), released at shutdown. */
	int used;
	unsigned node;			/* its memory node */
	cl_context context;
	cl_command_queue queue;		/* kernels (the worker's) */
	cl_command_queue xfer;		/* copies between RAM and the device */
	int async_copies;		/* copies may be queued (not disabled) */
};

/* Indexed by device id; ocl_ndevices were found. */
extern struct ocl_device ocl_devices[STARPU_MAXOPENCLDEVS];
extern unsigned ocl_ndevices;

/* The device of a run's OpenCL memory node or worker, or NULL (message
 * printed, naming fn) when the id is not one of the run's devices. */
struct ocl_device *ocl_device_of_node(unsigned node, const char *fn);
struct ocl_device *ocl_device_used(int devid, const char *fn);

/* Copies between RAM and OpenCL nodes (or within one device), queued on
 * the device's copy queue: with event NULL, complete on return; else
 * queued and *event set. CL_SUCCESS or an OpenCL error (message printed). */
cl_int ocl_copy(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
		unsigned dst_node, size_t size, cl_event *event);
cl_int ocl_copy2d(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
		  unsigned dst_node, size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst, cl_event *event);

/* An OpenCL error as a negative errno for the runtime. */
int ocl_errno(cl_int err);

#endif /* VELA_OPENCL_H */
