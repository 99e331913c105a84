# fish completion for the ragpipe tools; installed as vendor_completions.d/ragpipe.fish.
# The option lists must say the same as each tool's --help and manual page:
# tests/t/90-options.t checks it.

# Options every tool shares.  The tools read standard input only: no file operands.
for cmd in rag-claims rag-verify
    complete -c $cmd -f
    complete -c $cmd -s c -l config -r -F -d 'Configuration file'
    complete -c $cmd -l judge -x -a 'offline\t"Deterministic, no network" openai\t"OpenAI-compatible endpoint"' -d Judge
    complete -c $cmd -l model -x -d 'Judge model'
    complete -c $cmd -l base-url -x -d 'OpenAI-compatible endpoint URL'
    complete -c $cmd -l lang -x -a 'auto en zh' -d 'Prompt language'
    complete -c $cmd -l cache -x -a 'rw\t"Read and write" ro\t"Read only" replay\t"Only from the cache" off\t"No cache"' -d 'Reply cache mode'
    complete -c $cmd -s j -l concurrency -x -d 'Requests in flight'
    complete -c $cmd -l strict -d 'Stop at the first bad input line'
    complete -c $cmd -l unbuffered -d 'Flush after each record'
    complete -c $cmd -l max-line -x -d 'Longest input line accepted (bytes)'
    complete -c $cmd -s q -l quiet -d 'No summary line on stderr'
    complete -c $cmd -s v -l verbose -d 'More messages on stderr'
    complete -c $cmd -s h -l help -d 'Print the usage and exit'
    complete -c $cmd -s V -l version -d 'Print the version and exit'
end

# rag-claims
complete -c rag-claims -l from -x -a 'answer reference question response user_input' -d 'Text field to split'
complete -c rag-claims -s n -l max-claims -x -d 'At most N claims per record'

# rag-verify
complete -c rag-verify -l metric -x -a 'faithfulness\t"Claims of the answer" context_recall\t"Claims of the reference"' -d Metric
complete -c rag-verify -l claims -x -a 'answer reference' -d 'Read claims.FIELD'
complete -c rag-verify -l recheck -d 'Re-check each unsupported claim against each chunk alone'
complete -c rag-verify -l literal -d 'Accept a claim found literally in a context'
complete -c rag-verify -l batch-claims -x -d 'Claims per judge call'
complete -c rag-verify -l batch-chars -x -d 'Context characters per judge call'
