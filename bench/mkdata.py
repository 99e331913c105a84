#!/usr/bin/env python3
"""bench/mkdata.py SRC OUT: the human-labelled sets of bench/accuracy.sh, as ragpipe records.

SRC holds the public files named below (each from its GitHub repository at the commit that
bench/data/README.md gives); OUT gets <set>/dev.jsonl and <set>/heldout.jsonl. Every draw is
seeded (random.Random(SEED)), so the same files give the same sample. Standard library only.

  faith-en   WiCE claims against their cited evidence      human.faithful   (ryokamoi/wice)
  ctx-en     XQuAD (English) questions and paragraphs      human.relevant   (google-deepmind/xquad)
  ans-en     SelQA answer-sentence selection               human.addresses  (emorynlp/selqa)
  ctx-zh     XQuAD (Chinese) questions and paragraphs      human.relevant   (google-deepmind/xquad)
  faith-sum  FaithBench LLM summaries against their source human.faithful   (vectara/FaithBench)

faith-sum is made only when SRC has FaithBench.csv (its licence, CC BY-NC-SA 4.0, is for
measurement here: the records are never committed or shipped).
"""
import hashlib
import json
import os
import random
import sys

SEED = 14


def part_of(key):
    """dev or heldout, by a hash of the group (an article, a title): a group is never in both"""
    h = hashlib.sha256(key.encode("utf-8")).digest()[0]
    return "dev" if h % 2 == 0 else "heldout"


def write(out, name, part, rows):
    os.makedirs(os.path.join(out, name), exist_ok=True)
    with open(os.path.join(out, name, part + ".jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def faith_en(src, out, n=300):
    """WiCE claim-level, oracle chunks: a Wikipedia sentence (the answer) and the sentences of
    the web page it cites (the context). Annotators said supported / partially_supported /
    not_supported; faithful means supported (anything unsupported in it makes it unfaithful,
    as a hallucinated span does in RAGTruth). WiCE's dev split is our dev, its test our held-out."""
    for split, part in (("dev", "dev"), ("test", "heldout")):
        rows = [json.loads(l) for l in open(os.path.join(src, "wice-" + split + ".jsonl"), encoding="utf-8")]
        random.Random(SEED).shuffle(rows)
        recs = []
        for r in rows[:n]:
            recs.append({"id": "wice-" + r["meta"]["id"], "answer": r["claim"],
                         "contexts": ["\n".join(r["evidence"])],
                         "human": {"faithful": r["label"] == "supported", "wice_label": r["label"]}})
        write(out, "faith-en", part, recs)


def ctx(src, out, lang, n=150):
    """XQuAD (the SQuAD v1.1 dev questions; zh: their professional translation): a person wrote
    each question, and marked its answer, reading one paragraph. Chunks: that paragraph
    (relevant) and two other paragraphs of the same article (not relevant: the same topic, not
    where the answer was read). The reference is the first answer. Split by article, the same
    split in both languages."""
    d = json.load(open(os.path.join(src, "xquad." + lang + ".json"), encoding="utf-8"))
    qs = {"dev": [], "heldout": []}
    for a in d["data"]:
        paras = [p["context"] for p in a["paragraphs"]]
        for pi, p in enumerate(a["paragraphs"]):
            for q in p["qas"]:
                qs[part_of("xquad:" + a["title"])].append((a["title"], pi, paras, q))
    for part, items in qs.items():
        rng = random.Random(SEED)
        rng.shuffle(items)
        recs = []
        for title, pi, paras, q in items[:n]:
            others = [i for i in range(len(paras)) if i != pi]
            rng.shuffle(others)
            for k, ci in enumerate([pi] + others[:2]):
                recs.append({"id": "xquad-%s-%s-%d" % (lang, q["id"], k), "question": q["question"],
                             "reference": q["answers"][0]["text"], "contexts": [paras[ci]],
                             "human": {"relevant": ci == pi}})
        write(out, "ctx-" + lang, part, recs)


def ans_en(src, out, n=150):
    """SelQA answer sentence selection (test split): crowd workers marked which sentences of a
    Wikipedia section contain the answer to a question. The answer of a record is one
    sentence; human.addresses says whether people marked it as answering the question. Per
    question: one marked sentence and two unmarked ones of the same section. Split by article."""
    d = json.load(open(os.path.join(src, "selqa-ass-test.json"), encoding="utf-8"))
    qs = {"dev": [], "heldout": []}
    for i, q in enumerate(d):
        if q["answers"] and len(q["candidates"]) > len(q["answers"]):
            qs[part_of("selqa:" + q["article"])].append((i, q))
    for part, items in qs.items():
        rng = random.Random(SEED)
        rng.shuffle(items)
        recs = []
        for i, q in items[:n]:
            yes = rng.choice(q["answers"])
            no = [k for k in range(len(q["candidates"])) if k not in q["answers"]]
            rng.shuffle(no)
            for k in [yes] + no[:2]:
                recs.append({"id": "selqa-%d-%d" % (i, k), "question": q["question"],
                             "answer": q["candidates"][k], "human": {"addresses": k in q["answers"]}})
        write(out, "ans-en", part, recs)


def faith_sum(src, out):
    """FaithBench: summaries written by ten 2024 LLMs of passages chosen where hallucination
    detectors disagree (no trivial cases), each read by annotators who marked every span not
    consistent with the passage as unwanted, questionable or benign. The answer is the summary,
    the context its passage. faithful means no annotator marked anything ("Consistent" as the
    worst label): a benign span (true, but not in the passage) is still not supported by the
    context. All 800 rows, split by passage."""
    import csv
    path = os.path.join(src, "FaithBench.csv")
    if not os.path.exists(path):
        return
    recs = {"dev": [], "heldout": []}
    with open(path, encoding="utf-8", newline="") as f:
        for i, r in enumerate(csv.DictReader(f)):
            recs[part_of("faithbench:" + r["source"])].append(
                {"id": "faithbench-%03d" % i, "answer": r["summary"].strip(), "contexts": [r["source"]],
                 "human": {"faithful": r["worst-label"] == "Consistent", "worst_label": r["worst-label"],
                           "summarizer": r["LLM"]}})
    for part, rows in recs.items():
        write(out, "faith-sum", part, rows)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: mkdata.py SRC OUT\n")
        return 2
    src, out = sys.argv[1], sys.argv[2]
    faith_en(src, out)
    ctx(src, out, "en")
    ans_en(src, out)
    ctx(src, out, "zh")
    faith_sum(src, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
