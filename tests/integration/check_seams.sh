#!/bin/sh
# The seam rule of the design: runtime/ and drivers/ reach threads, clocks,
# devices and the simulator only through the OS seam (runtime/os/) and the
# driver seam (drivers/driver.h). Fails, listing the lines, if any file
# outside runtime/os/ uses pthreads, a clock, SimGrid or a device API
# directly, or switches on SimGrid at compile time.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$top_srcdir" || exit 1
pattern='#[[:space:]]*include[[:space:]]*<pthread\.h>|clock_gettime[[:space:]]*\(|gettimeofday[[:space:]]*\(|#[[:space:]]*include[[:space:]]*<simgrid|sg_actor_|sg_mutex_|sg_cond_|sg_host_|simgrid_|xbt_|#[[:space:]]*if.*SIMGRID|cudaMalloc|cudaMemcpy|clEnqueue|clCreateBuffer|(^|[^_[:alnum:]])pthread_(mutex|cond|create|join|key)'
hits=$(grep -rnE "$pattern" runtime drivers --include='*.c' --include='*.h' | grep -v '^runtime/os/')
if [ -n "$hits" ]; then
	echo "These lines bypass the OS or driver seam (see DESIGN.md, 'The two seams'):"
	echo "$hits"
	exit 1
fi
echo "seams respected: no direct pthread, clock, SimGrid or device call outside runtime/os"
exit 0
