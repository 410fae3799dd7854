#!/bin/sh
# The programs of tests/compat (one per group of issue 23 handled here:
# resubmission and tags, partitioning, access modes and buffer counts, API
# pieces, scheduling hints, data, packaging), each an ordinary StarPU 1.3 application, are built from
# the same source against Debian's StarPU 1.3 and against Vela, each with
# nothing but its pkg-config flags, and run: both must pass. Vela is used as
# an application sees it installed: its headers and library under a prefix
# of links, and the vela.pc configure wrote, pointed at that prefix.
# Skipped (77) when StarPU 1.3 (pkg-config starpu-1.3) is not installed.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
: "${CC:=cc}"
if ! pkg-config --exists starpu-1.3 2>/dev/null; then
	echo "StarPU 1.3 not installed (pkg-config starpu-1.3; Debian: libstarpu-dev): skipped"
	exit 77
fi
lib=$(ls "$top_builddir"/runtime/.libs/libvela.so* 2>/dev/null | head -n 1)
if [ ! -f "$top_builddir/vela.pc" ] || [ -z "$lib" ]; then
	echo "no shared libvela or vela.pc in $top_builddir: skipped"
	exit 77
fi
# Which sanitizer's runtime libvela was built with, if any: the program
# must link it too (and first).
san_flags=
case $(readelf -d "$lib" 2>/dev/null) in
*libasan*) san_flags="-fsanitize=address,undefined" ;;
*libtsan*) san_flags="-fsanitize=thread" ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

prefix="$tmp/prefix"
mkdir -p "$prefix/include/vela" "$prefix/lib" "$tmp/pc" "$tmp/home"
for h in "$top_srcdir"/include/*.h "$top_builddir"/include/*.h; do
	ln -sf "$h" "$prefix/include/vela/"
done
for l in "$top_builddir"/runtime/.libs/libvela.so*; do
	ln -sf "$l" "$prefix/lib/"
done
sed -e "s|^prefix=.*|prefix=$prefix|" -e 's|^exec_prefix=.*|exec_prefix=${prefix}|' \
    -e 's|^libdir=.*|libdir=${exec_prefix}/lib|' -e 's|^includedir=.*|includedir=${prefix}/include|' \
    "$top_builddir/vela.pc" >"$tmp/pc/vela.pc"

starpu_flags=$(pkg-config --cflags --libs starpu-1.3) || exit 1
vela_flags=$(PKG_CONFIG_PATH="$tmp/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" pkg-config --cflags --libs vela) || {
	echo "pkg-config cannot read vela.pc"; exit 1; }

# Both runtimes see the same quiet, private environment; the programs set
# their workers and policies themselves.
# The programs' sleeping tasks take longer and longer on a loaded machine
# (or a sanitized one): both runtimes then restart a model entry whose
# measurements stray from its mean by more than STARPU_HISTORY_MAX_ERROR
# percent (default 50), and a model that was calibrated no longer predicts.
# The measurements are kept here whatever they are.
STARPU_SILENT=1 STARPU_HOME="$tmp/home" STARPU_WORKERS_NOBIND=1 STARPU_HISTORY_MAX_ERROR=1000000
export STARPU_SILENT STARPU_HOME STARPU_WORKERS_NOBIND STARPU_HISTORY_MAX_ERROR
unset STARPU_SCHED STARPU_NCPU STARPU_NCPUS STARPU_LIMIT_CPU_MEM STARPU_LIMIT_CPU_NUMA_MEM STARPU_CALIBRATE \
      STARPU_PERF_MODEL_DIR STARPU_FXT_TRACE STARPU_PROFILING STARPU_SIMGRID

fail=0
for src in "$top_srcdir"/tests/compat/compat_*.c; do
	name=$(basename "$src" .c)
	for impl in starpu vela; do
		if [ "$impl" = starpu ]; then
			flags=$starpu_flags
			rpath=
		else
			flags=$vela_flags
			rpath="-Wl,-rpath,$prefix/lib"
			# A sanitized libvela (check-asan, check-tsan) needs the
			# sanitizer's runtime linked into the program, first.
			rpath="$rpath $san_flags"
		fi
		exe="$tmp/$name.$impl"
		# Libraries a program calls itself (a line "/* compat-libs: ... */"),
		# e.g. OpenCL for its kernels: StarPU's .pc does not bring them.
		extra=$(sed -n 's|^/\* compat-libs: \(.*\) \*/$|\1|p' "$src")
		# shellcheck disable=SC2086
		if ! $CC -std=gnu11 -Wall -o "$exe" "$src" $flags $rpath $extra -lpthread >"$tmp/cc.log" 2>&1; then
			echo "$name: does not build against $impl:"; cat "$tmp/cc.log"; fail=1; continue
		fi
		timeout -k 10 120 "$exe" >"$tmp/run.log" 2>&1
		rc=$?
		case $rc in
		0) echo "$name: passes on $impl" ;;
		77) echo "$name: skipped on $impl" ;;
		*) echo "$name: FAILS on $impl (exit $rc):"; cat "$tmp/run.log"; fail=1 ;;
		esac
	done
done
exit $fail
