#!/bin/sh
# Model files go both ways between Vela and Debian's StarPU 1.3:
#  1. files Vela writes (calibrate_helper) are read by StarPU's
#     starpu_perfmodel_display, which shows the same entries as
#     `vela perfmodel show`;
#  2. files StarPU writes (its cholesky_implicit example, calibrating) are
#     read by Vela, which shows the same entries as StarPU's tool.
# Skipped (77) when StarPU's tools are not installed.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
display=$(command -v starpu_perfmodel_display)
if [ -z "$display" ]; then
	echo "starpu_perfmodel_display not found (Debian: starpu-tools): skipped"
	exit 77
fi
vela="$top_builddir/tools/vela"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STARPU_HOME=$tmp STARPU_HOSTNAME=rthost STARPU_SILENT=1 STARPU_HISTORY_MAX_ERROR=1000000
export STARPU_HOME STARPU_HOSTNAME STARPU_SILENT STARPU_HISTORY_MAX_ERROR
unset STARPU_PERF_MODEL_DIR
fail=0

# Entry lines (hash size flops mean stddev n), sorted: the two tools list
# entries in opposite orders.
entries() { grep -E '^[0-9a-f]{8}	' | sort; }

compare() {
	sym=$1
	"$display" -s "$sym" >"$tmp/starpu.txt" 2>&1 || { echo "StarPU could not read $sym:"; cat "$tmp/starpu.txt"; fail=1; return; }
	"$vela" perfmodel show "$sym" >"$tmp/vela.txt" 2>&1 || { echo "Vela could not read $sym:"; cat "$tmp/vela.txt"; fail=1; return; }
	entries <"$tmp/starpu.txt" >"$tmp/s"
	entries <"$tmp/vela.txt" >"$tmp/v"
	if [ ! -s "$tmp/s" ] || ! cmp -s "$tmp/s" "$tmp/v"; then
		echo "$sym: StarPU and Vela show different entries:"; diff "$tmp/s" "$tmp/v"; fail=1
	else
		echo "$sym: $(wc -l <"$tmp/s") entries read alike by StarPU and Vela"
	fi
	# The per-arch headers too (archs and implementations).
	grep '^# performance model for' "$tmp/starpu.txt" | sort >"$tmp/s"
	grep '^# performance model for' "$tmp/vela.txt" | sort >"$tmp/v"
	cmp -s "$tmp/s" "$tmp/v" || { echo "$sym: different archs/implementations:"; diff "$tmp/s" "$tmp/v"; fail=1; }
}

# 1. Vela writes, StarPU reads.
STARPU_CALIBRATE=1 "$top_builddir/tests/perfmodel/calibrate_helper" || { echo "calibrate_helper failed"; exit 1; }
compare vela_rt_hist
compare vela_rt_nl
"$display" -s vela_rt_nl -p b >"$tmp/b.txt" 2>&1 && grep -q '^[0-9]' "$tmp/b.txt" || { echo "StarPU does not see the non-linear fit:"; cat "$tmp/b.txt"; fail=1; }

# 2. StarPU writes, Vela reads.
chol=/usr/lib/x86_64-linux-gnu/starpu/examples/cholesky_implicit
if [ -x "$chol" ]; then
	STARPU_CALIBRATE=1 STARPU_NCPU=1 timeout 120 "$chol" -size 960 -nblocks 4 >"$tmp/chol.txt" 2>&1 || { echo "StarPU's cholesky_implicit failed:"; cat "$tmp/chol.txt"; exit 1; }
	for sym in chol_model_11 chol_model_21 chol_model_22; do
		compare $sym
	done
else
	echo "StarPU's cholesky_implicit example not installed (starpu-examples): StarPU-to-Vela part skipped"
fi
exit $fail
