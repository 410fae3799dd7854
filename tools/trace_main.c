/* trace_main.c — `vela trace`: views of a trace recorded with
 * STARPU_FXT_TRACE=1 (see runtime/trace/). Subcommands:
 *
 *   vela trace export --format chrome|paje|svg|rec|dot TRACE [-o OUT]
 *   vela trace export --format chrome|paje TRACE TRACE... [-o OUT]
 *   vela trace merge TRACE TRACE...
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
		"       vela trace export --format chrome|paje RANK_TRACE... [-o OUT]\n"
		"       vela trace merge RANK_TRACE...\n"
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
		"path and the makespan bound; diff compares two traces codelet by codelet, worker by worker.\n"
		"\n"
		"A distributed run (StarPU-MPI) writes one trace per rank. Given several, export merges them\n"
		"into one timeline (chrome or paje: a process or container per rank, an arrow or link from\n"
		"each send to its receive; OUT defaults to the first with .merged and the extension), and\n"
		"merge checks them and prints the run, the ranks, their clock offsets and the messages linked.\n");
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

static void print_notes(const struct trace_merge *m)
{
	const char *s = m->notes;
	while (*s)
	{
		const char *e = strchr(s, '\n');
		int n = e ? (int) (e - s) : (int) strlen(s);
		fprintf(stderr, "vela trace: %.*s\n", n, s);
		s += n + (e ? 1 : 0);
	}
}

static int load_merged(char **paths, int n, struct trace_merge *m)
{
	char err[1024];
	int ret = trace_merge_load((const char *const *) paths, (unsigned) n, m, err, sizeof(err));
	if (ret)
	{
		fprintf(stderr, "vela trace: %s\n", err);
		return ret;
	}
	print_notes(m);
	return 0;
}

static int cmd_merge(int argc, char **argv)
{
	if (argc < 1)
	{
		usage(stderr);
		return 2;
	}
	for (int i = 0; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
		{
			fprintf(stderr, "vela trace merge: unknown option '%s'\n", argv[i]);
			return 2;
		}
	struct trace_merge m;
	if (load_merged(argv, argc, &m))
		return 1;
	int ret = trace_merge_print(&m, stdout);
	trace_merge_free(&m);
	return ret ? 1 : 0;
}

/* The ranks' traces of one run as one timeline. */
static int export_merged(char **ins, int nin, const char *format, const char *ext, const char *out)
{
	int (*fn)(const struct trace_merge *, FILE *) = !strcmp(format, "chrome") ? trace_export_chrome_merged :
		!strcmp(format, "paje") ? trace_export_paje_merged : NULL;
	if (!fn)
	{
		fprintf(stderr, "vela trace export: several traces are merged into one timeline in the chrome or paje format only, not %s\n",
			format);
		return 2;
	}
	struct trace_merge m;
	if (load_merged(ins, nin, &m))
		return 1;
	char *path = NULL;
	FILE *f = stdout;
	if (!out || strcmp(out, "-"))
	{
		if (!out)
		{
			path = malloc(strlen(ins[0]) + 16);
			if (!path)
			{
				trace_merge_free(&m);
				return 1;
			}
			sprintf(path, "%s.merged%s", ins[0], ext);
			out = path;
		}
		f = fopen(out, "w");
		if (!f)
		{
			fprintf(stderr, "vela trace export: cannot create '%s': %s\n", out, strerror(errno));
			free(path);
			trace_merge_free(&m);
			return 1;
		}
	}
	int to_stdout = f == stdout;
	int ret = fn(&m, f);
	if (!to_stdout && fclose(f) && !ret)
		ret = -errno;
	else if (to_stdout && fflush(f) && !ret)
		ret = -EIO;
	if (ret)
		fprintf(stderr, "vela trace export: writing %s failed: %s\n", to_stdout ? "standard output" : out, strerror(-ret));
	else if (!to_stdout)
		fprintf(stderr, "vela trace: wrote %s (%s, %u ranks, %u messages linked)\n", out, format, m.nranks, m.nlinks);
	free(path);
	trace_merge_free(&m);
	return ret ? 1 : 0;
}

static int cmd_export(int argc, char **argv)
{
	const char *format = NULL, *out = NULL, *in = NULL;
	char **ins = calloc((size_t) argc + 1, sizeof(*ins));
	int nin = 0;
	if (!ins)
		return 1;
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
			free(ins);
			return 2;
		}
		else
			ins[nin++] = argv[i];
	}
	in = ins[0];
	if (!format || !in)
	{
		usage(stderr);
		free(ins);
		return 2;
	}
	unsigned k;
	for (k = 0; k < sizeof(formats) / sizeof(formats[0]) && strcmp(formats[k].name, format); k++)
		;
	if (k == sizeof(formats) / sizeof(formats[0]))
	{
		fprintf(stderr, "vela trace export: unknown format '%s' (chrome, paje, svg, rec or dot)\n", format);
		free(ins);
		return 2;
	}
	if (nin > 1)
	{
		int ret = export_merged(ins, nin, formats[k].name, formats[k].ext, out);
		free(ins);
		return ret;
	}
	free(ins);
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
	if (!strcmp(argv[0], "merge"))
		return cmd_merge(argc - 1, argv + 1);
	if (!strcmp(argv[0], "diff"))
		return cmd_diff(argc - 1, argv + 1);
	fprintf(stderr, "vela trace: unknown subcommand '%s'\n", argv[0]);
	usage(stderr);
	return 2;
}
