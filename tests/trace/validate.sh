# validate.sh — sourced by the trace tests: validate_exports BASE checks
# BASE.json with a JSON parser (Chrome trace events), BASE.svg with an XML
# parser and BASE.paje with the Paje grammar (check_paje.awk, and pajeng's
# pj_dump when installed). Failures go through the caller's problem().
validate_exports() {
	if command -v python3 >/dev/null 2>&1; then
		python3 - "$1.json" <<'PY' || problem "$1.json does not parse as a Chrome trace"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
phases = {e["ph"] for e in ev}
assert {"M", "X", "s", "f"} <= phases, phases
for e in ev:
    assert "pid" in e and "name" in e, e
    if e["ph"] == "X":
        assert e["dur"] >= 0 and "tid" in e and "ts" in e, e
print("chrome JSON: %d events, phases %s" % (len(ev), "".join(sorted(phases))))
PY
	elif command -v jq >/dev/null 2>&1; then
		jq -e '.traceEvents | length > 0' "$1.json" >/dev/null || problem "$1.json does not parse"
	else
		echo "note: neither python3 nor jq: JSON not validated"
	fi
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$1.svg" || problem "$1.svg is not well-formed XML"
	elif command -v python3 >/dev/null 2>&1; then
		python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$1.svg" ||
			problem "$1.svg is not well-formed XML"
	fi
	awk -f "$top_srcdir/tests/trace/check_paje.awk" "$1.paje" || problem "$1.paje: Paje grammar"
	if command -v pj_dump >/dev/null 2>&1; then
		pj_dump "$1.paje" >pj.out 2>pj.err || { cat pj.err; problem "pj_dump rejects $1.paje"; }
		grep -q "^State, CPU 0, Worker State" pj.out || problem "pj_dump shows no state of CPU 0 in $1.paje"
		grep -q "^Link, " pj.out || problem "pj_dump shows no transfer link in $1.paje"
		echo "pj_dump: $(wc -l <pj.out) entities"
	else
		echo "note: pj_dump (Debian package pajeng) not installed: Paje checked by grammar only"
	fi
}
