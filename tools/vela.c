/* vela.c — the `vela` command: a dispatcher to one subcommand per file
 * (tools/<subcommand>_*.c), each with its own usage. The machine,
 * calibration, performance-model and replay subcommands join this table
 * as they are written.
 */
#include <stdio.h>
#include <string.h>

int trace_main(int argc, char **argv);

static const struct
{
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "trace", trace_main, "export, inspect and compare execution traces (STARPU_FXT_TRACE=1)" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: vela COMMAND [ARGS...]\n\ncommands:\n");
	for (unsigned i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'vela COMMAND --help' tells more.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
	{
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (unsigned i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc - 2, argv + 2);
	fprintf(stderr, "vela: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
