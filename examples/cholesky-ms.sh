#!/bin/sh
# The Cholesky example on a master and 2 MPI slaves (mpirun -np 3, through
# the master/slave tests' harness tests/mpi_ms/run-ms-test.sh: one CPU
# worker on the master, one worker per slave), at the quick size, under
# eager and dmda: every result checked, and the slaves' workers present.
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd .. && pwd)}
export top_builddir
STARPU_HOME="$(pwd)/test-home-ms"
export STARPU_HOME
out=$(sh "$here/../tests/mpi_ms/run-ms-test.sh" ./cholesky -q --no-ref -s eager,dmda 2>&1)
rc=$?
echo "$out"
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "FAIL: cholesky on a master and 2 slaves exited $rc"; exit 1; }
fail=0
echo "$out" | grep -q '^# runtime: 1 CPU worker(s), 2 MPI_MS worker(s)' ||
	{ echo "FAIL: expected 1 CPU worker and 2 MPI_MS workers"; fail=1; }
n=$(echo "$out" | grep -c '^cholesky .*check=ok')
[ "$n" = 2 ] || { echo "FAIL: expected 2 result lines with check=ok, got $n"; fail=1; }
exit $fail
