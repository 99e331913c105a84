#!/usr/bin/env python3
"""inflight.py LOG LATENCY_MS J T0 T1 - where a run's time went, from the fake judge's log.

LOG is tests/fakellm.py's --log (one JSON line a request, "t" its arrival); each request is
taken to be in flight from its arrival for LATENCY_MS (the fake's latency: the reply's own
transit is not in it). T0 and T1 are the run's start and end (seconds since the epoch). Prints
the run's time in three parts: before the first judge request (start-up and the first
collect), the judge's span (first arrival to last reply), and after it (the gate, the run's
files); and within the span, the mean requests in flight against J, the time at J-1 or more,
and the tail: from the last moment at J-1 or more to the last reply (the last records going
through the remaining stages with the budget no longer full); and the budget's fill in the
first latency, the last, and between them. Not a test: bench/eval.sh prints
it under its figures."""
import json
import sys


def main():
    log, lat, j, t0, t1 = sys.argv[1], float(sys.argv[2]) / 1000, int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
    ts = []
    with open(log) as f:
        for line in f:
            try:
                t = json.loads(line).get("t")
            except ValueError:
                continue
            if isinstance(t, (int, float)):
                ts.append(t)
    if not ts:
        print("where the time went: no judge request in the log")
        return
    ts.sort()
    ev = sorted([(t, 1) for t in ts] + [(t + lat, -1) for t in ts])
    first, last_reply = ts[0], ts[-1] + lat
    cur, prev, area, full, last_full = 0, first, 0.0, 0.0, first
    for t, d in ev:
        area += cur * (t - prev)
        if cur >= j - 1:
            full += t - prev
            last_full = t
        prev = t
        cur += d
    span = last_reply - first

    def fill(a, b):
        """the budget's mean fill between a and b"""
        got = sum(max(0.0, min(t + lat, b) - max(t, a)) for t in ts)
        return got / (b - a) / j if b > a else 0.0
    print("where the time went: %.3f s before the first judge request, %.3f s the judge's span, "
          "%.3f s after the last reply" % (first - t0, span, t1 - last_reply))
    print("in the span: %.1f of %d requests in flight on average (%.3f of the budget), %d or more for "
          "%.3f s (%.0f%%); the tail from the last moment at %d or more: %.3f s"
          % (area / span, j, area / span / j, j - 1, full, 100 * full / span, j - 1, last_reply - last_full))
    if span > 3 * lat:
        # the pipeline filling up and draining: the first and the last latency against the rest
        print("the budget's fill: %.3f in the first %.0f ms (filling up), %.3f in the last (the last records' "
              "stages), %.3f in between" % (fill(first, first + lat), 1000 * lat, fill(last_reply - lat, last_reply),
                                            fill(first + lat, last_reply - lat)))


main()
