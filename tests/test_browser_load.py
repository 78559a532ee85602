"""The load answer on /selector/, in Chromium: the page shows CPython's JSON (selector.load through the worker), the
slider moves over its loads, a typed GPU-hour price asks Python again and a bad one is one line; at desktop and phone
sizes, light and dark, nothing runs off the side. Screenshots go to tests/output/screens/ for a person to look at."""

import json
from urllib.parse import urlencode

import pytest

from cases_lib import check_load, load_load_cases
from conftest import TESTS
from selector.api import answer
from test_browser_selector import open_page

pytestmark = pytest.mark.browser

SCREENS = TESTS / "output" / "screens"
DONE = "#selector-load[aria-busy=false]"
CASES = {c["id"]: c for c in load_load_cases()}
DSR1 = CASES["load-deepseek-r1-h200-measured-curve"]
LOCAL = CASES["load-8b-rtx4090-local-to-serving"]

SHOWN = """() => {
  const box = document.getElementById('selector-load');
  const text = (s) => { const n = box.querySelector(s); return n ? n.textContent.trim() : null; };
  return { response: box.__load, users: text('output'), engine: box.querySelector('.iem-uload-engine')?.dataset.loadEngine ?? null,
           basis: text('.iem-uload-basis'), flips: [...box.querySelectorAll('.iem-flips li')].map((li) => li.textContent),
           here: [...box.querySelectorAll('.iem-flips li[data-here]')].map((li) => Number(li.dataset.users)),
           error: text('.iem-error'), note: text('#load-price-note') };
}"""


def python(catalog, case, price=None):
    return json.loads(json.dumps(answer(catalog, "load", case["answers"], gpu_hour_usd=price), sort_keys=True))


def slide(page, index):
    page.evaluate("(i) => { const s = document.getElementById('load-users'); s.value = String(i);"
                  " s.dispatchEvent(new Event('input', { bubbles: true })); }", index)


def type_price(page, text):
    seq = page.evaluate("() => document.getElementById('selector-result').dataset.seq")
    page.fill("#load-price", text)
    page.dispatch_event("#load-price", "change")
    page.wait_for_function("(t) => { const b = document.getElementById('selector-load'); return b && b.__load && "
                           "b.getAttribute('aria-busy') === 'false' && (document.getElementById('load-price') || {}).value === t; }", arg=text)
    assert page.evaluate("() => document.getElementById('selector-result').dataset.seq") == seq  # the answer above stays


def test_load_answer_is_cpythons(page, catalog):
    open_page(page, "selector/?" + urlencode(DSR1["answers"]))
    page.wait_for_selector(DONE, timeout=60000)
    shown = page.evaluate(SHOWN)
    want = python(catalog, DSR1)
    assert shown["response"] == want
    check_load(shown["response"], DSR1["expect"])
    load = want["result"]
    start = load["points"][load["start"]]
    assert shown["users"] == "1 user at once" and start["users"] == 1
    assert shown["flips"] == [f["text"] for f in load["flips"]] and shown["flips"]
    # the slider at 64 users: InferenceX's measured SGLang point, said as Python said it
    at64 = next(i for i, p in enumerate(load["points"]) if p["users"] == 64)
    slide(page, at64)
    shown = page.evaluate(SHOWN)
    assert shown["users"] == "64 users at once" and shown["engine"] == "sglang"
    assert shown["basis"].startswith("Measured: ") and load["points"][at64]["text"] in shown["basis"]
    # at the first flip, that flip is marked
    flip = load["flips"][0]
    slide(page, next(i for i, p in enumerate(load["points"]) if p["users"] == flip["users"]))
    assert page.evaluate(SHOWN)["here"] == [flip["users"]]
    # a typed price: Python answers again, every cost follows it
    type_price(page, "2.5")
    shown = page.evaluate(SHOWN)
    assert shown["response"] == python(catalog, DSR1, "2.5")
    assert shown["note"] == "Costs use $2.50 per GPU-hour: the price you typed."
    # a bad one: one line naming the field, the value and what is allowed, as CPython says it
    type_price(page, "cheap")
    shown = page.evaluate(SHOWN)
    bad = python(catalog, DSR1, "cheap")
    assert not bad["ok"] and shown["response"] == bad
    assert shown["error"] == f"GPU-hour price (USD): {bad['error']['detail']}" and "\n" not in shown["error"]
    assert "'cheap' is not a price" in shown["error"]
    # and back to the cited price
    type_price(page, "")
    assert page.evaluate(SHOWN)["response"] == want
    assert not page.errors


def test_load_views(view, catalog):
    open_page(view, "selector/?" + urlencode(LOCAL["answers"]))
    view.wait_for_selector(DONE, timeout=60000)
    load = python(catalog, LOCAL)["result"]
    assert view.evaluate(SHOWN)["response"]["result"] == load
    at64 = next(i for i, p in enumerate(load["points"]) if p["users"] == 64)
    slide(view, at64)
    # nothing runs off the side: the section and the page keep to the viewport
    wide = view.evaluate("""() => { const b = document.getElementById('selector-load');
        return { box: b.scrollWidth - b.clientWidth, page: document.documentElement.scrollWidth - window.innerWidth,
                 right: Math.max(...[...b.querySelectorAll('*')].map((n) => n.getBoundingClientRect().right)) - window.innerWidth }; }""")
    assert wide["box"] <= 1 and wide["page"] <= 1 and wide["right"] <= 1, wide
    SCREENS.mkdir(parents=True, exist_ok=True)
    # the section at the top of what shows (on a desktop the answer column scrolls on its own, under the header)
    view.evaluate("""() => { const b = document.getElementById('selector-load'); b.scrollIntoView({ block: 'start' });
        if (window.scrollY > 0) window.scrollBy(0, -64); }""")
    view.screenshot(path=str(SCREENS / f"selector-load-{view.size}-{view.scheme}.png"))
    assert not view.errors


RPRICE = "#results-price-row[data-mounted]"
COSTS = """() => {
  const row = document.getElementById('results-price-row');
  const table = document.querySelector('section.iem-rset[data-set="inferencex-dsr1-1k1k"] table');
  const col = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim()).indexOf('Cost per million tokens (USD, derived)');
  return { response: row.__costs, busy: row.getAttribute('aria-busy'), note: document.getElementById('results-price-note').textContent,
           error: document.getElementById('results-price-note').classList.contains('iem-error'),
           cells: [...table.querySelectorAll('tbody tr[data-row]')].map((tr) => [tr.dataset.row, tr.children[col].textContent.replace('derived', '').trim()]) };
}"""


def price_results(page, text):
    page.fill("#results-price", text)
    page.dispatch_event("#results-price", "change")
    page.wait_for_function("() => { const r = document.getElementById('results-price-row'); return r.__costs && r.getAttribute('aria-busy') === 'false'; }",
                           timeout=60000)
    return page.evaluate(COSTS)


def test_results_price_is_priced_by_python(page, catalog):
    """/results/: a typed GPU-hour price reprices the cost column through selector.costs in the worker (Pyodide loads
    only then), the cells equal CPython's figures at that price, and a bad price is one line."""
    from macros import charts
    from selector import costs
    page.goto(page.base + "results/?set=inferencex-dsr1-1k1k")
    page.wait_for_selector(RPRICE)
    assert not any("pyodide" in u for u in page.requests)  # nothing heavy until a price is typed
    shown = price_results(page, "2")
    want = costs.results(catalog, gpu_hour_usd="2")["rows"]
    assert shown["response"]["ok"] and not shown["error"]
    assert shown["note"] == costs.page_costs(catalog, "2")["note"]
    checked = 0
    for row_id, text in shown["cells"]:
        value = want[int(row_id[1:])]["usd_per_million_tokens"]
        assert text == (charts.number(value) if value is not None else ""), row_id
        checked += value is not None
    assert checked > 50
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => { document.getElementById('results-price-row').scrollIntoView({ block: 'start' }); window.scrollBy(0, -64); }")
    page.screenshot(path=str(SCREENS / "results-price.png"))
    # a bad price: Python's one line, and the cells keep the last good figures
    shown = price_results(page, "free")
    assert shown["error"] and shown["note"] == "GPU-hour price (USD): 'free' is not a price; give a price in US dollars per GPU-hour, " \
                                               "a number above 0 and at most 10,000"
    # empty: back to the cited prices, the numbers the build wrote
    shown = price_results(page, "")
    cited = costs.results(catalog)["rows"]
    for row_id, text in shown["cells"]:
        value = cited[int(row_id[1:])]["usd_per_million_tokens"]
        assert text == (charts.number(value) if value is not None else ""), row_id
    assert not page.errors
