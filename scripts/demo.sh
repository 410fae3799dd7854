#!/bin/sh
# Quick start 1: install the dependencies, build Vela, and run the demo: a
# tiled Cholesky factorization on this machine's CPU workers, once per
# scheduling policy, printing time and GFlop/s (the kernels' performance
# models calibrate along, STARPU_CALIBRATE=1); then the same factorization
# simulated (STARPU_SIMGRID=1) from this machine's calibration, predicted
# against measured time; then simulated on the example machines of
# platforms/ with GPUs; then once more for real with trace
# recording on (STARPU_FXT_TRACE=1), exported as an SVG Gantt chart.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/deps.sh"
sh "$root/scripts/build.sh"
cd "$root/build/examples"
export OPENBLAS_NUM_THREADS=1
export STARPU_HOME="${STARPU_HOME:-$root/build/home}"
vela="$root/build/tools/vela"
work="$root/build/demo"
mkdir -p "$work"

echo ""
echo "== Vela demo: tiled Cholesky (examples/cholesky.c) on the CPU workers =="
# The output is kept for the comparison with the simulation below.
{ STARPU_CALIBRATE=1 ./cholesky "$@"; echo $? >"$work/real.rc"; } | tee "$work/real.txt"
rc=$(cat "$work/real.rc")
[ "$rc" = 0 ] || exit "$rc"
case " $* " in *" -h "*|*" --help "*) exit 0 ;; esac

# ---- CPU + OpenCL workers ------------------------------------------------------
# vector_scale and gemm with their OpenCL kernels on an OpenCL device; on a
# machine without a GPU that is PoCL's CPU device, which StarPU (and Vela)
# use only with STARPU_OPENCL_ON_CPUS=1. One compute unit for PoCL keeps a
# core for the CPU worker. Skipped, with the reason, when there is no device.
echo ""
echo "== CPU + OpenCL workers: vector scale and tiled matrix product (examples/vector_scale.c, gemm.c) =="
if out=$(STARPU_OPENCL_ON_CPUS=1 POCL_CPU_MAX_CU_COUNT=${POCL_CPU_MAX_CU_COUNT:-1} \
	STARPU_SILENT=1 ./vector_scale -w opencl 2>&1); then
	echo "$out"
	if [ -x ./gemm ]; then
		# The CPU alone first, for comparison; then CPU and device together.
		# dmda weighs them with the models it calibrates as it goes.
		{ STARPU_SILENT=1 ./gemm -n 2048 -b 256 -w cpu -s eager &&
		  STARPU_OPENCL_ON_CPUS=1 POCL_CPU_MAX_CU_COUNT=${POCL_CPU_MAX_CU_COUNT:-1} \
			STARPU_SILENT=1 ./gemm -n 2048 -b 256 -s eager,dmda; } >"$work/opencl.txt" 2>&1 || {
			cat "$work/opencl.txt"
			exit 1
		}
		awk '/^#   OpenCL worker:/ && !worker { sub(/^#   /, ""); worker = $0; print }
		     /^gemm / { line = ""; for (i = 1; i <= NF; i++) {
				if ($i ~ /^(n|bs|sched|workers|cpu|opencl|check)=/) { split($i, kv, "="); f[kv[1]] = kv[2] }
				if ($i == "time=") f["time"] = $(i + 1); else if ($i ~ /^time=/) f["time"] = substr($i, 6)
				if ($i == "GFlop/s=") f["gf"] = $(i + 1); else if ($i ~ /^GFlop\/s=/) f["gf"] = substr($i, 9) }
			lines[++n] = sprintf("gemm n=%s bs=%s %-6s %-14s %7.1f ms %6.1f GFlop/s  tiles CPU %3d / OpenCL %3d  %s",
				f["n"], f["bs"], f["sched"], f["workers"], f["time"], f["gf"], f["cpu"], f["opencl"],
				f["check"] == "ok" ? "results checked" : "WRONG RESULT") }
		     END { for (i = 1; i <= n; i++) print lines[i] }' "$work/opencl.txt"
		! grep -q 'check=FAILED' "$work/opencl.txt" || exit 1
	fi
else
	echo "skipped: $(echo "$out" | tail -1)"
fi

# ---- Across processes: Open MPI on localhost ---------------------------------
# The distributed Cholesky of mpi/examples (StarPU-MPI: 2 ranks, the tiles
# spread block-cyclically, checked against LAPACK on rank 0), then the
# unchanged single-process Cholesky with 2 other processes as its MPI slaves
# (master/slave: mpirun -np 3; rank 0 is the application). As root Open MPI
# wants its two confirmation variables; beyond the cores, --oversubscribe.
echo ""
echo "== Across processes (Open MPI on localhost): StarPU-MPI, then master/slave =="
if command -v mpirun >/dev/null 2>&1 && [ -x "$root/build/mpi/examples/cholesky" ]; then
	mpi_flags="--oversubscribe --bind-to none"
	if [ "$(id -u)" = 0 ]; then
		export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	fi
	echo "\$ mpirun -np 2 mpi/examples/cholesky -n 2048 -b 256     (1 CPU worker per rank)"
	(cd "$root/build/mpi/examples" && STARPU_NCPU=1 STARPU_SILENT=1 mpirun $mpi_flags -np 2 ./cholesky -n 2048 -b 256) 2>&1 |
		grep '^cholesky' || exit 1
	plugin="$root/build/drivers/.libs/libvela-mpi-ms.so"
	if [ -f "$plugin" ]; then
		echo "\$ mpirun -np 3 examples/cholesky -n 2048 -b 256     (a master with 1 CPU worker, 2 slaves of 1 worker)"
		# A home of its own: its bus calibration has the slaves, which
		# the simulation of this machine below must not see.
		VELA_MPI_MS_PLUGIN="$plugin" STARPU_HOME="$root/build/home-ms" STARPU_NCPU=1 STARPU_NMPIMSTHREADS=1 STARPU_SILENT=1 \
			mpirun $mpi_flags -np 3 ./cholesky -n 2048 -b 256 -s eager,dmda -r 1 --no-ref >"$work/ms.txt" 2>&1 ||
			{ cat "$work/ms.txt"; exit 1; }
		grep '^# runtime\|^cholesky' "$work/ms.txt"
	else
		echo "master/slave: skipped (built without the MPI master/slave driver)"
	fi
else
	echo "skipped: no Open MPI (mpirun) or no StarPU-MPI build"
fi

# ---- Simulation of this machine ---------------------------------------------
echo ""
echo "== The same factorization simulated (STARPU_SIMGRID=1) from this machine's calibration =="
host=${STARPU_HOSTNAME:-$(hostname)}
platform="$STARPU_HOME/.starpu/sampling/bus/$host.platform.v4.xml"
if [ ! -f "$platform" ]; then
	echo "(measuring the bus once: vela calibrate-bus)"
	"$vela" calibrate-bus -q
fi
# One simulated process runs every scheduler; -r 1: simulation is deterministic.
if STARPU_SIMGRID=1 ./cholesky "$@" -r 1 >"$work/sim.txt" 2>"$work/sim.err" &&
	! grep -q "error" "$work/sim.err"; then
	# Measured (best of the real runs) against predicted, per scheduler.
	awk 'function field(k,  i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	     function ms(  i) { for (i = 1; i <= NF; i++) if ($i ~ /^time=/) return ($i == "time=") ? $(i + 1) : substr($i, 6) }
	     FNR == 1 { file++ }
	     /^cholesky / { s = field("sched"); if (file == 1) real[s] = ms(); else { sim[s] = ms(); order[++n] = s } }
	     END {
		printf "%-12s %14s %14s %8s\n", "scheduler", "measured ms", "predicted ms", "error"
		for (i = 1; i <= n; i++) {
			s = order[i]
			if (!(s in real)) continue
			e = (sim[s] - real[s]) / real[s] * 100
			printf "%-12s %14.1f %14.1f %+7.1f%%\n", s, real[s], sim[s], e
		}
	     }' "$work/real.txt" "$work/sim.txt"
	echo "(bench/sim_accuracy measures this over sizes and policies, with calibration done first)"
else
	echo "skipped: the simulation could not predict every task:"
	sed -n '1,2p' "$work/sim.err"
	echo "(the kernels' models need 10 samples per tile size: run the demo again, or see bench/sim_accuracy)"
fi

# ---- Simulation of the example machines (GPUs) -------------------------------
# >>> SIMULATED GPUS: platforms/epyc2-4xa100-pcie and dgx-a100 with the
# models of perfmodels/ (derived from datasheets, not measured), predicted
# GFlop/s per scheduler and number of GPUs (STARPU_NCUDA). In simulation the
# example's codelets declare a placeholder CUDA implementation, so the
# simulated GPUs take tasks. A build whose simulation has no GPU workers
# prints a "skipped" line per machine.
echo ""
echo "== Predicted on the example machines (platforms/, perfmodels/ derived from datasheets): Cholesky n=32768 bs=1024 =="
gpu_scheds="dmda,dmdas,lws,eager"
for m in epyc2-4xa100-pcie dgx-a100; do
	case $m in epyc2-4xa100-pcie) gpu_counts="1 2 4" ;; *) gpu_counts="1 2 4 8" ;; esac
	sim_env="STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM=$root/platforms/$m.platform.v4.xml STARPU_PERF_MODEL_DIR=$root/perfmodels/$m STARPU_HOSTNAME=$m"
	# How many GPU workers does the simulation give this machine?
	ngpu=$(env $sim_env STARPU_NCUDA=1 STARPU_SILENT=1 "$vela" machine 2>/dev/null | grep -c "CUDA_WORKER" || true)
	if [ "${ngpu:-0}" = 0 ]; then
		echo "$m: skipped: simulated GPUs not available in this build"
		continue
	fi
	printf '%-20s %5s' "$m" "GPUs"
	echo "$gpu_scheds" | tr ',' '\n' | while read -r s; do printf ' %9s' "$s"; done
	echo "   (GFlop/s)"
	for g in $gpu_counts; do
		printf '%-20s %5s' "" "$g"
		if env $sim_env STARPU_NCUDA="$g" ./cholesky -n 32768 -b 1024 -s "$gpu_scheds" -r 1 \
			>"$work/gpu.txt" 2>"$work/gpu.err" && ! grep -q "error" "$work/gpu.err"; then
			awk '/^cholesky / { for (i = 1; i <= NF; i++) if ($i ~ /^GFlop\/s=/) { v = substr($i, 9); if (v == "") v = $(i + 1); printf " %9.0f", v } }' "$work/gpu.txt"
			echo ""
		else
			echo "  failed: $(head -1 "$work/gpu.err")"
		fi
	done
done
# A machine that was measured, not derived: the H200 of bench/results-cuda.md,
# its bus and kernels calibrated there. Some of its kernel entries have
# 5-9 samples: STARPU_CALIBRATE_MINIMUM=5 lets the simulation use them.
echo ""
echo "== Predicted on a measured GPU machine (platforms/h200, perfmodels/h200: one H200 + 16 cores, calibrated there): Cholesky n=24576 bs=1024 =="
h200_env="STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM=$root/platforms/h200.platform.v4.xml STARPU_PERF_MODEL_DIR=$root/perfmodels/h200 STARPU_HOSTNAME=h200 STARPU_CALIBRATE_MINIMUM=5"
if [ "$(env $h200_env STARPU_SILENT=1 "$vela" machine 2>/dev/null | grep -c CUDA_WORKER || true)" = 0 ]; then
	echo "h200: skipped: simulated GPUs not available in this build"
elif env $h200_env ./cholesky -n 24576 -b 1024 -s dmda,dmdas -r 1 >"$work/h200.txt" 2>"$work/h200.err"; then
	awk '/^cholesky / { s = ""; t = ""; for (i = 1; i <= NF; i++) { if ($i ~ /^sched=/) s = substr($i, 7); if ($i ~ /^time=/) { t = substr($i, 6); if (t == "") t = $(i + 1) } }
		printf "%-6s predicted %7.1f ms   (measured there: %s)\n", s, t, s == "dmda" ? "245.5 ms" : "240.4 ms" }' "$work/h200.txt"
else
	echo "  failed: $(head -1 "$work/h200.err")"
fi
# <<< SIMULATED GPUS

# ---- A simulated cluster -------------------------------------------------------
# The unchanged Cholesky on platforms/cluster-4slaves: a 16-core master and
# up to 4 MPI slaves of 16 cores on 100 Gb/s InfiniBand (master/slave mode
# simulated: the slaves are hosts of the platform, no process is started),
# with the models of perfmodels/cluster-4slaves; STARPU_NMPI_MS slaves.
echo ""
echo "== Predicted on a simulated cluster (platforms/cluster-4slaves, master/slave): Cholesky n=32768 bs=1024 =="
cl_env="STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM=$root/platforms/cluster-4slaves.platform.v4.xml STARPU_PERF_MODEL_DIR=$root/perfmodels/cluster-4slaves STARPU_HOSTNAME=cluster-4slaves"
printf '%-8s' "slaves"
echo "$gpu_scheds" | tr ',' '\n' | while read -r s; do printf ' %9s' "$s"; done
echo "   (GFlop/s)"
for k in 0 1 2 4; do
	printf '%-8s' "$k"
	if env $cl_env STARPU_NMPI_MS="$k" ./cholesky -n 32768 -b 1024 -s "$gpu_scheds" -r 1 \
		>"$work/cluster.txt" 2>"$work/cluster.err" && ! grep -q "error" "$work/cluster.err"; then
		awk '/^cholesky / { for (i = 1; i <= NF; i++) if ($i ~ /^GFlop\/s=/) { v = substr($i, 9); if (v == "") v = $(i + 1); printf " %9.0f", v } }' "$work/cluster.txt"
		echo ""
	else
		echo "  failed: $(head -1 "$work/cluster.err")"
	fi
done

# ---- A simulated StarPU-MPI cluster ------------------------------------------
# The distributed Cholesky of mpi/examples, the same source as the mpirun run
# above built against vela-mpi-sim, predicted by `vela simrun` on 1 to 64
# nodes of platforms/cluster-64x-epyc-12core-25gbe (12 cores each, 25 GbE),
# every rank's runtime simulated in this one process, with the models of
# perfmodels/epyc2-4xa100-pcie. -no-init: no tile is written (kernels do not
# run in a simulation).
echo ""
echo "== Predicted on a simulated cluster (StarPU-MPI, vela simrun; platforms/cluster-64x-epyc-12core-25gbe): distributed Cholesky n=16000 bs=320 =="
chol_sim="$root/build/mpi/examples/cholesky_sim"
if [ -x "$chol_sim" ] && [ -f "$root/build/sim/.libs/libvela-sim.so" ]; then
	printf '%-6s %14s %10s %12s\n' "ranks" "predicted s" "GFlop/s" "wall s"
	for np in 1 4 16 64; do
		start=$(date +%s.%N)
		if (cd "$work" && VELA_SIM_PLUGIN="$root/build/sim/.libs/libvela-sim.so" STARPU_SILENT=1 \
			STARPU_PERF_MODEL_DIR="$root/perfmodels/epyc2-4xa100-pcie" STARPU_HOSTNAME=epyc2-4xa100-pcie \
			"$vela" simrun -np "$np" --platform "$root/platforms/cluster-64x-epyc-12core-25gbe.platform.v4.xml" \
			"$chol_sim" -n 16000 -b 320 -no-init) >"$work/simrun.txt" 2>&1; then
			awk -v s="$start" -v e="$(date +%s.%N)" -v np="$np" '/^cholesky / {
				for (i = 1; i <= NF; i++) { if ($i ~ /^time=/) t = substr($i, 6); if ($i ~ /^GFlop\/s=/) g = substr($i, 9) }
				printf "%-6s %14.4f %10.0f %12.1f\n", np, t, g, e - s }' "$work/simrun.txt"
		else
			echo "$np ranks: failed: $(grep -v '^$' "$work/simrun.txt" | head -1)"
		fi
	done
else
	echo "skipped: built without SimGrid or BLAS (no mpi/examples/cholesky_sim)"
fi

echo ""
echo "== The same factorization traced (STARPU_FXT_TRACE=1), scheduler prio =="
tracedir="$root/build/demo-trace"
rm -rf "$tracedir"
mkdir -p "$tracedir"
STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$tracedir" ./cholesky "$@" -s prio -r 1 --no-check
trace=$(ls "$tracedir"/vela_trace_* 2>/dev/null | head -1)
if [ -z "$trace" ]; then
	echo "no trace was written in $tracedir" >&2
	exit 1
fi
"$vela" trace export --format svg "$trace" -o "$tracedir/cholesky.svg" 2>/dev/null
"$vela" trace export --format chrome "$trace" -o "$tracedir/cholesky.json" 2>/dev/null
"$vela" trace export --format paje "$trace" -o "$tracedir/cholesky.paje" 2>/dev/null
"$vela" trace stats "$trace" | sed -n '1,4p;/^Critical path/,$p'
echo ""
echo "Gantt chart of this run: $tracedir/cholesky.svg (open it in a web browser)"
echo "Same run for Perfetto (ui.perfetto.dev): $tracedir/cholesky.json; for ViTE: $tracedir/cholesky.paje"
echo "More: build/tools/vela trace --help"
