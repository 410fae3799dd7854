#!/bin/sh
# Derives the roofline models of the example machines (platforms/) with
# `vela perfmodel derive`: the GPUs from their datasheet peak and bandwidth,
# the CPU cores likewise. Every figure is named with its source; the
# efficiencies are stated assumptions. The files say "DERIVED ... not
# measured" in their "# Vela:" header line.
#   sh perfmodels/derive-examples.sh [path/to/vela]
set -e
here=$(cd "$(dirname "$0")" && pwd)
vela=${1:-$here/../build/tools/vela}

# NVIDIA A100 Tensor Core GPU datasheet (2021): FP64 Tensor Core 19.5 TFLOPS
# (cuBLAS DGEMM uses them), memory bandwidth 1,555 GB/s (A100 40GB, PCIe and
# SXM4). Efficiency 0.7 of the peak and 0.8 of the bandwidth: ASSUMPTIONS
# (typical of large DGEMM; panel kernels potrf/getrf reach far less, which a
# roofline does not know).
A100="--peak-gflops 19500 --bandwidth-gbs 1555 --efficiency 0.7 --bw-efficiency 0.8 --latency-us 5"
A100_SRC="NVIDIA A100 Tensor Core GPU datasheet (2021): FP64 Tensor Core 19.5 TFLOPS, 1555 GB/s (40GB)"
# AMD EPYC 7742 (AMD product page): 64 cores at 2.25 GHz base; Zen 2 does two
# 256-bit FMAs per cycle, 16 double-precision flops: 36 GFlop/s per core.
# EPYC 7002: 8 x DDR4-3200 per socket, 204.8 GB/s, i.e. 3.2 GB/s per core
# when all 64 stream at once.
EPYC="--arch cpu --peak-gflops 36 --bandwidth-gbs 3.2 --efficiency 0.7 --bw-efficiency 0.8"
EPYC_SRC="AMD EPYC 7742 product page (64 cores, 2.25 GHz; 16 DP flop/cycle for Zen 2), EPYC 7002: 204.8 GB/s per socket"

for m in epyc2-4xa100-pcie dgx-a100; do
	mkdir -p "$here/$m"
	case $m in
	epyc2-4xa100-pcie) n=4 gpu="NVIDIA A100 PCIe 40GB" ;;
	dgx-a100) n=8 gpu="NVIDIA A100 SXM4 40GB" ;;
	esac
	# shellcheck disable=SC2086
	"$vela" perfmodel derive --host $m --output-dir "$here/$m" --name "$gpu" --source "$A100_SRC" --devices $n $A100 >/dev/null
	# shellcheck disable=SC2086
	"$vela" perfmodel derive --host $m --output-dir "$here/$m" --name "AMD EPYC 7742 core" --source "$EPYC_SRC" $EPYC >/dev/null
	echo "derived $here/$m"
done
