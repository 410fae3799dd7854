/* calibrate_bus.c — `vela calibrate-bus`: measure the bus again (what the
 * first starpu_init on a host does by itself), store the bus files and the
 * SimGrid platform file, print the result, and optionally copy the
 * platform file somewhere (e.g. into platforms/ of a source tree).
 */
#include "tools/vela.h"
#include "perfmodel/perfmodel.h"

#include <errno.h>
#include <starpu.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vela calibrate-bus [-o DIR] [-q]\n"
		"Measures bandwidth and latency between every pair of memory nodes,\n"
		"writes <host>.{bandwidth,latency,affinity,config,platform.v4.xml} in\n"
		"$STARPU_PERF_MODEL_DIR/bus (default $STARPU_HOME/.starpu/sampling/bus)\n"
		"and prints the matrices.\n"
		"  -o DIR   also write the platform file as DIR/<host>.platform.v4.xml\n"
		"           (DIR must exist)\n"
		"  -q       print nothing but errors\n");
}

int vela_calibrate_bus(int argc, char **argv)
{
	const char *outdir = NULL;
	int quiet = 0;
	for (int i = 1; i < argc; i++)
	{
		if (vela_is_help(argv[i]))
		{
			usage(stdout);
			return VELA_EXIT_OK;
		}
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
		{
			if (i + 1 >= argc)
			{
				vela_err("calibrate-bus", "%s needs a directory", argv[i]);
				return VELA_EXIT_USAGE;
			}
			outdir = argv[++i];
		}
		else if (!strcmp(argv[i], "-q"))
			quiet = 1;
		else
		{
			vela_err("calibrate-bus", "unknown option '%s'", argv[i]);
			usage(stderr);
			return VELA_EXIT_USAGE;
		}
	}
	/* Check the output directory before spending time measuring. */
	if (outdir)
	{
		struct stat st;
		if (stat(outdir, &st) || !S_ISDIR(st.st_mode))
		{
			vela_err("calibrate-bus", "output directory '%s' does not exist (create it first)", outdir);
			return VELA_EXIT_FAIL;
		}
	}
	setenv("STARPU_BUS_CALIBRATE", "1", 1);
	if (quiet)
		setenv("STARPU_SILENT", "1", 1);
	int ret = starpu_init(NULL);
	if (ret)
	{
		vela_err("calibrate-bus", "starpu_init failed (%d)", ret);
		return VELA_EXIT_FAIL;
	}
	int status = VELA_EXIT_OK;
	char path[4200];
	pm_bus_file("config", path, sizeof(path));
	struct stat st;
	if (stat(path, &st))
	{
		vela_err("calibrate-bus", "the bus files could not be written (%s: %s)", path, strerror(errno));
		status = VELA_EXIT_FAIL;
	}
	if (!quiet)
	{
		printf("Bandwidth (MB/s, from/to):\n");
		starpu_bus_print_bandwidth(stdout);
		printf("\nLatency (us, from/to):\n");
		pm_bus_print_latency(stdout);
		printf("\nFiles:\n");
		starpu_bus_print_filenames(stdout);
	}
	if (outdir)
	{
		char out[4200];
		snprintf(out, sizeof(out), "%s/%s.platform.v4.xml", outdir, pm_conf.hostname);
		ret = pm_platform_write_file(out, &pm_bus);
		if (ret)
		{
			vela_err("calibrate-bus", "cannot write %s: %s", out, strerror(-ret));
			status = VELA_EXIT_FAIL;
		}
		else if (!quiet)
			printf("platform copy:\t%s\n", out);
	}
	starpu_shutdown();
	return status;
}
