#!/bin/sh
# offline.sh - CPU time of the offline judge, this tree against a named commit (not a test).
#
#   sh bench/offline.sh [-n RECORDS] [--pairs K] [--against COMMIT] [--scores-of DIR]
#
# Builds COMMIT (default 92af4f2) from `git archive` in ${TMPDIR:-/tmp}/ragpipe-offline-<sha> (never
# in the project tree; `make -j2 all` there, whatever its Makefile was; kept, and reused by the
# next run against the same commit), generates RECORDS
# (default 2,000) deterministic records (a question, 3 contexts of about 1 KB each, a 5-sentence
# answer that repeats, alters, negates and invents facts of its contexts), and runs the offline
# faithfulness pipeline of each side,
#   rag-claims --judge offline | rag-verify --judge offline
# A (COMMIT's bin) and B (this tree's bin, RAG_BIN) alternately, K times each (--pairs, default
# 8), timing each run's CPU seconds (user + sys of both processes, GNU time). Prints per side the
# median and [min-max] of CPU seconds, the median and [min-max] of the K paired ratios B/A, and
# how many records' scores.faithfulness differ between A and B (against an old commit they may:
# the judge has changed since). With --scores-of DIR (a bin directory, e.g. main's), also how
# many records' output lines differ between DIR's pipeline and B's: the check that an
# optimisation changed no byte. CPU time is steadier than wall time on a shared machine, but not
# immune: caches and frequency are shared too; alternating A and B spreads that over both sides.
# Exit status: 0, or 1 when a run failed or lost records, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

usage() { echo "usage: $0 [-n RECORDS] [--pairs K] [--against COMMIT] [--scores-of DIR]" >&2; exit 2; }
N=2000 K=8 AGAINST=92af4f2 REF=
while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; N=$2; shift ;;
	--pairs) [ $# -ge 2 ] || usage; K=$2; shift ;;
	--against) [ $# -ge 2 ] || usage; AGAINST=$2; shift ;;
	--scores-of) [ $# -ge 2 ] || usage; REF=$2; shift ;;
	-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) usage ;;
	esac
	shift
done
for _v in "$N" "$K"; do
	case $_v in ''|*[!0-9]*|0) usage ;; esac
done
[ -z "$REF" ] || [ -x "$REF/rag-claims" ] || { echo "offline.sh: $REF/rag-claims is not there" >&2; exit 2; }
bench_need /usr/bin/time jq git make
COMMIT=$(git rev-parse --verify -q "$AGAINST^{commit}") || { echo "offline.sh: no commit $AGAINST" >&2; exit 2; }
bench_setup offline rag-claims rag-verify
unset RAG_API_KEY RAG_BASE_URL
printf 'llm:\n  provider: offline\n' >"$W/rag.yaml"

# ---------------------------------------------------------------- A: the named commit, built aside
A=${TMPDIR:-/tmp}/ragpipe-offline-$COMMIT
if [ ! -x "$A/bin/rag-verify" ] || [ ! -x "$A/bin/rag-claims" ]; then
	rm -rf "$A" && mkdir -p "$A" || exit 2
	git archive "$COMMIT" | tar -x -C "$A" || exit 2
	echo "offline.sh: building $(git rev-parse --short "$COMMIT") in $A" >&2
	make -C "$A" -j2 all >"$W/build.log" 2>&1 || { tail -n 20 "$W/build.log" >&2; rm -rf "$A"; exit 1; }
fi

# ---------------------------------------------------------------- records
# A Park-Miller generator (exact in awk's doubles), so every awk makes the same records.
awk -v n="$N" 'function r(m) { s = (s * 16807) % 2147483647; return int(s / 2147483647 * m) }
function pick(a, m) { return a[r(m) + 1] }
BEGIN {
	s = 20261202
	np = split("Aldric Vane|Mira Osei|Tomas Lindqvist|Hana Ishikawa|Rafael Duarte|Ines Kowalska|Olu Adebayo|Greta Sorensen", who, "|")
	nc = split("Lyon|Porto|Ghent|Turku|Graz|Split|Bergen|Cork|Tartu|Brno", city, "|")
	no = split("Northwind Trust|Halden Institute|the Varga Foundry|Coastal Rail|the Meridian Press|Ostrava Mills", org, "|")
	nv = split("founded|joined|left|designed|funded|rebuilt|sold|opened|studied|managed", verb, "|")
	nt = split("bridge|library|laboratory|shipyard|observatory|railway depot|textile mill|museum|harbour|school", thing, "|")
	nm = split("January|February|March|April|May|June|July|August|September|October|November|December", mon, "|")
	na = split("quickly|quietly|together|again|later|first|briefly|formally", adv, "|")
	nw = split("river|valley|market|council|winter|storm|census|budget|survey|treaty|canal|tower", word, "|")
	for (i = 1; i <= n; i++) {
		p = pick(who, np); t = pick(thing, nt)
		printf "{\"id\":\"o%05d\",\"question\":\"What did %s do with the %s?\",\"contexts\":[", i, p, t
		ns = 0
		for (c = 1; c <= 3; c++) {
			ctx = ""
			while (length(ctx) < 1000) {
				y = 1800 + r(220); d = 1 + r(28); m = pick(mon, nm); q = 2 + r(900)
				x = r(6)
				if (x == 0) sn = sprintf("%s %s the %s in %s on %d %s %d.", pick(who, np), pick(verb, nv), pick(thing, nt), pick(city, nc), d, m, y)
				else if (x == 1) sn = sprintf("In %d the %s of %s employed %d people and kept a %s %s.", y, pick(thing, nt), pick(city, nc), q, pick(word, nw), pick(thing, nt))
				else if (x == 2) sn = sprintf("%s never %s the %s, although %s %s %s it in %d.", pick(who, np), pick(verb, nv), pick(thing, nt), pick(org, no), pick(adv, na), pick(verb, nv), y)
				else if (x == 3) sn = sprintf("The %s near the %s was not %s by %s until %s %d.", pick(thing, nt), pick(word, nw), pick(verb, nv), pick(org, no), m, y)
				else if (x == 4) sn = sprintf("%s says the %s cost %d thousand crowns and took %d years to finish.", pick(org, no), pick(thing, nt), q, 1 + r(12))
				else sn = sprintf("After the %s of %d, %s moved the %s to %s with %d volunteers.", pick(word, nw), y, pick(who, np), pick(thing, nt), pick(city, nc), q)
				ctx = ctx (ctx == "" ? "" : " ") sn
				sent[++ns] = sn
			}
			printf "%s\"%s\"", (c > 1 ? "," : ""), ctx
		}
		printf "],\"answer\":\""
		for (k = 1; k <= 5; k++) {
			sn = sent[1 + r(ns)]; x = r(5)
			if (x == 1) sub(/[0-9][0-9]*/, 1 + r(2000), sn)                   # a wrong number
			else if (x == 2 && sub(/ never /, " ", sn)) ;                     # a negation dropped
			else if (x == 2) sub(/ was not /, " was ", sn)
			else if (x == 3) sn = sprintf("%s %s the %s in %s.", pick(who, np), pick(verb, nv), pick(thing, nt), pick(city, nc))
			else if (x == 4) sub(/\.$/, ", not in " pick(city, nc) ".", sn)   # a contrast
			printf "%s%s", (k > 1 ? " " : ""), sn
		}
		printf "\"}\n"
		delete sent
	}
}' >"$W/records.jsonl"

# ---------------------------------------------------------------- runs
# run SIDE BIN I: the pipeline of BIN on the records; CPU seconds appended to $W/cpu.SIDE
FAILED=0
run() {
	/usr/bin/time -f '%U %S' -o "$W/time" sh -c '"$1/rag-claims" -c "$2" -q --judge offline <"$3" |
		"$1/rag-verify" -c "$2" -q --judge offline' sh "$2" "$W/rag.yaml" "$W/records.jsonl" \
		>"$W/out.$1" 2>"$W/err.$1"
	_rc=$?
	_lines=$(wc -l <"$W/out.$1" | tr -d ' ')
	if [ "$_rc" -ne 0 ] || [ "$_lines" -ne "$N" ] || [ -s "$W/err.$1" ]; then
		echo "offline.sh: $1 run $3 exited $_rc with $_lines of $N lines" >&2
		tail -n 3 "$W/err.$1" >&2
		FAILED=1
	fi
	awk '{ printf "%.2f\n", $1 + $2 }' "$W/time" >>"$W/cpu.$1"
}

i=1
while [ "$i" -le "$K" ]; do
	run A "$A/bin" "$i"
	run B "$BIN" "$i"
	i=$((i + 1))
done
scores() { jq -r '[.id, (.scores.faithfulness | tostring)] | join(" ")' "$1"; }
scores "$W/out.A" >"$W/scores.A"
scores "$W/out.B" >"$W/scores.B"
DIFF=$(paste -d ' ' "$W/scores.A" "$W/scores.B" | awk '$2 != $4 { d++ } END { print d + 0 }')
if [ -n "$REF" ]; then
	run R "$REF" 1
	REFDIFF=$(paste -d '\n' "$W/out.R" "$W/out.B" | awk 'NR % 2 { l = $0; next } $0 != l { d++ } END { print d + 0 }')
fi

# ---------------------------------------------------------------- report
stats() {   # FILE: median [min-max] of the numbers in it, one a line
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f [%.2f-%.2f]", m, v[1], v[NR] }'
}
paste -d ' ' "$W/cpu.A" "$W/cpu.B" | awk '{ printf "%.4f\n", $2 / $1 }' >"$W/ratio"
CTX=$(jq -r '.contexts | map(length) | add' "$W/records.jsonl" | awk '{ s += $1 } END { printf "%.0f", s / NR }')
printf 'ragpipe offline judge: rag-claims | rag-verify --judge offline, %d records (%d context bytes a record), %d pairs\n' \
	"$N" "$CTX" "$K"
printf 'A  %s (%s)\n' "$(git rev-parse --short "$COMMIT")" "$(git log -1 --format=%s "$COMMIT" | cut -c1-60)"
printf 'B  %s%s\n' "$BIN" "$( [ "$BIN" = "$TOP/bin" ] && printf ' (%s%s)' "$(git rev-parse --short HEAD)" \
	"$(git diff --quiet HEAD -- lib cmd 2>/dev/null || echo ', uncommitted changes')")"
printf '\nCPU seconds (user+sys), median [min-max] of %d runs\n' "$K"
printf '  A  %s\n  B  %s\n' "$(stats "$W/cpu.A")" "$(stats "$W/cpu.B")"
printf 'B/A paired ratio: %s\n' "$(stats "$W/ratio")"
printf 'records whose scores.faithfulness differ, A against B: %d of %d\n' "$DIFF" "$N"
[ -z "$REF" ] || printf 'records whose output line differs, %s against B: %d of %d\n' "$REF" "$REFDIFF" "$N"
exit $FAILED
