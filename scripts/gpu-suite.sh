#!/bin/bash
# The GPU suite: what needs a real NVIDIA GPU, in one command that fits a
# lent GPU machine's few minutes (that machine has the CUDA toolkit but no
# Debian packages, and only the repository travels to it).
#
#   bash scripts/gpu-suite.sh pack   # here: build, then gather the programs
#                                    # and every library they need (hwloc,
#                                    # CUnit, OpenBLAS, ...) into gpu-bundle/
#   bash scripts/gpu-suite.sh run    # there (carry gpu-bundle/): run them
#
# run executes, each under a time limit: `vela machine` (the GPUs it sees),
# tests/cuda/test_cuda_gpu (round trips of every interface, kernels in
# flight, cuBLAS, pinned memory, eviction at 4x STARPU_LIMIT_CUDA_MEM,
# -ENOMEM, SCRATCH, REDUX, partitions, two workers per GPU, a copy
# overlapping a kernel in the trace), the same under compute-sanitizer
# (memcheck) when the toolkit has it, and the Cholesky and LU examples on
# CPUs + GPUs under several schedulers, results checked against LAPACK.
# Output goes to $OUT (or gpu-results/): one log per step and summary.txt.
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
		*) cp -L "$lib" "$bundle/lib/" ;;
		esac
	done
	cp "$0" "$bundle/gpu-suite.sh"
	echo "gpu-bundle/: $(ls "$bundle/bin" | tr '\n' ' ')+ $(ls "$bundle/lib" | wc -l) libraries ($(du -sh "$bundle" | cut -f1))"
	git -C "$root" check-ignore -q "$bundle" || echo "note: add gpu-bundle/ to .git/info/exclude so it travels only when carried"
}

# step NAME SECONDS CMD...: runs CMD with its log in $out/NAME.log.
step() {
	local name=$1 limit=$2
	shift 2
	local t0=$(date +%s.%N) rc
	timeout -k 10 "$limit" "$@" >"$out/$name.log" 2>&1
	rc=$?
	local dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	local verdict=pass
	[ $rc -eq 0 ] || verdict="FAIL (exit $rc)"
	[ $rc -eq 77 ] && verdict="SKIPPED (exit 77: $(tail -1 "$out/$name.log"))"
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && verdict="TIMEOUT after ${limit}s"
	printf '%-28s %-10s %6ss\n' "$name" "$verdict" "$dt" | tee -a "$out/summary.txt"
	[ $rc -eq 0 ] || failed=1
}

run() {
	out=${OUT:-$root/gpu-results}
	mkdir -p "$out"
	: >"$out/summary.txt"
	failed=0
	[ -d "$bundle/bin" ] || { echo "no gpu-bundle/ here: run 'scripts/gpu-suite.sh pack' first and carry gpu-bundle" >&2; exit 1; }
	export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export STARPU_HOME="$out/home" STARPU_SILENT=1 OPENBLAS_NUM_THREADS=1
	mkdir -p "$STARPU_HOME"
	{
		echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
		command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
	} | tee -a "$out/summary.txt"
	local B="$bundle/bin"
	step machine 120 "$B/vela" machine
	step test_cuda_gpu 240 "$B/test_cuda_gpu"
	local sanitizer=""
	for s in compute-sanitizer /usr/local/cuda/bin/compute-sanitizer; do
		command -v "$s" >/dev/null && sanitizer=$s && break
	done
	if [ -n "$sanitizer" ]; then
		step test_cuda_gpu_memcheck 300 "$sanitizer" --tool memcheck --error-exitcode 99 "$B/test_cuda_gpu" cuda_data
	else
		echo "compute-sanitizer: not found, memcheck step left out" | tee -a "$out/summary.txt"
	fi
	step cholesky 240 "$B/cholesky" -n 8192 -b 1024 -s eager,dmda,dmdas,heteroprio
	step lu 240 "$B/lu" -n 8192 -b 1024 -s eager,dmda,dmdas
	echo "# results: $out" | tee -a "$out/summary.txt"
	exit $failed
}

case ${1:-} in
pack) pack ;;
run) run ;;
*) echo "usage: $0 pack|run" >&2; exit 2 ;;
esac
