# shellcheck shell=bash
# shellcheck disable=SC2154 # cmp_name, vela_pc, build_vela, starpu_only: set by the caller
# compare-lib.sh: what the bench/compare-* scripts share, sourced by them
# (not run on its own).  Each script builds one or more benchmark sources
# against Vela and against StarPU 1.3, runs the two binaries alternately,
# and prints the median of each side with the ratio Vela/StarPU.
#
# The caller sets, before sourcing:
#   cmp_name      its own name, for messages
# and, before cmp_build_sides:
#   vela_pc       directory holding vela.pc, or empty
#   build_vela    1: run scripts/build.sh even if a staged Vela exists
#   starpu_only   1: build and run the StarPU side only
# and, optionally (the MPI benchmarks):
#   cmp_vela_mod, cmp_starpu_mod  the pkg-config modules the sources build
#                 against (default vela and starpu-1.3; vela-mpi and
#                 starpumpi-1.3 for StarPU-MPI programs)
#
# and, optionally, cmp_vela_extra: words added to the Vela side's compile
# line only (cmp_vela_uses tells what the staged Vela was built with).
#
# Defined here: repo, outdir, stage_pc, CC, CFLAGS, die, cmp_build_sides,
# cmp_vela_uses, cmp_env, cmp_alternate, cmp_median, cmp_ratio, cmp_target_met, cmp_header.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
outdir="$repo/build/bench"
stage_pc="$repo/build/stage/lib/pkgconfig"
CC=${CC:-cc}
CFLAGS="-std=gnu11 -O2 -Wall -Wextra"
user_pcpath=${PKG_CONFIG_PATH:-}
vela_pcpath=""
cmp_vela_ready=0	# Vela staged and found once: later sources skip the check
cmp_extra=()		# extra compile/link words for the source being built
cmp_vela_extra=()	# and for its Vela side only
cmp_vela_mod=${cmp_vela_mod:-vela}
cmp_starpu_mod=${cmp_starpu_mod:-starpu-1.3}

die() {
	echo "$cmp_name: $*" >&2
	exit 1
}

# cmp_build SRC BINARY MODULE PKG_CONFIG_PATH: compile one benchmark against
# one pkg-config module, with an rpath so the binary finds its library unaided.
cmp_build() {
	local src=$1 bin=$2 mod=$3 pcpath=$4 cflags libs libdir
	cflags=$(PKG_CONFIG_PATH="$pcpath" pkg-config --cflags "$mod") ||
		die "pkg-config --cflags $mod failed"
	libs=$(PKG_CONFIG_PATH="$pcpath" pkg-config --libs "$mod") ||
		die "pkg-config --libs $mod failed"
	libdir=$(PKG_CONFIG_PATH="$pcpath" pkg-config --variable=libdir "$mod")
	# shellcheck disable=SC2086 # flags are lists of words
	$CC $CFLAGS $cflags -o "$bin" "$src" $libs "${cmp_extra[@]}" ${libdir:+-Wl,-rpath,"$libdir"} ||
		die "compiling $src against $mod failed"
}

# links_to BINARY PATTERN: guards against building the wrong side, e.g. a
# starpu-1.3.pc compatibility file from Vela shadowing Debian's.
links_to() {
	local deps
	# Not piped into grep -q: with pipefail, ldd's SIGPIPE would read as failure.
	deps=$(ldd "$1" 2>/dev/null) || return 1
	grep -q -- "$2" <<<"$deps"
}

# cmp_find_vela: sets vela_pcpath; stages Vela with scripts/build.sh when it
# cannot be found (or when build_vela=1), once per script run.
cmp_find_vela() {
	[ "$cmp_vela_ready" = 0 ] || return 0
	vela_pcpath="${vela_pc:-$stage_pc}${user_pcpath:+:$user_pcpath}"
	if [ "$build_vela" = 1 ] ||
	   { [ -z "$vela_pc" ] && ! PKG_CONFIG_PATH="$vela_pcpath" pkg-config --exists vela; }; then
		[ -f "$repo/scripts/build.sh" ] ||
			die "Vela is not staged ($stage_pc/vela.pc missing) and $repo/scripts/build.sh does not exist; build Vela first, pass --vela-pc DIR, or use --starpu-only"
		echo "Building and staging Vela with scripts/build.sh (log: $outdir/vela-build.log)..." >&2
		(cd "$repo" && bash scripts/build.sh) >"$outdir/vela-build.log" 2>&1 ||
			die "scripts/build.sh failed; see $outdir/vela-build.log"
	fi
	PKG_CONFIG_PATH="$vela_pcpath" pkg-config --exists vela ||
		die "pkg-config cannot find vela in ${vela_pc:-$stage_pc} or PKG_CONFIG_PATH; build Vela (bash scripts/build.sh), pass --vela-pc DIR, or use --starpu-only"
	cmp_vela_ready=1
}

# cmp_vela_uses FEATURE: true when the Vela found by cmp_find_vela was built
# with STARPU_USE_FEATURE (CUDA, OPENCL, MPI...): the examples then call that
# device's libraries themselves (cuBLAS and cuSOLVER for CUDA).
cmp_vela_uses() {
	local config
	cmp_find_vela
	config=$(PKG_CONFIG_PATH="$vela_pcpath" pkg-config --variable=includedir vela)/vela/starpu_config.h
	grep -q "^#define STARPU_USE_$1 1" "$config" 2>/dev/null
}

# cmp_build_sides NAME [SRC [EXTRA...]]: builds SRC (default bench/NAME.c)
# as $outdir/NAME-starpu (Debian's $cmp_starpu_mod through the caller's
# PKG_CONFIG_PATH) and, unless starpu_only, $outdir/NAME-vela ($cmp_vela_mod:
# the staged build first, then PKG_CONFIG_PATH), and checks that each links
# the library it should. EXTRA words are added to both compile lines (e.g.
# BLAS flags).
cmp_build_sides() {
	local src="${2:-$repo/bench/$1.c}" sbin="$outdir/$1-starpu" vbin="$outdir/$1-vela"
	cmp_extra=("${@:3}")
	[ -f "$src" ] || die "benchmark source not found: $src"
	command -v pkg-config >/dev/null || die "pkg-config is not installed"
	mkdir -p "$outdir" "$outdir/home"

	pkg-config --exists "$cmp_starpu_mod" ||
		die "pkg-config cannot find $cmp_starpu_mod (install libstarpu-dev)"
	cmp_build "$src" "$sbin" "$cmp_starpu_mod" "$user_pcpath"
	links_to "$sbin" 'libstarpu-1\.3' ||
		die "$sbin does not link libstarpu-1.3"
	! links_to "$sbin" libvela ||
		die "$sbin links libvela: starpu-1.3.pc in PKG_CONFIG_PATH is Vela's, not StarPU's"

	[ "$starpu_only" = 0 ] || return 0
	cmp_find_vela
	PKG_CONFIG_PATH="$vela_pcpath" pkg-config --exists "$cmp_vela_mod" ||
		die "pkg-config cannot find $cmp_vela_mod next to vela (for vela-mpi: Vela was configured without Open MPI)"
	cmp_extra+=("${cmp_vela_extra[@]}")
	cmp_build "$src" "$vbin" "$cmp_vela_mod" "$vela_pcpath"
	links_to "$vbin" libvela ||
		die "$vbin does not link libvela"
	links_to "$vbin" 'libstarpu-1\.3' &&
		die "$vbin links libstarpu-1.3 as well as libvela"
	return 0
}

# cmp_env: the same environment for both sides.  STARPU_HOME is ours so that
# StarPU's bus calibration is done once (by a warm-up) and never inside a
# measured run; STARPU_SCHED is dropped because the scripts pick the policy.
cmp_env() {
	export STARPU_SILENT=1 STARPU_HOME="$outdir/home" OPENBLAS_NUM_THREADS=1
	unset STARPU_SCHED
}

# cmp_alternate ROUNDS RUN VELA_OUT STARPU_OUT ARGS...: calls `RUN SIDE ARGS...`
# (SIDE is vela or starpu; it prints one result line) ROUNDS times per side,
# appending to VELA_OUT and STARPU_OUT.  The sides alternate, and which goes
# first swaps every round, so that drifts in machine load hit both alike.
# With starpu_only=1 only the StarPU side runs.
cmp_alternate() {
	local rounds=$1 run=$2 vout=$3 sout=$4 i
	shift 4
	: >"$vout"
	: >"$sout"
	for ((i = 0; i < rounds; i++)); do
		if [ "$starpu_only" = 1 ]; then
			"$run" starpu "$@" >>"$sout" || exit 1
		elif ((i % 2 == 0)); then
			"$run" vela "$@" >>"$vout" || exit 1
			"$run" starpu "$@" >>"$sout" || exit 1
		else
			"$run" starpu "$@" >>"$sout" || exit 1
			"$run" vela "$@" >>"$vout" || exit 1
		fi
	done
}

# cmp_median FILE COL [FORMAT]: median of column COL of FILE's lines (the mean
# of the two middle values for an even count), printed with FORMAT (%.3f).
cmp_median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g |
		awk -v f="${3:-%.3f}" '{ v[NR] = $1 } END { if (NR % 2) m = v[(NR + 1) / 2];
			else m = (v[NR / 2] + v[NR / 2 + 1]) / 2; printf f, m }'
}

# cmp_ratio VELA STARPU: VELA / STARPU with two decimals (0 if STARPU is 0);
# below 0.01, two significant digits (a ratio is never shown as 0.00).
cmp_ratio() {
	awk -v v="$1" -v s="$2" 'BEGIN { r = (s > 0) ? v / s : 0; if (r > 0 && r < 0.01) printf "%.2g", r; else printf "%.2f", r }'
}

# cmp_target_met RATIO: true when 0 < RATIO <= 0.5, the project's target for
# time ratios Vela/StarPU.
cmp_target_met() {
	awk -v r="$1" 'BEGIN { exit !(r > 0 && r <= 0.5) }'
}

# cmp_header TITLE: the common header lines (title, host, library versions).
cmp_header() {
	echo "# $1"
	echo "# host: $(nproc) cores, $(uname -m); StarPU $(pkg-config --modversion starpu-1.3)${STARPU_NCPU:+; STARPU_NCPU=$STARPU_NCPU}"
	[ "$starpu_only" = 1 ] ||
		echo "# Vela $(PKG_CONFIG_PATH="$vela_pcpath" pkg-config --modversion vela) from $(PKG_CONFIG_PATH="$vela_pcpath" pkg-config --variable=libdir vela)"
}
