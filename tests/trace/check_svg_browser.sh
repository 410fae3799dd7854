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
python3 - "$tmp/shot.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colors, nonwhite = set(), 0
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = tuple(line[x:x + 3])
        colors.add(px)
        if px != (255, 255, 255):
            nonwhite += 1
    prev = line
share = nonwhite / float(w * h)
print("screenshot %dx%d: %d colors, %.1f%% non-white" % (w, h, len(colors), 100 * share))
assert len(colors) >= 8, "too few colors: blank rendering?"
assert share > 0.05, "almost white: blank rendering?"
PY
