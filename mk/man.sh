#!/bin/sh
# man.sh VERSION OPTIONS PAGE.in LIST [TOOL] - a manual page from its hand-written source, on
# stdout; TOOL (default: the page's name) is the tool whose options LIST holds.
#
# The page source is roff with these lines, which are roff comments so that the source reads
# as a page too (curl makes its manual from its option files in the same spirit):
#   .\" @synopsis       the tool's options, from its table, as SYNOPSIS items ([-x|--name arg];
#                       "..." after one whose --help says "repeatable")
#   .\" @synopsis-item NAME [TEXT]  TEXT is --NAME's SYNOPSIS item (for a repeated option, or
#                       one that goes with another); no TEXT: --NAME is in another's item
#   .\" @option NAME    the description of --NAME follows, up to the next marker, .SH or .SS;
#                       the .TP tag (-x, --name arg) is made from the table. Every option of
#                       the tool's own table has one; one for a shared or judge option
#                       replaces that option's text of OPTIONS in this page
#   .\" @shared         "Options shared by every ragpipe tool": the judge options (for a tool
#                       that has them) and the shared ones, their text from OPTIONS
#   .\" @options TABLE  the options of TABLE (judge or shared) with their text from OPTIONS,
#                       no heading (rag(7))
#   .\" @metric-tools   the metric tools of the operation registry (HACKING.md), from METRICS:
#                       each its metric as a .TP entry, its .doc and its tool (rag-eval(1))
#   .\" @tool-prompts   each metric tool's prompts as FILES lists them: .BR OP.en.txt , .B
#                       OP.zh.txt (TOOL), (rag(7))
#   .\" @tool-pages     each metric tool's page as SEE ALSO lists it: .BR TOOL (1), (rag(7))
#   .\" @tools          each metric tool as a .TP entry of a list of tools: its page, its .doc
#                       and the score it writes (rag(7))
# METRICS is the file the environment's RAG_MAN_METRICS names, rag-eval --list-metrics: a line
# a metric, NAME TOOLS OPERATION DOC tab-separated, OPERATION "-" but for a metric tool's.
# (and in OPTIONS, .\" @after-shared: what follows the shared options in a tool's page)
# and @VERSION@ (VERSION) and @TOOL@ (TOOL) anywhere.
# OPTIONS (share/man/options.man) holds the one text of each shared and judge option, in the
# same @option form. LIST is the tool's `--list-options` (for rag(7), any judge tool's): what
# each option takes comes from there, so the page cannot disagree with the tool.
# Exits 1, naming the option, when an option of the table has no text or a text names no option.
set -eu
[ $# -eq 4 ] || [ $# -eq 5 ] || { echo "usage: man.sh VERSION OPTIONS PAGE.in LIST [TOOL]" >&2; exit 2; }
version=$1 options=$2 page=$3 list=$4
name=${page##*/}
name=${name%.in}
own=1
[ $# -eq 4 ] || own=0
name=${5:-${name%.*}}

metrics=${RAG_MAN_METRICS:-/dev/null}
sect=${page%.in}
sect=${sect##*.}
pname=${page##*/}
pname=${pname%.*.in}
# the page as the markers make it, then what every page gets for a device without the glyphs
# (below); kept in a variable so that a marker's error is this script's exit status
out=$(awk -F '\t' -v version="$version" -v tool="$name" -v page="$page" -v options="$options" -v list="$list" -v own="$own" \
	-v metrics="$metrics" '
function die(msg) { printf "%s: %s\n", page, msg >"/dev/stderr"; err = 1; exit 1 }
function esc(s) { gsub(/-/, "\\-", s); return s }
# an argument name in italics, lower case, its punctuation ([, = ...) in the font sep
function argr(a, sep,   out, c, i, it) {
	a = tolower(a); out = ""; it = 0
	for (i = 1; i <= length(a); i++) {
		c = substr(a, i, 1)
		if (c ~ /[a-z0-9_-]/) { if (!it) { out = out "\\fI"; it = 1 } }
		else if (it) { out = out sep; it = 0 }
		out = out (c == "-" ? "\\-" : c)
	}
	return out "\\fR"
}
function tag(i) {
	if (arg[i] == "-") return sh[i] != "-" ? ".BR " esc(sh[i]) " \", \" " esc(ln[i]) : ".B " esc(ln[i])
	if (sh[i] != "-") return ".BR " esc(sh[i]) " \", \" " esc(ln[i]) " \" " argr(arg[i], "\\fB") "\""
	return ".BR " esc(ln[i]) " \" " argr(arg[i], "\\fB") "\""
}
# whether the --help line names every value the option takes (then they are all it takes)
function named(i,   n, v, k, h) {
	n = split(vals[i], v, " "); h = " " help[i] " "; gsub(/[(),;:|]/, " ", h)
	for (k = 1; k <= n; k++) if (index(h, " " v[k] " ") == 0) return 0
	return n > 0
}
# a SYNOPSIS item: the values themselves when the option takes one of a few short ones, named
# in --help
function synitem(i,   s, n, v, k) {
	s = "[" (sh[i] != "-" ? "\\fB" esc(sh[i]) "\\fR|" : "") "\\fB" esc(ln[i]) "\\fR"
	if (arg[i] != "-") {
		n = split(vals[i], v, " ")
		if (kind[i] == "values" && n <= 5 && length(vals[i]) <= 40 && arg[i] != "LIST" && arg[i] !~ /\.\.\./ && named(i)) {
			s = s "\\~"
			for (k = 1; k <= n; k++) s = s (k > 1 ? "|" : "") "\\fB" esc(v[k]) "\\fR"
		} else s = s "\\~" argr(arg[i], "\\fB")
	}
	return s "]" (help[i] ~ /repeatable/ ? "..." : "")
}
function subst(s) { gsub(/@VERSION@/, version, s); gsub(/@TOOL@/, esc(tool), s); return s }
function entry(i,   t) {
	t = (ln[i] in over) ? over[ln[i]] : text[ln[i]]
	if (t == "") die("no text for " ln[i] " (" options " or an @option in the page)")
	print ".TP"; print tag(i); printf "%s", subst(t)
}
# blocks: "@option NAME" then its lines, up to the next marker, .SH or .SS, into dst
function endblock() { cur = "" }
FNR == 1 { cur = "" }
FILENAME == options {
	if ($0 ~ /^\.\\" @after-shared[ \t]*$/) { cur = "@after"; text[cur] = ""; next }
	if ($0 ~ /^\.\\" @option /) { cur = "--" $0; sub(/^--\.\\" @option /, "--", cur); text[cur] = ""; next }
	if ($0 ~ /^\.\\" @/ || $0 ~ /^\.S[HS]/) { cur = ""; next }
	if (cur != "") text[cur] = text[cur] $0 "\n"
	next
}
FILENAME == metrics {
	if ($3 != "-") { nm++; mname[nm] = $1; mtool[nm] = $2; mop[nm] = $3; mdoc[nm] = $4 }
	next
}
FILENAME == "-" || FILENAME == list {
	n++; ln[n] = $1; sh[n] = $2; arg[n] = $3; kind[n] = $4; vals[n] = $5; table[n] = $6; help[n] = $7
	if (table[n] == "judge") hasjudge = 1
	idx[$1] = n
	next
}
{
	if ($0 ~ /^\.\\" @synopsis-item /) {
		o = $0; sub(/^\.\\" @synopsis-item /, "", o); t = o; sub(/ .*/, "", o)
		t = substr(t, length(o) + 1); sub(/^ /, "", t)
		o = "--" o
		if (!(o in idx)) die("@synopsis-item " o ": " tool " has no such option")
		synover[o] = t; hassyn[o] = 1
		next
	}
	if ($0 ~ /^\.\\" @option /) {
		cur = "--" $0; sub(/^--\.\\" @option /, "--", cur)
		if (!(cur in idx)) die("@option " cur ": " tool " has no such option")
		if (cur in seen) die("@option " cur " twice")
		seen[cur] = 1
		if (table[idx[cur]] == "tool") { nl++; line[nl] = "\001" cur } else over[cur] = ""
		next
	}
	if ($0 ~ /^\.\\" @/ || $0 ~ /^\.S[HS]/) cur = ""
	if (cur != "" && table[idx[cur]] != "tool") { over[cur] = over[cur] $0 "\n"; next }
	if (cur != "") { body[cur] = body[cur] $0 "\n"; next }
	nl++; line[nl] = $0
}
END {
	if (err) exit 1
	if (own) for (i = 1; i <= n; i++) if (table[i] == "tool" && !(ln[i] in seen)) die("no @option " ln[i] " (the tool has it)")
	for (k = 1; k <= nl; k++) {
		l = line[k]
		if (substr(l, 1, 1) == "\001") {
			o = substr(l, 2); print ".TP"; print tag(idx[o]); printf "%s", subst(body[o])
		} else if (l ~ /^\.\\" @synopsis[ \t]*$/) {
			for (i = 1; i <= n; i++) {
				if (ln[i] == "--help" || ln[i] == "--version") continue
				if (!(ln[i] in hassyn)) print synitem(i)
				else if (synover[ln[i]] != "") print synover[ln[i]]
			}
		} else if (l ~ /^\.\\" @shared[ \t]*$/) {
			print ".SS Options shared by every ragpipe tool"
			for (i = 1; i <= n; i++) if (table[i] == "judge") entry(i)
			for (i = 1; i <= n; i++) if (table[i] == "shared") entry(i)
			printf "%s", subst(text["@after"])
		} else if (l ~ /^\.\\" @options [a-z]+[ \t]*$/) {
			t = l; sub(/^\.\\" @options /, "", t); sub(/[ \t]*$/, "", t)
			for (i = 1; i <= n; i++) if (table[i] == t) entry(i)
		} else if (l ~ /^\.\\" @metric-tools[ \t]*$/) {
			for (i = 1; i <= nm; i++) {
				print ".TP"; print ".B " esc(mname[i]); print ".BR " esc(mtool[i]) " (1):"; print mdoc[i]
			}
		} else if (l ~ /^\.\\" @tool-prompts[ \t]*$/) {
			for (i = 1; i <= nm; i++) {
				print ".BR " esc(mop[i]) ".en.txt ,"; print ".B " esc(mop[i]) ".zh.txt"; print "(" esc(mtool[i]) "),"
			}
		} else if (l ~ /^\.\\" @tools[ \t]*$/) {
			for (i = 1; i <= nm; i++) {
				print ".TP"; print ".BR " esc(mtool[i]) " (1)"; print mdoc[i]
				print "It writes"; print ".BR scores." esc(mname[i]) " ."
			}
		} else if (l ~ /^\.\\" @tool-pages[ \t]*$/) {
			for (i = 1; i <= nm; i++) print ".BR " esc(mtool[i]) " (1),"
		} else if (l ~ /^\.\\" @/) {
			die("unknown marker: " l)
		} else print subst(l)
	}
}' "$options" "$metrics" "$list" "$page")

# man in the C locale (debootstrap's minbase, most container images) renders with -Tascii,
# where Chinese has no glyph: troff warned once per character (57 times for rag(7)). On such a
# device a page leaves them out without a warning and, where it has any, says at the top of its
# DESCRIPTION how to read them; a Greek capital sigma becomes "Sum". UTF-8 devices are untouched.
printf '%s\n' "$out" | LC_ALL=C awk -v man="man $sect $pname" '
{ line[NR] = $0; if ($0 ~ /[\200-\377]/ || $0 ~ /\\\[u[0-9A-F]+\]/) wide = 1 }
END {
	for (i = 1; i <= NR; i++) {
		print line[i]
		if (line[i] ~ /^\.TH / && !th) {
			th = 1
			print ".fchar \\(*S Sum"
			print ".if !\x27\\*[.T]\x27utf8\x27 \\{\\"
			print ".  if \\n[.warn]%2 .warn \\n[.warn]-1"
			print ".\\}"
		}
		if (wide && line[i] ~ /^\.SH "?DESCRIPTION"?$/ && !desc) {
			desc = 1
			print ".if !\x27\\*[.T]\x27utf8\x27 \\{\\"
			print "(This page\x27s Chinese examples are left out here: read it in a UTF-8 locale, as"
			print ".BR \"LC_ALL=C.UTF-8 " man "\" .)"
			print ".PP"
			print ".\\}"
		}
	}
}'
