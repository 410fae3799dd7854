#!/bin/sh
# Master/slave on bad input and failing slaves (test_ms_errors, one mode
# per run, under run-ms-test.sh: a master and 2 slaves unless said):
#   - started without mpirun, or by mpirun with one process: a message
#     ("no slaves"), and the run goes on with local workers;
#   - a kernel the slave cannot find, an allocation the slave cannot make:
#     errors on the master naming what failed, and the run goes on;
#   - a codelet without cpu_funcs_name: one warning naming it, its tasks on
#     the master only;
#   - a slave dying in a kernel (SIGSEGV, exit(), SIGKILL): the job ends
#     within seconds, reported by the master when the slave could say so;
#   - the master on another rank (STARPU_MPI_MASTER_NODE=2) works.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
export top_builddir
# Not the other tests' home: their bus calibration has no slaves.
STARPU_HOME=$(pwd)/test-home-ms
export STARPU_HOME
here=$top_srcdir/tests/mpi_ms
prog=./mpi_ms/test_ms_errors
[ -x "$prog" ] || { echo "skipped: $prog not built"; exit 77; }
command -v mpirun >/dev/null 2>&1 || { echo "skipped: no mpirun"; exit 77; }
fail=0
STARPU_SILENT=0
export STARPU_SILENT

# expect NAME WANT_RC(0|nonzero) PATTERN... -- runs the rest of the line.
run() { t0=$(date +%s); out=$("$@" 2>&1); rc=$?; took=$(( $(date +%s) - t0 )); }
expect() {
	name=$1 want=$2
	shift 2
	if [ "$want" = 0 ] && [ "$rc" != 0 ]; then
		echo "FAIL: $name: exit status $rc, expected 0"; echo "$out"; fail=1; return
	fi
	if [ "$want" = nonzero ] && [ "$rc" = 0 ]; then
		echo "FAIL: $name: exit status 0, expected a failure"; echo "$out"; fail=1; return
	fi
	# (137 is also mpirun's status when a process was killed.)
	if [ "$rc" = 124 ] || { [ "$rc" = 137 ] && [ "$took" -ge "${T:-120}" ]; }; then
		echo "FAIL: $name: timed out after $took s (hung)"; echo "$out"; fail=1; return
	fi
	for p in "$@"; do
		echo "$out" | grep -q -- "$p" || { echo "FAIL: $name: no line matching '$p' in:"; echo "$out"; fail=1; return; }
	done
	echo "ok: $name ($took s)"
}
ms() { VELA_MS_TEST_TIMEOUT=${T:-120} sh "$here/run-ms-test.sh" "$@"; }

# (Without slaves the bus calibration is another machine's: another home.)
STARPU_HOME=$STARPU_HOME/local STARPU_NMPI_MS=2 run timeout 60 $prog noslaves
expect "without mpirun, slaves asked for" 0 "warning: starpu_init: MPI master/slave: no slaves (not started by an MPI launcher"
# An ordinary run (no launcher, no STARPU_NMPI_MS) says nothing of slaves.
STARPU_HOME=$STARPU_HOME/local run timeout 60 $prog noslaves
expect "without mpirun" 0
if echo "$out" | grep -q "master/slave"; then
	echo "FAIL: an ordinary run mentions master/slave:"; echo "$out"; fail=1
fi
STARPU_HOME=$STARPU_HOME/local VELA_MS_NP=1 run ms $prog noslaves
expect "mpirun -np 1" 0 "no slaves (started by an MPI launcher with one process)"

run ms $prog missing
expect "missing kernel" 0 "MPI slave 0 (rank 1): task 'missing' (codelet 'missing'): kernel 'ms_no_such_kernel': not found in the program on this slave" \
	"missing: reported, and the run went on"

VELA_MPI_MS_FAIL_ALLOC=1048576 run ms $prog alloc
expect "failed allocation" 0 "MPI slave 0 (rank 1): allocating 4194304 bytes failed on the slave" \
	"task 'inc' not executed: its data could not be made available on MPI_MS 0" "alloc: reported, and the run went on"

run ms $prog nonames
expect "no cpu_funcs_name" 0 "codelet 'nonames' has CPU functions but no cpu_funcs_name" "nonames: every task ran on the master"
n=$(echo "$out" | grep -c "codelet 'nonames' has CPU functions")
[ "$n" = 1 ] || { echo "FAIL: no cpu_funcs_name: the warning came $n times, expected once"; fail=1; }

# A dying slave: the job must end well before the time limit.
T=60 run ms $prog die
expect "slave dies of SIGSEGV" nonzero "slave 0 (rank 1 on .*) is going down: signal 11 .* in kernel 'ms_crash'; ending the job"
T=60 run ms $prog exit
expect "slave calls exit()" nonzero "slave 0 (rank 1 on .*) is going down: a kernel called exit()"
T=60 run ms $prog kill
expect "slave killed" nonzero ""

STARPU_MPI_MASTER_NODE=2 run ms ./mpi_ms/test_ms_interfaces
expect "master on rank 2" 0 "every interface went master -> slave 0 -> slave 1 -> master intact"
STARPU_MPI_MASTER_NODE=3 run ms $prog missing
expect "master on a rank that does not exist" nonzero "STARPU_MPI_MASTER_NODE='3' must be a rank of the job, 0 to 2"
exit $fail
