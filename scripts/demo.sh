#!/bin/sh
# Quick start 1: install the dependencies, build Vela, and run the demo: a
# tiled Cholesky factorization on this machine's CPU workers, once per
# scheduling policy, printing time and GFlop/s; then once more with trace
# recording on (STARPU_FXT_TRACE=1), exported as an SVG Gantt chart.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/deps.sh"
sh "$root/scripts/build.sh"
cd "$root/build/examples"
export OPENBLAS_NUM_THREADS=1
export STARPU_HOME="${STARPU_HOME:-$root/build/home}"
echo ""
echo "== Vela demo: tiled Cholesky (examples/cholesky.c) on the CPU workers =="
./cholesky "$@"
case " $* " in *" -h "*|*" --help "*) exit 0 ;; esac

echo ""
echo "== The same factorization traced (STARPU_FXT_TRACE=1), scheduler prio =="
tracedir="$root/build/demo-trace"
rm -rf "$tracedir"
mkdir -p "$tracedir"
STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$tracedir" ./cholesky "$@" -s prio -r 1 --no-check
trace=$(ls "$tracedir"/vela_trace_* 2>/dev/null | head -1)
if [ -z "$trace" ]; then
	echo "no trace was written in $tracedir" >&2
	exit 1
fi
vela="$root/build/tools/vela"
"$vela" trace export --format svg "$trace" -o "$tracedir/cholesky.svg" 2>/dev/null
"$vela" trace export --format chrome "$trace" -o "$tracedir/cholesky.json" 2>/dev/null
"$vela" trace export --format paje "$trace" -o "$tracedir/cholesky.paje" 2>/dev/null
"$vela" trace stats "$trace" | sed -n '1,4p;/^Critical path/,$p'
echo ""
echo "Gantt chart of this run: $tracedir/cholesky.svg (open it in a web browser)"
echo "Same run for Perfetto (ui.perfetto.dev): $tracedir/cholesky.json; for ViTE: $tracedir/cholesky.paje"
echo "More: build/tools/vela trace --help"
