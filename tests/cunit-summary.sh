#!/bin/sh
# Prints CUnit's run summary over every unit-test program of the suite:
# each program leaves <name>.cunit (see common/vtest.c) with its counts.
# Usage: cunit-summary.sh NAME...
total_s=0 run_s=0 fail_s=0 inact_s=0
total_t=0 run_t=0 fail_t=0 inact_t=0
run_a=0 pass_a=0 fail_a=0
progs=0 missing=""
for name in "$@"; do
	f="$name.cunit"
	if [ ! -f "$f" ]; then
		missing="$missing $name"
		continue
	fi
	set -- $(cat "$f")
	run_s=$((run_s + $1)); fail_s=$((fail_s + $2))
	run_t=$((run_t + $3)); fail_t=$((fail_t + $4))
	run_a=$((run_a + $5)); pass_a=$((pass_a + $6)); fail_a=$((fail_a + $7))
	total_s=$((total_s + $8)); total_t=$((total_t + $9))
	inact_s=$((inact_s + ${10})); inact_t=$((inact_t + ${11}))
	progs=$((progs + 1))
done
echo ""
echo "CUnit run summary over $progs unit-test programs:"
echo ""
printf 'Run Summary:    Type  Total    Ran Passed Failed Inactive\n'
printf '              suites %6d %6d    n/a %6d %8d\n' "$total_s" "$run_s" "$fail_s" "$inact_s"
printf '               tests %6d %6d %6d %6d %8d\n' "$total_t" "$run_t" $((run_t - fail_t)) "$fail_t" "$inact_t"
printf '             asserts %6d %6d %6d %6d      n/a\n' "$run_a" "$run_a" "$pass_a" "$fail_a"
if [ -n "$missing" ]; then
	echo ""
	echo "No CUnit record (skipped or crashed):$missing"
fi
