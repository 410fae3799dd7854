#!/bin/sh
# Platform files that SimGrid aborts on, or silently misreads (issue 22
# item 5), are refused before SimGrid sees them: starpu_init returns
# -EINVAL and says file:line and the reason, in both boots (hijack:
# STARPU_SIMGRID=1 at process start; attach: VELA_SIM_BOOT=attach). Each
# case is the 4-CPU test platform with one mistake: a duplicate <link>, a
# duplicate <route> (and one duplicated through symmetry), an unknown
# routing=, a <prop> without a value, a route over a link of bandwidth 0
# or less (an unused one is harmless: StarPU's files have one), a RAM
# memsize of -1, 0 or "lots", a malloc_cost_us (or _per_mib) that is not
# a non-negative number, and likewise a first_copy_us_per_mib, a
# copies_on_compute other than 0 or 1, a time_shared other than 0 or 1, a
# negative timer_overshoot_us, a wakeup_us, mpi_insert_*us* (send and
# receive ones too), sched_cost_us or fetching_input_cost_us cost that
# is not a non-negative number, an mpi_copy_above or mpi_copy_Bps that is
# not a number of bytes or a positive bandwidth. Before, SimGrid killed the process
# (SIGABRT), or the run went on. The unchanged file still runs.
# Skipped (77) when the SimGrid plugin was not built.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/sim/sim_test_env.sh"
app="$top_builddir/examples/cholesky"
good="$top_srcdir/tests/sim/data/4cpu.platform.v4.xml"
STARPU_SIMGRID_DEFAULT_TASK_US=10
export STARPU_SIMGRID_DEFAULT_TASK_US
unset VELA_SIM_BOOT

# run BOOT FILE: cholesky simulated on FILE; output in $tmp/out, status in $rc.
run() {
	if [ "$1" = attach ]; then
		VELA_SIM_BOOT=attach STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM="$2" "$app" -q -n 128 -b 64 -s eager >"$tmp/out" 2>&1
	else
		STARPU_SIMGRID=1 STARPU_SIMGRID_PLATFORM="$2" "$app" -q -n 128 -b 64 -s eager >"$tmp/out" 2>&1
	fi
	rc=$?
}

# case NAME LINE REASON SED: the good file edited by SED must be refused
# at LINE with REASON (grep -E), in both boots.
case_() {
	name=$1 line=$2 reason=$3
	f="$tmp/$name.xml"
	sed "$4" "$good" >"$f"
	cmp -s "$f" "$good" && { echo "FAIL: $name: the edit changed nothing"; fail=1; return; }
	for boot in hijack attach; do
		run $boot "$f"
		if [ "$rc" -ge 128 ] || [ "$rc" = 0 ]; then
			echo "FAIL: $name ($boot): exited $rc, expected starpu_init to fail:"; cat "$tmp/out"; fail=1
		elif ! grep -qE -- "platform file $f:$line: $reason" "$tmp/out" || ! grep -q "starpu_init .*failed: Invalid argument" "$tmp/out"; then
			echo "FAIL: $name ($boot): expected 'platform file $f:$line: $reason' and -EINVAL:"; cat "$tmp/out"; fail=1
		else
			echo "ok: $name ($boot): $(grep -o "platform file .*" "$tmp/out" | head -1)"
		fi
	done
}

case_ dup-link 24 "<link id='RAM-RAM'> is defined twice \\(first at line 23\\)" \
	'23p'
case_ dup-route 25 "the route from 'RAM' to 'RAM' is defined twice \\(first at line 24\\)" \
	'24p'
case_ dup-route-sym 26 "the route from 'CPU0' to 'RAM' is defined twice \\(first at line 25\\)" \
	'24a\
    <route src="RAM" dst="CPU0"><link_ctn id="RAM-RAM"/></route>\
    <route src="CPU0" dst="RAM" symmetrical="NO"><link_ctn id="RAM-RAM"/></route>'
case_ bad-routing 14 "<zone routing='Fulll'>: not a routing SimGrid knows" \
	's/routing="Full"/routing="Fulll"/'
case_ prop-no-value 21 "<prop> needs both id and value" \
	's/<prop id="memsize" value="8589934592"\/>/<prop id="memsize"\/>/'
case_ bw-zero 24 "a route uses link 'RAM-RAM', whose bandwidth '0Bps' \\(line 23\\) is not a positive number" \
	's/bandwidth="10000000000Bps"/bandwidth="0Bps"/'
case_ bw-negative 24 "a route uses link 'RAM-RAM', whose bandwidth '-5GBps'" \
	's/bandwidth="10000000000Bps"/bandwidth="-5GBps"/'
for m in -1 0 lots; do
	case_ "ram-memsize$m" 21 "host RAM has memsize='$m': a memsize must be a positive number of bytes" \
		"s/value=\"8589934592\"/value=\"$m\"/"
done

# A device's measured allocation cost (vela calibrate-bus) must be a
# non-negative number of microseconds.
for m in -3 nan lots; do
	case_ "malloc-cost$m" 22 "host RAM has malloc_cost_us='$m': a cost must be a non-negative number of microseconds" \
		"21a\\
      <prop id=\"malloc_cost_us\" value=\"$m\"/>"
done
case_ malloc-per-mib 22 "host RAM has malloc_cost_us_per_mib='1e999': a cost must be a non-negative number" \
	'21a\
      <prop id="malloc_cost_us_per_mib" value="1e999"/>'
case_ first-copy 22 "host RAM has first_copy_us_per_mib='-2': a cost must be a non-negative number" \
	'21a\
      <prop id="first_copy_us_per_mib" value="-2"/>'
# Whether a device's copies run on the engine of its kernels: 0 or 1.
for m in 2 yes; do
	case_ "copies-on-compute-$m" 22 "host RAM has copies_on_compute='$m': it must be 0 or 1" \
		"21a\\
      <prop id=\"copies_on_compute\" value=\"$m\"/>"
done

# A core shared by the threads placed on it (make-cluster.py --cores): 0
# or 1; how late its timed waits end: a non-negative number; messages
# copied by the receiver: bytes >= 0 above which, at a bandwidth > 0.
for m in 2 on; do
	case_ "time-shared-$m" 22 "host RAM has time_shared='$m': it must be 0 or 1" \
		"21a\\
      <prop id=\"time_shared\" value=\"$m\"/>"
done
case_ timer-overshoot 22 "host RAM has timer_overshoot_us='-50': a cost must be a non-negative number" \
	'21a\
      <prop id="timer_overshoot_us" value="-50"/>'
case_ wakeup 22 "host RAM has wakeup_us='soon': a cost must be a non-negative number" \
	'21a\
      <prop id="wakeup_us" value="soon"/>'
case_ insert-cost 22 "host RAM has mpi_insert_local_us_per_datum='-1': a cost must be a non-negative number" \
	'21a\
      <prop id="mpi_insert_local_us_per_datum" value="-1"/>'
case_ exchange-cost 22 "host RAM has mpi_insert_send_us='x': a cost must be a non-negative number" \
	'21a\
      <prop id="mpi_insert_send_us" value="x"/>'
case_ task-cost 22 "host RAM has sched_cost_us='-2': a cost must be a non-negative number" \
	'21a\
      <prop id="sched_cost_us" value="-2"/>'
case_ copy-above 22 "host RAM has mpi_copy_above='many': it must be a number of bytes >= 0" \
	'21a\
      <prop id="mpi_copy_above" value="many"/>'
case_ copy-bps 22 "host RAM has mpi_copy_Bps='0': it must be a bandwidth > 0" \
	'21a\
      <prop id="mpi_copy_Bps" value="0"/>'

# The file as it is runs, in both boots.
for boot in hijack attach; do
	run $boot "$good"
	[ "$rc" = 0 ] && grep -q "^cholesky .*sched=eager" "$tmp/out" ||
		{ echo "FAIL: the good platform ($boot) exited $rc:"; cat "$tmp/out"; fail=1; }
done
# Every platform the project ships passes the check (run through the
# attach boot's validation in the loop above for the test file; here the
# shipped ones, hijack boot).
for f in "$top_srcdir"/platforms/*.xml; do
	run hijack "$f"
	grep -q "platform file .*:[0-9]*: " "$tmp/out" && { echo "FAIL: shipped $f refused:"; grep "platform file" "$tmp/out"; fail=1; }
done
[ $fail = 0 ] && echo "PASS: bad platform files refused with file:line, in both boots"
exit $fail
