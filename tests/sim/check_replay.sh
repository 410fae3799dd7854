#!/bin/sh
# `vela replay` (issue 7): a small application (tests/sim/replay_app.c, the
# task graph of a tiled Cholesky) is run in simulation on the 4-CPU test
# platform with the committed ci-2core models and recorded; its tasks.rec
# is replayed
#   - with the same platform, scheduler and models: the same makespan, to
#     the nanosecond, and the same statistics of the replay's own trace;
#   - again: the same makespan (determinism);
#   - with other schedulers and CPU counts: it completes, same task count;
#   - from a StarPU-style record (no Where/ModelType/HomeNodes, hex handle
#     addresses);
# and every bad input gets a one-line error and its exit code: missing
# file, malformed lines and records (file:line), duplicate or unknown job
# ids, a dependency cycle, an unknown model symbol (with and without
# --default-task-us), a footprint the model lacks, an unknown scheduler,
# bad options. Skipped (77) when the SimGrid plugin was not built.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/sim/sim_test_env.sh"
app="$top_builddir/tests/sim/replay_app"
platform="$top_srcdir/tests/sim/data/4cpu.platform.v4.xml"
models="$top_srcdir/perfmodels/ci-2core"

# expect CODE PATTERN CMD...: exit code and output (grep -E) of CMD.
expect() {
	code=$1 pattern=$2
	shift 2
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" != "$code" ]; then
		echo "FAIL: '$*' exited $got, expected $code:"; cat "$tmp/out"; fail=1
	elif [ -n "$pattern" ] && ! grep -qE -- "$pattern" "$tmp/out"; then
		echo "FAIL: '$*' did not print /$pattern/:"; cat "$tmp/out"; fail=1
	else
		echo "ok: $* -> $got"
	fi
}
makespan() { sed -n 's/^makespan: \([0-9.]*\) us.*/\1/p' "$1"; }
replay() { "$vela" replay "$@" --platform "$platform" --models "$models" --hostname ci-2core; }

# The original run, simulated and recorded.
mkdir "$tmp/orig" "$tmp/r1" "$tmp/r2"
STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM=$platform STARPU_PERF_MODEL_DIR=$models STARPU_HOSTNAME=ci-2core \
	STARPU_SCHED=dmda STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$tmp/orig/" "$app" 5 >"$tmp/orig.out" 2>"$tmp/orig.err" ||
	{ cat "$tmp/orig.err"; problem "the simulated run failed"; exit 1; }
orig=$(makespan "$tmp/orig.out")
ntasks=$(sed -n 's/^tasks: //p' "$tmp/orig.out")
[ -n "$orig" ] && [ "$ntasks" = 35 ] || { cat "$tmp/orig.out"; problem "the simulated run printed no makespan"; exit 1; }
"$vela" trace export --format rec "$tmp"/orig/vela_trace_* -o "$tmp/app.rec" 2>/dev/null || problem "rec export"
grep -q "^Handles: " "$tmp/app.rec" && grep -q "^Model: vela_dgemm" "$tmp/app.rec" || problem "the rec lacks Handles or Model"

# Same platform, scheduler and models: the same makespan.
replay "$tmp/app.rec" --sched dmda --trace "$tmp/r1/" >"$tmp/r1.out" 2>"$tmp/r1.err" || { cat "$tmp/r1.err"; problem "replay failed"; }
r1=$(makespan "$tmp/r1.out")
echo "original makespan $orig us, replayed $r1 us"
[ -n "$r1" ] && [ "$r1" = "$orig" ] || { cat "$tmp/r1.out"; problem "replayed makespan $r1 us differs from the original $orig us"; }
grep -q "^replay: .*: $ntasks tasks" "$tmp/r1.out" || problem "task count of the replay"
grep -q "^GFlop/s: " "$tmp/r1.out" || problem "no GFlop/s though the records carry GFlop"
"$vela" trace stats "$tmp"/orig/vela_trace_* | sed -n '3,4p' >"$tmp/orig.stats"
"$vela" trace stats "$tmp"/r1/vela_trace_* | sed -n '3,4p' >"$tmp/r1.stats"
cmp -s "$tmp/orig.stats" "$tmp/r1.stats" || { cat "$tmp/orig.stats" "$tmp/r1.stats"; problem "trace statistics of the replay differ"; }
# Deterministic.
replay "$tmp/app.rec" --sched dmda >"$tmp/r2.out" 2>&1
[ "$(makespan "$tmp/r2.out")" = "$r1" ] || problem "a second replay gave $(makespan "$tmp/r2.out") us, not $r1 us"

# Other schedulers and worker counts: completes, same tasks.
for args in "--sched eager --ncpu 2" "--sched lws --ncpu 3" "--sched prio --ncpu 1" "--sched dmdas"; do
	# shellcheck disable=SC2086
	replay "$tmp/app.rec" $args >"$tmp/o.out" 2>&1 || { cat "$tmp/o.out"; problem "replay $args failed"; continue; }
	m=$(makespan "$tmp/o.out")
	grep -q "^replay: .*: $ntasks tasks" "$tmp/o.out" && [ -n "$m" ] || { cat "$tmp/o.out"; problem "replay $args: no makespan or wrong task count"; }
	echo "ok: replay $args: $m us"
done
# One CPU runs everything in sequence: the makespan is the total work.
replay "$tmp/app.rec" --sched eager --ncpu 1 >"$tmp/o.out" 2>&1
work=$(awk '/^StartTime/ { s = $2 } /^EndTime/ { t += $2 - s } END { printf "%.0f", t * 1000 }' "$tmp/app.rec")
m1=$(makespan "$tmp/o.out" | awk '{ printf "%.0f", $1 }')
[ "$m1" = "$work" ] || problem "one CPU: makespan $m1 us, total work $work us"

# A StarPU-style record: addresses as handles, no Vela fields.
cat >"$tmp/starpu.rec" <<'EOF'
Name: potrf
Model: vela_dpotrf
JobId: 11
SubmitOrder: 1
Tag: 0
Footprint: 3e921964
GFlop: 0.000699
Handles: 55d0c0ffee00
Modes: RW
Sizes: 131072
MPIRank: 0

Name: trsm
Model: vela_dtrsm
JobId: 12
SubmitOrder: 2
DependsOn: 11
Footprint: 353646dc
Handles: 55d0c0ffee00 55d0c0ffee80
Modes: R RW
Sizes: 131072 131072
MPIRank: 0
EOF
expect 0 "^makespan: 155.392 us" replay "$tmp/starpu.rec" --sched eager

# Bad input.
expect 1 "cannot open '$tmp/none.rec'" replay "$tmp/none.rec"
bad() { printf "$2" >"$tmp/bad.rec"; expect 1 "$1" replay "$tmp/bad.rec"; }
bad "bad.rec:2: not a 'Field: value' line" 'JobId: 1\nthis line is wrong\n'
bad "bad.rec:1: JobId 'x1' is not a positive integer" 'JobId: x1\nModel: vela_dpotrf\n'
bad "bad.rec:1: record without a JobId" 'Model: vela_dpotrf\n'
bad "bad.rec:5: JobId 1 appears twice \\(also line 1\\)" 'JobId: 1\nModel: vela_dpotrf\n\n\nJobId: 1\nModel: vela_dpotrf\n'
bad "job 2 depends on job 7, which is not in the file" 'JobId: 1\nModel: vela_dpotrf\n\nJobId: 2\nModel: vela_dpotrf\nDependsOn: 7\n'
bad "bad.rec:1: job 1 is on a dependency cycle" 'JobId: 1\nModel: vela_dpotrf\nDependsOn: 2\n\nJobId: 2\nModel: vela_dpotrf\nDependsOn: 1\n'
bad "bad.rec:3: job 1: 2 Handles, 1 Modes and 2 Sizes" 'JobId: 1\nModel: vela_dpotrf\nHandles: 1 2\nModes: RW\nSizes: 8 8\n'
bad "bad.rec:3: Modes: 'Q' is not an access mode" 'JobId: 1\nModel: vela_dpotrf\nModes: Q\n'
bad "bad.rec:2: Footprint 'zz' is not a 32-bit hexadecimal number" 'JobId: 1\nFootprint: zz\n'
bad "no task records" '# only a comment\n'
bad "bad.rec:1: no performance model 'no_such_model' for host ci-2core" 'Name: x\nModel: no_such_model\nJobId: 1\n'
bad "bad.rec:1: model 'vela_dpotrf' has no entry for footprint 0badf00d \\(job 1\\)" 'Name: p\nModel: vela_dpotrf\nJobId: 1\nFootprint: 0badf00d\n'
bad "model 'cost' is per-arch: its predictions come from the application" 'Name: c\nModel: cost\nModelType: per-arch\nJobId: 1\n'
# A missing model or entry with a fallback duration runs.
printf 'Name: x\nModel: no_such_model\nJobId: 1\n\nName: x\nModel: no_such_model\nJobId: 2\nDependsOn: 1\n' >"$tmp/fallback.rec"
expect 0 "^makespan: 25.000 us" replay "$tmp/fallback.rec" --default-task-us 12.5
# Usage and options.
expect 2 "unknown scheduling policy" replay "$tmp/app.rec" --sched nosuchsched
expect 2 "no tasks.rec file given" "$vela" replay
expect 2 "unknown option '--frobnicate'" replay "$tmp/app.rec" --frobnicate
expect 2 "--ncpu 'many'" replay "$tmp/app.rec" --ncpu many
expect 2 "--default-task-us '-3'" replay "$tmp/app.rec" --default-task-us -3
expect 2 "--where: unknown arch 'fpga'" replay "$tmp/app.rec" --where fpga
expect 1 "--platform '$tmp/none.xml'" "$vela" replay "$tmp/app.rec" --platform "$tmp/none.xml"
expect 0 "Usage: vela replay" "$vela" replay --help
# A run with simulated GPUs (tasks on CUDA workers, transfers) replays to
# the same makespan; the same graph replays on the 8-GPU example machine.
gpu_env() {
	STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM="$top_srcdir/tests/sim/data/2cuda.platform.v4.xml" \
		STARPU_PERF_MODEL_DIR="$top_srcdir/perfmodels/epyc2-4xa100-pcie" STARPU_HOSTNAME=epyc2-4xa100-pcie \
		STARPU_SCHED=dmda "$@"
}
mkdir "$tmp/gpu"
gpu_env env STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$tmp/gpu/" "$app" 5 >"$tmp/gpu.out" 2>"$tmp/gpu.err" ||
	{ cat "$tmp/gpu.err"; problem "the simulated run with GPUs failed"; }
"$vela" trace export --format rec "$tmp"/gpu/vela_trace_* -o "$tmp/gpu.rec" 2>/dev/null || problem "rec export (GPUs)"
grep -q "^Where: .*cuda" "$tmp/gpu.rec" || problem "the GPU run's records do not say the codelets run on CUDA"
"$vela" replay "$tmp/gpu.rec" --sched dmda --platform "$top_srcdir/tests/sim/data/2cuda.platform.v4.xml" \
	--models "$top_srcdir/perfmodels/epyc2-4xa100-pcie" --hostname epyc2-4xa100-pcie >"$tmp/gpur.out" 2>&1 ||
	{ cat "$tmp/gpur.out"; problem "replay of the GPU run failed"; }
g0=$(makespan "$tmp/gpu.out") g1=$(makespan "$tmp/gpur.out")
echo "GPU run: makespan $g0 us, replayed $g1 us"
[ -n "$g0" ] && [ "$g0" = "$g1" ] || problem "replayed GPU makespan $g1 us differs from the original $g0 us"
grep -q "2 CPU + 2 CUDA" "$tmp/gpur.out" || problem "the replay did not use the platform's GPUs"
"$vela" replay "$tmp/gpu.rec" --sched dmda --platform "$top_srcdir/platforms/dgx-a100.platform.v4.xml" \
	--models "$top_srcdir/perfmodels/dgx-a100" --hostname dgx-a100 >"$tmp/dgx.out" 2>&1 &&
	grep -q "8 CUDA" "$tmp/dgx.out" && grep -q "^replay: .*: $ntasks tasks" "$tmp/dgx.out" ||
	{ cat "$tmp/dgx.out"; problem "replay on dgx-a100"; }

# Codelets only a GPU can run, on a platform without GPUs.
sed 's/^Where: .*/Where: cuda/' "$tmp/app.rec" >"$tmp/cuda.rec"
expect 1 "could not be submitted: .*no worker of this platform can run its codelet" replay "$tmp/cuda.rec"

[ $fail = 0 ] && echo "vela replay: same makespan as the recorded run ($orig us), other schedulers complete, bad inputs handled"
exit $fail
