#!/usr/bin/env python3
"""fakerag.py - a fake RAG service for the rag-collect tests.

Standard library only. Listens on 127.0.0.1 only and exits by itself after --max-seconds.

  python3 tests/fakerag.py --port 0 --port-file F [--plan PLAN.json] [--log LOG.jsonl]
                           [--latency-ms N] [--max-seconds N] [--arrivals FILE]

The log gets a request's line once it has been answered; --arrivals FILE gets one line ("n
path") as each request arrives, before its latency, so a test can wait for requests in flight.

Endpoints (answers derived from the question alone, so the same question gets the same reply)
  POST /ask                  {"question": Q} -> {"answer": "Answer to: Q",
                             "sources": [{"id": "doc-<n>", "text": "Context <n> about Q"}, x2]}
                             where n is len(Q) and len(Q)+1
  POST /v1/chat/completions  OpenAI-style: the last user message is Q; {"choices": [{"message":
                             {"role": "assistant", "content": "Answer to: Q"}}]}, or with
                             "stream": true a text/event-stream of chunks (choices[0].delta.content,
                             a word each) ended by "data: [DONE]"
  POST /sse                  {"question": Q} -> text/event-stream: events {"delta": word} for the
                             words of the answer, then {"sources": [...]} as /ask has them
  GET  /health               -> 200 "ok"

PLAN (--plan FILE): a JSON array of rules, tried in order; a rule applies when its "match"
substring occurs in the raw body (no "match": every request) and its "times" is not used up
("times": -1 or absent = unlimited). Keys:
  "status": N        reply with that status and {"error": {"message": "fake"}} (with
                     "echo_header": NAME, the message quotes the request's header NAME); with
                     "body", that body instead (a proxy's page, {"detail": ...}, [])
  "retry_after": S   with a Retry-After: S header (status defaults to 429)
  "delay_ms": N      sleep N ms first, then go on (alone: a normal reply, late)
  "drop": true       close the connection without a response
  "body": "raw"      send this raw body (status 200 unless "status"), e.g. bad JSON; a body that
                     is not a string is sent as JSON; {{token}} is the last word of Authorization
  "ctype": "type"    the Content-Type of a "body" (default application/json)
  "no_sources": true the normal reply without "sources"
  "empty_sources": true  the normal reply with "sources": []
  "echo_header": NAME    the normal reply's answer also quotes the request's header NAME
  "multiline": true  streams: each event's JSON over several data: lines, with an event: field
  "crlf": true       streams: lines end with CR LF
  "echo_token": true the normal reply's answer also quotes the last word of Authorization
  "cut_body": true   /ask: the headers with the full Content-Length, half the body, then close
  "meta": {...}      /ask: the reply also says what ran: "meta" is this object with "top_k" the
                     request's top_k (3 when it sent none), as a service reports its own settings
  "cut_stream": true streams: no Content-Length, cut in the middle of the last answer event's
                     JSON, then the connection closed (no [DONE], no transport error)
  "no_done": true    streams: the events, each whole, and no "data: [DONE]" before the close
Every request is logged (--log) as one JSON line: {"n", "path", "method", "body" (parsed or raw),
"headers": {lower-case name: value}, "rule": index or null, "t": start time, "t_end": end time}.
"""

import argparse
import http.server
import json
import socket
import sys
import threading
import time

from fakellm import words  # the answer in pieces that join back to it exactly


def sources_for(q):
    n = len(q)
    return [{"id": "doc-%d" % n, "text": "Context %d about %s" % (n, q)},
            {"id": "doc-%d" % (n + 1), "text": "Context %d about %s" % (n + 1, q)}]


class State:
    def __init__(self, plan, log, latency, arrivals=None):
        self.arrivals = arrivals
        self.plan = plan
        self.used = [0] * len(plan)
        self.lock = threading.Lock()
        self.log = log
        self.latency = latency
        self.n = 0

    def arrived(self, n, path):
        if not self.arrivals:
            return
        with self.lock:
            with open(self.arrivals, "a", encoding="utf-8") as f:
                f.write("%d %s\n" % (n, path))

    def rule(self, raw):
        with self.lock:
            self.n += 1
            n = self.n
            for i, r in enumerate(self.plan):
                if "match" in r and r["match"] not in raw:
                    continue
                times = r.get("times", -1)
                if times >= 0 and self.used[i] >= times:
                    continue
                self.used[i] += 1
                return n, i, r
            return n, None, {}

    def write(self, entry):
        if not self.log:
            return
        with self.lock:
            with open(self.log, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        if self.path == "/health":
            return self.reply(200, b"ok", "text/plain")
        self.handle_request()

    def do_POST(self):
        self.handle_request()

    do_PUT = do_POST
    do_PATCH = do_POST

    def reply(self, status, body, ctype="application/json", headers=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(body)

    def handle_request(self):
        st = self.server.state
        t0 = time.time()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        n, idx, rule = st.rule(raw)
        st.arrived(n, self.path)
        entry = {"n": n, "path": self.path, "method": self.command, "body": body,
                 "headers": {k.lower(): v for k, v in self.headers.items()}, "rule": idx, "t": t0}
        try:
            self.serve(st, body, rule)
        finally:
            entry["t_end"] = time.time()
            st.write(entry)

    def question(self, body):
        if self.path.startswith("/v1/chat/completions"):
            msgs = body.get("messages", []) if isinstance(body, dict) else []
            users = [m.get("content", "") for m in msgs if isinstance(m, dict) and m.get("role") == "user"]
            return users[-1] if users else ""
        if isinstance(body, dict):
            return str(body.get("question", ""))
        return ""

    def serve(self, st, body, rule):
        delay = rule.get("delay_ms", st.latency)
        if delay:
            time.sleep(delay / 1000.0)
        if rule.get("drop"):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if "body" in rule:
            b = rule["body"]
            if not isinstance(b, str):
                b = json.dumps(b)
            b = b.replace("{{token}}", str(self.headers.get("Authorization", "")).split(" ")[-1])
            return self.reply(rule.get("status", 200), b.encode("utf-8"), rule.get("ctype", "application/json"))
        if "status" in rule or "retry_after" in rule:
            h = {"Retry-After": rule["retry_after"]} if "retry_after" in rule else {}
            err = {"error": {"message": "fake"}}
            if rule.get("echo_header"):
                err["error"]["message"] = "bad credentials: " + str(self.headers.get(rule["echo_header"]))
            return self.reply(rule.get("status", 429), json.dumps(err).encode("utf-8"), headers=h)
        q = self.question(body)
        answer = "Answer to: " + q
        if rule.get("echo_header"):
            answer += " [" + str(self.headers.get(rule["echo_header"])) + "]"
        if rule.get("echo_token"):
            # the token alone, without its "Bearer "
            answer += " (token " + str(self.headers.get("Authorization", "")).split(" ")[-1] + ")"
        src = sources_for(q)
        if rule.get("no_sources"):
            src = None
        elif rule.get("empty_sources"):
            src = []
        if self.path.startswith("/v1/chat/completions"):
            if isinstance(body, dict) and body.get("stream"):
                events = [{"choices": [{"index": 0, "delta": {"content": w}}]}
                          for w in words(answer)]
                return self.stream(events, rule)
            out = {"id": "fake", "object": "chat.completion",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                                "finish_reason": "stop"}]}
            return self.reply(200, json.dumps(out, ensure_ascii=False).encode("utf-8"))
        if self.path.startswith("/sse"):
            events = [{"delta": w} for w in words(answer)]
            if src is not None:
                events.append({"sources": src})
            return self.stream(events, rule)
        out = {"answer": answer}
        if src is not None:
            out["sources"] = src
        if isinstance(rule.get("meta"), dict):
            sent = body.get("top_k") if isinstance(body, dict) else None
            out["meta"] = dict(rule["meta"], top_k=sent if sent is not None else 3)
        data = json.dumps(out, ensure_ascii=False).encode("utf-8")
        if rule.get("cut_body"):
            # the headers promise the whole body; half of it comes, then the connection closes
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        return self.reply(200, data)

    def stream(self, events, rule):
        parts = [": a comment line", ""]
        for e in events:
            if rule.get("multiline"):
                # one event over several data: lines (JSON broken between tokens), and an
                # event: field, which is not data
                parts.append("event: chunk")
                parts.extend("data: " + line for line in json.dumps(e, ensure_ascii=False, indent=1).split("\n"))
            else:
                parts.append("data: " + json.dumps(e, ensure_ascii=False))
            parts.append("")
        if not rule.get("no_done"):
            parts += ["data: [DONE]", "", "data: {\"answer\": \"after DONE\"}", ""]
        nl = "\r\n" if rule.get("crlf") else "\n"
        text = nl.join(parts) + (nl if rule.get("no_done") else "")
        if not rule.get("cut_stream"):
            return self.reply(200, text.encode("utf-8"), "text/event-stream")
        # the middle of the last event that carries a piece of the answer
        last = [e for e in events if "sources" not in e][-1]
        at = text.index(json.dumps(last, ensure_ascii=False)) + len(json.dumps(last, ensure_ascii=False)) // 2
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(text[:at].encode("utf-8"))
        self.wfile.flush()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 drops the SYNs of a client opening more connections at
    # once, which then wait 1 s (3 s...) to retry: latency that is the server's, not the client's
    request_queue_size = 256


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--plan")
    ap.add_argument("--log")
    ap.add_argument("--latency-ms", type=int, default=0)
    ap.add_argument("--max-seconds", type=float, default=300)
    ap.add_argument("--arrivals")
    a = ap.parse_args()
    plan = []
    if a.plan:
        with open(a.plan, encoding="utf-8") as f:
            plan = json.load(f)
    srv = Server(("127.0.0.1", a.port), Handler)
    srv.state = State(plan, a.log, a.latency_ms, a.arrivals)
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(srv.server_address[1]))
        import os
        os.replace(a.port_file + ".tmp", a.port_file)
    timer = threading.Timer(a.max_seconds, srv.shutdown)
    timer.daemon = True
    timer.start()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
