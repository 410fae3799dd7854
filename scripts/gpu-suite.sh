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
# run executes, each under a time limit: `vela machine` (the GPUs it sees),
# tests/cuda/test_cuda_gpu (round trips of every interface, kernels in
# flight, cuBLAS, pinned memory, eviction at 4x STARPU_LIMIT_CUDA_MEM,
# -ENOMEM, SCRATCH, REDUX, partitions, two workers per GPU, a copy
# overlapping a kernel in the trace), the same under compute-sanitizer
# (memcheck) when the toolkit has it, and the Cholesky and LU examples on
# CPUs + GPUs under several schedulers, results checked against LAPACK.
# measure times the Cholesky (CHOL_N, CHOL_BS) on the GPU alone, data
# prefetched or not, and on CPUs + GPU, against Vela and the reference.
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
	export STARPU_HOME="$out/home" STARPU_SILENT=1 OPENBLAS_NUM_THREADS=1
	mkdir -p "$STARPU_HOME" "$out/home-starpu"
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
		step test_cuda_gpu_memcheck 90 "$sanitizer" --tool memcheck --error-exitcode 99 "$B/test_cuda_gpu" cuda_data
	else
		echo "compute-sanitizer: not found, memcheck step left out" | tee -a "$out/summary.txt"
	fi
	step cholesky 120 "$B/cholesky" -n 8192 -b 1024 -r 1 --no-ref -s eager,dmda,dmdas,heteroprio
	step lu 120 "$B/lu" -n 8192 -b 1024 -r 1 --no-ref -s eager,dmda,dmdas
}

# The first look at speed: GPU alone, data prefetched or not, Vela and StarPU.
measure() {
	local n=${CHOL_N:-32768} b=${CHOL_BS:-2048}
	local fast=(-n "$n" -b "$b" -r "${CHOL_REPS:-3}" --no-check --no-ref --pin)
	step chol_gpu_prefetched 120 "$B/cholesky" "${fast[@]}" -c 0 --prefetch -s dmdas,dmda
	step chol_gpu_from_host 120 "$B/cholesky" "${fast[@]}" -c 0 -s dmdas,dmda
	step chol_all_from_host 120 "$B/cholesky" "${fast[@]}" -s dmdas,dmda
	if [ -x "$R/cholesky" ]; then
		step starpu_chol_gpu_prefetched 150 env STARPU_HOME="$out/home-starpu" "$R/cholesky" "${fast[@]}" -c 0 --prefetch -s dmdas,dmda
		step starpu_chol_gpu_from_host 150 env STARPU_HOME="$out/home-starpu" "$R/cholesky" "${fast[@]}" -c 0 -s dmdas,dmda
	fi
	grep -h "GFlop/s=" "$out"/logs/chol_*.log "$out"/logs/starpu_chol_*.log 2>/dev/null | tee -a "$out/summary.txt"
}

# finish: one archive of the logs and models (few files come back).
finish() {
	echo "# results: $out" | tee -a "$out/summary.txt"
	tar -C "$out" -czf "$out/gpu-logs.tar.gz" logs home home-starpu 2>/dev/null
	rm -rf "$out/logs" "$out/home" "$out/home-starpu"
	exit $failed
}

run() {
	setup
	case ${1:-all} in
	suite) suite ;;
	measure) measure ;;
	all) suite; measure ;;
	*) echo "usage: $0 run [suite|measure|all]" >&2; exit 2 ;;
	esac
	finish
}

case ${1:-} in
pack) pack ;;
run) run "${2:-all}" ;;
*) echo "usage: $0 pack|run [suite|measure|all]" >&2; exit 2 ;;
esac
