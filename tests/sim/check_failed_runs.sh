#!/bin/sh
# Failed tasks are visible to whoever ran them (issue 22 item 4): a
# simulated run whose data cannot fit the platform's RAM (memsize 1000
# bytes) used to count its tasks as done and report a time and GFlop/s from
# a partial run, exit 0; so did one without models (226 error lines, then
# a GFlop/s). Now:
#   - examples/cholesky exits 1, says how many tasks failed, prints no
#     time, and the runtime prints one line per cause (not two per task)
#     and the per-cause counts at starpu_shutdown;
#   - `vela replay` exits 1 with "tasks failed" and prints no makespan.
# Skipped (77) when the SimGrid plugin was not built.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/sim/sim_test_env.sh"

# The 4-CPU test platform with a RAM of 1000 bytes.
sed 's/name="memsize" value="[0-9]*"/x/; s/<prop id="memsize" value="[0-9]*"\/>/<prop id="memsize" value="1000"\/>/' \
	"$top_srcdir/tests/sim/data/4cpu.platform.v4.xml" >"$tmp/tiny-ram.xml"
grep -q 'value="1000"' "$tmp/tiny-ram.xml" || { problem "could not make the tiny-RAM platform"; exit 1; }

# cholesky with no models and no default duration: every task fails
# (-ENOENT: its duration is unknown).
mkdir "$tmp/models"
STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM="$top_srcdir/tests/sim/data/4cpu.platform.v4.xml" \
	STARPU_PERF_MODEL_DIR="$tmp/models" STARPU_HOSTNAME=nomodels \
	"$top_builddir/examples/cholesky" -q -n 256 -b 64 -s eager >"$tmp/chol.out" 2>"$tmp/chol.err"
rc=$?
if [ "$rc" != 1 ]; then
	problem "cholesky without models exited $rc, expected 1"; cat "$tmp/chol.out" "$tmp/chol.err"
fi
grep -q "GFlop/s=" "$tmp/chol.out" && problem "cholesky printed a GFlop/s from a partial run: $(grep GFlop "$tmp/chol.out")"
grep -q "cholesky: 20 task(s) failed under sched eager" "$tmp/chol.err" || { problem "cholesky did not say its 20 tasks failed"; cat "$tmp/chol.err"; }
grep -q "starpu_shutdown: 20 task(s) failed" "$tmp/chol.err" || problem "no failure count at starpu_shutdown"
# One line per cause (4 codelets), then the shutdown report (a line, and a
# line per cause), then the example's own line: 10, not 2 per task (40).
nlines=$(grep -c "error:" "$tmp/chol.err")
[ "$nlines" = 9 ] || { problem "$nlines runtime error lines for 20 failed tasks of 4 causes, expected 9"; cat "$tmp/chol.err"; }
grep -q "  6 task(s): simulation: codelet 'trsm' has no usable prediction" "$tmp/chol.err" || problem "no per-cause count for trsm"

# vela replay: two tasks on 64 KiB data.
cat >"$tmp/two.rec" <<'EOF'
Name: a
Model: none
JobId: 1
Handles: 10
Modes: RW
Sizes: 65536

Name: b
Model: none
JobId: 2
DependsOn: 1
Handles: 10
Modes: RW
Sizes: 65536
EOF
"$vela" replay "$tmp/two.rec" --platform "$tmp/tiny-ram.xml" --default-task-us 10 >"$tmp/rep.out" 2>"$tmp/rep.err"
rc=$?
[ "$rc" = 1 ] || { problem "vela replay on a 1000-byte RAM exited $rc, expected 1"; cat "$tmp/rep.out" "$tmp/rep.err"; }
grep -q "^makespan" "$tmp/rep.out" && problem "vela replay printed a makespan for an incomplete run"
grep -q "2 of 2 tasks failed" "$tmp/rep.err" || { problem "vela replay did not count the failed tasks"; cat "$tmp/rep.err"; }
# The same file on the normal platform: 0 and a makespan.
"$vela" replay "$tmp/two.rec" --platform "$top_srcdir/tests/sim/data/4cpu.platform.v4.xml" --default-task-us 10 >"$tmp/rep.out" 2>&1 ||
	{ problem "vela replay on the normal platform failed"; cat "$tmp/rep.out"; }
grep -q "^makespan: " "$tmp/rep.out" || { problem "no makespan on the normal platform"; cat "$tmp/rep.out"; }

[ $fail = 0 ] && echo "PASS: failed tasks make the examples and vela replay fail"
exit $fail
