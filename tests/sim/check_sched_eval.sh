#!/bin/sh
# `vela sched-eval` (issue 24) on a small recorded graph
# (data/sched_eval_small.rec: the 20-task tiled Cholesky of replay_app 4,
# recorded under dmda on data/4cpu with the ci-2core models):
#   - golden table and JSON over three machines (ci-2core by name, 4cpu by
#     file with ci-2core's models, epyc2-4xa100-pcie with 0 and 2 of its
#     GPUs: GPU counts above a machine's are left out for it) and four
#     policies, one of them from a shared library (sim/planted_policy.c);
#   - the same results.json bit for bit with 1 and with 2 processes;
#   - the program itself (replay_app, `-- PROGRAM`) gives the makespans of
#     its replayed graph;
#   - a planted regression (planted_worse against a planted_good baseline):
#     exit 1, one line naming policy, platform and both figures; the other
#     way round an improvement, exit 0; a large tolerance: neither;
#   - bad input, each a one-line error naming it while the other cases run:
#     unknown policy, missing library symbol, unknown machine, missing and
#     corrupt platform files, a corrupt model, a tasks.rec that does not
#     parse, a program that exits non-zero, fails tasks, runs no Vela
#     session, runs another policy or hangs (--timeout), a corrupt
#     baseline, bad options (exit 2).
# Skipped (77) when the SimGrid plugin was not built.
# When a deliberate change of the runtime or the simulation moves these
# makespans, regenerate the goldens with VELA_REGEN_GOLDEN=1 (and say why
# in the commit).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/sim/sim_test_env.sh"
app="$top_builddir/tests/sim/replay_app"
lib="$top_builddir/tests/sim/.libs/libplanted.so"
data="$top_srcdir/tests/sim/data"
rec="$data/sched_eval_small.rec"
[ -f "$lib" ] || { echo "FAIL: the test policy library $lib was not built"; exit 1; }
# The example machines of the source tree, not an older installed copy.
VELA_DATA_DIR=$top_srcdir
export VELA_DATA_DIR
machines="ci-2core,$data/4cpu.platform.v4.xml:ci-2core"
golden_args="-g 0,2 -p $machines,epyc2-4xa100-pcie"
# The JSON names the files it used: the golden has them relative.
normalize() { sed -e "s|$top_srcdir|@SRC@|g" -e "s|$tmp|@TMP@|g" "$1"; }
# A figure of results.json: field of the case with this platform and policy.
figure() { sed -n "s/.*\"platform\": \"$2\", \"policy\": \"$3\".*\"$4\": \([0-9.]*\),.*/\1/p" "$1"; }

# 1. Golden table and JSON.
"$vela" sched-eval -q $golden_args -s "eager,dmda,ws,$lib:planted_good" -o "$tmp/good" "$rec" \
	>"$tmp/good.out" 2>"$tmp/good.err"
rc=$?
[ $rc = 0 ] || { cat "$tmp/good.err"; problem "the golden evaluation exited $rc"; }
# The table: stdout up to the blank line before "report: ...".
sed '/^report: /,$d' "$tmp/good.out" | sed '$d' >"$tmp/good.table"
if [ "${VELA_REGEN_GOLDEN:-0}" = 1 ]; then
	cp "$tmp/good.table" "$data/sched_eval_golden.txt"
	normalize "$tmp/good/results.json" >"$data/sched_eval_golden.json"
	echo "goldens regenerated: tests/sim/data/sched_eval_golden.{txt,json}"
fi
if diff -u "$data/sched_eval_golden.txt" "$tmp/good.table"; then
	echo "ok: the table is the golden one"
else
	problem "the table differs from tests/sim/data/sched_eval_golden.txt (above)"
fi
normalize "$tmp/good/results.json" >"$tmp/good.json"
if diff -u "$data/sched_eval_golden.json" "$tmp/good.json"; then
	echo "ok: results.json is the golden one"
else
	problem "results.json differs from tests/sim/data/sched_eval_golden.json (above)"
fi
for f in report.html results.csv cases/000/gantt.svg; do
	[ -s "$tmp/good/$f" ] || problem "no $f written"
done
[ "$(grep -c ',ok,' "$tmp/good/results.csv")" = 16 ] || problem "results.csv: expected 16 cases ok"

# 2. Deterministic whatever the number of processes.
"$vela" sched-eval -q -j 1 $golden_args -s "eager,dmda,ws,$lib:planted_good" -o "$tmp/j1" "$rec" >/dev/null 2>&1 ||
	problem "the evaluation with -j 1 failed"
cmp -s "$tmp/good/results.json" "$tmp/j1/results.json" && echo "ok: -j 1 and -j 2 give the same results.json" ||
	problem "results.json differs between -j 1 and -j 2"

# 3. The program itself, simulated per case: the makespans of its graph.
"$vela" sched-eval -q -p "$data/4cpu.platform.v4.xml:ci-2core" -s dmda,eager -o "$tmp/prog" -- "$app" 4 \
	>"$tmp/prog.out" 2>&1 || { cat "$tmp/prog.out"; problem "the evaluation of the program failed"; }
for s in dmda eager; do
	a=$(figure "$tmp/prog/results.json" 4cpu $s makespan_ms)
	b=$(figure "$tmp/good/results.json" 4cpu $s makespan_ms)
	[ -n "$a" ] && [ "$a" = "$b" ] && echo "ok: $s: the program and its replayed graph both take $a ms" ||
		problem "$s: the program took '$a' ms, its replayed graph '$b' ms"
done

# The program's own policy (examples/sched_tree.c) beside a built-in one.
tree="$top_builddir/examples/sched_tree"
"$vela" sched-eval -q -p "$data/4cpu.platform.v4.xml" --default-task-us 100 -s eager,app-tree-eager-prefetching \
	-o "$tmp/tree" -- "$tree" -n 8 >"$tmp/tree.out" 2>&1 &&
	[ "$(grep -c '"policy": "app-tree-eager-prefetching", "gpus": 0, "status": "ok"' "$tmp/tree/results.json")" = 1 ] &&
	echo "ok: sched_tree's own policy evaluated beside eager" || { cat "$tmp/tree.out"; problem "sched_tree's own policy"; }

# 4. A planted regression, then the improvement the other way round.
"$vela" sched-eval -q -p "$machines" -s "$lib:planted_worse" -o "$tmp/worse" --baseline "$tmp/good/results.json" \
	--tolerance 5% "$rec" >"$tmp/worse.out" 2>"$tmp/worse.err"
rc=$?
[ $rc = 1 ] || problem "the planted regression exited $rc, expected 1"
for p in ci-2core 4cpu; do
	now=$(figure "$tmp/worse/results.json" $p planted makespan_ms)
	was=$(figure "$tmp/good/results.json" $p planted makespan_ms)
	line=$(grep "regression: planted on $p, 0 GPUs: makespan" "$tmp/worse.err")
	if [ "$(echo "$line" | grep -c .)" = 1 ] && echo "$line" | grep -q "makespan $(printf %.3f "$now") ms, baseline $(printf %.3f "$was") ms"; then
		echo "ok: caught: $line"
	else
		cat "$tmp/worse.err"; problem "no one-line regression naming planted, $p, $now and $was ms"
	fi
done
grep -q "^2 regressions, 0 improvements, 0 within the tolerance, 0 not in the baseline" "$tmp/worse.out" || { cat "$tmp/worse.out"; problem "expected the summary of 2 regressions"; }
"$vela" sched-eval -q -p "$machines" -s "$lib:planted_good" -o "$tmp/better" --baseline "$tmp/worse/results.json" \
	--tolerance 0.05 "$rec" >"$tmp/better.out" 2>"$tmp/better.err"
rc=$?
[ $rc = 0 ] || { cat "$tmp/better.err"; problem "the improvement exited $rc, expected 0"; }
[ "$(grep -c '^improvement: planted on .*, 0 GPUs: makespan .* ms, baseline .* ms (-' "$tmp/better.out")" = 2 ] &&
	echo "ok: the 2 improvements are reported" || { cat "$tmp/better.out"; problem "expected 2 improvements"; }
"$vela" sched-eval -q -p "$machines" -s "$lib:planted_worse" -o "$tmp/tol" --baseline "$tmp/good/results.json" \
	--tolerance 500% "$rec" >"$tmp/tol.out" 2>&1 && grep -q "^0 regressions, 0 improvements, 2 within" "$tmp/tol.out" &&
	echo "ok: within a 500% tolerance" || { cat "$tmp/tol.out"; problem "a 500% tolerance still failed"; }

# 5. Bad input: each a one-line error naming it; the good case still runs.
mkdir -p "$tmp/badmodels/codelets/45"
cp "$top_srcdir"/perfmodels/ci-2core/codelets/45/* "$tmp/badmodels/codelets/45/"
echo "not a model" >"$tmp/badmodels/codelets/45/vela_dgemm.ci-2core"
"$vela" sched-eval -q -p "ci-2core,no-such-machine,$data/corrupt.platform.v4.xml:ci-2core,$tmp/missing.xml,$data/4cpu.platform.v4.xml:$tmp/badmodels:ci-2core" \
	-s "eager,no-such-policy,$lib:nosym" -o "$tmp/bad" "$rec" >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
[ $rc = 1 ] || problem "bad input exited $rc, expected 1"
[ "$(figure "$tmp/bad/results.json" ci-2core eager makespan_ms)" = "$(figure "$tmp/good/results.json" ci-2core eager makespan_ms)" ] &&
	echo "ok: eager on ci-2core still ran, with its golden makespan" || problem "the good case did not run among bad ones"
check_line() {
	n=$(grep -c -- "$1" "$tmp/bad.err")
	[ "$n" = 1 ] && echo "ok: one line: $(grep -- "$1" "$tmp/bad.err" | cut -c1-150)" ||
		{ cat "$tmp/bad.err"; problem "expected one line matching '$1', got $n"; }
}
check_line "policy 'no-such-policy': unknown (built-in: eager"
check_line "policy '$lib:nosym': no symbol 'nosym'"
check_line "platform 'no-such-machine': no file platforms/no-such-machine.platform.v4.xml"
check_line "platform '$tmp/missing.xml': No such file"
check_line "eager on corrupt, 0 GPUs: .*corrupt.platform.v4.xml:2: Invalid XML"
check_line "eager on 4cpu, 0 GPUs: .*model 'vela_dgemm': .*vela_dgemm.ci-2core:1:"
[ "$(grep -c . "$tmp/bad.err")" = 6 ] || { cat "$tmp/bad.err"; problem "expected exactly 6 error lines"; }
[ "$(grep -c '"status": "error"' "$tmp/bad/results.json")" = 14 ] || problem "results.json: expected 14 failed cases"

printf 'Name: potrf\nJobId: abc\n\n' >"$tmp/bad.rec"
"$vela" sched-eval -q -p ci-2core -s eager,dmda -o "$tmp/badrec" "$tmp/bad.rec" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc = 1 ] || problem "an unparsable tasks.rec exited $rc"
check_line "eager on ci-2core, 0 GPUs: .*bad.rec:2"
check_line "dmda on ci-2core, 0 GPUs: .*bad.rec:2"

"$vela" sched-eval -q -p ci-2core -s eager -o "$tmp/exit3" -- sh -c 'echo "it went wrong" >&2; exit 3' >/dev/null 2>"$tmp/bad.err"
[ $? = 1 ] || problem "a program exiting 3 was not an error"
check_line "eager on ci-2core, 0 GPUs: the run exited with status 3: it went wrong"
# Tasks whose models have no file for this host fail; the program still exits 0.
"$vela" sched-eval -q -p "$data/4cpu.platform.v4.xml::nomodels" -s eager -o "$tmp/failing" -- "$app" 3 >/dev/null 2>"$tmp/bad.err"
[ $? = 1 ] || problem "a program whose tasks failed was not an error"
check_line "eager on 4cpu, 0 GPUs: [0-9]* task(s) failed, the first job"
"$vela" sched-eval -q -p ci-2core -s eager -o "$tmp/true" -- true >/dev/null 2>"$tmp/bad.err"
[ $? = 1 ] || problem "a program without a Vela session was not an error"
check_line "eager on ci-2core, 0 GPUs: the run recorded no trace"
"$vela" sched-eval -q -p ci-2core -s my-own -o "$tmp/own" -- "$app" 2 >/dev/null 2>"$tmp/bad.err"
[ $? = 1 ] || problem "a program that does not run the policy it is given was not an error"
check_line "my-own on ci-2core, 0 GPUs: policy 'my-own': the run used 'lws'"

# A program that hangs: killed at --timeout, its process group with it.
"$vela" sched-eval -q -p ci-2core -s eager --timeout 1 -o "$tmp/hang" -- sh -c 'sleep 60 & sleep 60' >/dev/null 2>"$tmp/bad.err"
[ $? = 1 ] || problem "a program that hangs was not an error"
check_line "eager on ci-2core, 0 GPUs: the run took longer than 1 s (--timeout) and was killed"

printf '{"cases": [{"platform": "ci-2core", ' >"$tmp/corrupt.json"
"$vela" sched-eval -q -p ci-2core -s eager -o "$tmp/cb" --baseline "$tmp/corrupt.json" "$rec" >/dev/null 2>"$tmp/bad.err"
[ $? = 1 ] || problem "a corrupt baseline was not an error"
check_line "baseline '$tmp/corrupt.json': byte 36: unexpected end of file"
# More ways a baseline can be wrong: each one line, exit 1, never a pass.
i=0
for bad in '[1, 2]' '{"cases": 3}' '{"cases": [1e999]}' '{"cases": [] } x' "$(printf '%0200d' 0 | tr 0 '[')" \
	'{"cases": [{"platform": "ci-2core", "policy": "eager", "gpus": 0, "status": "ok", "makespan_ms": "fast"}]}'; do
	i=$((i + 1))
	printf '%s' "$bad" >"$tmp/b$i.json"
	"$vela" sched-eval -q -p ci-2core -s eager -o "$tmp/cb" --baseline "$tmp/b$i.json" "$rec" >"$tmp/b.out" 2>"$tmp/bad.err"
	rc=$?
	if [ $i = 6 ]; then
		# Valid JSON whose case has no number: not compared, said so.
		[ $rc = 0 ] && grep -q "1 not in the baseline" "$tmp/b.out" && echo "ok: a baseline case without a makespan is not compared" ||
			problem "baseline $i: exit $rc"
	else
		[ $rc = 1 ] && [ "$(grep -c "baseline '$tmp/b$i.json'" "$tmp/bad.err")" = 1 ] &&
			echo "ok: baseline $i refused: $(cat "$tmp/bad.err")" || { cat "$tmp/bad.err"; problem "baseline $i ($bad) exited $rc"; }
	fi
done

# 6. Usage errors: exit 2 and one line naming the option.
expect_usage() {
	"$vela" sched-eval "$@" >"$tmp/usage" 2>&1
	rc=$?
	[ $rc = 2 ] && [ "$(grep -c . "$tmp/usage")" = 1 ] && echo "ok: usage: $(cat "$tmp/usage")" ||
		{ cat "$tmp/usage"; problem "'$*' exited $rc, expected 2 and one line"; }
}
expect_usage -p ci-2core -g two "$rec"
expect_usage -p ci-2core --tolerance much "$rec"
expect_usage -p ci-2core --bogus "$rec"
expect_usage "$rec"
expect_usage -p ci-2core
expect_usage -p ci-2core -s eager,,dmda "$rec"
expect_usage -p ci-2core --baseline "$tmp/none.json" "$rec"
exit $fail
