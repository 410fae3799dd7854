/* driver_cuda.c — NVIDIA GPUs as workers and memory nodes: the device kind
 * (finding and setting up the devices), the worker driver (a codelet's
 * cuda_funcs on the worker's stream, events for asynchronous ones), the
 * node driver (cudaMalloc'd buffers, copies on the device's copy streams,
 * per-kind copy methods, peers) and pinned host memory. Tasks and copies
 * in flight are the common layer's (drivers/device.c, data/transfer.c).
 *
 * Which devices: all by default; STARPU_WORKERS_CUDAID
 * (conf.workers_cuda_gpuid) picks them by number, STARPU_NCUDA
 * (conf.ncuda) caps how many (more than present: a warning, the ones
 * there are used); STARPU_NWORKER_PER_CUDA workers share each.
 */
#include "drivers/cuda/cuda.h"
#include "drivers/driver.h"
#include "core/conf.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern const struct drv_node_ops drv_cuda_node_ops;

struct cuda_device cuda_devices[STARPU_MAXCUDADEVS];
struct cuda_worker cuda_workers[STARPU_NMAXWORKERS];
static int ndevices = -1;	/* counted once per process */
static cudaError_t count_error;	/* why CUDA sees none */
static os_mutex_t count_lock = OS_MUTEX_INITIALIZER;

int cuda_errno(cudaError_t err)
{
	switch (err)
	{
	case cudaSuccess:
		return 0;
	case cudaErrorMemoryAllocation:
		return -ENOMEM;
	case cudaErrorInvalidValue:
	case cudaErrorInvalidDevicePointer:
	case cudaErrorInvalidMemcpyDirection:
		return -EINVAL;
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
		return -ENODEV;
	default:
		return -EIO;
	}
}

/* How many devices CUDA sees: none when the driver is missing (the count
 * is then left unset by CUDA, and the error cleared). */
static int count_devices(void)
{
	os_mutex_lock(&count_lock);
	if (ndevices < 0)
	{
		int n = 0;
		if ((count_error = cudaGetDeviceCount(&n)) != cudaSuccess)
		{
			n = 0;
			(void) cudaGetLastError();
		}
		ndevices = n > STARPU_MAXCUDADEVS ? STARPU_MAXCUDADEVS : n;
	}
	os_mutex_unlock(&count_lock);
	return ndevices;
}

int cuda_node_devid(unsigned node)
{
	return starpu_node_get_kind(node) == STARPU_CUDA_RAM ? starpu_memory_node_get_devid(node) : -1;
}

struct cuda_device *cuda_device_of_node(unsigned node, const char *fn)
{
	int dev = cuda_node_devid(node);
	if (dev >= 0 && dev < STARPU_MAXCUDADEVS && cuda_devices[dev].used)
		return &cuda_devices[dev];
	if (fn)
		rt_error("%s: memory node %u is not a CUDA node of this run (-EINVAL)", fn, node);
	return NULL;
}

static void release_device(int dev)
{
	struct cuda_device *d = &cuda_devices[dev];
	if (!d->used)
		return;
	cudaSetDevice(dev);
	if (d->in)
		cudaStreamDestroy(d->in);
	if (d->out)
		cudaStreamDestroy(d->out);
	if (d->peer)
		cudaStreamDestroy(d->peer);
	memset(d, 0, sizeof(*d));
}

static void cuda_teardown(void)
{
	for (int dev = 0; dev < STARPU_MAXCUDADEVS; dev++)
		release_device(dev);
}

static int setup_device(int dev, int async)
{
	struct cuda_device *d = &cuda_devices[dev];
	memset(d, 0, sizeof(*d));
	cudaError_t err = cudaSetDevice(dev);
	if (err == cudaSuccess)
		err = cudaGetDeviceProperties(&d->prop, dev);
	if (err == cudaSuccess)
		err = cudaStreamCreateWithFlags(&d->in, cudaStreamNonBlocking);
	if (err == cudaSuccess)
		err = cudaStreamCreateWithFlags(&d->out, cudaStreamNonBlocking);
	if (err == cudaSuccess)
		err = cudaStreamCreateWithFlags(&d->peer, cudaStreamNonBlocking);
	d->used = 1;
	if (err != cudaSuccess)
	{
		rt_error("starpu_init: CUDA device %d could not be set up: %s (%d)", dev, cudaGetErrorString(err), (int) err);
		(void) cudaGetLastError();
		release_device(dev);
		return cuda_errno(err);
	}
	d->async_copies = async;
	return 0;
}

/* Direct copies between the run's devices, where CUDA allows them and
 * STARPU_ENABLE_CUDA_GPU_GPU_DIRECT (default 1) does not forbid them. */
static void enable_peers(const int *devs, unsigned n)
{
	const char *s = getenv("STARPU_ENABLE_CUDA_GPU_GPU_DIRECT");
	if (s && !strcmp(s, "0"))
		return;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++)
		{
			int a = devs[i], b = devs[j], can = 0;
			if (a == b || cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || !can)
				continue;
			cudaSetDevice(a);
			cudaError_t err = cudaDeviceEnablePeerAccess(b, 0);
			if (err == cudaSuccess || err == cudaErrorPeerAccessAlreadyEnabled)
				cuda_devices[a].peers[b] = 1;
			(void) cudaGetLastError();
		}
}

/* What the runtime may allocate on a GPU: what is free once the context
 * exists, less room for what the libraries and kernels allocate themselves
 * (cuBLAS workspaces, local memory): 5% of the GPU, at least 256 MiB. */
static ssize_t usable_memory(int dev)
{
	size_t free_b = 0, total = 0;
	cudaSetDevice(dev);
	if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return (ssize_t) cuda_devices[dev].prop.totalGlobalMem;
	}
	size_t margin = total / 20 > ((size_t) 256 << 20) ? total / 20 : (size_t) 256 << 20;
	return free_b > margin ? (ssize_t) (free_b - margin) : (ssize_t) free_b / 2;
}

static int cuda_setup(const struct starpu_conf *conf, struct drv_device *out, unsigned max)
{
	long per = 1;
	const char *s = getenv("STARPU_NWORKER_PER_CUDA");
	if (s && *s)
	{
		char *end;
		per = strtol(s, &end, 10);
		if (*end || per < 1 || per > 16)
		{
			rt_error("starpu_init: STARPU_NWORKER_PER_CUDA='%s' must be a number of workers between 1 and 16 (-EINVAL)", s);
			return -EINVAL;
		}
	}
	if (conf->ncuda == 0)
		return 0;	/* CUDA is not even asked */
	int avail = count_devices();
	int candidates[STARPU_MAXCUDADEVS];
	unsigned ncand = 0;
	if (conf->use_explicit_workers_cuda_gpuid)
	{
		for (unsigned i = 0; i < conf->use_explicit_workers_cuda_gpuid && ncand < STARPU_MAXCUDADEVS; i++)
		{
			unsigned id = conf->workers_cuda_gpuid[i];
			if ((int) id >= avail)
			{
				rt_error("starpu_init: STARPU_WORKERS_CUDAID / conf.workers_cuda_gpuid names CUDA device %u, but %d "
					 "were found (-EINVAL)", id, avail);
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
		for (int i = 0; i < avail; i++)
			candidates[ncand++] = i;
	unsigned wanted = conf->ncuda < 0 ? ncand : (unsigned) conf->ncuda;
	if (wanted > ncand)
	{
		rt_warn("starpu_init: %u CUDA device(s) requested (STARPU_NCUDA / conf.ncuda), %u found; using %u", wanted, ncand,
			ncand);
		wanted = ncand;
	}
	if (wanted > max)
		wanted = max;
	int async = !(conf->disable_asynchronous_copy > 0 || conf->disable_asynchronous_cuda_copy > 0);
	for (unsigned i = 0; i < wanted; i++)
	{
		int ret = setup_device(candidates[i], async);
		if (ret)
		{
			cuda_teardown();
			return ret;
		}
		struct cuda_device *d = &cuda_devices[candidates[i]];
		out[i].devid = candidates[i];
		out[i].memsize = usable_memory(candidates[i]);
		out[i].nworkers = (unsigned) per;
		snprintf(out[i].name, sizeof(out[i].name), "%s", d->prop.name);
	}
	enable_peers(candidates, wanted);
	return (int) wanted;
}

/* ------------------------------------------------------------------ */
/* The worker. */

static int cuda_worker_init(struct worker *w)
{
	cudaError_t err = cudaSetDevice(w->devid);
	if (err == cudaSuccess)
		err = cudaStreamCreateWithFlags(&cuda_workers[w->id].stream, cudaStreamNonBlocking);
	if (err != cudaSuccess)
	{
		rt_error("%s: cannot set its device up: %s (%d)", w->name, cudaGetErrorString(err), (int) err);
		(void) cudaGetLastError();
		return cuda_errno(err);
	}
	return 0;
}

static int cuda_worker_deinit(struct worker *w)
{
	struct cuda_worker *c = &cuda_workers[w->id];
	if (c->stream)
	{
		cudaStreamSynchronize(c->stream);
		cudaStreamDestroy(c->stream);
	}
	c->stream = NULL;
	return 0;
}

static int cuda_execute(struct worker *w, struct job *j)
{
	struct starpu_task *task = j->task;
	struct starpu_codelet *cl = task->cl;
	starpu_cuda_func_t f = cl->cuda_funcs[j->nimpl];
	void **buffers = task->dyn_interfaces ? task->dyn_interfaces : task->interfaces;
	f(buffers, task->cl_arg);
	cudaError_t err = cudaGetLastError();	/* a launch that failed */
	if (err == cudaSuccess && !(cl->cuda_flags[j->nimpl] & STARPU_CUDA_ASYNC))
		err = cudaStreamSynchronize(cuda_workers[w->id].stream);
	if (err != cudaSuccess)
	{
		rt_error("task '%s' on %s: its kernels failed: %s (%d)", starpu_task_get_name(task), w->name,
			 cudaGetErrorString(err), (int) err);
		return cuda_errno(err);
	}
	return cl->cuda_flags[j->nimpl] & STARPU_CUDA_ASYNC ? -EAGAIN : 0;
}

/* An event after what w queued so far; NULL (said) on failure. */
static void *record_on_worker(struct worker *w, unsigned flags, const char *what)
{
	cudaEvent_t ev;
	cudaError_t err = cuda_event_on(cuda_workers[w->id].stream, flags, &ev);
	if (err != cudaSuccess)
		rt_error("%s: cannot record %s: %s (%d)", w->name, what, cudaGetErrorString(err), (int) err);
	return ev;
}

static void *cuda_event_record(struct worker *w)
{
	return record_on_worker(w, cudaEventDisableTiming, "the event ending a task");
}

static int event_test(cudaEvent_t ev)
{
	cudaError_t err = cudaEventQuery(ev);
	if (err == cudaSuccess)
		return 1;
	if (err == cudaErrorNotReady)
		return 0;
	return cuda_errno(err);
}

static int cuda_event_test(void *ev)
{
	return event_test(ev);
}

static int cuda_event_wait(void *ev)
{
	return cuda_errno(cudaEventSynchronize(ev));
}

static void cuda_event_release(void *ev)
{
	cudaEventDestroy(ev);
}

/* Timed events (driver.h): a measured asynchronous task's kernels are
 * timed on the device, behind the kernels queued before them. */
static void *cuda_event_record_timed(struct worker *w)
{
	return record_on_worker(w, cudaEventDefault, "an event timing a measured task");
}

static double cuda_event_elapsed_us(void *start, void *end)
{
	float ms = 0.0f;
	return cudaEventElapsedTime(&ms, start, end) == cudaSuccess ? 1000.0 * ms : -1.0;
}

static int cuda_sync(struct worker *w)
{
	cudaError_t err = cudaStreamSynchronize(cuda_workers[w->id].stream);
	if (err != cudaSuccess)
		rt_error("%s: its queued kernels failed: %s (%d)", w->name, cudaGetErrorString(err), (int) err);
	return cuda_errno(err);
}

const struct drv_ops drv_cuda_ops = {
	.version = DRV_OPS_VERSION,
	.name = "cuda",
	.arch = STARPU_CUDA_WORKER,
	.init = cuda_worker_init,
	.deinit = cuda_worker_deinit,
	.execute = cuda_execute,
	.event_record = cuda_event_record,
	.event_test = cuda_event_test,
	.event_wait = cuda_event_wait,
	.event_release = cuda_event_release,
	.event_record_timed = cuda_event_record_timed,
	.event_elapsed_us = cuda_event_elapsed_us,
	.sync = cuda_sync,
};

/* ------------------------------------------------------------------ */
/* The memory node. */

static uintptr_t cuda_malloc(unsigned node, size_t size, int flags)
{
	(void) flags;
	int dev = cuda_node_devid(node);
	void *p = NULL;
	if (dev < 0 || cudaSetDevice(dev) != cudaSuccess || cudaMalloc(&p, size ? size : 1) != cudaSuccess)
	{
		(void) cudaGetLastError();	/* out of memory is not sticky: clear it */
		return 0;
	}
	return (uintptr_t) p;
}

static void cuda_free(unsigned node, uintptr_t addr, size_t size, int flags)
{
	(void) size;
	(void) flags;
	int dev = cuda_node_devid(node);
	if (dev >= 0 && addr)
	{
		cudaSetDevice(dev);
		cudaFree((void *) addr);
	}
}

static int may_queue(unsigned src_node, unsigned dst_node)
{
	struct cuda_device *d = cuda_device_of_node(starpu_node_get_kind(dst_node) == STARPU_CUDA_RAM ? dst_node : src_node, NULL);
	return d && d->async_copies;
}

static int cuda_node_copy(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
			  unsigned dst_node, size_t size, void *async)
{
	cudaEvent_t ev = NULL;
	int queue = async && may_queue(src_node, dst_node);
	int ret = cuda_copy(src, src_offset, src_node, dst, dst_offset, dst_node, size, NULL, queue ? &ev : NULL);
	if (ret || !ev)
		return ret;
	return drv_async_keep(&drv_cuda_ops, async, ev);	/* one stream: the last copy ends last */
}

static int cuda_node_copy2d(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
			    unsigned dst_node, size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst, void *async)
{
	cudaEvent_t ev = NULL;
	int queue = async && may_queue(src_node, dst_node);
	int ret = cuda_copy2d(src, src_offset, src_node, dst, dst_offset, dst_node, blocksize, numblocks, ld_src, ld_dst,
			      NULL, queue ? &ev : NULL);
	if (ret || !ev)
		return ret;
	return drv_async_keep(&drv_cuda_ops, async, ev);
}

static int cuda_node_test(void *async)
{
	return drv_async_test(&drv_cuda_ops, async);
}

static int cuda_node_wait(void *async)
{
	return drv_async_wait(&drv_cuda_ops, async);
}

static ssize_t cuda_total_memory(unsigned node)
{
	struct cuda_device *d = cuda_device_of_node(node, NULL);
	return d ? (ssize_t) d->prop.totalGlobalMem : -1;
}

/* StarPU's choice of copy method: a queued copy uses the interface's
 * _async method on the copy stream, else any_to_any; a synchronous one
 * the plain method, else any_to_any. */
static int cuda_copy_interface(const struct starpu_data_copy_methods *m, void *si, unsigned src_node, void *di,
			       unsigned dst_node, struct drv_async *async)
{
	enum starpu_node_kind sk = starpu_node_get_kind(src_node), dk = starpu_node_get_kind(dst_node);
	int (*sync)(void *, unsigned, void *, unsigned) = NULL;
	int (*queued)(void *, unsigned, void *, unsigned, cudaStream_t) = NULL;
	if (sk == STARPU_CPU_RAM && dk == STARPU_CUDA_RAM)
		sync = m->ram_to_cuda, queued = m->ram_to_cuda_async;
	else if (sk == STARPU_CUDA_RAM && dk == STARPU_CPU_RAM)
		sync = m->cuda_to_ram, queued = m->cuda_to_ram_async;
	else if (sk == STARPU_CUDA_RAM && dk == STARPU_CUDA_RAM)
		sync = m->cuda_to_cuda, queued = m->cuda_to_cuda_async;
	int queue = async && may_queue(src_node, dst_node);
	if (queue && queued)
	{
		int dev;
		cudaStream_t stream = cuda_copy_stream(src_node, dst_node, &dev);
		if (dev >= 0)
			cudaSetDevice(dev);
		int ret = queued(si, src_node, di, dst_node, stream);
		if (ret == 0 || ret == -EAGAIN)
		{
			cudaEvent_t ev;
			if (cuda_event_on(stream, cudaEventDisableTiming, &ev) != cudaSuccess)
				return cuda_errno(cudaStreamSynchronize(stream));
			async->ops = &drv_cuda_node_ops;
			return drv_async_keep(&drv_cuda_ops, async, ev);
		}
		return ret;
	}
	if (sync && !(queue && m->any_to_any))
		return sync(si, src_node, di, dst_node);
	return -ENOSYS;
}

static int cuda_peer(unsigned src_node, unsigned dst_node)
{
	int s = cuda_node_devid(src_node), d = cuda_node_devid(dst_node);
	return s >= 0 && d >= 0 && s != d && cuda_devices[s].peers[d];
}

static void cuda_mf_format(const struct starpu_multiformat_data_interface_ops *ops, struct drv_mf_format *f)
{
	f->kind = "CUDA";
	f->elemsize = ops->cuda_elemsize;
	f->ptr_offset = offsetof(struct starpu_multiformat_interface, cuda_ptr);
	f->to_cl = ops->cpu_to_cuda_cl;
	f->from_cl = ops->cuda_to_cpu_cl;
	f->to_name = "cpu_to_cuda_cl";
	f->from_name = "cuda_to_cpu_cl";
}

const struct drv_node_ops drv_cuda_node_ops = {
	.version = DRV_OPS_VERSION,
	.name = "cuda",
	.kind = STARPU_CUDA_RAM,
	.malloc = cuda_malloc,
	.free = cuda_free,
	.copy = cuda_node_copy,
	.copy2d = cuda_node_copy2d,
	.test = cuda_node_test,
	.wait = cuda_node_wait,
	.total_memory = cuda_total_memory,
	.copy_interface = cuda_copy_interface,
	.peer = cuda_peer,
	.mf_format = cuda_mf_format,
};

/* ------------------------------------------------------------------ */
/* Pinned host memory: what starpu_malloc gives while the run has CUDA
 * devices. The pointers are remembered (a small open-addressing set), so
 * that starpu_free knows which to hand back to CUDA. */

static os_mutex_t pinned_lock = OS_MUTEX_INITIALIZER;
static void **pinned;		/* the set, NULL = empty slot, (void *) 1 = removed */
static size_t pinned_cap, pinned_n, pinned_used;

static size_t slot_of(void *p, size_t cap)
{
	return ((uintptr_t) p >> 4) * 11400714819323198485ull >> 7 & (cap - 1);
}

static int pinned_grow(void)
{
	size_t cap = pinned_cap ? pinned_cap * 2 : 256;
	void **set = calloc(cap, sizeof(void *));
	if (!set)
		return -ENOMEM;
	for (size_t i = 0; i < pinned_cap; i++)
		if (pinned[i] && pinned[i] != (void *) 1)
		{
			size_t k = slot_of(pinned[i], cap);
			while (set[k])
				k = (k + 1) & (cap - 1);
			set[k] = pinned[i];
		}
	free(pinned);
	pinned = set;
	pinned_cap = cap;
	pinned_used = pinned_n;
	return 0;
}

static int cuda_host_alloc(void **ptr, size_t size)
{
	int active = 0;
	for (int d = 0; d < STARPU_MAXCUDADEVS; d++)
		active |= cuda_devices[d].used;
	if (!active)
		return -ENODEV;
	os_mutex_lock(&pinned_lock);
	if ((pinned_used + 1) * 2 > pinned_cap && pinned_grow())
	{
		os_mutex_unlock(&pinned_lock);
		return -ENOMEM;
	}
	cudaError_t err = cudaHostAlloc(ptr, size, cudaHostAllocPortable);
	if (err != cudaSuccess)
	{
		(void) cudaGetLastError();
		os_mutex_unlock(&pinned_lock);
		return cuda_errno(err);
	}
	size_t k = slot_of(*ptr, pinned_cap);
	while (pinned[k] && pinned[k] != (void *) 1)
		k = (k + 1) & (pinned_cap - 1);
	if (!pinned[k])
		pinned_used++;
	pinned[k] = *ptr;
	__atomic_add_fetch(&pinned_n, 1, __ATOMIC_RELAXED);
	os_mutex_unlock(&pinned_lock);
	return 0;
}

static int cuda_host_free(void *ptr)
{
	if (!__atomic_load_n(&pinned_n, __ATOMIC_RELAXED))
		return 0;
	os_mutex_lock(&pinned_lock);
	int found = 0;
	if (pinned_cap)
		for (size_t k = slot_of(ptr, pinned_cap); pinned[k]; k = (k + 1) & (pinned_cap - 1))
			if (pinned[k] == ptr)
			{
				pinned[k] = (void *) 1;
				__atomic_sub_fetch(&pinned_n, 1, __ATOMIC_RELAXED);
				found = 1;
				break;
			}
	os_mutex_unlock(&pinned_lock);
	if (found)
		cudaFreeHost(ptr);
	return found;
}

static int cuda_host_register(void *ptr, size_t size)
{
	int active = 0;
	for (int d = 0; d < STARPU_MAXCUDADEVS; d++)
		active |= cuda_devices[d].used;
	if (!active)
		return -ENODEV;
	cudaError_t err = cudaHostRegister(ptr, size, cudaHostRegisterPortable);
	if (err != cudaSuccess)
	{
		rt_error("starpu_memory_pin: %zu bytes at %p cannot be pinned: %s (%d)", size, ptr, cudaGetErrorString(err), (int) err);
		(void) cudaGetLastError();
	}
	return cuda_errno(err);
}

static int cuda_host_unregister(void *ptr)
{
	int active = 0;
	for (int d = 0; d < STARPU_MAXCUDADEVS; d++)
		active |= cuda_devices[d].used;
	if (!active)
		return -ENODEV;
	cudaError_t err = cudaHostUnregister(ptr);
	if (err != cudaSuccess)
	{
		rt_error("starpu_memory_unpin: %p was not pinned: %s (%d)", ptr, cudaGetErrorString(err), (int) err);
		(void) cudaGetLastError();
	}
	return cuda_errno(err);
}

static void cuda_describe(char *buf, size_t size)
{
	int n = count_devices();
	if (n == 0)
		snprintf(buf, size, "CUDA: no GPU usable (%s)",
			 count_error != cudaSuccess ? cudaGetErrorString(count_error) : "CUDA sees no device");
	else
		snprintf(buf, size, "CUDA: %d GPU(s) found (STARPU_NCUDA, STARPU_WORKERS_CUDAID choose)", n);
}

const struct drv_device_kind drv_cuda_kind = {
	.version = DRV_OPS_VERSION,
	.name = "CUDA",
	.arch = STARPU_CUDA_WORKER,
	.node_kind = STARPU_CUDA_RAM,
	.worker_ops = &drv_cuda_ops,
	.node_ops = &drv_cuda_node_ops,
	.pipeline_env = "STARPU_CUDA_PIPELINE",
	.pipeline_default = 2,
	.setup = cuda_setup,
	.teardown = cuda_teardown,
	.host_alloc = cuda_host_alloc,
	.host_free = cuda_host_free,
	.host_register = cuda_host_register,
	.host_unregister = cuda_host_unregister,
	.describe = cuda_describe,
};
