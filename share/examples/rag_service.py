#!/usr/bin/env python3
"""rag_service.py - a small RAG service for the ragpipe demonstration (python3, stdlib only).

It retrieves the chunks (paragraphs) of the documents in a directory (default: docs/ beside it)
by keyword overlap with the question, and answers with the sentences of the best chunks that
share most words with the question (an extractive answer). English words and Chinese character
bigrams are the keywords.

    POST /ask  {"question": "..."}  ->  {"answer": "...", "sources": [{"id": "x200#1", "text": "..."}]}
    GET /health                     ->  {"ok": true}

    python3 rag_service.py [--port N] [--port-file FILE] [--docs DIR] [--top K] [--latency MS]

--port 0 (the default) takes a free port, written to --port-file when given. --latency adds a
delay to every answer (for benchmarks). It serves many requests at once (one thread each)."""
import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STOP = set("a an and are as at be by did do does for from had has have how in is it its of on or "
           "that the this to was were what when where which who why will with".split())


def keywords(text):
    """English words (lower case, no stop words) and Chinese character bigrams."""
    text = text.lower()
    words = [w for w in re.findall(r"[a-z0-9][a-z0-9.\-]*[a-z0-9]|[a-z0-9]", text) if w not in STOP]
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        words.extend(run[i:i + 2] for i in range(max(1, len(run) - 1)))
    return words


def sentences(text):
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|(?<=[。！？])\s*", text) if s.strip()]


def load(docs):
    chunks = []
    for name in sorted(os.listdir(docs)):
        if not name.endswith(".txt"):
            continue
        with open(os.path.join(docs, name), encoding="utf-8") as f:
            paras = [p.strip() for p in f.read().split("\n\n") if p.strip()]
        stem = name[:-4]
        for i, p in enumerate(paras, 1):
            chunks.append({"id": "%s#%d" % (stem, i), "text": p, "keys": set(keywords(p))})
    return chunks


def answer(chunks, question, top):
    q = set(keywords(question))
    scored = sorted(((len(q & c["keys"]), i) for i, c in enumerate(chunks)), key=lambda t: (-t[0], t[1]))
    hits = [chunks[i] for n, i in scored[:top] if n > 0]
    if not hits:
        return "I don't know: no document answers that.", []
    best = []
    for c in hits:
        for s in sentences(c["text"]):
            best.append((len(q & set(keywords(s))), s))
    best.sort(key=lambda t: -t[0])
    text = " ".join(s for n, s in best[:2] if n > 0) or hits[0]["text"]
    return text, [{"id": c["id"], "text": c["text"]} for c in hits]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--docs", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "docs"))
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--latency", type=float, default=0, help="milliseconds added to every answer")
    a = ap.parse_args()
    chunks = load(a.docs)
    if not chunks:
        sys.exit("rag_service.py: no documents (*.txt) in %s" % a.docs)
    lock = threading.Lock()
    stats = {"requests": 0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def reply(self, code, obj):
            body = json.dumps(obj, ensure_ascii=False).encode("utf-8")
            self.send_response(code)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/health":
                with lock:
                    n = stats["requests"]
                self.reply(200, {"ok": True, "requests": n})
            else:
                self.reply(404, {"error": "not found"})

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            try:
                req = json.loads(self.rfile.read(n) or b"{}")
                question = req["question"]
                if not isinstance(question, str):
                    raise ValueError
            except (ValueError, KeyError, TypeError):
                self.reply(400, {"error": "send JSON {\"question\": \"...\"}"})
                return
            if self.path != "/ask":
                self.reply(404, {"error": "not found"})
                return
            with lock:
                stats["requests"] += 1
            if a.latency:
                time.sleep(a.latency / 1000.0)
            text, sources = answer(chunks, question, a.top)
            self.reply(200, {"answer": text, "sources": sources})

        def log_message(self, fmt, *args):
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        # the default backlog (5) drops the connections of a client that opens many at once,
        # and each waits a second to retry
        request_queue_size = 128

    srv = Server(("127.0.0.1", a.port), Handler)
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(srv.server_address[1]))
        os.rename(a.port_file + ".tmp", a.port_file)
    print("rag_service.py: %d chunks, http://127.0.0.1:%d/ask" % (len(chunks), srv.server_address[1]),
          file=sys.stderr)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
