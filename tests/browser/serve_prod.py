#!/usr/bin/env python3
"""serve_prod.py - drive rag-serve's Production tab in headless Chromium (Selenium) and print
what it shows.

  serve_prod.py walk URL SHOTDIR
        in English, then in Chinese, each at 1440x900 and 390x844: the tab opened from its
        button, the windows and each metric's chart against its threshold, window 2 opened from
        its link (its records worst first), the trace viewer's link of each record (its href),
        a record added to test set "refunds" (at 1440 px in each language), the page's height
        and whether it scrolls sideways; in Chinese, every text of the tab that still holds a
        Latin letter (the data aside); one "key: value" line per finding, screenshots in SHOTDIR

The test (tests/t/86-serve-prod-browser.t) asserts on the lines; this script asserts nothing.
No network: the page comes from rag-serve on 127.0.0.1, and no trace link is opened (its href
is read). Nothing waits on the clock: each step waits until the tab has drawn one more reply
(<body data-prod-loads>).
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve import SMALL, after, console_errors, driver, fits, no_alert, out, out_console, size  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

# the tab's own texts (not the data: metric names, dates, questions, trace ids, test set names)
OWN_TEXTS = """
return [].concat(
  Array.from(document.querySelectorAll('#production [data-t], #tab-production')).map(function (e) { return e.textContent; }),
  ['p-count', 'p-window-title', 'p-records-count', 'p-add-note'].map(function (id) {
    return document.getElementById(id).textContent.replace(/refunds|#?\\d+/g, ''); }),
  Array.from(document.querySelectorAll('#production td[data-h]')).map(function (e) { return e.getAttribute('data-h'); }),
  Array.from(document.querySelectorAll('#p-windows td:nth-child(6), #production button, #production a.trace-link'))
    .map(function (e) { return e.textContent; }),
  Array.from(document.querySelectorAll('#p-metric option[value=""]')).map(function (e) { return e.textContent; }),
  Array.from(document.querySelectorAll('#p-charts .t-thr-l')).map(function (e) { return e.textContent; }),
  [document.querySelector('#p-charts svg:last-child .t-title').textContent]
).filter(function (s) { return /[A-Za-z]/.test(s); });
"""


def ploads(d):
    return int(d.find_element(By.TAG_NAME, "body").get_attribute("data-prod-loads") or 0)


def pafter(d, n):
    WebDriverWait(d, 60).until(lambda d: ploads(d) > n)


def pclick(d, css):
    n = ploads(d)
    d.find_element(By.CSS_SELECTOR, css).click()
    pafter(d, n)


def texts(d, css):
    return [e.text for e in d.find_elements(By.CSS_SELECTOR, css)]


def view(d, shots, lang, width, add):
    p = "%s %d " % (lang, width)
    size(d, width)
    pclick(d, "#tab-production")
    out(p + "hash", d.execute_script("return location.hash"))
    out(p + "count", d.find_element(By.ID, "p-count").text)
    out(p + "windows", ",".join(texts(d, "#p-windows tbody td:first-child")))
    out(p + "decisions", ",".join(texts(d, "#p-windows tbody td:nth-child(6)")))
    out(p + "charts", ",".join(e.get_attribute("data-metric") for e in d.find_elements(By.CSS_SELECTOR, "#p-charts svg")))
    out(p + "thresholds", ",".join(e.get_attribute("data-threshold")
                                   for e in d.find_elements(By.CSS_SELECTOR, "#p-charts .t-thr")))
    out(p + "below", len(d.find_elements(By.CSS_SELECTOR, "#p-charts .t-bad")))
    out(p + "fits list", fits(d))
    d.save_screenshot(os.path.join(shots, "production-%s-%d.png" % (lang, width)))
    pclick(d, '#p-windows a[data-window="2"]')
    out(p + "opened", "%s %s" % (d.execute_script("return location.hash"), d.find_element(By.ID, "p-window-title").text))
    out(p + "records", ",".join(e.get_attribute("data-seq") for e in d.find_elements(By.CSS_SELECTOR, "#p-records tbody tr")))
    out(p + "scores", ",".join(texts(d, "#p-records tbody td:nth-child(2)")))
    out(p + "questions", " | ".join(texts(d, "#p-records tbody td:nth-child(3)")))
    out(p + "trace hrefs", " ".join(e.get_attribute("href") for e in d.find_elements(By.CSS_SELECTOR, "#p-records a.trace-link")))
    out(p + "trace link", texts(d, "#p-records a.trace-link")[0])
    if add:
        Select(d.find_element(By.CSS_SELECTOR, '#p-add select[name="testset"]')).select_by_value("refunds")
        d.find_element(By.CSS_SELECTOR, '#p-add input[name="who"]').clear()
        d.find_element(By.CSS_SELECTOR, '#p-add input[name="who"]').send_keys("oncall-" + lang)
        n = ploads(d)
        d.find_elements(By.CSS_SELECTOR, "#p-records button.p-add-one")[0].click()
        pafter(d, n)
        out(p + "added", d.find_element(By.ID, "p-add-note").text)
        out(p + "set option", d.find_element(By.CSS_SELECTOR, '#p-add select[name="testset"] option:checked').text)
    # ranked by faithfulness: the same two, t5 0.4 then t4 0.5
    n = ploads(d)
    Select(d.find_element(By.ID, "p-metric")).select_by_value("faithfulness")
    pafter(d, n)
    out(p + "by faithfulness", ",".join(texts(d, "#p-records tbody td:nth-child(2)")))
    out(p + "fits window", fits(d))
    # the tab's controls drawn under 24 x 24 px (WCAG 2.5.8), window 2 opened: "" when none
    out(p + "small", d.execute_script(SMALL, "#production") or "none")
    out(p + "height", d.execute_script("return document.documentElement.scrollHeight"))
    if lang == "zh":
        out(p + "latin", " | ".join(d.execute_script(OWN_TEXTS)))
    d.save_screenshot(os.path.join(shots, "production-window-%s-%d.png" % (lang, width)))
    n = ploads(d)
    Select(d.find_element(By.ID, "p-metric")).select_by_value("")
    pafter(d, n)


def walk(url, shots):
    os.makedirs(shots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="rag-serve-chromium.")
    d = driver(profile, "en-US")
    try:
        d.get(url)
        after(d, 0)
        out("en tabs", " ".join(b.text for b in d.find_elements(By.CSS_SELECTOR, "#tabs button")))
        view(d, shots, "en", 1440, True)
        view(d, shots, "en", 390, False)
        d.find_element(By.ID, "lang").click()
        out("zh tabs", " ".join(b.text for b in d.find_elements(By.CSS_SELECTOR, "#tabs button")))
        view(d, shots, "zh", 1440, True)
        view(d, shots, "zh", 390, False)
        # a link to window 1 opened as it is (a bookmark, a reload)
        d.get(url + "#/production/1")
        pafter(d, 0)
        out("reloaded", ",".join(e.get_attribute("data-seq") for e in d.find_elements(By.CSS_SELECTOR, "#p-records tbody tr")))
        out("hostile", "script=%d img=%d" % (len(d.find_elements(By.CSS_SELECTOR, "main script")),
                                              len(d.find_elements(By.CSS_SELECTOR, "main img"))))
        out("no alert", no_alert(d))
        out_console("console errors", console_errors(d))
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "walk":
        walk(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: serve_prod.py walk URL SHOTDIR")
