#!/usr/bin/env python3
"""serve_sets.py - drive rag-serve's Test sets and Cases tabs in headless Chromium (Selenium)
and print what they show.

  serve_sets.py walk URL DIR   in English at 1440 px, then in Chinese at 390 px: a test set
                               made from a file (DIR/cases.jsonl), a broken file's FILE:LINE
                               error, the set opened, one case edited (a new version), the
                               category set on two, cases imported (DIR/more.csv), an edit
                               refused (409) after another writer saved, no horizontal scroll
                               at 1440 and 390 px; one "key: value" line per finding,
                               screenshots in DIR/shots

The test (tests/t/86-serve-sets-browser.t) asserts on the lines; this script asserts nothing.
No network: the page comes from rag-serve on 127.0.0.1. Nothing waits on the clock: each step
waits until the page has drawn one more reply (<body data-loads>).
"""
import json
import os
import re
import shutil
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve import (after, click, col, console_errors, driver, out_console, fits, loads, no_alert, out,  # noqa: E402
                   rows, size, text, typed)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


def other_writer(url, name, base, who):
    """another browser's edit through the API: the case #1's category, based on version base"""
    host = url.split("/")[2]
    with urllib.request.urlopen(url + "api/session") as r:
        csrf = json.load(r)["csrf"]
    body = json.dumps({"base_version": base, "who": who,
                       "ops": [{"op": "set", "seqs": [1], "category": "theirs"}]}).encode()
    req = urllib.request.Request(url + "api/testsets/%s/cases" % urllib.request.quote(name), data=body,
                                 method="POST", headers={"Origin": "http://" + host, "X-CSRF-Token": csrf,
                                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["version"]


def post_json(url, path, body):
    """a write through the API, from the page's origin with its CSRF token"""
    host = url.split("/")[2]
    with urllib.request.urlopen(url + "api/session") as r:
        csrf = json.load(r)["csrf"]
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Origin": "http://" + host, "X-CSRF-Token": csrf,
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def english(d, css, allow=()):
    """the English words a Chinese page shows in css (its visible text), but the allowed terms
    (metric names, ids, numbers, the data): "" when there is none"""
    txt = d.execute_script("var e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css)
    for a in sorted(allow, key=len, reverse=True):
        txt = txt.replace(a, " ")
    return ",".join(sorted(set(re.findall(r"[A-Za-z]{2,}", txt))))


# the tap targets of css under 24 px wide or high (those drawn): "id WxH", comma-separated
SMALL = """return [].filter.call(document.querySelectorAll(arguments[0]), function (e) {
    var r = e.getBoundingClientRect(); return r.width && r.height && (r.width < 24 || r.height < 24);
}).map(function (e) { return (e.id || e.name || e.className || e.tagName) + ' ' +
    Math.round(e.getBoundingClientRect().width) + 'x' + Math.round(e.getBoundingClientRect().height); }).join(',')"""


# the words of the visible headers (th) of css broken over two lines: "Lab|el" at 1440 px
BROKEN = """return Array.from(document.querySelectorAll(arguments[0])).filter(function (th) {
    return th.offsetParent; }).reduce(function (bad, th) {
    var tn = th.firstChild, txt = tn && tn.nodeType === 3 ? tn.data : "", re = /\\S+/g, m;
    while ((m = re.exec(txt))) {
        var r = document.createRange(); r.setStart(tn, m.index); r.setEnd(tn, m.index + m[0].length);
        var tops = {}; Array.from(r.getClientRects()).forEach(function (c) { if (c.width > 0) tops[Math.round(c.top)] = 1; });
        if (Object.keys(tops).length > 1) bad.push(m[0]);
    }
    return bad; }, []).join(",")"""


def headers(d, url, shots):
    """History's runs (runs of 9 metrics added by the test) at 1440 px, in English and in
    Chinese: the words of its headers and short cells that break over two lines"""
    size(d, 1440)
    for lang in ("en", "zh"):
        if (lang == "zh") != (d.execute_script("return document.documentElement.lang") == "zh-CN"):
            d.find_element(By.ID, "lang").click()
        d.find_element(By.ID, "tab-history").click()
        click(d, '#filters button[type="submit"]')
        out(lang + " runs listed", len(rows(d, "runs")))
        out(lang + " runs broken 1440", d.execute_script(BROKEN, "#runs th, #runs td:nth-child(-n+2), #runs td:nth-child(5), "
                                                        "#runs td:nth-child(6)") or "none")
        d.save_screenshot(os.path.join(shots, "history-%s-1440.png" % lang))
    # the two runs compared from the comparison's address, opened and reloaded (English, 1440 px)
    ids = [r.find_elements(By.TAG_NAME, "td")[0].text for r in rows(d, "runs")]
    labels = {r.find_elements(By.TAG_NAME, "td")[0].text: r.find_elements(By.TAG_NAME, "td")[2].text for r in rows(d, "runs")}
    d.get("about:blank")
    d.get(url + "#/compare/%s/%s" % (ids[1], ids[0]))
    for k in ("opened", "reloaded"):
        if k == "reloaded":
            d.refresh()
        WebDriverWait(d, 60).until(lambda d: d.find_element(By.ID, "compare-out").is_displayed() and
                                   d.find_element(By.ID, "compare-title").text)
        out("compare " + k, "%s | %s | %d rows | %s" % (
            d.find_element(By.ID, "compare-title").text == "%s (%s) → %s (%s)" % (ids[1], labels[ids[1]], ids[0], labels[ids[0]]),
            text(d, "#compare-pairing"), len(rows(d, "compare-means")),
            rows(d, "compare-means")[-1].find_elements(By.TAG_NAME, "td")[0].text))
    out("compare fits 1440", fits(d))
    d.save_screenshot(os.path.join(shots, "compare-en-1440.png"))


def height(d):
    return d.execute_script("return document.documentElement.scrollHeight")


def opened(d, lang):
    """a page loaded from its address: the Cases tab drawn, in lang"""
    WebDriverWait(d, 60).until(lambda d: d.find_element(By.ID, "cases").is_displayed() and rows(d, "cases-table"))
    if (lang == "zh") != (d.execute_script("return document.documentElement.lang") == "zh-CN"):
        d.find_element(By.ID, "lang").click()


def paged(d, url, shots, lang, width):
    """320 cases: a page of them, the next, a search, a category, the address reloaded"""
    p = lang + " "
    name = "many-" + lang
    size(d, width)
    cases = [dict({"id": "p%d" % i, "question": "where is Paris %d" % i if i % 7 == 0 else "question %d" % i},
                  **({"category": "kb-x"} if i % 3 == 0 else {})) for i in range(1, 321)]
    post_json(url, "api/testsets", {"name": name, "text": "\n".join(json.dumps(c) for c in cases)})
    d.get("about:blank")
    d.get(url + "#/cases/" + name)
    opened(d, lang)
    out(p + "many editor shown", d.find_element(By.ID, "case-form").is_displayed())
    out(p + "many first", "%s | %s | %s" % (text(d, "#cases-count"), len(rows(d, "cases-table")),
                                            ",".join(col(d, "cases-table", 2)[:3])))
    out(p + "many height", height(d))
    d.save_screenshot(os.path.join(shots, "many-%s-%d.png" % (lang, width)))
    click(d, '#cases-pager [data-dir="1"]')
    out(p + "many next", "%s | %s | %s" % (text(d, "#cases-count"), col(d, "cases-table", 2)[0],
                                           d.execute_script("return location.hash")))
    typed(d, '#cases-find input[name="q"]', "paris")
    click(d, '#cases-find button[type="submit"]')
    out(p + "many search", "%s | %s" % (text(d, "#cases-count"), ",".join(col(d, "cases-table", 2)[:4])))
    n = loads(d)
    Select(d.find_element(By.CSS_SELECTOR, '#cases-find select[name="category"]')).select_by_value("kb-x")
    after(d, n)
    out(p + "many category", "%s | %s" % (text(d, "#cases-count"), ",".join(col(d, "cases-table", 2)[:4])))
    hsh = d.execute_script("return location.hash")
    if lang == "zh":
        # the data (ids, questions, the category, the name, the search), formats' and metric names
        allow = ["many-zh", "kb-x", "where is Paris", "question", "paris", "JSON Lines", "JSON", "CSV", "ragpipe",
                 "English", "v1"] + ["p%d" % i for i in range(1, 321)]
        out(p + "many english", english(d, "#cases", allow) or "none")
    d.refresh()
    opened(d, lang)
    out(p + "many reloaded", "%s | %s | %s" % (hsh, d.execute_script("return location.hash") == hsh,
                                               text(d, "#cases-count")))
    out(p + "many search kept", d.find_element(By.CSS_SELECTOR, '#cases-find input[name="q"]').get_attribute("value"))
    out(p + "many fits", fits(d))
    # the tap targets of the tab: none under 24 px high or wide
    small = d.execute_script(SMALL, "#cases button, #cases input, #cases select")
    out(p + "many small targets", small or "none")
    # the Test sets tab: its tap targets, and in Chinese its words
    click(d, "#tab-sets")
    out(p + "sets small targets", d.execute_script(SMALL, "#sets button, #sets input, #sets select") or "none")
    if lang == "zh":
        allow = ["faq", "many-zh", "many-en", "JSON Lines", "JSON", "CSV", "English"] + \
            ["%s-%s" % (a, b) for a in ("kb", "ana", "bo", "cy") for b in ("en", "zh")]
        out(p + "sets english", english(d, "#sets", allow) or "none")


def flow(d, url, files, shots, lang, width, name):
    p = lang + " "
    size(d, width)
    if lang == "zh" and d.execute_script("return document.documentElement.lang") != "zh-CN":
        d.find_element(By.ID, "lang").click()
    click(d, "#tab-sets")
    out(p + "tabs", " ".join(b.text for b in d.find_elements(By.CSS_SELECTOR, "#tabs button")))
    # a broken file: its FILE:LINE error on the page, nothing made
    typed(d, '#create input[name="name"]', name + "-bad")
    n = loads(d)
    d.find_element(By.CSS_SELECTOR, '#create input[name="file"]').send_keys(os.path.join(files, "bad.jsonl"))
    after(d, n)
    click(d, '#create button[type="submit"]')
    out(p + "bad file", text(d, "#sets-note"))
    # made from a file, with a tag and the editor's name
    n = loads(d)
    typed(d, '#create input[name="name"]', name)
    typed(d, '#create input[name="tag"]', "kb-" + lang)
    typed(d, '#create input[name="who"]', "ana-" + lang)
    d.find_element(By.CSS_SELECTOR, '#create input[name="file"]').send_keys(os.path.join(files, "cases.jsonl"))
    after(d, n)
    click(d, '#create button[type="submit"]')
    out(p + "made", text(d, "#sets-note"))
    out(p + "sets", " | ".join("%s %s %s" % (r.find_elements(By.TAG_NAME, "td")[0].text,
                                              r.find_elements(By.TAG_NAME, "td")[2].text,
                                              r.find_elements(By.TAG_NAME, "td")[3].text) for r in rows(d, "testsets")))
    out(p + "fits sets", fits(d))
    d.save_screenshot(os.path.join(shots, "sets-%s-%d.png" % (lang, width)))
    # opened: its cases
    row = [r for r in rows(d, "testsets") if r.find_elements(By.TAG_NAME, "td")[0].text == name][0]
    click(d, "button.open-set", row)
    out(p + "cases shown", "%s:%s" % (d.find_element(By.ID, "cases").is_displayed(),
                                     d.find_element(By.ID, "sets").is_displayed()))
    out(p + "title", text(d, "#cases-title"))
    out(p + "editor shown", d.find_element(By.ID, "case-form").is_displayed())
    out(p + "ids", ",".join(col(d, "cases-table", 2)))
    out(p + "hostile", "img=%d script=%d" % (len(d.find_elements(By.CSS_SELECTOR, "main img")),
                                             len(d.find_elements(By.CSS_SELECTOR, "main script"))))
    # one case edited: a new version
    click_edit = rows(d, "cases-table")[1].find_element(By.CSS_SELECTOR, "button.edit-case")
    click_edit.click()
    typed(d, '#case-form textarea[name="question"]', "edited: " + lang)
    typed(d, '#cases-head input[name="who"]', "bo-" + lang)
    click(d, '#case-form button[type="submit"]')
    out(p + "edit saved", text(d, "#cases-note"))
    out(p + "title after edit", text(d, "#cases-title"))
    out(p + "question 2", col(d, "cases-table", 3)[1])
    # the category on cases 1 and 3
    for i in (0, 2):
        rows(d, "cases-table")[i].find_element(By.CSS_SELECTOR, "input.sel").click()
    out(p + "selected", text(d, "#bulk-count"))
    typed(d, '#bulk input[name="category"]', "bulk-" + lang)
    click(d, '#bulk button[type="submit"]')
    out(p + "categories", ",".join(col(d, "cases-table", 5)))
    # cases imported from a CSV file
    n = loads(d)
    d.find_element(By.CSS_SELECTOR, '#import input[name="file"]').send_keys(os.path.join(files, "more.csv"))
    after(d, n)
    click(d, '#import button[type="submit"]')
    out(p + "imported", text(d, "#cases-note"))
    out(p + "count", text(d, "#cases-count"))
    out(p + "fits cases", fits(d))
    d.save_screenshot(os.path.join(shots, "cases-%s-%d.png" % (lang, width)))
    # another writer saves first: this page's edit is refused, told why, nothing lost
    v = other_writer(url, name, int(d.find_element(By.CSS_SELECTOR, "#cases-head select").get_attribute("value")),
                     "cy-" + lang)
    out(p + "other writer", v)
    rows(d, "cases-table")[0].find_element(By.CSS_SELECTOR, "button.edit-case").click()
    typed(d, '#case-form textarea[name="question"]', "mine")
    click(d, '#case-form button[type="submit"]')
    out(p + "conflict", text(d, "#cases-note"))
    out(p + "fits conflict", fits(d))
    d.save_screenshot(os.path.join(shots, "conflict-%s-%d.png" % (lang, width)))
    click(d, "#cases-note button.reload")
    out(p + "reloaded", "%s | %s" % (text(d, "#cases-title"), col(d, "cases-table", 5)[0]))
    # the other width: still no sideways scroll
    size(d, 390 if width > 700 else 1440)
    out(p + "fits cases other width", fits(d))
    d.find_element(By.ID, "tab-sets").click()
    out(p + "fits sets other width", fits(d))


def walk(url, files):
    shots = os.path.join(files, "shots")
    os.makedirs(shots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="rag-serve-chromium.")
    d = driver(profile, "en-US")
    try:
        d.get(url)
        after(d, 0)
        flow(d, url, files, shots, "en", 1440, "faq")
        flow(d, url, files, shots, "zh", 390, "常见问题")
        paged(d, url, shots, "zh", 390)
        paged(d, url, shots, "en", 1440)
        headers(d, url, shots)
        out("no alert", no_alert(d))
        errs = console_errors(d)
        # the 409 of the refused edit is a console error of its own (the browser logs a failed fetch)
        errs = [e for e in errs if " 409 " not in e.get("message", "") and "(Conflict)" not in e.get("message", "")
                and " 400 " not in e.get("message", "") and "(Bad Request)" not in e.get("message", "")]
        out_console("console errors", errs)
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "walk":
        walk(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: serve_sets.py walk URL DIR")
