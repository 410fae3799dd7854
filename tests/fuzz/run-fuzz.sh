#!/bin/sh
# Fuzzes the file readers with libFuzzer (+ ASan and UBSan), SECONDS each:
#   sh tests/fuzz/run-fuzz.sh [-t TARGET]... [-s SEED] [SECONDS]
# TARGET: model_file (runtime/perfmodel/model_file.c), trace (the trace
# reader and every view of `vela trace`), tasks_rec (the tasks.rec reader of
# `vela replay`); default: all three, one after the other. SECONDS defaults
# to 600 (the long run; `make check` runs 3 s each through check_fuzz.sh).
#
# Each target starts from its committed corpus (never modified here); new
# inputs that reach new code go to a scratch corpus in the build directory,
# findings (crash, leak, timeout, an allocation over -malloc_limit_mb: a
# size taken from the file rather than bounded by it) to
# $FUZZ_BUILD/artifacts/TARGET/. Add each finding, once fixed, to the
# committed corpus. Prints one summary line per target; exit 1 on any
# finding, 77 when clang has no libFuzzer.
#
# Environment: FUZZ_BUILD (default build/fuzz: binaries, scratch corpora,
# artifacts), CC_FUZZ (default clang), VELA_BUILD (the configured build
# tree, default build: for starpu_config.h).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
targets="" seed=""
while [ $# -gt 0 ]; do
	case $1 in
	-t) targets="$targets $2"; shift 2 ;;
	-s) seed=$2; shift 2 ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
secs=${1:-600}
targets=${targets:-model_file trace tasks_rec}
vbuild=${VELA_BUILD:-$top/build}
build=${FUZZ_BUILD:-$vbuild/fuzz}
CC=${CC_FUZZ:-clang}
[ -f "$vbuild/include/starpu_config.h" ] ||
	{ echo "run-fuzz: configure and build Vela first ($vbuild/include/starpu_config.h is needed)"; exit 1; }
mkdir -p "$build" || exit 1

# libFuzzer present? (Debian: clang, and libclang-rt-<N>-dev.)
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void) d; (void) n; return 0; }\n' >"$build/probe.c"
if ! $CC -fsanitize=fuzzer "$build/probe.c" -o "$build/probe" >/dev/null 2>&1; then
	echo "run-fuzz: $CC cannot build libFuzzer targets (install clang and libclang-rt-dev)"
	exit 77
fi

# The public headers include CUDA's when Vela was configured with CUDA.
cuda=${CUDA_CPPFLAGS:-$(sed -n 's/^CUDA_CPPFLAGS = //p' "$vbuild/Makefile" 2>/dev/null)}
CFLAGS="-g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I$top/include -I$vbuild/include -I$top/runtime -I$top -I$vbuild -I$top/tools $cuda"
trace_src="$top/tools/trace_reader.c $top/tools/trace_chrome.c $top/tools/trace_paje.c $top/tools/trace_svg.c \
	$top/tools/trace_rec.c $top/tools/trace_stats.c $top/tools/trace_merge.c $top/tools/trace_timeline.c"

# sources, corpus and dictionary of a target
sources() {
	case $1 in
	model_file) echo "$top/tests/perfmodel/fuzz/fuzz_model_file.c $top/runtime/perfmodel/model_file.c \
		$top/runtime/perfmodel/history.c $top/runtime/perfmodel/content.c" ;;
	trace) echo "$top/tests/fuzz/fuzz_trace.c $trace_src" ;;
	tasks_rec) echo "$top/tests/fuzz/fuzz_tasks_rec.c $top/tools/replay_rec.c $trace_src" ;;
	*) return 1 ;;
	esac
}
corpus() {
	case $1 in
	model_file) echo "$top/tests/perfmodel/fuzz/corpus" ;;
	*) echo "$top/tests/fuzz/corpus/$1" ;;
	esac
}
dict() {
	case $1 in
	model_file) echo "-dict=$top/tests/perfmodel/fuzz/model_file.dict" ;;
	*) echo "" ;;
	esac
}

status=0
for t in $targets; do
	src=$(sources "$t") || { echo "run-fuzz: unknown target '$t' (model_file, trace, tasks_rec)"; exit 2; }
	bin="$build/fuzz_$t"
	# Rebuilt when a source or header changed since.
	stale=1
	if [ -x "$bin" ]; then
		stale=0
		for f in $src $top/tools/*.h $top/runtime/perfmodel/*.h $top/runtime/os/regular_file.h $top/tests/fuzz/*.h; do
			[ "$f" -nt "$bin" ] && stale=1 && break
		done
	fi
	if [ $stale = 1 ]; then
		# shellcheck disable=SC2086
		$CC $CFLAGS $src -lm -o "$bin" 2>"$build/cc-$t.log" ||
			{ echo "run-fuzz: building $t failed:"; cat "$build/cc-$t.log"; exit 1; }
	fi
	work="$build/corpus-$t" art="$build/artifacts/$t/"
	mkdir -p "$work" "$art"
	log="$build/fuzz-$t.log"
	touch "$build/start-$t"
	# shellcheck disable=SC2046
	"$bin" -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
		-print_final_stats=1 -artifact_prefix="$art" ${seed:+-seed=$seed} $(dict "$t") \
		"$work" "$(corpus "$t")" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	found=$(find "$art" -type f -newer "$build/start-$t" 2>/dev/null | wc -l)
	if [ $rc -ne 0 ] || [ "$found" -gt 0 ]; then
		echo "FAIL: $t: exit $rc, $found finding(s) in $art; the end of $log:"
		tail -30 "$log"
		status=1
	else
		echo "ok: $t: ${secs} s, ${runs:-?} inputs, coverage ${cov:-?} edges, no finding (scratch corpus: $work)"
	fi
done
exit $status
