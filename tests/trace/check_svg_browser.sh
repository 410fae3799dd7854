#!/bin/sh
# Renders the synthetic trace's SVG Gantt chart in a real headless browser
# (Debian's chromium) and checks the screenshot is not blank: several
# distinct colors, a good share of non-white pixels. Skipped (exit 77)
# when chromium is not installed (apt-get install chromium).
# Standalone: tests/trace/check_svg_browser.sh [FILE.svg] (keeps the PNG
# in $KEEP_PNG if set).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
[ -n "$browser" ] || { echo "chromium not installed: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
svg=$1
if [ -z "$svg" ]; then
	"$top_builddir/tests/trace/gen_synthetic" "$tmp/t.vtrace" || exit 1
	"$top_builddir/tools/vela" trace export --format svg "$tmp/t.vtrace" -o "$tmp/t.svg" 2>/dev/null || exit 1
	svg="$tmp/t.svg"
fi
case "$svg" in /*) ;; *) svg="$PWD/$svg" ;; esac
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --no-first-run --user-data-dir="$tmp/profile" --hide-scrollbars \
	--window-size=1200,500 --screenshot="$tmp/shot.png" "file://$svg" >"$tmp/log" 2>&1
[ -s "$tmp/shot.png" ] || { tail -5 "$tmp/log"; echo "FAIL: no screenshot"; exit 1; }
[ -n "$KEEP_PNG" ] && cp "$tmp/shot.png" "$KEEP_PNG"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$(cd "$(dirname "$0")/../common" && pwd)" python3 - "$tmp/shot.png" <<'PY'
import sys
from png_pixels import pixel_counts
w, h, counts = pixel_counts(sys.argv[1])
colors = set(counts)
nonwhite = w * h - counts.get((255, 255, 255), 0)
share = nonwhite / float(w * h)
print("screenshot %dx%d: %d colors, %.1f%% non-white" % (w, h, len(colors), 100 * share))
assert len(colors) >= 8, "too few colors: blank rendering?"
assert share > 0.05, "almost white: blank rendering?"
PY
