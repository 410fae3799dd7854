/* dev_costs.c — measuring what a device allocation costs, for the
 * simulation of this machine (dev_costs.h).
 *
 * A simulated device's allocation is charged as the real one took: the
 * driver's malloc and free (cudaMalloc/cudaFree, clCreateBuffer/release),
 * timed at a few sizes through the node driver (drivers/driver.h), so any
 * kind of device node is measured without naming it. The cost grows with
 * the size (on an H200: 2 us at 1 MiB, 99 us at 64 MiB), so a line
 * fixed + per_mib * MiB is fitted through the medians. Nodes without a
 * capacity large enough for a size skip it. Takes a few milliseconds.
 *
 * A fresh allocation may also make its first copy slower than later ones:
 * a driver that allocates lazily (PoCL: a buffer is host memory whose
 * pages the first copy touches, ten times slower than a copy into touched
 * pages) pays then what cudaMalloc pays at once. The bus calibration
 * copies into used buffers only, so that extra is measured here: REPS
 * fresh buffers of a size each copied into twice, the difference of the
 * fastest first copy and the fastest second one, per MiB (a line through
 * the origin over the sizes). About 100 ms with PoCL.
 */
#include "perfmodel/dev_costs.h"
#include "perfmodel/perfmodel.h"
#include "core/rt.h"
#include "data/memory.h"
#include "drivers/driver.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((size_t) 1 << 20)
#define REPS 7

struct pm_dev_cost pm_dev_costs[STARPU_MAXNODES];

void pm_dev_costs_fit(const double *x, const double *y, unsigned n, double *fixed, double *per_mib)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (unsigned i = 0; i < n; i++)
	{
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	double den = n * sxx - sx * sx;
	double b = n >= 2 && den > 0 ? (n * sxy - sx * sy) / den : 0.0;
	if (!(b > 0))
		b = 0.0;
	double a = n ? (sy - b * sx) / n : 0.0;
	*fixed = a > 0 ? a : 0.0;
	*per_mib = b;
}

/* The median of REPS allocations and frees of size bytes on node: 0 and
 * *us, or -ENOMEM. */
static int time_alloc(unsigned node, size_t size, double *us)
{
	const struct drv_node_ops *ops = mem_nodes[node].ops;
	double t[REPS];
	/* A first one off the clock: the driver's first allocation of a
	 * size may set a pool up. */
	for (int r = -1; r < REPS; r++)
	{
		double t0 = os_now_us();
		uintptr_t p = ops->malloc(node, size, 0);
		if (!p)
			return -ENOMEM;
		ops->free(node, p, size, 0);
		if (r >= 0)
			t[r] = os_now_us() - t0;
	}
	*us = pm_median(t, REPS);
	return 0;
}

/* The extra time of a first copy from RAM into a fresh allocation of
 * size bytes on node (µs): 0 and *us, or a negative errno. */
static int time_first_copy(unsigned node, size_t size, double *us)
{
	const struct drv_node_ops *ops = mem_nodes[node].ops;
	uintptr_t bufs[REPS] = { 0 };
	double first[REPS], again[REPS];
	int ret = -ENOMEM;
	char *ram = malloc(size);
	if (!ram)
		return -ENOMEM;
	memset(ram, 0x5a, size);
	for (int r = 0; r < REPS; r++)
		if (!(bufs[r] = ops->malloc(node, size, 0)))
			goto out;
	for (int pass = 0; pass < 2; pass++)
		for (int r = 0; r < REPS; r++)
		{
			double t0 = os_now_us();
			ret = starpu_interface_copy((uintptr_t) ram, 0, STARPU_MAIN_RAM, bufs[r], 0, node, size, NULL);
			if (ret)
				goto out;
			(pass ? again : first)[r] = os_now_us() - t0;
		}
	/* The fastest of each, as the bus's bandwidth: the least disturbed
	 * (a median of page faults on a loaded machine doubles). */
	double f = first[0], a = again[0];
	for (int r = 1; r < REPS; r++)
	{
		f = first[r] < f ? first[r] : f;
		a = again[r] < a ? again[r] : a;
	}
	*us = f > a ? f - a : 0.0;
	ret = 0;
out:
	for (int r = 0; r < REPS; r++)
		if (bufs[r])
			ops->free(node, bufs[r], size, 0);
	free(ram);
	return ret;
}

/* The first copy's extra per MiB on node, through sizes of 1 and 8 MiB
 * (those the node can hold REPS times over, with room to spare): 0, 1
 * when the node is too small for any (nothing measured), or a negative
 * errno. */
static int measure_first_copy(unsigned node)
{
	static const size_t sizes[] = { 1 * MIB, 8 * MIB };
	double sxy = 0.0, sxx = 0.0;
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		ssize_t cap = mem_nodes[node].total;
		if (cap >= 0 && (size_t) cap / (4 * REPS) < sizes[s])
			continue;
		double us = 0.0;
		int r = time_first_copy(node, sizes[s], &us);
		if (r)
			return r;
		double x = (double) (sizes[s] / MIB);
		sxy += x * us;
		sxx += x * x;
	}
	if (!(sxx > 0))
		return 1;
	pm_dev_costs[node].first_copy_us_per_mib = sxy / sxx;
	pm_dev_costs[node].first_measured = 1;
	return 0;
}

int pm_dev_costs_measure(void)
{
	static const size_t sizes[] = { 1 * MIB, 8 * MIB, 64 * MIB };
	int ret = 0;
	for (unsigned node = 0; node < mem_nnodes && node < STARPU_MAXNODES; node++)
	{
		pm_dev_costs[node].measured = 0;
		pm_dev_costs[node].first_measured = 0;
		enum starpu_node_kind k = mem_nodes[node].kind;
		if ((k != STARPU_CUDA_RAM && k != STARPU_OPENCL_RAM) || !mem_nodes[node].ops || !mem_nodes[node].ops->malloc)
			continue;
		double x[3], y[3];
		unsigned n = 0;
		for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		{
			ssize_t cap = mem_nodes[node].total;
			if (cap >= 0 && (size_t) cap / 4 < sizes[s])
				continue;
			double us;
			int r = time_alloc(node, sizes[s], &us);
			if (r)
			{
				rt_warn("bus calibration: allocating %zu bytes on memory node %u (%s) failed; its allocation "
					"cost is not measured", sizes[s], node, mem_nodes[node].name);
				ret = r;
				n = 0;
				break;
			}
			x[n] = (double) (sizes[s] / MIB);
			y[n] = us;
			n++;
		}
		if (n < 2)
			continue;
		pm_dev_costs_fit(x, y, n, &pm_dev_costs[node].fixed_us, &pm_dev_costs[node].per_mib_us);
		pm_dev_costs[node].measured = 1;
		int r = measure_first_copy(node);
		if (r < 0)
		{
			rt_warn("bus calibration: copying into fresh buffers on memory node %u (%s) failed; the cost of "
				"a first copy there is not measured", node, mem_nodes[node].name);
			ret = r;
		}
	}
	return ret;
}
