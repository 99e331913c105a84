#!/usr/bin/env python3
"""peerfake.py - the fake OpenAI-compatible judge of bench/peers.sh (a benchmark, not a test).

Standard library only; listens on 127.0.0.1. It answers, after a fixed latency:
  * ragpipe's prompts as tests/fakellm.py does (its AUTO replies, imported from it);
  * autoevals' RAGAS scorers (JS autoevals 0.3.0), which ask for a tool call: the reply is
    message.tool_calls[0] with the arguments the scorer's schema wants
      extract_statements (Faithfulness)  {"statements": [sentences of the answer]}
      extract_statements (ContextRecall) {"statements": [{"statement", "attributed", "reason"}]}
      judge_statements                   {"faithfulness": [{"statement", "verdict", "reason"}]}
      generate_question                  {"question", "noncommittal"}
      verify (ContextPrecision)          {"reason", "verdict"}
  * promptfoo's model-graded RAG assertions (0.121.20), plain text:
      context-faithfulness  the statements one a line, then the NLI reply ending
                            "Final verdict for each statement in order: Yes. No. ..."
      answer-relevance      a question
      context-recall        "N. sentence So [Attributed]" (or [Not Attributed]) a line
  * POST /v1/embeddings as tests/fakellm.py (a bag-of-words vector, 16 numbers by default).
Every judgement is the same rule whatever the tool: a statement is unsupported (a reference
sentence not attributed, a context not useful) exactly when it holds "UNSUPPORTED" (or
"IRRELEVANT" for a context), so the tools' scores can be compared.

  python3 bench/peerfake.py --port 0 --port-file F --log LOG --latency-ms 200 [--max-seconds S]
                            [--cached-tokens]

The log has one JSON line a request, written when the request arrives:
  {"t": unix time, "path", "kind": which prompt, "chars": characters of the messages' text (the
   embeddings' input), "schema_chars": characters of "tools" and "response_format",
   "inflight": requests in progress then, this one included,
   "prompt_tokens", "completion_tokens": what the reply's usage says (below),
   "prefix_tokens": the longest prefix the prompt shares with any prompt seen before,
   "cached_tokens": of it, what OpenAI's prompt cache serves (below)}

Usage: prompt_tokens (characters of the messages' text and of the schemas) / 4, at least 1;
completion_tokens the reply's content (or tool call arguments) / 4, at least 1; an embeddings
request's prompt_tokens the sum over its texts of characters / 4. prefix_tokens is the longest
common prefix, in characters / 4, of the prompt (its messages as "[role]\ncontent\n", as
tests/fakellm.py --cached-tokens reads them) with every prompt this fake received before;
cached_tokens applies OpenAI's rule to it (its Prompt Caching guide: only prompts of 1,024
tokens or more, hits in steps of 128 tokens): floor(prefix / 128) x 128 when the prefix is
1,024 tokens or more, else 0. With --cached-tokens the replies' usage says cached_tokens in
usage.prompt_tokens_details, as OpenAI's does.
"""

import argparse
import bisect
import http.server
import importlib.util
import json
import os
import re
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("fakellm", os.path.join(HERE, "..", "tests", "fakellm.py"))
fakellm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fakellm)

split_sentences = fakellm.split_sentences


def after_last(text, start, end=None):
    """The text after the last `start` (up to the next `end`), stripped; None without `start`."""
    i = text.rfind(start)
    if i < 0:
        return None
    s = text[i + len(start):]
    if end is not None:
        j = s.find(end)
        if j >= 0:
            s = s[:j]
    return s.strip()


def unquote(s):
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] == '"':
        s = s[1:-1]
    return s


def question_for(answer):
    return "What is said about: %s?" % answer.strip().rstrip(".!?")


def autoevals_reply(req, text):
    """(tool name, arguments) for an autoevals tool-call request, or None."""
    tools = req.get("tools")
    if not isinstance(tools, list) or not tools:
        return None
    try:
        name = tools[0]["function"]["name"]
    except (KeyError, TypeError):
        return None
    task = text[text.rfind("Your actual task:"):] if "Your actual task:" in text else text
    if name == "extract_statements" and "can be attributed" in text:
        ref = unquote(after_last(task, "answer:", "\nclassification:") or "")
        return name, {"statements": [{"statement": s, "attributed": 0 if "UNSUPPORTED" in s else 1,
                                      "reason": "fake"} for s in split_sentences(ref)]}
    if name == "extract_statements":
        ans = unquote(after_last(task, "answer:", "\nstatements:") or "")
        if "I don't know" in ans:
            return name, {"statements": []}
        return name, {"statements": split_sentences(ans)}
    if name == "judge_statements":
        st = after_last(task, "statements:", "\nanswer:") or ""
        # mustache writes the list joined by commas: split after . ! ? before a comma
        parts = [p.strip() for p in re.split(r"(?<=[.!?]),", st) if p.strip()]
        return name, {"faithfulness": [{"statement": p, "verdict": 0 if "UNSUPPORTED" in p else 1,
                                        "reason": "fake"} for p in parts]}
    if name == "generate_question":
        ans = unquote(after_last(task, "answer:", "\ncontext:") or "")
        nc = 1 if ("I don't know" in ans or "not sure" in ans) else 0
        return name, {"question": question_for(ans), "noncommittal": nc}
    if name == "verify":
        ctx = after_last(task, "context:", "\nanswer:") or ""
        return name, {"reason": "fake", "verdict": 0 if "IRRELEVANT" in ctx else 1}
    return name, {"error": "fake: unknown tool"}


def promptfoo_reply(text):
    """(kind, plain text) for a promptfoo RAG assertion's prompt, or None."""
    if text.startswith("Given a question and answer, create one or more statements"):
        ans = after_last(text, "\nanswer:", "\nstatements:") or ""
        return "pf-statements", "\n".join(split_sentences(ans))
    if text.startswith("Prompt: Natural language inference"):
        st = after_last(text, "\nstatements:", "\nAnswer:") or ""
        lines = [l.strip() for l in st.splitlines() if l.strip()]
        out, final = [], []
        for i, l in enumerate(lines):
            v = "No" if "UNSUPPORTED" in l else "Yes"
            out.append("%d. %s\nExplanation: fake. Verdict: %s." % (i + 1, l, v))
            final.append(v + ".")
        out.append("Final verdict for each statement in order: " + " ".join(final))
        return "pf-nli", "\n".join(out)
    if text.startswith("Generate question for the given answer."):
        return "pf-question", question_for(after_last(text, "Answer:", "\nQuestion:") or "")
    if "classify if the sentence can be attributed" in text and "[Attributed]" in text:
        ref = after_last(text, "\nanswer:", "\nclassification:") or ""
        return "pf-recall", "\n".join(
            "%d. %s So %s" % (i + 1, s, "[Not Attributed]" if "UNSUPPORTED" in s else "[Attributed]")
            for i, s in enumerate(split_sentences(ref)))
    return None


class State:
    def __init__(self, log_path, latency_ms):
        self.lock = threading.Lock()
        self.inflight = 0
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None
        self.latency = latency_ms / 1000.0
        self.seen = []            # every prompt so far, sorted: a longest common prefix is a neighbour's

    def prefix(self, req):
        """The longest prefix (characters) the prompt shares with a prompt seen before; noted."""
        text = "".join("[%s]\n%s\n" % (m.get("role"), fakellm.message_text(m.get("content")))
                       for m in req.get("messages") or [] if isinstance(m, dict))
        with self.lock:
            i = bisect.bisect_left(self.seen, text)
            best = max([len(os.path.commonprefix([text, self.seen[j]])) for j in (i - 1, i)
                        if 0 <= j < len(self.seen)] or [0])
            self.seen.insert(i, text)
        return best

    def arrive(self, entry):
        with self.lock:
            self.inflight += 1
            entry["inflight"] = self.inflight
            if self.log:
                self.log.write(json.dumps(entry) + "\n")
                self.log.flush()

    def leave(self):
        with self.lock:
            self.inflight -= 1


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "peerfake/1.0"

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, obj):
        body = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            # headers and body in one write (Nagle and delayed ACKs, as in tests/fakellm.py)
            self._headers_buffer.append(b"\r\n")
            self._headers_buffer.append(body)
            self.flush_headers()
        except OSError:
            self.close_connection = True

    def do_GET(self):
        self.reply(200 if self.path.startswith("/health") else 404, {"ok": True})

    def do_POST(self):
        st = self.server.state
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n > 0 else b""
        try:
            req = json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            req = None
        if not isinstance(req, dict):
            self.reply(400, {"error": {"message": "fake: not a JSON object"}})
            return
        path = self.path.split("?")[0]
        schema = sum(len(json.dumps(req[k])) for k in ("tools", "response_format") if k in req)
        if path.endswith("/embeddings"):
            inp = req.get("input")
            inp = [inp] if isinstance(inp, str) else (inp if isinstance(inp, list) else [])
            st.arrive({"t": time.time(), "path": path, "kind": "embeddings",
                       "chars": sum(len(t) for t in inp if isinstance(t, str)), "schema_chars": 0,
                       "prompt_tokens": sum(max(1, len(t) // 4) for t in inp if isinstance(t, str))})
            try:
                time.sleep(st.latency)
                dims = req.get("dimensions") if isinstance(req.get("dimensions"), int) else 16
                data = [{"object": "embedding", "index": i,
                         "embedding": fakellm.embed_vector(t if isinstance(t, str) else "", dims)}
                        for i, t in enumerate(inp)]
                toks = sum(max(1, len(t) // 4) for t in inp if isinstance(t, str))
            finally:
                st.leave()
            self.reply(200, {"object": "list", "data": data, "model": req.get("model") or "fake",
                             "usage": {"prompt_tokens": toks, "total_tokens": toks}})
            return
        if not path.endswith("/chat/completions"):
            self.reply(404, {"error": {"message": "fake: not found"}})
            return
        msgs = req.get("messages") if isinstance(req.get("messages"), list) else []
        users = [fakellm.message_text(m.get("content")) for m in msgs
                 if isinstance(m, dict) and m.get("role") == "user"]
        last = users[-1] if users else ""
        message = {"role": "assistant", "content": None}
        finish = "stop"
        ae = autoevals_reply(req, last)
        pf = None if ae is not None else promptfoo_reply(last)
        if ae is not None:
            kind = "ae-" + ae[0]
            message["tool_calls"] = [{"id": "call_fake", "type": "function",
                                      "function": {"name": ae[0], "arguments": json.dumps(ae[1])}}]
            finish = "tool_calls"
            content_len = len(message["tool_calls"][0]["function"]["arguments"])
        elif pf is not None:
            kind, message["content"] = pf
            content_len = len(pf[1])
        else:
            obj, kind = fakellm.auto_reply(req)
            kind = "rp-" + str(kind)
            message["content"] = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
            content_len = len(message["content"])
        chars = fakellm.prompt_chars(req)
        pt, ct = max(1, (chars + schema) // 4), max(1, content_len // 4)
        pre = min(pt, st.prefix(req) // 4)
        cached = pre // 128 * 128 if pre >= 1024 else 0
        st.arrive({"t": time.time(), "path": path, "kind": kind, "chars": chars, "schema_chars": schema,
                   "prompt_tokens": pt, "completion_tokens": ct, "prefix_tokens": pre, "cached_tokens": cached})
        try:
            time.sleep(st.latency)
        finally:
            st.leave()
        usage = {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
        if self.server.cached_tokens:
            usage["prompt_tokens_details"] = {"cached_tokens": cached}
        self.reply(200, {"id": "chatcmpl-peerfake", "object": "chat.completion", "created": int(time.time()),
                         "model": req.get("model") or "fake", "choices": [
                             {"index": 0, "message": message, "finish_reason": finish}],
                         "usage": usage})


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512

    def handle_error(self, request, client_address):
        pass


def main():
    ap = argparse.ArgumentParser(description="the fake judge of bench/peers.sh")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--latency-ms", type=float, default=200)
    ap.add_argument("--max-seconds", type=float, default=3600)
    ap.add_argument("--cached-tokens", action="store_true",
                    help="say in usage.prompt_tokens_details.cached_tokens what OpenAI's prompt cache serves")
    a = ap.parse_args()
    srv = Server(("127.0.0.1", a.port), Handler)
    srv.state = State(a.log, a.latency_ms)
    srv.cached_tokens = a.cached_tokens

    def watchdog():
        time.sleep(a.max_seconds)
        os._exit(0)
    threading.Thread(target=watchdog, daemon=True).start()
    if a.port_file:
        tmp = "%s.tmp.%d" % (a.port_file, os.getpid())
        with open(tmp, "w") as f:
            f.write("%d\n" % srv.server_address[1])
        os.replace(tmp, a.port_file)
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
