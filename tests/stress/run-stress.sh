#!/bin/sh
# The million-task runs of the randomized graph of every access mode
# (stress_modes.c): every scheduling policy in core, then every policy out
# of core (runtime-allocated data several times STARPU_LIMIT_CPU_MEM,
# through a swap disk). Prints per policy the wall time and whether the
# result matched the sequential run byte for byte; exits non-zero if one
# did not. Figures: bench/results-reliability.md.
#
# Usage: tests/stress/run-stress.sh [-n ntasks] [-N ooc_ntasks] [-p policy] [-i|-o] [-R]
#   -n  in-core tasks (default 1000000), -N out-of-core tasks (default 1000000)
#   -i  in core only, -o out of core only
#   -R  REDUX accesses out of core too (left out by default, as in the first
#       published figures)
# Run from the repository after scripts/build.sh (uses build/tests/stress/).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${STRESS_BIN:-$root/build/tests/stress/stress_modes}
if [ ! -x "$bin" ]; then
	make -C "$root/build/tests" stress/stress_modes >/dev/null || exit 1
fi
n=1000000 N=1000000 only= what=io noredux="-x redux"
while getopts "n:N:p:ioR" o; do
	case $o in
	n) n=$OPTARG ;;
	N) N=$OPTARG ;;
	p) only="-p $OPTARG" ;;
	i) what=i ;;
	o) what=o ;;
	R) noredux= ;;
	*) sed -n '9,14p' "$0"; exit 1 ;;
	esac
done
export STARPU_SILENT=1
fail=0
echo "== $(date -u '+%F %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
case $what in *i*)
	# 256 handles of 4 values, every access mode, every policy.
	"$bin" -n "$n" -s 42 -H 256 -L 4 $only || fail=1 ;;
esac
case $what in *o*)
	swap=$(mktemp -d "${TMPDIR:-/tmp}/vela-stress-swap.XXXXXX") || exit 1
	trap 'rm -rf "$swap"' EXIT
	# 1024 handles of 8 KiB = 8 MiB of data under a 2 MiB limit; the
	# tasks work mostly on a window of 128 handles (1 MiB) that moves
	# along the pool, and one access in eight anywhere.
	# Without REDUX unless -R (README.md, "REDUX out of core"); STRESS_OOC_FLAGS adds flags.
	"$bin" -n "$N" -s 43 -H 1024 -L 1024 -w 128 -m 2 -d "$swap" $noredux ${STRESS_OOC_FLAGS:-} $only || fail=1 ;;
esac
exit $fail
