#!/bin/sh
# 80-fault-matrix.t - every networked tool x every fault kind of tests/fakellm.py (issue 9).
#
# A cell is one tool against one fault aimed at one record (r2, whose every text holds the
# marker FAULTME) of three; r1 and r3 are the unaffected records. Each cell has its own scope on
# one shared fake (base URL $FAKE_URL/s/<cell>/v1, so its own cache keys and its own lines in the
# log) and its own cache directory. It runs the tool twice:
#   1. with the fault: exit status, one line per input line in input order, r2 null with an
#      errors entry from the tool (or, for faults the tool rides out, r2 as in the clean run),
#      r1 and r3 as in the clean run, the requests the fake saw for r2 and for the others, and
#      the API key in no output, no message and no cache file;
#   2. after POST /_fake/heal for the cell's scope, on the same cache: exit 0, every record as in
#      the clean run, no errors, only the requests that failed in run 1 asked again.
# The cells run in lanes of background jobs (each cell is a few runs of a C tool and a few jq);
# the results are printed as TAP in a fixed order afterwards. tests/README.md has the table.
#
# What fails today because a bug is not fixed yet is TAP TODO, from this list alone: one line a
# row, TOOLS (comma list) FAULT CHECKS (comma list of the check names that res() writes) and
# the reason. When a fix lands, prove says "TODO passed" for its checks: delete the row.
TODO_CELLS='
'

. "$(dirname "$0")/lib.sh"

need jq curl python3
for _t in rag-claims rag-verify rag-revq rag-embsim rag-judge rag-collect rag-eval; do
	[ -x "$BIN/$_t" ] || bail_out "bin/$_t is not built: run make"
done
# the metric tools of the operation registry (rag-eval --list-metrics: NAME TOOLS OPERATION DOC):
# "OPERATION TOOL METRIC" a line
"$BIN/rag-eval" --list-metrics | awk -F '\t' '$3 != "-" { print $3, $2, $1 }' >"$T/registry" ||
	bail_out "rag-eval --list-metrics failed"
REG_IDS=$(awk '{ print $1 }' "$T/registry" | tr '\n' ' ')
registry_row() { awk -v id="$1" -v f="$2" '$1 == id { print $f }' "$T/registry"; }
# what each metric tool's reply is, read from its descriptor (lib/<file>.c): a score with its
# reason (.check = rag_judge_check_score) is held to rag-judge's expectations, a verdict list
# to rag-verify's. "ID KIND" a line.
for _id in $REG_IDS; do
	_src=$(grep -l "^const rag_op rag_op_$_id = {" "$TOP"/lib/*.c) || bail_out "no descriptor of $_id in lib/"
	if grep -q '\.check = rag_judge_check_score' $_src; then echo "$_id judge"; else echo "$_id verify"; fi
done >"$T/registry-kind"
KEY=test-secret-key
LANES=${RAG_MATRIX_LANES:-6}

# ---------------------------------------------------------------- the records
# r2 carries FAULTME in every text any tool sends (answer, claims, contexts, reference,
# questions), so the plan's "match" hits r2's requests and no other's.
cat >"$T/in.jsonl" <<'EOF'
{"id":"r1","question":"What is the capital of France?","contexts":["Paris is the capital and largest city of France.","France is in Europe."],"answer":"Paris is the capital of France. UNSUPPORTED Paris has 90 million inhabitants.","reference":"Paris is the capital of France.","claims":{"answer":["Paris is the capital of France.","UNSUPPORTED Paris has 90 million inhabitants."],"reference":["Paris is the capital of France."]},"questions":{"generated":["Which city is the capital of France?"],"noncommittal":false}}
{"id":"r2","question":"What river FAULTME flows through Paris?","contexts":["The Seine FAULTME flows through Paris.","IRRELEVANT The Loire FAULTME is long."],"answer":"The Seine FAULTME flows through Paris. It FAULTME reaches the sea.","reference":"The Seine FAULTME flows through Paris.","claims":{"answer":["The Seine FAULTME flows through Paris.","It FAULTME reaches the sea."],"reference":["The Seine FAULTME flows through Paris."]},"questions":{"generated":["Which river FAULTME crosses Paris?"],"noncommittal":false}}
{"id":"r3","question":"How tall is Mont Blanc?","contexts":["IRRELEVANT Lyon is a city.","Mont Blanc is 4805 metres high."],"answer":"Mont Blanc is 4805 metres high.","reference":"Mont Blanc is 4805 metres high. UNSUPPORTED It is in Spain.","claims":{"answer":["Mont Blanc is 4805 metres high."],"reference":["Mont Blanc is 4805 metres high.","UNSUPPORTED It is in Spain."]},"questions":{"generated":["What is the height of Mont Blanc?"],"noncommittal":false}}
EOF
IDS="r1 r2 r3"

# ---------------------------------------------------------------- the tools
# TOOLS: id, command, the field it writes (jq path), the tool named in errors, units (requests
# a healthy run makes for r2: one judge call; rag-embsim: question and generated question,
# embedded one per request with batch_size 1; rag-collect: the system under test behind a
# chat endpoint, streamed, its collect section in the config). A metric tool of the operation
# registry has its row made here, so that a new one is in the matrix with no edit: its id its
# operation's name, its command the tool, its field scores.<metric>; it reads question, answer
# and contexts, and asks one request a record whose reply is a score with its reason checked by
# rag_judge_check_score, as rag-judge's, or a verdict list checked by rag_judge_check_verdicts,
# as rag-verify's (HACKING.md), so its cells expect what judge's or verify's do.
TOOLS="claims verify recall chunks revq embsim judge collect $REG_IDS"
TOOLS=${TOOLS% }
tool_cmd() {
	case $1 in
	claims) echo "rag-claims" ;;
	verify) echo "rag-verify" ;;
	recall) echo "rag-verify --metric context_recall" ;;
	chunks) echo "rag-verify --chunks" ;;
	revq) echo "rag-revq --n 2" ;;
	embsim) echo "rag-embsim" ;;
	judge) echo "rag-judge --rubric correctness" ;;
	collect) echo "rag-collect" ;;
	*) registry_row "$1" 2 ;;
	esac
}
tool_field() {
	case $1 in
	claims) echo ".claims.answer" ;;
	verify) echo ".scores.faithfulness" ;;
	recall) echo ".scores.context_recall" ;;
	chunks) echo ".scores.context_precision" ;;
	revq) echo ".questions.generated" ;;
	embsim) echo ".scores.answer_relevancy" ;;
	judge) echo ".scores.correctness" ;;
	collect) echo ".answer" ;;
	*) echo ".scores.$(registry_row "$1" 3)" ;;
	esac
}
tool_name() { set -- $(tool_cmd "$1"); echo "$1"; }
tool_units() { [ "$1" = embsim ] && echo 2 || echo 1; }

# ---------------------------------------------------------------- the faults
# FAULTS: id, the plan rule (without match and scope), the outcome and the requests for r2:
#   fail N   r2 null with an error, exit 4; r2's requests: N per unit (1 + llm.retries for a
#            transport fault, 1 + the one re-ask for a reply that does not fit, 1 when the
#            status is final)
#   ride N   r2 scored as in the clean run, exit 0; N requests per unit
#   accept N r2 scored from a reply that is valid but not the clean one (no error, exit 0); the
#            healed run gives what the first gave (it is cached)
#   any N    either ride or fail (N a range)
#   na       the fault means nothing for this tool (no cell)
# N may be a range LO-HI (libcurl may resend a request on a connection that died).
FAULTS='http500 http429ra http429 once500 hang drip cutbody truncated html emptybody nonjson few badids wrongtypes length huge key400 key200 emptylist html404 errstr401 detail422 array400 cutstream'
fault_rule() {
	case $1 in
	http500) echo '"status": 500' ;;
	http429ra) echo '"status": 429, "retry_after": 1' ;;
	http429) echo '"status": 429' ;;
	once500) echo '"status": 500, "times": 1' ;;
	hang) echo '"hang": true, "hang_s": 60' ;;
	drip) echo '"drip_ms": 50' ;;
	cutbody) echo '"cut_body": true' ;;
	truncated) echo '"truncate": true' ;;
	html) echo '"ctype": "text/html", "body": "<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"' ;;
	emptybody) echo '"body": ""' ;;
	nonjson) echo '"content": "Sure! Here is what you asked for: everything is fine."' ;;
	few) echo '"few": true' ;;
	badids) echo '"bad_ids": true' ;;
	wrongtypes) echo '"wrong_types": true' ;;
	length) echo '"finish_reason": "length"' ;;
	huge) echo '"pad_bytes": 5000000' ;;
	key400) echo '"status": 400, "body": {"error": {"message": "Incorrect API key provided: {{key}}", "type": "invalid_request_error"}}' ;;
	key200) echo '"echo_key": true' ;;
	emptylist) echo '"empty_list": true' ;;
	# 4xx bodies that are not {"error": {...}}: a proxy's page, a bare string, FastAPI's detail,
	# an array (the message is read through a shape check and quoted, short and clean)
	html404) printf '%s\n' '"status": 404, "ctype": "text/html", "body": "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>"' ;;
	errstr401) echo '"status": 401, "body": {"error": "invalid key {{key}}"}' ;;
	detail422) echo '"status": 422, "body": {"detail": [{"loc": ["body", "messages"], "msg": "field required", "type": "value_error.missing"}]}' ;;
	array400) echo '"status": 400, "body": []' ;;
	cutstream) echo '"cut_stream": true' ;;
	esac
}
# fault_quote FAULT: what r2's error message must quote of the body (the message is at most one
# line of 300 characters, no control characters)
fault_quote() {
	case $1 in
	html404) printf '%s\n' '404 Not Found' ;;
	errstr401) echo 'invalid key' ;;
	detail422) echo 'field required' ;;
	array400) echo '[]' ;;
	esac
}
# fault_want TOOL FAULT
fault_want() {
	case " $REG_IDS " in *" $1 "*) fault_want "$(awk -v id="$1" '$1 == id { print $2 }' "$T/registry-kind")" "$2"; return ;; esac
	case $1:$2 in
	embsim:nonjson | embsim:length) echo na ;;  # no chat content, no finish_reason
	claims:few | revq:few) echo "accept 1" ;;   # one claim (question) fewer is a valid reply
	claims:badids | revq:badids) echo na ;;     # no ids in the reply
	# rag-judge: the fake drops the reason (few), empties it (emptylist), adds 100 to the score
	# (badids), quotes it (wrongtypes): each does not fit, so the default "fail 2" holds; a key
	# quoted in the reason is starred out and the score kept
	judge:key200) echo "ride 1" ;;
	# ids "1" and verdicts "yes"/"no" have one reading: 1 and true/false (rag-verify(1), REPLIES)
	verify:wrongtypes | recall:wrongtypes | chunks:wrongtypes) echo "ride 1" ;;
	# a key quoted in claims or questions is starred out, and the rest of the reply kept
	claims:key200 | revq:key200) echo "accept 1" ;;
	embsim:few | embsim:badids | embsim:wrongtypes | embsim:emptylist) echo "fail 1" ;;
	# rag-collect: the answer is what the service said, a plain text: a reply of another shape
	# is the same plain text (the fake's mutations are of judge replies), a prose content, a cut
	# one (length) or one that quotes the key (starred out) is its answer; a huge padding is
	# never in its content
	collect:few | collect:badids | collect:wrongtypes | collect:emptylist | collect:huge) echo "ride 1" ;;
	collect:nonjson | collect:length | collect:key200) echo "accept 1" ;;
	# a cut stream is read by rag-collect alone: the judges do not stream
	collect:cutstream) echo "fail 1" ;;
	*:cutstream) echo na ;;
	*:http500 | *:http429ra | *:http429 | *:hang | *:drip) echo "fail 2" ;;
	*:cutbody) echo "fail 2-12" ;;
	*:once500) echo "ride 2" ;;
	# a 200 whose envelope is broken is final (rag-config(5) retries network errors, timeouts,
	# 408, 409, 429, 5xx); so is a reply cut off by max_tokens (asking again cuts it again)
	*:truncated | *:html | *:emptybody | *:length) echo "fail 1" ;;
	*:nonjson | *:few | *:badids | *:wrongtypes | *:emptylist) echo "fail 2" ;;
	*:huge) echo "ride 1" ;;
	*:key400 | *:html404 | *:errstr401 | *:detail422 | *:array400) echo "fail 1" ;;
	*:key200) echo "any 1-2" ;;
	esac
}

cat >"$T/plan.json" <<EOF
[$(for _f in $FAULTS; do
	for _t in $TOOLS; do
		printf '{"scope": "%s-%s", "match": "FAULTME", %s},\n' "$_t" "$_f" "$(fault_rule "$_f")"
	done
done) {"scope": "never", "status": 500}]
EOF
jq empty "$T/plan.json" || bail_out "the plan is not JSON"
fake_start --plan "$T/plan.json"

# the test config: one retry, one text per embeddings request, and a timeout that a healthy
# reply never reaches: 10 s, as on a busy 2-core machine under ASan a lane's reply can wait
# seconds behind another lane's 5 MB one (2 s failed 32 cells so). The cells whose fault is the
# clock (hang: 60 s, drip: a byte every 50 ms) get 5 s, to end sooner; the 5 MB reply gets 20
# s: that cell is about the size, not the clock. rag-collect calls the fake's chat endpoint as a
# streaming RAG service, with the caller's key in its Authorization (a secret to scrub).
for _to in 5 10 20; do
	cat >"$T/rag.$_to.yaml" <<EOF
llm:
  model: fake-judge
  timeout: $_to
  retries: 1
embeddings:
  model: fake-emb
  batch_size: 1
collect:
  url: \${RAG_BASE_URL}/chat/completions
  body: '{model: "rag", stream: true, messages: [{role: "user", content: ("QUESTION: " + .question)}]}'
  timeout: $_to
  cache: rw
  headers:
    Authorization: Bearer \${RAG_API_KEY}
EOF
done

# ---------------------------------------------------------------- one cell
# cell_run TOOL SCOPE DIR [TIMEOUT]: the tool on the records, base URL in the scope, cache in DIR/cache;
# DIR/out, err, rc (and a copy of each as out.1 ... for the first run, out.2 ... for the second)
cell_run() {
	RAG_BASE_URL=$FAKE_URL/s/$2/v1 RAG_CACHE=rw RAG_CACHE_DIR=$3/cache \
		rag $(tool_cmd "$1") -c "$T/rag.${4:-10}.yaml" <"$T/in.jsonl" >"$3/out" 2>"$3/err"
	echo $? >"$3/rc"
	_cr_n=1
	[ -f "$3/out.1" ] && _cr_n=2
	for _cr_f in out err rc; do cp "$3/$_cr_f" "$3/$_cr_f.$_cr_n"; done
}
# counts SCOPE HEALED: "<r2 requests> <other requests>" the fake saw in the scope
counts() {
	jq -rs --arg s "$1" --argjson h "$2" '[.[] | select(.scope == $s and .healed == $h) | (.body | tostring | contains("FAULTME"))] |
		"\(map(select(.)) | length) \(map(select(. | not)) | length)"' "$FAKE_LOG"
}
# in_range N SPEC: SPEC is N or LO-HI
in_range() {
	case $2 in
	*-*) [ "$1" -ge "${2%-*}" ] && [ "$1" -le "${2#*-}" ] ;;
	*) [ "$1" -eq "$2" ] ;;
	esac
}
# res CHECK STATUS DESC [DIAG...]: one result line (and its diagnostics) for the cell
res() {
	_res_c=$1 _res_s=$2 _res_d=$3; shift 3
	printf 'R\t%s\t%s\t%s\n' "$_res_c" "$_res_s" "$_res_d"
	[ "$_res_s" = 0 ] || for _l in "$@"; do printf '%s\n' "$_l" | head -c 1500 | sed 's/^/D\t/'; done
}
# rcheck CHECK DESC CMD...: res with CMD's status; its output is the diagnostic
rcheck() {
	_rk_c=$1 _rk_d=$2; shift 2
	_rk_o=$("$@" 2>&1)
	res "$_rk_c" $? "$_rk_d" "$_rk_o"
}
ids_of() { jq -r .id "$1" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
no_key_in() { ! grep -r -l -- "$KEY" "$@" 2>/dev/null; }

# cell TOOL FAULT: both runs and all the checks of one cell, as result lines on stdout
cell() {
	_t=$1 _f=$2 _s=$1-$2 _d=$T/cells/$1-$2
	set -- $(fault_want "$_t" "$_f")
	_kind=$1 _want=$2 _u=$(tool_units "$_t")
	mkdir -p "$_d"
	_fld=$(tool_field "$_t") _tn=$(tool_name "$_t") _clean=$T/clean/$_t
	case $_f in huge) _tmo=20 ;; hang | drip) _tmo=5 ;; *) _tmo=10 ;; esac
	cell_run "$_t" "$_s" "$_d" "$_tmo"
	_rc=$(cat "$_d/rc")
	case $_kind in fail) _wrc=4 ;; ride | accept) _wrc=0 ;; *) _wrc="0 or 4" ;; esac
	case " $_wrc " in *" $_rc "*) _st=0 ;; *) _st=1 ;; esac
	res rc "$_st" "exit status $_wrc" "got $_rc" "$(head -5 "$_d/err")"
	_q=$(fault_quote "$_f")
	if [ -n "$_q" ]; then
		rcheck quote "r2's error quotes the body's '$_q', on one clean line of at most 300 characters" \
			jq -se --arg t "$_tn" --arg q "$_q" '.[1] | any(.errors[]?; .tool == $t and (.message | contains($q))
				and (.message | length) <= 300 and (.message | test("[\u0000-\u001f]") | not))' "$_d/out"
	fi
	_ids=$(ids_of "$_d/out")
	[ "$(nlines "$_d/out")" = 3 ] && [ "$_ids" = "$IDS" ]
	res lines $? "one output line per input line, in order" "got ids '$_ids', $(nlines "$_d/out") lines"
	case $_kind in
	fail) rcheck target "r2: $_fld null and an errors entry from $_tn" \
		jq -se --arg t "$_tn" ".[1] | ($_fld == null) and any(.errors[]?; .tool == \$t and (.message | length) > 0)" "$_d/out" ;;
	ride) rcheck target "r2: as in the clean run, no errors" \
		jq -se --slurpfile c "$_clean/out" ".[1] | ($_fld == (\$c[1] | $_fld)) and ((.errors // []) | length) == 0" "$_d/out" ;;
	accept) rcheck target "r2: $_fld from the reply, no errors" \
		jq -se --slurpfile c "$_clean/out" ".[1] | ($_fld != null) and ($_fld != (\$c[1] | $_fld)) and ((.errors // []) | length) == 0" "$_d/out" ;;
	*) rcheck target "r2: $_fld as in the clean run, or null with an error" \
		jq -se --slurpfile c "$_clean/out" --arg t "$_tn" ".[1] | (($_fld == (\$c[1] | $_fld)) and ((.errors // []) | length) == 0) or (($_fld == null) and any(.errors[]?; .tool == \$t))" "$_d/out" ;;
	esac
	rcheck others "r1, r3: as in the clean run, no errors" \
		jq -se --slurpfile c "$_clean/out" "[.[0], .[2]] | map([$_fld, ((.errors // []) | length)]) == ([\$c[0], \$c[2]] | map([$_fld, 0]))" "$_d/out"
	set -- $(counts "$_s" false)
	_lo=$((${_want%-*} * _u)) _hi=$((${_want#*-} * _u))
	# one transient 500 hits one request (one unit) only: the others go through at once
	[ "$_f" = once500 ] && _lo=$((_u + 1)) _hi=$((_u + 1))
	in_range "$1" "$_lo-$_hi"
	res requests $? "the fake saw $_lo$([ "$_lo" = "$_hi" ] || echo "-$_hi") requests for r2" "got $1"
	is_n=$(cat "$_clean/others")
	[ "$2" = "$is_n" ]
	res requests-others $? "the fake saw $is_n requests for r1, r3 (as the clean run)" "got $2"
	_o=$(no_key_in "$_d/out" "$_d/err" "$_d/cache")
	res key $? "the API key is in no output, message or cache file" "$_o"
	if [ "$_f" = huge ]; then
		_w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$_d/out")
		[ "$_w" -lt 100000 ]
		res size $? "no output line carries the 5 MB reply" "longest line: $_w bytes"
	fi

	# run 2: healed, on the same cache
	curl -s -o /dev/null --max-time 5 -d "{\"scope\": \"$_s\"}" "$FAKE_URL/_fake/heal"
	cell_run "$_t" "$_s" "$_d" "$_tmo"
	_rc=$(cat "$_d/rc")
	[ "$_rc" = 0 ]
	res heal-rc $? "healed: exit status 0" "got $_rc" "$(head -5 "$_d/err")"
	_ids=$(ids_of "$_d/out")
	[ "$(nlines "$_d/out")" = 3 ] && [ "$_ids" = "$IDS" ]
	res heal-lines $? "healed: one output line per input line, in order" "got ids '$_ids'"
	if [ "$_kind" = accept ]; then
		rcheck heal "healed: every record as in the first run (r2's reply is cached), no errors" \
			jq -se --slurpfile c "$_d/out.1" "map([$_fld, ((.errors // []) | length)]) == (\$c | map([$_fld, 0]))" "$_d/out"
	else
		rcheck heal "healed: every record as in the clean run, no errors" \
			jq -se --slurpfile c "$_clean/out" "map([$_fld, ((.errors // []) | length)]) == (\$c | map([$_fld, 0]))" "$_d/out"
	fi
	set -- $(counts "$_s" true)
	case $_kind in fail) _hw=$_u ;; ride | accept) _hw=0 ;; *) _hw="0-$_u" ;; esac
	in_range "$1" "$_hw" && [ "$2" = 0 ]
	res heal-requests $? "healed: $_hw requests for r2 (what failed), none for r1, r3 (cached)" "got $1 for r2, $2 for the others"
	_o=$(no_key_in "$_d/out" "$_d/err" "$_d/cache")
	res heal-key $? "healed: the API key is in no output, message or cache file" "$_o"
}

# ---------------------------------------------------------------- the clean runs
mkdir -p "$T/clean" "$T/cells"
for _t in $TOOLS; do
	mkdir -p "$T/clean/$_t"
	cell_run "$_t" "clean-$_t" "$T/clean/$_t"
done
for _t in $TOOLS; do
	_c=$T/clean/$_t
	is "$(cat "$_c/rc")" 0 "clean $_t: exit status 0"
	[ "$(cat "$_c/rc")" = 0 ] || sed 's/^/#   /' "$_c/err" | head -5
	check "clean $_t: three records, every one with $(tool_field "$_t") and no errors" \
		jq -se "length == 3 and all(.[]; ($(tool_field "$_t") != null) and ((.errors // []) | length) == 0)" "$_c/out"
	set -- $(counts "clean-$_t" false)
	is "$1" "$(tool_units "$_t")" "clean $_t: $(tool_units "$_t") request(s) for r2"
	echo "$2" >"$_c/others"
done
# r2's values differ from the others (so "as in the clean run" can tell records apart)
check "clean: rag-verify's faithfulness differs between records" \
	jq -se '[.[].scores.faithfulness] | unique | length > 1' "$T/clean/verify/out"

# ---------------------------------------------------------------- the cells, in lanes
CELLS=
for _f in $FAULTS; do
	for _t in $TOOLS; do
		[ "$(fault_want "$_t" "$_f")" = na ] || CELLS="$CELLS $_t:$_f"
	done
done
_i=0
for _c in $CELLS; do
	_lane=$((_i % LANES))
	echo "$_c" >>"$T/lane.$_lane"
	_i=$((_i + 1))
done
NCELLS=$_i
_pids=
_l=0
while [ "$_l" -lt "$LANES" ]; do
	if [ -f "$T/lane.$_l" ]; then
		( while read -r _c; do cell "${_c%%:*}" "${_c#*:}" >"$T/cells/${_c%%:*}-${_c#*:}.res" 2>&1; done <"$T/lane.$_l" ) &
		_pids="$_pids $!"
	fi
	_l=$((_l + 1))
done
for _p in $_pids; do wait "$_p"; done

# ---------------------------------------------------------------- TAP, in cell order
todo_of() {  # todo_of TOOL FAULT CHECK -> the reason, or nothing
	printf '%s\n' "$TODO_CELLS" | while read -r _tt _tf _tc _why; do
		[ "$_tf" = "$2" ] || continue
		case ",$_tt," in *",$1,"*) ;; *) continue ;; esac
		case ",$_tc," in *",$3,"*) printf '%s\n' "$_why"; break ;; esac
	done
}
_todo=0 _todo_pass=0
for _c in $CELLS; do
	_t=${_c%%:*} _f=${_c#*:}
	_r=$T/cells/$_t-$_f.res
	if ! grep -q '^R' "$_r" 2>/dev/null; then
		tap_ok 1 "$_t x $_f: the cell ran"
		sed 's/^/#   /' "$_r" 2>/dev/null | head -20
		continue
	fi
	_last=0
	while IFS='	' read -r _k _a _b _cdesc; do
		if [ "$_k" = D ]; then
			[ "$_last" = 1 ] && printf '#   %s\n' "$_a"
			continue
		fi
		_why=$(todo_of "$_t" "$_f" "$_a")
		_tap_n=$((_tap_n + 1))
		if [ -n "$_why" ]; then
			_todo=$((_todo + 1))
			if [ "$_b" = 0 ]; then
				_todo_pass=$((_todo_pass + 1))
				echo "ok $_tap_n - $_t x $_f: $_cdesc # TODO $_why"
			else
				echo "not ok $_tap_n - $_t x $_f: $_cdesc # TODO $_why"
			fi
			_last=0
		elif [ "$_b" = 0 ]; then
			echo "ok $_tap_n - $_t x $_f: $_cdesc"
			_last=0
		else
			_tap_fail=$((_tap_fail + 1))
			echo "not ok $_tap_n - $_t x $_f: $_cdesc"
			diag "  Failed test $_tap_n - $_t x $_f: $_cdesc ($_tname)"
			_last=1
		fi
	done <"$_r"
done
note "$NCELLS cells ($(echo $TOOLS | wc -w) tools x $(echo $FAULTS | wc -w) faults, less those that mean nothing for a tool); $_todo checks TODO, $_todo_pass of them passing"

done_testing
