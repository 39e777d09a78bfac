#!/usr/bin/env python3
"""Drives the search page in headless Chromium through chromedriver's WebDriver HTTP API
(W3C WebDriver, no Selenium needed) and prints one line per check; exits 1 on the first
failure. Screenshots of each state go to SHOT_DIR.

    search_page_browser.py BASE_URL SHOT_DIR [API_KEY]

With an API key (for the domain nameless.example), an item whose app no page names is pushed
and its result checked.
"""
import base64, json, os, socket, subprocess, sys, time, urllib.error, urllib.request

base, shots = sys.argv[1].rstrip("/"), sys.argv[2]
key = sys.argv[3] if len(sys.argv) > 3 else None
os.makedirs(shots, exist_ok=True)
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
driver = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)["value"]
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"WebDriver {method} {path}: {error.read().decode()[:500]}")


for _ in range(100):
    try:
        call("GET", "/status")
        break
    except Exception:
        time.sleep(0.1)
session = call("POST", "/session", {"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
    "binary": "/usr/bin/chromium",
    "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]}}}})["sessionId"]
s = f"/session/{session}"
failures = 0


def js(script, *args):
    return call("POST", s + "/execute/sync", {"script": script, "args": list(args)})


def wait(script, what, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        value = js(script)
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}; page says: {js('return document.body.innerText')[:600]!r}")


def check(condition, what):
    global failures
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures += 1


def shot(name):
    with open(os.path.join(shots, name + ".png"), "wb") as f:
        f.write(base64.b64decode(call("GET", s + "/screenshot")))


def element(css):
    return list(call("POST", s + "/element", {"using": "css selector", "value": css}).values())[0]


def type_into(css, text, clear=True):
    el = element(css)
    if clear:
        call("POST", s + f"/element/{el}/clear", {})
    call("POST", s + f"/element/{el}/value", {"text": text})


def click(css):
    call("POST", s + f"/element/{element(css)}/click", {})


buttons = "return [...document.querySelectorAll('.action')].map(b => b.textContent)"
titles = "return [...document.querySelectorAll('.result h2')].map(h => h.textContent)"
try:
    call("POST", s + "/url", {"url": base + "/"})
    check(js("return document.title") == "Searchlight", "the page loads")
    # Typing: prefix results after the keystrokes, without pressing Enter.
    type_into("#q", "becky portr")
    wait("return document.querySelectorAll('.result').length > 0", "results for a prefix")
    check(any("Becky" in t for t in js(titles)), "typing 'becky portr' finds Becky's portrait page")
    check(js(buttons)[0] == "Open web page", "nothing installed: the button opens the web page")
    check("q=becky+portr" in js("return location.search"), "the query is in the address")
    check(js("return document.querySelectorAll('.result mark').length") > 0, "the matched words are highlighted")
    shot("1-typed")
    # One gutter for every result: a picture, a grey box, or a grey box where a picture failed.
    wait("return [...document.querySelectorAll('.result img.thumb')].every(i => i.complete)", "the pictures to load or fail")
    lefts = js("return [...document.querySelectorAll('.result')].map(r => [r.children[0].getBoundingClientRect().width, r.children[1].getBoundingClientRect().left])")
    check(len(lefts) > 1 and all(pair == lefts[0] for pair in lefts) and lefts[0][0] == 88, f"every result has the same 88 px gutter {lefts}")
    check(js("return [...document.querySelectorAll('.result')].every(r => getComputedStyle(r).borderBottomLeftRadius === '0px')"),
          "separators are straight lines")

    # The app on the device: the same result now opens the app. The panel opens over the
    # results: the header keeps its height and the box its place.
    before = js("return [document.querySelector('.top').offsetHeight, document.getElementById('q').getBoundingClientRect().top]")
    click("#device-apps summary")
    after = js("return [document.querySelector('.top').offsetHeight, document.getElementById('q').getBoundingClientRect().top]")
    check(before == after, f"opening 'Apps on this device' moves nothing {before} → {after}")
    shot("2-apps-panel")
    type_into("#new-app", "987654321")
    click("#add-app button")
    wait("return [...document.querySelectorAll('.action')].some(b => b.textContent === 'Open in Friends')", "the Friends button")
    check("installed=987654321" in js("return location.search"), "the installed app is in the address")
    check(js("return localStorage.getItem('searchlight.installed')") == '["987654321"]', "and kept in the browser")
    click("#device-apps summary")
    shot("3-app-installed")
    app_lines = js("return [...document.querySelectorAll('.result .app')].map(e => e.textContent)")
    check(app_lines and not any(line[:1].isdigit() or line.startswith("com.") for line in app_lines),
          f"apps are shown by name, never by store id or package {app_lines}")

    # From the first letters: two already answer.
    type_into("#q", "tr")
    wait("return [...document.querySelectorAll('.result h2')].some(h => h.textContent.startsWith('Trail'))", "results for two letters")
    check(js("return document.getElementById('status').textContent").endswith("for “tr”"), "typing 'tr' finds the trail pages")

    # CJK, iOS, nothing installed for it: the App Store.
    type_into("#q", "直播")
    wait("return [...document.querySelectorAll('.action')].some(b => b.textContent.startsWith('Get 星火直播'))", "the streaming app's button")
    check(js(buttons)[0] == "Get 星火直播 on the App Store", "a CJK query; the app forbids the web fallback: the App Store")
    # The platform switch changes the button live.
    click('input[name="platform"][value="android"]')
    wait("return (document.querySelector('.action') || {}).textContent === 'Get 星火直播 on Google Play'", "the Google Play button")
    check("platform=android" in js("return location.search"), "the platform is in the address")
    heights = js("return [...document.querySelectorAll('.action')].map(b => b.offsetHeight)")
    check(heights and max(heights) <= 44, f"Chinese buttons stay on one line {heights}")
    shot("4-cjk-android")

    # A typo: did you mean.
    type_into("#q", "headlmap")
    wait("return !document.getElementById('correction').hidden", "a correction")
    check(js("return document.getElementById('correction').textContent") == "Showing results for headlamp",
          "a typo says the results are for headlamp, not 'did you mean'")
    check(any("Headlamp" in t for t in js(titles)), "and finds the headlamp")
    shot("5-typo")

    # Keyboard: arrow down from the box to the results' buttons, Escape back.
    type_into("#q", "\ue015", clear=False)
    check(js("return document.activeElement.classList.contains('action')"), "arrow down moves to the first result's button")
    call("POST", s + "/actions", {"actions": [{"type": "key", "id": "k", "actions": [
        {"type": "keyDown", "value": "\ue015"}, {"type": "keyUp", "value": "\ue015"},
        {"type": "keyDown", "value": "\ue00c"}, {"type": "keyUp", "value": "\ue00c"}]}]})
    check(js("return document.activeElement.id") == "q", "Escape returns to the search box")

    # Nothing found: an empty state, not a blank page.
    type_into("#q", "zzqxv")
    wait("return document.getElementById('status').textContent.startsWith('No results')", "the empty state")
    check(js("return document.querySelectorAll('.result').length") == 0, "no results says so and shows none")
    shot("6-no-results")

    # The service down: an error, and the old results gone.
    type_into("#q", "trail")
    wait("return document.querySelectorAll('.result').length > 0", "results before the failure")
    js("window.fetch = () => Promise.reject(new TypeError('Failed to fetch'))")
    type_into("#q", "trail shoes")
    wait("return !document.getElementById('error').hidden", "the error box")
    check(js("return document.querySelectorAll('.result').length") == 0, "an error clears the old results")
    shot("7-error")

    # A reload keeps everything; a phone-sized window still fits.
    call("POST", s + "/url", {"url": base + "/?q=trail&platform=ios"})
    wait("return document.querySelectorAll('.result').length > 0", "results after a reload")
    check(js("return document.getElementById('q').value") == "trail", "the address restores the query")
    call("POST", s + "/window/rect", {"width": 390, "height": 844})
    time.sleep(0.3)
    check(js("return document.documentElement.scrollWidth <= window.innerWidth + 1"), "a phone-sized window has no sideways scrolling")
    header = js("return document.querySelector('.top').offsetHeight")
    first = js("return document.querySelector('.result').getBoundingClientRect().top")
    check(header <= 844 * 0.15, f"on a phone the header takes at most 15 % of the screen ({header} px)")
    check(first <= 200, f"on a phone the first result starts near the top (y = {first})")
    shot("8-phone")
    click("#device-apps summary")
    check(js("return document.querySelector('.top').offsetHeight") == header, "on a phone the apps panel opens over the results too")
    check(js("return document.documentElement.scrollWidth <= window.innerWidth + 1"), "and fits the screen")
    shot("9-phone-apps-panel")
    click("#device-apps summary")
    call("POST", s + "/window/rect", {"width": 1280, "height": 900})

    # Accessibility: every control labelled, images described, text contrast at least 4.5:1.
    unlabelled = js("""return [...document.querySelectorAll('input, button, select')].filter(e =>
        !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim()).map(e => e.outerHTML)""")
    check(unlabelled == [], f"every control has a label {unlabelled}")
    check(js("return [...document.images].every(i => i.hasAttribute('alt'))"), "every image has alt text")
    low = js("""
        const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
        const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                                     return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
        const background = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
                                    if (c.length < 4 || c[3] > 0) return c; } return [255, 255, 255]; };
        const bad = [];
        for (const e of document.querySelectorAll('h1, h2, a, p, span, button, label, legend, summary, mark, li')) {
          if (!e.offsetParent || ![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
          const a = lum(rgb(getComputedStyle(e).color)), b = lum(background(e));
          const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
          if (ratio < 4.5) bad.push(e.tagName + ' ' + e.textContent.trim().slice(0, 30) + ' ' + ratio.toFixed(2));
        }
        return bad;""")
    check(low == [], f"text contrast at least 4.5:1 {low}")

    # An app no page names: no badge (it showed a "T" for "the app"), and the button says "the app".
    if key:
        item = {"items": [{"uniqueIdentifier": "quince", "title": "Quince paste", "webURL": "https://nameless.example/quince",
                           "allowsWebFallback": False, "apps": [{"platform": "ios", "appStoreId": "444555666"}]}]}
        push = urllib.request.Request(base + "/v1/items", data=json.dumps(item).encode(), method="POST",
                                      headers={"Content-Type": "application/json", "Authorization": "Bearer " + key})
        urllib.request.urlopen(push, timeout=10).read()
        type_into("#q", "quince paste")
        wait("return [...document.querySelectorAll('.result h2')].some(h => h.textContent === 'Quince paste')", "the nameless app's result")
        quince = "[...document.querySelectorAll('.result')].find(r => r.querySelector('h2').textContent === 'Quince paste')"
        check(js(f"return {quince}.querySelectorAll('.icon, .app').length") == 0, "an app no page names gets no badge and no name line")
        check(js(f"return {quince}.querySelector('.action').textContent") == "Get the app on the App Store",
              "its button still says what a tap does")
        shot("10-nameless-app")

        # More than a page: the real count, and "More results" until every one is shown.
        jams = {"items": [{"uniqueIdentifier": f"medlar-{n}", "title": f"Medlar jam number {n}",
                           "webURL": f"https://nameless.example/medlar/{n}"} for n in range(45)]}
        push = urllib.request.Request(base + "/v1/items", data=json.dumps(jams).encode(), method="POST",
                                      headers={"Content-Type": "application/json", "Authorization": "Bearer " + key})
        urllib.request.urlopen(push, timeout=10).read()
        type_into("#q", "medlar jam")
        status = "return document.getElementById('status').textContent"
        wait("return document.querySelectorAll('.result').length === 20", "the first page of medlar jams")
        check(js(status) == "45 results for “medlar jam” · showing 20", f"the status gives the real count: {js(status)!r}")
        check(not js("return document.getElementById('more').hidden"), "a More results button under the first page")
        click("#more")
        wait("return document.querySelectorAll('.result').length === 40", "the second page")
        click("#more")
        wait("return document.querySelectorAll('.result').length === 45", "the last page")
        shown = js("return [...document.querySelectorAll('.result h2')].map(h => h.textContent)")
        check(sorted(shown) == sorted(f"Medlar jam number {n}" for n in range(45)), "every result once, none twice")
        check(js("return document.getElementById('more').hidden"), "no More results once all are shown")
        check(js(status) == "45 results for “medlar jam”", f"and the status says so: {js(status)!r}")
        check(js("return [...document.querySelectorAll('.result')].map(r => r.dataset.index).join()") == ",".join(map(str, range(45))),
              "the results are numbered in order across pages")
        shot("11-more-results")

    # Engagement reached the service: the page's impressions were counted.
    metrics = urllib.request.urlopen(base + "/metrics", timeout=10).read().decode()
    check('route="/v1/engagement",status="200"' in metrics, "impressions were posted to /v1/engagement and accepted")
except Exception as error:
    print(f"FAIL {error}", flush=True)
    failures += 1
finally:
    try:
        call("DELETE", s)
    finally:
        driver.terminate()
sys.exit(1 if failures else 0)
