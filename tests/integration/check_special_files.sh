#!/bin/sh
# Special files where the runtime and the vela command expect regular ones
# (issue 22 item 8): a FIFO named like a model file made model loading and
# `vela perfmodel show` block forever in open(); `vela trace stats|export|
# diff DIR` tried to allocate LLONG_MAX bytes; a FIFO as trace, tasks.rec or
# replay platform blocked too. Each must now end at once with exit 1 and a message naming
# the file and what it is; an application calibrating goes on without the
# model and leaves the FIFO alone. Every command runs under a time limit,
# so a hang fails the test instead of stalling the suite.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
vela="$top_builddir/tools/vela"
helper="$top_builddir/tests/perfmodel/calibrate_helper"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STARPU_HOME=$tmp STARPU_HOSTNAME=fifohost STARPU_SILENT=1 STARPU_NCPU=1
export STARPU_HOME STARPU_HOSTNAME STARPU_SILENT STARPU_NCPU
unset STARPU_PERF_MODEL_DIR STARPU_CALIBRATE
fail=0

# expect CODE PATTERN CMD...: exit code and output (grep -E) of CMD, run
# for at most 20 s (exit 124: it hung).
expect() {
	code=$1 pattern=$2
	shift 2
	timeout -k 5 20 "$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" != "$code" ]; then
		echo "FAIL: '$*' exited $got, expected $code$( [ "$got" = 124 ] && echo ' (it hung)'):"; cat "$tmp/out"; fail=1
	elif [ -n "$pattern" ] && ! grep -qE -- "$pattern" "$tmp/out"; then
		echo "FAIL: '$*' did not print /$pattern/:"; cat "$tmp/out"; fail=1
	else
		echo "ok: $* -> $got"
	fi
}

models="$tmp/.starpu/sampling/codelets/45"
mkdir -p "$models" "$tmp/d"
mkfifo "$models/fifo_model.fifohost" "$tmp/t.fifo" || { echo "SKIP: mkfifo failed"; exit 77; }
mkdir "$models/dir_model.fifohost"

# Model files.
expect 1 "fifo_model.fifohost: a FIFO \(named pipe\), not a model file" "$vela" perfmodel show fifo_model
expect 1 "dir_model.fifohost: a directory, not a model file" "$vela" perfmodel show dir_model
expect 0 "fifo_model .*unreadable.*FIFO" "$vela" perfmodel list
expect 0 "dir_model .*unreadable.*directory" "$vela" perfmodel list
expect 1 "FIFO" "$vela" perfmodel plot fifo_model -o "$tmp/plot.svg"
# An application whose model file is a FIFO: calibrates without it, says
# why, and does not replace the FIFO.
mkfifo "$models/vela_rt_hist.fifohost"
expect 0 "model 'vela_rt_hist' not loaded: .*a FIFO" env STARPU_SILENT=0 STARPU_CALIBRATE=1 "$helper"
[ -p "$models/vela_rt_hist.fifohost" ] || { echo "FAIL: the FIFO was replaced"; fail=1; }
[ -f "$models/vela_rt_nl.fifohost" ] || { echo "FAIL: the other model was not saved"; fail=1; }

# Traces: a directory and a FIFO, with every subcommand.
for f in "$tmp/d" "$tmp/t.fifo"; do
	what="is a directory"
	[ -p "$f" ] && what="is a FIFO \(named pipe\)"
	expect 1 "'$f' $what, not a trace file" "$vela" trace stats "$f"
	for fmt in chrome paje svg rec dot; do
		expect 1 "'$f' $what, not a trace file" "$vela" trace export --format $fmt "$f" -o "$tmp/out.$fmt"
	done
	expect 1 "'$f' $what, not a trace file" "$vela" trace diff "$f" "$f"
	# tasks.rec, and a platform for it
	expect 1 "'$f' $what, not a tasks.rec file" "$vela" replay "$f"
	printf 'Name: x\nJobId: 1\n' >"$tmp/one.rec"
	expect 1 "--platform '$f' $what, not a platform file" "$vela" replay "$tmp/one.rec" --platform "$f" --default-task-us 1
done
exit $fail
