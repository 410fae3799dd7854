#!/bin/sh
# The plugin's plain delays (sim/delay_sg.cpp, sim/README.md "Delays")
# give the same simulation as SimGrid's sleeps: a small tiled Cholesky
# (tests/sim/replay_app, 8x8 tiles, 120 tasks), traced, with the
# runtime's default overhead costs (4 delays per task) and without them,
# on CPU and GPU workers (platforms/epyc2-4xa100-pcie, 1 GPU + 3 CPUs:
# copies, prefetches, GPU queues) and on CPU workers only, under dmda,
# eager and lws: VELA_SIM_DELAYS=vela, unset, and =simgrid must print the
# same makespan and export the same trace, byte for byte. A value that is
# neither makes starpu_init fail with a message naming the variable.
# Skipped (77) when the SimGrid plugin was not built.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/sim/sim_test_env.sh"
app="$top_builddir/tests/sim/replay_app"
need_built "$vela" "$app"
cd "$tmp" || exit 1
STARPU_SIMGRID=1 STARPU_PERF_MODEL_DIR="$top_srcdir/perfmodels/epyc2-4xa100-pcie" STARPU_HOSTNAME=epyc2-4xa100-pcie
export STARPU_SIMGRID STARPU_PERF_MODEL_DIR STARPU_HOSTNAME
costs() {
	for k in TASK_SUBMIT SCHED FETCHING_INPUT TRANSFER CUDA_MALLOC CUDA_QUEUE; do
		if [ "$1" = on ]; then unset STARPU_SIMGRID_${k}_COST; else export STARPU_SIMGRID_${k}_COST=0; fi
	done
}

# run NAME MODE PLATFORM NCUDA SCHED: one traced run; NAME.out and NAME.rec.
run() {
	mkdir "$1"
	if [ "$2" = unset ]; then d=""; else d="VELA_SIM_DELAYS=$2"; fi
	env $d STARPU_SIMGRID_PLATFORM="$top_srcdir/platforms/$3.platform.v4.xml" STARPU_NCUDA="$4" STARPU_NCPU=3 \
		STARPU_SCHED="$5" STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$1/" "$app" 8 >"$1.out" 2>"$1.err" ||
		{ cat "$1.err"; problem "$1: the simulated run failed"; return; }
	"$vela" trace export --format rec "$1"/vela_trace_* -o "$1.rec" 2>"$1.err" ||
		{ cat "$1.err"; problem "$1: the trace export failed"; }
}

for c in on off; do
	costs $c
	for case in epyc2-4xa100-pcie:1:dmda epyc2-4xa100-pcie:1:eager epyc-12core:0:lws epyc-12core:0:dmda; do
		plat=${case%%:*} rest=${case#*:}
		ncuda=${rest%%:*} sched=${rest#*:}
		name=$plat.$ncuda.$sched.$c
		for mode in simgrid vela unset; do
			run "$name.$mode" $mode "$plat" "$ncuda" "$sched"
		done
		grep -q "^makespan: " "$name.simgrid.out" || problem "$name: no makespan printed"
		grep -q "^Name: " "$name.simgrid.rec" || problem "$name: no task in the trace"
		for mode in vela unset; do
			cmp -s "$name.simgrid.out" "$name.$mode.out" ||
				problem "$name: makespan with VELA_SIM_DELAYS=$mode: $(grep makespan "$name.$mode.out"), with simgrid: $(grep makespan "$name.simgrid.out")"
			cmp -s "$name.simgrid.rec" "$name.$mode.rec" ||
				problem "$name: the trace with VELA_SIM_DELAYS=$mode differs from simgrid's: $(diff "$name.simgrid.rec" "$name.$mode.rec" | head -4 | tr '\n' ' ')"
		done
	done
done
# The GPU case does run tasks on the GPU (worker 0: CUDA workers come first).
grep -q "^WorkerId: 0$" epyc2-4xa100-pcie.1.dmda.on.simgrid.rec || problem "no GPU task in the dmda trace"

# A bad value: starpu_init fails, naming the variable.
VELA_SIM_DELAYS=sometimes STARPU_SIMGRID_PLATFORM="$top_srcdir/platforms/epyc-12core.platform.v4.xml" \
	"$app" 2 >bad.out 2>bad.err && problem "VELA_SIM_DELAYS=sometimes was accepted"
grep -q "VELA_SIM_DELAYS='sometimes'" bad.err || { cat bad.err; problem "no message naming VELA_SIM_DELAYS"; }

[ "$fail" = 0 ] && echo "PASS: plain delays and SimGrid sleeps give the same simulations"
exit $fail
