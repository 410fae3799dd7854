#!/bin/sh
# The seam rule of the design: runtime/ and drivers/ reach threads, clocks,
# devices and the simulator only through the OS seam (runtime/os/) and the
# driver seam (drivers/driver.h). Fails, listing the lines, if any file
# outside runtime/os/ uses pthreads, a clock or SimGrid directly, switches
# on SimGrid at compile time, or if a device API is called outside its own
# backend (OpenCL in drivers/opencl/, CUDA in drivers/cuda/, MPI in the
# master/slave channel plugin drivers/mp/mpi/).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$top_srcdir" || exit 1
os='#[[:space:]]*include[[:space:]]*<pthread\.h>|clock_gettime[[:space:]]*\(|gettimeofday[[:space:]]*\(|#[[:space:]]*include[[:space:]]*<simgrid|sg_actor_|sg_mutex_|sg_cond_|sg_host_|simgrid_|xbt_|#[[:space:]]*if.*SIMGRID|(^|[^_[:alnum:]])pthread_(mutex|cond|create|join|key)'
opencl='(^|[^_[:alnum:]])cl[A-Z][A-Za-z]+[[:space:]]*\(|#[[:space:]]*include[[:space:]]*<CL/'
cuda='(^|[^_[:alnum:]])(cuda|cublas|cusolver)[A-Z][A-Za-z]*[[:space:]]*\(|#[[:space:]]*include[[:space:]]*<cuda'
mpi='(^|[^_[:alnum:]])MPI_[A-Z][a-z_]+[[:space:]]*\(|#[[:space:]]*include[[:space:]]*<mpi\.h>'
hits=$(grep -rnE "$os" runtime drivers --include='*.c' --include='*.h' | grep -v '^runtime/os/')
hits="$hits
$(grep -rnE "$opencl" runtime drivers --include='*.c' --include='*.h' | grep -v '^drivers/opencl/')
$(grep -rnE "$cuda" runtime drivers --include='*.c' --include='*.h' | grep -v '^drivers/cuda/')
$(grep -rnE "$mpi" runtime drivers --include='*.c' --include='*.h' | grep -v '^drivers/mp/mpi/')"
hits=$(printf '%s\n' "$hits" | sed '/^$/d')
if [ -n "$hits" ]; then
	echo "These lines bypass the OS or driver seam (see DESIGN.md, 'The two seams'):"
	echo "$hits"
	exit 1
fi
echo "seams respected: no direct pthread, clock or SimGrid call outside runtime/os, no device call outside its backend"
exit 0
