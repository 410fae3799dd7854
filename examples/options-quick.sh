#!/bin/sh
# The examples' GPU options and their bad input (tiled_app.h): -c takes 0
# (the GPUs alone: without one, starpu_init finds no worker and the example
# says it skipped, exit 77), a count, and nothing else (exit 1 naming -c);
# --pin and --prefetch run and check without a GPU too (nothing to pin for,
# no GPU to prefetch to).
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
[ $fail -eq 0 ] && echo "options: -c x/-1 refused, -c 0 exit $gpu_rc, --pin --prefetch checked"
exit $fail
