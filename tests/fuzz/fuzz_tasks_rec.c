/* fuzz_tasks_rec: the tasks.rec reader of `vela replay`
 * (tools/replay_rec.c) under libFuzzer (issue 22 item 2).
 *
 * Any input must be refused with a "fuzz:line: reason" (or "fuzz: ...")
 * message, or load into a graph that keeps replay.h's promises: every
 * dependency names a task of the graph, the declared ones come first,
 * every buffer's handle index is in range, the counts add up. No count in
 * the file sizes an allocation beyond what the file holds (each buffer,
 * dependency and task costs the file bytes).
 *
 * Built with libFuzzer by tests/fuzz/run-fuzz.sh, and without it for
 * `make check` (VELA_FUZZ_REPLAY: fuzz_main.h replays the corpus).
 */
#include "replay.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* fmemopen wants a non-empty, writable buffer: a copy. */
	char *copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	FILE *f = size ? fmemopen(copy, size, "r") : fopen("/dev/null", "r");
	if (!f)
		abort();
	struct replay_graph g;
	char err[1024];
	err[0] = '\0';
	int ret = replay_read(f, "fuzz", &g, err, sizeof(err));
	fclose(f);
	free(copy);
	if (ret)
	{
		if (strncmp(err, "fuzz", 4))
		{
			fprintf(stderr, "refused without naming the file: '%s'\n", err);
			abort();
		}
		return 0;
	}
	unsigned ndeps = 0, nexplicit = 0;
	for (unsigned i = 0; i < g.ntasks; i++)
	{
		const struct replay_task *t = &g.tasks[i];
		if (t->nexplicit > t->ndeps)
			abort();
		for (unsigned d = 0; d < t->ndeps; d++)
			if (t->pred_index[d] >= g.ntasks || t->pred_index[d] == i)
				abort();
		for (unsigned b = 0; b < t->nbuf; b++)
			if (t->bufs[b].hidx >= g.nhandles)
				abort();
		ndeps += t->ndeps;
		nexplicit += t->nexplicit;
	}
	if (ndeps != g.ndeps || nexplicit != g.nexplicit)
		abort();
	replay_free(&g);
	return 0;
}

#ifdef VELA_FUZZ_REPLAY
#define FUZZ_CORPUS "tests/fuzz/corpus/tasks_rec"
#include "fuzz_main.h"
#endif
