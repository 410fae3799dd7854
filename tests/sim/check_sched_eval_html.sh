#!/bin/sh
# The HTML report of `vela sched-eval` in a real headless browser (Debian's
# chromium): the page's DOM, as the browser built it, holds one bar chart
# per machine with a bar per case, each bar a link to a Gantt chart that
# exists; the screenshot shows the bars (the chart's first policy colors
# cover a visible area); a linked Gantt chart renders too
# (tests/trace/check_svg_browser.sh). Skipped (77) without chromium,
# python3 or the SimGrid plugin.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
[ -n "$browser" ] || { echo "chromium not installed: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
. "$top_srcdir/tests/sim/sim_test_env.sh"
VELA_DATA_DIR=$top_srcdir
export VELA_DATA_DIR
data="$top_srcdir/tests/sim/data"
"$top_builddir/tools/vela" sched-eval -q -g 1,2 -p epyc2-4xa100-pcie,dgx-a100 -s eager,dmda,ws -o "$tmp/out" \
	"$data/sched_eval_small.rec" >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: the evaluation failed"; exit 1; }
report="$tmp/out/report.html"
run_browser() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --no-first-run --user-data-dir="$tmp/profile" --hide-scrollbars "$@" 2>>"$tmp/browser.log"
}
run_browser --dump-dom "file://$report" >"$tmp/dom.html"
[ -s "$tmp/dom.html" ] || { tail -5 "$tmp/browser.log"; echo "FAIL: the browser gave no DOM"; exit 1; }
run_browser --window-size=1200,900 --screenshot="$tmp/shot.png" "file://$report" >/dev/null
[ -s "$tmp/shot.png" ] || { tail -5 "$tmp/browser.log"; echo "FAIL: no screenshot"; exit 1; }
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$(cd "$(dirname "$0")/../common" && pwd)" python3 - "$tmp/dom.html" "$tmp/shot.png" "$tmp/out" <<'PY' || exit 1
import os, re, sys
from png_pixels import pixel_counts
dom, out = open(sys.argv[1]).read(), sys.argv[3]
charts = re.findall(r'<svg class="chart".*?</svg>', dom, re.S)
assert len(charts) == 2, "expected 2 bar charts (one per machine), found %d" % len(charts)
for c in charts:
    bars = re.findall(r'<a href="([^"]+)"><rect ', c)
    assert len(bars) == 6, "expected 6 bars (3 policies x 2 GPU counts), found %d" % len(bars)
    for href in bars:
        assert os.path.getsize(os.path.join(out, href)) > 0, "bar links to a missing Gantt chart: " + href
print("DOM: 2 charts of 6 bars, each linked to its Gantt chart")
w, h, counts = pixel_counts(sys.argv[2])
# The first three policies' colors (sched_eval_report.c's palette).
for name, rgb in (("eager", (0x4e, 0x79, 0xa7)), ("dmda", (0xf2, 0x8e, 0x2b)), ("ws", (0x59, 0xa1, 0x4f))):
    n = counts.get(rgb, 0)
    print("screenshot %dx%d: %d pixels of %s's bars" % (w, h, n, name))
    assert n > 200, "the bars of %s are not visible" % name
PY
gantt=$(sed -n 's/.*<a href="\(cases\/[0-9]*\/gantt.svg\)"><rect .*/\1/p' "$report" | head -1)
[ -n "$gantt" ] || { echo "FAIL: no Gantt chart linked from the report"; exit 1; }
sh "$top_srcdir/tests/trace/check_svg_browser.sh" "$tmp/out/$gantt"
