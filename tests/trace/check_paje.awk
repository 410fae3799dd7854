# check_paje.awk — checks a Paje trace against its own header: every event
# line uses a defined event id with as many fields as its definition, dates
# never go backwards, and containers are created before they are used.
# Prints the first problems and exits 1, or prints a summary and exits 0.
function tokenize(line,    n, i, c, tok, inq) {
	n = 0; tok = ""; inq = 0
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (inq) {
			if (c == "\"") { inq = 0; toks[++n] = tok; tok = ""; started = 0 }
			else tok = tok c
		} else if (c == "\"") { inq = 1; tok = "" }
		else if (c == " " || c == "\t") { if (tok != "") { toks[++n] = tok; tok = "" } }
		else tok = tok c
	}
	if (inq) return -1
	if (tok != "") toks[++n] = tok
	return n
}
function fail(msg) { print FILENAME ":" NR ": " msg; bad++; if (bad > 10) exit 1 }
BEGIN { bad = 0; indef = 0; lastdate = -1; nevents = 0; containers["0"] = 1 }
/^%EventDef/ { indef = 1; defname = $2; defid = $3; nfields[defid] = 0; names[defid] = defname; next }
/^%EndEventDef/ { indef = 0; next }
/^%/ { if (indef) { nfields[defid]++; ftype[defid, nfields[defid]] = $3; fname[defid, nfields[defid]] = $2 } ; next }
/^#/ || /^[ \t]*$/ { next }
{
	if (indef) { fail("event line inside a definition"); next }
	n = tokenize($0)
	if (n < 0) { fail("unterminated quote"); next }
	id = toks[1]
	if (!(id in nfields)) { fail("event id " id " is not defined"); next }
	if (n - 1 != nfields[id]) { fail(names[id] " has " (n - 1) " fields, its definition " nfields[id]); next }
	for (k = 1; k <= nfields[id]; k++) {
		v = toks[k + 1]
		if (ftype[id, k] == "date" || ftype[id, k] == "double") {
			if (v !~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) fail(names[id] ": " fname[id, k] " '" v "' is not a number")
			if (ftype[id, k] == "date") { if (v + 0 < lastdate) fail("date " v " before " lastdate); lastdate = v + 0 }
		}
		if (fname[id, k] == "Container" || fname[id, k] == "StartContainer" || fname[id, k] == "EndContainer")
			if (!(v in containers)) fail(names[id] ": container " v " does not exist")
	}
	if (names[id] == "PajeCreateContainer") containers[toks[3]] = 1
	nevents++
}
END {
	if (bad) exit 1
	if (nevents == 0) { print FILENAME ": no events"; exit 1 }
	printf "%s: %d events, grammar and dates ok\n", FILENAME, nevents
}
