#!/bin/sh
# Every public header compiles on its own, in C and in C++ (an application
# may include any of them first), and installed headers never mention a
# private one.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
: "${CC:=cc}"
: "${CXX:=c++}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for h in "$top_srcdir"/include/*.h "$top_builddir"/include/starpu_config.h; do
	name=$(basename "$h")
	printf '#include <%s>\nint vela_header_check_%s;\n' "$name" "$(echo "$name" | tr -c 'a-zA-Z0-9\n' _)" > "$tmp/t.c"
	if ! $CC -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -I"$top_srcdir/include" -I"$top_builddir/include" ${CUDA_CPPFLAGS:-} "$tmp/t.c" 2>"$tmp/err"; then
		echo "C: $name does not compile on its own:"; cat "$tmp/err"; fail=1
	fi
	cp "$tmp/t.c" "$tmp/t.cc"
	if command -v "$CXX" >/dev/null 2>&1 && ! $CXX -Wall -Werror -fsyntax-only -I"$top_srcdir/include" -I"$top_builddir/include" ${CUDA_CPPFLAGS:-} "$tmp/t.cc" 2>"$tmp/err"; then
		echo "C++: $name does not compile on its own:"; cat "$tmp/err"; fail=1
	fi
	if grep -nE '#[[:space:]]*include[[:space:]]*"' "$h"; then
		echo "$name includes a private header"; fail=1
	fi
done
[ "$fail" = 0 ] && echo "all public headers compile on their own (C and C++)"
exit $fail
