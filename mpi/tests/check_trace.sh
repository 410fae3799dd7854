#!/bin/sh
# Traces of a distributed run: tests/test_trace on 2 and on 4 ranks with
# STARPU_FXT_TRACE=1 writes one trace per rank; `vela trace merge` must
# find every rank, link each send to its receive (as many messages as the
# program made, none unmatched, none received before it was sent beyond
# the clocks' error bounds), and the merged Perfetto and Paje exports must
# show every rank's tasks and messages, each message an arrow (a link)
# from a send on its sender to a receive on its receiver that does not go
# back in time. A rank's trace alone still exports, with its messages.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
vela=$top_builddir/tools/vela
[ -x ./tests/test_trace ] && [ -x "$vela" ] || { echo "skipped: tests/test_trace or vela not built"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skipped: python3 is needed to read the exports"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
problem() { echo "FAIL: $*"; fail=1; }

for np in 2 4; do
	mkdir -p "$dir/$np"
	name=tests/test_trace
	[ "$np" = 4 ] && name=tests/test_trace-4ranks.np4
	STARPU_FXT_TRACE=1 STARPU_FXT_PREFIX="$dir/$np/" sh "$top_srcdir/mpi/tests/run-mpi-test.sh" "$name" >"$dir/$np.out" 2>&1
	rc=$?
	[ "$rc" = 77 ] && { cat "$dir/$np.out"; exit 77; }
	[ "$rc" = 0 ] || { cat "$dir/$np.out"; problem "test_trace on $np ranks exited $rc"; continue; }
	expect=$(sed -n 's/^messages: //p' "$dir/$np.out")
	set -- "$dir/$np"/vela_trace_*
	[ "$#" = "$np" ] || { problem "$np ranks wrote $# traces"; continue; }
	"$vela" trace merge "$@" >"$dir/merge.out" 2>"$dir/merge.err" || { cat "$dir/merge.err"; problem "vela trace merge failed on $np ranks"; continue; }
	cat "$dir/merge.out"
	grep -q ": $np ranks, $expect messages linked, 0 unmatched, 0 outside the run, 0 received before sent$" "$dir/merge.out" ||
		problem "on $np ranks: expected $expect messages linked, none unmatched nor received before sent"
	[ -s "$dir/merge.err" ] && { cat "$dir/merge.err"; problem "merge printed warnings on $np ranks"; }
	"$vela" trace export --format chrome "$@" -o "$dir/m.json" 2>/dev/null || problem "merged chrome export on $np ranks"
	"$vela" trace export --format paje "$@" -o "$dir/m.paje" 2>/dev/null || problem "merged paje export on $np ranks"
	python3 - "$dir/m.json" "$np" "$expect" <<'PY' || problem "merged chrome export on $np ranks: see above"
import json, sys
d = json.load(open(sys.argv[1])); np = int(sys.argv[2]); expect = int(sys.argv[3])
ev = d["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
rank_of = {pid: int(n.split()[1]) for pid, n in names.items() if n.startswith("rank ")}
assert sorted(set(rank_of.values())) == list(range(np)), names
tasks = {rank_of[e["pid"]] for e in ev if e["ph"] == "X" and e.get("cat") == "task"}
assert tasks == set(range(np)), "tasks on ranks %s only" % sorted(tasks)
slices = [e for e in ev if e["ph"] == "X" and e.get("cat") in ("send", "receive")]
assert {rank_of[e["pid"]] for e in slices} == set(range(np)), "messages missing on some rank"
flows = {}
for e in ev:
    if e.get("cat") == "message" and e["ph"] in "sf":
        flows.setdefault(e["id"], {})[e["ph"]] = e
assert len(flows) == expect, (len(flows), expect)
def enclosing(p, cat):
    return [x for x in slices if x["pid"] == p["pid"] and x["tid"] == p["tid"] and x["cat"] == cat
            and x["ts"] <= p["ts"] <= x["ts"] + x["dur"]]
for i, f in flows.items():
    s, r = f["s"], f["f"]
    assert rank_of[s["pid"]] != rank_of[r["pid"]], f
    ss, rr = enclosing(s, "send"), enclosing(r, "receive")
    assert ss and rr, ("arrow not on a send and a receive", f)
    assert any(x["args"]["peer"] == rank_of[r["pid"]] for x in ss), ("send to the wrong rank", f)
    assert any(x["args"]["peer"] == rank_of[s["pid"]] and x["args"]["bytes"] == s["args"]["bytes"] for x in rr), ("receive does not match", f)
    # Times consistent: the receive ends after the send starts, within
    # the two clocks' error bounds (measured at the run's synchronisations).
    slack = d["otherData"]["clock_error_us"][rank_of[s["pid"]]] + d["otherData"]["clock_error_us"][rank_of[r["pid"]]] + 0.002
    assert max(x["ts"] + x["dur"] for x in rr) + slack >= min(x["ts"] for x in ss), ("received before sent", slack, f)
print("merged chrome: %d ranks, %d messages, %d events" % (np, len(flows), len(ev)))
PY
	awk -f "$top_srcdir/tests/trace/check_paje.awk" "$dir/m.paje" || problem "merged paje export on $np ranks: grammar"
	links=$(grep -c '^10 .* ML ' "$dir/m.paje"); ends=$(grep -c '^11 .* ML ' "$dir/m.paje")
	[ "$links" = "$expect" ] && [ "$ends" = "$expect" ] || problem "merged paje on $np ranks: $links link starts, $ends ends, expected $expect"
	for r in $(seq 0 $((np - 1))); do
		grep -q "^6 [0-9.]* r${r}_m MT 0 \"rank $r " "$dir/m.paje" || problem "merged paje on $np ranks: no container for rank $r"
	done
	"$vela" trace stats "$1" 2>/dev/null | grep -q "^Messages (rank [0-9]* of $np, run " || problem "vela trace stats shows no messages"
	# One rank alone: its messages, no links.
	"$vela" trace export --format chrome "$1" -o "$dir/one.json" 2>/dev/null && grep -q '"cat":"send"\|"cat":"receive"' "$dir/one.json" ||
		problem "a rank's own trace shows no messages"
done
exit $fail
