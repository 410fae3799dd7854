#!/bin/sh
# Golden tests of the trace views: a deterministic synthetic trace (written
# by gen_synthetic through the runtime's trace writer) is exported to every
# format and compared byte for byte with tests/trace/golden/; each export is
# also validated by a parser of its format (JSON, XML, Paje grammar, and
# pajeng's pj_dump when installed). Then the bad inputs of `vela trace`: a
# truncated trace (used up to the last complete record, saying where it
# stopped), an unknown version, bad usage.
#
# UPDATE_GOLDEN=1 rewrites the golden files instead (review the diff!).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
vela="$top_builddir/tools/vela"
gen="$top_builddir/tests/trace/gen_synthetic"
golden="$top_srcdir/tests/trace/golden"
for f in "$vela" "$gen"; do
	[ -x "$f" ] || { echo "missing $f (build first)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
problem() { echo "FAIL: $*"; fail=1; }

"$gen" synthetic.vtrace || exit 1
"$gen" slow.vtrace slow || exit 1

for fe in chrome:json paje:paje svg:svg rec:rec dot:dot; do
	fmt=${fe%%:*}; ext=${fe#*:}
	"$vela" trace export --format "$fmt" synthetic.vtrace -o "synthetic.$ext" 2>export.err ||
		{ cat export.err; problem "export --format $fmt"; }
done
"$vela" trace stats synthetic.vtrace >synthetic.stats || problem "stats"
"$vela" trace diff synthetic.vtrace slow.vtrace >synthetic.diff || problem "diff"

for ext in json paje svg rec dot stats diff; do
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "synthetic.$ext" "$golden/synthetic.$ext"
	elif ! diff -u "$golden/synthetic.$ext" "synthetic.$ext" >"diff.$ext"; then
		head -40 "diff.$ext"
		problem "synthetic.$ext differs from the golden file"
	fi
done

# Each format through a parser of it (validate.sh).
. "$top_srcdir/tests/trace/validate.sh"
validate_exports synthetic
# The synthetic trace also has user events (instants) and counters.
grep -q '"ph":"i"' synthetic.json && grep -q '"ph":"C"' synthetic.json || problem "no instant or counter event in synthetic.json"

# A truncated trace: used up to the last complete record, and said so.
size=$(wc -c <synthetic.vtrace)
head -c $((size - 100)) synthetic.vtrace >cut.vtrace
"$vela" trace stats cut.vtrace >cut.out 2>cut.err || problem "stats on a truncated trace failed"
grep -q "incomplete trace" cut.err && grep -q "byte" cut.err || { cat cut.err; problem "no message saying where a truncated trace stops"; }
grep -q "INCOMPLETE" cut.out || problem "stats do not flag the truncated trace"
"$vela" trace export --format svg cut.vtrace -o cut.svg 2>/dev/null || problem "export of a truncated trace failed"
head -c 20 synthetic.vtrace >tiny.vtrace
"$vela" trace stats tiny.vtrace >/dev/null 2>tiny.err && problem "a 20-byte file was accepted"
grep -q "not a Vela trace" tiny.err || { cat tiny.err; problem "message for a 20-byte file"; }

# An unknown version (byte 8 is the version's low byte).
cp synthetic.vtrace v99.vtrace
printf 'c' | dd of=v99.vtrace bs=1 seek=8 conv=notrunc 2>/dev/null
"$vela" trace stats v99.vtrace >/dev/null 2>v99.err && problem "version 99 was accepted"
grep -q "version 99" v99.err || { cat v99.err; problem "message for an unknown version"; }

# Version 1 (before the tasks' data of `vela replay`) is still read: the
# same stats (version 1 files have no TR_TASK_DATA records, this one's are
# read as the reader meets them).
cp synthetic.vtrace v1.vtrace
printf '\001' | dd of=v1.vtrace bs=1 seek=8 conv=notrunc 2>/dev/null
"$vela" trace stats v1.vtrace >v1.stats 2>v1.err || { cat v1.err; problem "a version 1 trace was refused"; }
sed 's/v1.vtrace/synthetic.vtrace/' v1.stats | cmp -s - "$golden/synthetic.stats" || problem "stats of a version 1 trace differ"

# Usage errors.
"$vela" trace export synthetic.vtrace >/dev/null 2>&1; [ $? = 2 ] || problem "export without --format is not a usage error"
"$vela" trace export --format pdf synthetic.vtrace >/dev/null 2>&1; [ $? = 2 ] || problem "unknown format is not a usage error"
"$vela" trace stats /nonexistent >/dev/null 2>&1; [ $? = 1 ] || problem "missing file is not an error"
"$vela" frobnicate >/dev/null 2>&1; [ $? = 2 ] || problem "unknown command is not a usage error"

[ "$fail" = 0 ] && echo "trace exports match the golden files and parse; bad inputs handled"
exit $fail
