/* bus.c — the bus model: bandwidth and latency between memory nodes, its
 * files, and the transfer-time API.
 *
 * Files, as StarPU 1.3 writes them, in $sampling/bus/:
 *   <host>.bandwidth   "# to 0\t\tto 1..." then STARPU_MAXNODES rows of
 *                      STARPU_MAXNODES values in MB/s, [src][dst], "nan"
 *                      where unknown;
 *   <host>.latency     the same in µs;
 *   <host>.affinity    per GPU, the NUMA nodes by distance (in their order);
 *   <host>.config      what the machine looked like when calibrated (CPUs,
 *                      NUMA nodes, devices): a different machine behind the
 *                      same host name triggers a new calibration;
 *   <host>.platform.v4.xml   the SimGrid platform (platform.c).
 * StarPU leaves 0 on the diagonal (no transfer within a node); Vela writes
 * the measured copy speed within the node there, which StarPU ignores.
 *
 * In simulation the bus is the platform's: for each pair of memory nodes,
 * the route between their hosts gives the bottleneck bandwidth and the
 * summed latency, the very figures the simulated copies obey (CM02 with
 * factors 1), so schedulers' transfer estimates (dmda) agree with what
 * simulated transfers take; two devices without a route between them
 * copy through RAM, and are predicted so. Files are neither read nor
 * written then.
 */
#include "perfmodel/perfmodel.h"
#include "perfmodel/dev_costs.h"
#include "core/conf.h"
#include "core/rt.h"
#include "core/sim_loader.h"
#include "data/memory.h"
#include "os/regular_file.h"

#include <errno.h>
#include <hwloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pm_bus pm_bus;

void pm_bus_file(const char *which, char *buf, size_t size)
{
	char dir[4096];
	pm_bus_dir(dir, sizeof(dir));
	snprintf(buf, size, "%s/%s.%s", dir, pm_conf.hostname, which);
}

/* What the machine looks like now (for .config). */
static void machine_config(struct pm_bus *b)
{
	/* A simulated machine is the platform's: one RAM node (and this
	 * machine's topology stays unloaded, topology.c). */
	hwloc_topology_t topo = sim_running() ? NULL : topo_hwloc();
	b->ncpus = topo_ncores();
	int nnuma = topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) : 1;
	b->nnuma = nnuma > 0 ? (unsigned) nnuma : 1;
	b->ncuda = b->nopencl = b->nmic = b->nmpi = 0;
	for (unsigned n = 0; n < mem_nnodes; n++)
		switch (mem_nodes[n].kind)
		{
		case STARPU_CUDA_RAM: b->ncuda++; break;
		case STARPU_OPENCL_RAM: b->nopencl++; break;
		case STARPU_MPI_MS_RAM: b->nmpi++; break;
		default: break;
		}
}

static int write_matrix(const char *path, double m[STARPU_MAXNODES][STARPU_MAXNODES])
{
	char tmp[PM_ATOMIC_TMP];
	FILE *f = pm_atomic_open(path, tmp);
	if (!f)
		return -errno;
	fprintf(f, "# ");
	for (unsigned j = 0; j < STARPU_MAXNODES; j++)
		fprintf(f, "to %u\t\t", j);
	fprintf(f, "\n");
	for (unsigned i = 0; i < STARPU_MAXNODES; i++)
	{
		for (unsigned j = 0; j < STARPU_MAXNODES; j++)
			fprintf(f, "%s%e", j ? "\t" : "", m[i][j]);
		fprintf(f, "\n");
	}
	return pm_atomic_commit(f, tmp, path, 0);
}

/* Opens a bus file for reading: never blocks on a FIFO, refuses what is
 * not a regular file (-EINVAL). */
static FILE *open_read(const char *path, int *err)
{
	int fd = os_open_regular(path, O_RDONLY, 0, NULL, NULL);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	*err = fd < 0 ? fd : f ? 0 : -errno;
	if (fd >= 0 && !f)
		close(fd);
	return f;
}

/* Reads a matrix file; values beyond our nodes stay NAN. */
static int read_matrix(const char *path, double m[STARPU_MAXNODES][STARPU_MAXNODES])
{
	int err;
	FILE *f = open_read(path, &err);
	if (!f)
		return err;
	for (unsigned i = 0; i < STARPU_MAXNODES; i++)
		for (unsigned j = 0; j < STARPU_MAXNODES; j++)
			m[i][j] = NAN;
	char line[8192];
	unsigned row = 0;
	int ret = 0;
	while (row < STARPU_MAXNODES && fgets(line, sizeof(line), f))
	{
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char *p = line;
		for (unsigned j = 0; j < STARPU_MAXNODES; j++)
		{
			char *e;
			double v = strtod(p, &e);
			if (e == p)
				break;
			if (isinf(v) || v < 0)
			{
				ret = -EINVAL;
				break;
			}
			m[row][j] = v;
			p = e;
		}
		row++;
	}
	if (row == 0)
		ret = -EINVAL;
	fclose(f);
	return ret;
}

static int write_config(const char *path, const struct pm_bus *b)
{
	char tmp[PM_ATOMIC_TMP];
	FILE *f = pm_atomic_open(path, tmp);
	if (!f)
		return -errno;
	fprintf(f, "# Current configuration\n%u # Number of CPUs\n%u # Number of NUMA nodes\n%u # Number of CUDA devices\n"
		"%u # Number of OpenCL devices\n%u # Number of MIC devices\n%u # Number of MPI devices\n",
		b->ncpus, b->nnuma, b->ncuda, b->nopencl, b->nmic, b->nmpi);
	return pm_atomic_commit(f, tmp, path, 0);
}

static int read_config(const char *path, struct pm_bus *b)
{
	int err;
	FILE *f = open_read(path, &err);
	if (!f)
		return err;
	unsigned v[6];
	unsigned n = 0;
	char line[512];
	while (n < 6 && fgets(line, sizeof(line), f))
	{
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%u", &v[n]) != 1)
			break;
		n++;
	}
	fclose(f);
	if (n < 4)
		return -EINVAL;
	b->ncpus = v[0];
	b->nnuma = v[1];
	b->ncuda = v[2];
	b->nopencl = v[3];
	b->nmic = n > 4 ? v[4] : 0;
	b->nmpi = n > 5 ? v[5] : 0;
	return 0;
}

static int write_affinity(const char *path, const struct pm_bus *b)
{
	char tmp[PM_ATOMIC_TMP];
	FILE *f = pm_atomic_open(path, tmp);
	if (!f)
		return -errno;
	/* One line per device (CUDA ones, then OpenCL ones, as StarPU reads
	 * them): its number, then the NUMA nodes from the closest; with no
	 * distances measured, in their order. */
	fprintf(f, "# GPU\t");
	for (unsigned i = 0; i < b->nnuma; i++)
		fprintf(f, "NUMA%u\t", i);
	fprintf(f, "\n");
	unsigned ndev[2] = { b->ncuda, b->nopencl };
	for (unsigned kind = 0; kind < 2; kind++)
		for (unsigned d = 0; d < ndev[kind]; d++)
		{
			fprintf(f, "%u\t", d);
			for (unsigned i = 0; i < b->nnuma; i++)
				fprintf(f, "%u\t", i);
			fprintf(f, "\n");
		}
	return pm_atomic_commit(f, tmp, path, 0);
}

int pm_bus_save(const struct pm_bus *b)
{
	char dir[4096], path[4200];
	pm_bus_dir(dir, sizeof(dir));
	int ret = pm_mkdir_p(dir);
	if (ret)
		return ret;
	pm_remove_stale_tmp(dir, 1);
	double m[STARPU_MAXNODES][STARPU_MAXNODES];
	memcpy(m, b->bandwidth, sizeof(m));
	pm_bus_file("bandwidth", path, sizeof(path));
	if ((ret = write_matrix(path, m)))
		return ret;
	memcpy(m, b->latency, sizeof(m));
	pm_bus_file("latency", path, sizeof(path));
	if ((ret = write_matrix(path, m)))
		return ret;
	pm_bus_file("affinity", path, sizeof(path));
	if ((ret = write_affinity(path, b)))
		return ret;
	pm_bus_file("platform.v4.xml", path, sizeof(path));
	if ((ret = pm_platform_write_file(path, b)))
		return ret;
	/* Last: a present .config means the set of files is complete. */
	pm_bus_file("config", path, sizeof(path));
	return write_config(path, b);
}

int pm_bus_load(struct pm_bus *b)
{
	char path[4200];
	pm_bus_file("config", path, sizeof(path));
	int ret = read_config(path, b);
	if (ret)
		return ret;
	pm_bus_file("bandwidth", path, sizeof(path));
	if ((ret = read_matrix(path, b->bandwidth)))
		return ret;
	pm_bus_file("latency", path, sizeof(path));
	if ((ret = read_matrix(path, b->latency)))
		return ret;
	b->loaded = 1;
	return 0;
}

/* Whether the stored model describes this machine's nodes. */
static int bus_matches(const struct pm_bus *stored, const struct pm_bus *now)
{
	if (stored->ncpus != now->ncpus || stored->nnuma != now->nnuma || stored->ncuda != now->ncuda ||
	    stored->nopencl != now->nopencl || stored->nmic != now->nmic || stored->nmpi != now->nmpi)
		return 0;
	/* Every pair of distinct nodes measured (a disk node added since). */
	for (unsigned i = 0; i < now->nnodes; i++)
		for (unsigned j = 0; j < now->nnodes; j++)
			if (i != j && !(stored->bandwidth[i][j] > 0.0))
				return 0;
	return 1;
}

/* The simulated platform's bus: NAN where there is no route (a disk not
 * on the platform). */
static void bus_from_platform(struct pm_bus *b)
{
	for (unsigned i = 0; i < STARPU_MAXNODES; i++)
		for (unsigned j = 0; j < STARPU_MAXNODES; j++)
		{
			double bw, lat;
			if (i < mem_nnodes && j < mem_nnodes && sim_node_route(i, j, &bw, &lat) == 0)
			{
				b->bandwidth[i][j] = bw * 1e-6;		/* bytes/s -> MB/s */
				b->latency[i][j] = lat * 1e6;		/* s -> µs */
			}
			else
				b->bandwidth[i][j] = b->latency[i][j] = NAN;
		}
	/* Two devices without a route between them copy through RAM
	 * (data/coherency.c): two copies one after the other, latencies
	 * added and 1 / bandwidth too, so that lat + bytes / bw stays the
	 * prediction of the whole. */
	for (unsigned i = 1; i < mem_nnodes; i++)
		for (unsigned j = 1; j < mem_nnodes; j++)
		{
			if (i == j || mem_direct_copy(i, j) || !(b->bandwidth[i][0] > 0.0) || !(b->bandwidth[0][j] > 0.0))
				continue;
			b->bandwidth[i][j] = 1.0 / (1.0 / b->bandwidth[i][0] + 1.0 / b->bandwidth[0][j]);
			b->latency[i][j] = b->latency[i][0] + b->latency[0][j];
		}
	b->loaded = 1;
}

int pm_bus_setup(int force)
{
	struct pm_bus now, stored;
	memset(&now, 0, sizeof(now));
	machine_config(&now);
	now.nnodes = mem_nnodes;
	if (sim_running())
	{
		bus_from_platform(&now);
		pm_bus = now;
		return 0;
	}
	memset(&stored, 0, sizeof(stored));
	int have = pm_bus_load(&stored) == 0;
	stored.nnodes = mem_nnodes;
	if (have && !force && bus_matches(&stored, &now))
	{
		pm_bus = stored;
		return 0;
	}
	if (os_is_simulated())
	{
		/* Simulated without the plugin's routes (cannot happen once
		 * the simulation runs): keep whatever was stored, measure
		 * nothing. */
		pm_bus = stored;
		return 0;
	}
	int ret = pm_bus_measure(&now, !rt.silent);
	/* With the bus, what allocations cost on the devices, for the
	 * platform file (a failure leaves that device's figures out). */
	if (!ret)
		(void) pm_dev_costs_measure();
	if (ret)
	{
		rt_error("starpu_init: bus calibration failed (%d); transfer predictions are unavailable", ret);
		pm_bus = now;
		return 0;
	}
	now.loaded = 1;
	pm_bus = now;
	ret = pm_bus_save(&now);
	if (ret)
	{
		char dir[4096];
		pm_bus_dir(dir, sizeof(dir));
		rt_warn("starpu_init: the bus calibration could not be saved in %s (%s); it will be measured again next time",
			dir, strerror(-ret));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Public API. */

double starpu_transfer_bandwidth(unsigned src_node, unsigned dst_node)
{
	if (src_node >= STARPU_MAXNODES || dst_node >= STARPU_MAXNODES || !pm_bus.loaded)
		return NAN;
	return pm_bus.bandwidth[src_node][dst_node];
}

double starpu_transfer_latency(unsigned src_node, unsigned dst_node)
{
	if (src_node >= STARPU_MAXNODES || dst_node >= STARPU_MAXNODES || !pm_bus.loaded)
		return NAN;
	return pm_bus.latency[src_node][dst_node];
}

double starpu_transfer_predict(unsigned src_node, unsigned dst_node, size_t size)
{
	if (src_node == dst_node)
		return 0.0;
	double bw = starpu_transfer_bandwidth(src_node, dst_node);
	double lat = starpu_transfer_latency(src_node, dst_node);
	if (!(bw > 0.0) || !isfinite(lat))
		return NAN;
	/* MB/s is bytes per µs. As StarPU's estimate, the time on the wire
	 * counts twice per GPU in use (every GPU may be copying, both ways, on
	 * the same bus): schedulers (dmda's data penalty) then weigh a copy as
	 * StarPU's do, and keep work near its data as the GPUs multiply. */
	unsigned ngpus = 0;
	for (unsigned n = 0; n < mem_nnodes; n++)
		if (mem_nodes[n].kind == STARPU_CUDA_RAM || mem_nodes[n].kind == STARPU_OPENCL_RAM)
			ngpus++;
	return lat + (double) size / bw * (ngpus ? 2.0 * ngpus : 1.0);
}

static void print_matrix(FILE *f, double m[STARPU_MAXNODES][STARPU_MAXNODES], const char *unit, const char *fmt)
{
	unsigned n = pm_bus.nnodes ? pm_bus.nnodes : 1;
	fprintf(f, "from/to\t");
	for (unsigned j = 0; j < n; j++)
	{
		char name[32];
		starpu_memory_node_get_name(j, name, sizeof(name));
		fprintf(f, "%s\t", name);
	}
	fprintf(f, "(%s)\n", unit);
	for (unsigned i = 0; i < n; i++)
	{
		char name[32];
		starpu_memory_node_get_name(i, name, sizeof(name));
		fprintf(f, "%s\t", name);
		for (unsigned j = 0; j < n; j++)
			fprintf(f, fmt, m[i][j]);
		fprintf(f, "\n");
	}
}

void starpu_bus_print_bandwidth(FILE *f)
{
	print_matrix(f, pm_bus.bandwidth, "MB/s", "%.1f\t");
}

void pm_bus_print_latency(FILE *f)
{
	print_matrix(f, pm_bus.latency, "us", "%.4f\t");
}

void starpu_bus_print_affinity(FILE *f)
{
	fprintf(f, "# GPU\t");
	for (unsigned i = 0; i < (pm_bus.nnuma ? pm_bus.nnuma : 1); i++)
		fprintf(f, "NUMA%u\t", i);
	fprintf(f, "\n");
}

void starpu_bus_print_filenames(FILE *f)
{
	static const char *const which[] = { "bandwidth", "affinity", "latency", "config", "platform.v4.xml" };
	for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++)
	{
		char path[4200];
		pm_bus_file(which[i], path, sizeof(path));
		fprintf(f, "%s:\t%s\n", which[i], path);
	}
}
