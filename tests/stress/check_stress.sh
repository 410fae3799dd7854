#!/bin/sh
# The randomized task graph of every access mode (stress_modes.c), small:
# every scheduling policy in core, then a few out of core (runtime-allocated
# data four times STARPU_LIMIT_CPU_MEM, through a swap disk). Each run must
# match the sequential run byte for byte. Fixed seeds; a few seconds.
# The million-task runs are run-stress.sh (figures in bench/results-reliability.md).
set -u
bin=${top_builddir:-..}/tests/stress/stress_modes
[ -x "$bin" ] || bin=./stress/stress_modes
fail=0
"$bin" -n 3000 -s 7 -H 48 -L 4 || fail=1
swap=$(mktemp -d "${TMPDIR:-/tmp}/vela-stress-swap.XXXXXX") || exit 1
trap 'rm -rf "$swap"' EXIT
# 64 handles of 64 KiB = 4 MiB of data under a 1 MiB limit.
for p in lws dmdas tree-heft; do
	"$bin" -n 1500 -s 11 -H 64 -L 8192 -w 8 -m 1 -d "$swap" -p "$p" || fail=1
done
# Reductions out of core: contributions at rest (their fold not due yet)
# fill RAM unless they go to the swap disk. This graph stalled forever when
# they could not (a task waited for memory that only the folds release);
# now it must end, with the sequential run's bytes. A hang is a failure.
to=
command -v timeout >/dev/null 2>&1 && to="timeout 120"
$to "$bin" -n 1500 -s 2 -H 64 -L 8192 -w 8 -m 1 -d "$swap" -p eager -x scratch || fail=1
# The swap directory is left empty (the swap file is unlinked at once).
if [ -n "$(ls -A "$swap")" ]; then
	echo "check_stress: files left in the swap directory: $(ls -A "$swap")"
	fail=1
fi
exit $fail
