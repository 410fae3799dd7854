#!/bin/sh
# Fuzzes the model-file parser with libFuzzer for SECONDS (default 300):
#   sh tests/perfmodel/fuzz/run-fuzz.sh [SECONDS]
# Needs clang with libFuzzer (Debian: clang, libclang-rt-14-dev). New inputs
# that reach new code go to a scratch corpus; crashes to crash-* in the
# current directory (add them to corpus/ once fixed: make check replays it).
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
secs=${1:-300}
build=${FUZZ_BUILD:-$(mktemp -d)}
CC=${CC_FUZZ:-clang}
mkdir -p "$build"
cfg="$top/build/include"
[ -f "$cfg/starpu_config.h" ] || { echo "build Vela first (scripts/build.sh): starpu_config.h is needed"; exit 1; }
$CC -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$top/include" -I"$cfg" -I"$top/runtime" -I"$top" -I"$top/build" \
	"$here/fuzz_model_file.c" "$top/runtime/perfmodel/model_file.c" \
	"$top/runtime/perfmodel/history.c" "$top/runtime/perfmodel/content.c" \
	-lm -o "$build/fuzz_model_file"
mkdir -p "$build/corpus"
cp "$here/corpus/"* "$build/corpus/"
echo "fuzzing for $secs s (binary and corpus in $build)"
"$build/fuzz_model_file" -max_total_time="$secs" -max_len=8192 -timeout=10 \
	-dict="$here/model_file.dict" "$build/corpus" "$here/corpus"
