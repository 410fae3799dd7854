/* fuzz_trace: the trace reader of `vela trace` (tools/trace_reader.c) and
 * every view over what it loads, under libFuzzer (issue 22 item 2).
 *
 * Any input must be refused with a message naming the file ('fuzz'), or
 * load; a loaded trace must go through the statistics, the diff and every
 * exporter (Perfetto JSON, Paje, SVG, tasks.rec, dot), and a rank's trace
 * of a distributed run through the merge and its exports, without a crash, a
 * leak or an allocation sized by a number from the file rather than by
 * the file (libFuzzer's -rss_limit_mb and -malloc_limit_mb catch those).
 * The input is the whole file.
 *
 * Built with libFuzzer by tests/fuzz/run-fuzz.sh, and without it for
 * `make check` (VELA_FUZZ_REPLAY: fuzz_main.h replays the corpus).
 */
#include "trace_reader.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *sink(void)
{
	static FILE *f;
	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	char err[512];
	err[0] = '\0';
	if (trace_parse(data, size, "fuzz", &t, err, sizeof(err)))
	{
		if (!strstr(err, "'fuzz'"))
		{
			fprintf(stderr, "refused without naming the file: '%s'\n", err);
			abort();
		}
		return 0;
	}
	FILE *out = sink();
	trace_report_incomplete(&t, out);
	struct trace_stats st;
	if (trace_compute_stats(&t, &st) == 0)
		trace_stats_free(&st);
	trace_print_stats(&t, out);
	trace_print_diff(&t, &t, out);
	trace_export_chrome(&t, out);
	trace_export_paje(&t, out);
	trace_export_svg(&t, out);
	trace_export_rec(&t, out);
	trace_export_dot(&t, out);
	/* A rank's trace: merged alone (1 rank), with a second copy posing
	 * as the other rank (2), or refused for the missing ranks. */
	if (t.has_process)
	{
		struct trace ts[2];
		unsigned n = 1;
		ts[0] = t;
		memset(&t, 0, sizeof(t));
		if (ts[0].nranks == 2 && trace_parse(data, size, "fuzz", &ts[1], err, sizeof(err)) == 0)
		{
			ts[1].rank = 1 - ts[0].rank;
			n = 2;
		}
		struct trace_merge m;
		if (trace_merge(ts, n, &m, err, sizeof(err)) == 0)
		{
			trace_merge_print(&m, out);
			trace_export_chrome_merged(&m, out);
			trace_export_paje_merged(&m, out);
			trace_merge_free(&m);
		}
		else if (!strstr(err, "'fuzz'"))
		{
			fprintf(stderr, "merge refused without naming the file: '%s'\n", err);
			abort();
		}
	}
	trace_free(&t);
	return 0;
}

#ifdef VELA_FUZZ_REPLAY
#define FUZZ_CORPUS "tests/fuzz/corpus/trace"
#include "fuzz_main.h"
#endif
