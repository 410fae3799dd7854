/* bus_calibrate.c — measuring the bus: bandwidth and latency of copies
 * between every ordered pair of memory nodes, through the nodes' own copy
 * functions (drivers/driver.h, via starpu_interface_copy), so that a new
 * kind of node (disk, device) is measured without changing this file.
 *
 * Bandwidth: a buffer larger than the last-level cache copied a few times
 * (the best run counts: the others were disturbed). Latency: many one-byte
 * copies (the median of several batches). Within RAM this is memcpy's
 * speed; it goes on the diagonal of the matrices. The whole measurement
 * takes well under a second per pair of RAM-like nodes.
 */
#include "perfmodel/perfmodel.h"
#include "core/rt.h"
#include "data/memory.h"
#include "drivers/driver.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BW_BYTES (64u << 20)	/* above any last-level cache we know */
#define BW_RUNS 4
#define LAT_COPIES 200
#define LAT_BATCHES 5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

double pm_median(double *v, unsigned n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return v[n / 2];
}

/* Fills a node's buffer (RAM directly, others by a copy from RAM). */
static int fill(unsigned node, uintptr_t buf, size_t size, uintptr_t ram_scratch)
{
	if (mem_nodes[node].kind == STARPU_CPU_RAM)
	{
		memset((void *) buf, 0x5a, size);
		return 0;
	}
	return starpu_interface_copy(ram_scratch, 0, STARPU_MAIN_RAM, buf, 0, node, size, NULL);
}

/*
 * A buffer on node. In RAM, pinned when a device of the run gives pinned
 * memory (as starpu_malloc does then, and as the data an application
 * registers usually is): the bus is measured as the copies will run.
 */
static uintptr_t buf_alloc(unsigned node, size_t size)
{
	void *p = NULL;
	if (mem_nodes[node].kind == STARPU_CPU_RAM && drv_host_alloc(&p, size) == 0)
		return (uintptr_t) p;
	return mem_alloc(node, size, 0);
}

static void buf_free(unsigned node, uintptr_t buf, size_t size)
{
	if (buf && mem_nodes[node].kind == STARPU_CPU_RAM && drv_host_free((void *) buf))
		return;
	mem_free(node, buf, size, 0);
}

static int measure_pair(unsigned src, unsigned dst, size_t size, double *bw, double *lat)
{
	int ret = -ENOMEM;
	uintptr_t s = buf_alloc(src, size);
	uintptr_t d = buf_alloc(dst, size);
	uintptr_t scratch = buf_alloc(STARPU_MAIN_RAM, size);
	if (!s || !d || !scratch)
		goto out;
	memset((void *) scratch, 0xa5, size);
	if ((ret = fill(src, s, size, scratch)) || (ret = fill(dst, d, size, scratch)))
		goto out;
	/* Warm up (page faults, driver setup), then the timed runs. */
	if ((ret = starpu_interface_copy(s, 0, src, d, 0, dst, size, NULL)))
		goto out;
	double best = INFINITY;
	for (int r = 0; r < BW_RUNS; r++)
	{
		double t0 = os_now_us();
		if ((ret = starpu_interface_copy(s, 0, src, d, 0, dst, size, NULL)))
			goto out;
		double t = os_now_us() - t0;
		if (t < best)
			best = t;
	}
	*bw = best > 0 ? (double) size / best : NAN;

	double batches[LAT_BATCHES];
	for (int b = 0; b < LAT_BATCHES; b++)
	{
		double t0 = os_now_us();
		for (int k = 0; k < LAT_COPIES; k++)
			if ((ret = starpu_interface_copy(s, (size_t) k, src, d, (size_t) k, dst, 1, NULL)))
				goto out;
		batches[b] = (os_now_us() - t0) / LAT_COPIES;
	}
	*lat = pm_median(batches, LAT_BATCHES);
	ret = 0;
out:
	buf_free(src, s, size);
	buf_free(dst, d, size);
	buf_free(STARPU_MAIN_RAM, scratch, size);
	return ret;
}

int pm_bus_measure(struct pm_bus *b, int progress)
{
	for (unsigned i = 0; i < STARPU_MAXNODES; i++)
		for (unsigned j = 0; j < STARPU_MAXNODES; j++)
			b->bandwidth[i][j] = b->latency[i][j] = NAN;
	b->nnodes = mem_nnodes;
	if (progress)
		fprintf(stderr, "[vela] calibrating the bus (%u memory node%s, stored in %s)... ", mem_nnodes,
			mem_nnodes > 1 ? "s" : "", pm_conf.sampling_dir);
	double t0 = os_now_us();
	for (unsigned i = 0; i < mem_nnodes; i++)
		for (unsigned j = 0; j < mem_nnodes; j++)
		{
			/* Two disks (or a disk and itself) do not copy to each
			 * other: data goes through RAM, whose links are measured. */
			if (mem_nodes[i].kind == STARPU_DISK_RAM && mem_nodes[j].kind == STARPU_DISK_RAM)
				continue;
			/* Likewise two devices that cannot copy to each other
			 * (a CUDA and an OpenCL node, GPUs without peer access):
			 * their data goes through RAM too. */
			if (i != j && !mem_direct_copy(i, j))
				continue;
			size_t size = BW_BYTES;
			/* Small nodes (a device with little memory) get a smaller
			 * buffer: a quarter of their capacity. */
			ssize_t cap = mem_nodes[i].total < mem_nodes[j].total ? mem_nodes[i].total : mem_nodes[j].total;
			if (cap > 0 && (size_t) cap / 4 < size)
				size = (size_t) cap / 4;
			double bw, lat;
			int ret = measure_pair(i, j, size, &bw, &lat);
			if (ret)
			{
				if (progress)
					fprintf(stderr, "failed\n");
				rt_error("bus calibration: copying %zu bytes from node %u to node %u failed (%d)", size, i, j, ret);
				return ret;
			}
			b->bandwidth[i][j] = bw;
			b->latency[i][j] = lat;
		}
	/* Devices that copy through RAM: both hops, one after the other. */
	for (unsigned i = 0; i < mem_nnodes; i++)
		for (unsigned j = 0; j < mem_nnodes; j++)
			if (i != j && isnan(b->bandwidth[i][j]) && mem_nodes[i].kind != STARPU_DISK_RAM
			    && mem_nodes[j].kind != STARPU_DISK_RAM && b->bandwidth[i][STARPU_MAIN_RAM] > 0.0
			    && b->bandwidth[STARPU_MAIN_RAM][j] > 0.0)
			{
				b->bandwidth[i][j] = 1.0 / (1.0 / b->bandwidth[i][STARPU_MAIN_RAM]
							    + 1.0 / b->bandwidth[STARPU_MAIN_RAM][j]);
				b->latency[i][j] = b->latency[i][STARPU_MAIN_RAM] + b->latency[STARPU_MAIN_RAM][j];
			}
	if (progress)
		fprintf(stderr, "done in %.2f s\n", (os_now_us() - t0) / 1e6);
	return 0;
}
