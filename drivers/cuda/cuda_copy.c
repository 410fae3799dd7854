/* cuda_copy.c — copies between RAM and GPU memory (contiguous and
 * strided) and between GPUs, on the devices' copy streams.
 *
 * Into a GPU: its `in` stream; out of it: its `out` stream; within a GPU
 * or between two: the destination's `peer` stream (cudaMemcpyPeerAsync
 * when the devices differ: direct where peer access is enabled, through
 * the host otherwise, CUDA decides). A queued copy records an event after
 * it; otherwise the stream is synchronised before returning. The device
 * whose stream is used is made current first: a copy may be made from any
 * thread.
 */
#include "drivers/cuda/cuda.h"
#include "core/rt.h"

#include <errno.h>

cudaStream_t cuda_copy_stream(unsigned src_node, unsigned dst_node, int *devid)
{
	int s = cuda_node_devid(src_node), d = cuda_node_devid(dst_node);
	*devid = -1;
	if (d >= 0 && s < 0)
	{
		*devid = d;
		return cuda_devices[d].in;
	}
	if (s >= 0 && d < 0)
	{
		*devid = s;
		return cuda_devices[s].out;
	}
	if (s >= 0 && d >= 0)
	{
		*devid = d;
		return cuda_devices[d].peer;
	}
	return NULL;
}

static int failed(cudaError_t err, const char *what, size_t size, unsigned src_node, unsigned dst_node)
{
	rt_error("CUDA %s of %zu bytes from memory node %u to %u failed: %s (%d)", what, size, src_node, dst_node,
		 cudaGetErrorString(err), (int) err);
	(void) cudaGetLastError();
	return cuda_errno(err);
}

cudaError_t cuda_event_on(cudaStream_t stream, unsigned flags, cudaEvent_t *ev)
{
	cudaError_t err = cudaEventCreateWithFlags(ev, flags);
	if (err != cudaSuccess)
	{
		*ev = NULL;
		return err;
	}
	if ((err = cudaEventRecord(*ev, stream)) != cudaSuccess)
	{
		cudaEventDestroy(*ev);
		*ev = NULL;
	}
	return err;
}

/* Ends a copy queued on stream: an event after it, or a wait (also when
 * no event can be made; a failed record is the copy's failure). */
static cudaError_t finish(cudaStream_t stream, cudaEvent_t *event)
{
	if (!event)
		return cudaStreamSynchronize(stream);
	cudaError_t err = cudaEventCreateWithFlags(event, cudaEventDisableTiming);
	if (err != cudaSuccess)
	{
		*event = NULL;
		return cudaStreamSynchronize(stream);
	}
	if ((err = cudaEventRecord(*event, stream)) != cudaSuccess)
	{
		cudaEventDestroy(*event);
		*event = NULL;
	}
	return err;
}

/* The stream and current device for a copy; -EINVAL (message) when
 * neither node is a GPU of the run. */
static int prepare(unsigned src_node, unsigned dst_node, cudaStream_t *stream)
{
	int dev;
	cudaStream_t s = cuda_copy_stream(src_node, dst_node, &dev);
	if (dev < 0 || !cuda_devices[dev].used)
	{
		rt_error("CUDA copy from memory node %u to %u: neither is a CUDA node of this run (-EINVAL)", src_node, dst_node);
		return -EINVAL;
	}
	cudaSetDevice(dev);
	if (!*stream)
		*stream = s;
	return 0;
}

int cuda_copy(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset, unsigned dst_node,
	      size_t size, cudaStream_t stream, cudaEvent_t *event)
{
	if (event)
		*event = NULL;
	if (size == 0)
		return 0;
	int ret = prepare(src_node, dst_node, &stream);
	if (ret)
		return ret;
	int s = cuda_node_devid(src_node), d = cuda_node_devid(dst_node);
	const char *from = (const char *) src + src_offset;
	char *to = (char *) dst + dst_offset;
	cudaError_t err;
	if (s >= 0 && d >= 0 && s != d)
		err = cudaMemcpyPeerAsync(to, d, from, s, size, stream);
	else
		err = cudaMemcpyAsync(to, from, size, s < 0 ? cudaMemcpyHostToDevice : d < 0 ? cudaMemcpyDeviceToHost
							      : cudaMemcpyDeviceToDevice, stream);
	if (err == cudaSuccess)
		err = finish(stream, event);
	return err == cudaSuccess ? 0 : failed(err, "copy", size, src_node, dst_node);
}

int cuda_copy2d(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
		unsigned dst_node, size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst, cudaStream_t stream,
		cudaEvent_t *event)
{
	if (event)
		*event = NULL;
	if (numblocks <= 1 || (ld_src == blocksize && ld_dst == blocksize))
		return cuda_copy(src, src_offset, src_node, dst, dst_offset, dst_node, blocksize * numblocks, stream, event);
	if (blocksize == 0)
		return 0;
	int ret = prepare(src_node, dst_node, &stream);
	if (ret)
		return ret;
	int s = cuda_node_devid(src_node), d = cuda_node_devid(dst_node);
	const char *from = (const char *) src + src_offset;
	char *to = (char *) dst + dst_offset;
	cudaError_t err = cudaSuccess;
	if (s >= 0 && d >= 0 && s != d)
	{
		/* Between two devices: row by row (no strided peer copy). */
		for (size_t i = 0; i < numblocks && err == cudaSuccess; i++)
			err = cudaMemcpyPeerAsync(to + i * ld_dst, d, from + i * ld_src, s, blocksize, stream);
	}
	else
		err = cudaMemcpy2DAsync(to, ld_dst, from, ld_src, blocksize, numblocks,
					s < 0 ? cudaMemcpyHostToDevice : d < 0 ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice,
					stream);
	if (err == cudaSuccess)
		err = finish(stream, event);
	return err == cudaSuccess ? 0 : failed(err, "strided copy", blocksize * numblocks, src_node, dst_node);
}
