#!/bin/sh
# Simulated clusters whose ranks share their cores (issue 20: a real
# `mpirun --bind-to core -np 2` with one worker per rank predicted from this
# machine's calibration; sim/README.md "Clusters"), on ci-2core nodes with
# the committed ci-2core models, the distributed Cholesky (n 1024, tiles
# 128) on 2 ranks, one worker each:
#   - make-cluster.py --cores 1 keeps CPU0 only, without MAIN, marked
#     time_shared; --timer-overshoot, --wakeup-cost, --insert-cost and
#     --copy-above/--copy-bandwidth write their properties;
#   - time-shared cores: a submission cost of 20 us, charged to main(),
#     now takes the worker's core: the prediction is longer than on the
#     same cluster with separate hosts;
#   - messages above the eager limit copied by the receiver at 1 GB/s:
#     longer again, the golden makespan to the nanosecond, the same on a
#     second run; with wake-ups costing 20 us of the core (taken ahead of
#     the worker), insertion costs and costs per send and receive posted,
#     longer again, its golden makespan; --exchange-cost and --task-cost
#     write their properties, and the task costs become the runtime's
#     STARPU_SIMGRID_SCHED_COST and _FETCHING_INPUT_COST unless the
#     environment sets them;
#   - with the eager limit (--copy-above), the stencil's 8-byte sends
#     complete as they are posted, without it after the latency;
#   - vela calibrate-wakeup prints its two figures, refuses a bad option;
# and bad input: --cores beyond the node's CPUs or below 1,
# --copy-above without --copy-bandwidth, --timer-overshoot without
# --cores, --wakeup-cost without --cores, an --insert-cost that is not
# four costs, an --exchange-cost or --task-cost that is not two (exit 2,
# the option named), a cluster whose sched_cost_us is negative (exit 1,
# file:line). The platform properties' own checks
# (file:line) are in tests/sim/check_platform_errors.sh. Skipped (77)
# when SimGrid or BLAS (the example) is absent.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/sim/sim_test_env.sh"
simrun="$top_builddir/sim/vela-simrun"
chol="$top_builddir/mpi/examples/cholesky_sim"
[ -x "$simrun" ] || { echo "SKIP: SimGrid support was not built"; exit 77; }
[ -x "$chol" ] || { echo "SKIP: examples/cholesky_sim was not built (no BLAS)"; exit 77; }
[ -x "$top_builddir/mpi/examples/stencil_sim" ] || { echo "SKIP: examples/stencil_sim was not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 (platforms/make-cluster.py) is missing"; exit 77; }
STARPU_HOSTNAME=ci-2core STARPU_PERF_MODEL_DIR=$top_srcdir/perfmodels/ci-2core STARPU_NCPU=1
export STARPU_HOSTNAME STARPU_PERF_MODEL_DIR STARPU_NCPU

gen="$top_srcdir/platforms/make-cluster.py"
node="$top_srcdir/platforms/ci-2core.platform.v4.xml"
net="--nodes 2 --node $node --bandwidth 1GBps --latency 2us"
# shellcheck disable=SC2086
python3 "$gen" $net -o "$tmp/plain.xml" &&
	python3 "$gen" $net --cores 1 -o "$tmp/shared.xml" &&
	python3 "$gen" $net --cores 1 --timer-overshoot 50us --copy-above 4096 --copy-bandwidth 1GBps \
		-o "$tmp/copies.xml" &&
	python3 "$gen" $net --cores 1 --timer-overshoot 50us --copy-above 4096 --copy-bandwidth 1GBps \
		--wakeup-cost 20us --insert-cost 0.05,0.02,0.1,0.05 --exchange-cost 1,2 --task-cost 3,0.5 -o "$tmp/all.xml" ||
	{ problem "make-cluster.py failed"; exit 1; }
grep -q 'host id="n0.MAIN"' "$tmp/shared.xml" && problem "--cores 1 kept the MAIN host"
grep -q 'host id="n1.CPU1"' "$tmp/shared.xml" && problem "--cores 1 kept CPU1"
grep -q '<host id="n1.CPU0" [^>]*><prop id="time_shared" value="1"/></host>' "$tmp/shared.xml" ||
	problem "--cores 1: n1.CPU0 is not time_shared"
grep -q '<prop id="timer_overshoot_us" value="50"/>' "$tmp/copies.xml" || problem "--timer-overshoot not written"
grep -q '<prop id="mpi_copy_above" value="4096"/><prop id="mpi_copy_Bps" value="1000000000"/>' "$tmp/copies.xml" ||
	problem "--copy-above/--copy-bandwidth not written"
grep -q '<prop id="wakeup_us" value="20"/>' "$tmp/all.xml" || problem "--wakeup-cost not written"
grep -q '<prop id="mpi_insert_us" value="0.05"/><prop id="mpi_insert_us_per_datum" value="0.02"/><prop id="mpi_insert_local_us" value="0.1"/><prop id="mpi_insert_local_us_per_datum" value="0.05"/>' \
	"$tmp/all.xml" || problem "--insert-cost not written"
grep -q '<prop id="mpi_insert_send_us" value="1"/><prop id="mpi_insert_recv_us" value="2"/><prop id="sched_cost_us" value="3"/><prop id="fetching_input_cost_us" value="0.5"/>' \
	"$tmp/all.xml" || problem "--exchange-cost or --task-cost not written"

# predict FILE [ENV...]: the simulated time of the Cholesky on FILE.
predict() {
	f=$1
	shift
	env "$@" "$vela" simrun -np 2 --platform "$f" "$chol" -n 1024 -b 128 -no-check 2>&1 |
		sed -n 's/^vela-simrun: 2 ranks, simulated time \([0-9.]*\) s$/\1/p'
}
plain=$(predict "$tmp/plain.xml" STARPU_SIMGRID_TASK_SUBMIT_COST=20)
shared=$(predict "$tmp/shared.xml" STARPU_SIMGRID_TASK_SUBMIT_COST=20)
if [ -z "$plain" ] || [ -z "$shared" ] || ! awk -v a="$plain" -v b="$shared" 'BEGIN { exit !(b > a + 0.0002) }'; then
	problem "submission cost 20 us: time-shared core '$shared' s, not longer than '$plain' s"
else
	echo "ok: submissions on the worker's core: $shared s against $plain s"
fi
base=$(predict "$tmp/plain.xml")
copies=$(predict "$tmp/copies.xml")
again=$(predict "$tmp/copies.xml")
if [ "$copies" != 0.009229212 ] || [ "$again" != "$copies" ]; then
	problem "copies by the receiver: expected 0.009229212 s twice, got '$copies' and '$again' (separate hosts, no copies: '$base')"
else
	echo "ok: copies by the receiver: $copies s (without: $base s)"
fi
all=$(predict "$tmp/all.xml")
if [ "$all" != 0.009620446 ]; then
	problem "wake-ups, insertions and exchanges charged: expected 0.009620446 s, got '$all' (without: '$copies')"
else
	echo "ok: wake-ups, insertions and exchanges charged: $all s"
fi
# The task costs of the file become STARPU_SIMGRID_SCHED_COST and
# _FETCHING_INPUT_COST when the environment does not set them (above it
# sets them to 0): the same time as with those variables, and longer.
own=$(predict "$tmp/all.xml" -u STARPU_SIMGRID_SCHED_COST -u STARPU_SIMGRID_FETCHING_INPUT_COST)
env=$(predict "$tmp/all.xml" STARPU_SIMGRID_SCHED_COST=3 STARPU_SIMGRID_FETCHING_INPUT_COST=0.5)
if [ -z "$own" ] || [ "$own" != "$env" ] || ! awk -v a="$all" -v b="$own" 'BEGIN { exit !(b > a) }'; then
	problem "task costs of the file: '$own' s, expected the time with the variables set ('$env' s), above '$all' s"
else
	echo "ok: the file's task costs: $own s"
fi

# Eager sends (at most mpi_copy_above bytes) complete as they are posted,
# as Open MPI's shared-memory ones do; elsewhere when their message
# arrives (2 us of latency here): the stencil's 8-byte halo sends, from
# the ranks' merged traces.
stencil="$top_builddir/mpi/examples/stencil_sim"
# sends FILE: "N M", the stencil's 8-byte sends and those lasting over 1 us.
sends() {
	rm -rf "$tmp/tr" && mkdir "$tmp/tr" &&
		STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$tmp/tr/" STARPU_SIMGRID_DEFAULT_TASK_US=10 \
			"$vela" simrun -np 2 --platform "$1" "$stencil" -no-check 4 1000 3 >/dev/null 2>&1 &&
		"$vela" trace export --format chrome "$tmp"/tr/vela_trace_* -o "$tmp/tr/m.json" >/dev/null 2>&1 &&
		python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))
e = e["traceEvents"] if isinstance(e, dict) else e
s = [x for x in e if x.get("cat") == "send" and x.get("args", {}).get("bytes") == 8]
print(len(s), sum(1 for x in s if x["dur"] > 1))' "$tmp/tr/m.json"
}
eager=$(sends "$tmp/copies.xml") rendezvous=$(sends "$tmp/shared.xml")
if [ "${eager% *}" -gt 0 ] 2>/dev/null && [ "${eager#* }" = 0 ] && [ "${rendezvous% *}" -gt 0 ] &&
	[ "${rendezvous#* }" = "${rendezvous% *}" ]; then
	echo "ok: eager sends complete at once: $eager; without the eager limit: $rendezvous (sends, over 1 us)"
else
	problem "eager sends: '$eager' (sends, over 1 us) with the eager limit, '$rendezvous' without"
fi

# A task cost that is not a cost: refused naming the file's line (exit 1).
sed 's/"sched_cost_us" value="3"/"sched_cost_us" value="-3"/' "$tmp/all.xml" >"$tmp/badcost.xml"
line=$(grep -n '"sched_cost_us"' "$tmp/badcost.xml" | head -n 1 | cut -d: -f1)
"$vela" simrun -np 2 --platform "$tmp/badcost.xml" "$chol" -n 1024 -b 128 -no-check >"$tmp/out" 2>&1
got=$?
if [ $got != 1 ] || ! grep -q "badcost.xml:$line: host n0.RAM has sched_cost_us='-3': a cost must be" "$tmp/out"; then
	problem "a negative sched_cost_us: exit $got, expected 1 and badcost.xml:$line:"; cat "$tmp/out"
else
	echo "ok: a negative sched_cost_us refused at badcost.xml:$line"
fi

# vela calibrate-wakeup: both figures, numbers; a bad option is a usage error.
"$vela" calibrate-wakeup -r 2 -p 200 >"$tmp/wk" 2>&1
if [ $? != 0 ] || ! grep -qE '^overshoot_us [0-9]+\.[0-9]+$' "$tmp/wk" || ! grep -qE '^wakeup_us [0-9]+\.[0-9]+$' "$tmp/wk"; then
	problem "vela calibrate-wakeup -r 2 -p 200:"; cat "$tmp/wk"
else
	echo "ok: vela calibrate-wakeup: $(tr '\n' ' ' <"$tmp/wk" | cut -c1-60)"
fi
"$vela" calibrate-wakeup -r 0 >"$tmp/wk" 2>&1
[ $? = 2 ] && grep -q "^vela calibrate-wakeup: -r 0: expected" "$tmp/wk" ||
	{ problem "vela calibrate-wakeup -r 0 was not refused (2):"; cat "$tmp/wk"; }

# expect PATTERN ARGS...: make-cluster.py refuses ARGS (exit 2) saying PATTERN.
expect() {
	pattern=$1
	shift
	python3 "$gen" "$@" -o "$tmp/bad.xml" >"$tmp/out" 2>&1
	got=$?
	if [ $got != 2 ] || ! grep -qE -- "$pattern" "$tmp/out"; then
		echo "FAIL: make-cluster.py $* exited $got, expected 2 and /$pattern/:"; cat "$tmp/out"; fail=1
	else
		echo "ok: make-cluster.py $* -> 2"
	fi
}
# shellcheck disable=SC2086
{
	expect "\-\-cores 3: the node .*ci-2core.platform.v4.xml has 2 CPU hosts" $net --cores 3
	expect "\-\-cores -1: the node" $net --cores -1
	expect "\-\-copy-above and \-\-copy-bandwidth go together" $net --copy-above 4096
	expect "\-\-timer-overshoot needs \-\-cores" $net --timer-overshoot 50us
	expect "\-\-copy-bandwidth fast: expected a number" $net --copy-above 1 --copy-bandwidth fast
	expect "\-\-wakeup-cost needs \-\-cores" $net --wakeup-cost 20us
	expect "\-\-insert-cost 1,2,3: expected four costs" $net --insert-cost 1,2,3
	expect "\-\-insert-cost 1,2,-3,4: expected four costs" $net --insert-cost 1,2,-3,4
	expect "\-\-exchange-cost 1: expected two costs" $net --exchange-cost 1
	expect "\-\-task-cost 1,x: expected two costs" $net --task-cost 1,x
}
# VELA_MPI_INSERT_STATS times real insertions only: a simulated run says
# once (rank 0) that it ignores it, writes nothing, and succeeds.
VELA_MPI_INSERT_STATS="$tmp/istats" STARPU_SIMGRID_DEFAULT_TASK_US=10 "$vela" simrun -np 2 --platform "$tmp/all.xml" "$stencil" -no-check 4 1000 3 \
	>"$tmp/out" 2>&1 || { cat "$tmp/out"; problem "simulated stencil with VELA_MPI_INSERT_STATS failed"; }
n=$(grep -c "VELA_MPI_INSERT_STATS=$tmp/istats: ignored in a simulated cluster" "$tmp/out")
[ "$n" = 1 ] || { cat "$tmp/out"; problem "VELA_MPI_INSERT_STATS in a simulation: $n notices, expected 1 (rank 0's)"; }
[ -e "$tmp/istats" ] && problem "a simulated run wrote VELA_MPI_INSERT_STATS's file"
[ $fail = 0 ] && echo "PASS: clusters whose ranks share their cores"
exit $fail
