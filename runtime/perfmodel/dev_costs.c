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
 */
#include "perfmodel/dev_costs.h"
#include "perfmodel/perfmodel.h"
#include "core/rt.h"
#include "data/memory.h"
#include "drivers/driver.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

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

int pm_dev_costs_measure(void)
{
	static const size_t sizes[] = { 1 * MIB, 8 * MIB, 64 * MIB };
	int ret = 0;
	for (unsigned node = 0; node < mem_nnodes && node < STARPU_MAXNODES; node++)
	{
		pm_dev_costs[node].measured = 0;
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
	}
	return ret;
}
