#!/bin/sh
# Golden tests of traces of a simulated run (issue 6): a small tiled
# Cholesky (tests/sim/replay_app, 8x8 tiles, 120 tasks) simulated on
# platforms/epyc2-4xa100-pcie (1 GPU, 3 CPU workers) with its derived
# models and dmda, so that the trace has CPU and GPU tasks and transfers
# (dmda keeps work near its data: with fewer tiles, or on the 2-GPU test
# platform's slow links, every task runs on one kind of worker). Simulated time makes the run
# deterministic: every export is compared byte for byte with
# tests/trace/golden/sim.*, a second run must give the same exports (and
# an untraced run the same makespan), and
# each export goes through a parser of its format (validate.sh). Then
# `vela trace diff` of the simulated trace against a real run of the same
# program must name every codelet.
#
# UPDATE_GOLDEN=1 rewrites the golden files instead (review the diff!).
# Skipped (77) when the SimGrid plugin was not built.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/sim/sim_test_env.sh"
app="$top_builddir/tests/sim/replay_app"
golden="$top_srcdir/tests/trace/golden"
need_built "$vela" "$app"
cd "$tmp" || exit 1

# simulate DIR: one simulated, traced run; its trace becomes DIR/sim.vtrace.
simulate() {
	mkdir "$1"
	STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM="$top_srcdir/platforms/epyc2-4xa100-pcie.platform.v4.xml" \
		STARPU_NCUDA=1 STARPU_NCPU=3 \
		STARPU_PERF_MODEL_DIR="$top_srcdir/perfmodels/epyc2-4xa100-pcie" STARPU_HOSTNAME=epyc2-4xa100-pcie \
		STARPU_SCHED=dmda STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$1/" "$app" 8 >"$1.out" 2>"$1.err" ||
		{ cat "$1.err"; problem "the simulated run failed"; exit 1; }
	mv "$1"/vela_trace_* "$1/sim.vtrace" || { problem "the simulated run wrote no trace"; exit 1; }
	(
		cd "$1" || exit 1
		for fe in chrome:json paje:paje svg:svg rec:rec dot:dot; do
			"$vela" trace export --format "${fe%%:*}" sim.vtrace -o "sim.${fe#*:}" 2>export.err ||
				{ cat export.err; exit 1; }
		done
		"$vela" trace stats sim.vtrace >sim.stats
	) || problem "exports of the simulated trace"
}
simulate a
simulate b
# Recording does not change the schedule: the same run untraced has the
# same makespan.
STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM="$top_srcdir/platforms/epyc2-4xa100-pcie.platform.v4.xml" \
	STARPU_NCUDA=1 STARPU_NCPU=3 \
	STARPU_PERF_MODEL_DIR="$top_srcdir/perfmodels/epyc2-4xa100-pcie" STARPU_HOSTNAME=epyc2-4xa100-pcie \
	STARPU_SCHED=dmda "$app" 8 >untraced.out 2>untraced.err || { cat untraced.err; problem "the untraced run failed"; }
grep -q "^makespan: " a.out && cmp -s a.out untraced.out ||
	{ cat a.out untraced.out; problem "the traced and untraced simulated runs differ"; }

for ext in json paje svg rec dot stats; do
	cmp -s "a/sim.$ext" "b/sim.$ext" || problem "two simulated runs gave different sim.$ext"
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "a/sim.$ext" "$golden/sim.$ext"
	elif ! diff -u "$golden/sim.$ext" "a/sim.$ext" >"diff.$ext"; then
		head -40 "diff.$ext"
		problem "sim.$ext differs from the golden file"
	fi
done
grep -q "simulated time" a/sim.stats || problem "the stats do not say the time is simulated"
grep -q "CUDA 0 *-> RAM 0\|RAM 0 *-> CUDA" a/sim.stats || problem "no transfer in the simulated trace"
(cd a && . "$top_srcdir/tests/trace/validate.sh" && validate_exports sim) || problem "validation"

# The same program for real (its kernels do nothing; the CPU workers run
# them), then compared with the simulated trace.
mkdir real
STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$tmp/real/" STARPU_NCPU=2 "$app" 8 >real.out 2>real.err ||
	{ cat real.err; problem "the real run failed"; }
"$vela" trace diff real/vela_trace_* a/sim.vtrace >diff.out 2>diff.err || { cat diff.err; problem "trace diff"; }
for c in potrf trsm syrk gemm; do
	grep -q "$c" diff.out || { cat diff.out; problem "trace diff does not compare codelet $c"; }
done

[ "$fail" = 0 ] && echo "simulated traces are deterministic, match the golden files and parse"
exit $fail
