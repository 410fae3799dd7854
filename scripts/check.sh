#!/bin/sh
# Quick start 2: build if needed and run the whole test suite (make check:
# CUnit suites, integration programs and examples; ends with CUnit's run
# summary). Extra arguments go to make (e.g. check-asan, check-tsan).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/deps.sh"
sh "$root/scripts/build.sh"
cd "$root/build"
[ $# -gt 0 ] || set -- check
make -j"${JOBS:-2}" --no-print-directory "$@"
