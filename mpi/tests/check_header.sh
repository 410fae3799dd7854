#!/bin/sh
# starpu_mpi.h compiles on its own, in C and in C++, with Open MPI's flags
# and nothing else (an application may include it first), and never
# includes a private header. Also compiles when STARPU_USE_MPI is not
# defined (it then declares nothing).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
: "${CC:=cc}"
: "${CXX:=c++}"
: "${MPI_CFLAGS:=$(mpicc -showme:compile 2>/dev/null)}"
h=$top_srcdir/mpi/starpu_mpi.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
printf '#include <starpu_mpi.h>\nint f(void) { return starpu_mpi_world_rank() + (int) STARPU_MPI_PER_NODE; }\n' > "$tmp/t.c"
cp "$tmp/t.c" "$tmp/t.cc"
# CUDA's headers too when Vela is built with CUDA (starpu.h includes them).
inc="-I$top_srcdir/mpi -I$top_srcdir/include -I$top_builddir/include ${CUDA_CPPFLAGS:-}"
# shellcheck disable=SC2086
if ! $CC -std=gnu11 -Wall -Wextra -Werror -fsyntax-only $inc $MPI_CFLAGS "$tmp/t.c" 2>"$tmp/err"; then
	echo "C: starpu_mpi.h does not compile on its own:"; cat "$tmp/err"; fail=1
fi
# shellcheck disable=SC2086
if command -v "$CXX" >/dev/null 2>&1 && ! $CXX -Wall -Werror -fsyntax-only $inc $MPI_CFLAGS "$tmp/t.cc" 2>"$tmp/err"; then
	echo "C++: starpu_mpi.h does not compile on its own:"; cat "$tmp/err"; fail=1
fi
printf '#undef STARPU_USE_MPI\n#include <starpu_config.h>\n#undef STARPU_USE_MPI\n#include <starpu_mpi.h>\nint g;\n' > "$tmp/u.c"
# shellcheck disable=SC2086
if ! $CC -std=gnu11 -Wall -Wextra -Werror -fsyntax-only $inc "$tmp/u.c" 2>"$tmp/err"; then
	echo "starpu_mpi.h does not compile without STARPU_USE_MPI:"; cat "$tmp/err"; fail=1
fi
if grep -nE '#[[:space:]]*include[[:space:]]*"' "$h"; then
	echo "starpu_mpi.h includes a private header"; fail=1
fi
[ "$fail" = 0 ] && echo "starpu_mpi.h compiles on its own (C and C++)"
exit $fail
