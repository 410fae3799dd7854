#!/bin/sh
# vector_scale and gemm on CPU + OpenCL workers, the OpenCL device being a
# CPU device such as PoCL's (STARPU_OPENCL_ON_CPUS=1, one compute unit so
# that the 2-core CI machine keeps a core for the CPU worker). Skipped (77),
# with the reason, when the run finds no OpenCL device.
#  1. vector_scale on the OpenCL worker, an odd size: every element exact.
#  2. gemm with every tile product on the device (-w opencl), tiles that do
#     not divide the matrix (the kernel's edge path): checked against BLAS.
#  3. gemm on CPU and OpenCL workers together under several policies, each
#     result checked; over the policies, both kinds of worker must have
#     computed tiles.
export STARPU_OPENCL_ON_CPUS=1 POCL_CPU_MAX_CU_COUNT=1
unset STARPU_SCHED STARPU_NCPU STARPU_NOPENCL
# A home of its own: the bus calibration with the device (and gemm's models)
# would otherwise alternate with the CPU-only one of the other examples.
STARPU_HOME="${STARPU_HOME:-$(pwd)/test-home}-opencl"
export STARPU_HOME
mkdir -p "$STARPU_HOME"
fail=0

out=$(./vector_scale -w opencl -n 100003 -f 1.5 2>&1)
rc=$?
if [ "$rc" = 77 ]; then
	echo "skipped: $(echo "$out" | tail -1)"
	exit 77
fi
echo "$out"
[ "$rc" = 0 ] || { echo "FAIL: vector_scale -w opencl exited $rc"; exit 1; }
echo "$out" | grep -q "on OpenCL" || { echo "FAIL: vector_scale did not run on the OpenCL worker"; fail=1; }

if [ ! -x ./gemm ]; then
	echo "gemm not built (no BLAS): its OpenCL runs are skipped"
	exit $fail
fi

# check_gemm OUTPUT LINES: every result line says check=ok, LINES of them.
check_gemm() {
	echo "$1"
	n=$(echo "$1" | grep -c '^gemm .*check=ok')
	[ "$n" = "$2" ] || { echo "FAIL: expected $2 gemm lines with check=ok, got $n"; fail=1; }
}

out=$(./gemm -w opencl -n 300 -b 64 -s eager) || { echo "FAIL: gemm -w opencl exited $?"; fail=1; }
check_gemm "$out" 1
echo "$out" | grep -q 'tiles cpu=0 opencl=125 ' || { echo "FAIL: gemm -w opencl: expected all 125 tile products on the device"; fail=1; }

policies=eager,prio,lws,ws,random,dmda,dmdas,heteroprio
out=$(./gemm -n 384 -b 96 -s $policies) || { echo "FAIL: gemm on CPU+OpenCL exited $?"; fail=1; }
check_gemm "$out" 8
echo "$out" | grep -q 'workers=[1-9][0-9]*cpu+[1-9][0-9]*opencl' || { echo "FAIL: expected CPU and OpenCL workers"; fail=1; }
echo "$out" | awk '/^gemm / { for (i = 1; i <= NF; i++) { if ($i ~ /^cpu=/) c += substr($i, 5); if ($i ~ /^opencl=/) o += substr($i, 8) } }
	END { if (c == 0 || o == 0) { print "FAIL: over all policies, tiles on CPU " c ", on OpenCL " o " (both should work)"; exit 1 } }' || fail=1
exit $fail
