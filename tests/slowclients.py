#!/usr/bin/env python3
"""slowclients.py - slow HTTP clients ("slowloris"), bounded, for rag-serve's tests and bench.

  slowclients.py --port PORT -n N [--source ADDR[,ADDR...]] [--interval MIN:MAX]
                 [--path PATH] [--reconnect] [--max-seconds S] [--state FILE] [--seed N]

Opens N connections to 127.0.0.1:PORT (never another host), each bound to a source address
of --source in turn (127.0.0.2 by default: on Linux every 127.0.0.0/8 address is this
machine's loopback, so each stands for another client), sends the start of a request
("GET PATH HTTP/1.1" and a Host line) and then one more header line every MIN to MAX seconds
(default 5:15), never the blank line that ends the head. A connection the server closes is
counted (with how long it lived); with --reconnect it is opened again a second later, so that
N keep trying. Ends after --max-seconds (default 60), on SIGTERM or SIGINT, and when no connection
is left to keep (without --reconnect).

--state FILE is rewritten (atomically) whenever a count changes, as one JSON object:
  {"opened": connections made, "open": open now, "closed": closed by the server,
   "failed": connects that failed, "lives": [seconds each closed one lived, the first 1000],
   "done": true once it has ended}
so that a test waits on the state, not the clock. Exit status 0.
"""
import argparse
import json
import os
import random
import selectors
import signal
import socket
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("-n", type=int, required=True)
    ap.add_argument("--source", default="127.0.0.2")
    ap.add_argument("--interval", default="5:15")
    ap.add_argument("--path", default="/api/runs")
    ap.add_argument("--reconnect", action="store_true")
    ap.add_argument("--max-seconds", type=float, default=60)
    ap.add_argument("--state")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.n < 1 or a.n > 2000:
        sys.exit("slowclients.py: -n is 1 to 2000")
    lo, hi = (float(x) for x in a.interval.split(":"))
    sources = [s for s in a.source.split(",") if s]
    for s in sources:
        if not s.startswith("127."):
            sys.exit("slowclients.py: a source address is a loopback one (127.x.y.z)")
    rnd = random.Random(a.seed)
    sel = selectors.DefaultSelector()
    st = {"opened": 0, "open": 0, "closed": 0, "failed": 0, "lives": [], "done": False}
    conns = {}   # socket -> [t_open, t_next, lines sent]
    reopen = []  # when each closed one is opened again (--reconnect)
    stop = [False]

    def on_signal(*_):
        stop[0] = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def write_state():
        if not a.state:
            return
        tmp = a.state + ".tmp"
        with open(tmp, "w") as f:
            json.dump(st, f)
        os.replace(tmp, a.state)

    def opener(i):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((sources[i % len(sources)], 0))
            s.settimeout(5)
            s.connect(("127.0.0.1", a.port))
            s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % (a.path, a.port)).encode())
        except OSError:
            s.close()
            st["failed"] += 1
            if a.reconnect:
                reopen.append(time.monotonic() + 1)
            return
        s.setblocking(False)
        now = time.monotonic()
        conns[s] = [now, now + rnd.uniform(lo, hi), 0]
        sel.register(s, selectors.EVENT_READ)
        st["opened"] += 1
        st["open"] += 1

    def closed(s):
        t0 = conns.pop(s)[0]
        sel.unregister(s)
        s.close()
        st["open"] -= 1
        st["closed"] += 1
        if len(st["lives"]) < 1000:
            st["lives"].append(round(time.monotonic() - t0, 3))
        if a.reconnect:
            reopen.append(time.monotonic() + 1)

    end = time.monotonic() + a.max_seconds
    for i in range(a.n):
        opener(i)
    write_state()
    k = a.n
    while not stop[0] and time.monotonic() < end and (conns or reopen):
        now = time.monotonic()
        wake = min([c[1] for c in conns.values()] + reopen + [now + 0.5, end])
        changed = False
        for key, _ in sel.select(max(0.0, wake - now)):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:   # the server closed it (a reply to a request never ended is a close too)
                closed(s)
                changed = True
        now = time.monotonic()
        for s, c in list(conns.items()):
            if c[1] <= now:
                try:
                    s.send(("X-Slow-%d: %d\r\n" % (c[2], c[2])).encode())
                    c[2] += 1
                    c[1] = now + rnd.uniform(lo, hi)
                except OSError:
                    closed(s)
                    changed = True
        while reopen and reopen[0] <= now and not stop[0]:
            reopen.pop(0)
            opener(k)
            k += 1
            changed = True
        if changed:
            write_state()
    for s in list(conns):
        sel.unregister(s)
        s.close()
    st["open"] = 0
    st["done"] = True
    write_state()
    return 0


if __name__ == "__main__":
    sys.exit(main())
