# peers-table.awk - bench/peers.sh's tables, from its file of every run (a benchmark, not a test):
#
#   awk -F'\t' -v n=RECORDS -v lat=MS -f bench/peers-table.awk bench/out/peers-runs.tsv
#
# The file: a header line, then one line a run: metric, tool, j, mode (samej, inflight, or both
# when the mode changes nothing for the tool: the run then counts in both), run (1..REPEAT: the
# round), seconds, requests, embeddings, chars, schema_chars, inflight, peak_kb, ok, exit, mean.
# A cell is a metric, -j, mode and tool; its figures are over its runs that exited 0 with all n
# records scored (the others are counted, and left out): the median and [min-max] of the seconds
# and of the peak memory, the medians of the counts, the most requests in flight of any run.
# vs ae, vs pf: the peer's seconds over the tool's, run k against run k (the same round), as the
# median of those ratios and their [min-max]. Nothing is a best of.

# med(A, M): the median of A[1..M]; the least and the greatest in LO and HI
function med(a, m,    i, j, t, b) {
	for (i = 1; i <= m; i++) b[i] = a[i] + 0
	for (i = 2; i <= m; i++) {
		t = b[i]
		for (j = i - 1; j >= 1 && b[j] > t; j--) b[j + 1] = b[j]
		b[j + 1] = t
	}
	LO = b[1]; HI = b[m]
	return (m % 2) ? b[(m + 1) / 2] : (b[m / 2] + b[m / 2 + 1]) / 2
}
# the figures of cell C, field F (6..15), into V[1..]: their count
function col(c, f,    g) {
	for (g = 1; g <= good[c]; g++) V[g] = X[c, g, f]
	return good[c]
}
# vs(C, CP): the seconds of cell CP (the peer's) over cell C's, paired by round: "median
# [min-max]", or "-"
function vs(c, cp,    r, np, a, m) {
	if (!(cp in has) || c == cp) return "-"
	np = 0
	for (r = 1; r <= maxrun; r++)
		if ((c, r) in RUNSEC && (cp, r) in RUNSEC && RUNSEC[c, r] > 0) a[++np] = RUNSEC[cp, r] / RUNSEC[c, r]
	if (np == 0) return "-"
	m = med(a, np)
	return sprintf("%.2f [%.2f-%.2f]", m, LO, HI)
}
function range(m, lo, hi, fmt) {
	return sprintf(fmt " [" fmt "-" fmt "]", m, lo, hi)
}

FNR == 1 && $1 == "metric" { next }
NF >= 15 {
	if (!($1 in mseen)) { mseen[$1] = 1; mo[++nmo] = $1 }
	if (!(($1, $3) in jseen)) { jseen[$1, $3] = 1; jo[$1, ++nj[$1]] = $3 }
	if ($5 + 0 > maxrun) maxrun = $5 + 0
	nm = split($4 == "both" ? "samej inflight" : $4, modes, " ")
	for (i = 1; i <= nm; i++) {
		c = $1 SUBSEP $3 SUBSEP modes[i] SUBSEP $2
		has[c] = 1; runs[c]++
		if ($14 != 0 || $13 != n) { bad[c]++; continue }
		g = ++good[c]
		for (f = 6; f <= 15; f++) X[c, g, f] = $f
		RUNSEC[c, $5 + 0] = $6
	}
}
END {
	nt = split("ragpipe ragpipe-1r autoevals promptfoo", tools, " ")
	split("samej inflight", md, " ")
	for (a = 1; a <= nmo; a++) {
		mt = mo[a]
		printf "\n%s\n", mt
		printf "%-4s %-8s %-10s %4s %22s %9s %7s %7s %9s %8s %8s %20s %5s %18s %18s %s\n", "-j", "mode", "tool", "runs",
			"seconds [min-max]", "records/s", "req/rec", "emb/rec", "chars/rec", "schema/r", "inflight", "peak MB [min-max]",
			"ideal", "vs ae [min-max]", "vs pf [min-max]", "mean"
		for (b = 1; b <= nj[mt]; b++) for (d = 1; d <= 2; d++) for (i = 1; i <= nt; i++) {
			j = jo[mt, b]; t = tools[i]
			c = mt SUBSEP j SUBSEP md[d] SUBSEP t
			if (!(c in has)) continue
			note = bad[c] ? sprintf("  (%d of %d runs failed: left out)", bad[c], runs[c]) : ""
			if (!good[c]) {
				printf "%-4s %-8s %-10s %4s %22s%s\n", j, md[d], t, "0/" runs[c], "-", note
				continue
			}
			k = col(c, 6); s = med(V, k); secs = range(s, LO, HI, "%.2f")
			r = s > 0 ? n / s : 0
			k = col(c, 7); rpr = med(V, k) / n
			k = col(c, 8); epr = med(V, k) / n
			k = col(c, 9); cpr = med(V, k) / n
			k = col(c, 10); spr = med(V, k) / n
			k = col(c, 11); med(V, k); pk = HI
			k = col(c, 12); mb = med(V, k); mem = range(mb / 1000, LO / 1000, HI / 1000, "%.1f")
			k = col(c, 15); med(V, k); mean = (LO == HI) ? sprintf("%.3f", LO) : sprintf("%.3f-%.3f", LO, HI)
			ideal = rpr > 0 ? j / (rpr * lat / 1000) : 0
			printf "%-4s %-8s %-10s %4s %22s %9.1f %7.2f %7.2f %9.0f %8.0f %8d %20s %5.2f %18s %18s %s%s\n", j, md[d], t,
				good[c] "/" runs[c], secs, r, rpr, epr, cpr, spr, pk, mem, (ideal > 0 ? r / ideal : 0),
				vs(c, mt SUBSEP j SUBSEP md[d] SUBSEP "autoevals"),
				vs(c, mt SUBSEP j SUBSEP md[d] SUBSEP "promptfoo"), mean, note
		}
	}
	printf "\nruns: the runs that count / all (a run counts when it exited 0 with every record scored); seconds\n"
	printf "and peak MB: the median and [min-max] over those runs, whole processes (GNU time; a pipe the sum of\n"
	printf "its stages); records/s: records over the median seconds; req/rec: chat and embeddings requests a\n"
	printf "record (emb/rec: the embeddings among them); chars/rec: the characters of the chat messages a\n"
	printf "record; schema/r: of the tools and response_format sent besides (medians); inflight: the most\n"
	printf "requests in flight at the fake, any run; ideal: records/s over J / (req/rec x latency), the\n"
	printf "tool's own requests at J in flight (over 1 when it had more than J in flight); vs ae, vs pf: the\n"
	printf "peer's seconds over this tool's (above 1: this tool is faster), run k against run k of the same\n"
	printf "round, the median of those ratios and [min-max]; mean: the mean score (a range if runs differ).\n"
}
