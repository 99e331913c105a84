#!/usr/bin/env python3
r"""fakellm.py - a fake OpenAI-compatible chat completions server for the ragpipe tests.

Standard library only. Listens on 127.0.0.1 only and exits by itself after --max-seconds.

  python3 tests/fakellm.py --port 0 --port-file F [--plan PLAN.json] [--log LOG.jsonl]
                           [--latency-ms N] [--max-seconds N] [--require-key KEY]
                           [--cached-tokens openai|deepseek] [--provider MODE]
                           [--require-header NAME=VALUE]

Endpoints
  POST /v1/chat/completions  (also /chat/completions)
  POST /v1/embeddings        (also /embeddings): {"model", "input": str or [str], "dimensions"?}
       -> data[i].embedding: a deterministic bag-of-words vector of "dimensions" numbers
          (default 16): slot 0 is 1, each word (lower-cased \w+ run) adds 1 to slot
          1 + md5(word) % (dims - 1); so the same text gives the same vector, and texts that
          share words are similar
  GET  /health               -> 200 "ok"
  The batch route, as OpenAI's (azure: /openai/files?api-version=V and /openai/batches?..., or
  /openai/v1/files and /openai/v1/batches), with the key checked as on the chat route:
  POST /v1/files             multipart form, purpose "batch" and a file -> {"id": "file-fake-N", ...}
  POST /v1/batches           {"input_file_id", "endpoint": "/v1/chat/completions" (azure
                             "/chat/completions"), "completion_window": "24h"} -> the batch,
                             "validating"
  GET  /v1/batches/ID        the batch one step on at each look (no clock): validating ->
                             in_progress, then --batch-step lines answered a look (default a third
                             of them; with --batch-hold none until POST /_fake/release) ->
                             finalizing -> completed, with output_file_id and error_file_id (each
                             only when it has lines) and request_counts {total, completed, failed}
  GET  /v1/files/ID/content  the file: output lines {"id", "custom_id", "response": {"status_code":
                             200, "request_id", "body": the chat completion}, "error": null}; error
                             lines with "response" of another status or "error": {"code",
                             "message"}
  Each line of a batch is answered as the chat route answers its body (the plan's rules too, as
  for a request; a rule's "via": "batch" or "live" keeps it to one route), logged with "path":
  "batch:/v1/chat/completions", "batch" and "custom_id". A rule's "batch": "error" puts its line
  in the error file (code server_error); "batch": "fail" fails the whole batch as it is
  validated ("failed", errors.data naming the line, no file); "batch": "expire" ends the batch
  at its line: "expired",
  that line and every later one in the error file (code batch_expired), as OpenAI's batches that
  outlive their window. The batch route's requests are logged too (the upload with its "content",
  GETs with "method": "GET"). --batch-max-lines and --batch-max-bytes refuse (400) an upload of
  more requests or bytes, as a provider refuses a batch over its limits.

AUTO replies (no plan rule applies) read the LAST user message (or, when a re-ask appended a
plain user message, the last user message that holds a block):
  * a <<<STATEMENTS-xxxxxxxx ... STATEMENTS-xxxxxxxx>>> block with lines "N. text" ->
      {"verdicts": [{"id": N, "verdict": true|false, "reason": "fake: ..."}]}
    the verdict is false exactly when the statement contains "UNSUPPORTED";
  * else <<<CHUNK-xxxxxxxx ... >>> blocks, or <<<CONTEXT- blocks in a message with no STATEMENTS,
    TEXT, CLAIM, ANSWER_TEXT or ANSWER_STATEMENTS block (rag-verify --chunks) -> {"verdicts": [{"id": i,
    "verdict", "reason"}]}, one per block in order, false exactly when the chunk contains
    "IRRELEVANT";
  * else a <<<ANSWER-xxxxxxxx ... >>> block (rag-revq) -> {"questions": [N questions], "noncommittal":
    bool}, N from "N question(s)" / "N 个问题" in the message; question i is "What is said about:
    <answer>?" (with " (i)" after the first); noncommittal exactly when the answer contains
    "I don't know", "not sure" or "不知道"; a request with "n": K gets K choices (choice i > 0
    with " [choice i]" after each question; other replies: K copies)
  * else a <<<TEXT-xxxxxxxx ... >>> block -> {"claims": [sentences]}
    (split after . ! ? followed by blank/end, and after 。！？; "I don't know" -> []);
  * a rag-judge rubric prompt (a user message ending 'the rubric "NAME" on the scale S', or
    '评分标准“NAME”、在分数范围 S 内'; checked first, as it holds an ANSWER block too) ->
      {"score": V, "reason": "fake: rubric NAME scored V"}
    V from a marker in the ANSWER block (else the whole message): "SCORE:NAME=V" for that
    rubric, else "SCORE=V" (a number, or yes / no), else the top of the scale (10, 5, yes).
    With "JITTER" in the answer and a "seed" s in the request, V moves by the seed: s % 3 == 2
    adds 1, s % 3 == 0 takes 1 (clamped to the scale; yes/no: s % 3 == 2 turns it over), so
    seeds 1, 2, 3 give V, V+1, V-1. Plan rules on it: "few" drops the reason, "empty_list"
    empties it, "bad_ids" adds 100 to the score, "wrong_types" makes it a string ("yes": a
    list), "echo_key" quotes the key in the reason;
  * a metric tool's score-and-reason prompt (a <<<SCORED-xxxxxxxx ... >>> block: the text it
    scores; checked after the rubric) -> {"score": V, "reason": "fake: scored V"}, V 0 exactly
    when the block contains "UNSUPPORTED", else 1; the plan's rules change it as a rubric reply;
  * else a <<<CLAIM-xxxxxxxx ... >>> block (rag-verify --mode claim|claim_chunk: a verifier
    model) -> the plain text "Yes", or "No" exactly when the claim contains "UNSUPPORTED" or
    the document (the <<<DOCUMENT- block) contains "IRRELEVANT"; not JSON;
  * else <<<ANSWER_STATEMENTS- and <<<REFERENCE_STATEMENTS- blocks (rag-verify --metric
    answer_correctness) -> {"answer": [{"id", "verdict", "reason"}], "reference": [...]}: a
    statement of one list is true exactly when the other list has the same statement (case,
    blanks and final . ! ? 。 aside) and it does not contain "UNSUPPORTED";
  * else a <<<ANSWER_TEXT- block (rag-verify --one-request) -> {"claims": [{"claim", "verdict",
    "reason"}]}: the sentences of the answer (as for TEXT), false exactly when one contains
    "UNSUPPORTED"; "I don't know" -> [];
  * a rag-gen prompt (a <<<DOCUMENT- block and a plan of lines "N. difficulty, type"; checked
    first) -> {"questions": [{"question", "reference", "difficulty", "type"}]}, one per plan
    line with its difficulty and type; the reference is the document's sentence i (in turn),
    the question "Question N (difficulty, type): what is said about <its first six words>?"
    (Chinese: 第 N 个问题（difficulty, type）：关于“<its first 12 characters>”说了什么？); with "DUPLICATE" in the
    document every question is "What is the DUPLICATE question?";
  * else a user message "QUESTION: Q" (a RAG service behind a chat endpoint: rag-collect) -> the
    plain text "Answer to: Q" (with "echo_key", " (key: KEY)" after it);
  * else {"error": "fake: unknown prompt"} as the content, with status 200.
A request with "stream": true gets the reply as a text/event-stream of OpenAI's chunks
(choices[0].delta.content, a word each, then one with finish_reason and usage), ended by
"data: [DONE]".
--cached-tokens openai|deepseek: every chat reply's usage says how many prompt tokens a prefix
cache served, as that provider does (usage.prompt_tokens_details.cached_tokens, or
usage.prompt_cache_hit_tokens and prompt_cache_miss_tokens): the longest prefix, in characters / 4,
that the prompt (each message's "[role]\n" and content and "\n", in order) shares with any prompt
the fake saw before; a plan rule's "usage" still replaces it.

--provider MODE: answer as that provider's OpenAI-compatible endpoint does, by its documentation
(the plain fake is "openai"):
  openai-reasoning  an o-series or gpt-5 model: a request with max_tokens gets OpenAI's 400
                    {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with
                    this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error",
                    "param": "max_tokens", "code": "unsupported_parameter"}}, one with a temperature but 1
                    the 400 of "param": "temperature", "code": "unsupported_value"; usage with
                    completion_tokens_details.reasoning_tokens and prompt_tokens_details.cached_tokens
  azure             Azure OpenAI: the classic routes /openai/deployments/DEPLOYMENT/chat/completions
                    and .../embeddings need ?api-version= (else 404 {"error": {"code": "404", "message":
                    "Resource not found"}}) and an api-key header (no api-key: 401 {"error": {"code":
                    "401", "message": "Access denied due to invalid subscription key or wrong API
                    endpoint. ..."}}; with --require-key, api-key must be it); the v1 routes
                    /openai/v1/chat/completions and .../embeddings take api-key or Authorization:
                    Bearer; any other path 404 "Resource not found"
  no-schema         a server without structured outputs: a response_format of type json_schema gets
                    400 {"error": {"message": "response_format json_schema is not supported", "param":
                    "response_format"}}
  deepseek          DeepSeek: usage.prompt_cache_hit_tokens and prompt_cache_miss_tokens (as
                    --cached-tokens deepseek)
  anthropic         Anthropic's OpenAI SDK compatibility: response_format ignored (the JSON comes in a
                    ```json fence), one choice whatever "n" asks, usage of prompt_tokens and
                    completion_tokens only
  llamacpp          llama.cpp's server: usage, and a "timings" object beside it
  gemini            Gemini's OpenAI compatibility (generativelanguage.googleapis.com/v1beta/openai/):
                    an error body is a list, [{"error": {"code": 400, "message", "status":
                    "INVALID_ARGUMENT", "details"}}]; a request member it does not know, or a
                    json_schema with "additionalProperties" (or "$schema"), gets that 400 "Invalid
                    JSON payload received. Unknown name \"X\" ...: Cannot find field."; usage of
                    prompt_tokens and completion_tokens only
  qwen              Qwen through DashScope's compatible mode (dashscope.aliyuncs.com/compatible-mode/v1):
                    a response_format (json_object, or json_schema, which it checks as json_object)
                    with no "json" in any message's text gets 400 {"error": {"code":
                    "invalid_parameter_error", "message": "<400> InternalError.Algo.InvalidParameter:
                    'messages' must contain the word 'json' in some form, to use 'response_format' of
                    type 'json_object'.", "type": "invalid_request_error", "param": null}};
                    usage.prompt_tokens_details.cached_tokens
  ollama            Ollama's /v1: "n" not among its request fields (one choice), usage of
                    prompt_tokens and completion_tokens only, the key ignored
  vllm              vLLM's OpenAI-compatible server: usage with "prompt_tokens_details": null, and
                    an error as a bare object {"object": "error", "message", "type":
                    "BadRequestError", "param": null, "code": 400}
--require-header NAME=VALUE: answer 401 unless the request has that header with that value (a
gateway's own header; any mode).

PLAN (--plan FILE): a JSON array of rules, tried in order. A rule applies when its "match"
substring occurs in the raw request body (no "match": every request) and its "times" is not
used up ("times": -1 or absent = unlimited). Counters are shared by all threads. Keys:
  "status": N            reply with that HTTP status (an OpenAI-style error body unless "body")
  "retry_after": S       add a Retry-After: S header (status defaults to 429)
  "headers": {..}        extra response headers
  "delay_ms": N          sleep N ms first, then go on (alone: a normal reply, late)
  "drop": true           close the connection without any response
  "body": "raw"          send this raw body (status 200 unless "status")
  "content": "text"      200 with this assistant content (non-strings are JSON-encoded)
  "few": true            the AUTO reply with its last verdict (or claim) removed
  "finish_reason": "length"  the AUTO content cut in half, with that finish_reason
                         (other finish_reason values: the full content with that reason)
  "ignore_n": true       one choice, whatever "n" asked for (an endpoint without "n")
  "usage": {..}          this "usage" object in the reply instead of the counted one
  "scope": "NAME"        the rule applies only to requests under /s/NAME/ (below)
  "ctype": "type"        the reply's Content-Type (default application/json), e.g. text/html
  "hang": true           read the request, then answer nothing (for "hang_s", default 60 s)
  "hold": true           read and log the request, then hold it until POST /_fake/release (at
                         most "hold_s", default 60 s), then go on by the rest of the rule: a
                         test stops a client mid-run and knows, from the log, what it has sent
  "drip_ms": N           a normal reply, its body sent one byte every N ms
  "cut_body": true       a normal reply's headers (full Content-Length) and half its body, then
                         the connection is closed: dropped mid-body
  "truncate": true       a normal reply whose envelope is cut in half (Content-Length of the cut
                         part: the HTTP is complete, the JSON is not)
  "bad_ids": true        the AUTO reply with every verdict id + 100 (ids the prompt never had)
  "wrong_types": true    the AUTO reply with values of the wrong JSON type: verdict ids and
                         verdicts as strings, claims and questions as numbers, noncommittal "no"
  "empty_list": true     the AUTO reply with its list (verdicts, claims, questions) emptied
  "pad_bytes": N         the AUTO reply with a "padding" member of N bytes (a huge valid reply)
  "cut_stream": true     a streamed reply (no Content-Length) cut in the middle of its last content
                         event's JSON, then the connection closed: no [DONE], no transport error
  "echo_key": true       the AUTO reply with the caller's API key quoted in every reason, claim
                         and question
  In "body" and "content", {{key}} is replaced by the caller's API key (from Authorization, or
  azure's api-key), and {{header:NAME}} by the request's header NAME (a gateway's secret).
  embeddings only:
  "dims": N              vectors of N numbers whatever was asked
  "empty": true          an empty data list
  "few": true            (also) the last vector left out
  "reverse": true        data in reverse order, each with its right "index"
  "bad_ids": true        (also) every "index" + 100
  "wrong_types": true    (also) every embedding a list of strings
  "echo_key": true       (also) the caller's API key in the reply's "model"
  ("empty_list" is "empty" here; "cut_body", "truncate", "drip_ms", "hang", "ctype",
  "pad_bytes" as for chat)
Scopes: a request to /s/NAME/v1/... is served as /v1/... and logged with "scope": "NAME"; only
the rules without "scope" and those with "scope": "NAME" apply to it. So one server holds many
independent cells, each with its own base URL (and so its own cache keys).
  POST /_fake/heal  {"scope": "NAME"} (or {} for all): from now on the rules of that scope (all
                    rules) never apply, and its requests are logged with "healed": true. Not
                    logged itself.
  POST /_fake/release  every request held ("hold") goes on, and no later one is held. Not logged.
Every request is logged (--log) as one JSON line:
  {"n": seq, "path", "auth": Authorization header or null, "body": parsed JSON or raw string,
   "rule": index of the applied rule or null, "t": unix time of its arrival, "scope": NAME or null,
   "healed": whether the scope was healed before this request,
   "response_format": the request's response_format or null,
   "inflight": the POST requests in progress when this one was logged, itself included (a request
   counts from when its body was read until just before its reply is written, so a client that
   waits for a reply before it sends again is never counted twice)}
"""

import argparse
import hashlib
import http.server
import json
import os
import re
import socket
import sys
import threading
import time

BLOCK_RE_T = r"<<<%s-([0-9A-Za-z]+)\r?\n(.*?)\r?\n%s-\1>>>"


def find_block(text, tag):
    """The text of the last <<<TAG-nonce ... TAG-nonce>>> block, or None."""
    found = None
    for m in re.finditer(BLOCK_RE_T % (tag, tag), text, re.S):
        found = m.group(2)
    if found is None:
        # an empty block: "<<<TAG-n\nTAG-n>>>"
        for m in re.finditer(r"<<<%s-([0-9A-Za-z]+)\r?\n%s-\1>>>" % (tag, tag), text):
            found = ""
    return found


def find_blocks(text, tag):
    """The texts of every <<<TAG-nonce ... TAG-nonce>>> block (empty ones too), in order."""
    pat = r"<<<%s-([0-9A-Za-z]+)\r?\n(?:(.*?)\r?\n)?%s-\1>>>" % (tag, tag)
    return [m.group(2) or "" for m in re.finditer(pat, text, re.S)]


def message_text(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # [{"type": "text", "text": ...}, ...]
        parts = []
        for p in content:
            if isinstance(p, dict) and isinstance(p.get("text"), str):
                parts.append(p["text"])
            elif isinstance(p, str):
                parts.append(p)
        return "\n".join(parts)
    return ""


def split_sentences(text):
    out = []
    for s in re.split(r"(?<=[.!?])\s+|(?<=[。！？])", text):
        s = s.strip()
        if s:
            out.append(s)
    return out


RUBRIC_RE = re.compile(r'the rubric "([^"]+)" on the scale (\S+?)\.|评分标准“([^”]+)”、在分数范围 (\S+) 内')


GEN_PLAN_RE = re.compile(r"^\s*(\d+)\.\s*([a-z]+)[^,]*,\s*([a-z]+)\s*$", re.M)


def genhard_reply(req, users):
    """The AUTO reply to a rag-gen hard-case prompt ("Kind: <kind>" and DOCUMENT blocks), or None."""
    for u in reversed(users):
        m = re.search(r"(?:Kind|种类（Kind）)[:：] ?(unanswerable|noisy|multi_hop|follow_up)", u)
        if m and find_block(u, "DOCUMENT") is not None:
            break
    else:
        return None
    kind = m.group(1)
    docs = find_blocks(u, "DOCUMENT")
    given = find_block(u, "QUESTION") or ""
    nth = re.search(r"(?:number|第) (\d+)", u)
    nth = int(nth.group(1)) if nth else 1
    zh = re.search(r"[\u4e00-\u9fff]", docs[0]) is not None
    first = split_sentences(" ".join(l for l in docs[0].splitlines() if not l.startswith("#"))) or [docs[0]]
    if kind == "unanswerable":
        q, r = ("“%s”的保修期是多久？" % first[0][:6] if zh else
                "What is the warranty period of %s?" % " ".join(first[0].split()[:3])), ""
        if nth > 1:
            q = ("第 %d 个：" % nth if zh else "Case %d: " % nth) + ("谁在哪一年发明了它？" if zh else "who invented it, and when?")
    elif kind == "noisy":
        q, r = ("请问 " + given if zh else "pls " + given.lower().replace("the", "teh")), ""
    elif kind == "multi_hop":
        second = docs[1] if len(docs) > 1 else docs[0]
        q = ("“%s”和“%s”合起来说明了什么？" if zh else "How do '%s' and '%s' fit together?") % (first[0], second.split(".")[0])
        r = first[0] + " " + (split_sentences(second) or [second])[0]
    else:
        q = ("那它还说了什么？" if zh else "And what else does it say about that?")
        r = first[-1]
    return {"question": q, "reference": r}, "genhard"


def gen_reply(req, users):
    """The AUTO reply to a rag-gen prompt (a DOCUMENT block and a plan), or None."""
    for u in reversed(users):
        doc = find_block(u, "DOCUMENT")
        if doc is not None:
            break
    else:
        return None
    plan = GEN_PLAN_RE.findall(u)
    if not plan or ("Plan (" not in u and "计划（" not in u):
        return None
    body = " ".join(l for l in doc.splitlines() if not l.startswith("#"))
    sents = split_sentences(body) or [doc]
    zh = re.search(r"[\u4e00-\u9fff]", doc) is not None
    out = []
    for i, (_, diff, typ) in enumerate(plan):
        s = sents[i % len(sents)]
        if "DUPLICATE" in doc:
            q = "What is the DUPLICATE question?"
        elif zh:
            q = "第 %d 个问题（%s, %s）：关于“%s”说了什么？" % (i + 1, diff, typ, s[:12])
        else:
            q = "Question %d (%s, %s): what is said about %s?" % (i + 1, diff, typ, " ".join(s.split()[:6]))
        out.append({"question": q, "reference": s, "difficulty": diff, "type": typ})
    return {"questions": out}, "gen"


def rubric_reply(req, users):
    """The AUTO reply to a rag-judge rubric prompt, or None for any other prompt."""
    for u in reversed(users):
        m = RUBRIC_RE.search(u)
        if m:
            break
    else:
        return None
    name, scale = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    an = find_block(u, "ANSWER")
    text = an if an is not None else u
    top = {"0-10": 10, "1-5": 5}.get(scale, "yes")
    mk = re.search(r"SCORE:%s=(\S+)" % re.escape(name), text) or re.search(r"SCORE=(\S+)", text)
    v = mk.group(1).rstrip(".,;") if mk else top
    if isinstance(v, str) and re.match(r"^-?\d+(\.\d+)?$", v):
        v = float(v) if "." in v else int(v)
    seed = req.get("seed")
    if "JITTER" in text and isinstance(seed, int):
        step = {2: 1, 0: -1}.get(seed % 3, 0)
        if scale == "yes/no" and v in ("yes", "no"):
            v = ("no" if v == "yes" else "yes") if step == 1 else v
        elif isinstance(v, (int, float)):
            lo, hi = (1, 5) if scale == "1-5" else (0, 10)
            v = min(hi, max(lo, v + step))
    return {"score": v, "reason": "fake: rubric %s scored %s" % (name, v)}, "rubric"


def score_reply(users):
    """The AUTO reply to a metric tool's score-and-reason prompt, or None for any other prompt."""
    for u in reversed(users):
        text = find_block(u, "SCORED")
        if text is not None:
            v = 0 if "UNSUPPORTED" in text else 1
            return {"score": v, "reason": "fake: scored %s" % v}, "score"
    return None


def mutate_rubric(obj, rule, key):
    """The plan's changes to a rubric or score-and-reason reply (no list, verdicts or ids)."""
    if "score" not in obj or "reason" not in obj:
        return
    if rule.get("few"):
        del obj["reason"]
    elif rule.get("empty_list"):
        obj["reason"] = ""
    if rule.get("bad_ids") and isinstance(obj["score"], (int, float)):
        obj["score"] += 100
    if rule.get("wrong_types"):
        obj["score"] = [obj["score"]] if isinstance(obj["score"], str) else str(obj["score"])
    if rule.get("echo_key") and "reason" in obj:
        obj["reason"] += " (key: %s)" % key


def chunk_blocks(text):
    """The chunks of a rag-verify --chunks prompt: its CHUNK blocks (the prompt of before), or the
    CONTEXT blocks of a request that asks about nothing else (no statements, claims or answer
    text to check)."""
    chunks = find_blocks(text, "CHUNK")
    if chunks:
        return chunks
    for tag in ("STATEMENTS", "ANSWER_TEXT", "ANSWER_STATEMENTS", "CLAIM", "TEXT"):
        if find_block(text, tag) is not None:
            return []
    return find_blocks(text, "CONTEXT")


def auto_reply(req):
    """(python object to send as content, kind) for a parsed request."""
    msgs = req.get("messages") if isinstance(req, dict) else None
    users = []
    if isinstance(msgs, list):
        users = [message_text(m.get("content")) for m in msgs
                 if isinstance(m, dict) and m.get("role") == "user"]
    hard = genhard_reply(req, users)
    if hard is not None:
        return hard
    gen = gen_reply(req, users)
    if gen is not None:
        return gen
    rubric = rubric_reply(req, users)
    if rubric is not None:
        return rubric
    scored = score_reply(users)
    if scored is not None:
        return scored
    # The last user message; but a re-ask appends the model's reply and a short user message
    # ("your reply did not fit ..."), so fall back to the last user message holding a block.
    last = users[-1] if users else ""
    for u in reversed(users):
        if find_block(u, "STATEMENTS") is not None or find_block(u, "TEXT") is not None \
                or chunk_blocks(u):
            last = u
            break
    chunks = chunk_blocks(last)
    if chunks:
        return {"verdicts": [{
            "id": i + 1,
            "verdict": "IRRELEVANT" not in c,
            "reason": "fake: " + ("useful" if "IRRELEVANT" not in c else "marked IRRELEVANT"),
        } for i, c in enumerate(chunks)]}, "chunks"
    st = find_block(last, "STATEMENTS")
    if st is not None:
        verdicts = []
        for line in st.splitlines():
            m = re.match(r"\s*(\d+)\.\s*(.*)$", line)
            if not m:
                continue
            stmt = m.group(2)
            sup = "UNSUPPORTED" not in stmt
            verdicts.append({
                "id": int(m.group(1)),
                "verdict": sup,
                "reason": "fake: " + ("supported" if sup else "marked UNSUPPORTED"),
            })
        return {"verdicts": verdicts}, "verdicts"
    an = find_block(last, "ANSWER")
    if an is not None:
        m = re.search(r"(\d+) (?:question|个问题)", last)
        n = int(m.group(1)) if m else 1
        base = an.strip().rstrip(".!?。！？")
        qs = ["What is said about: %s?" % base + ("" if i == 0 else " (%d)" % i) for i in range(n)]
        nc = any(p in an for p in ("I don't know", "I don\u2019t know", "not sure", "不知道"))
        return {"questions": qs, "noncommittal": nc}, "revq"
    for reply in (verifier_reply(users), correctness_reply(users), faithfulness_reply(users)):
        if reply is not None:
            return reply
    tx = find_block(last, "TEXT")
    if tx is not None:
        if "I don't know" in tx or "I don\u2019t know" in tx or "我不知道" in tx:
            return {"claims": []}, "claims"
        return {"claims": split_sentences(tx)}, "claims"
    if last.startswith("QUESTION: "):
        return "Answer to: " + last[len("QUESTION: "):], "question"
    return {"error": "fake: unknown prompt"}, "unknown"


def last_with_block(users, tag):
    """The last user message holding a TAG block (a re-ask appends one without), or None."""
    for u in reversed(users):
        if find_block(u, tag) is not None:
            return u
    return None


def verifier_reply(users):
    """A dedicated verifier (MiniCheck-like): a bare Yes or No as plain text."""
    u = last_with_block(users, "CLAIM")
    if u is None:
        return None
    claim = find_block(u, "CLAIM")
    doc = find_block(u, "DOCUMENT") or ""
    return ("No" if "UNSUPPORTED" in claim or "IRRELEVANT" in doc else "Yes"), "verifier"


def correctness_reply(users):
    """answer_correctness: each statement judged by its presence in the other list."""
    u = last_with_block(users, "ANSWER_STATEMENTS")
    if u is None:
        return None

    def items(tag):
        out = []
        for line in (find_block(u, tag) or "").splitlines():
            m = re.match(r"\s*(\d+)\.\s*(.*)$", line)
            if m:
                out.append((int(m.group(1)), m.group(2)))
        return out

    def key(s):
        return re.sub(r"\s+", " ", s).strip().rstrip(".!?。！？").lower()

    ans, ref = items("ANSWER_STATEMENTS"), items("REFERENCE_STATEMENTS")

    def judged(mine, other, what):
        keys = set(key(s) for _, s in other)
        out = []
        for i, s in mine:
            ok = key(s) in keys and "UNSUPPORTED" not in s
            out.append({"id": i, "verdict": ok,
                        "reason": "fake: " + ("in the %s" % what if ok else "not in the %s" % what)})
        return out

    return {"answer": judged(ans, ref, "reference"),
            "reference": judged(ref, ans, "answer")}, "correctness"


def faithfulness_reply(users):
    """rag-verify --one-request: the answer's sentences as claims, each with its verdict."""
    u = last_with_block(users, "ANSWER_TEXT")
    if u is None:
        return None
    text = find_block(u, "ANSWER_TEXT")
    if "I don't know" in text or "I don\u2019t know" in text or "我不知道" in text:
        return {"claims": []}, "faithfulness"
    return {"claims": [{"claim": c, "verdict": "UNSUPPORTED" not in c,
                        "reason": "fake: " + ("supported" if "UNSUPPORTED" not in c else "marked UNSUPPORTED")}
                       for c in split_sentences(text)]}, "faithfulness"


def prompt_chars(req):
    n = 0
    if isinstance(req, dict) and isinstance(req.get("messages"), list):
        for m in req["messages"]:
            if isinstance(m, dict):
                n += len(message_text(m.get("content")))
    return n


class State:
    def __init__(self, plan, log_path, latency_ms, require_key):
        self.plan = plan
        self.used = [0] * len(plan)
        self.lock = threading.Lock()
        self.seq = 0
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None
        self.latency = latency_ms / 1000.0
        self.require_key = require_key
        self.healed = set()     # scopes healed; None in it: every rule is off
        self.inflight = 0
        self.released = threading.Event()   # set by /_fake/release: "hold" holds no more

    def heal(self, scope):
        with self.lock:
            self.healed.add(scope)

    def is_healed(self, scope):
        return None in self.healed or scope in self.healed

    def pick(self, raw, scope=None, via="live"):
        """Index of the rule that applies (its counter taken), or None."""
        with self.lock:
            self.seq += 1
            seq = self.seq
            if self.is_healed(scope):
                return seq, None
            for i, r in enumerate(self.plan):
                if r.get("scope") is not None and r.get("scope") != scope:
                    continue
                if r.get("via", "any") not in ("any", via):
                    continue
                m = r.get("match")
                if m is not None and m not in raw:
                    continue
                times = r.get("times", -1)
                if times is not None and times >= 0 and self.used[i] >= times:
                    continue
                self.used[i] += 1
                return seq, i
            return seq, None

    def enter(self):
        with self.lock:
            self.inflight += 1

    def leave(self):
        with self.lock:
            self.inflight -= 1

    def write_log(self, entry):
        if not self.log:
            return
        if "inflight" not in entry:
            entry["inflight"] = self.inflight
        line = json.dumps(entry, ensure_ascii=False)
        with self.lock:
            self.log.write(line + "\n")
            self.log.flush()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fakellm/1.0"

    def prefix_cached(self, req, pt):
        """With --cached-tokens: the prompt tokens a prefix cache would serve, the longest prefix
        (characters / 4) this prompt shares with any prompt seen before; None without it."""
        if not self.server.cached_kind:
            return None
        text = ""
        if isinstance(req, dict) and isinstance(req.get("messages"), list):
            text = "".join("[%s]\n%s\n" % (m.get("role"), message_text(m.get("content")))
                           for m in req["messages"] if isinstance(m, dict))
        with self.server.seen_lock:
            best = 0
            for old in self.server.seen:
                n = len(os.path.commonprefix([old, text]))
                best = max(best, n)
            self.server.seen.append(text)
        return min(pt, best // 4)

    def log_message(self, fmt, *args):  # quiet
        pass

    # -- helpers
    def wait_reply(self):
        """Wait until the request's reply may go (faults' reply_at), once."""
        at = getattr(self, "reply_at", None)
        self.reply_at = None
        d = at - time.time() if at is not None else 0
        if d > 0:
            time.sleep(d)

    def send(self, status, body, ctype="application/json", headers=None, rule=None):
        if isinstance(body, str):
            body = body.encode("utf-8")
        rule = rule or {}
        self.wait_reply()
        self.leave()
        ctype = rule.get("ctype") or ctype
        if rule.get("truncate"):
            body = body[: len(body) // 2]
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, str(v))
            if rule.get("cut_body"):
                self._headers_buffer.append(b"\r\n")
                self._headers_buffer.append(body[: len(body) // 2])
                self.flush_headers()
                self.drop()
                return
            if rule.get("drip_ms"):
                self.end_headers()
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(float(rule["drip_ms"]) / 1000.0)
                return
            # headers and body in one write: two small writes meet Nagle and the client's
            # delayed ACK, which adds ~40 ms to every reply and would skew the benchmark
            self._headers_buffer.append(b"\r\n")
            self._headers_buffer.append(body)
            self.flush_headers()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

    def read_body(self):
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            chunks = []
            while True:
                line = self.rfile.readline()
                if not line:
                    break
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def leave(self):
        """This request no longer counts as in flight (once, before its reply or its drop)."""
        if getattr(self, "counted", False):
            self.counted = False
            self.server.state.leave()

    def drop(self):
        self.leave()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # -- endpoints
    def do_GET(self):
        path = self.batch_path(self.path.split("?")[0])
        if self.path.split("?")[0] in ("/health", "/v1/health"):
            self.send(200, "ok", "text/plain")
        elif path is not None and (path.startswith("/v1/batches/") or path.startswith("/v1/files/")):
            self.batch_get(self.server.state, path)
        else:
            self.send(404, json.dumps({"error": {"message": "fake: not found", "type": "not_found"}}))

    def faults(self, st, raw, req):
        """Log the request, set when its reply may go (the latency after "t"), check the key,
        apply the plan's rule. Returns (seq, rule, headers) for a normal reply, or None when the
        rule already answered (or dropped)."""
        seq, ri = st.pick(raw, self.scope)
        t = getattr(self, "arrived", None) or time.time()
        st.write_log({"n": seq, "path": self.path, "auth": self.headers.get("Authorization"),
                      "headers": {k.lower(): v for k, v in self.headers.items()},
                      "body": req if req is not None else raw, "rule": ri, "t": t,
                      "scope": self.scope, "healed": st.is_healed(self.scope),
                      "response_format": req.get("response_format") if isinstance(req, dict) else None})
        # the reply goes the latency after "t" (the request's arrival), not the latency after the
        # fake has read, logged and answered it: what the fake does meanwhile is inside the
        # latency, as a server's own work is (bench/eval.sh's ideal counts the latency alone)
        self.reply_at = t + st.latency if st.latency > 0 else None
        if self.server.require_header:
            name, _, value = self.server.require_header.partition("=")
            if self.headers.get(name) != value:
                self.send(401, json.dumps({"error": {"message": "fake: missing or wrong %s header" % name,
                                                     "type": "invalid_request_error"}}))
                return None
        if self.server.provider == "azure":
            if not self.azure_auth(st):
                return None
        elif st.require_key is not None and self.headers.get("Authorization") != "Bearer " + st.require_key:
            self.send(401, json.dumps({"error": {"message": "fake: bad or missing api key",
                                                 "type": "invalid_request_error"}}))
            return None
        rule = st.plan[ri] if ri is not None else {}
        if rule.get("delay_ms") or rule.get("drop") or rule.get("hold") or rule.get("hang"):
            self.wait_reply()   # these come after the latency, as they always have
        if rule.get("delay_ms"):
            time.sleep(float(rule["delay_ms"]) / 1000.0)
        if rule.get("drop"):
            self.drop()
            return None
        if rule.get("hold"):
            st.released.wait(float(rule.get("hold_s", 60)))
        if rule.get("hang"):
            time.sleep(float(rule.get("hang_s", 60)))
            self.drop()
            return None
        headers = dict(rule.get("headers") or {})
        if "retry_after" in rule:
            headers["Retry-After"] = rule["retry_after"]
        status = rule.get("status")
        if status is None and "retry_after" in rule:
            status = 429
        if "body" in rule:
            body = rule["body"]
            if not isinstance(body, str):
                body = json.dumps(body)
            self.send(int(status or 200), self.fill(body), headers=headers, rule=rule)
            return None
        if status is not None and int(status) != 200:
            status = int(status)
            etype = "rate_limit_error" if status == 429 else (
                "server_error" if status >= 500 else "invalid_request_error")
            self.send(status, json.dumps(self.error_body({"message": "fake: status %d" % status,
                                                          "type": etype, "code": None}, status)),
                      headers=headers, rule=rule)
            return None
        return seq, rule, headers

    # -- the batch route (OpenAI's /v1/files and /v1/batches)
    def batch_path(self, path):
        """the batch route's path as /v1/..., or None: OpenAI's /v1/files..., /v1/batches...; azure's
        /openai/files... and /openai/batches... (with api-version) or /openai/v1/..."""
        m = re.match(r"^/s/[^/]+(/.*)$", path)
        if m:
            path = m.group(1)
        if self.server.provider == "azure":
            query = self.path.split("?", 1)[1] if "?" in self.path else ""
            m = re.match(r"^/openai/v1/((?:files|batches).*)$", path)
            if m:
                return "/v1/" + m.group(1)
            m = re.match(r"^/openai/((?:files|batches).*)$", path)
            if m and re.search(r"(^|&)api-version=[^&]+", query):
                return "/v1/" + m.group(1)
            return None
        m = re.match(r"^(?:/v1)?/((?:files|batches).*)$", path)
        return "/v1/" + m.group(1) if m else None

    def batch_auth(self, st):
        """the key as the chat route checks it: False (401 sent) when wrong"""
        if self.server.provider == "azure":
            self.azure_classic = "/openai/v1/" not in self.path
            return self.azure_auth(st)
        if st.require_key is not None and self.headers.get("Authorization") != "Bearer " + st.require_key:
            self.send(401, json.dumps({"error": {"message": "fake: bad or missing api key",
                                                 "type": "invalid_request_error"}}))
            return False
        return True

    def batch_log(self, st, path, body, method="POST"):
        st.write_log({"n": None, "path": path, "method": method, "auth": self.headers.get("Authorization"),
                      "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body,
                      "rule": None, "t": time.time(), "scope": None})

    def batch_post(self, st, path, raw_b, req):
        srv = self.server
        if path == "/v1/files":
            from email.parser import BytesParser
            from email.policy import default as email_default
            ctype = self.headers.get("Content-Type") or ""
            msg = BytesParser(policy=email_default).parsebytes(
                b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + raw_b)
            form = {}
            if msg.is_multipart():
                for part in msg.iter_parts():
                    name = part.get_param("name", header="content-disposition")
                    form[name] = (part.get_payload(decode=True) or b"", part.get_filename())
            content = form.get("file", (b"", None))[0].decode("utf-8", "replace")
            purpose = form.get("purpose", (b"", None))[0].decode()
            self.batch_log(st, self.path, {"purpose": purpose, "filename": form.get("file", (b"", None))[1],
                                           "lines": len(content.splitlines()), "content": content})
            if not self.batch_auth(st):
                return
            if purpose != "batch" or "file" not in form:
                self.send(400, json.dumps({"error": {"message": "fake: purpose batch and a file are needed",
                                                     "type": "invalid_request_error"}}))
                return
            # a provider's limits on one batch's file (OpenAI's 50,000 requests and 200 MB)
            nlines = len([l for l in content.splitlines() if l.strip()])
            if (srv.batch_max_lines and nlines > srv.batch_max_lines) or \
                    (srv.batch_max_bytes and len(content.encode()) > srv.batch_max_bytes):
                self.send(400, json.dumps({"error": {"message": "fake: a batch's file holds at most %d requests and "
                                                     "%d bytes (%d and %d given)" % (
                                                         srv.batch_max_lines, srv.batch_max_bytes, nlines,
                                                         len(content.encode())),
                                                     "type": "invalid_request_error"}}))
                return
            with srv.batch_lock:
                fid = "file-fake-%d" % (len(srv.files) + 1)
                srv.files[fid] = content
            self.send(200, json.dumps({"id": fid, "object": "file", "bytes": len(content.encode()),
                                       "created_at": int(time.time()), "filename": form["file"][1],
                                       "purpose": "batch"}))
            return
        self.batch_log(st, self.path, req if req is not None else raw_b.decode("utf-8", "replace"))
        if not self.batch_auth(st):
            return
        want = "/chat/completions" if srv.provider == "azure" else "/v1/chat/completions"
        if not isinstance(req, dict) or req.get("input_file_id") not in srv.files or \
                req.get("endpoint") != want or req.get("completion_window") != "24h":
            self.send(400, json.dumps({"error": {"message": "fake: a batch needs a known input_file_id, "
                                                 "endpoint %s and completion_window 24h" % want,
                                                 "type": "invalid_request_error"}}))
            return
        lines = [l for l in srv.files[req["input_file_id"]].splitlines() if l.strip()]
        with srv.batch_lock:
            bid = "batch_fake_%d" % (len(srv.batches) + 1)
            b = {"id": bid, "object": "batch", "endpoint": req["endpoint"], "errors": None,
                 "input_file_id": req["input_file_id"], "completion_window": "24h", "status": "validating",
                 "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
                 "request_counts": {"total": len(lines), "completed": 0, "failed": 0}, "metadata": None}
            srv.batches[bid] = {"obj": b, "lines": lines, "next": 0, "out": [], "err": []}
        self.send(200, json.dumps(b))

    def batch_line(self, st, bid, line, i):
        """one line of a batch answered as the chat route would: its output or error line, or None
        when a rule of "batch": "expire" ends the batch here"""
        try:
            one = json.loads(line)
            body = one["body"]
            cid = one["custom_id"]
        except (ValueError, KeyError, TypeError):
            return "err", {"id": "batch_req_%s_%d" % (bid, i), "custom_id": None, "response": None,
                           "error": {"code": "invalid_json_line", "message": "fake: not a request line"}}
        raw = json.dumps(body, ensure_ascii=False)
        seq, ri = st.pick(raw, None, "batch")
        rule = st.plan[ri] if ri is not None else {}
        st.write_log({"n": seq, "path": "batch:" + str(one.get("url")), "batch": bid, "custom_id": cid,
                      "auth": None, "body": body, "rule": ri, "t": time.time(), "scope": None})
        if rule.get("batch") == "expire":
            return None
        rid = "batch_req_%s_%d" % (bid, i)
        if rule.get("batch") == "error":
            return "err", {"id": rid, "custom_id": cid, "response": None,
                           "error": {"code": "server_error", "message": "fake: the batch failed this request"}}
        status = int(rule.get("status") or 200)
        if status != 200:
            return "err", {"id": rid, "custom_id": cid, "error": None,
                           "response": {"status_code": status, "request_id": "req_%d" % seq,
                                        "body": {"error": {"message": "fake: status %d" % status,
                                                           "type": "server_error", "code": None}}}}
        status, resp = self.chat_result(body, rule, seq)
        return ("out" if status == 200 else "err"), {
            "id": rid, "custom_id": cid, "error": None,
            "response": {"status_code": status, "request_id": "req_%d" % seq, "body": resp}}

    def batch_files(self, bb):
        """the batch's output and error files made, its status and counts set"""
        srv = self.server
        b = bb["obj"]
        for kind, key in (("out", "output_file_id"), ("err", "error_file_id")):
            if bb[kind]:
                fid = "file-fake-%d" % (len(srv.files) + 1)
                srv.files[fid] = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in bb[kind])
                b[key] = fid

    def batch_invalid(self, st, bb):
        """the error of a batch a rule "batch": "fail" refuses (at the line it matches), or None"""
        for i, line in enumerate(bb["lines"]):
            for r in st.plan:
                if r.get("batch") == "fail" and r.get("match", "") in line:
                    return {"code": "invalid_request", "message": "fake: the batch's input was refused",
                            "param": "body", "line": i + 1}
        return None

    def batch_advance(self, st, bb):
        """one step of the batch's life, at each GET (no clock): validating -> in_progress; then
        --batch-step lines a look (default a third of them) until all are done (in_progress, with
        --batch-hold, goes no further until /_fake/release) -> finalizing -> completed; a line
        that a rule "batch": "expire" matches ends it: expired, that line and those after it in
        the error file as batch_expired"""
        srv = self.server
        b = bb["obj"]
        total = len(bb["lines"])
        if b["status"] == "validating":
            bad = self.batch_invalid(st, bb)
            if bad is not None:
                b["status"] = "failed"
                b["failed_at"] = int(time.time())
                b["errors"] = {"object": "list", "data": [bad]}
                return
            b["status"] = "in_progress"
            b["in_progress_at"] = int(time.time())
        elif b["status"] == "in_progress":
            if srv.batch_hold and not st.released.is_set():
                return
            step = srv.batch_step or max(1, (total + 2) // 3)
            end = min(total, bb["next"] + step)
            while bb["next"] < end:
                i = bb["next"]
                got = self.batch_line(st, b["id"], bb["lines"][i], i)
                if got is None:
                    for j in range(i, total):
                        try:
                            cid = json.loads(bb["lines"][j]).get("custom_id")
                        except ValueError:
                            cid = None
                        bb["err"].append({"id": "batch_req_%s_%d" % (b["id"], j), "custom_id": cid,
                                          "response": None,
                                          "error": {"code": "batch_expired", "message":
                                                    "This request could not be executed before the "
                                                    "completion window expired."}})
                    b["request_counts"]["failed"] += total - i
                    b["status"] = "expired"
                    b["expired_at"] = int(time.time())
                    self.batch_files(bb)
                    return
                kind, x = got
                bb[kind].append(x)
                b["request_counts"]["completed" if kind == "out" else "failed"] += 1
                bb["next"] += 1
            if bb["next"] >= total:
                b["status"] = "finalizing"
        elif b["status"] == "finalizing":
            self.batch_files(bb)
            b["status"] = "completed"
            b["completed_at"] = int(time.time())

    def batch_get(self, st, path):
        srv = self.server
        self.batch_log(st, self.path, None, "GET")
        if not self.batch_auth(st):
            return
        m = re.match(r"^/v1/batches/([^/]+)$", path)
        if m:
            with srv.batch_lock:
                bb = srv.batches.get(m.group(1))
                if bb is not None:
                    self.batch_advance(st, bb)
                    body = json.dumps(bb["obj"])
            if bb is None:
                self.send(404, json.dumps({"error": {"message": "fake: no such batch", "type": "not_found"}}))
            else:
                self.send(200, body)
            return
        m = re.match(r"^/v1/files/([^/]+)/content$", path)
        with srv.batch_lock:
            content = srv.files.get(m.group(1)) if m else None
        if content is None:
            self.send(404, json.dumps({"error": {"message": "fake: no such file", "type": "not_found"}}))
        else:
            self.send(200, content, "application/jsonl")

    def caller_key(self):
        a = self.headers.get("Authorization") or self.headers.get("api-key") or ""
        return a[7:] if a.startswith("Bearer ") else a

    def fill(self, text):
        """{{key}} and {{header:NAME}} in a rule's body or content"""
        text = text.replace("{{key}}", self.caller_key())
        return re.sub(r"\{\{header:([^}]+)\}\}", lambda m: self.headers.get(m.group(1)) or "", text)

    AZURE_401 = ("Access denied due to invalid subscription key or wrong API endpoint. Make sure to "
                 "provide a valid key for an active subscription and use a correct regional API "
                 "endpoint for your resource.")

    def azure_route(self, path):
        """Azure's path (its query aside) as the fake's own route, or None: a 404 sent"""
        query = self.path.split("?", 1)[1] if "?" in self.path else ""
        m = re.match(r"^/openai/deployments/[^/]+/(chat/completions|embeddings)$", path)
        if m and re.search(r"(^|&)api-version=[^&]+", query):
            self.azure_classic = True
            return "/v1/" + m.group(1)
        m2 = re.match(r"^/openai/v1/(chat/completions|embeddings)$", path)
        if m2:
            self.azure_classic = False
            return "/v1/" + m2.group(1)
        self.send(404, json.dumps({"error": {"code": "404", "message": "Resource not found"}}))
        return None

    def azure_auth(self, st):
        """api-key (or, on the v1 routes, Authorization: Bearer) as Azure checks it"""
        key = self.headers.get("api-key")
        if key is None and not getattr(self, "azure_classic", True):
            a = self.headers.get("Authorization") or ""
            key = a[7:] if a.startswith("Bearer ") else None
        if key is None or (st.require_key is not None and key != st.require_key):
            self.send(401, json.dumps({"error": {"code": "401", "message": self.AZURE_401}}))
            return False
        return True

    # what each provider's endpoint takes and says: by its documentation, cited per mode
    # gemini: https://ai.google.dev/gemini-api/docs/openai and https://ai.google.dev/api/compatibility
    #   (the request's members); the list-shaped 400 and its "Unknown name" words as the endpoint
    #   answers them (github.com/MinLL/SkyrimNet-GamePlugin/issues/77, an unknown member;
    #   github.com/QuantumNous/new-api/pull/1037, "$schema" in a response schema; models before
    #   Gemini 2.5 refuse "additionalProperties" there the same way)
    GEMINI_MEMBERS = {"model", "messages", "stream", "stream_options", "tools", "tool_choice",
                      "modalities", "n", "stop", "max_completion_tokens", "max_tokens", "temperature",
                      "top_p", "response_format", "reasoning_effort", "seed", "audio", "extra_body"}
    # qwen: https://www.alibabacloud.com/help/en/model-studio/qwen-structured-output (the "json"
    #   word); json_schema checked as json_object: github.com/plastic-labs/honcho/issues/663
    # ollama: https://docs.ollama.com/api/openai-compatibility ("Supported request fields": no "n")
    # vllm: https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html (ErrorResponse)

    def error_body(self, err, status=400):
        """an error (OpenAI's inner object) as the provider's endpoint wraps it"""
        mode = self.server.provider
        if mode == "gemini":
            return [{"error": {"code": status, "message": err.get("message"),
                               "status": "INVALID_ARGUMENT" if status == 400 else "UNAVAILABLE",
                               "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest",
                                            "fieldViolations": [{"description": err.get("message")}]}]}}]
        if mode == "vllm":
            return {"object": "error", "message": err.get("message"), "type": "BadRequestError",
                    "param": err.get("param"), "code": status}
        return {"error": err}

    def gemini_refuses(self, req):
        """Gemini's 400 words for a member or a schema keyword it does not know, or None"""
        unknown = sorted(k for k in req if k not in self.GEMINI_MEMBERS)
        if unknown:
            return {"message": "\n".join("Invalid JSON payload received. Unknown name \"%s\": Cannot find field." % k
                                         for k in unknown)}
        rf = req.get("response_format")
        sch = json.dumps(rf.get("json_schema")) if isinstance(rf, dict) and rf.get("type") == "json_schema" else ""
        for k in ("$schema", "additionalProperties"):
            if '"%s"' % k in sch:
                return {"message": "Invalid JSON payload received. Unknown name \"%s\" at "
                                   "'generation_config.response_schema': Cannot find field." % k}
        return None

    def provider_refuses(self, req):
        """a reasoning model's or a schema-less server's 400 for what it does not take, or None"""
        mode = self.server.provider
        if mode == "gemini":
            return self.gemini_refuses(req)
        rf = req.get("response_format")
        if mode == "qwen" and isinstance(rf, dict) and rf.get("type") in ("json_object", "json_schema") and \
                not any("json" in message_text(m.get("content")).lower() for m in req.get("messages") or []
                        if isinstance(m, dict)):
            return {"message": "<400> InternalError.Algo.InvalidParameter: 'messages' must contain the word "
                               "'json' in some form, to use 'response_format' of type 'json_object'.",
                    "type": "invalid_request_error", "param": None, "code": "invalid_parameter_error"}
        if mode == "openai-reasoning" and "max_tokens" in req:
            return {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                               "Use 'max_completion_tokens' instead.", "type": "invalid_request_error",
                    "param": "max_tokens", "code": "unsupported_parameter"}
        if mode == "openai-reasoning" and "temperature" in req and req["temperature"] != 1:
            return {"message": "Unsupported value: 'temperature' does not support %s with this model. "
                               "Only the default (1) value is supported." % json.dumps(req["temperature"]),
                    "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}
        rf = req.get("response_format")
        if mode == "no-schema" and isinstance(rf, dict) and rf.get("type") == "json_schema":
            return {"message": "response_format json_schema is not supported", "type": "invalid_request_error",
                    "param": "response_format", "code": None}
        return None

    def do_POST(self):
        st = self.server.state
        self.arrived = time.time()   # its headers read: "t", from which the latency runs
        raw_b = self.read_body()
        st.enter()
        self.counted = True
        try:
            self.post(st, raw_b)
        finally:
            self.leave()

    def post(self, st, raw_b):
        raw = raw_b.decode("utf-8", "replace")
        path = self.path.split("?")[0]
        try:
            req = json.loads(raw)
        except ValueError:
            req = None
        self.scope = None
        m = re.match(r"^/s/([^/]+)(/.*)$", path)
        if m:
            self.scope, path = m.group(1), m.group(2)
        if path == "/_fake/release":
            st.released.set()
            self.send(200, json.dumps({"released": True}))
            return
        if path == "/_fake/heal":
            st.heal(req.get("scope") if isinstance(req, dict) else None)
            self.send(200, json.dumps({"healed": True}))
            return
        bpath = self.batch_path(path)
        if bpath in ("/v1/files", "/v1/batches"):
            self.batch_post(st, bpath, raw_b, req)
            return
        if self.server.provider == "azure":
            path = self.azure_route(path)
            if path is None:
                return
        if path in ("/v1/embeddings", "/embeddings"):
            self.embeddings(st, raw, req)
            return
        if path not in ("/v1/chat/completions", "/chat/completions"):
            st.write_log({"n": None, "path": self.path, "auth": self.headers.get("Authorization"),
                          "body": req if req is not None else raw, "rule": None, "t": time.time()})
            self.send(404, json.dumps({"error": {"message": "fake: not found", "type": "not_found"}}))
            return
        got = self.faults(st, raw, req)
        if got is None:
            return
        seq, rule, headers = got
        if not isinstance(req, dict):
            self.send(400, json.dumps({"error": {"message": "fake: request body is not a JSON object",
                                                 "type": "invalid_request_error"}}))
            return
        status, resp = self.chat_result(req, rule, seq)
        if status != 200:
            self.send(status, json.dumps(resp))
            return
        if req.get("stream") is True:
            self.stream(resp, headers, rule)
            return
        self.send(200, json.dumps(resp, ensure_ascii=False), headers=headers, rule=rule)

    def chat_result(self, req, rule, seq):
        """(status, body) of a chat request (a dict) by rule: a provider's refusal, or the completion
        (live, or a line of a batch)"""
        refusal = self.provider_refuses(req)
        if refusal is not None:
            return 400, self.error_body(refusal)
        finish = "stop"
        obj, kind = None, None
        if "content" in rule:
            content = rule["content"]
            if not isinstance(content, str):
                content = json.dumps(content, ensure_ascii=False)
        else:
            obj, kind = auto_reply(req)
            if isinstance(obj, str):    # a plain-text reply (the verifier's Yes or No)
                content = obj
                if kind == "question" and rule.get("echo_key"):
                    content += " (key: %s)" % self.caller_key()
            else:
                mutate(obj, rule, self.caller_key())
                content = json.dumps(obj, ensure_ascii=False)
        content = self.fill(content)
        if self.server.provider == "anthropic" and obj is not None and not isinstance(obj, str):
            content = "Here is the JSON:\n```json\n%s\n```" % content   # response_format ignored
        if rule.get("finish_reason"):
            finish = rule["finish_reason"]
            if finish == "length":
                content = content[: len(content) // 2]
        pt = max(1, prompt_chars(req) // 4)
        ct = max(1, len(content) // 4)
        nchoices = req.get("n") if isinstance(req.get("n"), int) and req.get("n") > 1 else 1
        if rule.get("ignore_n") or self.server.provider in ("anthropic", "ollama"):
            nchoices = 1   # anthropic: "choices[]: always length 1"; ollama: no "n"
        contents = [content] * nchoices
        if kind == "revq" and nchoices > 1 and not rule.get("finish_reason"):
            contents = [json.dumps({"questions": [q + ("" if i == 0 else " [choice %d]" % i)
                                                  for q in obj["questions"]],
                                    "noncommittal": obj["noncommittal"]}, ensure_ascii=False)
                        for i in range(nchoices)]
        resp = {
            "id": "chatcmpl-fake-%d" % seq,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": req.get("model") or "fake-model",
            "choices": [{"index": i, "message": {"role": "assistant", "content": contents[i]},
                         "finish_reason": finish} for i in range(nchoices)],
            "usage": {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct},
        }
        cached = self.prefix_cached(req, pt)
        if cached is not None:
            if self.server.cached_kind == "deepseek":
                resp["usage"]["prompt_cache_hit_tokens"] = cached
                resp["usage"]["prompt_cache_miss_tokens"] = pt - cached
            else:
                resp["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
        mode = self.server.provider
        if mode == "openai-reasoning":
            resp["usage"]["completion_tokens_details"] = {"reasoning_tokens": 64, "accepted_prediction_tokens": 0,
                                                          "rejected_prediction_tokens": 0}
            resp["usage"]["prompt_tokens_details"] = {"cached_tokens": 0, "audio_tokens": 0}
        elif mode in ("anthropic", "gemini", "ollama"):
            resp["usage"] = {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
        elif mode == "qwen":
            resp["usage"]["prompt_tokens_details"] = {"cached_tokens": cached or 0}
        elif mode == "vllm":
            resp["usage"]["prompt_tokens_details"] = None
        elif mode == "llamacpp":
            resp["timings"] = {"prompt_n": pt, "prompt_ms": 1.5, "predicted_n": ct, "predicted_ms": 2.5,
                               "cache_n": 0}
        if "usage" in rule:
            resp["usage"] = rule["usage"]
        return 200, resp

    def stream(self, resp, headers, rule):
        """resp as OpenAI streams it: a chunk per word of the first choice's content, then one with
        the finish_reason and the usage, then [DONE]; with "cut_stream", cut in the middle of the
        last content chunk's JSON and the connection closed (no length: the close ends it)."""
        ch = resp["choices"][0]
        base = {"id": resp["id"], "object": "chat.completion.chunk", "created": resp["created"],
                "model": resp["model"]}
        events = [dict(base, choices=[{"index": 0, "delta": {"content": w}, "finish_reason": None}])
                  for w in words(ch["message"]["content"])]
        events.append(dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": ch["finish_reason"]}],
                           usage=resp["usage"]))
        text = "".join("data: %s\n\n" % json.dumps(e, ensure_ascii=False) for e in events) + "data: [DONE]\n\n"
        if not rule.get("cut_stream"):
            self.send(200, text, "text/event-stream", headers=headers, rule=rule)
            return
        last = json.dumps(events[-2] if len(events) > 1 else events[-1], ensure_ascii=False)
        at = text.index("data: " + last) + len("data: ") + len(last) // 2
        body = text[:at].encode("utf-8")
        self.wait_reply()
        self.leave()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            for k, v in (headers or {}).items():
                self.send_header(k, str(v))
            self._headers_buffer.append(b"\r\n")
            self._headers_buffer.append(body)
            self.flush_headers()
        except OSError:
            pass
        self.drop()


def words(s):
    """s in pieces that join back to it exactly: each word with the blank after it."""
    out, cur = [], ""
    for c in s:
        cur += c
        if c == " ":
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def mutate(obj, rule, key):
    """The plan's changes to an AUTO reply object, in place."""
    mutate_rubric(obj, rule, key)
    lists = [k for k in ("verdicts", "claims", "questions") if isinstance(obj.get(k), list)]
    if rule.get("few"):
        for k in lists:
            if obj[k]:
                obj[k].pop()
    if rule.get("empty_list"):
        for k in lists:
            obj[k] = []
    if rule.get("bad_ids"):
        for v in obj.get("verdicts") or []:
            v["id"] = v["id"] + 100
    if rule.get("echo_key"):
        for v in obj.get("verdicts") or []:
            v["reason"] = v["reason"] + " (key: %s)" % key
        for k in ("claims", "questions"):
            if isinstance(obj.get(k), list):
                obj[k] = [dict(c, question=c.get("question", "") + " (key: %s)" % key)
                          if isinstance(c, dict) else c + " (key: %s)" % key for c in obj[k]]
    if rule.get("wrong_types"):
        for v in obj.get("verdicts") or []:
            v["id"] = str(v["id"])
            v["verdict"] = "yes" if v["verdict"] else "no"
        for k in ("claims", "questions"):
            if isinstance(obj.get(k), list):
                obj[k] = list(range(1, len(obj[k]) + 1))
        if "noncommittal" in obj:
            obj["noncommittal"] = "no"
    if rule.get("pad_bytes"):
        obj["padding"] = "x" * int(rule["pad_bytes"])


def embed_vector(text, dims):
    v = [0.0] * dims
    v[0] = 1.0
    for w in re.findall(r"\w+", text.lower()):
        h = int(hashlib.md5(w.encode("utf-8")).hexdigest(), 16)
        v[1 + h % (dims - 1) if dims > 1 else 0] += 1.0
    return v


def _embeddings(self, st, raw, req):
    """POST /v1/embeddings: the plan's faults as for chat, then vectors."""
    got = self.faults(st, raw, req)
    if got is None:
        return
    seq, rule, headers = got
    inp = req.get("input") if isinstance(req, dict) else None
    if isinstance(inp, str):
        inp = [inp]
    if not isinstance(inp, list) or not inp or not all(isinstance(t, str) and t for t in inp):
        self.send(400, json.dumps({"error": {"message": "fake: input must be a non-empty string or array "
                                             "of non-empty strings", "type": "invalid_request_error"}}))
        return
    dims = req.get("dimensions") if isinstance(req.get("dimensions"), int) else 16
    if rule.get("dims"):
        dims = int(rule["dims"])
    data = [{"object": "embedding", "index": i, "embedding": embed_vector(t, dims)}
            for i, t in enumerate(inp)]
    if rule.get("few"):
        data.pop()
    if rule.get("empty") or rule.get("empty_list"):
        data = []
    if rule.get("reverse"):
        data.reverse()
    if rule.get("bad_ids"):
        for d in data:
            d["index"] += 100
    if rule.get("wrong_types"):
        for d in data:
            d["embedding"] = [str(x) for x in d["embedding"]]
    toks = sum(max(1, len(t) // 4) for t in inp)
    model = req.get("model") or "fake-embedding"
    if rule.get("echo_key"):
        model = "%s (key: %s)" % (model, self.caller_key())
    resp = {"object": "list", "data": data, "model": model,
            "usage": {"prompt_tokens": toks, "total_tokens": toks}}
    if rule.get("pad_bytes"):
        resp["padding"] = "x" * int(rule["pad_bytes"])
    self.send(200, json.dumps(resp), headers=headers, rule=rule)


Handler.embeddings = _embeddings


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def handle_error(self, request, client_address):  # quiet: clients hang up on purpose
        pass


def main():
    ap = argparse.ArgumentParser(description="fake OpenAI-compatible server for ragpipe tests")
    ap.add_argument("--port", type=int, default=0, help="port (0 = any free port)")
    ap.add_argument("--port-file", help="write the port here once listening (atomically)")
    ap.add_argument("--plan", help="JSON array of fault rules")
    ap.add_argument("--log", help="append one JSON line per request here")
    ap.add_argument("--latency-ms", type=float, default=0, help="send every completion reply N ms after the request came (its making included)")
    ap.add_argument("--max-seconds", type=float, default=600, help="exit by itself after this long")
    ap.add_argument("--require-key", help="answer 401 unless Authorization is 'Bearer KEY'")
    ap.add_argument("--cached-tokens", choices=["openai", "deepseek"],
                    help="say in usage how many prompt tokens a prefix cache served")
    ap.add_argument("--provider", default="openai",
                    choices=["openai", "openai-reasoning", "azure", "no-schema", "deepseek", "anthropic",
                             "llamacpp", "gemini", "qwen", "ollama", "vllm"],
                    help="answer as that provider's endpoint does")
    ap.add_argument("--require-header", help="NAME=VALUE: answer 401 without that request header")
    ap.add_argument("--batch-step", type=int, default=0, help="lines of a batch answered a look (default a third)")
    ap.add_argument("--batch-hold", action="store_true", help="a batch goes no further than in_progress until "
                    "POST /_fake/release")
    ap.add_argument("--batch-max-lines", type=int, default=0, help="refuse (400) an upload of more requests")
    ap.add_argument("--batch-max-bytes", type=int, default=0, help="refuse (400) an upload of more bytes")
    a = ap.parse_args()

    plan = []
    if a.plan:
        with open(a.plan, encoding="utf-8") as f:
            plan = json.load(f)
        if not isinstance(plan, list) or not all(isinstance(r, dict) for r in plan):
            sys.exit("fakellm: the plan must be a JSON array of objects")

    srv = Server(("127.0.0.1", a.port), Handler)
    srv.state = State(plan, a.log, a.latency_ms, a.require_key)
    srv.cached_kind = a.cached_tokens or ("deepseek" if a.provider == "deepseek" else None)
    srv.provider = a.provider
    srv.require_header = a.require_header
    srv.seen = []
    srv.seen_lock = threading.Lock()
    srv.files, srv.batches = {}, {}
    srv.batch_lock = threading.Lock()
    srv.batch_step = a.batch_step
    srv.batch_hold = a.batch_hold
    srv.batch_max_lines = a.batch_max_lines or 0
    srv.batch_max_bytes = a.batch_max_bytes or 0
    port = srv.server_address[1]

    def watchdog():
        time.sleep(a.max_seconds)
        os._exit(0)
    threading.Thread(target=watchdog, daemon=True).start()

    if a.port_file:
        tmp = "%s.tmp.%d" % (a.port_file, os.getpid())
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.replace(tmp, a.port_file)
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
