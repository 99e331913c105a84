#!/bin/sh
# ops.sh OUT SOURCE... - the registry of the LLM operations, made from the library's sources:
# every definition `const rag_op rag_op_NAME = {` in them (one a line, as HACKING.md's recipe
# writes it) gives a line RAG_OP(NAME) in OUT, in the order of the sources and of the
# definitions in each; a metric tool of one operation (a descriptor with .tool) a line
# RAG_OP_TOOL(NAME, TOOL, METRIC, K, DOC) after it: its .tool, .metric and .doc as C strings
# (each written on a line of its own, .doc as one string literal), K its place among the metric
# tools from 0. lib/op.c makes its registry of these lines, lib/config.c the
# score names a custom rubric may not take, lib/evalplan.c rag-eval's stage of each metric tool,
# so that a new operation is its own file and nothing else. OUT is written only when what it
# holds changes, so that the files that include it are not rebuilt for nothing.
# tests/unit/t-op.c checks OUT against the descriptors themselves (a .tool or .metric written
# otherwise than `.tool = "...",` on a line of its own would be seen there).
# ops.sh --tools SOURCE... prints the metric tools' names alone, one a line: the Makefile builds
# bin/<tool> of each with the one main of them all (cmd/tool-metric-main.c).
set -eu
if [ "${1:-}" = --tools ]; then
	shift
	sed -n 's/^[ 	]*\.tool = "\(rag-[a-z0-9-]*\)",.*/\1/p' "$@"
	exit 0
fi
out=${1:?usage: ops.sh OUT SOURCE... | ops.sh --tools SOURCE...}
shift
mkdir -p "$(dirname "$out")"
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
{
	echo "/* made by mk/ops.sh from the library's sources: not to be edited */"
	awk '
	function flush() {
		if (name == "") return
		print "RAG_OP(" name ")"
		if (tool != "NULL") print "RAG_OP_TOOL(" name ", " tool ", " metric ", " ntool++ ", " doc ")"
		name = ""
	}
	FNR == 1 { flush() }
	/^const rag_op rag_op_[a-z0-9_]+ = \{/ {
		flush(); name = $3; sub(/^rag_op_/, "", name); tool = "NULL"; metric = "NULL"; doc = "NULL"; next
	}
	name != "" && /^\};/ { flush(); next }
	name != "" && /^[ \t]*\.tool = "[^"]*",/ { s = $0; sub(/^[^"]*/, "", s); sub(/,[^"]*$/, "", s); tool = s }
	name != "" && /^[ \t]*\.metric = "[^"]*",/ { s = $0; sub(/^[^"]*/, "", s); sub(/,[^"]*$/, "", s); metric = s }
	name != "" && /^[ \t]*\.doc = ".*",[ \t]*$/ { s = $0; sub(/^[^"]*/, "", s); sub(/,[ \t]*$/, "", s); doc = s }
	END { flush() }' "$@"
} >"$tmp"
if ! cmp -s "$tmp" "$out"; then mv "$tmp" "$out"; fi
