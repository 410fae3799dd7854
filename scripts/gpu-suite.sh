#!/bin/bash
# The GPU suite: what needs a real NVIDIA GPU, in one command that fits a
# lent GPU machine's few minutes (that machine has the CUDA toolkit but no
# Debian packages, and only the repository travels to it).
#
#   bash scripts/gpu-suite.sh pack   # here: build, then gather the programs
#                                    # and every library they need (hwloc,
#                                    # CUnit, OpenBLAS, ...) into gpu-bundle/
#   bash scripts/gpu-suite.sh run [suite|measure|all]
#                                    # there (carry gpu-bundle/): run them
#
# With STARPU_CUDA_TARBALL naming the StarPU 1.3 CUDA reference (unpacked
# at /opt/starpu-cuda here), pack also builds the Cholesky and LU examples
# against it and takes the tarball along; run unpacks it there, and finds
# OpenBLAS and hwloc in its deps/.
#
# run suite executes, each under a time limit: `vela machine` (the GPUs it sees),
# tests/cuda/test_cuda_gpu (round trips of every interface, kernels in
# flight, cuBLAS, pinned memory, eviction at 4x STARPU_LIMIT_CUDA_MEM,
# -ENOMEM, SCRATCH, REDUX, partitions, two workers per GPU, a copy
# overlapping a kernel in the trace), the same under compute-sanitizer
# (memcheck) when the toolkit has it, and the Cholesky and LU examples on
# CPUs + GPUs and on the GPU alone, results checked against LAPACK.
# run measure (issue 17's figures): calibrates the bus and the kernels'
# models; runs the Cholesky and LU at 3 sizes (ACC_SIZES), dmda and dmdas,
# for bench/gpu_sim_accuracy to simulate afterwards from those models;
# bench/compare-cuda (empty tasks, copies, async kernels, side by side);
# the Cholesky (CHOL_N, CHOL_BS) on the GPU alone with data prefetched or
# from RAM and on CPUs + GPU, and the LU prefetched, Vela and the same
# program on the reference; a Cholesky at 3x STARPU_LIMIT_CUDA_MEM.
# (parts calibrate, accuracy, compare, perf, mixed, oversub, models,
# copytrace, traces, copies: `run PART,PART` runs those alone; measure is
# all but suite, mixed, copytrace, traces and copies).
# traces: the accuracy runs' extremes (Cholesky and LU, n=8192 and 24576,
# dmda and dmdas) traced, for `vela trace stats` and a comparison with
# their simulation (bench/results-cuda.md section 7 did it by hand).
# copies: cuda_copy alone, 20 repetitions at 16 and 64 MiB, Vela then
# StarPU, with the bare, bare-w and bare-q references (compare-cuda's
# copy part runs each side once).
# run all: both. Every step ends within GPU_SUITE_BUDGET seconds in all.
# Times seen on an H200 with 16 cores (bench/results-cuda.md): suite 12 s,
# calibrate 10 s, compare 30 s, perf 165 s, accuracy 50 s, oversub 120 s
# (Vela and StarPU, each with its check), models 50 s, mixed 90 s at
# n=49152: `run all` needs GPU_SUITE_BUDGET=480 or so; the machine's start
# adds about 30 s.
# Output goes to $OUT (or gpu-results/): summary.txt, and gpu-logs.tar.gz
# with one log per step and the calibrated models of both runtimes.
# Exit 0 when every step passed (a skip counts as a failure there: the
# point is to run on a GPU).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bundle="$root/gpu-bundle"

pack() {
	set -e
	sh "$root/scripts/build.sh"
	make -C "$root/build/tests" cuda/test_cuda_gpu >/dev/null
	rm -rf "$bundle"
	mkdir -p "$bundle/bin" "$bundle/lib"
	# The real executables, not libtool's wrappers (their paths are this
	# machine's).
	local progs="tests/cuda/test_cuda_gpu examples/cholesky examples/lu tools/vela"
	for p in $progs; do
		local real="$root/build/$(dirname "$p")/.libs/$(basename "$p")"
		[ -x "$real" ] || real="$root/build/$p"
		cp "$real" "$bundle/bin/$(basename "$p")"
	done
	cp -P "$root"/build/runtime/.libs/libvela.so* "$bundle/lib/"
	# Their libraries, but the C library's and CUDA's (the GPU machine has
	# its own toolkit, found through the programs' rpath).
	for f in "$bundle"/bin/* "$bundle"/lib/libvela.so; do
		LD_LIBRARY_PATH="$bundle/lib" ldd "$f" | awk '/=> \// { print $3 }'
	done | sort -u | while read -r lib; do
		case $(basename "$lib") in
		libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libcuda.so*|libcudart*|libcublas*|libcusolver*|libcusparse*|libnvJitLink*|libvela*) ;;
		# Also in the StarPU reference's deps/ (Debian 12's, the same
		# builds): found there, which keeps the bundle small.
		libopenblas.so*|libgfortran.so*|libquadmath.so*|libhwloc.so*|libudev.so*)
			[ -n "${STARPU_CUDA_TARBALL:-}" ] || cp -L "$lib" "$bundle/lib/" ;;
		*) cp -L "$lib" "$bundle/lib/" ;;
		esac
	done
	# The same examples built against StarPU 1.3 with CUDA (the reference
	# of ../shared/reference, unpacked at /opt/starpu-cuda here and there).
	if [ -d /opt/starpu-cuda/lib/pkgconfig ] && [ -n "${STARPU_CUDA_TARBALL:-}" ]; then
		mkdir -p "$bundle/ref/bin"
		cp "$STARPU_CUDA_TARBALL" "$bundle/ref/starpu-cuda-1.3.tar.xz"
		local pc=/opt/starpu-cuda/lib/pkgconfig p
		for p in cholesky lu; do
			# shellcheck disable=SC2046 # flag lists
			gcc -std=gnu11 -O2 $(PKG_CONFIG_PATH=$pc pkg-config --cflags starpu-1.3) \
				-I/usr/local/cuda/include -o "$bundle/ref/bin/$p" "$root/examples/$p.c" \
				$(PKG_CONFIG_PATH=$pc pkg-config --libs starpu-1.3) -L/usr/local/cuda/lib64 \
				-lcusolver -lcublas -lcudart -lopenblas -lm -rdynamic \
				-Wl,-rpath,/opt/starpu-cuda/lib:/opt/starpu-cuda/deps:/usr/local/cuda/lib64 \
				2> >(grep -v -e deprecated -e cusparse.h >&2)
		done
	else
		echo "note: no StarPU reference (set STARPU_CUDA_TARBALL and unpack it at /opt/starpu-cuda)"
	fi
	strip --strip-unneeded "$bundle"/bin/* "$bundle"/lib/*.so* 2>/dev/null || true
	cp "$0" "$bundle/gpu-suite.sh"
	echo "gpu-bundle/: $(ls "$bundle/bin" | tr '\n' ' ')+ $(ls "$bundle/lib" | wc -l) libraries ($(du -sh "$bundle" | cut -f1))"
	git -C "$root" check-ignore -q "$bundle" || echo "note: add gpu-bundle/ to .git/info/exclude so it travels only when carried"
}

# step NAME SECONDS CMD...: runs CMD with its log in $out/NAME.log.
# Every step ends by GPU_SUITE_BUDGET seconds (default 480) after setup,
# leaving time to pack the logs: a step that would start later is not run.
step() {
	local name=$1 limit=$2
	shift 2
	local left=$((budget_end - $(date +%s)))
	if [ "$left" -lt 10 ]; then
		printf '%-28s %s\n' "$name" "NOT RUN (GPU_SUITE_BUDGET spent)" | tee -a "$out/summary.txt"
		failed=1
		return
	fi
	[ "$limit" -le "$left" ] || limit=$left
	local t0=$(date +%s.%N) rc
	timeout -k 10 "$limit" "$@" >"$out/logs/$name.log" 2>&1
	rc=$?
	local dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	local verdict=pass
	[ $rc -eq 0 ] || verdict="FAIL (exit $rc)"
	[ $rc -eq 77 ] && verdict="SKIPPED (exit 77: $(tail -1 "$out/logs/$name.log"))"
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && verdict="TIMEOUT after ${limit}s"
	printf '%-28s %-10s %6ss\n' "$name" "$verdict" "$dt" | tee -a "$out/summary.txt"
	[ $rc -eq 0 ] || failed=1
}

# setup: the environment of both steps on the GPU machine.
setup() {
	out=${OUT:-$root/gpu-results}
	budget_end=$(($(date +%s) + ${GPU_SUITE_BUDGET:-480}))
	mkdir -p "$out/logs"
	failed=0
	[ -d "$bundle/bin" ] || { echo "no gpu-bundle/ here: run 'scripts/gpu-suite.sh pack' first and carry gpu-bundle" >&2; exit 1; }
	if [ -f "$bundle/ref/starpu-cuda-1.3.tar.xz" ] && [ ! -d /opt/starpu-cuda ]; then
		tar -C / -xJf "$bundle/ref/starpu-cuda-1.3.tar.xz"
	fi
	export LD_LIBRARY_PATH="$bundle/lib:/opt/starpu-cuda/deps:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	# The examples give OpenBLAS one thread per worker themselves, and
	# every core to their checks. The GPU machine's host name is a VM's:
	# the models and the bus are named after the GPU instead.
	export STARPU_HOME="$out/home" STARPU_SILENT=1 STARPU_HOSTNAME=${STARPU_HOSTNAME:-h200}
	mkdir -p "$STARPU_HOME" "$out/home-starpu"
	# Models calibrated on an earlier run there: carry gpu-seed/ holding
	# home/ (Vela's STARPU_HOME) and home-starpu/ (the reference's).
	[ -d "$root/gpu-seed" ] && cp -r "$root/gpu-seed/." "$out/"
	B="$bundle/bin" R="$bundle/ref/bin"
	{
		echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), $(nproc) cores"
		command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
	} | tee -a "$out/summary.txt"
}

suite() {
	step machine 60 "$B/vela" machine
	step test_cuda_gpu 180 "$B/test_cuda_gpu"
	local sanitizer=""
	for s in compute-sanitizer /usr/local/cuda/bin/compute-sanitizer; do
		command -v "$s" >/dev/null && sanitizer=$s && break
	done
	if [ -n "$sanitizer" ]; then
		step test_cuda_gpu_memcheck 90 "$sanitizer" --tool memcheck --error-exitcode 99 "$B/test_cuda_gpu"
	else
		echo "compute-sanitizer: not found, memcheck step left out" | tee -a "$out/summary.txt"
	fi
	step cholesky 60 "$B/cholesky" -n 4096 -b 512 -r 1 --no-ref -s eager,dmda,dmdas,heteroprio
	step cholesky_gpu_only 60 "$B/cholesky" -n 4096 -b 512 -r 1 --no-ref -c 0 -s dmdas
	step lu 60 "$B/lu" -n 4096 -b 512 -r 1 --no-ref -s eager,dmda,dmdas
	step lu_gpu_only 60 "$B/lu" -n 4096 -b 512 -r 1 --no-ref -c 0 -s dmdas
}

# calibrate: the bus (pinned copies) and the example kernels' models at the
# tile sizes measured below (history-based: every footprint needs samples).
# CAL_PIPELINE: the CUDA worker's pipeline depth while calibrating (default
# 2, the runs' own): deeper, more kernels are queued behind another one,
# whose samples do not count their launch (drivers/README.md); to try.
calibrate() {
	step calibrate_bus 60 "$B/vela" calibrate-bus
	step calibrate_chol 90 env STARPU_CALIBRATE=1 STARPU_CUDA_PIPELINE=${CAL_PIPELINE:-2} "$B/cholesky" \
		-n "${CAL_N:-16384}" -b 1024 -r 2 --no-check --no-ref --pin -s dmda
	step calibrate_lu 90 env STARPU_CALIBRATE=1 STARPU_CUDA_PIPELINE=${CAL_PIPELINE:-2} "$B/lu" \
		-n "${CAL_N:-16384}" -b 1024 -r 2 --no-check --no-ref --pin -s dmda
}

# accuracy: the real runs that the simulation (here, later, from these
# models and this bus) must predict: 3 sizes, dmda and dmdas, CPUs + GPU.
accuracy() {
	local n
	for n in ${ACC_SIZES:-8192 16384 24576}; do
		step "real_chol_$n" 60 "$B/cholesky" -n "$n" -b 1024 -r 3 --no-check --no-ref --pin -s dmda,dmdas
		step "real_lu_$n" 60 "$B/lu" -n "$n" -b 1024 -r 3 --no-check --no-ref --pin -s dmda,dmdas
	done
}

# perf: Cholesky on the GPU alone (data prefetched or starting in RAM), on
# CPUs + GPU, Vela and the same program on StarPU; LU prefetched.
perf() {
	local n=${CHOL_N:-49152} b=${CHOL_BS:-2048} ref=("env" "STARPU_HOME=$out/home-starpu" "$R/cholesky")
	local fast=(-n "$n" -b "$b" -r "${CHOL_REPS:-2}" --no-check --no-ref --pin -s dmdas)
	step chol_gpu_prefetched 90 "$B/cholesky" "${fast[@]}" -c 0 --prefetch
	step chol_gpu_from_host 90 "$B/cholesky" "${fast[@]}" -c 0
	step chol_all_from_host 90 "$B/cholesky" "${fast[@]}"
	[ -x "$R/cholesky" ] && step starpu_chol_gpu_prefetched 90 "${ref[@]}" "${fast[@]}" -c 0 --prefetch
	local lu=(-n "${LU_N:-32768}" -b "$b" -r 2 --no-check --no-ref --pin -s dmdas -c 0 --prefetch)
	step lu_gpu_prefetched 90 "$B/lu" "${lu[@]}"
	# What stops the rest: a trace of one prefetched GPU-only run
	# (`vela trace stats` here reads it: idle time, critical path).
	mkdir -p "$out/logs/trace"
	step chol_gpu_traced 60 env STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$out/logs/trace/" \
		"$B/cholesky" -n 32768 -b "$b" -r 1 --no-check --no-ref --pin -s dmdas -c 0 --prefetch
	[ -x "$R/lu" ] && step starpu_lu_gpu_prefetched 90 env STARPU_HOME="$out/home-starpu" "$R/lu" "${lu[@]}"
}

# oversub: a Cholesky whose tiles are 3x the GPU memory allowed, GPU alone,
# with the bytes moved (STARPU_BUS_STATS), Vela then StarPU.
oversub() {
	# The stored tiles (lower triangle) are 3x the limit; n=24576, bs=2048:
	# 78 tiles of 32 MiB = 2496 MiB against 832 MiB.
	local n=${OVERSUB_N:-24576} b=2048
	local nt=$(((n + b - 1) / b))
	local limit=$((nt * (nt + 1) / 2 * b * b * 8 / 3 / 1048576))
	local args=(-n "$n" -b "$b" -r 1 --no-ref --pin -s dmdas -c 0)
	echo "oversub: n=$n bs=$b, STARPU_LIMIT_CUDA_MEM=$limit MiB" | tee -a "$out/summary.txt"
	step oversub_chol 120 env STARPU_LIMIT_CUDA_MEM="$limit" STARPU_BUS_STATS=1 "$B/cholesky" "${args[@]}"
	[ -x "$R/cholesky" ] && step starpu_oversub_chol 120 env STARPU_HOME="$out/home-starpu" \
		STARPU_LIMIT_CUDA_MEM="$limit" STARPU_BUS_STATS=1 "$R/cholesky" "${args[@]}"
}

# models: the example kernels calibrated afresh (their own STARPU_HOME,
# no earlier samples) at tile sizes 512, 1024 and 2048, for perfmodels/.
models() {
	local b home="$out/home-models"
	mkdir -p "$home"
	for b in ${MODELS_BS:-512 1024 2048}; do
		step "models_chol_$b" 40 env STARPU_HOME="$home" STARPU_CALIBRATE=1 "$B/cholesky" \
			-n $((b * 8)) -b "$b" -r 2 --no-check --no-ref --pin -s dmda
		step "models_lu_$b" 40 env STARPU_HOME="$home" STARPU_CALIBRATE=1 "$B/lu" \
			-n $((b * 8)) -b "$b" -r 2 --no-check --no-ref --pin -s dmda
	done
}

# copytrace: where a synchronous fetch's time goes (the trace's transfer
# records against the fetch's own time).
copytrace() {
	local v="$bundle/bench/vela/cuda_copy"
	[ -x "$v" ] || return 0
	mkdir -p "$out/logs/trace-copy"
	step copy_traced 30 env STARPU_NCPU=0 STARPU_NOPENCL=0 STARPU_FXT_TRACE=1 \
		STARPU_FXT_PREFIX="$out/logs/trace-copy/" "$v" -S "16M 64M"
}

# mixed: CPUs + GPU against the GPU alone, data from RAM, three runs each.
mixed() {
	local n=${CHOL_N:-49152} b=${CHOL_BS:-2048}
	local args=(-n "$n" -b "$b" -r 3 --no-check --no-ref --pin -s dmdas)
	step mixed_gpu_only 90 "$B/cholesky" "${args[@]}" -c 0
	step mixed_all 90 "$B/cholesky" "${args[@]}"
}

# traces: real runs traced (the models of calibrate, when run before).
traces() {
	local p n sched
	for p in cholesky lu; do
		for n in ${TRACE_SIZES:-8192 24576}; do
			for sched in dmda dmdas; do
				mkdir -p "$out/logs/trace-real/$p-$n-$sched"
				step "traced_${p}_${n}_$sched" 40 env STARPU_FXT_TRACE=1 \
					STARPU_FXT_PREFIX="$out/logs/trace-real/$p-$n-$sched/" "$B/$p" -n "$n" -b 1024 -r 2 \
					--no-check --no-ref --pin -s "$sched"
			done
		done
	done
}

# copies: where a copy through the runtime stands against the bare ones.
copies() {
	local v="$bundle/bench/vela/cuda_copy" s="$bundle/bench/starpu/cuda_copy"
	[ -x "$v" ] || { echo "copies: bench/compare-cuda build first (no $v)" | tee -a "$out/summary.txt"; return 0; }
	step copies_vela 60 env STARPU_NCPU=0 STARPU_NOPENCL=0 "$v" -S "16M 64M" -r 20
	[ -x "$s" ] && step copies_starpu 60 env STARPU_HOME="$out/home-starpu" STARPU_NCPU=0 STARPU_NOPENCL=0 \
		"$s" -S "16M 64M" -r 20
}

# compare: the side-by-side microbenchmarks (bench/compare-cuda).
compare() {
	if [ -x "$bundle/bench/compare-cuda" ]; then
		step compare_cuda 150 env OUT="$out/logs" "$bundle/bench/compare-cuda" run -k 2 -K 1
	else
		echo "bench/compare-cuda: not in the bundle, left out" | tee -a "$out/summary.txt"
	fi
}

# finish: one archive of the logs and models (few files come back).
finish() {
	echo "# results: $out" | tee -a "$out/summary.txt"
	tar -C "$out" -czf "$out/gpu-logs.tar.gz" logs home home-starpu $(cd "$out" && ls -d home-models 2>/dev/null)
	rm -rf "$out/logs" "$out/home" "$out/home-starpu" "$out/home-models"
	exit $failed
}

run() {
	local parts=${1:-all} part
	case $parts in
	measure) parts=calibrate,compare,perf,accuracy,oversub,models ;;
	all) parts=suite,calibrate,compare,perf,accuracy,oversub,models ;;
	esac
	for part in ${parts//,/ }; do
		case $part in
		suite|calibrate|compare|perf|accuracy|oversub|models|copytrace|mixed|traces|copies) ;;
		*) echo "$0 run: unknown part '$part' (suite, calibrate, compare, perf, accuracy, oversub, models, copytrace, mixed, traces, copies; measure; all)" >&2
		   exit 2 ;;
		esac
	done
	setup
	for part in ${parts//,/ }; do
		"$part"
	done
	grep -h "GFlop/s=" "$out"/logs/*.log 2>/dev/null | tee -a "$out/summary.txt"
	finish
}

case ${1:-} in
pack) pack ;;
run) run "${2:-all}" ;;
*) echo "usage: $0 pack|run [suite|measure|all|PART,PART...]" >&2; exit 2 ;;
esac
