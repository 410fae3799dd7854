#!/bin/sh
# cholesky and lu simulated (STARPU_SIMGRID=1 at process start, the build
# tree's plugin) on platforms/epyc-12core (12 CPU workers), every task lasting
# 1 ms (STARPU_SIMGRID_DEFAULT_TASK_US, no models): the programs must say the
# run is simulated, allocate no matrix, skip the check, and report the length
# of their critical path. With 4x4 tiles both graphs are 10 tasks deep and at
# most 9 wide, so under a central-queue policy the makespan is 10 ms (plus
# whatever simulated runtime overhead, allowed up to 0.5 ms).
# Then both on platforms/epyc2-4xa100-pcie with 2 of its simulated GPUs and
# the models shipped in perfmodels/ (no default duration): every kernel of
# both programs must find a model for the CPU and the CUDA arch, and the GPUs
# must take tasks. Neither run may warn that data is read before being
# written (the tiles are registered in RAM, as in a real run).
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(pwd)/../sim/.libs/libvela-sim.so
[ -f "$plugin" ] || { echo "skipped: no simulation plugin $plugin (built without SimGrid)"; exit 77; }
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
export VELA_SIM_PLUGIN="$plugin" STARPU_SIMGRID=1 STARPU_SIMGRID_DEFAULT_TASK_US=1000
export STARPU_SIMGRID_PLATFORM="$here/../platforms/epyc-12core.platform.v4.xml"
export STARPU_PERF_MODEL_DIR="$models" STARPU_HOSTNAME=simquick
unset STARPU_NCPU
fail=0
for prog in cholesky lu; do
	out=$(./$prog -q -s eager,prio 2>"$models/err") || { echo "FAIL: $prog exited $?"; echo "$out"; cat "$models/err"; fail=1; continue; }
	echo "$out"
	# A correct program gets no warning: the simulated run registers its
	# tiles in RAM as the real one does (issue 22 item 12).
	! grep -q "read before anything was written" "$models/err" ||
		{ echo "FAIL: $prog: warnings of data read before written:"; head -3 "$models/err"; fail=1; }
	echo "$out" | grep -q '^# tiled .*\[simulated: no data, no check\]' ||
		{ echo "FAIL: $prog did not see the simulation before starpu_init"; fail=1; }
	echo "$out" | grep -q '^# runtime: 12 CPU worker' ||
		{ echo "FAIL: $prog: expected the platform's 12 CPU workers"; fail=1; }
	lines=$(echo "$out" | grep -c "^$prog .*check=skipped")
	[ "$lines" = 2 ] || { echo "FAIL: $prog: expected 2 result lines with check=skipped, got $lines"; fail=1; }
	echo "$out" | awk -v p="$prog" '$1 == p { t = $0; sub(/.* time= */, "", t); split(t, f, " ")
		if (!(f[1] >= 10.0 && f[1] <= 10.5)) { print "FAIL: " p ": makespan " f[1] " ms, expected 10.0 to 10.5"; bad = 1 } }
		END { exit bad }' || fail=1
done

unset STARPU_SIMGRID_DEFAULT_TASK_US
export STARPU_SIMGRID_PLATFORM="$here/../platforms/epyc2-4xa100-pcie.platform.v4.xml"
export STARPU_PERF_MODEL_DIR="$here/../perfmodels/epyc2-4xa100-pcie" STARPU_HOSTNAME=epyc2-4xa100-pcie
export STARPU_NCUDA=2 STARPU_WORKER_STATS=1
for prog in cholesky lu; do
	out=$(./$prog -n 8192 -b 1024 -s dmda 2>"$models/err") || { echo "FAIL: $prog on GPUs exited $?"; cat "$models/err"; fail=1; continue; }
	echo "$out" | grep "^$prog "
	echo "$out" | grep -q '^# runtime: .* 2 CUDA worker' ||
		{ echo "FAIL: $prog: expected 2 simulated CUDA workers"; echo "$out"; fail=1; }
	! grep -qi "error\|read before anything was written" "$models/err" || { echo "FAIL: $prog on GPUs reported:"; cat "$models/err"; fail=1; }
	# STARPU_WORKER_STATS: each CUDA worker executed some tasks.
	gpu_tasks=$(awk '/^CUDA/ { cuda = 1; next } cuda && /task\(s\)/ { n += $1 } { cuda = 0 } END { print n + 0 }' "$models/err")
	[ "${gpu_tasks:-0}" -gt 0 ] || { echo "FAIL: $prog: the simulated GPUs ran no task"; cat "$models/err"; fail=1; }
done
exit $fail
