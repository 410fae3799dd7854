#!/bin/sh
# Quick start 1: install the dependencies, build Vela, and run the demo: a
# tiled Cholesky factorization on this machine's CPU workers, once per
# scheduling policy, printing time and GFlop/s.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/deps.sh"
sh "$root/scripts/build.sh"
cd "$root/build/examples"
export OPENBLAS_NUM_THREADS=1
export STARPU_HOME="${STARPU_HOME:-$root/build/home}"
echo ""
echo "== Vela demo: tiled Cholesky (examples/cholesky.c) on the CPU workers =="
./cholesky "$@"
