#!/bin/sh
# Every fuzz target for a few seconds (issue 22 item 7), in `make check`:
# the corpora were already replayed by the programs built without
# libFuzzer (perfmodel/fuzz/fuzz_replay, fuzz/fuzz_trace_replay,
# fuzz/fuzz_tasks_rec_replay); this adds a short libFuzzer run of each
# target (3 s, fixed seed, run-fuzz.sh) when clang has libFuzzer, and is
# skipped (77) when it has not. Findings fail the test; they land in
# $top_builddir/tests/fuzz-bin/artifacts/. FUZZ_SECONDS changes the time.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
# Scratch corpora start empty each time: the run stays the same length
# (the committed corpus, then mutations) however often it ran before.
FUZZ_BUILD="$top_builddir/tests/fuzz-bin"
rm -rf "$FUZZ_BUILD"/corpus-*
FUZZ_BUILD=$FUZZ_BUILD VELA_BUILD="$top_builddir" \
	exec sh "$top_srcdir/tests/fuzz/run-fuzz.sh" -s 1 "${FUZZ_SECONDS:-3}"
