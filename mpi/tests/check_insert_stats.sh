#!/bin/sh
# VELA_MPI_INSERT_STATS=FILE (mpi/README.md): each rank appends, at
# shutdown, the CPU time of its starpu_mpi_task_insert calls that posted
# no exchange, per kind (a task it runs, "here"; one another rank runs,
# "elsewhere"). examples/stencil on 2 ranks, 8 blocks, 5 iterations: each
# rank runs its 4 blocks' edges tasks (20) and the updates of its 3 blocks
# whose neighbours are its own (15), and sees the same numbers of the
# other rank's; every task has 3 data. A file that cannot be opened is
# reported with its name, and the run still succeeds.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
[ -x ./examples/stencil ] || { echo "skipped: examples/stencil not built"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
problem() { echo "FAIL: $*"; fail=1; }

VELA_MPI_INSERT_STATS=$dir/stats sh "$top_srcdir/mpi/tests/run-mpi-test.sh" examples/stencil -no-check 8 100 5 >"$dir/out" 2>&1
rc=$?
[ "$rc" = 77 ] && { cat "$dir/out"; exit 77; }
[ "$rc" = 0 ] || { cat "$dir/out"; problem "stencil exited $rc"; }
cat "$dir/stats"
[ "$(wc -l <"$dir/stats")" = 4 ] || problem "expected 4 lines (2 ranks x 2 kinds)"
for kind in here elsewhere; do
	for r in 0 1; do
		grep -q "^$kind rank $r n 35 sum_data 105 sum_us [0-9.]* sum_data2 315 sum_data_us [0-9.]*$" "$dir/stats" ||
			problem "rank $r, $kind: expected 35 insertions of 3 data"
	done
done
# Every insertion took some time, and not a second.
awk '$9 <= 0 || $9 / $5 > 1e6 { bad = 1 } END { exit bad }' "$dir/stats" || problem "implausible times"

# A file that cannot be opened: named, the run goes on.
VELA_MPI_INSERT_STATS=$dir/none/stats sh "$top_srcdir/mpi/tests/run-mpi-test.sh" examples/stencil -no-check 8 100 5 >"$dir/out" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$dir/out"; problem "stencil with an unwritable VELA_MPI_INSERT_STATS exited $rc"; }
grep -q "VELA_MPI_INSERT_STATS=$dir/none/stats: cannot open it for appending" "$dir/out" ||
	{ cat "$dir/out"; problem "the unwritable file is not reported"; }
[ -e "$dir/none" ] && problem "a directory appeared"
exit $fail
