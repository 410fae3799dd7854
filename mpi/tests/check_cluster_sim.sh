#!/bin/sh
# Cluster simulation (issue 20, sim/README.md "Clusters"): the distributed
# Cholesky of examples/cholesky.c, built for simulated clusters
# (examples/cholesky_sim), run by vela-simrun on a cluster of ci-2core
# nodes written by platforms/make-cluster.py, with the committed ci-2core
# models:
#   - 2 and 4 ranks: the golden makespans, to the nanosecond (SimGrid's
#     clock and the application's own starpu_timing_now);
#   - the same figures again under a CPU hog and with thread contexts
#     (the prediction does not depend on wall time or on how actors are
#     run);
#   - each rank has its own runtime: a non-MPI simulated program run as 3
#     ranks gives, on every rank, the makespan it has alone;
#   - the stencil example completes on 4 ranks;
#   - traces: one per rank (vela_trace_<user>_<rank>), each readable, and
#     the traced run predicts the same time;
# and bad input gets its message and exit code: more ranks than nodes, a
# malformed platform (file:line), nodes without a route between them
# (file:line), a node without RAM (file:line), a program that does not use
# Vela, bad options; make-cluster.py: a malformed node file (file:line),
# bad figures. Skipped (77) when SimGrid or BLAS (the example) is absent.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/sim/sim_test_env.sh"
simrun="$top_builddir/sim/vela-simrun"
chol="$top_builddir/mpi/examples/cholesky_sim"
stencil="$top_builddir/mpi/examples/stencil_sim"
[ -x "$simrun" ] || { echo "SKIP: SimGrid support was not built"; exit 77; }
[ -x "$chol" ] || { echo "SKIP: examples/cholesky_sim was not built (no BLAS)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 (platforms/make-cluster.py) is missing"; exit 77; }
hog=
trap 'rm -rf "$tmp"; [ -n "$hog" ] && kill $hog 2>/dev/null' EXIT
STARPU_HOSTNAME=ci-2core STARPU_PERF_MODEL_DIR=$top_srcdir/perfmodels/ci-2core
export STARPU_HOSTNAME STARPU_PERF_MODEL_DIR

# expect CODE PATTERN CMD...: exit code and output (grep -E) of CMD.
expect() {
	code=$1 pattern=$2
	shift 2
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" != "$code" ]; then
		echo "FAIL: '$*' exited $got, expected $code:"; cat "$tmp/out"; fail=1
	elif [ -n "$pattern" ] && ! grep -qE -- "$pattern" "$tmp/out"; then
		echo "FAIL: '$*' did not print /$pattern/:"; cat "$tmp/out"; fail=1
	else
		echo "ok: $* -> $got"
	fi
}

gen="$top_srcdir/platforms/make-cluster.py"
node="$top_srcdir/platforms/ci-2core.platform.v4.xml"
cluster="$tmp/cluster.xml"
python3 "$gen" --nodes 4 --node "$node" --bandwidth 1GBps --latency 2us -o "$cluster" ||
	{ problem "make-cluster.py failed"; exit 1; }

# run NP OUT [ENV...]: the Cholesky (n 1024, tiles 128) on NP ranks.
run() {
	np=$1 out=$2
	shift 2
	env "$@" "$vela" simrun -np "$np" --platform "$cluster" "$chol" -n 1024 -b 128 -no-check >"$out" 2>&1
}
golden() {
	np=$1 sim=$2 app=$3 out=$4 what=$5
	if ! grep -q "^vela-simrun: $np ranks, simulated time $sim s$" "$out" ||
	   ! grep -q "^cholesky n=1024 bs=128 ranks=$np .* time=$app s" "$out"; then
		problem "$np ranks ($what): expected simulated time $sim s and time=$app s:"; cat "$out"
	else
		echo "ok: $np ranks ($what): $sim s"
	fi
}
run 2 "$tmp/c2" || problem "2 ranks failed"
golden 2 0.005178817 0.004925 "$tmp/c2" "raw contexts"
run 4 "$tmp/c4" || problem "4 ranks failed"
golden 4 0.007013492 0.006758 "$tmp/c4" "raw contexts"

# Wall time changes, the prediction does not: thread contexts, and a CPU hog.
run 4 "$tmp/c4t" VELA_SIM_FACTORY=thread || problem "4 ranks on threads failed"
golden 4 0.007013492 0.006758 "$tmp/c4t" "thread contexts"
sh -c 'while :; do :; done' &
hog=$!
run 2 "$tmp/c2h" || problem "2 ranks under load failed"
golden 2 0.005178817 0.004925 "$tmp/c2h" "under a CPU hog"
kill $hog; wait $hog 2>/dev/null; hog=

# VELA_SIM_DELAYS=simgrid: SimGrid's own sleeps, conditions and transfers
# for every wait and message (no heap of vela-simrun's, sim/README.md
# "Delays"): the makespan those primitives give, as before the heap.
run 2 "$tmp/c2s" VELA_SIM_DELAYS=simgrid || problem "2 ranks on SimGrid's primitives failed"
golden 2 0.005197470 0.004959 "$tmp/c2s" "SimGrid's sleeps and conditions"
expect 2 "VELA_SIM_DELAYS='bogus': expected 'vela' or 'simgrid'" env VELA_SIM_DELAYS=bogus \
	"$simrun" -np 2 --platform "$cluster" "$chol"

# With the runtime's default overhead costs (ranks' threads interleave
# otherwise): it completes, twice the same.
run 2 "$tmp/d1" -u STARPU_SIMGRID_TASK_SUBMIT_COST -u STARPU_SIMGRID_SCHED_COST -u STARPU_SIMGRID_FETCHING_INPUT_COST ||
	problem "2 ranks with the default costs failed"
run 2 "$tmp/d2" -u STARPU_SIMGRID_TASK_SUBMIT_COST -u STARPU_SIMGRID_SCHED_COST -u STARPU_SIMGRID_FETCHING_INPUT_COST ||
	problem "2 ranks with the default costs failed (again)"
d1=$(grep "simulated time" "$tmp/d1") d2=$(grep "simulated time" "$tmp/d2")
if [ -z "$d1" ] || [ "$d1" != "$d2" ]; then
	problem "default costs: '$d1' then '$d2'"; cat "$tmp/d1" "$tmp/d2"
else
	echo "ok: default costs, twice: $d1"
fi

# Every rank its own runtime: a simulated non-MPI program (a tiled
# Cholesky's task graph) gives on each of 3 ranks what it gives alone.
app="$top_builddir/mpi/tests/replay_app_sim"
alone=$(env STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM="$node" "$app" 4 | sed -n 's/^makespan: //p')
"$simrun" -np 3 --platform "$cluster" "$app" 4 >"$tmp/iso" 2>&1 || problem "3 ranks of replay_app failed"
n=$(grep -c "^makespan: $alone$" "$tmp/iso")
if [ -z "$alone" ] || [ "$n" != 3 ]; then
	problem "each rank should print makespan: $alone (alone):"; cat "$tmp/iso"
else
	echo "ok: 3 isolated ranks, each makespan $alone as alone"
fi
# Ranks that wait for what never comes (a tag nothing triggers): their
# threads blocked on vela-simrun's heap are seen as deadlocked, killed
# there, and the run fails saying so rather than hanging.
expect 1 "2 of 2 ranks never returned from main \(a deadlock" timeout 120 "$simrun" -np 2 --platform "$cluster" "$app" deadlock

# Traces: one file per rank, named after the rank (as StarPU-MPI's), each
# a simulated run's (merging them is `vela trace`'s work).
mkdir "$tmp/traces"
run 2 "$tmp/ctr" STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$tmp/traces" || problem "2 traced ranks failed"
# The application's time is the untraced one; the whole run's is longer:
# libvela-mpi synchronises the ranks' trace clocks at init and shutdown
# (messages, so simulated time), outside the application's timing.
golden 2 '[0-9.]*' 0.004925 "$tmp/ctr" "traced: the same prediction"
for r in 0 1; do
	f=$(ls "$tmp/traces"/vela_trace_*_$r 2>/dev/null)
	if [ -z "$f" ] || ! "$vela" trace stats "$f" >"$tmp/stats" 2>&1 || ! grep -q "simulated time" "$tmp/stats"; then
		problem "rank $r: no readable simulated trace in $tmp/traces:"; ls "$tmp/traces"; cat "$tmp/stats" 2>/dev/null
	else
		echo "ok: rank $r's trace $(basename "$f"): $(grep -m1 '^  tasks:' "$tmp/stats")"
	fi
done

# The ranks' traces merge into one timeline as a real run's do: every
# message linked to its other side, one Perfetto file for both ranks.
if "$vela" trace merge "$tmp/traces"/vela_trace_* >"$tmp/merge" 2>&1 &&
   grep -q "^run [0-9a-f]*: 2 ranks, [1-9][0-9]* messages linked, 0 unmatched" "$tmp/merge" &&
   "$vela" trace export --format chrome "$tmp/traces"/vela_trace_* -o "$tmp/merged.json" >/dev/null 2>&1 &&
   grep -q '"ph": *"s"' "$tmp/merged.json"; then
	echo "ok: merged: $(head -1 "$tmp/merge")"
else
	problem "the simulated ranks' traces do not merge:"; cat "$tmp/merge"
fi

# The stencil (no model calibrated here: a default duration per task).
expect 0 "stencil: 16 blocks of 1000 cells on 4 ranks" env STARPU_SIMGRID_DEFAULT_TASK_US=10 \
	"$simrun" -np 4 --platform "$cluster" "$stencil" -no-check

# Bad input.
expect 2 "\-np 5: the platform .* has 4 nodes \(n0..n3\), one rank per node" \
	"$simrun" -np 5 --platform "$cluster" "$chol"
expect 2 "\-np 0: not a number of ranks" "$simrun" -np 0 --platform "$cluster" "$chol"
expect 2 "\-\-platform CLUSTER.xml is required" "$simrun" -np 2 "$chol"
expect 2 "unknown option" "$simrun" -np 2 --bogus --platform "$cluster" "$chol"
expect 2 "PROGRAM $tmp/none: No such file" "$simrun" -np 2 --platform "$cluster" "$tmp/none"
head -n 20 "$cluster" | sed 's|<host id="n0.CPU1" speed="2000000000f"/>|<host id="n0.CPU1" speed="2000000000f">|' \
	>"$tmp/malformed.xml"
expect 1 "cannot load the cluster platform .*malformed.xml:[0-9]+" \
	"$simrun" -np 2 --platform "$tmp/malformed.xml" "$chol"
grep -v 'zoneRoute src="n1" dst="n0"' "$cluster" >"$tmp/noroute.xml"
expect 1 "noroute.xml:[0-9]+: no route from node n1 to node n0" \
	"$simrun" -np 2 --platform "$tmp/noroute.xml" "$chol"
expect 1 "has no node \(hosts n0.CPU0" "$simrun" -np 1 --platform "$node" "$chol"
expect 1 "does not use Vela" "$simrun" -np 1 --platform "$cluster" "$simrun"
printf '#!/bin/sh\n' >"$tmp/script.sh"
chmod +x "$tmp/script.sh"
expect 1 "script.sh is not a 64-bit ELF program" "$simrun" -np 1 --platform "$cluster" "$tmp/script.sh"

# make-cluster.py's own errors.
printf '<?xml version="1.0"?>\n<platform version="4.1">\n<zone id="z" routing="Full">\n<host id="CPU0" speed="1f">\n</zone>\n</platform>\n' \
	>"$tmp/badnode.xml"
expect 2 "badnode.xml:5: mismatched tag" python3 "$gen" --nodes 2 --node "$tmp/badnode.xml" --bandwidth 1GBps \
	--latency 1us -o "$tmp/x.xml"
printf '<?xml version="1.0"?>\n<platform version="4.1">\n<zone id="z" routing="Full">\n<host id="CPU0" speed="1f"/>\n</zone>\n</platform>\n' \
	>"$tmp/noram.xml"
expect 2 "noram.xml:3: the node has no host RAM" python3 "$gen" --nodes 2 --node "$tmp/noram.xml" --bandwidth 1GBps \
	--latency 1us -o "$tmp/x.xml"
expect 2 "\-\-bandwidth 10furlongs: expected a number" python3 "$gen" --nodes 2 --node "$node" \
	--bandwidth 10furlongs --latency 1us -o "$tmp/x.xml"
expect 2 "\-\-leaf-size 0: a fat tree needs" python3 "$gen" --nodes 2 --node "$node" --bandwidth 1GBps \
	--latency 1us --topology fat-tree -o "$tmp/x.xml"
expect 0 "" python3 "$gen" --nodes 6 --node "$node" --bandwidth 1GBps --latency 1us --topology fat-tree \
	--leaf-size 4 --oversubscription 2 -o "$tmp/ft.xml"
expect 0 "cholesky n=512 bs=128 ranks=6" "$simrun" -np 6 --platform "$tmp/ft.xml" "$chol" -n 512 -b 128 -no-check
exit $fail
