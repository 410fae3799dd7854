#!/bin/sh
# platforms/make-bus-files.sh: StarPU's bus files written from a platform
# carry the platform's figures (route bottleneck in MB/s, summed latency in
# us, node numbering RAM then CUDA<k>), and bad input is refused with a
# message naming the file (and line) and a non-zero exit.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
gen="$top_srcdir/platforms/make-bus-files.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

sh "$gen" "$top_srcdir/platforms/epyc2-4xa100-pcie.platform.v4.xml" "$tmp" epyc || no "generator failed on epyc2-4xa100-pcie"
grep -q '^128 # Number of CPUs' "$tmp/epyc.config" || no "config: 128 CPUs expected: $(head -3 "$tmp/epyc.config")"
grep -q '^4 # Number of CUDA devices' "$tmp/epyc.config" || no "config: 4 CUDA devices expected"
[ "$(grep -c '^[0-9]' "$tmp/epyc.affinity")" = 4 ] || no "affinity: one line per GPU expected"
# bandwidth[0][1] (RAM -> CUDA0) = 31507692307 Bps = 31507.69 MB/s;
# latency[1][2] (CUDA0 -> CUDA1 through RAM, two 10 us links) = 20 us.
awk 'NR == 2 { if ($1 != "1.024000e+05" || $2 != "3.150769e+04") exit 1 }
     NR == 3 { if ($3 != "3.150769e+04" || $2 != "nan") exit 1 }
     END { if (NR != 33) exit 1 }' "$tmp/epyc.bandwidth" || no "bandwidth matrix: $(sed -n 2,3p "$tmp/epyc.bandwidth" | cut -c1-80)"
awk 'NR == 3 { if ($1 != "1.000000e+01" || $3 != "2.000000e+01") exit 1 }' "$tmp/epyc.latency" ||
	no "latency matrix: $(sed -n 3p "$tmp/epyc.latency" | cut -c1-80)"
sh "$gen" "$top_srcdir/platforms/epyc-12core.platform.v4.xml" "$tmp" cpu || no "generator failed on epyc-12core"
grep -q '^0 # Number of CUDA devices' "$tmp/cpu.config" || no "epyc-12core: no CUDA device expected"

# Bad input: a missing file, a malformed figure (file:line), an undefined
# link, a platform with MPI slaves, the wrong number of arguments.
sh "$gen" "$tmp/none.xml" "$tmp" x 2>"$tmp/err" && no "a missing platform was accepted"
grep -q "cannot read platform" "$tmp/err" || no "missing platform: $(cat "$tmp/err")"
sed 's/bandwidth="31507692307Bps"/bandwidth="fast"/' "$top_srcdir/platforms/epyc2-4xa100-pcie.platform.v4.xml" >"$tmp/bad.xml"
sh "$gen" "$tmp/bad.xml" "$tmp" x 2>"$tmp/err" && no "a malformed bandwidth was accepted"
grep -q 'bad.xml:[0-9]*: bandwidth "fast"' "$tmp/err" || no "malformed bandwidth: $(cat "$tmp/err")"
sed 's/<link_ctn id="RAM-CUDA1"\/>/<link_ctn id="NOPE"\/>/' "$top_srcdir/platforms/epyc2-4xa100-pcie.platform.v4.xml" >"$tmp/bad2.xml"
sh "$gen" "$tmp/bad2.xml" "$tmp" x 2>"$tmp/err" && no "an undefined link was accepted"
grep -q 'undefined link "NOPE"' "$tmp/err" || no "undefined link: $(cat "$tmp/err")"
sh "$gen" "$top_srcdir/platforms/cluster-4slaves.platform.v4.xml" "$tmp" x 2>"$tmp/err" && no "MPI_MS hosts were accepted"
grep -q "MPI_MS hosts" "$tmp/err" || no "MPI_MS: $(cat "$tmp/err")"
sh "$gen" only-one 2>/dev/null && no "a wrong argument count was accepted"
[ "$fail" = 0 ] && echo "make-bus-files.sh: figures and errors as expected"
exit $fail
