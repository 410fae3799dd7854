/* trace_main.c — `vela trace`: views of a trace recorded with
 * STARPU_FXT_TRACE=1 (see runtime/trace/). Subcommands:
 *
 *   vela trace export --format chrome|paje|svg|rec|dot TRACE [-o OUT]
 *   vela trace stats TRACE
 *   vela trace diff TRACE_A TRACE_B
 *
 * An incomplete trace (a killed run) is used up to its last complete
 * record, with a warning saying where it stopped; exit status 0 then, 1 on
 * errors (unreadable file, unknown version), 2 on bad usage.
 */
#include "trace_reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int trace_main(int argc, char **argv);

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vela trace export --format FORMAT TRACE [-o OUT]\n"
		"       vela trace stats TRACE\n"
		"       vela trace diff TRACE_A TRACE_B\n"
		"\n"
		"TRACE is a file recorded with STARPU_FXT_TRACE=1 (STARPU_FXT_PREFIX/vela_trace_<user>_<pid>).\n"
		"FORMAT is one of:\n"
		"  chrome  Chrome trace-event JSON for Perfetto (ui.perfetto.dev) or chrome://tracing  [.json]\n"
		"  paje    Paje trace for ViTE                                                         [.paje]\n"
		"  svg     SVG Gantt chart for a web browser                                           [.svg]\n"
		"  rec     tasks.rec, one record per task (StarPU's format)                            [.rec]\n"
		"  dot     the task graph for Graphviz                                                 [.dot]\n"
		"OUT defaults to TRACE with the extension above; '-' writes to standard output.\n"
		"stats prints per-codelet and per-worker statistics, transfers per link, the critical\n"
		"path and the makespan bound; diff compares two traces codelet by codelet, worker by worker.\n");
}

static int load(const char *path, struct trace *t)
{
	char err[512];
	int ret = trace_load(path, t, err, sizeof(err));
	if (ret)
	{
		fprintf(stderr, "vela trace: %s\n", err);
		return ret;
	}
	trace_report_incomplete(t, stderr);
	return 0;
}

static const struct
{
	const char *name;
	const char *ext;
	int (*fn)(const struct trace *, FILE *);
} formats[] = {
	{ "chrome", ".json", trace_export_chrome },
	{ "paje", ".paje", trace_export_paje },
	{ "svg", ".svg", trace_export_svg },
	{ "rec", ".rec", trace_export_rec },
	{ "dot", ".dot", trace_export_dot },
};

static int cmd_export(int argc, char **argv)
{
	const char *format = NULL, *out = NULL, *in = NULL;
	for (int i = 0; i < argc; i++)
	{
		if ((!strcmp(argv[i], "--format") || !strcmp(argv[i], "-f")) && i + 1 < argc)
			format = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			format = argv[i] + 9;
		else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
			out = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1])
		{
			fprintf(stderr, "vela trace export: unknown option '%s'\n", argv[i]);
			return 2;
		}
		else if (!in)
			in = argv[i];
		else
		{
			fprintf(stderr, "vela trace export: one trace at a time ('%s' and '%s')\n", in, argv[i]);
			return 2;
		}
	}
	if (!format || !in)
	{
		usage(stderr);
		return 2;
	}
	unsigned k;
	for (k = 0; k < sizeof(formats) / sizeof(formats[0]) && strcmp(formats[k].name, format); k++)
		;
	if (k == sizeof(formats) / sizeof(formats[0]))
	{
		fprintf(stderr, "vela trace export: unknown format '%s' (chrome, paje, svg, rec or dot)\n", format);
		return 2;
	}
	struct trace t;
	if (load(in, &t))
		return 1;
	char *path = NULL;
	FILE *f = stdout;
	if (!out || strcmp(out, "-"))
	{
		if (!out)
		{
			path = malloc(strlen(in) + 8);
			if (!path)
			{
				trace_free(&t);
				return 1;
			}
			sprintf(path, "%s%s", in, formats[k].ext);
			out = path;
		}
		f = fopen(out, "w");
		if (!f)
		{
			fprintf(stderr, "vela trace export: cannot create '%s': %s\n", out, strerror(errno));
			free(path);
			trace_free(&t);
			return 1;
		}
	}
	int to_stdout = f == stdout;
	int ret = formats[k].fn(&t, f);
	if (!to_stdout && fclose(f) && !ret)
		ret = -errno;
	else if (to_stdout && fflush(f) && !ret)
		ret = -EIO;
	if (ret)
		fprintf(stderr, "vela trace export: writing %s failed: %s\n", to_stdout ? "standard output" : out, strerror(-ret));
	else if (!to_stdout)
		fprintf(stderr, "vela trace: wrote %s (%s, %u tasks)\n", out, formats[k].name, t.ntasks);
	free(path);
	trace_free(&t);
	return ret ? 1 : 0;
}

static int cmd_stats(int argc, char **argv)
{
	if (argc != 1)
	{
		usage(stderr);
		return 2;
	}
	struct trace t;
	if (load(argv[0], &t))
		return 1;
	int ret = trace_print_stats(&t, stdout);
	trace_free(&t);
	return ret ? 1 : 0;
}

static int cmd_diff(int argc, char **argv)
{
	if (argc != 2)
	{
		usage(stderr);
		return 2;
	}
	struct trace a, b;
	if (load(argv[0], &a))
		return 1;
	if (load(argv[1], &b))
	{
		trace_free(&a);
		return 1;
	}
	int ret = trace_print_diff(&a, &b, stdout);
	trace_free(&a);
	trace_free(&b);
	return ret ? 1 : 0;
}

int trace_main(int argc, char **argv)
{
	if (argc < 1 || !strcmp(argv[0], "-h") || !strcmp(argv[0], "--help") || !strcmp(argv[0], "help"))
	{
		usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? 2 : 0;
	}
	if (!strcmp(argv[0], "export"))
		return cmd_export(argc - 1, argv + 1);
	if (!strcmp(argv[0], "stats"))
		return cmd_stats(argc - 1, argv + 1);
	if (!strcmp(argv[0], "diff"))
		return cmd_diff(argc - 1, argv + 1);
	fprintf(stderr, "vela trace: unknown subcommand '%s'\n", argv[0]);
	usage(stderr);
	return 2;
}
