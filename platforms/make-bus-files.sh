#!/bin/sh
# make-bus-files.sh PLATFORM DIR HOST: writes StarPU's bus model files
# DIR/HOST.{config,affinity,bandwidth,latency} from a platform file of this
# directory, so that StarPU's schedulers estimate transfers with the same
# figures the platform gives the simulated copies (Vela's bus model is the
# platform itself; StarPU reads these files, which its bus calibration
# writes on a real machine). bench/compare-starpusim calls it for each
# example machine; its output is not committed.
#
# What is written (memory nodes numbered as StarPU does: 0 is RAM, then one
# per CUDA<k> host, then one per OpenCL<k> host):
#   config     the number of CPU<k> hosts, one NUMA node, the CUDA and
#              OpenCL host counts;
#   affinity   every GPU next to NUMA node 0;
#   bandwidth  per (from, to) pair of memory nodes with a route, the route's
#              bottleneck bandwidth in MB/s (bytes per microsecond), else nan;
#   latency    the sum of the route's link latencies in microseconds.
# Rows and columns are padded with nan to 32 nodes (STARPU_MAXNODES of
# StarPU's default build; a reader stops at the nodes it has).
#
# It reads the conventions of make-examples.sh's files: one <link> or
# <route> per line, bandwidth in Bps and latency in s, routes listed with
# <link_ctn>. Platforms with MPI_MS hosts are refused (StarPU numbers their
# nodes otherwise and the reference has no master/slave simulation).
set -eu
[ $# -eq 3 ] || { echo "usage: $0 PLATFORM DIR HOST" >&2; exit 2; }
plat=$1 dir=$2 host=$3
[ -r "$plat" ] || { echo "make-bus-files.sh: cannot read platform '$plat'" >&2; exit 1; }
[ -d "$dir" ] || { echo "make-bus-files.sh: no directory '$dir'" >&2; exit 1; }
if grep -q '<host id="MPI_MS' "$plat"; then
	echo "make-bus-files.sh: $plat has MPI_MS hosts: not supported" >&2
	exit 1
fi
awk -v dir="$dir" -v host="$host" -v plat="$plat" '
# value of attribute NAME in line S, "" when absent
function attr(s, name) {
	if (!match(s, name "=\"[^\"]*\""))
		return ""
	return substr(s, RSTART + length(name) + 2, RLENGTH - length(name) - 3)
}
# "31507692307Bps" -> 31507692307; "0.000010s" -> 0.00001; units as written by make-examples.sh
function value(v, unit, kind) {
	if (v !~ "^[0-9.eE+-]+" unit "$") {
		printf "make-bus-files.sh: %s:%d: %s \"%s\": expected a number in %s\n", plat, NR, kind, v, unit > "/dev/stderr"
		bad = 1
		exit 1
	}
	sub(unit "$", "", v)
	return v + 0
}
/<host id="CPU[0-9]+"/ { ncpu++ }
/<host id="CUDA[0-9]+"/ { k = substr(attr($0, "id"), 5) + 0; if (k + 1 > ncuda) ncuda = k + 1 }
/<host id="OpenCL[0-9]+"/ { k = substr(attr($0, "id"), 7) + 0; if (k + 1 > nopencl) nopencl = k + 1 }
/<link id=/ {
	id = attr($0, "id")
	bw[id] = value(attr($0, "bandwidth"), "Bps", "bandwidth")
	lat[id] = value(attr($0, "latency"), "s", "latency")
}
/<route / {
	s = attr($0, "src"); d = attr($0, "dst"); b = -1; l = 0; rest = $0
	while (match(rest, /link_ctn id="[^"]*"/)) {
		id = substr(rest, RSTART + 13, RLENGTH - 14)
		rest = substr(rest, RSTART + RLENGTH)
		if (!(id in bw)) {
			printf "make-bus-files.sh: %s:%d: route %s -> %s uses undefined link \"%s\"\n", plat, NR, s, d, id > "/dev/stderr"
			bad = 1
			exit 1
		}
		if (b < 0 || bw[id] < b)
			b = bw[id]
		l += lat[id]
	}
	RB[s, d] = b; RL[s, d] = l
}
END {
	if (bad)
		exit 1
	if (ncpu == 0) {
		printf "make-bus-files.sh: %s: no CPU0 host\n", plat > "/dev/stderr"
		exit 1
	}
	maxnodes = 32
	nn = 1 + ncuda + nopencl
	name[0] = "RAM"
	for (k = 0; k < ncuda; k++) name[1 + k] = "CUDA" k
	for (k = 0; k < nopencl; k++) name[1 + ncuda + k] = "OpenCL" k
	f = dir "/" host ".config"
	printf "# Current configuration\n%d # Number of CPUs\n1 # Number of NUMA nodes\n", ncpu > f
	printf "%d # Number of CUDA devices\n%d # Number of OpenCL devices\n", ncuda, nopencl > f
	printf "0 # Number of MIC devices\n0 # Number of MPI devices\n" > f
	f = dir "/" host ".affinity"
	printf "# GPU\tNUMA0\t\n" > f
	for (k = 0; k < ncuda; k++) printf "%d\t0\t\n", k > f
	for (k = 0; k < nopencl; k++) printf "%d\t0\t\n", k > f
	fb = dir "/" host ".bandwidth"; fl = dir "/" host ".latency"
	printf "# " > fb; printf "# " > fl
	for (j = 0; j < maxnodes; j++) { printf "to %d\t\t", j > fb; printf "to %d\t\t", j > fl }
	print "" > fb; print "" > fl
	for (i = 0; i < maxnodes; i++) {
		for (j = 0; j < maxnodes; j++) {
			sep = j ? "\t" : ""
			if (i < nn && j < nn && ((name[i], name[j]) in RB)) {
				printf "%s%e", sep, RB[name[i], name[j]] / 1e6 > fb
				printf "%s%e", sep, RL[name[i], name[j]] * 1e6 > fl
			} else {
				printf "%snan", sep > fb
				printf "%snan", sep > fl
			}
		}
		print "" > fb; print "" > fl
	}
}' "$plat"
