#!/bin/sh
# The vela command: help and exit codes (0 success, 1 failure, 2 usage),
# machine, calibrate-bus (with a missing output directory), perfmodel
# list/show/plot (unknown symbol, unwritable output, corrupt file) and
# derive (derived models labelled as such, readable back).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
vela="$top_builddir/tools/vela"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STARPU_HOME=$tmp STARPU_HOSTNAME=clihost STARPU_SILENT=1 STARPU_NCPU=1
export STARPU_HOME STARPU_HOSTNAME STARPU_SILENT STARPU_NCPU
unset STARPU_PERF_MODEL_DIR
fail=0

# expect CODE PATTERN CMD...: runs CMD, checks its exit code and that its
# output (stdout and stderr) matches PATTERN (grep -E; "" for any).
expect() {
	code=$1 pattern=$2
	shift 2
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" != "$code" ]; then
		echo "FAIL: '$*' exited $got, expected $code:"; cat "$tmp/out"; fail=1
	elif [ -n "$pattern" ] && ! grep -qE "$pattern" "$tmp/out"; then
		echo "FAIL: '$*' did not print /$pattern/:"; cat "$tmp/out"; fail=1
	else
		echo "ok: $* -> $got"
	fi
}

expect 2 "Usage: vela COMMAND" "$vela"
expect 0 "perfmodel plot" "$vela" --help
expect 0 "^vela [0-9]" "$vela" --version
expect 2 "unknown command 'bogus'" "$vela" bogus
for sub in machine calibrate-bus "perfmodel" "perfmodel plot" "perfmodel derive" "perfmodel show"; do
	# shellcheck disable=SC2086
	expect 0 "Usage" "$vela" $sub --help
done
expect 2 "unknown option '--frobnicate'" "$vela" machine --frobnicate

# machine: workers, memory nodes; the first init calibrates the bus.
expect 0 "1 worker\(s\)" "$vela" machine
grep -q "RAM 0" "$tmp/out" || { echo "FAIL: machine lists no RAM node"; fail=1; }
test -s "$tmp/.starpu/sampling/bus/clihost.platform.v4.xml" || { echo "FAIL: no platform file after the first init"; fail=1; }

# calibrate-bus
expect 1 "output directory '$tmp/missing' does not exist" "$vela" calibrate-bus -o "$tmp/missing"
mkdir "$tmp/platforms"
expect 0 "Bandwidth" "$vela" calibrate-bus -o "$tmp/platforms"
test -s "$tmp/platforms/clihost.platform.v4.xml" || { echo "FAIL: calibrate-bus -o wrote no platform file"; fail=1; }
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$tmp/platforms/clihost.platform.v4.xml" || { echo "FAIL: the platform file is not well-formed XML"; fail=1; }
fi
grep -q '<host id="CPU0"' "$tmp/platforms/clihost.platform.v4.xml" || { echo "FAIL: no CPU0 host in the platform"; fail=1; }

# perfmodel list/show/plot on calibrated models.
STARPU_CALIBRATE=1 STARPU_HISTORY_MAX_ERROR=1000000 "$top_builddir/tests/perfmodel/calibrate_helper" || { echo "FAIL: calibrate_helper"; fail=1; }
expect 0 "vela_rt_hist +cpu0:2 impl, 12 entries" "$vela" perfmodel list
expect 0 "cpu0_impl1 \(Comb0\)" "$vela" perfmodel show vela_rt_hist
expect 0 "Non-Linear" "$vela" perfmodel show vela_rt_nl
expect 0 "^[0-9.e+-]+ *$" "$vela" perfmodel show vela_rt_nl -p b
expect 0 "<perfmodel version=\"45\">" "$vela" perfmodel show vela_rt_hist -x
expect 2 "unknown arch 'gpu'" "$vela" perfmodel show vela_rt_hist -a gpu
expect 2 "not a hexadecimal" "$vela" perfmodel show vela_rt_hist -f xyz
expect 1 "no model 'nosuch' for host clihost" "$vela" perfmodel show nosuch
expect 1 "no model 'nosuch'" "$vela" perfmodel plot nosuch
expect 0 "2 series" "$vela" perfmodel plot vela_rt_hist -o "$tmp/hist.svg"
expect 0 "1 series" "$vela" perfmodel plot vela_rt_nl -o "$tmp/nl.svg"
grep -q "<polyline" "$tmp/nl.svg" || { echo "FAIL: no fitted curve in the plot"; fail=1; }
grep -q "<circle" "$tmp/hist.svg" || { echo "FAIL: no measured point in the plot"; fail=1; }
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$tmp/hist.svg" "$tmp/nl.svg" || { echo "FAIL: the plots are not well-formed XML"; fail=1; }
fi
expect 1 "cannot write $tmp/missing/x.svg" "$vela" perfmodel plot vela_rt_hist -o "$tmp/missing/x.svg"
expect 2 "which model" "$vela" perfmodel plot

# A corrupt file: the reason, with file and line.
printf '##################\n# Performance Model Version\n44\n' >"$tmp/.starpu/sampling/codelets/45/broken.clihost"
expect 1 "broken.clihost:3: format version 44 is not supported" "$vela" perfmodel show broken

# derive: a roofline model for a GPU one does not have.
expect 2 "are required" "$vela" perfmodel derive --peak-gflops 100
expect 2 "must be a number" "$vela" perfmodel derive --peak-gflops abc --bandwidth-gbs 10
expect 2 "unknown kernel 'lu'" "$vela" perfmodel derive --peak-gflops 100 --bandwidth-gbs 10 --kernels lu
expect 1 "does not exist" "$vela" perfmodel derive --peak-gflops 100 --bandwidth-gbs 10 --output-dir "$tmp/missing"
mkdir "$tmp/derived"
expect 0 "wrote .*vela_dgemm.gpuhost" "$vela" perfmodel derive --name "Test GPU" --peak-gflops 1000 --bandwidth-gbs 100 \
	--devices 2 --host gpuhost --output-dir "$tmp/derived" --tiles 256,512,1024
STARPU_PERF_MODEL_DIR="$tmp/derived" STARPU_HOSTNAME=gpuhost expect 0 "DERIVED from datasheet figures, not measured: Test GPU" "$vela" perfmodel show vela_dgemm
grep -q "cuda1_impl0" "$tmp/out" || { echo "FAIL: derive wrote no second device"; fail=1; }
# gemm on 1024 tiles: 2*1024^3 flops at 1000 GFlop/s x 0.7, plus 5 us.
grep -qE "^[0-9a-f]{8}	25165824 +	2.147484e\+09 +	3.07[0-9]+e\+03" "$tmp/out" || { echo "FAIL: unexpected gemm 1024 time"; cat "$tmp/out"; fail=1; }
# The CPU of the same machine goes into the same files.
expect 0 "wrote" "$vela" perfmodel derive --arch cpu --name "Test CPU core" --peak-gflops 20 --bandwidth-gbs 10 \
	--host gpuhost --output-dir "$tmp/derived" --kernels gemm --tiles 256,512
STARPU_PERF_MODEL_DIR="$tmp/derived" STARPU_HOSTNAME=gpuhost expect 0 "cpu0_impl0" "$vela" perfmodel show vela_dgemm
grep -q "cuda0_impl0" "$tmp/out" || { echo "FAIL: the GPU models were lost when adding the CPU's"; fail=1; }
exit $fail
