#!/usr/bin/env python3
"""report.py - drive a rag-report page in headless Chromium (Selenium) and print what it shows.

  report.py walk PAGE SHOTDIR    the fixture page of tests/t/66-report-browser.t: every tab, the
                                 filters, a sort, a record opened, the comparison, the history;
                                 one "key: value" line per finding, screenshots in SHOTDIR
  report.py noscript PAGE SHOTDIR  the page with JavaScript off: what the Summary shows
  report.py big PAGE N SHOTDIR   a page of N records: the rows drawn and a filter's result
  report.py screens PAGE SHOTDIR LANG  the 300-record page at 1440x900 and 390x844, in LANG (en, zh)
  report.py onerun PAGE          a page of one run: its History tab
  report.py chinese PAGE         the page in Chinese at 390 and 1440 px: its head, and the English
                                 words left on each tab but the run's data and metric names
  report.py time PAGE            bench/report.sh: milliseconds to ready, to the Records tab drawn,
                                 and for one filter, as "key: value"

The test asserts on the lines; this script asserts nothing itself. No network: the page is a
local file, and Chromium runs with its background traffic off.
"""
import atexit
import json
import os
import re
import shutil
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait


PROFILES = []


def driver(script=True):
    """headless Chromium in a fresh profile of its own, removed at exit; script=False: with
    JavaScript off"""
    profile = tempfile.mkdtemp(prefix="rag-report-chromium.")
    PROFILES.append(profile)
    o = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-quic", "--no-first-run", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--disable-default-apps",
              "--disable-extensions", "--window-size=1280,1800", "--user-data-dir=" + profile):
        o.add_argument(a)
    if not script:
        o.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    binary = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if os.path.exists(binary):
        o.binary_location = binary
    path = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
    return webdriver.Chrome(service=Service(path), options=o)


def out(key, value):
    print("%s: %s" % (key, value), flush=True)


def load(d, page):
    d.get("file://" + os.path.abspath(page))
    WebDriverWait(d, 120).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))


def tab(d, name):
    d.find_element(By.CSS_SELECTOR, 'nav.tabs button[data-tab="%s"]' % name).click()


def visible(d, sid):
    return d.find_element(By.ID, sid).is_displayed()


def text(d, sel):
    return d.find_element(By.CSS_SELECTOR, sel).text


def rows(d, prefix):
    return d.find_elements(By.CSS_SELECTOR, "#%s-table tbody tr.row" % prefix)


def ids(d, prefix, col=1):
    return [r.find_elements(By.TAG_NAME, "td")[col].text for r in rows(d, prefix)]


def choose(d, sid, value):
    Select(d.find_element(By.ID, sid)).select_by_value(value)


def search(d, s):
    box = d.find_element(By.ID, "f-search")
    box.clear()
    if s:
        box.send_keys(s)
    else:
        d.execute_script("arguments[0].dispatchEvent(new Event('input'))", box)
    time.sleep(0.4)   # the search waits 120 ms for typing to stop


def no_alert(d):
    try:
        d.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


def walk(page, shots):
    d = driver()
    try:
        load(d, page)
        out("title", d.title)
        out("tabs", " ".join(b.text for b in d.find_elements(By.CSS_SELECTOR, "nav.tabs button")))
        out("verdict", text(d, "#verdict .verdict"))
        out("summary shown", visible(d, "summary"))
        out("records shown", visible(d, "records"))
        out("cards", len(d.find_elements(By.CSS_SELECTOR, "#summary .card")))
        out("record threshold lines", len(d.find_elements(By.CSS_SELECTOR, "#distribution line.thr-record")))
        # the failing records folded under their heading (issue 36 item 12): opened to read them
        out("failing folded", js(d, "var e = document.getElementById('failed-list'); return !!e && !e.open"))
        d.find_element(By.CSS_SELECTOR, "#failed-list summary").click()
        out("failing listed", " | ".join(r.find_elements(By.TAG_NAME, "td")[0].text.split("\n")[0]
                                         for r in d.find_elements(By.CSS_SELECTOR, "#failed tbody tr")))
        d.save_screenshot(os.path.join(shots, "summary.png"))

        tab(d, "records")
        out("records shown", visible(d, "records"))
        out("summary shown", visible(d, "summary"))
        out("count", text(d, "#records-count"))
        out("rows", len(rows(d, "records")))
        out("failing rows", len(d.find_elements(By.CSS_SELECTOR, "#records-table tr.row.failing")))
        search(d, "长城")
        out("search 长城", text(d, "#records-count") + " " + ",".join(ids(d, "records")))
        search(d, "")
        choose(d, "f-status", "fail")
        out("failed", text(d, "#records-count") + " " + ",".join(ids(d, "records")))
        choose(d, "f-status", "pass")
        out("passed", text(d, "#records-count") + " " + ",".join(ids(d, "records")))
        choose(d, "f-status", "")
        choose(d, "f-category", "地理")
        out("category 地理", text(d, "#records-count") + " " + ",".join(ids(d, "records")))
        choose(d, "f-category", "")
        choose(d, "f-errors", "with")
        out("with errors", text(d, "#records-count"))
        choose(d, "f-errors", "")
        choose(d, "f-metric", "faithfulness")
        choose(d, "f-op", "lt")
        v = d.find_element(By.ID, "f-value")
        v.clear()
        v.send_keys("0.6")
        time.sleep(0.4)
        out("faithfulness below 0.6", text(d, "#records-count"))
        choose(d, "f-metric", "")
        th = d.find_element(By.CSS_SELECTOR, '#records-table th[data-col="m:faithfulness"]')
        th.click()
        out("sorted up", ",".join(ids(d, "records")))
        th.click()
        out("sorted down", ",".join(ids(d, "records")))
        d.find_element(By.CSS_SELECTOR, '#records-table th[data-col="n"]').click()
        # open en-2: its claim, its verdict and reason, its contexts and what it missed
        r = [x for x in rows(d, "records") if x.find_elements(By.TAG_NAME, "td")[1].text == "en-2"][0]
        r.click()
        det = d.find_element(By.CSS_SELECTOR, "#records-table tr.detail")
        out("detail why", " | ".join(li.text for li in det.find_elements(By.CSS_SELECTOR, "ul.why li")))
        out("detail claims", " | ".join(tr.text.replace("\n", " ") for tr in det.find_elements(By.CSS_SELECTOR, "table.claims tbody tr")))
        out("detail contexts", len(det.find_elements(By.CSS_SELECTOR, "ol.contexts > li")))
        out("detail chunk verdicts", " | ".join(x.text for x in det.find_elements(By.CSS_SELECTOR, ".chunk-verdict")))
        out("detail where", det.find_element(By.CSS_SELECTOR, ".where").text)
        out("detail source", det.find_element(By.CSS_SELECTOR, ".source").text)
        out("detail relevance from", " | ".join(x.text for x in det.find_elements(By.CSS_SELECTOR, "table.scores td.from") if x.text))
        out("detail reference", "Reference" in det.text and "Einstein was born in Ulm" in det.text)
        d.save_screenshot(os.path.join(shots, "records.png"))
        r.click()
        out("detail closed", len(d.find_elements(By.CSS_SELECTOR, "#records-table tr.detail")))
        # the hostile record: its text shown as text, nothing of it run or made an element
        search(d, "iframe")
        rows(d, "records")[0].click()
        det = d.find_element(By.CSS_SELECTOR, "#records-table tr.detail")
        out("hostile shown", '<iframe src="http://evil.example/"></iframe>' in det.text and "</td></tr></table><h1>pwned</h1>" in det.text)
        out("hostile error shown", "<b>bold</b> error" in det.text)
        out("hostile elements", "iframe=%d img=%d h1=%d b=%d" % tuple(
            len(d.find_elements(By.TAG_NAME, t)) for t in ("iframe", "img", "h1", "b")))
        out("h1", " | ".join(h.text for h in d.find_elements(By.TAG_NAME, "h1")))
        out("no alert", no_alert(d))
        search(d, "")

        tab(d, "compare")
        out("compare shown", visible(d, "compare"))
        out("compare metrics", " | ".join(tr.text.replace("\n", " ") for tr in d.find_elements(By.CSS_SELECTOR, "#compare-metrics tbody tr")))
        out("compare count", text(d, "#compare-count"))
        out("compare order", ",".join("%s:%s" % (c[0], c[1]) for c in
                                      ([td.text for td in tr.find_elements(By.TAG_NAME, "td")[:2]] for tr in rows(d, "compare"))))
        rows(d, "compare")[0].click()
        det = d.find_element(By.CSS_SELECTOR, "#compare-table tr.detail")
        out("side by side", text(d, "#compare-table .baseline-side .answer") + " || " + text(d, "#compare-table .current-side .answer"))
        out("changes", " | ".join(li.text for li in det.find_elements(By.CSS_SELECTOR, "ul.changes li")))
        choose(d, "c-filter", "improved")
        out("compare improved", text(d, "#compare-count") + " " + ",".join(ids(d, "compare", 0)))
        choose(d, "c-filter", "")
        d.save_screenshot(os.path.join(shots, "compare.png"))

        tab(d, "history")
        out("history shown", visible(d, "history"))
        charts = d.find_elements(By.CSS_SELECTOR, "figure.history-chart")
        out("charts", " ".join(c.get_attribute("data-metric") for c in charts))
        out("points", " ".join(str(len(c.find_elements(By.CSS_SELECTOR, "circle.point"))) for c in charts))
        faith = d.find_element(By.CSS_SELECTOR, 'figure.history-chart[data-metric="faithfulness"]')
        out("labels", ",".join(t.text for t in faith.find_elements(By.CSS_SELECTOR, "text.xlabel")))
        out("dates", ",".join(t.text for t in faith.find_elements(By.CSS_SELECTOR, "text.xdate")))
        out("threshold line", len(faith.find_elements(By.CSS_SELECTOR, "line.thr-mean")))
        out("history rows", len(d.find_elements(By.CSS_SELECTOR, "#history-table tbody tr")))
        pts = faith.find_elements(By.CSS_SELECTOR, "circle.point")
        d.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", pts[0])
        out("opened run", text(d, "#history-run h4"))
        out("opened link", ",".join(a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "#history-run a")))
        d.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", pts[1])
        out("opened run", text(d, "#history-run h4"))
        out("opened link", ",".join(a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "#history-run a")) or "none")
        d.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", pts[-1])
        out("opened run", text(d, "#history-run h4"))
        d.save_screenshot(os.path.join(shots, "history.png"))
        out("no alert", no_alert(d))
        errs = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"] if hasattr(d, "get_log") else []
        out("console errors", len(errs))
        for e in errs[:5]:
            out("console", e.get("message"))
    finally:
        d.quit()


def noscript(page, shots):
    """the page with JavaScript off: the Summary must read"""
    d = driver(script=False)
    try:
        d.get("file://" + os.path.abspath(page))
        out("ran", d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") or "no")
        out("summary shown", visible(d, "summary"))
        out("tabs shown", d.find_element(By.CSS_SELECTOR, "nav.tabs").is_displayed())
        out("verdict", text(d, "#verdict .verdict"))
        out("cards", len(d.find_elements(By.CSS_SELECTOR, "#summary .card")))
        out("checks", " | ".join(li.text for li in d.find_elements(By.CSS_SELECTOR, "#summary ul.checks li")))
        out("failing listed", len(d.find_elements(By.CSS_SELECTOR, "#failed tbody tr")))
        out("notice", text(d, "#records").replace("\n", " | "))
        d.save_screenshot(os.path.join(shots, "noscript.png"))
    finally:
        d.quit()


def big(page, n, shots):
    d = driver()
    try:
        load(d, page)
        tab(d, "records")
        out("count", text(d, "#records-count"))
        out("rows", len(rows(d, "records")))
        out("pager", text(d, "#records-pageinfo"))
        d.find_element(By.ID, "records-next").click()
        out("page 2 first", rows(d, "records")[0].find_elements(By.TAG_NAME, "td")[0].text)
        choose(d, "f-status", "fail")
        out("failed", text(d, "#records-count"))
        th = d.find_element(By.CSS_SELECTOR, '#records-table th[data-col="m:faithfulness"]')
        col = [h.get_attribute("data-col") for h in d.find_elements(By.CSS_SELECTOR, "#records-table th")].index("m:faithfulness")
        th.click()
        out("lowest", rows(d, "records")[0].find_elements(By.TAG_NAME, "td")[col].text)
        d.save_screenshot(os.path.join(shots, "big.png"))
    finally:
        d.quit()


def timing(page, shots):
    d = driver()
    try:
        t0 = time.monotonic()
        load(d, page)
        out("ready_ms", round((time.monotonic() - t0) * 1000))
        out("ready_page_ms", d.find_element(By.TAG_NAME, "body").get_attribute("data-ready-ms"))
        ms = d.execute_script("var t = performance.now();"
                              "document.querySelector('nav.tabs button[data-tab=records]').click();"
                              "return performance.now() - t;")
        out("records_tab_ms", round(ms))
        ms = d.execute_script("var s = document.getElementById('f-status'), t = performance.now();"
                              "s.value = 'fail'; s.dispatchEvent(new Event('change'));"
                              "return performance.now() - t;")
        out("filter_ms", round(ms))
        d.execute_script("var s = document.getElementById('f-status'); s.value = ''; s.dispatchEvent(new Event('change'));")
        before = text(d, "#records-count")
        box = d.find_element(By.ID, "f-search")
        t0 = time.monotonic()
        box.send_keys("question 1999")
        WebDriverWait(d, 60, poll_frequency=0.005).until(lambda d: text(d, "#records-count") != before)
        out("search_ms", round((time.monotonic() - t0) * 1000))
        out("count", text(d, "#records-count"))
    finally:
        d.quit()


def js(d, code):
    return d.execute_script(code)


def screens(page, shots, lang):
    """the 300-record page at 1440x900 and 390x844 (lang: en, or zh by the page's ?lang=zh):
    what the first screen holds, the page's and the Records table's widths, the history chart"""
    d = driver()
    try:
        url = "file://" + os.path.abspath(page) + ("?lang=zh" if lang == "zh" else "")
        for w, h in ((1440, 900), (390, 844)):
            d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
            d.get(url)
            WebDriverWait(d, 120).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
            k = "%d %s" % (w, lang)
            out(k + " tabs", " ".join(b.text for b in d.find_elements(By.CSS_SELECTOR, "nav.tabs button")))
            out(k + " page wider than the screen", js(d, "return document.scrollingElement.scrollWidth > innerWidth"))
            out(k + " page width", js(d, "return document.scrollingElement.scrollWidth + ' in ' + innerWidth"))
            out(k + " history tab in view", js(d, "var r = document.querySelector('nav.tabs button[data-tab=history]')"
                                                  ".getBoundingClientRect(); return r.width > 0 && r.right <= innerWidth"))
            out(k + " first failed check in first screen", js(d, "var e = document.querySelector('#summary ul.checks li.bad');"
                                                                 "return !!e && e.getBoundingClientRect().top < innerHeight"))
            out(k + " first failed check is the first check", js(d, "var e = document.querySelector('#summary ul.checks li');"
                                                                    "return !!e && e.classList.contains('bad')"))
            out(k + " first cause in first screen", js(d, "var e = document.querySelector('#causes li.cause summary');"
                                                          "return !!e && e.getBoundingClientRect().bottom < innerHeight"))
            out(k + " first failing record y", js(d, "var e = document.querySelector('#causes li.cause') || "
                                                     "document.querySelector('#failed tbody tr');"
                                                     "return e ? Math.round(e.getBoundingClientRect().top + scrollY) : -1"))
            out(k + " causes", " | ".join(e.get_attribute("data-cause") + ": " + e.get_attribute("data-count")
                                          for e in d.find_elements(By.CSS_SELECTOR, "#causes li.cause")))
            out(k + " failed cards", len(d.find_elements(By.CSS_SELECTOR, "#summary .card.failed")))
            out(k + " summary height", js(d, "return document.scrollingElement.scrollHeight"))
            out(k + " failing folded", js(d, "var e = document.getElementById('failed-list'); return !!e && !e.open"))
            out(k + " perfect bar fills", js(d, "var f = document.querySelector('#distribution figure[data-metric=context_recall]');"
                                                "return f ? Array.prototype.filter.call(f.querySelectorAll('rect'), function (r) {"
                                                "return parseFloat(r.getAttribute('height')) > 0; }).map(function (r) {"
                                                "return r.getAttribute('fill'); }).join(',') : 'none'"))
            d.save_screenshot(os.path.join(shots, "first-%d-%s.png" % (w, lang)))
            tab(d, "records")
            out(k + " records table width", js(d, "return Math.round(document.getElementById('records-table').getBoundingClientRect().width)"))
            out(k + " records page wider than the screen", js(d, "return document.scrollingElement.scrollWidth > innerWidth"))
            out(k + " why width", js(d, "var e = document.querySelector('#records-table .why');"
                                        "return e ? Math.round(e.getBoundingClientRect().width) : -1"))
            d.save_screenshot(os.path.join(shots, "records-%d-%s.png" % (w, lang)))
            tab(d, "history")
            out(k + " history page wider than the screen", js(d, "return document.scrollingElement.scrollWidth > innerWidth"))
            out(k + " history y ticks", js(d, "var f = document.querySelector('.history-chart[data-metric=faithfulness]');"
                                              "return f ? Array.prototype.map.call(f.querySelectorAll('text.ytick'), function (t) {"
                                              "return t.textContent; }).join(',') : 'none'"))
            out(k + " history date labels overlap", js(d, "var f = document.querySelector('.history-chart[data-metric=faithfulness]');"
                                                          "if (!f) return 'none'; var b = Array.prototype.map.call("
                                                          "f.querySelectorAll('text.xdate, text.xlabel'), function (t) { return [t.getAttribute('class'), t.getBoundingClientRect()]; });"
                                                          "for (var i = 0; i < b.length; i++) for (var j = i + 1; j < b.length; j++)"
                                                          " if (b[i][0] === b[j][0] && b[i][1].right > b[j][1].left && b[j][1].right > b[i][1].left) return true;"
                                                          "return false"))
            d.save_screenshot(os.path.join(shots, "history-%d-%s.png" % (w, lang)))
        if lang == "zh":
            d.find_element(By.ID, "lang-switch").click()
            out("switched tabs", " ".join(b.text for b in d.find_elements(By.CSS_SELECTOR, "nav.tabs button")))
            d.get("file://" + os.path.abspath(page))
            WebDriverWait(d, 120).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
            out("kept tabs", " ".join(b.text for b in d.find_elements(By.CSS_SELECTOR, "nav.tabs button")))
        out("console errors", len([e for e in d.get_log("browser") if e.get("level") == "SEVERE"]))
    finally:
        d.quit()


def onerun(page):
    """a page of one run: what its History tab shows"""
    d = driver()
    try:
        load(d, page)
        tab(d, "history")
        out("charts", len(d.find_elements(By.CSS_SELECTOR, ".history-chart")))
        out("note", " ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#history-app p.one-run")))
        out("history rows", len(d.find_elements(By.CSS_SELECTOR, "#history-table tbody tr")))
    finally:
        d.quit()


def data_strings(v, out):
    """every text of the run's data (records, baseline, history, names), the keys aside"""
    if isinstance(v, str):
        out.add(v)
    elif isinstance(v, dict):
        for k, x in v.items():
            if k != "why":   # the gate's reasons: the page's words, not data
                data_strings(x, out)
    elif isinstance(v, list):
        for x in v:
            data_strings(x, out)
    return out


def english_left(d, sel, allow):
    """the English words the elements of sel show but the allowed texts: "" when none"""
    txt = d.execute_script("return Array.from(document.querySelectorAll(arguments[0])).filter(function (e) {"
                           " return e.offsetParent || e.getClientRects().length; }).map(function (e) {"
                           " return e.innerText; }).join('\\n')", sel)
    for a in sorted(allow, key=len, reverse=True):
        if len(a) > 1:
            txt = txt.replace(a, " ")
    return ",".join(sorted(set(re.findall(r"[A-Za-z]{2,}", txt))))


def summary_chinese(d, k, allow):
    """the Summary in Chinese: its checks, hints, cards and failing records (opened), with no
    English but the run's data, metric names and the config's keys"""
    for e in d.find_elements(By.CSS_SELECTOR, "#summary details"):
        if not e.get_attribute("open"):
            d.execute_script("arguments[0].open = true", e)
    out(k + "summary hints", " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#hints li")))
    # the hints name the tools and the system as they are called, the checks the config's keys
    allow = allow | {"rag-eval --resume", "RAG", "gate.max_error_rate", "max_error_rate", "min_pass_rate"}
    # the fields the groups are by (a record's field, as --by names it)
    D = json.loads(d.execute_script("return document.getElementById('rag-data').textContent"))
    allow |= {str(g.get("by")) for g in (D.get("summary") or {}).get("groups", [])}
    out(k + "summary checks", " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#summary ul.checks li")))
    out(k + "summary english", english_left(d, "#checks, .checks-ok, #hints, #summary .cards, #failed, #distribution, #categories", allow) or "none")
    # the cost table, its notes and messages, and the gate's warnings (the config's keys and the
    # run's currency are not English to translate)
    cost = (D.get("summary") or {}).get("cost") or {}
    allow |= {"cached_input", "batch_input", "batch_output", "batch_discount", "prices", str(cost.get("currency"))}
    allow |= {str(st.get(f)) for st in cost.get("stages") or [] for f in ("tool", "stage", "judge")}
    allow |= {str(m) for m in (cost.get("no_price") or []) + ((cost.get("batch") or {}).get("no_price") or [])}
    allow |= {str((D.get("summary") or {}).get("self_judging", {}).get("model"))}
    out(k + "cost text", " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#cost p, #summary p.warning")))
    out(k + "cost english", english_left(d, "#cost, #summary p.warning", allow) or "none")


def chinese(page):
    """?lang=zh: the head (verdict, exit status), and each tab's own words in Chinese"""
    d = driver()
    try:
        for w, h in ((390, 844), (1440, 900)):
            d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
            d.get("file://" + os.path.abspath(page) + "?lang=zh")
            WebDriverWait(d, 120).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
            D = json.loads(d.execute_script("return document.getElementById('rag-data').textContent"))
            allow = data_strings([D.get("records"), D.get("base"), D.get("history"), D.get("run"), D.get("title")], set())
            allow |= {m["metric"] for m in (D.get("summary") or {}).get("metrics", [])}
            allow |= {str((D.get("summary") or {}).get("baseline", {}).get("file", ""))}
            # as the page shortens them: a path's last part, a commit's first 8 or 12 characters
            allow |= {a.rsplit("/", 1)[-1] for a in allow} | {a[:8] for a in allow} | {a[:12] for a in allow}
            k = "zh %d " % w
            out(k + "verdict", text(d, "#verdict"))
            out(k + "exit", text(d, "#exit-status"))
            summary_chinese(d, k, allow)
            tab(d, "records")
            # the Records tab's own words: its filters, headers, count, pager
            out(k + "records english", english_left(d, "#records-app .controls, #records-app thead, #records-count, "
                                                    "#records-app .pager", allow) or "none")
            # and the gate's reason under each record's result
            out(k + "records why english", english_left(d, "#records-app td .why", allow) or "none")
            tab(d, "compare")
            out(k + "compare english", english_left(d, "#compare", allow) or "none")
            tab(d, "history")
            out(k + "history english", english_left(d, "#history", allow) or "none")
    finally:
        d.quit()


if __name__ == "__main__":
    atexit.register(lambda: [shutil.rmtree(p, ignore_errors=True) for p in PROFILES])
    mode = sys.argv[1]
    if mode == "walk":
        walk(sys.argv[2], sys.argv[3])
    elif mode == "noscript":
        noscript(sys.argv[2], sys.argv[3])
    elif mode == "big":
        big(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif mode == "onerun":
        onerun(sys.argv[2])
    elif mode == "chinese":
        chinese(sys.argv[2])
    elif mode == "screens":
        screens(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "time":
        timing(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: report.py walk PAGE SHOTDIR | big PAGE N SHOTDIR | time PAGE SHOTDIR")
