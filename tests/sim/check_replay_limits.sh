#!/bin/sh
# `vela replay` at the edges of its input (issue 22 items 1 and 12):
#   - tasks with more buffers than STARPU_NMAXBUFS (9, 16, 100, 2000; StarPU's
#     own tasks.rec files have such tasks) replay and exit 0: the command
#     used to free their dyn_handles/dyn_modes after starpu_task_destroy had
#     (free(): double free detected, rc 134);
#   - a handle of 1e15 bytes is refused with one line naming its size, and
#     no wrong "out of memory building the graph" after it.
# Skipped (77) when the SimGrid plugin was not built.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/sim/sim_test_env.sh"
platform="$top_srcdir/tests/sim/data/4cpu.platform.v4.xml"
replay() { timeout -k 5 120 "$vela" replay "$@" --platform "$platform" --default-task-us 10; }

# rec N FILE: two tasks, each with N distinct buffers (handles 1..N, RW on
# even ones, R on odd ones; 64 bytes, home node RAM), the second depending
# on the first through the data.
rec() {
	awk -v n="$1" 'BEGIN {
		h = "Handles:"; m = "Modes:"; s = "Sizes:"; o = "HomeNodes:"
		for (i = 1; i <= n; i++) { h = h sprintf(" %x", i); m = m (i % 2 ? " R" : " RW"); s = s " 64"; o = o " 0" }
		for (j = 1; j <= 2; j++) { print "Name: many"; print "JobId: " j; print h; print m; print s; print o; print "" }
	}' >"$2"
}

for n in 9 16 100 2000; do
	rec "$n" "$tmp/b$n.rec"
	replay "$tmp/b$n.rec" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "FAIL: $n buffers per task: exit $rc"; tail -5 "$tmp/out"; fail=1
	elif ! grep -q "^replay: .*: 2 tasks, .* $n handles" "$tmp/out" || ! grep -q "^makespan: " "$tmp/out"; then
		echo "FAIL: $n buffers per task: no makespan or wrong handle count"; cat "$tmp/out"; fail=1
	else
		echo "ok: $n buffers per task: $(grep '^makespan' "$tmp/out")"
	fi
done

# A handle that cannot be registered: its own message, nothing else.
printf 'Name: x\nJobId: 1\nHandles: 1\nModes: RW\nSizes: 1000000000000000\n' >"$tmp/huge.rec"
replay "$tmp/huge.rec" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" != 1 ]; then
	echo "FAIL: a handle of 1e15 bytes: exit $rc, expected 1"; cat "$tmp/out"; fail=1
elif ! grep -q "a handle of 1000000000000000 bytes cannot be registered" "$tmp/out"; then
	echo "FAIL: a handle of 1e15 bytes: no message naming it"; cat "$tmp/out"; fail=1
elif grep -q "out of memory" "$tmp/out"; then
	echo "FAIL: a handle of 1e15 bytes: a wrong 'out of memory' message"; cat "$tmp/out"; fail=1
else
	echo "ok: a handle of 1e15 bytes: $(cat "$tmp/out")"
fi
exit $fail
