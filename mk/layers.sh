#!/bin/sh
# layers.sh [ROOT] - each library header and file with its layer, "NAME LAYER" a line, from
# HACKING.md's table of headers ("| 2 records | `record.h` | ... (record.c); ... (testset.c) |")
# under ROOT (default: this tree). A file that defines an operation's descriptor
# (`const rag_op rag_op_NAME = {`, as HACKING.md's recipe writes it) and that the table does not
# name is a metric operation: metric.h's layer, so that a new operation needs no row. Read by
# tests/t/92-layers.t (the include graph) and mk/calls.sh (the call graph).
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
table=$(awk -F'|' '/^\| [0-9]+ / {
	split($2, l, " "); h = $3; gsub(/[` ]/, "", h); print h, l[1]
	o = $4; while (match(o, /[a-z0-9_]+\.[ch]([^a-z0-9_]|$)/)) {
		f = substr(o, RSTART, RLENGTH); sub(/[^a-z0-9_.]$/, "", f); sub(/\.$/, "", f)
		print f, l[1]; o = substr(o, RSTART + RLENGTH)
	}
}' "$root/HACKING.md" | LC_ALL=C sort -u)
printf '%s\n' "$table"
op_layer=$(printf '%s\n' "$table" | awk '$1 == "metric.h" { print $2 }')
[ -n "$op_layer" ] || exit 0
for f in $(grep -l '^const rag_op rag_op_[a-z0-9_]* = {' "$root"/lib/*.c 2>/dev/null); do
	b=${f##*/}
	printf '%s\n' "$table" | grep -q "^$b " || echo "$b $op_layer"
done
