#!/usr/bin/env python3
"""flow.py - seed 004's whole workbench flow in rag-serve's page, in headless Chromium (Selenium),
and what the page shows at each step.

  flow.py walk URL DIR LANG WIDTH JUDGE SERVICE
      in LANG (en: a browser asking for English; zh: one asking for Chinese) at WIDTH px: a
      test set made (empty), the cases of DIR/cases.jsonl imported into it, one case edited,
      a run started from the Run evaluation tab against the fake judge at JUDGE (tests/fakellm.py,
      its root URL; it holds the requests of the last case until this script releases them) and
      the RAG service at SERVICE (tests/fakerag.py), its progress watched (4 of 5 records while
      the judge holds the fifth, then done), the run opened (its failed checks and first failing
      cause inside the first screen, at WIDTH and at the other width), three records marked
      (right, wrong, wrong on faithfulness), the labels' CSV link; one "key: value" line per
      finding, screenshots in DIR/shots

The test (tests/t/88-serve-flow-browser.t) asserts on the lines; this script asserts nothing.
No network: the page comes from rag-serve on 127.0.0.1, the fakes listen on 127.0.0.1. Nothing
waits on the clock: each step waits on the page's state (<body data-loads>, the run's
data-state and progress, the rows drawn).
"""
import os
import re
import shutil
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve import (after, click, col, console_errors, driver, out_console, fits, loads, no_alert, out,  # noqa: E402
                   rows, size, text, typed)

from serve import hist_after, hist_loads  # noqa: E402
from serve_sets import BROKEN, SMALL, english  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

NAME = {"en": "flow-en", "zh": "流程-zh"}
ENDED = ("done", "failed", "cancelled")
EDITED = {"en": "Edited (en): how long is the refund window?", "zh": "编辑过：退款期限是多久？"}

# whether each failed check and the first cause's line lie inside the first screen (the
# window's height, scrolled to the top), and how far down the lowest of them ends
FIRST_SCREEN = """
window.scrollTo(0, 0);
var els = Array.from(document.querySelectorAll('#checks-list li[data-pass="false"]'));
var cause = document.querySelector('#causes-list li.cause summary');
if (cause) els.push(cause);
var h = window.innerHeight, bottom = 0, inside = els.length > 1 && els.every(function (e) {
  var r = e.getBoundingClientRect();
  bottom = Math.max(bottom, r.bottom);
  return r.top >= 0 && r.bottom <= h && r.width > 0;
});
return [inside, Math.round(bottom), h];"""


def runs_listed(d):
    """the run ids History lists (its rows' first cells, whether the tab is shown or not)"""
    return d.execute_script("return Array.from(document.querySelectorAll('#runs tbody tr td:first-child'))"
                            ".map(function (c) { return c.textContent; })")


def trend_runs(d):
    """the run ids History's trends hold (its compare pickers are filled from /api/trends)"""
    return d.execute_script("return Array.from(document.querySelectorAll('#compare-form select[name=\"new\"] option'))"
                            ".map(function (o) { return o.value; })")


def progress(d):
    e = d.find_element(By.ID, "eval-progress")
    return "%s/%s" % (e.get_attribute("value"), e.get_attribute("max"))


def state(d):
    return d.find_element(By.ID, "eval-state").get_attribute("data-state")


def release(judge):
    """the fake judge lets the held requests go on (and holds no more)"""
    urllib.request.urlopen(urllib.request.Request(judge + "/_fake/release", data=b"{}", method="POST")).read()


def history(d, p, lang, width, shots, name, url):
    """History after the run: the gate's thresholds on the charts, headers whole at 1440 px; with
    two runs, the newest compared with the other, its address reloaded"""
    n = hist_loads(d)
    d.find_element(By.ID, "tab-history").click()
    d.find_element(By.CSS_SELECTOR, '#filters button[type="submit"]').click()
    hist_after(d, n)
    out(p + "charts", len(d.find_elements(By.CSS_SELECTOR, "#trends svg.trend")))
    out(p + "thresholds", " ".join("%s=%s" % (x.get_attribute("data-metric"), x.get_attribute("data-threshold"))
                                   for x in d.find_elements(By.CSS_SELECTOR, "#trends .t-thr")))
    size(d, 1440)
    out(p + "broken headers 1440", d.execute_script(BROKEN, "#runs th, #compare-means th") or "none")
    size(d, width)
    runs = [o.get_attribute("value") for o in d.find_elements(By.CSS_SELECTOR, '#compare-form select[name="new"] option')]
    if len(runs) < 2:
        return
    f = d.find_element(By.ID, "compare-form")
    Select(f.find_element(By.NAME, "base")).select_by_value(runs[1])
    Select(f.find_element(By.NAME, "new")).select_by_value(runs[0])
    n = hist_loads(d)
    f.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    hist_after(d, n)
    out(p + "compare hash", d.execute_script("return location.hash") == "#/compare/%s/%s" % (runs[1], runs[0]))
    out(p + "compare pairing", text(d, "#compare-pairing"))
    out(p + "compare rows", " | ".join(",".join(c.text for c in r.find_elements(By.TAG_NAME, "td"))
                                       for r in d.find_elements(By.CSS_SELECTOR, "#compare-means tbody tr")))
    links = [a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "#compare-out a.rec-link")]
    out(p + "compare links", "%d %s" % (len(links), all(("#/run/%s/id/" % runs[0]) in h for h in links)))
    if links:
        # a changed record's link opens that record of the new run (pairs are by id), then Back
        rid = d.find_element(By.CSS_SELECTOR, "#compare-out a.rec-link").text
        n = loads(d)
        d.get(links[0])
        after(d, n)
        WebDriverWait(d, 60).until(lambda d: d.find_element(By.ID, "record-view").is_displayed())
        out(p + "compare link opens", "%s | %s" % (rid in text(d, "#record-title"),
                                                  re.sub(r"/record/[0-9]+$", "/record/N",
                                                         d.execute_script("return location.hash"))))
        d.back()
        WebDriverWait(d, 60).until(lambda d: d.find_element(By.ID, "history").is_displayed())
    size(d, 1440)
    out(p + "broken compare headers 1440", d.execute_script(BROKEN, "#compare-means th, #compare-worse th") or "none")
    size(d, width)
    out(p + "fits compare", fits(d))
    out(p + "history small targets", d.execute_script(SMALL, "#history button, #history input, #history select")
        or "none")
    d.save_screenshot(os.path.join(shots, "compare-%s-%d.png" % (lang, width)))
    if lang == "zh":
        allow = runs + ["faithfulness", "keyword_overlap", "flow-zh", "flow-en", name, NAME["en"]]
        out(p + "history english", english(d, "#history", allow) or "none")
    # the comparison's address, reloaded (as a colleague's link would open it)
    d.refresh()
    WebDriverWait(d, 60).until(lambda d: d.find_element(By.ID, "compare-out").is_displayed() and
                               d.find_element(By.ID, "compare-title").text)
    out(p + "compare reloaded", "%s | %s" % (text(d, "#compare-title"), d.find_element(By.ID, "history").is_displayed()))
    # a filtered History's address, opened as a link: the filter filled in, its runs listed
    d.get("about:blank")
    d.get(url + "#/history?label=flow-zh")
    WebDriverWait(d, 60).until(lambda d: d.find_element(By.CSS_SELECTOR, '#filters input[name="label"]').get_attribute("value")
                               == "flow-zh" and len(d.find_elements(By.CSS_SELECTOR, "#runs tbody tr")) == 1)
    out(p + "history link", "%s | %s" % (d.find_element(By.CSS_SELECTOR, '#filters input[name="label"]').get_attribute("value"),
                                         ",".join(col(d, "runs", 2))))


def walk(url, files, lang, width, judge, service):
    p = lang + " "
    name = NAME[lang]
    other = 390 if width > 700 else 1440
    shots = os.path.join(files, "shots")
    os.makedirs(shots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="rag-serve-chromium.")
    d = driver(profile, "zh-CN" if lang == "zh" else "en-US")
    try:
        d.get(url)
        after(d, 0)
        size(d, width)
        out(p + "lang", d.execute_script("return document.documentElement.lang"))
        # ---------------------------------------------------------------- a test set, empty
        click(d, "#tab-sets")
        typed(d, '#create input[name="name"]', name)
        typed(d, '#create input[name="tag"]', "kb-" + lang)
        typed(d, '#create input[name="who"]', "ana-" + lang)
        click(d, '#create button[type="submit"]')
        out(p + "made", text(d, "#sets-note"))
        out(p + "fits sets", fits(d))
        d.save_screenshot(os.path.join(shots, "sets-%s-%d.png" % (lang, width)))
        row = [r for r in rows(d, "testsets") if r.find_elements(By.TAG_NAME, "td")[0].text == name][0]
        click(d, "button.open-set", row)
        out(p + "opened", text(d, "#cases-title"))
        # ---------------------------------------------------------------- its cases imported
        typed(d, '#cases-head input[name="who"]', "bo-" + lang)
        n = loads(d)
        d.find_element(By.CSS_SELECTOR, '#import input[name="file"]').send_keys(os.path.join(files, "cases.jsonl"))
        after(d, n)
        click(d, '#import button[type="submit"]')
        out(p + "imported", text(d, "#cases-note"))
        out(p + "ids", ",".join(col(d, "cases-table", 2)))
        # ---------------------------------------------------------------- one edited: case 4's question
        rows(d, "cases-table")[3].find_element(By.CSS_SELECTOR, "button.edit-case").click()
        typed(d, '#case-form textarea[name="question"]', EDITED[lang])
        click(d, '#case-form button[type="submit"]')
        out(p + "edited", text(d, "#cases-note"))
        out(p + "title after edit", text(d, "#cases-title"))
        out(p + "question 4", col(d, "cases-table", 3)[3])
        out(p + "fits cases", fits(d))
        d.save_screenshot(os.path.join(shots, "cases-%s-%d.png" % (lang, width)))
        # ---------------------------------------------------------------- a run started
        click(d, "#tab-evals")
        f = d.find_element(By.ID, "eval-form")
        out(p + "testsets", ",".join(o.get_attribute("value") for o in
                                     f.find_elements(By.CSS_SELECTOR, 'select[name="testset"] option')))
        Select(f.find_element(By.NAME, "testset")).select_by_value(name)
        for field, value in (("service_url", service), ("judge_base_url", judge + "/v1"), ("judge_model", "judge-x"),
                             ("top_k", "3"), ("metrics", "faithfulness,keyword_overlap"),
                             ("thresholds", "faithfulness=0.5, keyword_overlap=0.9"), ("label", "flow-" + lang)):
            typed(d, '#eval-form [name="%s"]' % field, value)
        out(p + "fits form", fits(d))
        out(p + "evals small targets", d.execute_script(SMALL, "#evals button, #evals input, #evals select, #evals textarea")
            or "none")
        d.find_element(By.ID, "eval-start").click()
        # its progress: the judge holds the fifth case's requests, so the run waits at 4 of 5
        WebDriverWait(d, 120).until(lambda d: state(d) in ENDED or (state(d) == "running" and progress(d) == "4/5"))
        out(p + "mid state", "%s %s" % (state(d), text(d, "#eval-state")))
        out(p + "mid progress", progress(d))
        out(p + "mid count", text(d, "#eval-count"))
        out(p + "fits progress", fits(d))
        d.save_screenshot(os.path.join(shots, "progress-%s-%d.png" % (lang, width)))
        release(judge)
        WebDriverWait(d, 120).until(lambda d: state(d) in ENDED)
        out(p + "state", "%s %s" % (state(d), text(d, "#eval-state")))
        out(p + "progress", progress(d))
        out(p + "count", text(d, "#eval-count"))
        # what the run ended with, from the store: the pass rate, the exit status, the means
        WebDriverWait(d, 60).until(lambda d: d.find_element(By.ID, "eval-result").is_displayed())
        out(p + "result", " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#eval-result dt, #eval-result dd")))
        out(p + "result means", " | ".join(",".join(c.text for c in r.find_elements(By.TAG_NAME, "td"))
                                           for r in rows(d, "eval-means")))
        d.save_screenshot(os.path.join(shots, "ended-%s-%d.png" % (lang, width)))
        if lang == "zh":
            # the tab in Chinese: no English but the data, the metrics' names, URLs and terms
            allow = [service, judge + "/v1", judge, "faithfulness", "keyword_overlap", "flow-zh", "flow-en", "judge-x",
                     "key=value", "TopK", "JSON", "API", "RAG", "rag-serve", "rag-eval", "llm.api_key", "llm.allow_urls",
                     name, text(d, "#eval-title").split()[-1]]
            out(p + "evals english", english(d, "#evals", allow) or "none")
        title = text(d, "#eval-title")
        out(p + "title", title)
        rid = title.split()[-1]
        # the run in History (the tab reloads it when a run ends), then opened from the tab
        WebDriverWait(d, 60).until(lambda d: rid in runs_listed(d))
        # and in its trends, drawn again when the run ended (issue 35 item 12: not a run behind)
        try:
            WebDriverWait(d, 30).until(lambda d: rid in trend_runs(d))
        except TimeoutException:
            pass
        out(p + "trends hold the run", "yes" if rid in trend_runs(d) else "no: " + ",".join(trend_runs(d)))
        n = loads(d)
        d.find_element(By.ID, "eval-open").click()
        after(d, n)
        WebDriverWait(d, 60).until(lambda d: d.find_element(By.ID, "run").is_displayed() and len(rows(d, "records")) == 5)
        # ---------------------------------------------------------------- the opened run: what to fix first
        out(p + "run title", text(d, "#run-title"))
        out(p + "verdict", text(d, "#run-verdict"))
        out(p + "checks title", text(d, '#run-checks h3[data-t="checks"]'))
        out(p + "checks", " | ".join("%s:%s" % (e.get_attribute("data-pass"), e.get_attribute("data-check"))
                                     for e in d.find_elements(By.CSS_SELECTOR, "#checks-list li")))
        out(p + "checks text", " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#checks-list li")))
        out(p + "causes title", text(d, '#run-checks h3[data-t="causes"]'))
        out(p + "causes", " | ".join("%s=%s" % (e.get_attribute("data-cause"), e.get_attribute("data-count"))
                                     for e in d.find_elements(By.CSS_SELECTOR, "#causes-list li.cause")))
        out(p + "first cause", text(d, "#causes-list li.cause summary"))
        out(p + "first cause records", " | ".join(
            e.text for e in d.find_elements(By.CSS_SELECTOR, "#causes-list li.cause:first-child .cause-records li")))
        out(p + "summary", " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#run-summary dt, #run-summary dd")))
        out(p + "means", " | ".join(",".join(c.text for c in r.find_elements(By.TAG_NAME, "td"))
                                    for r in rows(d, "run-means")))
        out(p + "records count", text(d, "#records-count"))
        out(p + "record ids", ",".join(col(d, "records", 1)))
        out(p + "passed", ",".join(col(d, "records", 6)))
        for w in (width, other):
            size(d, w)
            inside, bottom, h = d.execute_script(FIRST_SCREEN)
            out(p + "first screen %d" % w, inside)
            out(p + "first screen bottom %d" % w, "%d of %d" % (bottom, h))
            out(p + "fits run %d" % w, fits(d))
            # the most lines an id or a category takes (a table that squeezes them breaks "c1" into "c", "1"):
            # the lines of its text (the id is a link: its own box is no line)
            out(p + "id lines %d" % w, d.execute_script(
                "return Math.max.apply(null, Array.prototype.map.call(document.querySelectorAll("
                "'#records tbody td:nth-child(2), #records tbody td:nth-child(3)'), function (c) {"
                " var w = document.createTreeWalker(c, NodeFilter.SHOW_TEXT), n = 0, x;"
                " while ((x = w.nextNode())) { var r = document.createRange(); r.selectNodeContents(x); n += r.getClientRects().length; }"
                " return n; }))"))
            d.save_screenshot(os.path.join(shots, "run-%s-%d.png" % (lang, w)))
        size(d, width)
        # ---------------------------------------------------------------- three records marked
        typed(d, '#review input[name="who"]', "ana-" + lang)
        out(p + "review metric", Select(d.find_element(By.CSS_SELECTOR, "#review select")).first_selected_option
            .get_attribute("value"))
        for i, verdict in ((1, "right"), (2, "wrong"), (3, "wrong")):
            click(d, "button.mark-" + verdict, rows(d, "records")[i])
        out(p + "marks", " | ".join("%s=%s" % (r.find_elements(By.TAG_NAME, "td")[1].text,
                                               ";".join(m.text for m in r.find_elements(By.CSS_SELECTOR, ".marks div")))
                                    for r in rows(d, "records")))
        out(p + "labels link", d.find_element(By.ID, "labels-csv").get_attribute("href"))
        out(p + "fits marked", fits(d))
        d.save_screenshot(os.path.join(shots, "marked-%s-%d.png" % (lang, width)))
        history(d, p, lang, width, shots, name, url)
        out(p + "no alert", no_alert(d))
        out_console(p + "console errors", console_errors(d))
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) == 8 and sys.argv[1] == "walk" and sys.argv[4] in NAME:
        walk(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6], sys.argv[7])
    else:
        sys.exit("usage: flow.py walk URL DIR en|zh WIDTH JUDGE SERVICE")
