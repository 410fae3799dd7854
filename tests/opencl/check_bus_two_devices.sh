#!/bin/sh
# The bus with two devices that the data layer does not copy between
# directly: PoCL made to show two CPU devices (POCL_DEVICES="pthread
# pthread"), each its own OpenCL memory node. Their data goes through RAM,
# so the bus calibration does not time a direct copy between them (between
# a CUDA and an OpenCL node, on a GPU seen through both, that copy fails,
# and with it starpu_init) but gives the pair the two hops in a row:
# 1/bw = 1/bw(dev->RAM) + 1/bw(RAM->dev), latencies added.
# Skipped (77) without two OpenCL devices.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
vela="$top_builddir/tools/vela"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STARPU_HOME=$tmp STARPU_HOSTNAME=twodev STARPU_OPENCL_ON_CPUS=1 POCL_DEVICES="pthread pthread"
POCL_CPU_MAX_CU_COUNT=${POCL_CPU_MAX_CU_COUNT:-1}
export STARPU_HOME STARPU_HOSTNAME STARPU_OPENCL_ON_CPUS POCL_DEVICES POCL_CPU_MAX_CU_COUNT
unset STARPU_PERF_MODEL_DIR STARPU_SILENT STARPU_NOPENCL

"$vela" machine >"$tmp/vela.txt" 2>&1 || { echo "FAIL: vela machine failed:"; cat "$tmp/vela.txt"; exit 1; }
if [ "$(grep -c STARPU_OPENCL_WORKER "$tmp/vela.txt")" -lt 2 ]; then
	echo "fewer than two OpenCL devices (PoCL with POCL_DEVICES): skipped"
	exit 77
fi
bw="$tmp/.starpu/sampling/bus/twodev.bandwidth"
lat="$tmp/.starpu/sampling/bus/twodev.latency"
# Rows are sources, columns destinations; node 0 is RAM, 1 and 2 the devices.
awk -v what=bandwidth 'NR == FNR && !/^#/ { r++; for (c = 1; c <= NF; c++) m[r - 1, c - 1] = $c; next }
	END {
		want = 1 / (1 / m[1, 0] + 1 / m[0, 2]); back = 1 / (1 / m[2, 0] + 1 / m[0, 1])
		if (!(m[1, 2] > 0) || (m[1, 2] - want) ^ 2 > (want * 1e-3) ^ 2 || (m[2, 1] - back) ^ 2 > (back * 1e-3) ^ 2) {
			printf "FAIL: device-to-device %s %s / %s, expected the RAM path %s / %s\n", what, m[1, 2], m[2, 1], want, back
			exit 1
		}
	}' "$bw" /dev/null || { cat "$bw"; exit 1; }
awk 'NR == FNR && !/^#/ { r++; for (c = 1; c <= NF; c++) m[r - 1, c - 1] = $c; next }
	END {
		want = m[1, 0] + m[0, 2]
		if ((m[1, 2] - want) ^ 2 > (want * 1e-3) ^ 2) {
			printf "FAIL: device-to-device latency %s, expected %s (both hops)\n", m[1, 2], want
			exit 1
		}
	}' "$lat" /dev/null || { cat "$lat"; exit 1; }
echo "two devices without a direct copy: bus through RAM ($(sed -n 2p "$bw" | tr '\t' ' '))"
exit 0
