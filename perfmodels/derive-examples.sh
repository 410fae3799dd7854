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

# ---- cluster-4slaves: a master and 4 MPI slaves, one AMD EPYC 7302 each ------
# AMD EPYC 7302 (AMD product page): 16 cores at 3.0 GHz base; Zen 2 does two
# 256-bit FMAs per cycle, 16 double-precision flops: 48 GFlop/s per core.
# EPYC 7002: 8 x DDR4-3200 per socket, 204.8 GB/s, i.e. 12.8 GB/s per core
# when all 16 stream at once. Efficiencies as above (ASSUMPTIONS).
EPYC7302="--arch cpu --peak-gflops 48 --bandwidth-gbs 12.8 --efficiency 0.7 --bw-efficiency 0.8"
EPYC7302_SRC="AMD EPYC 7302 product page (16 cores, 3.0 GHz; 16 DP flop/cycle for Zen 2), EPYC 7002: 204.8 GB/s per socket"
# The slaves' cores are the master's: each model's CPU comb is copied for
# the MPI_MS archs of slaves 0..3 (vela perfmodel derive writes cpu, cuda
# and opencl archs only).
m=cluster-4slaves
tmp=$(mktemp -d)
# shellcheck disable=SC2086
"$vela" perfmodel derive --host $m --output-dir "$tmp" --name "AMD EPYC 7302 core" --source "$EPYC7302_SRC" $EPYC7302 >/dev/null
mkdir -p "$here/$m/codelets/45"
for f in "$tmp"/codelets/45/*.$m; do
	awk -v n=4 '
	{ line[NR] = $0 }
	END {
		for (i = 1; i <= NR; i++)
			if (line[i] == "# number of combinations") { ci = i + 1; break }
		print "# Vela: DERIVED, not measured: the MPI_MS archs of slaves 0 to " n - 1 " are copies of the cpu arch (their cores are the same AMD EPYC 7302 cores)"
		for (i = 1; i < ci; i++)
			print line[i]
		print 1 + n
		for (i = ci + 1; i <= NR; i++)
			print line[i]
		for (k = 0; k < n; k++) {
			prev = ""
			for (i = ci + 1; i <= NR; i++) {
				l = line[i]
				if (l == "# COMB_0")
					l = "# COMB_" (k + 1)
				else if (prev ~ /^# device type/)
					l = "5"
				else if (prev ~ /^# device id/)
					l = k
				else if (l ~ /^# Model for cpu0_impl/) {
					sub(/cpu0_impl/, "mpi_ms" k "_impl", l)
					sub(/Comb0/, "Comb" (k + 1), l)
				}
				print l
				prev = line[i]
			}
		}
	}' "$f" >"$here/$m/codelets/45/$(basename "$f")"
done
rm -rf "$tmp"
echo "derived $here/$m"
