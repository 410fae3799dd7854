/* vela.c — the `vela` command: a dispatcher to one subcommand per file,
 * and what the subcommands share (tools/vela.h). Subcommands: machine
 * description, bus calibration, performance models (list, show, plot,
 * derive), traces (export, stats, diff), replays of recorded task graphs,
 * evaluations of scheduling policies in simulation (sched-eval).
 */
#include "tools/vela.h"
#include "tools/replay.h"
#include "tools/sched_eval.h"

#include <config.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void vela_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "vela %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int vela_is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help") || !strcmp(arg, "help");
}

/* The trace subcommand takes the arguments after its name. */
int trace_main(int argc, char **argv);

static int vela_trace(int argc, char **argv)
{
	return trace_main(argc - 1, argv + 1);
}

/* Each entry point takes its own argv, argv[0] being the subcommand. */
static const struct
{
	const char *name;
	int (*main)(int argc, char **argv);
} commands[] = {
	{ "machine", vela_machine },
	{ "calibrate-bus", vela_calibrate_bus },
	{ "calibrate-wakeup", vela_calibrate_wakeup },
	{ "perfmodel", vela_perfmodel },
	{ "trace", vela_trace },
	{ "replay", vela_replay },
	{ "sched-eval", vela_sched_eval },
	{ "simrun", vela_simrun },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vela COMMAND [ARGS]\n"
		"\n"
		"Commands:\n"
		"  machine              workers, memory nodes, binding and bus of this machine\n"
		"  calibrate-bus        measure the bus again and write the bus files and the\n"
		"                       SimGrid platform file of this machine\n"
		"  calibrate-wakeup     what a thread waking on a core costs the thread computing\n"
		"                       there (for clusters whose ranks share their cores)\n"
		"  perfmodel list       the performance models calibrated on this host\n"
		"  perfmodel show SYM   a model's entries and regressions (as starpu_perfmodel_display)\n"
		"  perfmodel plot SYM   an SVG of time versus size per arch, points and fits\n"
		"  perfmodel derive     roofline models of the example kernels for a device\n"
		"                       described by its datasheet (peak FLOP/s, bandwidth)\n"
		"  trace                export, inspect and compare execution traces\n"
		"                       (recorded with STARPU_FXT_TRACE=1)\n"
		"  replay TASKS.rec     re-simulate a recorded task graph on another platform\n"
		"                       or scheduler and print the makespan\n"
		"  sched-eval           compare scheduling policies in simulation over platforms\n"
		"                       and GPU counts: tables, HTML report, JSON, CI verdicts\n"
		"  simrun -np N --platform CLUSTER.xml PROGRAM [ARGS]\n"
		"                       simulate N ranks of a StarPU-MPI program on a cluster\n"
		"                       (vela-simrun; sim/README.md, \"Clusters\")\n"
		"\n"
		"`vela COMMAND --help` describes a command. Models and bus files live under\n"
		"$STARPU_PERF_MODEL_DIR (default $STARPU_HOME/.starpu/sampling), named after\n"
		"$STARPU_HOSTNAME (default: this host's name).\n"
		"Exit status: 0 success, 1 failure, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
	{
		usage(stderr);
		return VELA_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (vela_is_help(cmd))
	{
		usage(stdout);
		return VELA_EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version"))
	{
		printf("vela %s (StarPU 1.3 API)\n", VELA_VERSION_STRING);
		return VELA_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "vela: unknown command '%s'\n\n", cmd);
	usage(stderr);
	return VELA_EXIT_USAGE;
}
