#!/bin/sh
# completions.sh BINDIR OUTDIR - the bash, zsh and fish completions of every tool in BINDIR,
# made from the tools' own option tables (the hidden --list-options) as curl makes its
# completions from its option source: OUTDIR/ragpipe.bash, OUTDIR/_ragpipe, OUTDIR/ragpipe.fish.
# What a tool takes after its options (files, rag-store's commands) is the one thing written
# here by hand: operands() below. tests/t/90-options.t runs the three against the tables.
set -eu
bindir=${1:?usage: completions.sh BINDIR OUTDIR}
out=${2:?usage: completions.sh BINDIR OUTDIR}
tmp=$(mktemp "${TMPDIR:-/tmp}/ragpipe-comp.XXXXXX")
trap 'rm -f "$tmp"' EXIT

# every tool's options: TOOL, then --list-options' fields (name, short, arg, kind, values,
# table, help), tab-separated
tools=
for b in "$bindir"/rag-*; do
	t=${b##*/}
	tools="$tools $t"
	"$b" --list-options | sed "s/^/$t	/" >>"$tmp"
done
tools=${tools# }

# operands TOOL: what the tool takes after its options, "KIND DESCRIPTION": none (standard input
# only), file (one), files, trec (files after --trec: its qrels and run), or store (rag-store's
# command, then its operands).
operands() {
	case $1 in
	rag-gen) echo "files document" ;;
	rag-gate) echo "files records file" ;;
	rag-agree) echo "file records file" ;;
	rag-report) echo "files run file" ;;
	rag-eval) echo "files test set" ;;
	rag-ap) echo "trec run file" ;;
	rag-store) echo "store operand" ;;
	*) echo "none -" ;;
	esac
}
ops=
for t in $tools; do ops="$ops$t $(operands "$t")
"; done

gen() {
	awk -F '\t' -v shell="$1" -v tools="$tools" -v ops="$ops" '
	# q: the text in single quotes for sh, zsh and fish (fish: \x27 and \\ escaped)
	function q(s) { if (shell == "fish") { gsub(/\\/, "\\\\", s); gsub(/\x27/, "\\\x27", s); return "\x27" s "\x27" }
	                gsub(/\x27/, "\x27\\\x27\x27", s); return "\x27" s "\x27" }
	function names(i) { return (sh[i] != "-" ? sh[i] "|" : "") ln[i] }
	# a list of values typed comma-separated (NAME[,NAME...])
	function commalist(i) { return arg[i] ~ /,.*\.\.\./ }
	{
		i = ++n; tool[i] = $1; ln[i] = $2; sh[i] = $3; arg[i] = $4; kind[i] = $5; vals[i] = $6
		table[i] = $7; help[i] = $8
		if (table[i] == "judge") judged[$1] = 1
		if (table[i] != "tool" && !((table[i], ln[i]) in first)) first[table[i], ln[i]] = i
	}
	END {
		nt = split(tools, tl, " ")
		no = split(ops, ol, "\n")
		for (k = 1; k <= no; k++) {
			split(ol[k], w, " "); opkind[w[1]] = w[2]
			d = ol[k]; sub(/^[^ ]* [^ ]* /, "", d); opdesc[w[1]] = d
		}
		if (shell == "bash") bash(); else if (shell == "zsh") zsh(); else fish()
	}

	# ------------------------------------------------------------ bash
	function bash(   t, k, i, list, textopts, sep) {
		print "# bash completion for the ragpipe tools                         -*- shell-script -*-"
		print "#"
		print "# Made by mk/completions.sh from the tools\x27 option tables (--list-options); do not edit."
		print "# One file for every rag-* tool; `make install` copies it once per tool name into"
		print "# share/bash-completion/completions/."
		print ""
		print "_ragpipe_files()"
		print "{"
		print "\tcompopt -o filenames 2>/dev/null"
		print "\tCOMPREPLY=($(compgen -f -- \"$cur\"))"
		print "}"
		print ""
		print "_ragpipe()"
		print "{"
		print "\tlocal cur prev tool opts w n=0 sub= done="
		print "\tCOMPREPLY=()"
		print "\tcur=${COMP_WORDS[COMP_CWORD]}"
		print "\tprev="
		print "\t[ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}"
		print "\ttool=${COMP_WORDS[0]##*/}"
		print ""
		print "\t# --opt=value: bash splits the word at \x27=\x27 (COMP_WORDBREAKS)."
		print "\tif [ \"$cur\" = \"=\" ] && [[ $prev == --* ]]; then"
		print "\t\tcur="
		print "\telif [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -gt 1 ]; then"
		print "\t\tprev=${COMP_WORDS[COMP_CWORD-2]}"
		print "\tfi"
		print ""
		print "\tcase $tool in"
		for (k = 1; k <= nt; k++) {
			t = tl[k]
			print "\t" t ")"
			print "\t\tcase $prev in"
			textopts = ""
			for (i = 1; i <= n; i++) {
				if (tool[i] != t || kind[i] == "none") continue
				if (kind[i] == "text") { textopts = textopts (textopts == "" ? "" : "|") names(i); continue }
				printf "\t\t%s)\n", names(i)
				if (kind[i] == "file") print "\t\t\t_ragpipe_files"
				else if (commalist(i)) {
					print "\t\t\t[[ $cur == *,* ]] && done=${cur%,*},"
					printf "\t\t\tCOMPREPLY=($(compgen -P \"$done\" -W %s -- \"${cur##*,}\"))\n", q(vals[i])
				} else printf "\t\t\tCOMPREPLY=($(compgen -W %s -- \"$cur\"))\n", q(vals[i])
				print "\t\t\treturn 0 ;;"
			}
			if (textopts != "") { printf "\t\t%s)\n", textopts; print "\t\t\treturn 0 ;;" }
			print "\t\tesac"
			list = ""
			for (i = 1; i <= n; i++) if (tool[i] == t) list = list (list == "" ? "" : " ") (sh[i] != "-" ? sh[i] " " : "") ln[i]
			printf "\t\topts=%s\n", q(list)
			bash_operands(t)
			print "\t\t;;"
		}
		print "\tesac"
		print ""
		print "\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))"
		print "\treturn 0"
		print "}"
		printf "complete -F _ragpipe %s\n", tools
	}
	function bash_operands(t,   k) {
		k = opkind[t]
		if (k == "file" || k == "files") {
			print "\t\tif [[ $cur != -* ]]; then _ragpipe_files; return 0; fi"
		} else if (k == "trec") {
			print "\t\t# the qrels and run files, after --trec"
			print "\t\tif [[ $cur != -* ]] && [[ \" ${COMP_WORDS[*]} \" == *\" --trec \"* ]]; then _ragpipe_files; return 0; fi"
		} else if (k == "store") {
			print "\t\t# the command first, then its operands: testset\x27s own words, run directories and files"
			print "\t\tfor w in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do"
			print "\t\t\tcase $w in -*) ;; *) n=$((n + 1)); [ $n = 1 ] && sub=$w ;; esac"
			print "\t\tdone"
			print "\t\tif [[ $cur != -* ]]; then"
			print "\t\t\tif [ \"$n\" = 0 ]; then"
			print "\t\t\t\tCOMPREPLY=($(compgen -W \x27add add-window list show export diff history testset info\x27 -- \"$cur\"))"
			print "\t\t\t\treturn 0"
			print "\t\t\telif [ \"$sub\" = testset ] && [ \"$n\" = 1 ]; then"
			print "\t\t\t\tCOMPREPLY=($(compgen -W \x27import export\x27 -- \"$cur\"))"
			print "\t\t\t\treturn 0"
			print "\t\t\telif [ \"$sub\" = add ] || [ \"$sub\" = testset ]; then"
			print "\t\t\t\t_ragpipe_files"
			print "\t\t\t\treturn 0"
			print "\t\t\tfi"
			print "\t\tfi"
		}
	}

	# ------------------------------------------------------------ zsh
	function zspec(i,   s, excl, h, a, act) {
		h = help[i]; gsub(/\\/, "\\\\", h); gsub(/[][]/, "\\\\&", h); gsub(/:/, "\\:", h)
		if (ln[i] == "--help" || ln[i] == "--version") excl = "(- *)"
		else if (sh[i] != "-") excl = "(" sh[i] " " ln[i] ")"
		else excl = ""
		if (kind[i] == "none") {
			if (sh[i] != "-") return q(excl) "{" sh[i] "," ln[i] "}" q("[" h "]")
			return q(excl ln[i] "[" h "]")
		}
		a = tolower(arg[i]); gsub(/:/, "\\:", a)
		act = kind[i] == "file" ? "_files" : kind[i] == "values" ? "(" vals[i] ")" : " "
		if (sh[i] != "-") return q(excl) "{" sh[i] "+," ln[i] "=}" q("[" h "]:" a ":" act)
		return q(excl ln[i] "=[" h "]:" a ":" act)
	}
	function zsh(   t, k, i, line) {
		printf "#compdef %s\n", tools
		print "#"
		print "# zsh completion for the ragpipe tools; installed as site-functions/_ragpipe."
		print "# Made by mk/completions.sh from the tools\x27 option tables (--list-options); do not edit."
		print ""
		print "local -a shared judge"
		print "judge=("
		for (i = 1; i <= n; i++) if (table[i] == "judge" && first["judge", ln[i]] == i) print "\t" zspec(i)
		print ")"
		print "shared=("
		for (i = 1; i <= n; i++) if (table[i] == "shared" && first["shared", ln[i]] == i) print "\t" zspec(i)
		print ")"
		print ""
		print "case $service in"
		for (k = 1; k <= nt; k++) {
			t = tl[k]
			print "(" t ")"
			printf "\t_arguments -s -S \"${shared[@]}\"%s", judged[t] ? " \"${judge[@]}\"" : ""
			for (i = 1; i <= n; i++) if (tool[i] == t && table[i] == "tool") printf " \\\n\t\t%s", zspec(i)
			if (opkind[t] == "file") printf " \\\n\t\t%s", q(":" opdesc[t] ":_files")
			else if (opkind[t] == "files" || opkind[t] == "trec") printf " \\\n\t\t%s", q("*:" opdesc[t] ":_files")
			else if (opkind[t] == "store") printf " \\\n\t\t%s \\\n\t\t%s", q("1:command:(add add-window list show export diff history testset info)"), q("*:operand:_files")
			print ""
			print "\t;;"
		}
		print "esac"
	}

	# ------------------------------------------------------------ fish
	function fline(who, i,   s) {
		s = "complete -c " who
		if (sh[i] != "-") s = s " -s " substr(sh[i], 2)
		s = s " -l " substr(ln[i], 3)
		if (kind[i] == "file") s = s " -r -F"
		else if (kind[i] == "values") s = s " -x -a " q(vals[i])
		else if (kind[i] == "text") s = s " -x"
		return s " -d " q(toupper(substr(help[i], 1, 1)) substr(help[i], 2))
	}
	function fish(   t, k, i, list) {
		print "# fish completion for the ragpipe tools; installed as vendor_completions.d/ragpipe.fish."
		print "# Made by mk/completions.sh from the tools\x27 option tables (--list-options); do not edit."
		print ""
		print "# Options every tool shares."
		printf "for cmd in %s\n", tools
		print "    complete -c $cmd -f"
		for (i = 1; i <= n; i++) if (table[i] == "shared" && first["shared", ln[i]] == i) print "    " fline("$cmd", i)
		print "end"
		list = ""
		for (k = 1; k <= nt; k++) if (judged[tl[k]]) list = list " " tl[k]
		print ""
		print "# Options of the tools that ask a judge."
		printf "for judged in%s\n", list
		for (i = 1; i <= n; i++) if (table[i] == "judge" && first["judge", ln[i]] == i) print "    " fline("$judged", i)
		print "end"
		for (k = 1; k <= nt; k++) {
			t = tl[k]
			print ""
			print "# " t
			if (opkind[t] == "file" || opkind[t] == "files") print "complete -c " t " -F"
			else if (opkind[t] == "trec") print "complete -c " t " -n \x27__fish_contains_opt trec\x27 -F"
			else if (opkind[t] == "store") {
				print "complete -c " t " -n \x27__fish_use_subcommand\x27 -a \x27add add-window list show export diff history testset info\x27"
				print "complete -c " t " -n \x27__fish_seen_subcommand_from testset\x27 -a \x27import export\x27"
				print "complete -c " t " -n \x27__fish_seen_subcommand_from add testset\x27 -F"
			}
			for (i = 1; i <= n; i++) if (tool[i] == t && table[i] == "tool") print fline(t, i)
		}
	}
	' "$tmp"
}

mkdir -p "$out"
gen bash >"$out/ragpipe.bash.tmp" && mv "$out/ragpipe.bash.tmp" "$out/ragpipe.bash"
gen zsh >"$out/_ragpipe.tmp" && mv "$out/_ragpipe.tmp" "$out/_ragpipe"
gen fish >"$out/ragpipe.fish.tmp" && mv "$out/ragpipe.fish.tmp" "$out/ragpipe.fish"
