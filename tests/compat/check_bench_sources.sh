#!/bin/sh
# The side-by-side benchmarks' sources compile against StarPU 1.3 too.
# Every program a bench/compare-* script builds against both runtimes
# (cmp_build_sides NAME [SRC]: SRC, else bench/NAME.c) is compiled here
# against Debian's StarPU 1.3 (pkg-config starpu-1.3, and starpumpi-1.3 with
# Open MPI's flags for those that include starpu_mpi.h), with implicit
# declarations as errors: a Vela-only call left unguarded in one of them
# (VELA_VERSION_STRING) builds with Vela and breaks the comparison only.
# Skipped (77) when StarPU 1.3 is not installed.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CC:=cc}"
if ! pkg-config --exists starpu-1.3 2>/dev/null; then
	echo "StarPU 1.3 not installed (pkg-config starpu-1.3; Debian: libstarpu-dev): skipped"
	exit 77
fi
starpu_cflags=$(pkg-config --cflags starpu-1.3) || exit 1
mpi_cflags=
if pkg-config --exists starpumpi-1.3 2>/dev/null && command -v mpicc >/dev/null 2>&1; then
	mpi_cflags="$(pkg-config --cflags starpumpi-1.3) $(mpicc --showme:compile 2>/dev/null)"
fi

# NAME [SRC] of every cmp_build_sides call, SRC with $repo expanded.
sources=$(cat "$top_srcdir"/bench/compare-* |
	grep -o 'cmp_build_sides [a-z_0-9]\{1,\}\( "[^"]*"\)\{0,1\}' |
	while read -r _ name src; do
		src=$(printf '%s' "$src" | tr -d '"')
		[ -n "$src" ] || src="\$repo/bench/$name.c"
		printf '%s\n' "$src" | sed "s|^\\\$repo|$top_srcdir|"
	done | sort -u)
n=0 fail=0 skipped=0
for src in $sources; do
	if [ ! -f "$src" ]; then
		echo "FAIL: $src (named by a bench/compare-* script) does not exist"
		fail=1
		continue
	fi
	flags=$starpu_cflags
	if grep -q '#include <starpu_mpi.h>' "$src"; then
		if [ -z "$mpi_cflags" ]; then
			echo "skip: $src (StarPU-MPI 1.3 or mpicc not installed)"
			skipped=$((skipped + 1))
			continue
		fi
		flags="$flags $mpi_cflags"
	fi
	n=$((n + 1))
	# shellcheck disable=SC2086
	if ! $CC -std=gnu11 -fsyntax-only -Werror=implicit-function-declaration $flags "$src" 2>"${TMPDIR:-/tmp}/vela-bench-src.$$"; then
		echo "FAIL: $src does not compile against StarPU 1.3:"
		head -n 20 "${TMPDIR:-/tmp}/vela-bench-src.$$"
		fail=1
	fi
done
rm -f "${TMPDIR:-/tmp}/vela-bench-src.$$"
if [ "$n" -lt 10 ]; then
	echo "FAIL: only $n sources found in bench/compare-* (expected the dozen the scripts build)"
	fail=1
fi
[ "$fail" = 0 ] && echo "ok: $n benchmark sources compile against StarPU 1.3 ($skipped skipped)"
exit "$fail"
