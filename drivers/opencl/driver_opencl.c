/* driver_opencl.c — OpenCL devices as workers and memory nodes: the device
 * kind (finding and setting up the devices), the worker driver (running a
 * codelet's opencl_funcs, events for asynchronous ones) and the node
 * driver (cl_mem buffers, copies queued on the device's copy queue).
 * Everything device-independent — tasks and copies in flight — is the
 * common layer's (drivers/device.c, data/transfer.c).
 *
 * Which devices: GPUs and accelerators by default, as StarPU 1.3;
 * STARPU_OPENCL_ON_CPUS=1 adds CPU devices (PoCL), STARPU_OPENCL_ONLY_ON_CPUS=1
 * keeps only them; STARPU_WORKERS_OPENCLID (conf.workers_opencl_gpuid)
 * picks devices by number, STARPU_NOPENCL (conf.nopencl) caps how many.
 */
#include "drivers/opencl/opencl.h"
#include "drivers/driver.h"
#include "core/conf.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern const struct drv_node_ops drv_opencl_node_ops;

struct ocl_device ocl_devices[STARPU_MAXOPENCLDEVS];
unsigned ocl_ndevices;
/* Every device of every platform, found once per process; a run's
 * ocl_devices are those of the wanted types among them. */
static struct ocl_device found[STARPU_MAXOPENCLDEVS];
static unsigned nfound;
static os_mutex_t discover_lock = OS_MUTEX_INITIALIZER;
static int discovered;

int ocl_errno(cl_int err)
{
	switch (err)
	{
	case CL_SUCCESS:
		return 0;
	case CL_MEM_OBJECT_ALLOCATION_FAILURE:
	case CL_OUT_OF_RESOURCES:
	case CL_OUT_OF_HOST_MEMORY:
		return -ENOMEM;
	case CL_INVALID_VALUE:
	case CL_INVALID_MEM_OBJECT:
	case CL_INVALID_KERNEL_NAME:
	case CL_INVALID_PROGRAM:
		return -EINVAL;
	default:
		return -EIO;
	}
}

/* Every device of every platform, once per process. */
static void discover(void)
{
	os_mutex_lock(&discover_lock);
	if (discovered)
	{
		os_mutex_unlock(&discover_lock);
		return;
	}
	discovered = 1;
	cl_platform_id platforms[8];
	cl_uint nplatforms = 0;
	cl_int err = clGetPlatformIDs(8, platforms, &nplatforms);
	if (err != CL_SUCCESS)
		nplatforms = 0;	/* CL_PLATFORM_NOT_FOUND_KHR: no ICD installed */
	if (nplatforms > 8)
		nplatforms = 8;
	for (cl_uint p = 0; p < nplatforms && nfound < STARPU_MAXOPENCLDEVS; p++)
	{
		cl_device_id ids[STARPU_MAXOPENCLDEVS];
		cl_uint n = 0;
		if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, STARPU_MAXOPENCLDEVS, ids, &n) != CL_SUCCESS)
			continue;
		if (n > STARPU_MAXOPENCLDEVS)
			n = STARPU_MAXOPENCLDEVS;
		for (cl_uint i = 0; i < n && nfound < STARPU_MAXOPENCLDEVS; i++)
		{
			struct ocl_device *d = &found[nfound++];
			memset(d, 0, sizeof(*d));
			d->platform = platforms[p];
			d->id = ids[i];
			clGetDeviceInfo(ids[i], CL_DEVICE_TYPE, sizeof(d->type), &d->type, NULL);
			clGetDeviceInfo(ids[i], CL_DEVICE_VENDOR_ID, sizeof(d->vendor_id), &d->vendor_id, NULL);
			clGetDeviceInfo(ids[i], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(d->global_mem), &d->global_mem, NULL);
			if (clGetDeviceInfo(ids[i], CL_DEVICE_NAME, sizeof(d->name), d->name, NULL) != CL_SUCCESS)
				snprintf(d->name, sizeof(d->name), "OpenCL device");
			d->name[sizeof(d->name) - 1] = 0;
		}
	}
	os_mutex_unlock(&discover_lock);
}

/* Whether the configuration (STARPU_DISABLE_ASYNCHRONOUS_COPY,
 * STARPU_DISABLE_ASYNCHRONOUS_OPENCL_COPY) lets this run's copies be
 * queued. */
static int async_copies_allowed(const struct starpu_conf *conf)
{
	return !(conf->disable_asynchronous_copy > 0 || conf->disable_asynchronous_opencl_copy > 0);
}

static void release_device(struct ocl_device *d)
{
	if (d->xfer)
		clReleaseCommandQueue(d->xfer);
	if (d->queue)
		clReleaseCommandQueue(d->queue);
	if (d->context)
		clReleaseContext(d->context);
	d->xfer = d->queue = NULL;
	d->context = NULL;
	d->used = 0;
}

static int setup_device(struct ocl_device *d, int devid, int async)
{
	cl_int err;
	cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties) d->platform, 0 };
	d->context = clCreateContext(props, 1, &d->id, NULL, NULL, &err);
	if (err != CL_SUCCESS)
		goto fail;
	/* Profiling on the kernel queue: starpu_opencl_collect_stats reads it. */
	d->queue = clCreateCommandQueue(d->context, d->id, CL_QUEUE_PROFILING_ENABLE, &err);
	if (err != CL_SUCCESS)
		goto fail;
	d->xfer = clCreateCommandQueue(d->context, d->id, 0, &err);
	if (err != CL_SUCCESS)
		goto fail;
	d->async_copies = async;
	d->used = 1;
	return 0;
fail:
	rt_error("starpu_init: OpenCL device %d (%s) could not be set up: %s (%d)", devid, d->name,
		 starpu_opencl_error_string(err), err);
	release_device(d);
	return ocl_errno(err);
}

static void opencl_teardown(void)
{
	for (unsigned i = 0; i < ocl_ndevices; i++)
		if (ocl_devices[i].used)
			release_device(&ocl_devices[i]);
}

static int opencl_setup(const struct starpu_conf *conf, struct drv_device *out, unsigned max)
{
	if (conf->nopencl == 0)
		return 0;	/* not even the ICD loader is asked */
	int on_cpus, only_cpus;
	if (conf_env_flag("STARPU_OPENCL_ON_CPUS", &on_cpus) || conf_env_flag("STARPU_OPENCL_ONLY_ON_CPUS", &only_cpus))
		return -EINVAL;
	cl_device_type want = CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR;
	if (on_cpus)
		want |= CL_DEVICE_TYPE_CPU;
	if (only_cpus)
		want = CL_DEVICE_TYPE_CPU;
	discover();
	/* Devices are numbered among those of the wanted types, as StarPU
	 * numbers them (a GPU is device 0 whether or not PoCL is installed). */
	memset(ocl_devices, 0, sizeof(ocl_devices));
	ocl_ndevices = 0;
	for (unsigned i = 0; i < nfound; i++)
		if (found[i].type & want)
			ocl_devices[ocl_ndevices++] = found[i];

	/* The candidates, by device number: those listed, else all. */
	int candidates[STARPU_MAXOPENCLDEVS];
	unsigned ncand = 0;
	if (conf->use_explicit_workers_opencl_gpuid)
	{
		for (unsigned i = 0; i < conf->use_explicit_workers_opencl_gpuid && ncand < STARPU_MAXOPENCLDEVS; i++)
		{
			unsigned id = conf->workers_opencl_gpuid[i];
			if (id >= ocl_ndevices)
			{
				rt_error("starpu_init: STARPU_WORKERS_OPENCLID / conf.workers_opencl_gpuid names OpenCL device %u, "
					 "but the usable ones are numbered 0 to %d (%u device(s) found, %u of the wanted types) (-EINVAL)",
					 id, (int) ocl_ndevices - 1, nfound, ocl_ndevices);
				return -EINVAL;
			}
			int dup = 0;
			for (unsigned k = 0; k < ncand; k++)
				dup |= candidates[k] == (int) id;
			if (!dup)
				candidates[ncand++] = (int) id;
		}
	}
	else
		for (unsigned i = 0; i < ocl_ndevices; i++)
			candidates[ncand++] = (int) i;

	unsigned wanted = conf->nopencl < 0 ? ncand : (unsigned) conf->nopencl;
	if (wanted > ncand)
	{
		rt_warn("starpu_init: %u OpenCL device(s) requested (STARPU_NOPENCL / conf.nopencl), %u usable; using %u%s",
			wanted, ncand, ncand, nfound > ocl_ndevices ? " (CPU devices need STARPU_OPENCL_ON_CPUS=1)" : "");
		wanted = ncand;
	}
	if (wanted > max)
		wanted = max;
	int async = async_copies_allowed(conf);
	unsigned n = 0;
	for (unsigned i = 0; i < wanted; i++)
	{
		struct ocl_device *d = &ocl_devices[candidates[i]];
		int ret = setup_device(d, candidates[i], async);
		if (ret)
		{
			opencl_teardown();
			return ret;
		}
		out[n].devid = candidates[i];
		out[n].nworkers = 1;
		out[n].memsize = d->global_mem ? (ssize_t) d->global_mem : -1;
		/* A CPU device's copies are memcpy calls made by the threads
		 * that run its kernels (PoCL: a copy queued while a kernel runs
		 * starts when the kernel ends, on any of its queues). */
		out[n].copies_on_compute = (d->type & CL_DEVICE_TYPE_CPU) != 0;
		snprintf(out[n].name, sizeof(out[n].name), "%s", d->name);
		n++;
	}
	return (int) n;
}

struct ocl_device *ocl_device_used(int devid, const char *fn)
{
	if (devid >= 0 && devid < (int) ocl_ndevices && ocl_devices[devid].used)
		return &ocl_devices[devid];
	if (fn)
		rt_error("%s: %d is not an OpenCL device of this run (-EINVAL)", fn, devid);
	return NULL;
}

struct ocl_device *ocl_device_of_node(unsigned node, const char *fn)
{
	if (starpu_node_get_kind(node) != STARPU_OPENCL_RAM)
	{
		if (fn)
			rt_error("%s: memory node %u is not an OpenCL node (-EINVAL)", fn, node);
		return NULL;
	}
	return ocl_device_used(starpu_memory_node_get_devid(node), fn);
}

/* ------------------------------------------------------------------ */
/* The worker. */

static int opencl_execute(struct worker *w, struct job *j)
{
	struct starpu_task *task = j->task;
	struct starpu_codelet *cl = task->cl;
	struct ocl_device *d = &ocl_devices[w->devid];
	starpu_opencl_func_t f = cl->opencl_funcs[j->nimpl];
	void **buffers = task->dyn_interfaces ? task->dyn_interfaces : task->interfaces;
	f(buffers, task->cl_arg);
	if (cl->opencl_flags[j->nimpl] & STARPU_OPENCL_ASYNC)
		return -EAGAIN;	/* the loop records an event after its kernels */
	cl_int err = clFinish(d->queue);
	if (err != CL_SUCCESS)
	{
		rt_error("task '%s' on %s: its kernels failed: %s (%d)", starpu_task_get_name(task), w->name,
			 starpu_opencl_error_string(err), err);
		return ocl_errno(err);
	}
	return 0;
}

static void *opencl_event_record(struct worker *w)
{
	struct ocl_device *d = &ocl_devices[w->devid];
	cl_event ev = NULL;
	cl_int err = clEnqueueMarkerWithWaitList(d->queue, 0, NULL, &ev);
	if (err == CL_SUCCESS)
		err = clFlush(d->queue);	/* polling needs the commands submitted */
	if (err != CL_SUCCESS)
	{
		rt_error("%s: cannot queue the event ending a task: %s (%d)", w->name, starpu_opencl_error_string(err), err);
		if (ev)
			clReleaseEvent(ev);
		return NULL;
	}
	return ev;
}

static int event_status(cl_event ev)
{
	cl_int status;
	cl_int err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
	if (err != CL_SUCCESS)
		return ocl_errno(err);
	if (status < 0)
		return ocl_errno(status);	/* the command failed */
	return status == CL_COMPLETE;
}

static int opencl_event_test(void *ev)
{
	return event_status(ev);
}

static int opencl_event_wait(void *ev)
{
	cl_event e = ev;
	cl_int err = clWaitForEvents(1, &e);
	if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
		return event_status(e) < 0 ? event_status(e) : -EIO;
	return ocl_errno(err);
}

static void opencl_event_release(void *ev)
{
	clReleaseEvent(ev);
}

static int opencl_sync(struct worker *w)
{
	cl_int err = clFinish(ocl_devices[w->devid].queue);
	if (err != CL_SUCCESS)
		rt_error("%s: its queued kernels failed: %s (%d)", w->name, starpu_opencl_error_string(err), err);
	return ocl_errno(err);
}

const struct drv_ops drv_opencl_ops = {
	.version = DRV_OPS_VERSION,
	.name = "opencl",
	.arch = STARPU_OPENCL_WORKER,
	.execute = opencl_execute,
	.event_record = opencl_event_record,
	.event_test = opencl_event_test,
	.event_wait = opencl_event_wait,
	.event_release = opencl_event_release,
	.sync = opencl_sync,
};

/* ------------------------------------------------------------------ */
/* The memory node. */

static uintptr_t opencl_malloc(unsigned node, size_t size, int flags)
{
	(void) flags;
	struct ocl_device *d = ocl_device_of_node(node, "OpenCL allocation");
	if (!d)
		return 0;
	cl_int err;
	/* OpenCL has no empty buffers. */
	cl_mem m = clCreateBuffer(d->context, CL_MEM_READ_WRITE, size ? size : 1, NULL, &err);
	return err == CL_SUCCESS ? (uintptr_t) m : 0;
}

static void opencl_free(unsigned node, uintptr_t addr, size_t size, int flags)
{
	(void) node;
	(void) size;
	(void) flags;
	if (addr)
		clReleaseMemObject((cl_mem) addr);
}

/* Whether a copy between these nodes may be queued (the device's copies
 * are not made synchronous by the configuration). */
static int may_queue(unsigned src_node, unsigned dst_node)
{
	unsigned node = starpu_node_get_kind(dst_node) == STARPU_OPENCL_RAM ? dst_node : src_node;
	struct ocl_device *d = ocl_device_of_node(node, NULL);
	return d && d->async_copies;
}

static int opencl_copy(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
		       unsigned dst_node, size_t size, void *async)
{
	cl_event ev = NULL;
	int queue = async && may_queue(src_node, dst_node);
	cl_int err = ocl_copy(src, src_offset, src_node, dst, dst_offset, dst_node, size, queue ? &ev : NULL);
	if (err != CL_SUCCESS)
		return ocl_errno(err);
	if (!ev)
		return 0;
	return drv_async_keep(&drv_opencl_ops, async, ev);	/* one in-order queue: the last copy ends last */
}

static int opencl_copy2d(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
			 unsigned dst_node, size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst, void *async)
{
	cl_event ev = NULL;
	int queue = async && may_queue(src_node, dst_node);
	cl_int err = ocl_copy2d(src, src_offset, src_node, dst, dst_offset, dst_node, blocksize, numblocks, ld_src,
				ld_dst, queue ? &ev : NULL);
	if (err != CL_SUCCESS)
		return ocl_errno(err);
	if (!ev)
		return 0;
	return drv_async_keep(&drv_opencl_ops, async, ev);
}

static int opencl_test(void *async)
{
	return drv_async_test(&drv_opencl_ops, async);
}

static int opencl_wait(void *async)
{
	return drv_async_wait(&drv_opencl_ops, async);
}

static ssize_t opencl_total_memory(unsigned node)
{
	struct ocl_device *d = ocl_device_of_node(node, NULL);
	return d && d->global_mem ? (ssize_t) d->global_mem : -1;
}

/* StarPU's choice of copy method between RAM and OpenCL nodes: a queued
 * copy uses the interface's _async method, else any_to_any; a synchronous
 * one the plain method, else any_to_any. */
static int opencl_copy_interface(const struct starpu_data_copy_methods *m, void *si, unsigned src_node, void *di,
				 unsigned dst_node, struct drv_async *async)
{
	enum starpu_node_kind sk = starpu_node_get_kind(src_node), dk = starpu_node_get_kind(dst_node);
	int (*sync)(void *, unsigned, void *, unsigned) = NULL;
	int (*queued)(void *, unsigned, void *, unsigned, cl_event *) = NULL;
	if (sk == STARPU_CPU_RAM && dk == STARPU_OPENCL_RAM)
		sync = m->ram_to_opencl, queued = m->ram_to_opencl_async;
	else if (sk == STARPU_OPENCL_RAM && dk == STARPU_CPU_RAM)
		sync = m->opencl_to_ram, queued = m->opencl_to_ram_async;
	else if (sk == STARPU_OPENCL_RAM && dk == STARPU_OPENCL_RAM)
		sync = m->opencl_to_opencl, queued = m->opencl_to_opencl_async;
	struct ocl_device *d = ocl_device_of_node(dk == STARPU_OPENCL_RAM ? dst_node : src_node, NULL);
	if (async && d && d->async_copies && queued)
	{
		cl_event ev = NULL;
		int ret = queued(si, src_node, di, dst_node, &ev);
		if (ev && ret == -EAGAIN)
		{
			async->ops = &drv_opencl_node_ops;
			drv_async_keep(&drv_opencl_ops, async, ev);
		}
		else if (ev)
		{
			clWaitForEvents(1, &ev);
			clReleaseEvent(ev);
			if (ret == -EAGAIN)
				ret = 0;
		}
		return ret;
	}
	if (sync && !(async && d && d->async_copies && m->any_to_any))
		return sync(si, src_node, di, dst_node);
	return -ENOSYS;
}

static void opencl_mf_format(const struct starpu_multiformat_data_interface_ops *ops, struct drv_mf_format *f)
{
	f->kind = "OpenCL";
	f->elemsize = ops->opencl_elemsize;
	f->ptr_offset = offsetof(struct starpu_multiformat_interface, opencl_ptr);
	f->to_cl = ops->cpu_to_opencl_cl;
	f->from_cl = ops->opencl_to_cpu_cl;
	f->to_name = "cpu_to_opencl_cl";
	f->from_name = "opencl_to_cpu_cl";
}

const struct drv_node_ops drv_opencl_node_ops = {
	.version = DRV_OPS_VERSION,
	.name = "opencl",
	.kind = STARPU_OPENCL_RAM,
	.malloc = opencl_malloc,
	.free = opencl_free,
	.copy = opencl_copy,
	.copy2d = opencl_copy2d,
	.test = opencl_test,
	.wait = opencl_wait,
	.total_memory = opencl_total_memory,
	.copy_interface = opencl_copy_interface,
	.mf_format = opencl_mf_format,
};

static void opencl_describe(char *buf, size_t size)
{
	discover();
	unsigned cpus = 0;
	for (unsigned i = 0; i < nfound; i++)
		cpus += (found[i].type & CL_DEVICE_TYPE_CPU) != 0;
	snprintf(buf, size, "OpenCL: %u device(s) found through the ICD loader, %u of them CPU devices "
		 "(used with STARPU_OPENCL_ON_CPUS=1)", nfound, cpus);
}

const struct drv_device_kind drv_opencl_kind = {
	.version = DRV_OPS_VERSION,
	.name = "OpenCL",
	.arch = STARPU_OPENCL_WORKER,
	.node_kind = STARPU_OPENCL_RAM,
	.worker_ops = &drv_opencl_ops,
	.node_ops = &drv_opencl_node_ops,
	.pipeline_env = "STARPU_OPENCL_PIPELINE",
	/* StarPU's default is 2. An OpenCL event costs a round trip through
	 * the implementation's own threads (about 20 us on PoCL), one per
	 * task: a deeper queue lets it finish them in batches (empty
	 * asynchronous tasks: 23 us each at 2, 7-12 at 8; a tiled GEMM on
	 * CPU + PoCL no slower). STARPU_OPENCL_PIPELINE=2 gives StarPU's. */
	.pipeline_default = 8,
	.setup = opencl_setup,
	.teardown = opencl_teardown,
	.describe = opencl_describe,
};
