#!/bin/sh
# The SimGrid platform files load in SimGrid: the documented example
# machines of platforms/, and the one the bus calibration writes for this
# machine (with a device's measured allocation cost, when an OpenCL
# device is there). Skipped (77) when Vela was built without SimGrid.
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
# With a device (PoCL's CPU device, where the ICD loader finds it), the
# calibration also measures what an allocation there costs (and the extra
# of a first copy into it) and writes it on the device's host, with
# copies_on_compute=1 (a CPU device), where a simulation of the machine
# reads it; the file
# still loads, and a simulated run on it completes.
STARPU_OPENCL_ON_CPUS=1 STARPU_HOME=$tmp/ocl STARPU_HOSTNAME=platcheck STARPU_SILENT=1 STARPU_NCPU=1 \
	"$top_builddir/tools/vela" calibrate-bus -q || { echo "FAIL: calibrate-bus with an OpenCL device"; exit 1; }
p="$tmp/ocl/.starpu/sampling/bus/platcheck.platform.v4.xml"
if grep -q '<host id="OpenCL0"' "$p"; then
	for prop in malloc_cost_us malloc_cost_us_per_mib first_copy_us_per_mib; do
		sed -n '/<host id="OpenCL0"/,/<\/host>/p' "$p" | grep -qE "<prop id=\"$prop\" value=\"[0-9]+\.[0-9]+\"/>" ||
			{ echo "FAIL: no measured $prop on OpenCL0 in $p:"; cat "$p"; fail=1; }
	done
	# PoCL's CPU device copies on the threads that run its kernels.
	sed -n '/<host id="OpenCL0"/,/<\/host>/p' "$p" | grep -q '<prop id="copies_on_compute" value="1"/>' ||
		{ echo "FAIL: OpenCL0 (a CPU device) without copies_on_compute=1 in $p:"; cat "$p"; fail=1; }
	run "$p"
	STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM="$p" STARPU_HOME=$tmp/ocl STARPU_SILENT=1 STARPU_SIMGRID_DEFAULT_TASK_US=10 \
		VELA_SIM_PLUGIN="$top_builddir/sim/.libs/libvela-sim.so" "$top_builddir/examples/cholesky" -q -n 256 -b 64 -s dmda \
		>"$tmp/out" 2>&1 && grep -q "^cholesky .*sched=dmda" "$tmp/out" ||
		{ echo "FAIL: a simulation on the calibrated platform with its measured costs:"; cat "$tmp/out"; fail=1; }
else
	echo "no OpenCL device here: the measured allocation cost is not checked"
fi
exit $fail
