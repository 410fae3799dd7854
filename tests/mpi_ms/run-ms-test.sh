#!/bin/sh
# Runs one master/slave test for the automake harness: PROGRAM on N
# processes of this machine with mpirun (rank 0 the application, the others
# its MPI slaves), under a time limit, quiet, with one CPU worker on the
# master, one worker per slave, the build tree's MPI channel plugin and a
# STARPU_HOME of its own (the bus calibration with slaves is not the other
# tests'). N is 3 (a master and 2 slaves), or what the entry's name says:
# tests/mpi_ms/X-4ranks.ms runs tests/mpi_ms/X on 4; VELA_MS_NP overrides.
# Exit 77 (skipped) when Open MPI's mpirun or the plugin is absent.
#
# The flags Open MPI wants here are set here and nowhere else: as root it
# refuses to run without --allow-run-as-root, and beyond the machine's
# cores it needs --oversubscribe. Processes are not bound to cores, so
# that each slave sees the machine's cores.
: "${VELA_MS_TEST_TIMEOUT:=180}"
np=3
prog=$1
shift
case $prog in
*-[0-9]ranks.ms)
	# The entry may come from the source tree; the program is built here.
	np=$(echo "$prog" | sed 's/.*-\([0-9]\)ranks\.ms$/\1/')
	prog=./$(basename "$(dirname "$prog")")/$(basename "${prog%-[0-9]ranks.ms}") ;;
*.ms)
	prog=./$(basename "$(dirname "$prog")")/$(basename "${prog%.ms}") ;;
*/*) ;;
*) prog=./$prog ;;
esac
np=${VELA_MS_NP:-$np}
MPIRUN=${MPIRUN:-mpirun}
if ! command -v "$MPIRUN" >/dev/null 2>&1; then
	echo "mpirun not found: Open MPI is not installed (Debian: openmpi-bin)"
	exit 77
fi
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
VELA_MPI_MS_PLUGIN=${VELA_MPI_MS_PLUGIN:-$top_builddir/drivers/.libs/libvela-mpi-ms.so}
if [ ! -f "$VELA_MPI_MS_PLUGIN" ]; then
	echo "no MPI channel plugin $VELA_MPI_MS_PLUGIN (configure --enable-mpi-master-slave)"
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
STARPU_NMPIMSTHREADS=${STARPU_NMPIMSTHREADS:-1}
STARPU_HOME=${STARPU_HOME:-$(pwd)/test-home-ms}
OPENBLAS_NUM_THREADS=1
mkdir -p "$STARPU_HOME"
# Under AddressSanitizer, Open MPI's leaks at exit are its own
# (mpi/tests/lsan.supp); LeakSanitizer reads one suppressions file, so the
# caller's and that one are merged.
if [ -n "$ASAN_OPTIONS" ]; then
	ompi_supp="$(cd "$(dirname "$0")/../../mpi/tests" && pwd)/lsan.supp"
	case $LSAN_OPTIONS in
	*suppressions=*)
		base=$(printf '%s\n' "$LSAN_OPTIONS" | sed 's/.*suppressions=\([^ :]*\).*/\1/')
		cat "$base" "$ompi_supp" > "$STARPU_HOME/lsan-$$.supp" 2>/dev/null
		LSAN_OPTIONS=$(printf '%s\n' "$LSAN_OPTIONS" | sed "s|suppressions=[^ :]*|suppressions=$STARPU_HOME/lsan-$$.supp|") ;;
	*)
		LSAN_OPTIONS="suppressions=$ompi_supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" ;;
	esac
	ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
	export LSAN_OPTIONS ASAN_OPTIONS
fi
# Under ThreadSanitizer likewise: Open MPI's own lock-order reports
# (mpi/tests/tsan.supp) join the caller's suppressions, merged in one file.
case $TSAN_OPTIONS in
*suppressions=*)
	ompi_tsan="$(cd "$(dirname "$0")/../../mpi/tests" && pwd)/tsan.supp"
	base=$(printf '%s\n' "$TSAN_OPTIONS" | sed 's/.*suppressions=\([^ :]*\).*/\1/')
	cat "$base" "$ompi_tsan" > "$STARPU_HOME/tsan-$$.supp" 2>/dev/null
	TSAN_OPTIONS=$(printf '%s\n' "$TSAN_OPTIONS" | sed "s|suppressions=[^ :]*|suppressions=$STARPU_HOME/tsan-$$.supp|")
	export TSAN_OPTIONS ;;
"") ;;
*)
	TSAN_OPTIONS="$TSAN_OPTIONS suppressions=$(cd "$(dirname "$0")/../../mpi/tests" && pwd)/tsan.supp"
	export TSAN_OPTIONS ;;
esac
export STARPU_SILENT STARPU_NCPU STARPU_NMPIMSTHREADS STARPU_HOME OPENBLAS_NUM_THREADS VELA_MPI_MS_PLUGIN
# shellcheck disable=SC2086
exec timeout -k 10 "$VELA_MS_TEST_TIMEOUT" "$MPIRUN" $flags -np "$np" "$prog" "$@"
