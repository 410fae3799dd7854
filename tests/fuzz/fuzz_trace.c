/* fuzz_trace: the trace reader of `vela trace` (tools/trace_reader.c) and
 * every view over what it loads, under libFuzzer (issue 22 item 2).
 *
 * Any input must be refused with a message naming the file ('fuzz'), or
 * load; a loaded trace must go through the statistics, the diff and every
 * exporter (Perfetto JSON, Paje, SVG, tasks.rec, dot) without a crash, a
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
	trace_free(&t);
	return 0;
}

#ifdef VELA_FUZZ_REPLAY
#define FUZZ_CORPUS "tests/fuzz/corpus/trace"
#include "fuzz_main.h"
#endif
