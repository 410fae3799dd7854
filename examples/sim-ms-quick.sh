#!/bin/sh
# Master/slave simulated (STARPU_SIMGRID=1, the build tree's plugin, no MPI
# process): the tiled Cholesky on platforms/cluster-4slaves (a master and 4
# MPI slaves of 16 cores on 100 Gb/s InfiniBand) with the derived models of
# perfmodels/cluster-4slaves, whose MPI_MS archs are the slaves' cores. The
# slaves are the platform's hosts: the master keeps one core per slave, so
# 12 CPU workers and 4 x 16 slave workers; or 2 slaves of 4 workers
# (STARPU_NMPI_MS, STARPU_NMPIMSTHREADS). Golden makespans: simulation is
# deterministic, so each must come out exactly.
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(pwd)/../sim/.libs/libvela-sim.so
[ -f "$plugin" ] || { echo "skipped: no simulation plugin $plugin (built without SimGrid)"; exit 77; }
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export VELA_SIM_PLUGIN="$plugin" STARPU_SIMGRID=1 STARPU_HOME="$home"
export STARPU_SIMGRID_PLATFORM="$here/../platforms/cluster-4slaves.platform.v4.xml"
export STARPU_PERF_MODEL_DIR="$here/../perfmodels/cluster-4slaves" STARPU_HOSTNAME=cluster-4slaves
unset STARPU_NCPU STARPU_SCHED STARPU_NMPI_MS STARPU_NMPIMSTHREADS STARPU_SIMGRID_DEFAULT_TASK_US
fail=0
# expect OUTPUT LINE...: each LINE (a fixed string) is in OUTPUT.
expect() {
	out=$1
	shift
	for l in "$@"; do
		echo "$out" | grep -qF -- "$l" || { echo "FAIL: no line '$l'"; fail=1; }
	done
}
out=$(./cholesky -n 4096 -b 512 -s dmda,eager 2>&1) || { echo "FAIL: cholesky exited $?"; echo "$out"; exit 1; }
echo "$out"
expect "$out" "# runtime: 12 CPU worker(s), 64 MPI_MS worker(s)" \
	"cholesky  n=4096 bs=512  sched=dmda    time=   102.1 ms" \
	"cholesky  n=4096 bs=512  sched=eager   time=    90.2 ms"
out=$(STARPU_NMPI_MS=2 STARPU_NMPIMSTHREADS=4 ./cholesky -n 4096 -b 512 -s dmda,eager 2>&1) ||
	{ echo "FAIL: cholesky (2 slaves) exited $?"; echo "$out"; exit 1; }
echo "$out"
expect "$out" "# runtime: 14 CPU worker(s), 8 MPI_MS worker(s)" \
	"cholesky  n=4096 bs=512  sched=dmda    time=   100.3 ms" \
	"cholesky  n=4096 bs=512  sched=eager   time=    89.0 ms"
exit $fail
