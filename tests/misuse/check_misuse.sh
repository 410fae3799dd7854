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
# Each case runs in its own process under this limit (longer for a
# sanitized build: MISUSE_TIMEOUT).
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
# One case: its verdict in $tmp/r.$i, its output in $tmp/[oe].$i.
run_case() {
	i=$1 name=$2 erc=$3 eafter=$4 what=$5 emsg=$6
	o=$tmp/o.$i e=$tmp/e.$i r=$tmp/r.$i
	if [ "$erc" = hang ]; then
		timeout -k 2 "$hang_limit" "$misuse" "$name" >"$o" 2>"$e"
		rc=$?
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			echo "ok: $name ($what): blocked after $hang_limit s, as documented" >"$r"
		else
			{ echo "FAIL: $name ($what): documented as blocking, but ended with $rc:"; cat "$o" "$e"; } >"$r"
		fi
		return
	fi
	timeout -k 2 "$limit" "$misuse" "$name" >"$o" 2>"$e"
	rc=$?
	problem=
	ret=$(sed -n 's/^returned //p' "$o" | head -n 1)
	after=$(sed -n 's/^after: //p' "$o" | head -n 1)
	lines=$(grep -c . "$e")
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
	elif ! grep -F -q -- "$emsg" "$e"; then
		problem="the message does not contain '$emsg'"
	fi
	if [ -n "$problem" ]; then
		{
			echo "FAIL: $name ($what): $problem"
			sed 's/^/  stdout: /' "$o"
			sed 's/^/  stderr: /' "$e"
		} >"$r"
	else
		echo "ok: $name ($what): $ret: $(cat "$e")" >"$r"
	fi
}

# The cases are separate processes that mostly wait (loading, starting
# workers): a few at a time.
tab=$(printf '\t')
i=0
while IFS="$tab" read -r name erc eafter what emsg; do
	i=$((i + 1))
	run_case "$i" "$name" "$erc" "$eafter" "$what" "$emsg" &
	[ $((i % 4)) = 0 ] && wait
done <"$tmp/cases"
wait
fail=0
ok=0
j=1
while [ $j -le "$i" ]; do
	if [ ! -f "$tmp/r.$j" ]; then
		echo "FAIL: case $j left no verdict"; fail=1
	elif grep -q '^ok: ' "$tmp/r.$j"; then
		ok=$((ok + 1))
	else
		fail=1
	fi
	cat "$tmp/r.$j" 2>/dev/null
	j=$((j + 1))
done
echo "$ok of $n misuse cases as documented"
exit $fail
