/* platform.c — the SimGrid v4 platform file of this machine, from the
 * topology and the measured bus: what sim/ loads to simulate the machine,
 * and the format of the example machines in platforms/.
 *
 * Conventions (those of StarPU's platform files, which the simulated
 * drivers follow):
 *   - one host per CPU core, "CPU0".."CPUn-1", and "MAIN" for the
 *     application's main thread;
 *   - one host per memory node: "RAM" for main memory, "CUDA<i>" and
 *     "OpenCL<i>" for devices, "MPI_MS<i>" for MPI slaves' memory, "DISK<i>"
 *     for disks, with properties
 *     memsize (bytes) and, for devices, model, and where measured
 *     malloc_cost_us, malloc_cost_us_per_mib and first_copy_us_per_mib
 *     (dev_costs.h), and
 *     copies_on_compute=1 for a device whose copies run on the engine of
 *     its kernels (PoCL's CPU device);
 *   - an MPI slave's cores: "MPI_MS<i>_CPU<k>", one per worker it runs;
 *   - per ordered pair of memory nodes a link "<src>-<dst>" with the
 *     measured bandwidth and latency, and the route through it;
 *     "RAM-RAM" carries the copy speed within main memory;
 *   - the network model CM02 with factors 1, so that a transfer lasts
 *     latency + size / bandwidth exactly, and links are shared fairly.
 */
#include "perfmodel/perfmodel.h"
#include "perfmodel/dev_costs.h"
#include "core/conf.h"
#include "core/rt.h"
#include "core/workers.h"
#include "data/memory.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The platform host of a memory node (the conventions above): 0, or
 * -EINVAL with "NODE<n>" written for a node kind platforms do not name.
 * Simulation finds a node's host with it too (core/sim_loader.c). */
int pm_node_host(unsigned node, char *buf, size_t size)
{
	int dev = node < mem_nnodes ? mem_nodes[node].devid : 0;
	switch (node < mem_nnodes ? mem_nodes[node].kind : STARPU_UNUSED)
	{
	case STARPU_CPU_RAM:
		if (dev == 0)
			snprintf(buf, size, "RAM");
		else
			snprintf(buf, size, "RAM%d", dev);
		return 0;
	case STARPU_CUDA_RAM: snprintf(buf, size, "CUDA%d", dev); return 0;
	case STARPU_OPENCL_RAM: snprintf(buf, size, "OpenCL%d", dev); return 0;
	case STARPU_DISK_RAM: snprintf(buf, size, "DISK%d", dev); return 0;
	case STARPU_MPI_MS_RAM: snprintf(buf, size, "MPI_MS%d", dev); return 0;
	default: snprintf(buf, size, "NODE%u", node); return -EINVAL;
	}
}

/* MB/s → bytes/s, µs → s; unknown values become harmless defaults. */
static double bps(double mbs)
{
	return mbs > 0 && isfinite(mbs) ? mbs * 1e6 : 1e12;
}

static double secs(double us)
{
	return us >= 0 && isfinite(us) ? us * 1e-6 : 0.0;
}

int pm_platform_write(FILE *f, const struct pm_bus *b)
{
	time_t now = time(NULL);
	char date[64];
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", localtime(&now));
	unsigned ncores = topo_ncores();
	fprintf(f, "<?xml version='1.0'?>\n");
	fprintf(f, "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
	fprintf(f, "<!-- Machine \"%s\" as measured by Vela's bus calibration on %s:\n", pm_conf.hostname, date);
	fprintf(f, "     %u CPU cores, %u NUMA node(s), %u memory node(s). Bandwidths and latencies\n", ncores, b->nnuma, b->nnodes);
	fprintf(f, "     are the measured copy speeds between memory nodes (best of %s runs). -->\n", "several");
	fprintf(f, "<platform version=\"4.1\">\n");
	fprintf(f, "  <config id=\"General\">\n");
	fprintf(f, "    <prop id=\"network/model\" value=\"CM02\"/>\n");
	fprintf(f, "    <prop id=\"network/latency-factor\" value=\"1\"/>\n");
	fprintf(f, "    <prop id=\"network/bandwidth-factor\" value=\"1\"/>\n");
	fprintf(f, "    <prop id=\"network/crosstraffic\" value=\"0\"/>\n");
	fprintf(f, "    <prop id=\"network/weight-S\" value=\"0.0\"/>\n");
	fprintf(f, "  </config>\n");
	fprintf(f, "  <zone id=\"%s\" routing=\"Full\">\n", pm_conf.hostname);
	fprintf(f, "    <host id=\"MAIN\" speed=\"1f\"/>\n");
	for (unsigned c = 0; c < ncores; c++)
		fprintf(f, "    <host id=\"CPU%u\" speed=\"2000000000f\"/>\n", c);
	for (unsigned n = 0; n < b->nnodes; n++)
	{
		char h[32];
		(void) pm_node_host(n, h, sizeof(h));
		fprintf(f, "    <host id=\"%s\" speed=\"1f\">\n", h);
		if (n < mem_nnodes && mem_nodes[n].total > 0)
			fprintf(f, "      <prop id=\"memsize\" value=\"%zd\"/>\n", mem_nodes[n].total);
		if (n < mem_nnodes && mem_nodes[n].kind != STARPU_CPU_RAM)
			fprintf(f, "      <prop id=\"model\" value=\"%s\"/>\n", mem_nodes[n].name);
		/* What an allocation there costs (dev_costs.h), when measured. */
		if (n < STARPU_MAXNODES && pm_dev_costs[n].measured)
			fprintf(f, "      <prop id=\"%s\" value=\"%.3f\"/>\n      <prop id=\"%s\" value=\"%.4f\"/>\n",
				PM_PROP_MALLOC_US, pm_dev_costs[n].fixed_us, PM_PROP_MALLOC_US_PER_MIB,
				pm_dev_costs[n].per_mib_us);
		if (n < STARPU_MAXNODES && pm_dev_costs[n].first_measured)
			fprintf(f, "      <prop id=\"%s\" value=\"%.2f\"/>\n", PM_PROP_FIRST_COPY_US_PER_MIB,
				pm_dev_costs[n].first_copy_us_per_mib);
		/* Copies on the engine of the kernels (dev_costs.h). */
		if (n < STARPU_MAXNODES && pm_dev_costs[n].copies_on_compute &&
		    (mem_nodes[n].kind == STARPU_CUDA_RAM || mem_nodes[n].kind == STARPU_OPENCL_RAM))
			fprintf(f, "      <prop id=\"%s\" value=\"1\"/>\n", PM_PROP_COPIES_ON_COMPUTE);
		fprintf(f, "    </host>\n");
		/* An MPI slave's cores: a host per worker it runs. */
		if (n < mem_nnodes && mem_nodes[n].kind == STARPU_MPI_MS_RAM)
		{
			unsigned k = 0;
			for (unsigned w = 0; w < rt.nworkers; w++)
				if (rt.workers[w].arch == STARPU_MPI_MS_WORKER && rt.workers[w].memory_node == n)
					fprintf(f, "    <host id=\"%s_CPU%u\" speed=\"2000000000f\"/>\n", h, k++);
		}
	}
	for (unsigned i = 0; i < b->nnodes; i++)
		for (unsigned j = 0; j < b->nnodes; j++)
		{
			char hi[32], hj[32];
			(void) pm_node_host(i, hi, sizeof(hi));
			(void) pm_node_host(j, hj, sizeof(hj));
			fprintf(f, "    <link id=\"%s-%s\" bandwidth=\"%.6fBps\" latency=\"%.9fs\"/>\n", hi, hj,
				bps(b->bandwidth[i][j]), secs(b->latency[i][j]));
		}
	for (unsigned i = 0; i < b->nnodes; i++)
		for (unsigned j = 0; j < b->nnodes; j++)
		{
			char hi[32], hj[32];
			(void) pm_node_host(i, hi, sizeof(hi));
			(void) pm_node_host(j, hj, sizeof(hj));
			fprintf(f, "    <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\"><link_ctn id=\"%s-%s\"/></route>\n",
				hi, hj, hi, hj);
		}
	fprintf(f, "  </zone>\n</platform>\n");
	return ferror(f) ? -EIO : 0;
}

int pm_platform_write_file(const char *path, const struct pm_bus *b)
{
	char tmp[PM_ATOMIC_TMP];
	FILE *f = pm_atomic_open(path, tmp);
	if (!f)
		return -errno;
	return pm_atomic_commit(f, tmp, path, pm_platform_write(f, b));
}
