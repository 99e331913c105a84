#!/bin/sh
# 90-options.t - each tool's options say the same thing everywhere they are written down.
#
# The manual pages' SYNOPSIS options, OPTIONS tags and shared options, and the three
# completions, are made by `make` from the option tables (mk/man.sh, mk/completions.sh): the
# checks below hold what was made to the tables, and the makers to their rules (a page source
# that leaves an option undescribed fails; no source writes an option's tag by hand; what make
# built is what the makers make from the tools now).
#
# For every tool: the set of long options in `TOOL --help` equals the set in the SYNOPSIS and
# in the OPTIONS section of share/man/man1/TOOL.1, and the set the bash, zsh and fish
# completions offer for TOOL. The options every tool shares are those of rag(7)'s OPTIONS.
# The values offered for --judge, --lang, --cache, --metric are named on the option's --help
# line. And the basics of STYLE.md: --help exits 0, --version prints "TOOL (ragpipe) VERSION",
# an unknown option or a bad value exits 2 with a message on stderr and nothing on stdout.
# The tool's option table (the hidden --list-options) is the truth for what each option takes:
# SYNOPSIS says which take an argument and lists the same values, OPTIONS names the same
# argument, and the bash, zsh and fish completions complete files, the table's values, nothing
# (free text), or no argument at all, as the table says. getopt's complaints read
# "TOOL: error: unknown option --nope" and the like, with the hint; a file a tool cannot open
# is exit 2 in every tool.
# With groff installed, the manual pages format without a warning.
. "$(dirname "$0")/lib.sh"

# every tool the build makes: cmd/rag-*.c
TOOLS=$(cd "$TOP/cmd" && ls rag-*.c | sed 's/\.c$//' | tr '\n' ' ')
COMP=$TOP/completions
for tool in $TOOLS; do
	[ -x "$BIN/$tool" ] || bail_out "$BIN/$tool is not built: run make"
	[ -f "$TOP/share/man/man1/$tool.1" ] || bail_out "share/man/man1/$tool.1 is not built: run make"
done
[ -f "$COMP/ragpipe.bash" ] || bail_out "completions/ragpipe.bash is not built: run make"

# longopts: the sorted set of long options (--word) in the text on stdin.
longopts() {
	grep -oE -e '--[a-z][a-z-]*' | sed 's/-*$//' | LC_ALL=C sort -u
}

# man_section FILE NAME: the roff source of section NAME, with \- as -.
man_section() {
	awk -v want="$2" '
		/^\.SH/ { s = $0; sub(/^\.SH[ \t]+/, "", s); gsub(/"/, "", s); on = (s == want); next }
		on' "$1" | sed 's/\\-/-/g'
}

# same WANT GOT DESC: compare two sets (one item a line), naming what is missing and extra.
same() {
	if [ "$1" = "$2" ]; then
		tap_ok 0 "$3"
		return 0
	fi
	tap_ok 1 "$3"
	printf '%s\n' "$1" >"$T/.want"
	printf '%s\n' "$2" >"$T/.got"
	diag "  missing: $(LC_ALL=C comm -23 "$T/.want" "$T/.got" | tr '\n' ' ')" \
	     "  extra:   $(LC_ALL=C comm -13 "$T/.want" "$T/.got" | tr '\n' ' ')"
	return 1
}

# bash_complete TOOL WORD...: what completions/ragpipe.bash offers for the last WORD.
bash_complete() {
	bash -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_ragpipe
		printf "%s\n" "${COMPREPLY[@]}"
	' bash "$COMP/ragpipe.bash" "$@"
}

# zsh_specs TOOL: the _arguments specs of _ragpipe's shared=( ) array, of TOOL's case arm, and
# of the judge=( ) array when that arm uses it.
zsh_specs() {
	awk -v tool="$1" '
		/^shared=\(/ { sh = 1; next }
		sh && /^\)/ { sh = 0; next }
		/^judge=\(/ { jg = 1; next }
		jg && /^\)/ { jg = 0; next }
		jg { judge = judge $0 "\n"; next }
		$0 ~ "^\\(" tool "\\)" { arm = 1; next }
		arm && /;;/ { arm = 0; next }
		arm && /judge\[@\]/ { usejudge = 1 }
		sh || arm
		END { if (usejudge) printf "%s", judge }' "$COMP/_ragpipe"
}

# zsh_opts TOOL: the long options of TOOL's specs.
zsh_opts() {
	zsh_specs "$1" | longopts
}

# fish_file_opts TOOL: the long options ragpipe.fish declares for TOOL, read from the file
# itself (no fish needed): "complete -c TOOL" lines, and "complete -c $VAR" lines inside a
# "for VAR in ... TOOL ...; ... end" loop. Quoted strings and comments are dropped first; every
# block (for, if, while, function, switch, begin) is closed by its "end".
fish_file_opts() {
	awk -v tool="$1" '
		{ gsub(/\047[^\047]*\047|"[^"]*"/, ""); sub(/#.*/, ""); sub(/;[ \t]*$/, "") }
		$1 == "for" && $3 == "in" {
			d++; var[d] = "$" $2; has[d] = 0
			for (i = 4; i <= NF; i++) if ($i == tool) has[d] = 1
			next
		}
		$1 ~ /^(if|while|function|switch|begin)$/ { d++; var[d] = ""; next }
		$1 == "end" { if (d > 0) d--; next }
		$1 == "complete" {
			mine = 0; n = 0
			for (i = 2; i <= NF; i++) {
				if (($i == "-c" || $i == "--command") && i < NF) {
					c = $(i + 1)
					if (c == tool) mine = 1
					for (k = d; k > 0; k--) if (var[k] == c && has[k]) mine = 1
				}
				if (($i == "-l" || $i == "--long-option") && i < NF) opt[++n] = $(i + 1)
				else if ($i ~ /^--long-option=/) { o = $i; sub(/^[^=]*=/, "", o); opt[++n] = o }
			}
			if (mine) for (k = 1; k <= n; k++) print "--" opt[k]
		}' "$COMP/ragpipe.fish" | LC_ALL=C sort -u
}

# fish_opts TOOL: the long options fish itself offers for TOOL (fish must be installed).
fish_opts() {
	fish --no-config -c 'source $argv[1]; complete -C "$argv[2] --"' "$COMP/ragpipe.fish" "$1" |
		cut -f1 | longopts
}

# ---------------------------------------------------------------- argument kinds
# Each of the following prints one line per option name (short and long): "NAME KIND", KIND
# being none, file, text or "values W..." (the values the completion offers, sorted), and
# "NAME arg" where a manual page says only that it takes one. Sorted, for `same`.

# sortvals: "NAME KIND W..." lines with their words W sorted, and the lines sorted.
sortvals() {
	while read -r _n _k _v; do
		if [ -n "$_v" ]; then
			printf '%s %s %s\n' "$_n" "$_k" "$(printf '%s\n' $_v | LC_ALL=C sort -u | tr '\n' ' ' | sed 's/ $//')"
		else
			printf '%s %s\n' "$_n" "$_k"
		fi
	done | LC_ALL=C sort -u
}

# table_kinds TOOL: the truth, from the tool's option table (the hidden --list-options).
table_kinds() {
	"$BIN/$1" --list-options | awk -F '\t' '{
		print $1, $4, $5
		if ($2 != "-") print $2, $4, $5 }' | sortvals
}

# arg_only: KIND reduced to what a manual page's SYNOPSIS says: none, or arg.
arg_only() {
	awk '{ print $1, ($2 == "none" ? "none" : "arg") }' | LC_ALL=C sort -u
}

# table_args TOOL [TABLE]: "NAME ARG" with the argument's name in lower case, or "NAME" alone;
# with TABLE (tool, judge or shared), only that table's options.
table_args() {
	"$BIN/$1" --list-options | awk -F '\t' -v only="${2:-}" 'only == "" || $6 == only {
		a = ($3 == "-") ? "" : " " tolower($3)
		print $1 a
		if ($2 != "-") print $2 a }' | LC_ALL=C sort -u
}

# man_synopsis_kinds PAGE: from SYNOPSIS, "NAME none" or "NAME arg" ([\fB--name\fR\~\fIarg\fR],
# or \fB-x\fR|\fB--name\fR... for a short name that is the long one's other spelling).
man_synopsis_kinds() {
	man_section "$1" SYNOPSIS | awk '
		/^\.BR/ { for (i = 2; i <= NF; i++) if ($i ~ /^-/) print $i, "none"; next }
		{
			line = $0
			while (match(line, /\\fB-[-a-zA-Z]*\\fR/)) {
				name = substr(line, RSTART + 3, RLENGTH - 6)
				line = substr(line, RSTART + RLENGTH)
				if (name !~ /^--/ && line ~ /^\|\\fB--/) { alias = alias " " name; continue }
				kind = (line ~ /^\\~/) ? "arg" : "none"
				print name, kind
				n = split(alias, a, " ")
				for (j = 1; j <= n; j++) print a[j], kind
				alias = ""
			}
		}' | LC_ALL=C sort -u
}

# man_synopsis_values PAGE: "NAME values W..." for the options SYNOPSIS shows with a list of
# values (\fB--name\fR\~\fBa\fR|\fBb\fR), the lists of all its synopses together.
man_synopsis_values() {
	man_section "$1" SYNOPSIS | awk '
		{
			line = $0
			while (match(line, /\\fB--[-a-z]*\\fR\\~\\fB[^]]*/)) {
				m = substr(line, RSTART, RLENGTH)
				line = substr(line, RSTART + RLENGTH)
				name = m; sub(/^\\fB/, "", name); sub(/\\fR.*/, "", name)
				v = m; sub(/^[^~]*~/, "", v); gsub(/\\f[BIR]/, "", v); gsub(/\|/, " ", v)
				vals[name] = vals[name] " " v
			}
		}
		END { for (n in vals) print n, "values", vals[n] }' | sortvals
}

# man_option_args PAGE [SECTION...]: from the .TP tags of the sections (default OPTIONS),
# "NAME ARG" (the italic argument, font changes dropped) or "NAME" alone.
man_option_args() {
	_page=$1; shift
	[ $# -gt 0 ] || set -- OPTIONS
	for _sec in "$@"; do man_section "$_page" "$_sec"; done | awk '
		prev == ".TP" && /^\.B[IR]? +-/ {
			t = $0
			sub(/^\.B[IR]? +/, "", t)
			gsub(/"\\fR, \\fP/, " ", t); gsub(/", "/, " ", t); gsub(/"/, " ", t); gsub(/\\f[BIRP]/, "", t)
			n = split(t, w, " "); names = ""; arg = ""
			for (i = 1; i <= n; i++) if (w[i] ~ /^-/) names = names " " w[i]; else if (arg == "") arg = w[i]
			m = split(names, nm, " ")
			for (i = 1; i <= m; i++) print nm[i] (arg == "" ? "" : " " arg)
		}
		{ prev = $1 }' | LC_ALL=C sort -u
}

# bash_kinds TOOL: for each option the bash completion offers, what it completes after it:
# options (none), the files of a directory (file), nothing (text), or words (values).
bash_kinds() {
	mkdir -p "$T/probe" && : >"$T/probe/probe.file"
	(cd "$T/probe" && bash -c '
		. "$1" || exit 1
		tool=$2
		complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _ragpipe; }
		complete_words "$tool" -
		for opt in "${COMPREPLY[@]}"; do
			complete_words "$tool" "$opt" -
			if [ "${#COMPREPLY[@]}" -gt 0 ] && [[ ${COMPREPLY[0]} == -* ]]; then echo "$opt none"; continue; fi
			complete_words "$tool" "$opt" ""
			if [ "${COMPREPLY[*]}" = probe.file ]; then echo "$opt file"
			elif [ "${#COMPREPLY[@]}" -eq 0 ]; then echo "$opt text"
			else echo "$opt values ${COMPREPLY[*]}"; fi
		done
	' bash "$COMP/ragpipe.bash" "$1") | sortvals
}

# zsh_kinds TOOL: from the _arguments specs: --name=/-x+ take an argument, whose action is
# _files (file), a list (values), or anything else (text).
zsh_kinds() {
	zsh_specs "$1" | awk '
		{
			s = $0
			sub(/^[ \t]+/, "", s); sub(/[ \t]*\\$/, "", s)
			sub(/^\x27\([^)]*\)\x27/, "", s); sub(/^\x27\*\x27/, "", s); sub(/^\x27\([^)]*\)/, "\x27", s)
			if (s ~ /^\{/) { names = substr(s, 2, index(s, "}") - 2); rest = substr(s, index(s, "}") + 1) }
			else if (s ~ /^\x27-/) { names = substr(s, 2, index(s, "[") - 2); rest = substr(s, index(s, "[")) }
			else next
			gsub(/,/, " ", names)
			sub(/^\x27?\[[^]]*\]/, "", rest); sub(/\x27$/, "", rest)
			action = rest; sub(/^:[^:]*:/, "", action)
			n = split(names, nm, " ")
			for (i = 1; i <= n; i++) {
				name = nm[i]
				if (name !~ /[=+]$/) { print name, "none"; continue }
				sub(/[=+]$/, "", name)
				if (action == "_files") print name, "file"
				else if (action ~ /^\(/) {
					v = action; gsub(/\\:"[^"]*"/, "", v); gsub(/[()]/, "", v)
					print name, "values", v
				} else print name, "text"
			}
		}' | sortvals
}

# fish_kinds TOOL: from the complete lines for TOOL (by name, or through a for loop over the
# tools): -x/-r -f with -a (values) or without (text), -r (file), neither (none).
fish_kinds() {
	awk -v tool="$1" '
		$1 == "for" && $3 == "in" { var = "$" $2; tools = " "; for (i = 4; i <= NF; i++) tools = tools $i " "; next }
		$1 == "end" { var = ""; next }
		$1 == "complete" {
			if (!($2 == "-c" && ($3 == tool || ($3 == var && index(tools, " " tool " "))))) next
			l = ""; sh = ""; arg = 0; nofile = 0; vals = ""; hasvals = 0
			for (i = 4; i <= NF; i++) {
				if ($i == "-l") l = $(i + 1)
				else if ($i == "-s") sh = $(i + 1)
				else if ($i == "-r") arg = 1
				else if ($i == "-x") { arg = 1; nofile = 1 }
				else if ($i == "-f") nofile = 1
			}
			if (match($0, / -a \x27[^\x27]*\x27/)) {
				hasvals = 1
				vals = substr($0, RSTART + 5, RLENGTH - 6)
				gsub(/\\t"[^"]*"/, "", vals)
			}
			kind = !arg ? "none" : hasvals ? "values " vals : nofile ? "text" : "file"
			if (l != "") print "--" l, kind
			if (sh != "") print "-" sh, kind
		}' "$COMP/ragpipe.fish" | sortvals
}

shared=

for tool in $TOOLS; do
	man=$TOP/share/man/man1/$tool.1

	# --help, --version, misuse
	run rag "$tool" --help </dev/null
	is "$RC" 0 "$tool --help exits 0"
	check "$tool --help writes the usage to stdout" test -s "$OUT"
	is "$(cat "$ERR")" "" "$tool --help writes nothing to stderr"
	help=$(longopts <"$OUT")
	cp "$OUT" "$T/help.$tool"
	printf '%s\n' "$help" >"$T/helpset.$tool"

	run rag "$tool" --version </dev/null
	is "$RC" 0 "$tool --version exits 0"
	like "$(cat "$OUT")" "^$tool \\(ragpipe\\) [0-9]+\\.[0-9]+(\\.[0-9]+)?([-+~][0-9A-Za-z.-]+)?\$" \
		"$tool --version prints \"$tool (ragpipe) VERSION\""

	run rag "$tool" --no-such-option </dev/null
	is "$RC" 2 "$tool: an unknown option exits 2"
	check "$tool: an unknown option gives a message on stderr" test -s "$ERR"
	is "$(cat "$OUT")" "" "$tool: an unknown option writes nothing to stdout"

	# getopt's complaints in the house form, each with the hint, exit 2, nothing on stdout
	hint="Try '$tool --help' for more information."
	for misuse in "--nope:unknown option --nope" "--nope=1:unknown option --nope" "-Z:unknown option -Z" \
		"--config:option --config needs an argument" "-c:option -c needs an argument" \
		"--strict=yes:option --strict takes no argument"; do
		run rag "$tool" "${misuse%%:*}" </dev/null
		is "$RC:$(cat "$OUT"):$(cat "$ERR")" "2::$tool: error: ${misuse#*:}
$hint" "$tool ${misuse%%:*}: \"$tool: error: ${misuse#*:}\", the hint, exit 2"
	done
	run rag "$tool" --ver </dev/null
	like "$RC:$(cat "$ERR")" "^2:$tool: error: option --ver is ambiguous \\(.*--verbose, --version\\)" \
		"$tool --ver: ambiguous, naming the candidates"

	if printf '%s\n' "$help" | grep -qx -e "--judge"; then
		run rag "$tool" --judge no-such-judge </dev/null
		is "$RC" 2 "$tool: a bad --judge value exits 2"
		like "$(cat "$ERR")" "no-such-judge" "$tool: the message names the bad value"
		# the judge options, where a tool has them, are those of rag.7 JUDGE OPTIONS
		jopts=$(man_section "$TOP/share/man/man7/rag.7" "JUDGE OPTIONS" | longopts)
		printf '%s\n' "$help" >"$T/helpset.$tool"
		is "$(printf '%s\n' "$jopts" | LC_ALL=C comm -23 - "$T/helpset.$tool" | tr '\n' ' ')" "" \
			"$tool: takes every option of rag.7 JUDGE OPTIONS"
	fi

	# the manual page
	if [ ! -f "$man" ]; then
		tap_ok 1 "$tool.1 exists"
		continue
	fi
	same "$help" "$(man_section "$man" SYNOPSIS | longopts)" "$tool: --help and $tool.1 SYNOPSIS name the same long options"
	same "$help" "$(man_section "$man" OPTIONS | longopts)" "$tool: --help and $tool.1 OPTIONS name the same long options"

	# the completions
	same "$help" "$(bash_complete "$tool" -- | longopts)" "$tool: --help and the bash completion name the same long options"
	same "$help" "$(zsh_opts "$tool")" "$tool: --help and the zsh completion name the same long options"
	same "$help" "$(fish_file_opts "$tool")" "$tool: --help and ragpipe.fish name the same long options"
	if command -v fish >/dev/null 2>&1; then
		same "$help" "$(fish_opts "$tool")" "$tool: --help and the fish completion name the same long options"
	else
		skip_missing fish "$tool: the options fish completes"
	fi
	# what each option takes: the table (--list-options) is the truth, the rest its copies
	table_kinds "$tool" >"$T/kinds.$tool"
	kinds=$(cat "$T/kinds.$tool")
	is "$(awk '{ print $1 }' "$T/kinds.$tool" | grep -e '^--' | LC_ALL=C sort -u)" "$help" \
		"$tool: --list-options names the options of --help"
	same "$(arg_only <"$T/kinds.$tool")" "$(man_synopsis_kinds "$man")" \
		"$tool: $tool.1 SYNOPSIS says which options take an argument, as the table does"
	man_synopsis_values "$man" >"$T/mvals.$tool"
	same "$(awk 'NR == FNR { shown[$1]; next } $1 in shown' "$T/mvals.$tool" "$T/kinds.$tool")" \
		"$(cat "$T/mvals.$tool")" "$tool: the value lists of $tool.1 SYNOPSIS are those of the table"
	same "$(table_args "$tool")" "$(man_option_args "$man")" \
		"$tool: $tool.1 OPTIONS names each option's argument as the table does"
	same "$kinds" "$(bash_kinds "$tool")" "$tool: the bash completion completes each option's argument as the table says"
	same "$kinds" "$(zsh_kinds "$tool")" "$tool: the zsh completion completes each option's argument as the table says"
	same "$kinds" "$(fish_kinds "$tool")" "$tool: the fish completion completes each option's argument as the table says"
	check "$tool: ragpipe.bash completes it" grep -Eq -e "^complete -F _ragpipe( [a-z-]+)* $tool( |\$)" "$COMP/ragpipe.bash"
	check "$tool: _ragpipe completes it" grep -Eq -e "^#compdef( [a-z-]+)* $tool( |\$)" "$COMP/_ragpipe"
	check "$tool: ragpipe.fish completes it" grep -Eq -e "^for cmd in( [a-z-]+)* $tool( |\$)" "$COMP/ragpipe.fish"

	# the values of the options that take one of a list: named on the option's --help line
	for opt in judge lang cache metric; do
		printf '%s\n' "$help" | grep -qx -e "--$opt" || continue
		line=$(grep -E -e "--$opt " "$T/help.$tool" | head -1)
		vals=$(bash_complete "$tool" "--$opt" "")
		if [ -z "$vals" ]; then
			tap_ok 1 "$tool: bash completes the values of --$opt"
			continue
		fi
		bad=
		for v in $vals; do
			printf '%s\n' "$line" | grep -qw -e "$v" || bad="$bad $v"
		done
		is "$bad" "" "$tool: bash completes --$opt with the values of its --help line"
		if command -v fish >/dev/null 2>&1; then
			fvals=$(fish --no-config -c 'source $argv[1]; complete -C "$argv[2] --$argv[3] "' \
				"$COMP/ragpipe.fish" "$tool" "$opt" | cut -f1 | LC_ALL=C sort)
			is "$fvals" "$(printf '%s\n' $vals | LC_ALL=C sort)" "$tool: fish completes --$opt with the same values as bash"
		else
			skip_missing fish "$tool: the values fish completes for --$opt"
		fi
	done

	# options every tool shares
	if [ -z "$shared" ]; then
		shared=$help
	else
		shared=$(printf '%s\n' "$help" | LC_ALL=C comm -12 - "$T/shared")
	fi
	printf '%s\n' "$shared" >"$T/shared"
done

# (judge options are checked per tool above; the rest every tool shares)
man_section "$TOP/share/man/man7/rag.7" "JUDGE OPTIONS" | longopts >"$T/judgeopts"
same "$(printf '%s\n' "$shared" | LC_ALL=C comm -23 - "$T/judgeopts")" \
	"$(man_section "$TOP/share/man/man7/rag.7" OPTIONS | longopts)" \
	"the options every tool shares are those of rag.7 OPTIONS"

# The shared and judge options take in rag.7 what they take in the tables (rag-verify has both).
same "$( (table_args rag-verify judge; table_args rag-verify shared) | LC_ALL=C sort -u)" \
	"$(man_option_args "$TOP/share/man/man7/rag.7" OPTIONS "JUDGE OPTIONS")" \
	"rag.7 OPTIONS and JUDGE OPTIONS name each option's argument as the tables do"

# "cannot open FILE" is one exit status, 2, in every tool, for every file it is told to open.
for tool in $TOOLS; do
	run rag "$tool" -c "$T/missing.yaml" </dev/null
	like "$RC:$(cat "$ERR")" "^2:$tool: error: cannot open \"$T/missing.yaml\": " "$tool -c MISSING: exit 2, cannot open"
done
printf '{"id":"a","scores":{"faithfulness":1}}\n' >"$T/run.jsonl"
: >"$T/empty"
for cmd in "rag-gate -t faithfulness=1 MISSING" "rag-gate -t faithfulness=1 -b MISSING $T/run.jsonl" \
	"rag-gate -t faithfulness=1 -o NODIR $T/run.jsonl" "rag-gate -t faithfulness=1 --junit NODIR $T/run.jsonl" "rag-report MISSING" "rag-report $T/run.jsonl MISSING" \
	"rag-report -b MISSING $T/run.jsonl" "rag-report -o NODIR $T/run.jsonl" \
	"rag-ap --trec MISSING $T/empty" "rag-ap --trec $T/empty MISSING"; do
	file=$T/missing.jsonl
	case $cmd in *NODIR*) file=$T/no-such-dir/out ;; esac
	# shellcheck disable=SC2086
	run rag $(printf '%s\n' "$cmd" | sed -e "s|MISSING|$file|" -e "s|NODIR|$file|") </dev/null
	like "$RC:$(cat "$ERR")" "^2:${cmd%% *}: error: cannot open \"$file\": " "$cmd: exit 2, cannot open"
done

# ---------------------------------------------------------------- the makers
V=$(cat "$TOP/VERSION")
# what make built is what the makers make from the tools as they are now
mkdir -p "$T/made/comp"
sh "$TOP/mk/completions.sh" "$BIN" "$T/made/comp"
for f in ragpipe.bash _ragpipe ragpipe.fish; do
	check "completions/$f is what mk/completions.sh makes from the tools now" cmp -s "$T/made/comp/$f" "$COMP/$f"
done
# the pages' lists of the registry's metric tools, as make gives them (obj/gen/metrics.tsv)
"$BIN/rag-eval" --list-metrics >"$T/metrics"
for tool in $TOOLS; do
	"$BIN/$tool" --list-options >"$T/list.$tool"
	RAG_MAN_METRICS=$T/metrics sh "$TOP/mk/man.sh" "$V" "$TOP/share/man/options.man" "$TOP/share/man/man1/$tool.1.in" "$T/list.$tool" >"$T/made/$tool.1"
	check "$tool.1 is what mk/man.sh makes from $tool.1.in and the table now" cmp -s "$T/made/$tool.1" "$TOP/share/man/man1/$tool.1"
	# no source writes an option's tag by hand: every .TP of OPTIONS names no option of the table
	hand=$(man_section "$TOP/share/man/man1/$tool.1.in" OPTIONS | awk 'prev == ".TP" && /^\.B[IR]? +-/ { print } { prev = $1 }' | longopts)
	is "$(printf '%s\n' "$hand" | LC_ALL=C comm -12 - "$T/helpset.$tool" 2>/dev/null | tr '\n' ' ')" "" \
		"$tool.1.in writes no option's tag by hand (mk/man.sh makes them)"
done
# share/man/options.man has a text for each shared and judge option, and for nothing else
is "$(sed -n 's/^\.\\" @option /--/p' "$TOP/share/man/options.man" | LC_ALL=C sort)" \
	"$("$BIN/rag-verify" --list-options | awk -F '\t' '$6 != "tool" { print $1 }' | LC_ALL=C sort)" \
	"options.man describes the shared and judge options, and only those"

# mk/man.sh refuses a page that leaves an option of the table undescribed, or describes one the
# tool does not have, naming it
src=$TOP/share/man/man1/rag-claims.1.in
awk '/^\.\\" @option max-claims/ { skip = 1; next } skip && /^\.(\\" @|S[HS])/ { skip = 0 } !skip' "$src" >"$T/nodesc.1.in"
run sh "$TOP/mk/man.sh" "$V" "$TOP/share/man/options.man" "$T/nodesc.1.in" "$T/list.rag-claims" rag-claims
is "$RC" 0 "mk/man.sh for another tool's page (rag(7)) asks no text of the tool's own options"
cp "$T/nodesc.1.in" "$T/rag-claims.1.in"
run sh "$TOP/mk/man.sh" "$V" "$TOP/share/man/options.man" "$T/rag-claims.1.in" "$T/list.rag-claims"
like "$RC:$(cat "$ERR")" "^1:.*no @option --max-claims" "mk/man.sh: a page source without --max-claims's text fails, naming it"
{ cat "$src"; printf '.SH MORE\n.\\" @option no-such-option\nText.\n'; } >"$T/rag-claims.1.in"
run sh "$TOP/mk/man.sh" "$V" "$TOP/share/man/options.man" "$T/rag-claims.1.in" "$T/list.rag-claims"
like "$RC:$(cat "$ERR")" "^1:.*@option --no-such-option: rag-claims has no such option" \
	"mk/man.sh: a text for an option the tool does not have fails, naming it"
# every page make built carries the version, and no marker is left in one
is "$(grep -l -e '@VERSION@' -e '@TOOL@' -e '^\.\\" @' "$TOP"/share/man/man[1-9]/*.[1-9] | tr '\n' ' ')" "" \
	"no built page holds @VERSION@, @TOOL@ or a marker"
is "$(grep -L "^\.TH .*\"ragpipe $V\"" "$TOP"/share/man/man[1-9]/*.[1-9] | tr '\n' ' ')" "" "every built page's .TH names ragpipe $V"

# The pages format cleanly (groff without preconv: non-ASCII text must be \[uXXXX]).
if command -v groff >/dev/null 2>&1; then
	for page in "$TOP"/share/man/man1/*.1 "$TOP"/share/man/man5/*.5 "$TOP"/share/man/man7/*.7; do
		[ -f "$page" ] || continue
		run groff -man -Tutf8 -ww -z "$page"
		is "$RC:$(cat "$ERR")" "0:" "groff formats ${page#"$TOP"/} without a warning"
		# man in the C locale (a minimal root, a container) formats for -Tascii, where Chinese
		# and Greek have no glyph: still no warning, and a page with Chinese says how to read it
		run env LC_ALL=C groff -man -Tascii -ww "$page"
		is "$RC:$(cat "$ERR")" "0:" "in the C locale (-Tascii) too"
		if grep -q '\\\[u[2-9][0-9A-F][0-9A-F][0-9A-F]\]' "$page"; then
			like "$(cat "$OUT")" "Chinese examples are left out here: read it in a UTF-8" \
				"...where it says how to read its Chinese examples"
			unlike "$(groff -man -Tutf8 "$page" 2>/dev/null)" "examples are left out" "...which a UTF-8 device shows"
		fi
	done
else
	skip_missing groff
fi

# The completion files parse.
check "ragpipe.bash parses" bash -n "$COMP/ragpipe.bash"
if command -v zsh >/dev/null 2>&1; then
	check "_ragpipe parses" zsh -n "$COMP/_ragpipe"
else
	skip_missing zsh
fi
if command -v fish >/dev/null 2>&1; then
	check "ragpipe.fish parses" fish --no-config -n "$COMP/ragpipe.fish"
else
	skip_missing fish
fi

done_testing
