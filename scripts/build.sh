#!/bin/sh
# Builds Vela out of tree in build/ (configure only the first time) and
# installs it into build/stage, where `pkg-config vela` finds it for the
# benchmarks (PKG_CONFIG_PATH=build/stage/lib/pkgconfig).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
mkdir -p build
cd build
if [ ! -f Makefile ]; then
	../configure --prefix="$root/build/stage" ${VELA_CONFIGURE_FLAGS:-} >configure.out 2>&1 || { cat configure.out; exit 1; }
	sed -n '/Vela .* configured/,$p' configure.out
fi
make -j"${JOBS:-2}" >make.out 2>&1 || { tail -50 make.out; exit 1; }
make install >install.out 2>&1 || { tail -20 install.out; exit 1; }
