/* simrun_cmd.c — `vela simrun`: runs vela-simrun, the launcher of
 * simulated clusters (sim/simrun.c, sim/README.md "Clusters"), with the
 * same arguments. It is a separate program because it links SimGrid and
 * loads one copy of the application per rank; this finds it: $VELA_SIMRUN,
 * else beside this program, else in the installation's bindir, else in
 * PATH.
 */
#include "tools/vela.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef VELA_BINDIR
#define VELA_BINDIR "/usr/local/bin"
#endif

int vela_simrun(int argc, char **argv)
{
	(void) argc;
	char path[PATH_MAX];
	const char *env = getenv("VELA_SIMRUN");
	argv[0] = "vela-simrun";
	if (env && *env)
	{
		execv(env, argv);
		vela_err("simrun", "cannot run VELA_SIMRUN=%s: %s", env, strerror(errno));
		return VELA_EXIT_FAIL;
	}
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n > 0)
	{
		path[n] = '\0';
		char *slash = strrchr(path, '/');
		/* In the build tree, libtool's real program is in tools/.libs/. */
		const char *rel[] = { "/vela-simrun", "/../../sim/vela-simrun", "/../sim/vela-simrun" };
		for (size_t i = 0; slash && i < sizeof(rel) / sizeof(rel[0]); i++)
		{
			char cand[PATH_MAX];
			snprintf(cand, sizeof(cand), "%.*s%s", (int) (slash - path), path, rel[i]);
			if (access(cand, X_OK) == 0)
				execv(cand, argv);
		}
	}
	snprintf(path, sizeof(path), "%s/vela-simrun", VELA_BINDIR);
	if (access(path, X_OK) == 0)
		execv(path, argv);
	execvp("vela-simrun", argv);
	vela_err("simrun", "vela-simrun is not installed (this build of Vela has no SimGrid support, or "
		 "it is not in %s nor in PATH)", VELA_BINDIR);
	return VELA_EXIT_FAIL;
}
