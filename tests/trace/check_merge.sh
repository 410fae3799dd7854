#!/bin/sh
# Merging the per-rank traces of a distributed run (`vela trace merge`,
# `vela trace export` with several traces), on traces written by
# gen_ranks through the runtime's writer with fixed times and clocks that
# differ between ranks (offset and drift): the merged Perfetto and Paje
# exports of 2 and 4 ranks are compared byte for byte with golden/ and
# validated; the merge summary says every message is linked and the
# clocks are corrected (no message received before it was sent). Then the
# bad inputs, each refused (exit 1) with the file and the reason (and the
# record's byte offset where one record is at fault): traces of different
# runs, a missing rank, a rank given twice, a trace that is not a rank's, a
# corrupt file, a message record naming a rank outside the run, two sides
# of a message disagreeing on its size; and those reported but merged: a
# truncated rank trace (unmatched messages), clocks off by more than their
# error bound, ranks without clock points. The merge depends only on the
# files: a simulated run writing these records merges the same way.
#
# UPDATE_GOLDEN=1 rewrites the golden files instead (review the diff!).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
vela="$top_builddir/tools/vela"
gen="$top_builddir/tests/trace/gen_ranks"
golden="$top_srcdir/tests/trace/golden"
for f in "$vela" "$gen" "$top_builddir/tests/trace/gen_synthetic"; do
	[ -x "$f" ] || { echo "missing $f (build first)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
problem() { echo "FAIL: $*"; fail=1; }
. "$top_srcdir/tests/trace/validate.sh"

for np in 2 4; do
	"$gen" r$np $np || exit 1
	set -- $(seq -f "r$np.%g" $((np - 1)) -1 0)	# any order
	"$vela" trace merge "$@" >merge$np.out 2>merge$np.err || { cat merge$np.err; problem "merge of $np ranks"; }
	cat merge$np.out
	[ -s merge$np.err ] && { cat merge$np.err; problem "merge of $np ranks printed warnings"; }
	grep -q "^run 0000000000005eed: $np ranks, $((np + 1)) messages linked, 0 unmatched, 0 outside the run, 0 received before sent$" merge$np.out ||
		problem "merge of $np ranks: not $((np + 1)) messages linked"
	grep -q "^rank 1: r$np.1 .* 2 clock points, rate 0.999980000, error <= 3.000 us$" merge$np.out ||
		problem "merge of $np ranks: rank 1's clock rate and error"
	for fe in chrome:json paje:paje; do
		"$vela" trace export --format "${fe%%:*}" "$@" -o "merged$np.${fe#*:}" 2>export.err ||
			{ cat export.err; problem "export --format ${fe%%:*} of $np ranks"; }
	done
	# Default output name: the first trace's, .merged.
	"$vela" trace export --format chrome "$@" 2>/dev/null && [ -s "$1.merged.json" ] || problem "default name of a merged export"
	for ext in json paje; do
		if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
			cp "merged$np.$ext" "$golden/merged$np.$ext"
		elif ! diff -u "$golden/merged$np.$ext" "merged$np.$ext" >diff.$ext; then
			head -40 diff.$ext
			problem "merged$np.$ext differs from the golden file"
		fi
	done
	awk -f "$top_srcdir/tests/trace/check_paje.awk" merged$np.paje || problem "merged$np.paje: Paje grammar"
	if command -v pj_dump >/dev/null 2>&1; then
		pj_dump merged$np.paje >pj.out 2>pj.err || { cat pj.err; problem "pj_dump rejects merged$np.paje"; }
		[ "$(grep -c '^Link, 0, Message, ' pj.out)" = $((np + 1)) ] || problem "pj_dump: not $((np + 1)) message links in merged$np.paje"
	fi
	command -v python3 >/dev/null 2>&1 || { echo "note: no python3: merged$np.json not parsed"; continue; }
	python3 - merged$np.json $np <<'PY' || problem "merged$np.json: see above"
import json, sys
d = json.load(open(sys.argv[1])); np = int(sys.argv[2])
ev = d["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
rank_of = {p: int(n.split()[1]) for p, n in names.items()}
assert sorted(set(rank_of.values())) == list(range(np)), names
flows = {}
for e in ev:
    if e.get("cat") == "message":
        flows.setdefault(e["id"], []).append(e)
assert len(flows) == np + 1, flows
for f in flows.values():
    s = [e for e in f if e["ph"] == "s"][0]; r = [e for e in f if e["ph"] == "f"][0]
    assert r["ts"] >= s["ts"], f          # forwards in time once the clocks are corrected
    assert rank_of[s["pid"]] != rank_of[r["pid"]], f
# Every rank's tasks lie where the reference clock puts them: "produce"
# starts 2000 + 50 r us after the reference's origin, whatever the rank's clock.
t0 = {}
for e in ev:
    if e["ph"] == "X" and e["name"] == "produce":
        t0[rank_of[e["pid"]]] = e["ts"]
base = t0[0]
for r, ts in t0.items():
    assert abs(ts - base - 50 * r) < 0.01, (r, ts, base)
print("merged%d.json: %d ranks, %d messages, aligned" % (np, np, len(flows)))
PY
done

# A rank's trace alone: its messages per peer in the statistics.
"$vela" trace stats r2.0 >stats.out 2>&1 || problem "stats of a rank's trace"
grep -q "^Messages (rank 0 of 2, run 0000000000005eed):" stats.out &&
	grep -q "^  rank 1 *2 sent *4160 bytes .* 1 received *4096 bytes" stats.out || { cat stats.out; problem "stats: messages of rank 0"; }

expect_error() {	# what, pattern, command...
	what=$1 pat=$2; shift 2
	"$@" >/dev/null 2>err.out; rc=$?
	[ "$rc" = 1 ] || problem "$what: exit status $rc, not 1"
	grep -q -- "$pat" err.out || { cat err.out; problem "$what: no message matching '$pat'"; }
	[ "$(wc -l <err.out)" -le 2 ] || { cat err.out; problem "$what: more than one line of error"; }
}
"$gen" other 4 other-run || exit 1
expect_error "traces of different runs" "'other.3' (process record at byte [0-9]*) is rank 3 of 4 of run 0000000000000bad, but 'other.0' is rank 0 of 4 of run 0000000000005eed: traces of different runs" \
	"$vela" trace merge other.0 other.1 other.2 other.3
expect_error "a missing rank" "rank 2 of the 4 of run 0000000000005eed is missing: given 'r4.0' (rank 0), 'r4.1' (rank 1), 'r4.3' (rank 3)" \
	"$vela" trace merge r4.0 r4.1 r4.3
expect_error "a missing rank (export)" "rank 2 of the 4 .* is missing" "$vela" trace export --format paje r4.0 r4.1 r4.3 -o x.paje
expect_error "a rank twice" "'r4.1' and 'r4.1' are both rank 1" "$vela" trace merge r4.0 r4.1 r4.1 r4.2 r4.3
expect_error "a rank of another run size" "traces of different runs" "$vela" trace merge r2.0 r4.1
"$top_builddir/tests/trace/gen_synthetic" single.vtrace || exit 1
expect_error "a trace of no distributed run" "'single.vtrace' has no process record" "$vela" trace merge r2.0 single.vtrace
printf 'not a trace at all, just some text that is long enough\n' >garbage
expect_error "a corrupt file" "'garbage' is not a Vela trace (bad magic number)" "$vela" trace merge r2.0 garbage
expect_error "a missing file" "cannot open 'nothere'" "$vela" trace merge r2.0 nothere
"$gen" badpeer 2 bad-peer || exit 1
expect_error "a message to a rank outside the run" "'badpeer.0': corrupt message record at byte [0-9]*: peer 2, but this is rank 0 of 2" \
	"$vela" trace merge badpeer.0 badpeer.1
"$gen" size 2 size || exit 1
expect_error "sizes that disagree" "message tag 7 #0 from rank 0 to rank 1: 'size.0' sent 4096 bytes (record at byte [0-9]*), 'size.1' received 4000 (record at byte [0-9]*)" \
	"$vela" trace merge size.0 size.1
# A corrupt process record (rank beyond the count), found by offset.
cp r2.1 badproc
off=$(od -A d -t u2 -w8 -v badproc | awk '$2 == 15 && $3 == 24 { print $1 + 0; exit }')
[ -n "$off" ] || problem "no process record found in r2.1"
printf '\011' | dd of=badproc bs=1 seek=$((off + 16)) conv=notrunc 2>/dev/null
expect_error "a corrupt process record" "'badproc': corrupt process record at byte $off: rank 9 of 2" "$vela" trace merge r2.0 badproc
"$vela" trace export --format svg r2.0 r2.1 -o x.svg >/dev/null 2>err.out; [ $? = 2 ] || problem "a merged svg export is not a usage error"
grep -q "in the chrome or paje format only" err.out || problem "a merged svg export does not say why"

# Reported, and merged all the same.
sz=$(wc -c <r2.1)
head -c $((sz - 200)) r2.1 >cut.1
"$vela" trace merge r2.0 cut.1 >cut.out 2>cut.err || { cat cut.err; problem "a truncated rank trace was refused"; }
grep -q "'cut.1' (rank 1) is incomplete" cut.err || problem "a truncated rank trace is not reported"
"$gen" skew 2 skew || exit 1
"$vela" trace merge skew.0 skew.1 >skew.out 2>skew.err || problem "merge with skewed clocks failed"
grep -q "1 messages are received before they were sent on the merged clock (by up to 9[0-9][0-9]\.[0-9]* us)" skew.err ||
	{ cat skew.err; problem "skewed clocks not reported"; }
grep -q ", 1 received before sent$" skew.out || problem "skewed clocks: count"
"$gen" noclock 2 no-clock || exit 1
"$vela" trace merge noclock.0 noclock.1 >/dev/null 2>noclock.err || problem "merge without clock points failed"
grep -q "'noclock.1' (rank 1) has no clock synchronisation with rank 0" noclock.err || problem "missing clock points not reported"
exit $fail
