/* vela.h — what the subcommands of the `vela` command share.
 *
 * Each subcommand is a file with one entry point taking its own argv
 * (argv[0] is the subcommand's name) and returning the process exit code:
 *   0 success, 1 failure (a message says why), 2 usage error.
 * Messages go to stderr, prefixed "vela <subcommand>: ".
 */
#ifndef VELA_TOOLS_H
#define VELA_TOOLS_H

#include <stdio.h>

#define VELA_EXIT_OK 0
#define VELA_EXIT_FAIL 1
#define VELA_EXIT_USAGE 2

int vela_machine(int argc, char **argv);
/* simrun_cmd.c: runs vela-simrun (simulated clusters). */
int vela_simrun(int argc, char **argv);
int vela_calibrate_bus(int argc, char **argv);
int vela_calibrate_wakeup(int argc, char **argv);
int vela_perfmodel(int argc, char **argv);
int vela_perfmodel_plot(int argc, char **argv);
int vela_perfmodel_derive(int argc, char **argv);

struct starpu_perfmodel;
/* Loads a model by symbol or file for show and plot (0, or -1 after a
 * message); the provenance note of its file, or NULL (caller frees). */
int vela_load_model(const char *cmd, const char *symbol, const char *file, struct starpu_perfmodel *m);
char *vela_model_note(const char *symbol, const char *file);

/* Prints "vela <cmd>: <message>" on stderr. */
void vela_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether argv[i] asks for help. */
int vela_is_help(const char *arg);

#endif /* VELA_TOOLS_H */
