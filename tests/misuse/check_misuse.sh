#!/bin/sh
# check_misuse.sh — every case of tests/misuse/misuse.c (kinds of StarPU API
# misuse) on Vela: the call returns the documented error code (or, for a
# call that returns nothing, says so), stderr holds exactly one line and it
# contains the part of the message `misuse expect` documents (the
# offending argument), the process neither crashes nor hangs, and the
# runtime still runs a task afterwards. A case documented as "hang" (a
# limit of Vela, said in tests/misuse/README.md) must still be blocked at
# the limit, so that the day it stops hanging this test asks for its
# documented error. The StarPU 1.3 side is tests/misuse/compare.sh.
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
misuse=$top_builddir/tests/misuse/misuse
[ -x "$misuse" ] || { echo "FAIL: $misuse is not built"; exit 1; }
# Each case runs alone under this limit (a sanitized build is slower).
limit=${MISUSE_TIMEOUT:-20}
hang_limit=2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STARPU_SILENT=1 STARPU_WORKERS_NOBIND=1 STARPU_HOME="$tmp/home"
export STARPU_SILENT STARPU_WORKERS_NOBIND STARPU_HOME
unset STARPU_SCHED STARPU_NCPU STARPU_NCPUS STARPU_LIMIT_CPU_MEM STARPU_CALIBRATE STARPU_SIMGRID \
      STARPU_WORKERS_CPUID STARPU_FXT_TRACE STARPU_PROFILING STARPU_WATCHDOG_TIMEOUT
mkdir -p "$tmp/home"

"$misuse" expect >"$tmp/cases" || { echo "FAIL: misuse expect"; exit 1; }
n=$(wc -l <"$tmp/cases")
[ "$n" -ge 27 ] || { echo "FAIL: only $n cases"; exit 1; }
fail=0
ok=0
tab=$(printf '\t')
while IFS="$tab" read -r name erc eafter what emsg; do
	if [ "$erc" = hang ]; then
		timeout -k 2 "$hang_limit" "$misuse" "$name" >"$tmp/o" 2>"$tmp/e"
		rc=$?
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			echo "ok: $name ($what): blocked after $hang_limit s, as documented"
			ok=$((ok + 1))
		else
			echo "FAIL: $name ($what): documented as blocking, but ended with $rc:"; cat "$tmp/o" "$tmp/e"; fail=1
		fi
		continue
	fi
	timeout -k 2 "$limit" "$misuse" "$name" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	problem=
	ret=$(sed -n 's/^returned //p' "$tmp/o" | head -n 1)
	after=$(sed -n 's/^after: //p' "$tmp/o" | head -n 1)
	lines=$(grep -c . "$tmp/e")
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		problem="hangs (killed after $limit s)"
	elif [ $rc != 0 ]; then
		problem="exit status $rc (a crash or an abort)"
	elif [ "$ret" != "$erc" ]; then
		problem="returned '$ret', documented '$erc'"
	elif [ "$after" != "$eafter" ]; then
		problem="after the misuse: '$after', expected '$eafter'"
	elif [ "$lines" != 1 ]; then
		problem="$lines lines on stderr, expected one"
	elif ! grep -F -q -- "$emsg" "$tmp/e"; then
		problem="the message does not contain '$emsg'"
	fi
	if [ -n "$problem" ]; then
		echo "FAIL: $name ($what): $problem"
		sed 's/^/  stdout: /' "$tmp/o"
		sed 's/^/  stderr: /' "$tmp/e"
		fail=1
	else
		echo "ok: $name ($what): $ret: $(cat "$tmp/e")"
		ok=$((ok + 1))
	fi
done <"$tmp/cases"
echo "$ok of $n misuse cases as documented"
exit $fail
