#!/bin/sh
# calibrate-mpi.sh — this machine's MPI, measured between two ranks on
# localhost, as a 2-node cluster platform for vela simrun: so that a real
# `mpirun -np 2` run here can be predicted from its own calibration
# (bench/cluster_sim_accuracy).
#
#   platforms/calibrate-mpi.sh [--node PLATFORM.xml] [--cores N [--vela VELA]] [--insert PROG] [--pingpong PROG] [--mpirun "mpirun ARGS"] -o CLUSTER.xml
#
# The ping-pong (mpi/examples/pingpong: StarPU-MPI messages, 8 B to
# 4 MiB, the median of 20 round trips each) gives the one-way time of each
# size through the whole stack (Open MPI and libvela-mpi); the latency is
# that of 8 bytes, the bandwidth the slope between the two largest sizes.
# The node is this machine's platform (default: what `vela calibrate-bus`
# wrote for $STARPU_HOSTNAME, else this host), each rank one node of the
# cluster; the figures and the date go into the file's header.
# Messages above Open MPI's shared-memory eager limit (ompi_info's
# btl_vader_eager_limit, else 4096 bytes) are copied by the receiving
# rank's polling thread (a single copy, CMA) at that bandwidth, on its
# core: make-cluster.py --copy-above / --copy-bandwidth.
# --cores N: the ranks are bound to N cores each (mpirun --bind-to core
# with N workers), their main and MPI progression threads sharing them:
# make-cluster.py --cores N, with what `vela calibrate-wakeup` (VELA,
# default build/tools/vela) measures on one core: how late a sleep of 100
# us ends beside a computing thread (Linux's timer slack, 50 us by
# default, and the wake-up) as --timer-overshoot, and what each wake-up
# costs the computing thread as --wakeup-cost.
# --insert PROG: bench/mpi_insert_cost.c built against libvela-mpi, run on
# 2 ranks bound to a core each: the main thread's CPU time per
# starpu_mpi_task_insert (a + b x data, for a task run elsewhere and for
# one run here, the latter less the runtime's own submission cost that the
# simulation charges besides, STARPU_SIMGRID_TASK_SUBMIT_COST's 0.21 us)
# as --insert-cost; what each send and receive an insertion posts costs it
# besides (--exchange-cost); and a worker's own CPU time per task and per
# datum between kernels that sweep a tile's worth of memory
# (--task-cost: the simulation's STARPU_SIMGRID_SCHED_COST and
# _FETCHING_INPUT_COST, whose defaults were measured with empty tasks).
# Exit status 0, 1 when a step fails, 2 for a usage error.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
node= out= cores= insert= vela="$top/build/tools/vela" pingpong="$top/build/mpi/examples/pingpong" mpirun="mpirun"
while [ $# -gt 0 ]; do
	case $1 in
	--node) node=$2; shift 2 ;;
	--cores) cores=$2; shift 2 ;;
	--vela) vela=$2; shift 2 ;;
	--insert) insert=$2; shift 2 ;;
	--pingpong) pingpong=$2; shift 2 ;;
	--mpirun) mpirun=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "calibrate-mpi.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
case $cores in ''|[1-9]|[1-9][0-9]) ;; *) echo "calibrate-mpi.sh: --cores $cores: expected a number of cores (1-99)" >&2; exit 2 ;; esac
[ -n "$out" ] || { echo "calibrate-mpi.sh: -o CLUSTER.xml is required" >&2; exit 2; }
[ -x "$pingpong" ] || { echo "calibrate-mpi.sh: --pingpong $pingpong: no such program (build mpi/examples)" >&2; exit 1; }
if [ -z "$node" ]; then
	host=${STARPU_HOSTNAME:-$(hostname | cut -d. -f1)}
	dir=${STARPU_PERF_MODEL_DIR:-${STARPU_HOME:-$HOME}/.starpu/sampling}
	node="$dir/bus/$host.platform.v4.xml"
	[ -f "$node" ] || { echo "calibrate-mpi.sh: no platform $node for this machine: run vela calibrate-bus first, or give --node" >&2; exit 1; }
fi
asroot=
[ "$(id -u)" = 0 ] && asroot=--allow-run-as-root
table=$($mpirun $asroot --oversubscribe -np 2 -x STARPU_NCPU=1 -x STARPU_SILENT=1 "$pingpong") ||
	{ echo "calibrate-mpi.sh: the ping-pong failed" >&2; exit 1; }
figures=$(printf '%s\n' "$table" | awk '
	$1 ~ /^[0-9]+$/ && NF >= 2 { n++; b[n] = $1; t[n] = $2 }
	END {
		if (n < 3) exit 1
		lat = t[1]
		bw = (b[n] - b[n-1]) / ((t[n] - t[n-1]) * 1e-6)
		if (!(bw > 0) || !(lat > 0)) exit 1
		printf "%.9g %.9g\n", lat, bw
	}') || { echo "calibrate-mpi.sh: cannot read the ping-pong's table:" >&2; printf '%s\n' "$table" >&2; exit 1; }
lat=${figures% *} bw=${figures#* }
eager=$(ompi_info --param btl vader --level 9 --parsable 2>/dev/null |
	sed -n 's/^mca:btl:vader:param:btl_vader_eager_limit:value:\([0-9][0-9]*\)$/\1/p' | head -n 1)
eager_from="ompi_info btl_vader_eager_limit"
[ -n "$eager" ] || { eager=4096 eager_from="Open MPI's default, ompi_info not found"; }
set -- --copy-above "$eager" --copy-bandwidth "${bw}Bps"
shared=
if [ -n "$cores" ]; then
	wk=$("$vela" calibrate-wakeup -r 15) || { echo "calibrate-mpi.sh: $vela calibrate-wakeup failed" >&2; exit 1; }
	overshoot=$(printf '%s\n' "$wk" | sed -n 's/^overshoot_us \([0-9.]*\)$/\1/p')
	wakeup=$(printf '%s\n' "$wk" | sed -n 's/^wakeup_us \([0-9.]*\)$/\1/p')
	[ -n "$overshoot" ] && [ -n "$wakeup" ] ||
		{ echo "calibrate-mpi.sh: cannot read vela calibrate-wakeup's output:" >&2; printf '%s\n' "$wk" >&2; exit 1; }
	set -- "$@" --cores "$cores" --timer-overshoot "${overshoot}us" --wakeup-cost "${wakeup}us"
	shared="each rank on $cores core(s) shared by its threads; vela calibrate-wakeup: timed waits $overshoot us late, a wake-up costs $wakeup us."
fi
inserts=
if [ -n "$insert" ]; then
	[ -x "$insert" ] || { echo "calibrate-mpi.sh: --insert $insert: no such program" >&2; exit 1; }
	ic=$($mpirun $asroot --bind-to core --oversubscribe -np 2 -x STARPU_NCPU=1 -x STARPU_SILENT=1 "$insert") ||
		{ echo "calibrate-mpi.sh: $insert failed" >&2; exit 1; }
	inserts=$(printf '%s\n' "$ic" | awk '
		$1 == "insert_us" { a = $2 } $1 == "insert_us_per_datum" { b = $2 }
		$1 == "insert_local_us" { al = $2 } $1 == "insert_local_us_per_datum" { bl = $2 }
		$1 == "insert_send_us" { s = $2 } $1 == "insert_recv_us" { r = $2 }
		$1 == "task_cost_us" { t = $2 } $1 == "task_cost_us_per_datum" { u = $2 }
		END {
			if (a == "" || b == "" || al == "" || bl == "" || s == "" || r == "" || t == "" || u == "") exit 1
			al -= 0.21; if (al < 0) al = 0
			printf "%.4f,%.4f,%.4f,%.4f %.4f,%.4f %.4f,%.4f\n", a, b, al, bl, s, r, t, u
		}') || { echo "calibrate-mpi.sh: cannot read $insert's output:" >&2; printf '%s\n' "$ic" >&2; exit 1; }
	exchanges=$(echo "$inserts" | cut -d' ' -f2) tasks=$(echo "$inserts" | cut -d' ' -f3)
	inserts=$(echo "$inserts" | cut -d' ' -f1)
	set -- "$@" --insert-cost "$inserts" --exchange-cost "$exchanges" --task-cost "$tasks"
fi
python3 "$here/make-cluster.py" --nodes 2 --node "$node" --bandwidth "${bw}Bps" --latency "${lat}us" "$@" \
	--name "localhost-2ranks" \
	--source "Measured by platforms/calibrate-mpi.sh on $(date -u '+%Y-%m-%d %H:%M') UTC, $(hostname):" \
	--source "StarPU-MPI ping-pong between 2 ranks on this machine (Open MPI, localhost): one-way" \
	--source "latency $lat us (8 B), bandwidth $bw B/s (slope between the two largest sizes)." \
	--source "Eager limit $eager B ($eager_from): larger messages copied by the receiver at that bandwidth." \
	${shared:+--source "$shared"} \
	${inserts:+--source "Insertion costs by $(basename "$insert") (2 ranks, one core each), less 0.21 us of submission here: $inserts;"} \
	${inserts:+--source "per send and receive posted: $exchanges; a worker's own per task and per datum: $tasks."} \
	-o "$out" || exit 1
echo "calibrate-mpi.sh: latency $lat us, bandwidth $bw B/s, eager limit $eager B${overshoot:+, timer overshoot $overshoot us, wake-up $wakeup us}${inserts:+, insert costs $inserts, exchange costs $exchanges, task costs $tasks}: wrote $out"
