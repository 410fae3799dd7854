/* perfmodel_cmd.c — `vela perfmodel list|show|plot|derive`: the models
 * of this host (or of any directory, through STARPU_PERF_MODEL_DIR and
 * STARPU_HOSTNAME), shown as StarPU's starpu_perfmodel_display shows them.
 */
#include "tools/vela.h"
#include "perfmodel/perfmodel.h"

#include <dirent.h>
#include <errno.h>
#include <starpu.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vela perfmodel list [--all]\n"
		"       vela perfmodel show SYMBOL [-a ARCH] [-p PARAM] [-f FOOTPRINT] [-x]\n"
		"       vela perfmodel show --file PATH [...]\n"
		"       vela perfmodel plot SYMBOL [-o FILE.svg] [-a ARCH]   (see plot --help)\n"
		"       vela perfmodel derive ...                            (see derive --help)\n"
		"\n"
		"list   the models of this host (files <symbol>.<host>); --all: every file\n"
		"show   per arch and implementation: regressions, then history entries\n"
		"       (hash, size, flops, mean and standard deviation in us, samples)\n"
		"  -a ARCH       cpu, cpu:K, cuda, cuda_D, opencl, opencl_D\n"
		"  -p PARAM      one value: mean, stddev, a, b, c, alpha, beta\n"
		"  -f FOOTPRINT  one history entry (hexadecimal)\n"
		"  -x            XML\n"
		"Models live in $STARPU_PERF_MODEL_DIR/codelets/45 (default\n"
		"$STARPU_HOME/.starpu/sampling/codelets/45).\n");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Summary of a model file: archs and entries. */
static void summary(const char *path, FILE *f)
{
	struct pm_data d;
	char err[1024];
	if (pm_file_load(path, &d, err, sizeof(err)))
	{
		fprintf(f, "  (unreadable: %s)", err);
		return;
	}
	for (unsigned c = 0; c < d.ncombs; c++)
	{
		struct pm_comb *comb = d.combs[c];
		unsigned entries = 0, first = 0;
		for (unsigned i = 0; i < comb->nimpls; i++)
			for (struct starpu_perfmodel_history_list *l = comb->impl[i].pa.list; l; l = l->next)
				if (pm_entry_is_first_run(l->entry))
					first++;
				else
					entries++;
		fprintf(f, "  %s%d%s:%u impl, %u entries", pm_archtype_name(comb->devices[0].type), comb->devices[0].devid,
			comb->devices[0].ncores > 1 ? "xN" : "", comb->nimpls, entries);
		if (first)
			fprintf(f, " (+%u of first runs)", first);
	}
	if (d.note)
		fprintf(f, "  [derived]");
	pm_data_free(&d);
}

static int cmd_list(int argc, char **argv)
{
	int all = 0;
	for (int i = 1; i < argc; i++)
	{
		if (vela_is_help(argv[i]))
		{
			usage(stdout);
			return VELA_EXIT_OK;
		}
		if (!strcmp(argv[i], "--all") || !strcmp(argv[i], "-a"))
			all = 1;
		else
		{
			vela_err("perfmodel list", "unknown option '%s'", argv[i]);
			return VELA_EXIT_USAGE;
		}
	}
	starpu_perfmodel_initialize();
	char dir[4096];
	pm_codelets_dir(dir, sizeof(dir));
	DIR *d = opendir(dir);
	if (!d)
	{
		vela_err("perfmodel list", "no model directory %s (%s): nothing calibrated yet with these STARPU_HOME / STARPU_PERF_MODEL_DIR",
			 dir, strerror(errno));
		return VELA_EXIT_FAIL;
	}
	char suffix[300];
	snprintf(suffix, sizeof(suffix), ".%s", pm_conf.hostname);
	size_t sl = strlen(suffix);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)))
	{
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp."))
			continue;
		if (!all && (l <= sl || strcmp(e->d_name + l - sl, suffix)))
			continue;
		if (n == cap)
		{
			cap = cap ? 2 * cap : 32;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				break;
			names = nn;
		}
		if ((names[n] = strdup(e->d_name)))
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	if (all)
		printf("# model files in %s\n", dir);
	else
		printf("# models in %s for host %s (--all lists every file)\n", dir, pm_conf.hostname);
	for (size_t i = 0; i < n; i++)
	{
		char path[8200];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!all)
			names[i][strlen(names[i]) - sl] = '\0';
		printf("%s", names[i]);
		summary(path, stdout);
		printf("\n");
		free(names[i]);
	}
	free(names);
	return VELA_EXIT_OK;
}

/* Loads a model by symbol (or --file path) for show and plot; prints why
 * not and returns nonzero on failure. */
int vela_load_model(const char *cmd, const char *symbol, const char *file, struct starpu_perfmodel *m)
{
	memset(m, 0, sizeof(*m));
	starpu_perfmodel_initialize();
	int ret;
	if (file)
		ret = starpu_perfmodel_load_file(file, m);
	else
		ret = starpu_perfmodel_load_symbol(symbol, m);
	if (ret == 1 || (file && ret == -ENOENT))
	{
		char dir[4096];
		pm_codelets_dir(dir, sizeof(dir));
		if (file)
			vela_err(cmd, "no model file %s", file);
		else
			vela_err(cmd, "no model '%s' for host %s in %s (`vela perfmodel list` shows the models there)", symbol,
				 pm_conf.hostname, dir);
		return -1;
	}
	if (ret)
	{
		vela_err(cmd, "the model '%s' could not be read (see the message above)", file ? file : symbol);
		return -1;
	}
	return 0;
}

/* The provenance note of a model's file, if any (owned by the caller). */
char *vela_model_note(const char *symbol, const char *file)
{
	char path[4200], err[1024];
	if (file)
		snprintf(path, sizeof(path), "%s", file);
	else if (pm_model_path(symbol, path, sizeof(path)))
		return NULL;
	struct pm_data d;
	if (pm_file_load(path, &d, err, sizeof(err)))
		return NULL;
	char *note = d.note;
	d.note = NULL;
	pm_data_free(&d);
	return note;
}

static int cmd_show(int argc, char **argv)
{
	const char *symbol = NULL, *file = NULL, *arch = NULL, *param = NULL;
	uint32_t fp = 0;
	int have_fp = 0, xml = 0;
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		if (vela_is_help(a))
		{
			usage(stdout);
			return VELA_EXIT_OK;
		}
		int needs = !strcmp(a, "-a") || !strcmp(a, "-p") || !strcmp(a, "-f") || !strcmp(a, "--file") || !strcmp(a, "-s");
		if (needs && i + 1 >= argc)
		{
			vela_err("perfmodel show", "%s needs a value", a);
			return VELA_EXIT_USAGE;
		}
		if (!strcmp(a, "-a"))
			arch = argv[++i];
		else if (!strcmp(a, "-p"))
			param = argv[++i];
		else if (!strcmp(a, "--file"))
			file = argv[++i];
		else if (!strcmp(a, "-s"))
			symbol = argv[++i];
		else if (!strcmp(a, "-f"))
		{
			char *e;
			const char *v = argv[++i];
			unsigned long x = strtoul(v, &e, 16);
			if (*e || e == v || x > 0xffffffffUL)
			{
				vela_err("perfmodel show", "footprint '%s' is not a hexadecimal 32-bit number", v);
				return VELA_EXIT_USAGE;
			}
			fp = (uint32_t) x;
			have_fp = 1;
		}
		else if (!strcmp(a, "-x"))
			xml = 1;
		else if (a[0] == '-')
		{
			vela_err("perfmodel show", "unknown option '%s'", a);
			return VELA_EXIT_USAGE;
		}
		else if (!symbol)
			symbol = a;
		else
		{
			vela_err("perfmodel show", "one symbol at a time ('%s' and '%s')", symbol, a);
			return VELA_EXIT_USAGE;
		}
	}
	if (!symbol && !file)
	{
		vela_err("perfmodel show", "which model? (a symbol, or --file PATH)");
		usage(stderr);
		return VELA_EXIT_USAGE;
	}
	struct starpu_perfmodel m;
	if (vela_load_model("perfmodel show", symbol, file, &m))
		return VELA_EXIT_FAIL;
	int status = VELA_EXIT_OK;
	if (xml)
		starpu_perfmodel_dump_xml(stdout, &m);
	else
	{
		char *note = vela_model_note(symbol, file);
		if (note)
			fputs(note, stdout);
		free(note);
		if (starpu_perfmodel_print_all(&m, (char *) arch, (char *) param, have_fp ? &fp : NULL, stdout))
			status = VELA_EXIT_USAGE;
	}
	starpu_perfmodel_unload_model(&m);
	return status;
}

int vela_perfmodel(int argc, char **argv)
{
	if (argc < 2 || vela_is_help(argv[1]))
	{
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? VELA_EXIT_USAGE : VELA_EXIT_OK;
	}
	const char *sub = argv[1];
	if (!strcmp(sub, "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(sub, "show"))
		return cmd_show(argc - 1, argv + 1);
	if (!strcmp(sub, "plot"))
		return vela_perfmodel_plot(argc - 1, argv + 1);
	if (!strcmp(sub, "derive"))
		return vela_perfmodel_derive(argc - 1, argv + 1);
	vela_err("perfmodel", "unknown subcommand '%s' (list, show, plot, derive)", sub);
	return VELA_EXIT_USAGE;
}
