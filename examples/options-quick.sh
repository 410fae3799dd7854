#!/bin/sh
# The examples' GPU options and their bad input (tiled_app.h): -c takes 0
# (the GPUs alone: without one, starpu_init finds no worker and the example
# says it skipped, exit 77), a count, and nothing else (exit 1 naming -c);
# --pin and --prefetch run and check without a GPU too (nothing to pin for,
# no GPU to prefetch to); --each prints one line per run, the reported time
# being the least of them (to its 0.1 ms: the runs are printed rounded to
# 0.001 ms, so 1.150 may be 1.1504, reported 1.2).
fail=0
out=$(./cholesky -q -c x 2>&1); rc=$?
if [ $rc -ne 1 ] || ! echo "$out" | grep -q "\-c 'x': expected a positive integer"; then
	echo "FAIL: -c x gave exit $rc: $out"; fail=1
fi
out=$(./cholesky -q -c -1 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "FAIL: -c -1 gave exit $rc: $out"; fail=1; }
out=$(./cholesky -q -c 0 -s eager 2>&1); rc=$?
gpu_rc=$rc
case $rc in
0) echo "$out" | grep -q "CUDA worker" || { echo "FAIL: -c 0 ran without a GPU worker: $out"; fail=1; } ;;
77) echo "$out" | grep -q "skipped" || { echo "FAIL: -c 0 exit 77 without saying so: $out"; fail=1; } ;;
*) echo "FAIL: -c 0 gave exit $rc: $out"; fail=1 ;;
esac
out=$(./lu -q --pin --prefetch -s dmda 2>&1); rc=$?
if [ $rc -ne 0 ] || ! echo "$out" | grep -q "check=ok"; then
	echo "FAIL: --pin --prefetch gave exit $rc: $out"; fail=1
fi
out=$(./cholesky -q -r 3 -s eager --each --no-ref 2>&1); rc=$?
runs=$(echo "$out" | awk '/^# run [0-9]+ of 3  sched=eager  [0-9.]+ ms$/ { print $(NF - 1) }')
best=$(echo "$out" | awk '/ time=/ { t = $0; sub(/.* time= */, "", t); split(t, f, " "); print f[1] }')
least=$(echo "$runs" | sort -g | head -1)
if [ $rc -ne 0 ] || [ "$(echo "$runs" | wc -w)" != 3 ] ||
   ! awk -v a="$least" -v b="$best" 'BEGIN { d = a - b; exit !(d <= 0.0505 && d >= -0.0505) }'; then
	echo "FAIL: --each -r 3 gave exit $rc, runs '$runs', best '$best': $out"; fail=1
fi
[ $fail -eq 0 ] && echo "options: -c x/-1 refused, -c 0 exit $gpu_rc, --pin --prefetch checked, --each's runs ($(echo $runs)) give $best"
exit $fail
