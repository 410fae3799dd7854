#!/bin/sh
# Runs one MPI test program for the automake harness: on N ranks of this
# machine with mpirun (2 by default; a test named PROGRAM-4ranks.np4 runs
# PROGRAM on 4), under a time limit, quiet, with one CPU worker per rank and its
# own STARPU_HOME. Exit 77 (skipped) only when Open MPI's mpirun is absent.
#
# The flags Open MPI wants here are set here and nowhere else: as root it
# refuses to run without --allow-run-as-root, and beyond the machine's
# cores it needs --oversubscribe. Ranks are not bound to cores (the
# runtime binds its workers itself).
: "${VELA_MPI_TEST_TIMEOUT:=120}"
np=2
prog=$1
shift
case $prog in
*-4ranks.np4)
	# The entry may come from the source tree; the program is built here.
	np=4
	prog=./$(basename "$(dirname "$prog")")/$(basename "${prog%-4ranks.np4}") ;;
*/*) ;;
*) prog=./$prog ;;
esac
MPIRUN=${MPIRUN:-mpirun}
if ! command -v "$MPIRUN" >/dev/null 2>&1; then
	echo "mpirun not found: Open MPI is not installed (Debian: openmpi-bin)"
	exit 77
fi
flags="--bind-to none"
if [ "$(id -u)" = 0 ]; then
	flags="$flags --allow-run-as-root"
fi
cores=$(nproc 2>/dev/null || echo 1)
if [ "$np" -gt "$cores" ]; then
	flags="$flags --oversubscribe"
fi
STARPU_SILENT=${STARPU_SILENT:-1}
STARPU_NCPU=${STARPU_NCPU:-1}
STARPU_HOME=${STARPU_HOME:-$(pwd)/test-home}
OPENBLAS_NUM_THREADS=1
# Under AddressSanitizer, what Open MPI keeps until exit is not ours to
# report (tests/lsan.supp says what and why); Open MPI is built without
# frame pointers, so only the slow unwinder finds the library a leak
# comes from.
# LeakSanitizer reads one suppressions file (the last named): the
# project's, if the caller names one, and Open MPI's go into one.
mkdir -p "${STARPU_HOME:-$(pwd)/test-home}"
case $LSAN_OPTIONS in
*suppressions=*)
	base=$(printf '%s\n' "$LSAN_OPTIONS" | sed 's/.*suppressions=\([^ :]*\).*/\1/')
	merged="${STARPU_HOME:-$(pwd)/test-home}/lsan-$$.supp"
	cat "$base" "$(cd "$(dirname "$0")" && pwd)/lsan.supp" > "$merged" 2>/dev/null
	LSAN_OPTIONS=$(printf '%s\n' "$LSAN_OPTIONS" | sed "s|suppressions=[^ :]*|suppressions=$merged|") ;;
*)
	LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" ;;
esac
if [ -n "$ASAN_OPTIONS" ]; then
	ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
	export ASAN_OPTIONS
fi
mkdir -p "$STARPU_HOME"
# Under ThreadSanitizer, Open MPI's own reports (tests/tsan.supp) join the
# project's suppressions: TSan reads one file.
case $TSAN_OPTIONS in
*suppressions=*)
	base=$(printf '%s\n' "$TSAN_OPTIONS" | sed 's/.*suppressions=\([^ :]*\).*/\1/')
	cat "$base" "$(cd "$(dirname "$0")" && pwd)/tsan.supp" > "$STARPU_HOME/tsan-$$.supp" 2>/dev/null
	TSAN_OPTIONS=$(printf '%s\n' "$TSAN_OPTIONS" | sed "s|suppressions=[^ :]*|suppressions=$STARPU_HOME/tsan-$$.supp|")
	export TSAN_OPTIONS ;;
"") ;;
*)
	TSAN_OPTIONS="$TSAN_OPTIONS suppressions=$(cd "$(dirname "$0")" && pwd)/tsan.supp"
	export TSAN_OPTIONS ;;
esac
export STARPU_SILENT STARPU_NCPU STARPU_HOME OPENBLAS_NUM_THREADS LSAN_OPTIONS
# shellcheck disable=SC2086
exec timeout -k 10 "$VELA_MPI_TEST_TIMEOUT" "$MPIRUN" $flags -np "$np" "$prog" "$@"
