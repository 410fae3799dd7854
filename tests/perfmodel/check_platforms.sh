#!/bin/sh
# The SimGrid platform files load in SimGrid: the documented example
# machines of platforms/, and the one the bus calibration writes for this
# machine. Skipped (77) when Vela was built without SimGrid.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
check="$top_builddir/tests/perfmodel/check_platform"
[ -x "$check" ] || { echo "built without SimGrid: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() {
	"$check" "$1" --log=root.thres:critical >"$tmp/out" 2>&1 || { echo "FAIL: $1"; cat "$tmp/out"; fail=1; return; }
	tail -1 "$tmp/out"
}
for f in "$top_srcdir"/platforms/*.platform.v4.xml; do
	# Clusters (nodes n0., n1., ...: vela simrun) are checked by their launcher.
	if grep -q 'id="n0.CPU0"' "$f"; then
		"$top_builddir/sim/vela-simrun" --platform "$f" --check-platform >"$tmp/out" 2>&1 ||
			{ echo "FAIL: $f"; cat "$tmp/out"; fail=1; continue; }
		tail -1 "$tmp/out"
		continue
	fi
	run "$f"
done
STARPU_HOME=$tmp STARPU_HOSTNAME=platcheck STARPU_SILENT=1 STARPU_NCPU=1 "$top_builddir/tools/vela" calibrate-bus -q || { echo "FAIL: calibrate-bus"; exit 1; }
run "$tmp/.starpu/sampling/bus/platcheck.platform.v4.xml"
exit $fail
