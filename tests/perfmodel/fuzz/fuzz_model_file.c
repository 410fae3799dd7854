/* fuzz_model_file: the model-file parser under libFuzzer.
 *
 * Any input must be either rejected (with a message) or parsed; a parsed
 * file, written back, must parse again and write back to the same bytes
 * (the writer's output is a fixed point). ASan/UBSan catch the rest.
 *
 * Built two ways: with clang -fsanitize=fuzzer by run-fuzz.sh (see the
 * README), and with VELA_FUZZ_REPLAY by `make check`, where a main() runs
 * every file of the corpus given on the command line once.
 */
#define _GNU_SOURCE
#include "perfmodel/perfmodel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *write_back(const struct pm_data *d, size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);
	if (!f)
		abort();
	if (pm_file_write(f, d, NULL))
		abort();
	fclose(f);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_data d;
	char err[512];
	if (pm_file_parse((const char *) data, size, "fuzz", &d, err, sizeof(err)))
	{
		/* Rejected: with a "name:line: reason" message. */
		if (strncmp(err, "fuzz:", 5))
			abort();
		return 0;
	}
	size_t len1, len2;
	char *out1 = write_back(&d, &len1);
	struct pm_data d2;
	if (pm_file_parse(out1, len1, "rewritten", &d2, err, sizeof(err)))
	{
		fprintf(stderr, "a written file does not parse: %s\n%s\n", err, out1);
		abort();
	}
	char *out2 = write_back(&d2, &len2);
	if (len1 != len2 || memcmp(out1, out2, len1))
	{
		fprintf(stderr, "writing is not a fixed point:\n%s\n---\n%s\n", out1, out2);
		abort();
	}
	free(out1);
	free(out2);
	pm_data_free(&d);
	pm_data_free(&d2);
	return 0;
}

#ifdef VELA_FUZZ_REPLAY
#include <dirent.h>

static int replay(const char *path)
{
	char *buf;
	size_t len;
	char err[512];
	if (pm_file_read_all(path, &buf, &len, err, sizeof(err)))
	{
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *) buf, len);
	free(buf);
	return 0;
}

/* Replays the files named on the command line, or else the whole corpus
 * of the source tree ($top_srcdir/tests/perfmodel/fuzz/corpus). */
int main(int argc, char **argv)
{
	int n = 0;
	for (int i = 1; i < argc; i++, n++)
		if (replay(argv[i]))
			return 1;
	if (argc == 1)
	{
		char dir[4096];
		const char *top = getenv("top_srcdir");
		snprintf(dir, sizeof(dir), "%s/tests/perfmodel/fuzz/corpus", top ? top : "..");
		DIR *d = opendir(dir);
		if (!d)
		{
			fprintf(stderr, "no corpus in %s\n", dir);
			return 77;
		}
		struct dirent *e;
		while ((e = readdir(d)))
		{
			if (e->d_name[0] == '.')
				continue;
			char path[8200];
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (replay(path))
				return 1;
			n++;
		}
		closedir(d);
	}
	printf("replayed %d inputs: each rejected with a message, or written back to a fixed point\n", n);
	return n ? 0 : 77;
}
#endif
