#!/bin/sh
# 90-options.t - each tool's options say the same thing everywhere they are written down.
#
# For every tool: the set of long options in `TOOL --help` equals the set in the SYNOPSIS and
# in the OPTIONS section of share/man/man1/TOOL.1, and the set the bash, zsh and fish
# completions offer for TOOL. The options every tool shares are those of rag(7)'s OPTIONS.
# The values offered for --judge, --lang, --cache, --metric are named on the option's --help
# line. And the basics of STYLE.md: --help exits 0, --version prints "TOOL (ragpipe) VERSION",
# an unknown option or a bad value exits 2 with a message on stderr and nothing on stdout.
# With groff installed, the manual pages format without a warning.
. "$(dirname "$0")/lib.sh"

# every tool the build makes: cmd/rag-*.c
TOOLS=$(cd "$TOP/cmd" && ls rag-*.c | sed 's/\.c$//' | tr '\n' ' ')
COMP=$TOP/completions
for tool in $TOOLS; do
	[ -x "$BIN/$tool" ] || bail_out "$BIN/$tool is not built: run make"
done

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

# zsh_opts TOOL: the long options in _ragpipe's shared=( ) array, in TOOL's case arm, and in the
# judge=( ) array when that arm uses it.
zsh_opts() {
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
		END { if (usejudge) printf "%s", judge }' "$COMP/_ragpipe" | longopts
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

	run rag "$tool" --version </dev/null
	is "$RC" 0 "$tool --version exits 0"
	like "$(cat "$OUT")" "^$tool \\(ragpipe\\) [0-9]+\\.[0-9]+(\\.[0-9]+)?([-+~][0-9A-Za-z.-]+)?\$" \
		"$tool --version prints \"$tool (ragpipe) VERSION\""

	run rag "$tool" --no-such-option </dev/null
	is "$RC" 2 "$tool: an unknown option exits 2"
	check "$tool: an unknown option gives a message on stderr" test -s "$ERR"
	is "$(cat "$OUT")" "" "$tool: an unknown option writes nothing to stdout"

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

# The pages format cleanly (groff without preconv: non-ASCII text must be \[uXXXX]).
if command -v groff >/dev/null 2>&1; then
	for page in "$TOP"/share/man/man1/*.1 "$TOP"/share/man/man5/*.5 "$TOP"/share/man/man7/*.7; do
		[ -f "$page" ] || continue
		run groff -man -Tutf8 -ww -z "$page"
		is "$RC:$(cat "$ERR")" "0:" "groff formats ${page#"$TOP"/} without a warning"
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
