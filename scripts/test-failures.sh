#!/bin/sh
# Prints which tests failed in a build tree, each with the end of its log:
# run after a failed `make check` (the sanitizer targets and .ci/run call
# it). Usage: test-failures.sh BUILD_DIR [LINES] (default 200 lines per
# log). Reads the automake harness's records (<test>.trs next to
# <test>.log); prints nothing more than a note when no test failed (the
# failure was then in the build: see make's output above).
dir=${1:?usage: test-failures.sh BUILD_DIR [LINES]}
lines=${2:-200}
failed=$(find "$dir" -name '*.trs' -newer "$dir/config.status" 2>/dev/null |
	xargs -r grep -l -E '^:test-result: (FAIL|ERROR|XPASS)' 2>/dev/null | sort)
if [ -z "$failed" ]; then
	echo "test-failures.sh: no failed test recorded under $dir"
	exit 0
fi
echo "==== Failed tests under $dir:"
for t in $failed; do
	echo "  ${t%.trs} ($(sed -n 's/^:test-result: //p' "$t" | head -1))"
done
for t in $failed; do
	log=${t%.trs}.log
	echo
	echo "==== ${log} (last $lines lines)"
	tail -n "$lines" "$log"
done
