# bash completion for the ragpipe tools                         -*- shell-script -*-
#
# One file for every rag-* tool; `make install` copies it once per tool name into
# share/bash-completion/completions/.  The option lists must say the same as each tool's
# --help and manual page: tests/t/90-options.t checks it.

_ragpipe()
{
	local cur prev tool opts
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
	tool=${COMP_WORDS[0]##*/}

	# --opt=value: bash splits the word at '=' (COMP_WORDBREAKS).
	if [ "$cur" = "=" ] && [[ $prev == --* ]]; then
		cur=
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
		prev=${COMP_WORDS[COMP_CWORD-2]}
	fi

	# rag-ap's option values (its --from and --threshold differ from the other tools')
	if [ "$tool" = rag-ap ]; then
		case $prev in
		--from)
			COMPREPLY=($(compgen -W 'auto verdicts ids similarity' -- "$cur"))
			return 0 ;;
		--verdicts)
			COMPREPLY=($(compgen -W 'context_precision context_utilization' -- "$cur"))
			return 0 ;;
		-m|--metrics)
			COMPREPLY=($(compgen -W 'ap map p@5 p@10 recall@5 recall@10 hit@1 hit@3 mrr ndcg@10 rprec' -- "$cur"))
			return 0 ;;
		--trec)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return 0 ;;
		--threshold|--level)
			return 0 ;;
		esac
	fi

	# rag-gen's chunks file (rag-verify's --chunks takes no argument)
	if [ "$tool" = rag-gen ] && { [ "$prev" = --chunks ] || [ "$prev" = --review ] || [ "$prev" = --apply-review ] || [ "$prev" = --check ]; }; then
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0
	fi

	# rag-judge's rubrics (a comma-separated list: the last name is completed)
	if [ "$tool" = rag-judge ] && [ "$prev" = --rubric ]; then
		local done=
		[[ $cur == *,* ]] && done=${cur%,*},
		COMPREPLY=($(compgen -P "$done" -W 'correctness relevance completeness groundedness_0_10 consistent' -- "${cur##*,}"))
		return 0
	fi

	# rag-kw's option values (its --from, --against and --threshold are its own)
	if [ "$tool" = rag-kw ]; then
		case $prev in
		-m|--metrics)
			COMPREPLY=($(compgen -W 'keyword_overlap token_f1 exact_match contains contains_all regex levenshtein rouge1 rouge2 rougeL rougeLsum bleu chrf refusal' -- "$cur"))
			return 0 ;;
		--from)
			COMPREPLY=($(compgen -W 'answer response reference question' -- "$cur"))
			return 0 ;;
		--against)
			COMPREPLY=($(compgen -W 'reference ground_truth answer' -- "$cur"))
			return 0 ;;
		--tokenize)
			COMPREPLY=($(compgen -W 'auto 13a none zh char' -- "$cur"))
			return 0 ;;
		--smooth)
			COMPREPLY=($(compgen -W 'exp none floor add-k' -- "$cur"))
			return 0 ;;
		--threshold)
			return 0 ;;
		esac
	fi

	# rag-agree's option values (its -t, -l and -L are its own)
	if [ "$tool" = rag-agree ]; then
		case $prev in
		-L|--labels|--sheet)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return 0 ;;
		--optimise)
			COMPREPLY=($(compgen -W 'f1 accuracy youden' -- "$cur"))
			return 0 ;;
		-f|--field|-l|--label|--id|--scale|-t|--threshold|--seed|--resamples|--confidence|--sample)
			return 0 ;;
		esac
	fi

	# rag-store's option values: free text
	if [ "$tool" = rag-store ]; then
		case $prev in
		--store|--label|--testset|--run-id|--commit|--name|--since|--until|--system|--limit)
			return 0 ;;
		esac
	fi

	# rag-collect's option values
	if [ "$tool" = rag-collect ]; then
		case $prev in
		-X|--method)
			COMPREPLY=($(compgen -W 'POST GET PUT PATCH' -- "$cur"))
			return 0 ;;
		--stream)
			COMPREPLY=($(compgen -W 'auto true false' -- "$cur"))
			return 0 ;;
		--url|--command|-H|--header|--body|--answer|--contexts|--ids|--system|--system-from|--timeout|--retries)
			return 0 ;;
		esac
	fi

	# rag-eval's option values
	if [ "$tool" = rag-eval ]; then
		case $prev in
		--format)
			COMPREPLY=($(compgen -W 'auto json csv' -- "$cur"))
			return 0 ;;
		--resume|--bin|--skip-done|-o|--output|-b|--baseline)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return 0 ;;
		-m|--metrics|--run-id|--label|-j|--concurrency|--jobs|--sshlogin|--store|--field|--sample)
			return 0 ;;
		esac
	fi

	case $prev in
	-c|--config)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	--judge)
		COMPREPLY=($(compgen -W 'offline openai' -- "$cur"))
		return 0 ;;
	--lang)
		COMPREPLY=($(compgen -W 'auto en zh' -- "$cur"))
		return 0 ;;
	--cache)
		COMPREPLY=($(compgen -W 'rw ro replay off' -- "$cur"))
		return 0 ;;
	--metric)
		COMPREPLY=($(compgen -W 'faithfulness context_recall context_precision context_utilization answer_correctness' -- "$cur"))
		return 0 ;;
	--mode)
		COMPREPLY=($(compgen -W 'batched claim claim_chunk' -- "$cur"))
		return 0 ;;
	--generations)
		COMPREPLY=($(compgen -W 'list n requests' -- "$cur"))
		return 0 ;;
	--embedder)
		COMPREPLY=($(compgen -W 'offline openai' -- "$cur"))
		return 0 ;;
	--from)
		COMPREPLY=($(compgen -W 'answer reference question response user_input' -- "$cur"))
		return 0 ;;
	--claims)
		COMPREPLY=($(compgen -W 'answer reference' -- "$cur"))
		return 0 ;;
	--pair)
		COMPREPLY=($(compgen -W 'answer,reference' -- "$cur"))
		return 0 ;;
	-b|--baseline|--junit|-o|--output|--history)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	-t|--threshold|-r|--record-threshold|--min-pass-rate|--max-error-rate|--regression|--seed|\
	--resamples|--confidence|--worst|--title|--pass|--by|--metrics)
		return 0 ;;
	--model|--base-url|-j|--concurrency|--max-line|--max-memory|-n|--max-claims|--batch-claims|--batch-chars|\
	--n|--score|--dimensions|--batch-size|--repeat|--weights|--per-chunk|--chunk-chars|--category|--dedup|--unanswerable|--noisy|--multi-hop|--follow-up)
		return 0 ;;
	esac

	# shared by every tool
	opts='-c --config --strict --unbuffered --max-line --max-memory -q --quiet -v --verbose -h --help -V --version'
	# shared by the tools that ask a judge
	judge='--judge --model --base-url --lang --cache -j --concurrency --estimate'
	case $tool in
	rag-claims)
		opts="$opts $judge --from -n --max-claims" ;;
	rag-verify)
		opts="$opts $judge --metric --claims --recheck --literal --batch-claims --batch-chars --chunks --mode
		      --weights --one-request" ;;
	rag-revq)
		opts="$opts $judge -n --n --generations" ;;
	rag-judge)
		opts="$opts $judge --rubric -n --repeat -t --threshold" ;;
	rag-gen)
		opts="$opts $judge -n --per-chunk --chunk-chars --chunks --category --dedup --unanswerable --noisy --multi-hop --follow-up --review --apply-review --check --json"
		# rag-gen reads files (the documents)
		if [[ $cur != -* ]]; then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return 0
		fi ;;
	rag-ap)
		opts="$opts -m --metrics --from --verdicts --threshold --level --trec"
		# the RUN file after --trec QRELS
		if [[ $cur != -* ]] && [[ " ${COMP_WORDS[*]} " == *" --trec "* ]]; then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return 0
		fi ;;
	rag-kw)
		opts="$opts -m --metrics --from --against --threshold --stem --precision-recall --tokenize
		      --smooth --lowercase" ;;
	rag-collect)
		opts="$opts --url --command -X --method -H --header --body --answer --contexts --ids --stream
		      --system --system-from --timeout --retries -j --concurrency --cache" ;;
	rag-embsim)
		opts="$opts --pair --score --embedder --model --base-url --dimensions --batch-size --cache
		      -j --concurrency --estimate" ;;
	rag-gate)
		opts="$opts -t --threshold -r --record-threshold --min-pass-rate --max-error-rate --summary-only
		      -b --baseline --regression --fail-on-regression --seed --resamples --confidence --worst --json --markdown
		      --junit -o --output --tee --pass --fail-on-flip --by --metrics --lang"
		# rag-gate also reads files
		if [[ $cur != -* ]]; then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return 0
		fi ;;
	rag-agree)
		opts="$opts -f --field -l --label -L --labels --id --scale -t --threshold --optimise --seed --resamples
		      --confidence --json --markdown --sample --sheet"
		# rag-agree reads a file (the run)
		if [[ $cur != -* ]]; then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return 0
		fi ;;
	rag-eval)
		opts="$opts -m --metrics -o --output --force --run-id --label --resume -b --baseline -j --concurrency --jobs
		      --sshlogin --format --field --bin --dry-run --estimate --sample --emit --skip-done --store"
		# rag-eval reads a file (the test set)
		if [[ $cur != -* ]]; then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return 0
		fi ;;
	rag-store)
		opts="$opts --store --label --testset --run-id --commit --name --since --until --system --limit --json"
		# the command first, then its operands: testset's own words, run directories and files
		local w n=0 sub=
		for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
			case $w in -*) ;; *) n=$((n + 1)); [ $n = 1 ] && sub=$w ;; esac
		done
		case $prev in --store|--label|--testset|--run-id|--commit|--name|--since|--until|--system|--limit) n=-1 ;; esac
		if [[ $cur != -* ]] && [ "$n" -ge 0 ]; then
			if [ "$n" = 0 ]; then
				COMPREPLY=($(compgen -W 'add list show export diff history testset info' -- "$cur"))
				return 0
			elif [ "$sub" = testset ] && [ "$n" = 1 ]; then
				COMPREPLY=($(compgen -W 'import export' -- "$cur"))
				return 0
			elif [ "$sub" = add ] || [ "$sub" = testset ]; then
				compopt -o filenames 2>/dev/null
				COMPREPLY=($(compgen -f -- "$cur"))
				return 0
			fi
		fi ;;
	rag-report)
		opts="$opts -t --threshold -r --record-threshold --min-pass-rate --max-error-rate -b --baseline
		      --worst --title --markdown -o --output --pass --fail-on-flip --by --metrics --lang --history"
		# rag-report reads files (the runs)
		if [[ $cur != -* ]]; then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return 0
		fi ;;
	esac

	# The other tools read standard input only: there are no file operands to complete.
	COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	return 0
}
complete -F _ragpipe rag-claims rag-verify rag-revq rag-embsim rag-gate rag-ap rag-report rag-kw rag-judge rag-collect rag-eval rag-agree rag-gen rag-store
