#!/bin/sh
# Bus calibration files with an OpenCL device go to Debian's StarPU 1.3:
# Vela calibrates the bus of this machine with PoCL's CPU device
# (STARPU_OPENCL_ON_CPUS=1), then StarPU's starpu_machine_display reads the
# same STARPU_HOME (bandwidth, latency, affinity and config files in
# StarPU's formats; an affinity file it cannot parse aborts it).
# Skipped (77) without StarPU's tools or an OpenCL device.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
display=$(command -v starpu_machine_display)
if [ -z "$display" ]; then
	echo "starpu_machine_display not found (Debian: starpu-tools): skipped"
	exit 77
fi
vela="$top_builddir/tools/vela"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STARPU_HOME=$tmp STARPU_HOSTNAME=bushost STARPU_OPENCL_ON_CPUS=1 POCL_CPU_MAX_CU_COUNT=${POCL_CPU_MAX_CU_COUNT:-1}
export STARPU_HOME STARPU_HOSTNAME STARPU_OPENCL_ON_CPUS POCL_CPU_MAX_CU_COUNT
unset STARPU_PERF_MODEL_DIR STARPU_SILENT

"$vela" machine --no-bus >"$tmp/vela.txt" 2>&1 || { cat "$tmp/vela.txt"; exit 1; }
if ! grep -q "STARPU_OPENCL_WORKER" "$tmp/vela.txt"; then
	echo "no OpenCL device found (install pocl-opencl-icd): skipped"
	exit 77
fi
aff="$tmp/.starpu/sampling/bus/bushost.affinity"
grep -q '^0	0	$' "$aff" || { echo "FAIL: no line for OpenCL device 0 in $aff:"; cat "$aff"; exit 1; }
timeout 120 "$display" >"$tmp/starpu.txt" 2>&1
rc=$?
if [ $rc -ne 0 ] || grep -qi "assert" "$tmp/starpu.txt"; then
	echo "FAIL: StarPU could not use Vela's bus files (exit $rc):"
	cat "$tmp/starpu.txt"
	exit 1
fi
grep -q "OpenCL" "$tmp/starpu.txt" || { echo "FAIL: StarPU shows no OpenCL device:"; cat "$tmp/starpu.txt"; exit 1; }
echo "StarPU 1.3 reads Vela's bus files with an OpenCL device"
exit 0
