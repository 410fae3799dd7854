# shellcheck shell=sh
# sim_test_env.sh: the setting every simulation test script shares, sourced
# (not run) by them after they set top_srcdir:
#   : "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
#   . "$top_srcdir/tests/sim/sim_test_env.sh"
# It defines top_builddir (default: the source tree's build/), vela (the
# command), VELA_SIM_PLUGIN (exported), tmp (a private directory, removed
# at exit: a script that needs more at exit sets its own trap and removes
# it too), fail, problem() and need_built(); it skips the test (77) when
# the SimGrid plugin was not built, and gives every run a quiet private
# STARPU_HOME, the runtime's overhead costs set to 0 (the golden figures
# leave them out: sim/README.md) and none of the caller's STARPU_* choices
# of machine, policy, models, traces or simulation: a script sets those it
# needs after sourcing this.
: "${top_builddir:=$top_srcdir/build}"
vela="$top_builddir/tools/vela"
VELA_SIM_PLUGIN="$top_builddir/sim/.libs/libvela-sim.so"
[ -f "$VELA_SIM_PLUGIN" ] || { echo "SKIP: the SimGrid plugin was not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STARPU_HOME=$tmp STARPU_SILENT=1 TMPDIR=$tmp
export VELA_SIM_PLUGIN STARPU_HOME STARPU_SILENT TMPDIR
for c in TASK_SUBMIT SCHED FETCHING_INPUT TRANSFER CUDA_MALLOC CUDA_QUEUE; do
	export "STARPU_SIMGRID_${c}_COST=0"
done
unset STARPU_SCHED STARPU_NCPU STARPU_NCUDA STARPU_PERF_MODEL_DIR STARPU_HOSTNAME STARPU_FXT_TRACE \
	STARPU_FXT_PREFIX STARPU_SIMGRID STARPU_SIMGRID_PLATFORM STARPU_SIMGRID_DEFAULT_TASK_US \
	VELA_SIM_FACTORY VELA_SIM_DELAYS VELA_MPI_SHARED_CORES
fail=0
problem() { echo "FAIL: $*"; fail=1; }
# need_built PROGRAM...: fails the test (exit 1) unless each is built.
need_built() {
	for f in "$@"; do
		[ -x "$f" ] || { echo "missing $f (build first)"; exit 1; }
	done
}
