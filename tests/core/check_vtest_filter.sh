#!/bin/sh
# A test program's case filter (tests/common/vtest.c): one that selects no
# case fails (exit 2, saying so) instead of passing without testing; one
# that selects a case runs it.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
prog="$top_builddir/tests/core/test_init"
out=$("$prog" no-such-case-at-all 2>&1); rc=$?
if [ $rc -ne 2 ] || ! echo "$out" | grep -q "no test case name contains 'no-such-case-at-all'"; then
	echo "FAIL: a filter selecting nothing gave exit $rc: $out"; exit 1
fi
first=$(sed -n 's/^[[:space:]]*{ "\([^"]*\)", test_.*/\1/p' "$top_srcdir/tests/core/test_init.c" | head -1)
out=$("$prog" "$first" 2>&1); rc=$?
if [ $rc -ne 0 ] || ! echo "$out" | grep -q "Test: $first"; then
	echo "FAIL: filter '$first' gave exit $rc: $out"; exit 1
fi
echo "vtest: a filter selecting nothing fails; '$first' runs"
