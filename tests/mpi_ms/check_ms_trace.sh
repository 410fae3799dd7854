#!/bin/sh
# A master/slave run's trace (STARPU_FXT_TRACE=1, recorded by the master):
# test_ms_interfaces on a master and 2 slaves shows each slave's worker
# with the tasks it ran, and the copies master -> slave 0 -> slave 1 ->
# master on their links, byte counts included; the Paje and Chrome exports
# take it.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
export top_builddir
vela=$top_builddir/tools/vela
[ -x ./mpi_ms/test_ms_interfaces ] && [ -x "$vela" ] || { echo "skipped: test_ms_interfaces or vela not built"; exit 77; }
STARPU_HOME=$(pwd)/test-home-ms
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$dir/" STARPU_HOME=$STARPU_HOME \
	sh "$top_srcdir/tests/mpi_ms/run-ms-test.sh" ./mpi_ms/test_ms_interfaces
rc=$?
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "FAIL: test_ms_interfaces exited $rc"; exit 1; }
set -- "$dir"/vela_trace_*
[ -f "$1" ] || { echo "FAIL: no trace written in $dir"; exit 1; }
trace=$1
out=$("$vela" trace stats "$trace") || { echo "FAIL: vela trace stats failed"; exit 1; }
echo "$out"
fail=0
for line in 'MPI_MS 0 (.*) *9 ' 'MPI_MS 1 (.*) *9 ' \
	'RAM 0 *-> MPI_MS 0 .* 3155177 bytes' 'MPI_MS 0 *-> MPI_MS 1 .* 3155177 bytes' 'MPI_MS 1 *-> RAM 0 .* 3155177 bytes'; do
	echo "$out" | grep -q -- "$line" || { echo "FAIL: no line matching '$line' in the statistics"; fail=1; }
done
for f in paje chrome; do
	"$vela" trace export --format $f "$trace" -o "$dir/out.$f" && [ -s "$dir/out.$f" ] ||
		{ echo "FAIL: vela trace export --format $f"; fail=1; }
done
grep -q 'MPI_MS 1' "$dir/out.paje" || { echo "FAIL: the Paje trace has no row for MPI_MS 1"; fail=1; }
exit $fail
