/* dev_costs.h — what a device allocation costs on this machine, measured
 * with the bus (dev_costs.c) and written into the platform file as
 * properties of the device's host (platform.c), where a simulation of the
 * machine reads them (sim/README.md, "Overheads"). */
#ifndef VELA_DEV_COSTS_H
#define VELA_DEV_COSTS_H

#include <starpu.h>

/* The platform properties (µs, and µs per MiB allocated). */
#define PM_PROP_MALLOC_US "malloc_cost_us"
#define PM_PROP_MALLOC_US_PER_MIB "malloc_cost_us_per_mib"
/* 1: the device's copies run on the engine of its kernels, one after the
 * other (drv_device.copies_on_compute); written only when 1. */
#define PM_PROP_COPIES_ON_COMPUTE "copies_on_compute"
/* µs per MiB that the first copy into a fresh allocation takes beyond a
 * copy into a buffer already used (the pages of memory the device's
 * driver allocates lazily: PoCL's buffers are host memory touched first
 * by that copy); written when measured. */
#define PM_PROP_FIRST_COPY_US_PER_MIB "first_copy_us_per_mib"

/* Per memory node: an allocation of s MiB followed by its free costs
 * fixed_us + per_mib_us * s (a least-squares line through a few sizes). */
struct pm_dev_cost
{
	int measured;
	double fixed_us, per_mib_us;
	/* The first copy into a fresh allocation (first_measured: its
	 * measure succeeded). */
	int first_measured;
	double first_copy_us_per_mib;
	/* What the device's driver said when the run set it up (not
	 * measured; kept by pm_dev_costs_measure). */
	int copies_on_compute;
};
extern struct pm_dev_cost pm_dev_costs[STARPU_MAXNODES];

/* Measures every device node's (CUDA, OpenCL) allocation cost through its
 * node driver's malloc and free, and what the first copy from RAM into a
 * fresh allocation takes beyond later ones. 0, or a negative errno (an
 * allocation or a copy failed: nothing is recorded for that node). */
int pm_dev_costs_measure(void);

/* Fits fixed + per_mib * x through the points (x MiB, y µs) by least
 * squares; a slope needs two distinct x (else 0); both clamped at 0. */
void pm_dev_costs_fit(const double *x, const double *y, unsigned n, double *fixed, double *per_mib);

#endif /* VELA_DEV_COSTS_H */
