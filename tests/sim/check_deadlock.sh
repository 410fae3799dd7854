#!/bin/sh
# A simulation never ends as if all went well when it stopped half way:
#  1. A simulated device's prefetches wait in its queue until its worker
#     lets its transfer thread start them (data_progress, between tasks),
#     at most two in flight. Requests queued while the worker slept (an
#     application's prefetch; those the limit held back when it last
#     looked) stayed there, and the unregistration at the end waited for
#     them forever: SimGrid saw every thread waiting and stopped the run,
#     and the process exited 0 without a result. The transfer thread now
#     starts them itself when every worker of its node sleeps. Checked with
#     8 prefetches to a GPU and no task (sim/replay_app prefetch), and with
#     dm, which places tasks without looking at their data (the Cholesky
#     on dgx-a100 with 8 GPUs, costs on, and on epyc2-4xa100-pcie with 4;
#     the latter stopped in a build without CUDA kernels only).
#     Then every policy the runtime lists, on dgx-a100 with 3 GPUs.
#  2. An application that waits for a task that can never run (it depends
#     on a tag nothing triggers; a real run would hang) exits with status
#     3 and one line saying the simulation stopped before main() returned,
#     in both ways of starting the simulation (VELA_SIM_BOOT=attach too).
# Skipped (77) when the SimGrid plugin was not built.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/sim/sim_test_env.sh"
chol="$top_builddir/examples/cholesky"
app="$top_builddir/tests/sim/replay_app"
need_built "$chol" "$app"

export STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM="$top_srcdir/platforms/epyc2-4xa100-pcie.platform.v4.xml"
export STARPU_PERF_MODEL_DIR="$top_srcdir/perfmodels/epyc2-4xa100-pcie" STARPU_HOSTNAME=epyc2-4xa100-pcie
STARPU_NCUDA=1 STARPU_NCPU=2 timeout 120 "$app" prefetch >"$tmp/pf.out" 2>"$tmp/pf.err"
rc=$?
[ "$rc" = 0 ] || { problem "8 prefetches to a GPU, no task: exit status $rc"; cat "$tmp/pf.err"; }
grep -q "^prefetched: 8$" "$tmp/pf.out" || problem "8 prefetches to a GPU, no task: the data were not unregistered"

for c in TASK_SUBMIT SCHED FETCHING_INPUT TRANSFER CUDA_MALLOC CUDA_QUEUE; do unset "STARPU_SIMGRID_${c}_COST"; done
for case in dgx-a100:8 epyc2-4xa100-pcie:4; do
	plat=${case%%:*} ncuda=${case#*:}
	STARPU_SIMGRID_PLATFORM="$top_srcdir/platforms/$plat.platform.v4.xml" STARPU_PERF_MODEL_DIR="$top_srcdir/perfmodels/$plat" \
		STARPU_HOSTNAME=$plat STARPU_NCUDA=$ncuda timeout 120 "$chol" -n 7680 -b 960 -s dm -r 1 --no-check >"$tmp/dm.out" 2>"$tmp/dm.err"
	rc=$?
	[ "$rc" = 0 ] || { problem "dm, $case: exit status $rc"; cat "$tmp/dm.err"; }
	grep -q "time= *[0-9]" "$tmp/dm.out" || { problem "dm, $case: no time printed"; cat "$tmp/dm.out" "$tmp/dm.err"; }
done

# Every policy gives a result on a simulated machine with 3 GPUs (each
# policy the runtime lists, so that a new one is covered too).
pols=$(STARPU_SCHED=help STARPU_SIMGRID=0 STARPU_PERF_MODEL_DIR="$tmp" "$chol" -q -n 128 -b 64 -s eager 2>&1 | sed -n 's/^\([a-z0-9-]*\) *-> .*/\1/p' | sort -u)
[ "$(echo "$pols" | wc -w)" -ge 10 ] || problem "the policy list could not be read: $pols"
for s in $pols; do
	STARPU_SIMGRID_PLATFORM="$top_srcdir/platforms/dgx-a100.platform.v4.xml" STARPU_PERF_MODEL_DIR="$top_srcdir/perfmodels/dgx-a100" \
		STARPU_HOSTNAME=dgx-a100 STARPU_NCUDA=3 timeout 120 "$chol" -n 7680 -b 960 -s "$s" -r 1 --no-check >"$tmp/p.out" 2>"$tmp/p.err" ||
		{ problem "policy $s, dgx-a100 with 3 GPUs: exit status $?"; cat "$tmp/p.err"; }
	grep -q "time= *[0-9]" "$tmp/p.out" || problem "policy $s, dgx-a100 with 3 GPUs: no time printed"
done

unset STARPU_NCUDA
export STARPU_SIMGRID_PLATFORM="$top_srcdir/tests/sim/data/4cpu.platform.v4.xml"
for boot in hijack attach; do
	if [ "$boot" = attach ]; then export VELA_SIM_BOOT=attach; fi
	timeout 120 "$app" deadlock >"$tmp/dl.out" 2>"$tmp/dl.err"
	rc=$?
	[ "$rc" = 3 ] || { problem "$boot: the deadlocked application exited $rc, expected 3"; cat "$tmp/dl.out" "$tmp/dl.err"; }
	grep -q "returned" "$tmp/dl.out" && problem "$boot: starpu_task_wait_for_all returned in a deadlock"
	grep -q "error: the simulation stopped at .* before main() returned" "$tmp/dl.err" ||
		{ problem "$boot: no deadlock message"; cat "$tmp/dl.err"; }
	n=$(grep -c "before main() returned" "$tmp/dl.err")
	[ "$n" = 1 ] || problem "$boot: $n deadlock messages, expected 1"
done
exit $fail
