#!/usr/bin/env python3
"""serve.py - drive rag-serve's page in headless Chromium (Selenium) and print what it shows.

  serve.py walk URL SHOTDIR   History (the runs), a run opened (its summary, its records, two
                              review marks, their second page), the switch to Chinese, and the page at 390 px
                              wide: one "key: value" line per finding, screenshots in SHOTDIR
  serve.py history URL SHOTDIR
                              History's trends (runs labelled "trend", then v1 alone) and two
                              runs compared, from the pickers and from run J3 opened; in English
                              at 1440 px and in Chinese at 390 px
  serve.py run URL SHOTDIR SERVICE
                              the Run evaluation tab: a run started from the page against the
                              service at SERVICE (the offline judge), its progress followed to
                              the end, the run opened; in English at 1440 px and in Chinese at
                              390 px, each width checked for a sideways scroll

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
from selenium.common.exceptions import NoAlertPresentException
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


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "walk":
        walk(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "history":
        history(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "run":
        run_tab(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("usage: serve.py walk URL SHOTDIR | serve.py history URL SHOTDIR | serve.py run URL SHOTDIR SERVICE")
