# fish completion for the ragpipe tools; installed as vendor_completions.d/ragpipe.fish.
# The option lists must say the same as each tool's --help and manual page:
# tests/t/90-options.t checks it.

# Options every tool shares.  The tools read standard input only: no file operands.
for cmd in rag-claims rag-verify rag-revq rag-embsim rag-gate rag-ap rag-report rag-kw rag-judge rag-collect rag-eval rag-agree rag-gen rag-store
    complete -c $cmd -f
    complete -c $cmd -s c -l config -r -F -d 'Configuration file'
    complete -c $cmd -l strict -d 'Stop at the first bad input line'
    complete -c $cmd -l unbuffered -d 'Flush after each record'
    complete -c $cmd -l max-line -x -d 'Longest input line accepted (bytes)'
    complete -c $cmd -l max-memory -x -d 'Memory for the records read ahead (bytes)'
    complete -c $cmd -s q -l quiet -d 'No summary line on stderr'
    complete -c $cmd -s v -l verbose -d 'More messages on stderr'
    complete -c $cmd -s h -l help -d 'Print the usage and exit'
    complete -c $cmd -s V -l version -d 'Print the version and exit'
end

# Options of the tools that ask a judge.
for judged in rag-claims rag-verify rag-revq rag-judge rag-gen
    complete -c $judged -l judge -x -a 'offline\t"Deterministic, no network" openai\t"OpenAI-compatible endpoint"' -d Judge
    complete -c $judged -l model -x -d 'Judge model'
    complete -c $judged -l base-url -x -d 'OpenAI-compatible endpoint URL'
    complete -c $judged -l lang -x -a 'auto en zh' -d 'Prompt language'
    complete -c $judged -l cache -x -a 'rw\t"Read and write" ro\t"Read only" replay\t"Only from the cache" off\t"No cache"' -d 'Reply cache mode'
    complete -c $judged -s j -l concurrency -x -d 'Requests in flight'
    complete -c $judged -l estimate -d 'Send nothing: the requests, tokens and cost a run would take'
end

# rag-claims
complete -c rag-claims -l from -x -a 'answer reference question response user_input' -d 'Text field to split'
complete -c rag-claims -s n -l max-claims -x -d 'At most N claims per record'

# rag-verify
complete -c rag-verify -l metric -x -a 'faithfulness\t"Claims of the answer" context_recall\t"Claims of the reference" context_precision\t"Chunks against the reference (--chunks)" context_utilization\t"Chunks against the answer (--chunks)" answer_correctness\t"Answer claims against the reference claims"' -d Metric
complete -c rag-verify -l chunks -d 'Judge each chunk for usefulness: context precision'
complete -c rag-verify -l claims -x -a 'answer reference' -d 'Read claims.FIELD'
complete -c rag-verify -l recheck -d 'Re-check each unsupported claim against each chunk alone'
complete -c rag-verify -l literal -d 'Accept a claim found literally in a context'
complete -c rag-verify -l batch-claims -x -d 'Claims per judge call'
complete -c rag-verify -l batch-chars -x -d 'Context characters per judge call'
complete -c rag-verify -l mode -x -a 'batched\t"All claims in one JSON request" claim\t"A Yes/No verifier per claim" claim_chunk\t"A Yes/No verifier per claim and chunk"' -d 'How claims are asked'
complete -c rag-verify -l one-request -d 'Faithfulness: claims and verdicts in one request'
complete -c rag-verify -l weights -x -d 'answer_correctness weights F,S'

# rag-revq
complete -c rag-revq -s n -l n -x -d 'Questions to generate'
complete -c rag-revq -l generations -x -a 'list\t"One request for all" n\t"The endpoint n parameter" requests\t"One request per question"' -d 'How the questions are generated'

# rag-gen (it reads files: the documents)
complete -c rag-gen -F
complete -c rag-gen -s n -l per-chunk -x -d 'Questions a chunk'
complete -c rag-gen -l chunk-chars -x -d 'Characters a chunk holds at most'
complete -c rag-gen -l chunks -r -F -d 'Read chunks {id, text} from a JSON Lines file'
complete -c rag-gen -l category -x -d 'Every case category'
complete -c rag-gen -l dedup -x -d 'Drop a question this similar to an earlier one'
complete -c rag-gen -l unanswerable -x -d 'Share of unanswerable questions'
complete -c rag-gen -l noisy -x -d 'Share of noisy rewordings'
complete -c rag-gen -l multi-hop -x -d 'Share of questions over two chunks'
complete -c rag-gen -l follow-up -x -d 'Share of follow-up turns'
complete -c rag-gen -l review -r -F -d 'Write the review sheet (.csv or Markdown)'
complete -c rag-gen -l apply-review -r -F -d 'Apply an edited review sheet to TESTSET'
complete -c rag-gen -l check -r -F -d 'Check a test set'
complete -c rag-gen -l json -d 'With --check: the findings as JSON'

# rag-judge
complete -c rag-judge -l rubric -x -a 'correctness relevance completeness groundedness_0_10 consistent' -d 'Rubrics, comma-separated'
complete -c rag-judge -s n -l repeat -x -d 'Ask N times: mean, stdev, flip'
complete -c rag-judge -s t -l threshold -x -d 'Normalised pass threshold for flip'

# rag-embsim
complete -c rag-embsim -l pair -x -a 'answer,reference' -d 'Similarity of two text fields'
complete -c rag-embsim -l score -x -d 'Write scores.NAME'
complete -c rag-embsim -l embedder -x -a 'offline\t"Deterministic, no network" openai\t"OpenAI-compatible endpoint"' -d Embedder
complete -c rag-embsim -l model -x -d 'Embedding model'
complete -c rag-embsim -l base-url -x -d 'Embeddings endpoint URL'
complete -c rag-embsim -l dimensions -x -d 'Vector size'
complete -c rag-embsim -l batch-size -x -d 'Texts per request'
complete -c rag-embsim -l cache -x -a 'rw\t"Read and write" ro\t"Read only" replay\t"Only from the cache" off\t"No cache"' -d 'Cache mode'
complete -c rag-embsim -s j -l concurrency -x -d 'Requests in flight'
complete -c rag-embsim -l estimate -d 'Send nothing: the requests, tokens and cost a run would take'

# rag-gate (it also reads files)
complete -c rag-gate -F
complete -c rag-gate -s t -l threshold -x -d 'METRIC=MIN: lowest mean of a metric'
complete -c rag-gate -s r -l record-threshold -x -d 'METRIC=MIN: lowest score of a passing record'
complete -c rag-gate -l min-pass-rate -x -d 'Share of records that must pass'
complete -c rag-gate -l max-error-rate -x -d 'Share of records a metric may leave null'
complete -c rag-gate -l summary-only -d 'No decision: the summary, and exit 0'
complete -c rag-gate -s b -l baseline -r -F -d 'Earlier run to compare with'
complete -c rag-gate -l regression -x -d 'A record regressed when it lost more'
complete -c rag-gate -l fail-on-regression -d 'Fail when a mean interval lies below 0'
complete -c rag-gate -l seed -x -d 'Bootstrap seed'
complete -c rag-gate -l resamples -x -d 'Bootstrap resamples'
complete -c rag-gate -l confidence -x -d 'Bootstrap interval'
complete -c rag-gate -l worst -x -d 'Worst records listed'
complete -c rag-gate -l json -d 'The summary as JSON'
complete -c rag-gate -l markdown -d 'The summary as Markdown'
complete -c rag-gate -l junit -r -F -d 'JUnit XML file'
complete -c rag-gate -s o -l output -r -F -d 'Write the summary to FILE'
complete -c rag-gate -l tee -d 'Pass the records to stdout'
complete -c rag-gate -l pass -x -d "METRIC: gate on the tool's own pass verdict"
complete -c rag-gate -l fail-on-flip -d 'A record whose repeats flip on a gated metric fails'
complete -c rag-gate -l by -x -d 'FIELD: group the summary by it (dotted path)'
complete -c rag-gate -l metrics -x -d "LIST: the run's metrics; thresholds on others are not run"
complete -c rag-gate -l lang -x -a 'auto en zh' -d 'Failure hints language'

# rag-agree (it reads a file: the run)
complete -c rag-agree -F
complete -c rag-agree -s f -l field -x -d 'The judge score or verdict field (dotted path)'
complete -c rag-agree -s l -l label -x -d 'The human label field (dotted path)'
complete -c rag-agree -s L -l labels -r -F -d 'Human labels file: JSONL or CSV id,label'
complete -c rag-agree -l id -x -d 'The field joining records and labels'
complete -c rag-agree -l scale -x -d 'The labels scale LO-HI (default 0-1)'
complete -c rag-agree -s t -l threshold -x -d 'The judge says yes at X or more'
complete -c rag-agree -l optimise -x -a 'f1 accuracy youden' -d 'The best threshold measure'
complete -c rag-agree -l seed -x -d 'Seed of the bootstrap and the sample'
complete -c rag-agree -l resamples -x -d 'Bootstrap resamples'
complete -c rag-agree -l confidence -x -d 'Interval confidence'
complete -c rag-agree -l json -d 'The summary as JSON'
complete -c rag-agree -l markdown -d 'The summary as Markdown'
complete -c rag-agree -l sample -x -d 'Records to draw for labelling'
complete -c rag-agree -l sheet -r -F -d 'The sample sheet (CSV, or Markdown for .md)'

# rag-report (it reads files: the runs)
complete -c rag-report -F
complete -c rag-report -s t -l threshold -x -d 'METRIC=MIN: lowest mean of a metric'
complete -c rag-report -s r -l record-threshold -x -d 'METRIC=MIN: lowest score of a passing record'
complete -c rag-report -l min-pass-rate -x -d 'Share of records that must pass'
complete -c rag-report -l max-error-rate -x -d 'Share of records a metric may leave null'
complete -c rag-report -s b -l baseline -r -F -d 'Earlier run to compare with'
complete -c rag-report -l worst -x -d 'Records listed'
complete -c rag-report -l title -x -d 'Page title'
complete -c rag-report -l markdown -d 'Markdown instead of HTML'
complete -c rag-report -s o -l output -r -F -d 'Write to FILE'
complete -c rag-report -l pass -x -d "METRIC: gate on the tool's own pass verdict"
complete -c rag-report -l fail-on-flip -d 'A record whose repeats flip on a gated metric fails'
complete -c rag-report -l by -x -d 'FIELD: group the summary by it (dotted path)'
complete -c rag-report -l metrics -x -d "LIST: the run's metrics; thresholds on others are not run"
complete -c rag-report -l lang -x -a 'auto en zh' -d 'Failure hints language'
complete -c rag-report -l history -r -F -d 'Summaries of earlier runs (rag-store history)'

# rag-ap (with --trec it also reads files)
complete -c rag-ap -s m -l metrics -x -a 'ap map p@5 p@10 recall@5 recall@10 hit@1 hit@3 mrr ndcg@10 rprec' -d 'Metrics, comma-separated'
complete -c rag-ap -l from -x -a 'auto\t"Ids first; context precision verdicts first" verdicts\t"verdicts.context_precision" ids\t"contexts[].id against relevant_ids" similarity\t"Similarity to reference_contexts"' -d 'Source of relevance'
complete -c rag-ap -l verdicts -x -a 'context_precision context_utilization' -d 'Read verdicts.NAME'
complete -c rag-ap -l threshold -x -d 'Least similarity of a relevant chunk'
complete -c rag-ap -l level -x -d 'Least grade of a relevant item'
complete -c rag-ap -l trec -r -F -d 'TREC mode: qrels file, then the run file'

# rag-kw
complete -c rag-kw -s m -l metrics -x -a 'keyword_overlap token_f1 exact_match contains contains_all regex levenshtein rouge1 rouge2 rougeL rougeLsum bleu chrf refusal' -d 'Metrics, comma-separated'
complete -c rag-kw -l from -x -a 'answer response reference question' -d 'The text scored'
complete -c rag-kw -l against -x -a 'reference ground_truth answer' -d 'The text it is compared with'
complete -c rag-kw -l threshold -x -d 'keyword_overlap passes at X or more'
complete -c rag-kw -l stem -d 'Porter-stem ROUGE words longer than 3 letters'
complete -c rag-kw -l precision-recall -d 'Also precision and recall of ROUGE and token F1'
complete -c rag-kw -l tokenize -x -a 'auto 13a none zh char' -d 'BLEU tokens'
complete -c rag-kw -l smooth -x -a 'exp none floor add-k' -d 'BLEU smoothing'
complete -c rag-kw -l lowercase -d 'BLEU and chrF ignore case'

# rag-collect
complete -c rag-collect -l url -x -d 'The service to call'
complete -c rag-collect -l command -x -d 'Run a command per record instead'
complete -c rag-collect -s X -l method -x -a 'POST GET PUT PATCH' -d 'HTTP method'
complete -c rag-collect -s H -l header -x -d 'A request header, NAME:VALUE'
complete -c rag-collect -l body -x -d 'jq program: record to request body'
complete -c rag-collect -l answer -x -d 'jq program: reply to answer'
complete -c rag-collect -l contexts -x -d 'jq program: reply to contexts'
complete -c rag-collect -l ids -x -d 'jq program: reply to context_ids'
complete -c rag-collect -l stream -x -a 'auto true false' -d 'The reply is Server-Sent Events'
complete -c rag-collect -l system -x -d 'A setting of the system, KEY=VALUE'
complete -c rag-collect -l system-from -x -d 'jq program: reply to the settings it ran with'
complete -c rag-collect -l timeout -x -d 'Seconds a call may take'
complete -c rag-collect -l retries -x -d 'Retries of a failed call'
complete -c rag-collect -s j -l concurrency -x -d 'Calls at once'
complete -c rag-collect -l cache -x -a 'rw\t"Read and write" ro\t"Read only" replay\t"Only from the cache" off\t"No cache"' -d 'Reply cache mode'

# rag-eval (it reads a file: the test set)
complete -c rag-eval -F
complete -c rag-eval -s m -l metrics -x -d 'Metrics, comma-separated'
complete -c rag-eval -s o -l output -r -F -d 'The run directory'
complete -c rag-eval -l run-id -x -d 'The run id'
complete -c rag-eval -l force -d 'Replace the run the -o directory holds'
complete -c rag-eval -l label -x -d 'The run label'
complete -c rag-eval -l resume -r -F -d 'Finish an interrupted run'
complete -c rag-eval -s b -l baseline -r -F -d 'Earlier run to compare with (or last)'
complete -c rag-eval -s j -l concurrency -x -d 'Requests in flight, for every stage'
complete -c rag-eval -l jobs -x -d 'Score in N shards with GNU parallel'
complete -c rag-eval -l sshlogin -x -d 'With --jobs: the hosts of the shards'
complete -c rag-eval -l format -x -a 'auto json csv' -d 'The test set format'
complete -c rag-eval -l field -x -d 'A field from a jq program over the record (NAME=PROGRAM)'
complete -c rag-eval -l bin -r -F -d 'The tools directory'
complete -c rag-eval -l dry-run -d 'Print the pipeline and exit'
complete -c rag-eval -l estimate -d 'Send nothing: the requests, tokens and cost of each stage'
complete -c rag-eval -l sample -x -d 'With --estimate: collect the first N records to measure'
complete -c rag-eval -l emit -d 'The first stage: the test set as records'
complete -c rag-eval -l skip-done -r -F -d 'With --emit: leave out the ids of FILE'
complete -c rag-eval -l store -x -d 'Add the run to this store at the end'

# rag-store (a command, then its operands: run directories and test set files)
complete -c rag-store -n '__fish_use_subcommand' -a 'add list show export diff history testset info'
complete -c rag-store -n '__fish_seen_subcommand_from testset' -a 'import export'
complete -c rag-store -n '__fish_seen_subcommand_from add testset' -F
complete -c rag-store -l store -x -d 'The store (SQLite path or postgresql URL)'
complete -c rag-store -l label -x -d 'add: the run label'
complete -c rag-store -l testset -x -d 'add: the test set; list, history: only its runs'
complete -c rag-store -l run-id -x -d 'add: the run id'
complete -c rag-store -l commit -x -d 'add: the git commit; list, history: by its start'
complete -c rag-store -l name -x -d 'testset import: the test set name'
complete -c rag-store -l since -x -d 'list, history: started at TIME or later'
complete -c rag-store -l until -x -d 'list, history: started at TIME or before'
complete -c rag-store -l system -x -d 'list, history: a system setting, KEY=VALUE'
complete -c rag-store -l limit -x -d 'list, history: the newest K runs'
complete -c rag-store -l json -d 'list: JSON Lines instead of the table'
