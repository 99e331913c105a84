#!/usr/bin/env python3
"""serve.py - drive rag-serve's page in headless Chromium (Selenium) and print what it shows.

  serve.py walk URL SHOTDIR   History (the runs), a run opened (its summary, its records, two
                              review marks, their second page), the switch to Chinese, and the page at 390 px
                              wide: one "key: value" line per finding, screenshots in SHOTDIR
  serve.py history URL SHOTDIR
                              History's trends (runs labelled "trend", then v1 alone) and two
                              runs compared, from the pickers and from run J3 opened; in English
                              at 1440 px and in Chinese at 390 px
  serve.py workbench URL SHOTDIR RUN
                              the opened run RUN and a record, in English and Chinese at 1440
                              and 390 px: the verdict first, a cause's record opened in one click
                              to its claims' verdicts, its address reloaded, each records filter
                              (done by the store), Back, a review mark of every metric, English
                              left in the Chinese page, tap targets under 24 px, page heights
  serve.py run URL SHOTDIR SERVICE
                              the Run evaluation tab: a run started from the page against the
                              service at SERVICE (the offline judge), its progress followed to
                              the end, the run opened; in English at 1440 px and in Chinese at
                              390 px, each width checked for a sideways scroll
  serve.py why URL RUN SEQ    record SEQ of RUN opened, and RUN's failed records listed, in
                              English and Chinese: why it failed, and the English left in Chinese
  serve.py creds URL SHOTDIR JUDGE SERVICE
                              the Run tab's note on a credential left out: a run of the judge
                              JUDGE typed in the form (not the endpoint rag-serve's key is for)
                              against SERVICE; the note shown, in English at 1440 px and in
                              Chinese at 390 px (tests/t/89-serve-creds-browser.t)

The test (tests/t/83-serve-browser.t) asserts on the lines; this script asserts nothing itself.
It also holds the helpers serve_sets.py and flow.py import (one copy): driver, out, loads and
after (the page's count of replies drawn), click, size and fits (the window's width, no
sideways scroll), text, rows, col, typed, no_alert, console_errors, out_console.
No network: the page comes from rag-serve on 127.0.0.1, and Chromium's background traffic is off.
"""
import os
import shutil
import sys
import tempfile

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait


def driver(profile, lang):
    o = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-quic", "--no-first-run", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--disable-default-apps",
              "--disable-extensions", "--window-size=1440,900", "--lang=" + lang,
              "--user-data-dir=" + profile):
        o.add_argument(a)
    o.add_experimental_option("prefs", {"intl.accept_languages": lang})
    binary = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if os.path.exists(binary):
        o.binary_location = binary
    return webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=o)


def out(key, value):
    print("%s: %s" % (key, value), flush=True)


def loads(d):
    return int(d.find_element(By.TAG_NAME, "body").get_attribute("data-loads") or 0)


def after(d, n):
    """wait until the page has drawn more than n replies"""
    WebDriverWait(d, 60).until(lambda d: loads(d) > n)


def cells(d, table, col):
    return [r.find_elements(By.TAG_NAME, "td")[col].text
            for r in d.find_elements(By.CSS_SELECTOR, "#%s tbody tr" % table)]


def no_alert(d):
    try:
        d.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


def size(d, width):
    """the window as a desk (900 px high) or, up to 700 px wide, a phone (844 px high)"""
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": 900 if width > 700 else 844, "deviceScaleFactor": 1,
                       "mobile": width <= 700})


def fits(d):
    """no horizontal page scroll: the page is no wider than the window"""
    return d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


def hscroll(d, width):
    """whether the page scrolls sideways at width CSS pixels"""
    size(d, width)
    return not fits(d)


def click(d, css, within=None):
    """click, then wait for the reply it asks for to be drawn"""
    n = loads(d)
    (within or d).find_element(By.CSS_SELECTOR, css).click()
    after(d, n)


def text(d, css):
    return d.find_element(By.CSS_SELECTOR, css).text


def rows(d, table):
    return d.find_elements(By.CSS_SELECTOR, "#%s tbody tr" % table)


def col(d, table, i):
    return [r.find_elements(By.TAG_NAME, "td")[i].text for r in rows(d, table)]


def typed(d, css, value):
    e = d.find_element(By.CSS_SELECTOR, css)
    e.clear()
    e.send_keys(value)


def console_errors(d):
    """the browser's SEVERE console lines"""
    return [e for e in d.get_log("browser") if e.get("level") == "SEVERE"] if hasattr(d, "get_log") else []


def out_console(key, errs):
    """the console errors' count as key, and the first five of them as "console" lines"""
    out(key, len(errs))
    for e in errs[:5]:
        out("console", e.get("message"))


def walk(url, shots):
    profile = tempfile.mkdtemp(prefix="rag-serve-chromium.")
    d = driver(profile, "en-US")
    try:
        d.get(url)
        after(d, 0)
        out("lang", d.execute_script("return document.documentElement.lang"))
        out("tabs", " ".join(b.text for b in d.find_elements(By.CSS_SELECTOR, "#tabs button")))
        out("runs", ",".join(cells(d, "runs", 0)))
        out("labels", ",".join(cells(d, "runs", 2)))
        out("runs count", d.find_element(By.ID, "runs-count").text)
        d.save_screenshot(os.path.join(shots, "history.png"))
        n = loads(d)
        row = [r for r in d.find_elements(By.CSS_SELECTOR, "#runs tbody tr")
               if r.find_elements(By.TAG_NAME, "td")[0].text == "H"][0]
        row.click()
        after(d, n)
        out("run shown", "%s:%s" % (d.find_element(By.ID, "run").is_displayed(),
                                    d.find_element(By.ID, "history").is_displayed()))
        out("run title", d.find_element(By.ID, "run-title").text)
        out("summary", " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#run-summary dt, #run-summary dd")))
        out("records count", d.find_element(By.ID, "records-count").text)
        out("record ids", ",".join(cells(d, "records", 1)))
        out("hostile elements", "iframe=%d img=%d script-in-body=%d" % (
            len(d.find_elements(By.CSS_SELECTOR, "main iframe")), len(d.find_elements(By.CSS_SELECTOR, "main img")),
            len(d.find_elements(By.CSS_SELECTOR, "main script"))))
        # review: a reviewer's name, record 1 right, record 2 a score with a hostile comment
        d.find_element(By.CSS_SELECTOR, '#review input[name="who"]').send_keys("ana")
        out("review metrics", ",".join(o.text for o in d.find_elements(By.CSS_SELECTOR, "#review select option")))
        n = loads(d)
        Select(d.find_element(By.CSS_SELECTOR, "#review select")).select_by_value("faithfulness")
        after(d, n)
        rows = d.find_elements(By.CSS_SELECTOR, "#records tbody tr")
        n = loads(d)
        rows[0].find_element(By.CSS_SELECTOR, "button.mark-right").click()
        after(d, n)
        rows = d.find_elements(By.CSS_SELECTOR, "#records tbody tr")
        rows[1].find_element(By.CSS_SELECTOR, "input.score").send_keys("0.4")
        rows[1].find_element(By.CSS_SELECTOR, "input.comment").send_keys("<img src=z onerror=alert(4)>")
        n = loads(d)
        rows[1].find_element(By.CSS_SELECTOR, "button.mark-save").click()
        after(d, n)
        out("marks shown", " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#records .marks div")))
        out("labels link", d.find_element(By.ID, "labels-csv").get_attribute("href"))
        out("hostile elements after review", "img=%d" % len(d.find_elements(By.CSS_SELECTOR, "main img")))
        d.save_screenshot(os.path.join(shots, "run.png"))
        n = loads(d)
        d.find_element(By.CSS_SELECTOR, '#records-pager [data-dir="1"]').click()
        after(d, n)
        out("page 2 count", d.find_element(By.ID, "records-count").text)
        out("page 2 first", cells(d, "records", 0)[0])
        d.find_element(By.ID, "lang").click()
        out("zh lang", d.execute_script("return document.documentElement.lang"))
        out("zh tabs", " ".join(b.text for b in d.find_elements(By.CSS_SELECTOR, "#tabs button")))
        out("zh records count", d.find_element(By.ID, "records-count").text)
        out("zh switch", d.find_element(By.ID, "lang").text)
        out("hscroll 390 run", hscroll(d, 390))
        d.save_screenshot(os.path.join(shots, "run-390-zh.png"))
        d.find_element(By.ID, "tab-history").click()
        out("hscroll 390 history", hscroll(d, 390))
        out("zh headers", d.execute_script(
            "return Array.from(document.querySelectorAll('#runs tbody tr:first-child td')).map(function (c) {"
            " return c.getAttribute('data-h'); }).join(',')"))
        d.save_screenshot(os.path.join(shots, "history-390-zh.png"))
        out("no alert", no_alert(d))
        out_console("console errors", console_errors(d))
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)
    # a browser that asks for Chinese gets the page in Chinese
    profile = tempfile.mkdtemp(prefix="rag-serve-chromium.")
    d = driver(profile, "zh-CN")
    try:
        d.get(url)
        after(d, 0)
        out("zh browser", "%s %s" % (d.execute_script("return document.documentElement.lang"),
                                      d.find_element(By.ID, "tab-history").text))
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


def run_tab(url, shots, service):
    """a run from the Run evaluation tab, per (language, width)"""
    for lang, w in (("en-US", 1440), ("zh-CN", 390)):
        k = lang[:2]
        profile = tempfile.mkdtemp(prefix="rag-serve-chromium.")
        d = driver(profile, lang)
        try:
            d.get(url)
            after(d, 0)
            size(d, w)
            n = loads(d)
            d.find_element(By.ID, "tab-evals").click()
            after(d, n)
            out("%s tab" % k, d.find_element(By.ID, "tab-evals").text)
            out("%s evals shown" % k, "%s:%s" % (d.find_element(By.ID, "evals").is_displayed(),
                                                 d.find_element(By.ID, "history").is_displayed()))
            out("%s testsets" % k, ",".join(o.get_attribute("value") for o in
                                            d.find_elements(By.CSS_SELECTOR, '#eval-form select[name="testset"] option')))
            out("%s key note" % k, d.find_element(By.ID, "eval-key").text)
            f = d.find_element(By.ID, "eval-form")
            # the Profile select (83's rag-serve has --profiles with team.yaml): chosen, it fills the
            # form; then none again, the fields below typed
            sel = Select(f.find_element(By.NAME, "profile"))
            out("%s profiles" % k, ",".join(o.get_attribute("value") for o in sel.options))
            sel.select_by_value("team")
            out("%s profile top_k" % k, f.find_element(By.NAME, "top_k").get_attribute("value"))
            sel.select_by_value("")

            def fill(name, text):
                e = f.find_element(By.NAME, name)
                e.clear()
                e.send_keys(text)
            fill("service_url", service)
            fill("judge_base_url", "")
            fill("top_k", "4")
            fill("metrics", "faithfulness,keyword_overlap")
            fill("thresholds", "keyword_overlap=0.1")
            fill("label", "page-" + k + " <b>x</b>")
            out("%s hscroll form %d" % (k, w), not fits(d))
            d.save_screenshot(os.path.join(shots, "evals-form-%s-%d.png" % (k, w)))
            d.find_element(By.ID, "eval-start").click()
            WebDriverWait(d, 120).until(lambda d: d.find_element(By.ID, "eval-state").get_attribute("data-state")
                                        in ("done", "failed", "cancelled"))
            out("%s state" % k, "%s %s" % (d.find_element(By.ID, "eval-state").get_attribute("data-state"),
                                           d.find_element(By.ID, "eval-state").text))
            out("%s count" % k, d.find_element(By.ID, "eval-count").text)
            out("%s progress" % k, "%s/%s" % (d.find_element(By.ID, "eval-progress").get_attribute("value"),
                                              d.find_element(By.ID, "eval-progress").get_attribute("max")))
            out("%s log shown" % k, d.find_element(By.ID, "eval-log").is_displayed())
            title = d.find_element(By.ID, "eval-title").text
            out("%s title" % k, title)
            for ww in (1440, 390):
                size(d, ww)
                out("%s hscroll evals %d" % (k, ww), not fits(d))
                d.save_screenshot(os.path.join(shots, "evals-%s-%d.png" % (k, ww)))
            size(d, w)
            n = loads(d)
            d.find_element(By.ID, "eval-open").click()
            after(d, n)
            WebDriverWait(d, 60).until(lambda d: d.find_element(By.ID, "run").is_displayed())
            out("%s opened" % k, d.find_element(By.ID, "run-title").text)
            out("%s opened records" % k, len(d.find_elements(By.CSS_SELECTOR, "#records tbody tr")))
            out("%s opened label" % k, " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#run-summary dd"))[:200])
            out("%s hscroll run %d" % (k, w), not fits(d))
            d.save_screenshot(os.path.join(shots, "evals-run-%s-%d.png" % (k, w)))
            out("%s no alert" % k, no_alert(d))
            out_console("%s console errors" % k, console_errors(d))
        finally:
            d.quit()
            shutil.rmtree(profile, ignore_errors=True)


def hist_loads(d):
    return int(d.find_element(By.TAG_NAME, "body").get_attribute("data-hist-loads") or 0)


def hist_after(d, n):
    """wait until History's trends or comparison has drawn more than n replies"""
    WebDriverWait(d, 60).until(lambda d: hist_loads(d) > n)


def hist_filter(d, label):
    f = d.find_element(By.ID, "filters")
    e = f.find_element(By.NAME, "label")
    e.clear()
    e.send_keys(label)
    n = hist_loads(d)
    f.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    hist_after(d, n)


# whether any two date labels of a chart overlap, by their boxes as drawn
OVERLAP = """
return Array.from(document.querySelectorAll('#trends svg.trend')).some(function (s) {
  var b = Array.from(s.querySelectorAll('.t-x')).map(function (t) { return t.getBoundingClientRect(); });
  return b.some(function (x, i) { return b.some(function (y, j) {
    return i < j && x.left < y.right && y.left < x.right && x.top < y.bottom && y.top < x.bottom; }); });
});"""


def history(url, shots):
    """History's trends and a comparison, per (language, width): the runs labelled "trend" (three),
    one run alone (label v1), two runs compared, and "compare with the previous run" from run J3"""
    for lang, w in (("en-US", 1440), ("zh-CN", 390)):
        k = lang[:2]
        profile = tempfile.mkdtemp(prefix="rag-serve-chromium.")
        d = driver(profile, lang)
        try:
            d.get(url)
            after(d, 0)
            WebDriverWait(d, 60).until(lambda d: hist_loads(d) > 0)
            size(d, w)
            hist_filter(d, "trend")
            out("%s trends title" % k, d.find_element(By.CSS_SELECTOR, '#history h3[data-t="h_trends"]').text)
            out("%s trends note" % k, d.find_element(By.ID, "trends-note").text)
            out("%s trend charts" % k, ",".join(s.get_attribute("data-metric") for s in
                                                d.find_elements(By.CSS_SELECTOR, "#trends svg.trend")))
            c = d.find_element(By.CSS_SELECTOR, '#trends svg[data-metric="faithfulness"]')
            out("%s trend points" % k, len(c.find_elements(By.CSS_SELECTOR, "circle")))
            out("%s trend y" % k, ",".join(e.get_attribute("textContent") for e in c.find_elements(By.CSS_SELECTOR, ".t-y")))
            out("%s trend labels overlap" % k, d.execute_script(OVERLAP))
            out("%s trend chart width" % k, d.execute_script(
                "return Math.max.apply(null, Array.from(document.querySelectorAll('#trends svg')).map("
                "function (s) { return s.getBoundingClientRect().right; })) <= window.innerWidth"))
            out("%s hscroll trends %d" % (k, w), not fits(d))
            d.save_screenshot(os.path.join(shots, "trends-%s-%d.png" % (k, w)))
            f = d.find_element(By.ID, "compare-form")
            Select(f.find_element(By.NAME, "base")).select_by_value("J1")
            Select(f.find_element(By.NAME, "new")).select_by_value("J3")
            n = hist_loads(d)
            f.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
            hist_after(d, n)
            out("%s compare title" % k, d.find_element(By.ID, "compare-title").text)
            out("%s compare means" % k, " | ".join(
                ",".join(c.text for c in r.find_elements(By.TAG_NAME, "td"))
                for r in d.find_elements(By.CSS_SELECTOR, "#compare-means tbody tr")))
            out("%s compare worse" % k, " | ".join(
                ",".join(c.text for c in r.find_elements(By.TAG_NAME, "td"))
                for r in d.find_elements(By.CSS_SELECTOR, "#compare-worse tbody tr")))
            out("%s compare better none" % k, d.find_element(By.ID, "compare-better-none").is_displayed())
            out("%s compare headers" % k, d.execute_script(
                "return Array.from(document.querySelectorAll('#compare-means tbody tr:first-child td')).map("
                "function (c) { return c.getAttribute('data-h'); }).join(',')"))
            out("%s hscroll compare %d" % (k, w), not fits(d))
            d.save_screenshot(os.path.join(shots, "compare-%s-%d.png" % (k, w)))
            # one run alone: one chart, a point per metric, its value written
            hist_filter(d, "v1")
            out("%s single charts" % k, len(d.find_elements(By.CSS_SELECTOR, "#trends svg.trend")))
            out("%s single points" % k, len(d.find_elements(By.CSS_SELECTOR, "#trends svg.single circle")) ==
                len(d.find_elements(By.CSS_SELECTOR, "#trends svg.single .t-val")) > 0)
            out("%s hscroll single %d" % (k, w), not fits(d))
            # twelve runs a day apart: a point each, their dates thinned
            hist_filter(d, "many")
            c = d.find_element(By.CSS_SELECTOR, '#trends svg[data-metric="faithfulness"]')
            out("%s many points" % k, len(c.find_elements(By.CSS_SELECTOR, "circle")))
            out("%s many labels" % k, ",".join(e.get_attribute("textContent") for e in c.find_elements(By.CSS_SELECTOR, ".t-x")))
            out("%s many labels overlap" % k, d.execute_script(OVERLAP))
            out("%s hscroll many %d" % (k, w), not fits(d))
            d.save_screenshot(os.path.join(shots, "trends-many-%s-%d.png" % (k, w)))
            # from run J3 opened: compare with the previous run
            hist_filter(d, "trend")
            n = loads(d)
            [r for r in d.find_elements(By.CSS_SELECTOR, "#runs tbody tr")
             if r.find_elements(By.TAG_NAME, "td")[0].text == "J3"][0].click()
            after(d, n)
            n = hist_loads(d)
            d.find_element(By.ID, "compare-prev").click()
            hist_after(d, n)
            out("%s prev shown" % k, d.find_element(By.ID, "history").is_displayed())
            out("%s prev title" % k, d.find_element(By.ID, "compare-title").text)
            out("%s hostile elements" % k, len(d.find_elements(By.CSS_SELECTOR, "main img, main iframe")))
            out("%s no alert" % k, no_alert(d))
            out_console("%s console errors" % k, console_errors(d))
        finally:
            d.quit()
            shutil.rmtree(profile, ignore_errors=True)


# the English words of the visible text of an element (css), less the allowed terms
ENGLISH = """
var e = document.querySelector(arguments[0]), allow = arguments[1];
var words = (e.innerText.match(/[A-Za-z][A-Za-z_.*@]*[A-Za-z*]/g) || []).filter(function (w) { return allow.indexOf(w) < 0; });
return words.filter(function (w, i) { return words.indexOf(w) === i; }).join(",");"""
# the controls of an element (css) drawn smaller than 24 x 24 px (WCAG 2.5.8's tap target)
SMALL = """
return Array.from(document.querySelectorAll(arguments[0] + ' :is(a, button, input, select, summary, textarea)')).filter(function (c) {
  var r = c.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && (r.width < 24 || r.height < 24);
}).map(function (c) { var r = c.getBoundingClientRect(); return c.tagName.toLowerCase() + '.' + (c.className || c.name || '') +
  ' ' + Math.round(r.width) + 'x' + Math.round(r.height); }).slice(0, 5).join(' | ');"""
# allowed in a Chinese page: metric names, config keys, tool names, units
ALLOW = ["faithfulness", "answer_relevancy", "context_precision", "max_error_rate", "gate.max_error_rate",
         "min_pass_rate", "scores.*", "rag-verify", "verify", "rag", "CSV", "ragpipe"]


def seqs(d):
    """the records listed, by seq ("" while the table is being drawn again)"""
    try:
        return ",".join(cells(d, "records", 0))
    except (StaleElementReferenceException, IndexError):
        return ""


def wb_filter(d, **kw):
    """the records' filters set in the form and submitted"""
    f = d.find_element(By.ID, "rec-filters")
    for k in ("failed", "category", "cause", "metric", "below", "q"):
        e, v = f.find_element(By.NAME, k), kw.get(k, "")
        if k == "failed":
            if e.is_selected() != bool(v):
                e.click()
        elif e.tag_name == "select":
            Select(e).select_by_value(v)
        else:
            e.clear()
            if v:
                e.send_keys(v)
    n = loads(d)
    f.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    after(d, n)
    return seqs(d)


def hash_of(d):
    return d.execute_script("return decodeURIComponent(location.hash)")


def workbench(url, shots, run):
    """the opened run and a record, per language at 1440 and 390 px: from the run's first screen
    (its address) to a claim's verdict, the record's address reloaded, each records filter, Back"""
    for lang in ("en-US", "zh-CN"):
        k = lang[:2]
        profile = tempfile.mkdtemp(prefix="rag-serve-chromium.")
        d = driver(profile, lang)
        try:
            for w in (1440, 390):
                kw = "%s %d" % (k, w)
                size(d, w)
                d.get(url + "#/run/" + run)
                WebDriverWait(d, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#records tbody tr"))
                out(kw + " run shown", d.find_element(By.ID, "run").is_displayed())
                out(kw + " verdict", d.find_element(By.ID, "run-verdict").text)
                out(kw + " verdict first", d.execute_script(
                    "return document.getElementById('run-verdict').getBoundingClientRect().top < "
                    "document.getElementById('causes-list').getBoundingClientRect().top"))
                out(kw + " causes", " | ".join(e.text.split("\n")[0] for e in d.find_elements(By.CSS_SELECTOR, "#causes-list summary")))
                out(kw + " checks", " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#checks-list li")))
                first = d.find_element(By.CSS_SELECTOR, "#causes-list li.cause a.rid")
                out(kw + " first link on first screen", d.execute_script(
                    "var r = arguments[0].getBoundingClientRect(); return r.bottom <= window.innerHeight && r.top >= 0;", first))
                out(kw + " cause links", ",".join(a.text for a in d.find_elements(By.CSS_SELECTOR, "#causes-list a.rid")))
                out(kw + " english run", d.execute_script(ENGLISH, "#run", ALLOW + [run]))
                out(kw + " small run", d.execute_script(SMALL, "#run-main"))
                out(kw + " hscroll run", not fits(d))
                out(kw + " height run", d.execute_script("return document.documentElement.scrollHeight"))
                d.save_screenshot(os.path.join(shots, "wb-run-%s-%d.png" % (k, w)))
                # one click: the first cause's first record, to its claims' verdicts
                n = loads(d)
                first.click()
                after(d, n)
                out(kw + " record hash", hash_of(d))
                out(kw + " record title", text(d, "#record-title"))
                out(kw + " record status", text(d, "#record-body .record-status"))
                out(kw + " record why", text(d, "#record-body .record-why"))
                out(kw + " record scores", " | ".join(",".join(c.text for c in r.find_elements(By.TAG_NAME, "td"))
                                                     for r in d.find_elements(By.CSS_SELECTOR, "#record-body table.record-scores tbody tr")))
                out(kw + " record texts", " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#record-body > div.text")))
                out(kw + " record contexts", " | ".join(e.text.replace("\n", " / ") for e in
                                                       d.find_elements(By.CSS_SELECTOR, "#record-body ol.contexts li")))
                out(kw + " record claims", " | ".join(",".join(c.text for c in r.find_elements(By.TAG_NAME, "td"))
                                                     for r in d.find_elements(By.CSS_SELECTOR, "#record-body table.claims tbody tr")))
                verdict = d.find_element(By.CSS_SELECTOR, "#record-body table.claims .claim-verdict")
                out(kw + " claim verdict visible", verdict.is_displayed())
                out(kw + " record marks metrics", ",".join(r.get_attribute("data-metric") for r in
                                                          d.find_elements(By.CSS_SELECTOR, "#record-marks tbody tr")))
                out(kw + " english record", d.execute_script(ENGLISH, "#run", ALLOW + [run, "w1", "w2", "w3", "w4", "w5", "w6"]))
                out(kw + " small record", d.execute_script(SMALL, "#record-view"))
                out(kw + " hscroll record", not fits(d))
                out(kw + " height record", d.execute_script("return document.documentElement.scrollHeight"))
                d.save_screenshot(os.path.join(shots, "wb-record-%s-%d.png" % (k, w)))
                # the record's address reloaded (or sent to a colleague)
                d.refresh()
                WebDriverWait(d, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#record-body table.claims"))
                out(kw + " reload", "%s %s" % (hash_of(d), text(d, "#record-title")))
                # Back: the run's list again
                d.back()
                WebDriverWait(d, 60).until(lambda d: d.find_element(By.ID, "run-main").is_displayed())
                out(kw + " back", hash_of(d))
                # each filter, done by the store; its address; then Back to the filter before
                out(kw + " f failed", wb_filter(d, failed=True) + " " + hash_of(d))
                out(kw + " f category", wb_filter(d, category=u"财务") + " " + hash_of(d))
                out(kw + " f cause", wb_filter(d, cause="below:faithfulness") + " " + hash_of(d))
                out(kw + " f metric", wb_filter(d, metric="answer_relevancy", below="0.8") + " " + hash_of(d))
                out(kw + " f text", wb_filter(d, q=u"午餐") + " " + hash_of(d))
                out(kw + " f count", text(d, "#records-count"))
                d.back()
                WebDriverWait(d, 60).until(lambda d: "q=" not in hash_of(d) and seqs(d) == "4,5")
                out(kw + " f back", seqs(d) + " " + hash_of(d))
                # a filtered list's address reloaded
                d.refresh()
                WebDriverWait(d, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#records tbody tr"))
                WebDriverWait(d, 60).until(lambda d: seqs(d) == "4,5")
                out(kw + " f reload", "%s %s %s" % (seqs(d), d.find_element(By.CSS_SELECTOR, '#rec-filters [name="metric"]').get_attribute("value"),
                                                    d.find_element(By.CSS_SELECTOR, '#rec-filters [name="below"]').get_attribute("value")))
                # a cause's "all records" link: the list filtered by it
                n = loads(d)
                d.find_element(By.CSS_SELECTOR, "#causes-list a.cause-all").click()
                after(d, n)
                out(kw + " cause all", seqs(d) + " " + hash_of(d))
            # a review mark on a metric the menu does not offer first, in the record view
            if k == "en":
                d.get(url + "#/run/%s/record/2" % run)
                WebDriverWait(d, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#record-marks tbody tr"))
                d.find_element(By.ID, "record-who").send_keys(u"李")
                row = d.find_element(By.CSS_SELECTOR, '#record-marks tr[data-metric="faithfulness"]')
                n = loads(d)
                row.find_element(By.CSS_SELECTOR, "button.mark-wrong").click()
                after(d, n)
                row = d.find_element(By.CSS_SELECTOR, '#record-marks tr[data-metric="answer_relevancy"]')
                row.find_element(By.CSS_SELECTOR, "input.score").send_keys("0.6")
                n = loads(d)
                row.find_element(By.CSS_SELECTOR, "button.mark-save").click()
                after(d, n)
                out("en record marks", " | ".join(",".join(c.text for c in r.find_elements(By.TAG_NAME, "td")[:2])
                                                  for r in d.find_elements(By.CSS_SELECTOR, "#record-marks tbody tr")))
            out("%s no alert" % k, no_alert(d))
            out_console("%s console errors" % k, console_errors(d))
        finally:
            d.quit()
            shutil.rmtree(profile, ignore_errors=True)


def record_why(url, run, seq):
    """a record's "why it failed" and the records list's, per language at 1440 px, and the English
    left in the Chinese page's run view"""
    for lang in ("en-US", "zh-CN"):
        k = lang[:2]
        profile = tempfile.mkdtemp(prefix="rag-serve-chromium.")
        d = driver(profile, lang)
        try:
            size(d, 1440)
            d.get(url + "#/run/%s/record/%s" % (run, seq))
            WebDriverWait(d, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#record-body .record-why"))
            out("%s why record" % k, text(d, "#record-body .record-why"))
            out("%s why english record" % k, d.execute_script(ENGLISH, "#record-view", ALLOW + [run]))
            d.get(url + "#/run/%s?failed=1" % run)
            WebDriverWait(d, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#records tbody tr .cause-why"))
            out("%s why list" % k, " | ".join(e.text for e in d.find_elements(By.CSS_SELECTOR, "#records tbody .cause-why")))
            out("%s why english list" % k, d.execute_script(ENGLISH, "#records tbody", ALLOW + [run]))
        finally:
            d.quit()
            shutil.rmtree(profile, ignore_errors=True)


def creds(url, shots, judge, service):
    """the Run tab's note on a credential left out: a judge URL typed in the form (not the one
    rag-serve's key was configured for) runs without the key, and the page says so, per
    (language, width)"""
    for lang, w in (("en-US", 1440), ("zh-CN", 390)):
        k = lang[:2]
        profile = tempfile.mkdtemp(prefix="rag-serve-chromium.")
        d = driver(profile, lang)
        try:
            d.get(url)
            after(d, 0)
            size(d, w)
            n = loads(d)
            d.find_element(By.ID, "tab-evals").click()
            after(d, n)
            f = d.find_element(By.ID, "eval-form")
            out("%s creds note before" % k, d.find_element(By.ID, "eval-withheld").is_displayed())
            for name, text in (("service_url", service), ("judge_base_url", judge), ("metrics", "faithfulness")):
                e = f.find_element(By.NAME, name)
                e.clear()
                e.send_keys(text)
            d.find_element(By.ID, "eval-start").click()
            WebDriverWait(d, 120).until(lambda d: d.find_element(By.ID, "eval-state").get_attribute("data-state")
                                        in ("done", "failed", "cancelled"))
            out("%s creds state" % k, d.find_element(By.ID, "eval-state").get_attribute("data-state"))
            note = d.find_element(By.ID, "eval-withheld")
            out("%s creds note shown" % k, note.is_displayed())
            out("%s creds note" % k, " | ".join(e.text for e in note.find_elements(By.TAG_NAME, "li")))
            out("%s creds note english" % k, d.execute_script(ENGLISH, "#eval-withheld", ALLOW + [
                "serve", "llm.api_key", "llm.allow_urls", "http"]))
            out("%s creds hscroll" % k, not fits(d))
            d.save_screenshot(os.path.join(shots, "evals-creds-%s-%d.png" % (k, w)))
            out("%s creds console errors" % k, len(console_errors(d)))
        finally:
            d.quit()
            shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "walk":
        walk(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "history":
        history(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "workbench":
        workbench(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 5 and sys.argv[1] == "run":
        run_tab(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 5 and sys.argv[1] == "why":
        record_why(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 6 and sys.argv[1] == "creds":
        creds(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        sys.exit("usage: serve.py walk URL SHOTDIR | serve.py history URL SHOTDIR | serve.py run URL SHOTDIR SERVICE | "
                 "serve.py workbench URL SHOTDIR RUN | serve.py why URL RUN SEQ | serve.py creds URL SHOTDIR JUDGE SERVICE")
