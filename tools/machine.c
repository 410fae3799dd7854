/* machine.c — `vela machine`: what Vela sees of this machine, in the
 * spirit of starpu_machine_display: the topology, the workers with their
 * binding and perf arch, the memory nodes, the scheduling policy, the bus
 * model and where the calibration files are.
 */
#include "tools/vela.h"
#include "perfmodel/perfmodel.h"
#include "core/conf.h"
#include "core/rt.h"
#include "drivers/driver.h"

#include <hwloc.h>
#include <starpu.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vela machine [--no-bus]\n"
		"Starts the runtime (as an application would, honouring STARPU_NCPU,\n"
		"STARPU_WORKERS_CPUID, ...) and prints the topology, the workers and\n"
		"their binding and perf archs, the memory nodes and the bus model.\n"
		"The first run on a host calibrates the bus (a second or less).\n"
		"  --no-bus   do not print the bus matrices\n");
}

int vela_machine(int argc, char **argv)
{
	int bus = 1;
	for (int i = 1; i < argc; i++)
	{
		if (vela_is_help(argv[i]))
		{
			usage(stdout);
			return VELA_EXIT_OK;
		}
		if (!strcmp(argv[i], "--no-bus"))
			bus = 0;
		else
		{
			vela_err("machine", "unknown option '%s'", argv[i]);
			usage(stderr);
			return VELA_EXIT_USAGE;
		}
	}
	int ret = starpu_init(NULL);
	if (ret)
	{
		vela_err("machine", "starpu_init failed (%d)", ret);
		return VELA_EXIT_FAIL;
	}
	hwloc_topology_t topo = topo_hwloc();
	printf("Host: %s (model files named after it: STARPU_HOSTNAME)\n", pm_conf.hostname);
	if (topo)
		printf("Topology (hwloc): %d package(s), %d NUMA node(s), %d core(s), %d processing unit(s)\n",
		       hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE),
		       hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));

	unsigned n = starpu_worker_get_count();
	printf("\n%u worker(s):\n", n);
	/* Device workers' names say which device: as wide as the longest. */
	int width = 12;
	for (unsigned w = 0; w < n; w++)
	{
		char name[64];
		starpu_worker_get_name((int) w, name, sizeof(name));
		if ((int) strlen(name) > width)
			width = (int) strlen(name);
	}
	printf("  %-4s %-*s %-20s %-6s %-6s %-10s %s\n", "id", width, "name", "kind", "devid", "node", "bound to", "perf arch");
	for (unsigned w = 0; w < n; w++)
	{
		char name[64], arch[64], bind[32];
		starpu_worker_get_name((int) w, name, sizeof(name));
		starpu_perfmodel_get_arch_name(starpu_worker_get_perf_archtype((int) w, 0), arch, sizeof(arch), 0);
		/* The arch without the implementation part. */
		char *impl = strstr(arch, "_impl0");
		if (impl)
			memmove(impl, impl + 6, strlen(impl + 6) + 1);
		int b = starpu_worker_get_bindid((int) w);
		if (b >= 0)
			snprintf(bind, sizeof(bind), "PU %d", b);
		else
			snprintf(bind, sizeof(bind), "-");
		printf("  %-4u %-*s %-20s %-6d %-6u %-10s %s\n", w, width, name, starpu_worker_get_type_as_string(starpu_worker_get_type((int) w)),
		       starpu_worker_get_devid((int) w), starpu_worker_get_memory_node(w), bind, arch);
	}

	/* What the machine has of each kind of device built in, used or not. */
	printf("\n");
	for (const struct drv_device_kind *const *k = drv_device_kinds; *k; k++)
		if ((*k)->describe && !os_is_simulated())
		{
			char line[256];
			(*k)->describe(line, sizeof(line));
			printf("%s\n", line);
		}

	unsigned nn = starpu_memory_nodes_get_count();
	printf("\n%u memory node(s):\n", nn);
	for (unsigned m = 0; m < nn; m++)
	{
		char name[64];
		starpu_memory_node_get_name(m, name, sizeof(name));
		ssize_t total = starpu_memory_get_total(m);
		if (total > 0)
			printf("  %u  %-10s %zd MiB\n", m, name, total >> 20);
		else
			printf("  %u  %-10s capacity unknown\n", m, name);
	}

	struct starpu_sched_policy *pol = starpu_sched_ctx_get_sched_policy(0);
	if (pol)
		printf("\nScheduling policy: %s (%s)\n", pol->policy_name ? pol->policy_name : "?",
		       pol->policy_description ? pol->policy_description : "");

	if (bus)
	{
		printf("\nBus bandwidth (MB/s, from/to):\n");
		starpu_bus_print_bandwidth(stdout);
		printf("\nBus latency (us, from/to):\n");
		pm_bus_print_latency(stdout);
	}
	printf("\nCalibration files:\n");
	starpu_perfmodel_directory(stdout);
	starpu_bus_print_filenames(stdout);
	starpu_shutdown();
	return VELA_EXIT_OK;
}
