#!/bin/sh
# Footprints and sizes of every standard interface are those of Debian's
# StarPU 1.3 (tests/data/footprints.c built against both; performance model
# files are keyed by them). Skipped (77) without StarPU's development files.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
: "${CC:=cc}"
if ! pkg-config --exists starpu-1.3 2>/dev/null; then
	echo "StarPU 1.3 development files not found (Debian: libstarpu-dev): skipped"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src="$top_srcdir/tests/data/footprints.c"
# shellcheck disable=SC2046
$CC -o "$tmp/starpu" "$src" $(pkg-config --cflags --libs starpu-1.3) || { echo "cannot build against StarPU"; exit 1; }
# The Vela side is built by make (tests/data/footprints), with the build's flags.
vela="$top_builddir/tests/data/footprints"
[ -x "$vela" ] || { echo "$vela is not built (make check builds it)"; exit 1; }
STARPU_SILENT=1 STARPU_NCPU=1 "$tmp/starpu" >"$tmp/s.txt" 2>"$tmp/s.err" || { echo "the StarPU build failed:"; cat "$tmp/s.err"; exit 1; }
STARPU_SILENT=1 "$vela" >"$tmp/v.txt" 2>"$tmp/v.err" || { echo "the Vela build failed:"; cat "$tmp/v.err"; exit 1; }
if ! cmp -s "$tmp/s.txt" "$tmp/v.txt"; then
	echo "footprints or sizes differ (< StarPU, > Vela):"
	diff "$tmp/s.txt" "$tmp/v.txt"
	exit 1
fi
echo "footprints and sizes of $(wc -l <"$tmp/s.txt") interfaces match StarPU 1.3"
exit 0
