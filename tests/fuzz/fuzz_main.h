/* fuzz_main.h — main() of a fuzz target built without libFuzzer
 * (VELA_FUZZ_REPLAY), for `make check`: runs LLVMFuzzerTestOneInput once
 * on each file named on the command line (a directory: each file in it),
 * or else on each file of the target's committed corpus, FUZZ_CORPUS under
 * $top_srcdir. A finding aborts, as under libFuzzer. Include it once, at
 * the end of the target, with FUZZ_CORPUS defined.
 */
#ifndef VELA_FUZZ_MAIN_H
#define VELA_FUZZ_MAIN_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int fuzz_replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
	{
		perror(path);
		return -1;
	}
	size_t cap = 4096, len = 0;
	unsigned char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0)
	{
		len += n;
		if (len == cap)
		{
			unsigned char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (!buf)
		return -1;
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

/* Files of a directory (not recursive); returns how many, or -1. */
static int fuzz_replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
	{
		if (e->d_name[0] == '.')
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (fuzz_replay_file(path))
		{
			closedir(d);
			return -1;
		}
		n++;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int n = 0;
	for (int i = 1; i < argc; i++)
	{
		struct stat st;
		int k = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? fuzz_replay_dir(argv[i]) :
			(fuzz_replay_file(argv[i]) ? -1 : 1);
		if (k < 0)
			return 1;
		n += k;
	}
	if (argc == 1)
	{
		char dir[4096];
		const char *top = getenv("top_srcdir");
		snprintf(dir, sizeof(dir), "%s/%s", top ? top : "..", FUZZ_CORPUS);
		n = fuzz_replay_dir(dir);
		if (n < 0)
		{
			fprintf(stderr, "no corpus in %s\n", dir);
			return 77;
		}
	}
	printf("%s: replayed %d inputs without a finding\n", argv[0], n);
	return n ? 0 : 77;
}

#endif /* VELA_FUZZ_MAIN_H */
