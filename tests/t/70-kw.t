#!/bin/sh
# 70-kw.t - rag-kw: lexical metrics, no model.
#
# The real binary against the reference numbers (tests/fixtures/rouge: the official ROUGE-1.5.5
# values listed by google-research's rouge_score tests; tests/fixtures/sacrebleu: sacrebleu's
# sentence BLEU and chrF cases; tests/unit/t-lexical.c checks every vector through the library),
# then Chinese keyword overlap on hand-made cases, the options, the kw section of the
# configuration and the records that cannot be scored.
. "$(dirname "$0")/lib.sh"

need jq
[ -x "$BIN/rag-kw" ] || bail_out "bin/rag-kw is not built: run make"
RG=$FIXTURES/rouge
SB=$FIXTURES/sacrebleu/vectors.json

# ---------------------------------------------------------------- ROUGE-1.5.5
# records: line k of prediction.txt (the answer) against line k of target.txt, as rouge_score
# reads them (readlines: the newline kept); and the multi-line files for rougeLsum
{
	for k in 0 1; do
		jq -n -c --rawfile p "$RG/prediction.txt" --rawfile t "$RG/target.txt" --argjson k "$k" \
			'{line: $k, answer: ($p | split("\n")[$k] + "\n"), reference: ($t | split("\n")[$k] + "\n")}'
	done
	jq -n -c --rawfile p "$RG/pyrouge_files/prediction_multi.0.txt" --rawfile t "$RG/pyrouge_files/target_multi.0.txt" \
		'{line: null, answer: $p, reference: $t}'
} >"$T/rouge.jsonl"
run rag rag-kw -q --precision-recall -m rouge1,rouge2,rougeL <"$T/rouge.jsonl"
cp "$OUT" "$T/plain.jsonl"
run rag rag-kw -q --precision-recall --stem -m rouge1,rougeLsum <"$T/rouge.jsonl"
cp "$OUT" "$T/stem.jsonl"
is "$RC" 0 "ROUGE on the test files: exit 0"
# each expected value against ours: "agreeing of total"
res=$(jq -r -n --slurpfile e "$RG/expected.json" --slurpfile plain "$T/plain.jsonl" --slurpfile stem "$T/stem.jsonl" '
	[$e[0].rouge155_cases[] as $c
	 | (if $c.stem then $stem else $plain end) as $recs
	 | ($recs | map(select(.line == $c.line)) | .[0].scores) as $s
	 | ["precision", "recall", "fmeasure"][] as $w
	 | ($s[$c.type + (if $w == "fmeasure" then "" else "_" + $w end)]) as $got
	 | (($got - $c[$w]) | fabs) <= 0.000005]
	| "\(map(select(.)) | length) of \(length)"')
is "$res" "27 of 27" "ROUGE: 27 of 27 official ROUGE-1.5.5 values (rouge1/2/L, stemmed, rougeLsum on multi-line files) within 5e-6, their 5 decimals"

# ---------------------------------------------------------------- sacrebleu
# sentence BLEU of SYS against REF for each (smoothing, tokenizer) case, and sentence chrF
jq -c '."test_sentence_bleu.py" as $s | $s.test_cases[] | select(.[3] != "intl")
	| {answer: $s.SYS, reference: $s.REF, smooth: .[0], value: .[1], lower: .[2], tok: .[3], want: .[4]}' "$SB" >"$T/bleu.cases"
agree=0 total=0
while IFS= read -r c; do
	sm=$(printf '%s' "$c" | jq -r .smooth) tok=$(printf '%s' "$c" | jq -r .tok) lower=$(printf '%s' "$c" | jq -r .lower)
	# rag-kw has sacrebleu's default smoothing values only: skip the cases of other values
	val=$(printf '%s' "$c" | jq -r .value)
	case "$sm:$val" in floor:null|floor:0.1|add-k:null|add-k:1|exp:*|none:*) ;; *) continue ;; esac
	set -- -q -m bleu --smooth "$sm" --tokenize "$tok"
	[ "$lower" = true ] && set -- "$@" --lowercase
	got=$(printf '%s\n' "$c" | rag rag-kw "$@" | jq -r '(.scores.bleu * 100 - .want) | fabs < 0.001')
	total=$((total + 1))
	[ "$got" = true ] && agree=$((agree + 1))
done <"$T/bleu.cases"
is "$agree of $total" "9 of 9" "sentence BLEU: 9 of 9 sacrebleu cases (default smoothing values; 13a, none, char, lowercase) within 0.001 of 100"
jq -c '."test_chrf.py".test_sentence_level_chrf[] | {answer: .[0], reference: .[1][0], want: .[2]}' "$SB" >"$T/chrf.jsonl"
run rag rag-kw -q -m chrf <"$T/chrf.jsonl"
# these are sentence_chrf with eps_smoothing, which rag-kw does not use (sacrebleu's default
# averages over the effective orders): within 0.5 of it here, not the same number
is "$(jq -s -r 'map((.scores.chrf * 100 - .want) | fabs < 0.5) | map(select(.)) | length' "$OUT")" 3 \
	"chrF: 3 Czech sentences near sacrebleu's values (its eps smoothing variant; t-lexical.c checks the exact ones)"

# ---------------------------------------------------------------- Chinese keywords
ref=签收后7天内可以无理由退货
cat >"$T/zh.jsonl" <<JSONL
{"id":"same","answer":"$ref","reference":"$ref"}
{"id":"reworded","answer":"收到商品7天内支持无理由退货。","reference":"$ref"}
{"id":"part","answer":"本店支持退货。","reference":"$ref"}
{"id":"none","answer":"运费由买家承担。","reference":"$ref"}
{"id":"fullwidth","answer":"签收后７天内可无理由退货","reference":"$ref"}
JSONL
run rag rag-kw -q <"$T/zh.jsonl"
is "$RC" 0 "Chinese keyword overlap: exit 0"
is "$(jq -r .id "$OUT" | tr '\n' ' ')" "same reworded part none fullwidth " "one line out per line in, in order"
is "$(jq -c .keywords.found "$OUT" | head -1)" '["签","收","7","天内","无","理由","退","货"]' \
	"the reference's keywords are ICU's words (天内, 理由), and the characters it leaves single (签 收, 退 货); 可以 and 后 are stop words"
is "$(jq -r '.scores.keyword_overlap' "$OUT" | tr '\n' ' ')" "1 0.875 0.25 0 1 " \
	"keyword_overlap: 8/8, 7/8 (签 missed), 2/8, 0/8; full-width 7 is 7"
is "$(jq -c '.keywords.missed' "$OUT" | sed -n 2p)" '["签"]' "keywords.missed names what the answer lacks"
is "$(jq -r '.verdicts.keyword_overlap[0].verdict' "$OUT" | tr '\n' ' ')" "true true false false true " \
	"verdicts.keyword_overlap: true at 0.3 or more"
like "$(jq -r '.verdicts.keyword_overlap[0].reason' "$OUT" | sed -n 3p)" '^2 of 8 keywords of the reference found \(25%, below 30%\)$' \
	"the verdict's reason counts the keywords"
run rag rag-kw -q --threshold 0.9 <"$T/zh.jsonl"
is "$(jq -r '.verdicts.keyword_overlap[0].verdict' "$OUT" | tr '\n' ' ')" "true false false false true " "--threshold 0.9"
printf 'kw:\n  threshold: 0.1\n' >"$T/kw.yaml"
run rag rag-kw -q -c "$T/kw.yaml" <"$T/zh.jsonl"
is "$(jq -r '.verdicts.keyword_overlap[0].verdict' "$OUT" | tr '\n' ' ')" "true true true false true " "kw.threshold from the configuration"
run rag rag-kw -q -c "$T/kw.yaml" --threshold 0.9 <"$T/zh.jsonl"
is "$(jq -r '.verdicts.keyword_overlap[0].threshold' "$OUT" | head -1)" 0.9 "--threshold wins over kw.threshold"
# ICU segments 退货运费 as 退|货运|费: a correct paraphrase without 货运 (退货的运费) was 4 of 5
# (0.8; 0.44 in longer texts). A Chinese keyword the answer lacks now counts for the share of its
# characters the answer holds in a bigram with their neighbour in the reference: 货 in 退货,
# 运 in 运费. By hand: 退, 货运 (both covered), 费, 买, 家, 承担 = 6 of 6; and for 退回商品的
# 运费由买家支付, 货运 counts 1/2 (运 in 运费; no 退货 or 货运), 承担 0: 4.5 of 6.
{
	echo '{"id":"para","answer":"买家需要承担退货的运费。","reference":"退货运费由买家承担。"}'
	echo '{"id":"half","answer":"退回商品的运费由买家支付。","reference":"退货运费由买家承担。"}'
} >"$T/fee.jsonl"
run rag rag-kw -q <"$T/fee.jsonl"
is "$(jq -c '[.id, .scores.keyword_overlap, .keywords.found]' "$OUT" | head -1)" '["para",1,["退","货运","费","买","家","承担"]]' \
	"退货运费 paraphrased as 退货的运费: every keyword found (货运 by 退货 and 运费)"
is "$(jq -c '[.scores.keyword_overlap, .keywords.partly, .keywords.missed]' "$OUT" | sed -n 2p)" '[0.75,[{"keyword":"货运","share":0.5}],["承担"]]' \
	"a keyword found in part: keywords.partly with its share"
like "$(jq -r '.verdicts.keyword_overlap[0].reason' "$OUT" | sed -n 2p)" '^4\.5 of 6 keywords of the reference found \(75%' \
	"...and the reason counts it"

# English keywords: stemmed, stop words dropped, numbers canonical
echo '{"answer":"Einstein was born in Germany on 20th March 1879.","reference":"Einstein was born in Ulm, Germany, on 14 March 1879."}' >"$T/en.jsonl"
run rag rag-kw -q <"$T/en.jsonl"
is "$(jq -c '[.scores.keyword_overlap, .keywords.missed]' "$OUT")" '[0.7142857142857143,["ulm","14"]]' \
	"English keywords: 5 of 7 (ulm and 14 missed; 20th is 20, not 14)"

# ---------------------------------------------------------------- the other metrics
echo '{"response":"The cat sat on the mat.","ground_truth":"the cat sat on the mat"}' >"$T/em.jsonl"
run rag rag-kw -q -m exact_match,token_f1,levenshtein,rouge1,rougeL,bleu,chrf <"$T/em.jsonl"
is "$(jq -c '.scores | [.exact_match, .token_f1, .rouge1, .rougeL]' "$OUT")" '[1,1,1,1]' \
	"RAGAS names (response, ground_truth); exact match and token F1 ignore case and punctuation"
is "$(jq -r '.scores | [.levenshtein, .bleu, .chrf] | map(. > 0 and . <= 1) | all' "$OUT")" true "levenshtein, bleu and chrf in (0, 1]"
is "$(jq -r '.scores.levenshtein' "$OUT")" 0.9565217391304348 "levenshtein: 1 - 1/23 (the final period)"

cat >"$T/contains.jsonl" <<'JSONL'
{"id":1,"answer":"Returns are free within 7 days.","must_contain":["7 days","30 days"]}
{"id":2,"answer":"Returns are free within 7 days.","must_contain":["7 DAYS","free"],"must_not_contain":"not"}
{"id":3,"answer":"Returns are not free.","must_contain":["free"],"must_not_contain":["not"]}
{"id":4,"answer":"Order #12345 shipped.","must_match":["#[0-9]{5}","^Order"],"must_not_match":"refund"}
{"id":5,"answer":"Order shipped.","must_match":"#[0-9]{5}"}
JSONL
run rag rag-kw -q -m contains,contains_all,regex <"$T/contains.jsonl"
is "$(jq -c '[.scores.contains, .scores.contains_all]' "$OUT" | head -3 | tr '\n' ' ')" "[1,0] [1,1] [0,0] " \
	"contains: any of must_contain; contains_all: every one; must_not_contain fails both; no reference needed"
is "$(jq -c '.scores.regex' "$OUT" | sed -n '4,5p' | tr '\n' ' ')" "1 0 " "regex: every must_match, no must_not_match"
is "$RC" 3 "a record without a list for a metric: exit 3"
is "$(jq -r '.errors[0].message' "$OUT" | sed -n 1p)" "no must_match or must_not_match in the record or the configuration" \
	"...and the error names the lists"
printf 'kw:\n  must_contain: [7天]\n  must_not_contain: 不支持\n' >"$T/list.yaml"
run rag rag-kw -q -c "$T/list.yaml" -m contains_all <"$T/zh.jsonl"
is "$(jq -r '.scores.contains_all' "$OUT" | tr '\n' ' ')" "1 1 0 0 1 " "kw.must_contain and kw.must_not_contain from the configuration"
echo '{"answer":"x","must_match":"("}' | rag rag-kw -q -m regex >"$OUT" 2>"$ERR"
like "$(jq -r '.errors[0].message' "$OUT")" '^bad regular expression "\(": ' "a bad pattern is an input error"

# ---------------------------------------------------------------- missing fields
printf '%s\n' '{"id":"a","answer":"签收后退货"}' '{"id":"b","reference":"x"}' '{"id":"c","answer":3,"reference":"x"}' '{"id":"d","answer":"x","reference":"的了"}' >"$T/bad.jsonl"
run rag rag-kw -m keyword_overlap,rouge1 <"$T/bad.jsonl"
is "$RC" 3 "records that cannot be scored: exit 3"
is "$(jq -c '[.scores.keyword_overlap, .scores.rouge1, .errors[0].message]' "$OUT" | tr '\n' ' ')" \
	'[null,null,null] [null,null,"record has no \"answer\" field"] [null,null,"field \"answer\" is number, not a string"] [null,0,"reference has no keywords"] ' \
	"null with an error naming why: no answer, not a string, no keywords; no reference is no error"
is "$(jq -c 'select(.id == "a") | .not_applicable' "$OUT")" '{"keyword_overlap":"no reference answer","rouge1":"no reference answer"}' \
	"no reference: keyword_overlap and rouge1 not applicable (rag(7)), with the reason"
like "$(cat "$ERR")" 'rag-kw: error \(at <stdin>:2\): record has no "answer" field' "the error is on stderr with its position"
like "$(cat "$ERR")" 'rag-kw: 4 records, 3 input errors, 1 not applicable' "the summary counts the record without a reference apart"
printf '%s\n' '{"id":"n","answer":"x","reference":7}' | rag rag-kw -q -m rouge1 >"$OUT" 2>"$ERR"
is "$?:$(jq -c '[.scores.rouge1, .errors[0].message, .not_applicable]' "$OUT")" '3:[null,"field \"reference\" is number, not a string",null]' \
	"a reference that is a number is still an input error"

# ---------------------------------------------------------------- options
run rag rag-kw -m rouge3 </dev/null
is "$RC" 2 "an unknown metric is a usage error"
like "$(cat "$ERR")" 'unknown metric "rouge3"' "...naming it"
run rag rag-kw --tokenize intl </dev/null
is "$RC" 2 "--tokenize intl (not implemented) is a usage error"
run rag rag-kw --threshold 2 </dev/null
is "$RC" 2 "--threshold above 1 is a usage error"
printf 'kw:\n  threshold: 3\n' >"$T/bad.yaml"
run rag rag-kw -c "$T/bad.yaml" </dev/null
is "$RC" 2 "kw.threshold above 1 is a configuration error"
echo '{"answer":"签收后7天内退货","reference":"签收后7天内可以无理由退货"}' >"$T/b.jsonl"
run rag rag-kw -q -m bleu --tokenize 13a <"$T/b.jsonl"
is "$(jq -r .scores.bleu "$OUT")" 0 "BLEU with 13a: an unspaced Chinese sentence is one token"
run rag rag-kw -q -m bleu --tokenize zh <"$T/b.jsonl"
like "$(jq -r .scores.bleu "$OUT")" '^0\.[1-9]' "--tokenize zh: Chinese characters are tokens"
ZH_BLEU=$(jq -r .scores.bleu "$OUT")
# the default, auto: per record, by its lang field, else by its script
run rag rag-kw -q -m bleu <"$T/b.jsonl"
is "$(jq -r .scores.bleu "$OUT")" "$ZH_BLEU" "BLEU by default on Chinese text: what --tokenize zh gives"
{
	echo '{"id":"zh","answer":"退货运费由买家承担","reference":"退货运费由卖家承担"}'
	echo '{"id":"en","answer":"The cat sat on the mat.","reference":"The cat sat on a mat."}'
	echo '{"id":"zh-as-en","lang":"en","answer":"退货运费由买家承担","reference":"退货运费由卖家承担"}'
	echo '{"id":"zh-by-lang","lang":"zh-CN","answer":"A B C D","reference":"A B C D"}'
} >"$T/mixed.jsonl"
run rag rag-kw -q -m bleu <"$T/mixed.jsonl"
AUTO=$(jq -c '[.id, .scores.bleu]' "$OUT" | tr '\n' ' ')
# by hand for zh: 8 of 9 characters, 6 of 8 bigrams, 4 of 7 trigrams, 2 of 6 four-grams, same length
is "$(jq -r 'select(.id == "zh") | .scores.bleu * 1e6 | round' "$OUT")" \
	"$(awk 'BEGIN { printf "%d", exp(log(8/9 * 6/8 * 4/7 * 2/6) / 4) * 1e6 + 0.5 }')" "auto, a Chinese record: BLEU by hand (0.597)"
run rag rag-kw -q -m bleu --tokenize zh <"$T/mixed.jsonl"
ZH=$(jq -c 'select(.id == "zh" or .id == "zh-by-lang") | [.id, .scores.bleu]' "$OUT" | tr '\n' ' ')
run rag rag-kw -q -m bleu --tokenize 13a <"$T/mixed.jsonl"
EN=$(jq -c 'select(.id == "en" or .id == "zh-as-en") | [.id, .scores.bleu]' "$OUT" | tr '\n' ' ')
is "$AUTO" "$(printf '%s\n' $ZH $EN | jq -sc 'sort_by(.[0] | {"zh":0,"en":1,"zh-as-en":2,"zh-by-lang":3}[.]) | .[]' | tr '\n' ' ')" \
	"auto on a mixed set: zh's tokens for Chinese text and lang zh-CN, 13a for English and lang en"
run rag rag-kw --tokenize auto -q -m bleu <"$T/b.jsonl"
is "$RC,$(jq -r .scores.bleu "$OUT")" "0,$ZH_BLEU" "--tokenize auto is accepted"
run rag rag-kw -q -m rouge2 --precision-recall <"$T/b.jsonl"
is "$(jq -c '.scores | keys' "$OUT")" '["rouge2","rouge2_precision","rouge2_recall"]' "--precision-recall adds _precision and _recall"

done_testing
