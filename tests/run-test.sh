#!/bin/sh
# Runs one test program for the automake harness: under a time limit (so a
# hang fails instead of stalling the suite), quiet, with its own STARPU_HOME
# and one BLAS thread per worker. Exit 77 from the program means "skipped".
: "${VELA_TEST_TIMEOUT:=300}"
STARPU_SILENT=${STARPU_SILENT:-1}
STARPU_HOME=${STARPU_HOME:-$(pwd)/test-home}
OPENBLAS_NUM_THREADS=1
export STARPU_SILENT STARPU_HOME OPENBLAS_NUM_THREADS
mkdir -p "$STARPU_HOME"
exec timeout -k 10 "$VELA_TEST_TIMEOUT" "$@"
