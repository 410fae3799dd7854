#!/bin/sh
# Fuzzes the model-file parser with libFuzzer for SECONDS (default 300):
#   sh tests/perfmodel/fuzz/run-fuzz.sh [SECONDS]
# The model-file target of tests/fuzz/run-fuzz.sh, which builds and runs
# every file reader's target (see tests/fuzz/README.md).
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../../fuzz/run-fuzz.sh" -t model_file "${1:-300}"
