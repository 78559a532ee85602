"""The explorer without dead ends, in Chromium: option counts follow the other picks (and options that
would give nothing are marked), no match names the nearest picks, the cost column shows beside the
headline figure without scrolling sideways at 1440 and 390 px, light and dark, and the costs the page
shows are CPython's (selector.costs, the `results` command's arithmetic). Screenshots go to
tests/output/screens/ for a person to look at."""

import re

import pytest

from conftest import TESTS
from macros import charts, views
from selector import costs

pytestmark = pytest.mark.browser

READY = "#results-filter[data-mounted]"
SCREENS = TESTS / "output" / "screens"
from conftest import SIZES, VIEWS
DSR1 = 'section.iem-rset[data-set="inferencex-dsr1-1k1k"]'


@pytest.fixture(scope="module")
def rows(catalog):
    return views.results.result_rows(catalog)


def python_counts(rows, picks):
    """Rows per option of each filter under the other filters' picks, as the page should show them."""
    out = {}
    for key in picks.keys() | {"engine", "gpu", "model", "weights", "set", "concurrency"}:
        counts = {}
        for r in rows:
            f = r["filters"]
            if all(not v or f[k] in v for k, v in picks.items() if k != key):
                counts[f[key]] = counts.get(f[key], 0) + 1
        out[key] = counts
    return out


def page_counts(page, key):
    return page.evaluate("""(key) => Object.fromEntries([...document.querySelectorAll(`#results-filter input[name="${key}"]`)]
        .map((b) => [b.value, { n: Number(b.parentElement.querySelector('.iem-count').textContent.slice(1, -1)),
                                none: b.parentElement.classList.contains('iem-none') }]))""", key)


def test_counts_follow_the_other_picks(page, rows):
    page.goto(page.base + "results/?model=gpt-oss-120b")
    page.wait_for_selector(READY)
    want = python_counts(rows, {"model": ["gpt-oss-120b"]})
    for key in ("gpu", "engine", "model", "set"):
        got = page_counts(page, key)
        for value, shown in got.items():
            n = want[key].get(value, 0)
            assert shown["n"] == n, (key, value, shown, n)
            assert shown["none"] == (n == 0), (key, value)
    # B200 has gpt-oss-120b rows, so it is not marked; a GPU with none is
    gpus = page_counts(page, "gpu")
    assert not gpus["b200"]["none"] and gpus["b200"]["n"] > 0
    assert any(v["none"] for v in gpus.values())
    # the model filter itself still counts every model under no other pick
    assert page_counts(page, "model")["llama-2-7b"]["n"] == sum(1 for r in rows if r["row"]["model"] == "llama-2-7b")
    assert not page.errors


def test_no_match_names_the_nearest_rows(page, rows):
    page.goto(page.base + "results/?engine=llama-cpp&gpu=b200")
    page.wait_for_selector(READY)
    assert page.text_content("#results-status").startswith("No row matches every pick (0 of ")
    assert page.is_visible("#results-near")
    buttons = page.evaluate("""() => [...document.querySelectorAll('#results-near button')]
        .map((b) => ({ key: b.dataset.key, value: b.dataset.value, text: b.textContent }))""")
    want = python_counts(rows, {"engine": ["llama-cpp"], "gpu": ["b200"]})
    gpus = [b for b in buttons if b["key"] == "gpu"]
    engines = [b for b in buttons if b["key"] == "engine"]
    assert gpus and engines  # llama.cpp on another GPU; B200 with another engine
    for b in buttons:
        n = want[b["key"]][b["value"]]
        assert n > 0 and b["text"].endswith(f"({n})")
    # the biggest alternative comes first, and following it gives rows
    assert want["gpu"][gpus[0]["value"]] == max(want["gpu"].values())
    page.click(f'#results-near button[data-key="gpu"][data-value="{gpus[0]["value"]}"]')
    assert page.url.endswith(f"results/?engine=llama-cpp&gpu={gpus[0]['value']}")
    assert page.get_attribute("#results-status", "data-shown") == str(want["gpu"][gpus[0]["value"]])
    assert page.is_hidden("#results-near")
    assert not page.errors


def test_page_costs_are_cpythons(page, catalog, rows):
    page.goto(page.base + "results/?set=inferencex-dsr1-1k1k")
    page.wait_for_selector(READY)
    shown = page.evaluate(f"""() => {{
        const table = document.querySelector('{DSR1} table');
        const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
        const col = heads.indexOf('Cost per million tokens (USD, derived)');
        return {{ col, cells: [...table.querySelectorAll('tbody tr')].map((tr) => [tr.dataset.row,
                 tr.children[col].textContent.replace('derived', '').trim()]) }}; }}""")
    assert shown["col"] == 2
    cli = {r["id"]: c for r, c in zip(rows, costs.results(catalog)["rows"])}
    checked = 0
    for row_id, text in shown["cells"]:
        want = cli[row_id]["usd_per_million_tokens"]
        assert text == (charts.number(want) if want is not None else ""), row_id
        checked += want is not None
    assert checked > 50
    assert not page.errors


def new_view(browser, size, scheme):
    """A page at one of the layout sizes and colour schemes, and the list its script errors land in."""
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page, errors


@pytest.mark.parametrize("size, scheme", VIEWS, ids=[f"{s}-{c}" for s, c in VIEWS])
def test_headline_and_cost_show_without_scrolling(browser, site_server, size, scheme):
    context, page, errors = new_view(browser, size, scheme)
    page.goto(site_server.url + "results/?set=inferencex-dsr1-1k1k&gpu=b200,h200")
    page.wait_for_selector(READY)
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"results-cost-top-{size}-{scheme}.png"))
    page.locator("section.iem-roverview").screenshot(path=str(SCREENS / f"results-cost-overview-{size}-{scheme}.png"))
    page.locator(f"{DSR1} table").scroll_into_view_if_needed()
    box = page.evaluate(f"""() => {{
        const table = document.querySelector('{DSR1} table');
        const scroller = table.closest('.iem-scroll');
        const heads = [...table.querySelectorAll('thead th')];
        const pick = (t) => heads.find((th) => th.textContent.trim().startsWith(t)).getBoundingClientRect();
        const view = scroller.getBoundingClientRect();
        return {{ scrollLeft: scroller.scrollLeft, viewRight: Math.min(view.right, innerWidth),
                 headline: pick('Throughput per GPU').right, cost: pick('Cost per million').right }}; }}""")
    page.locator(f"{DSR1} .iem-table-block").screenshot(path=str(SCREENS / f"results-cost-table-{size}-{scheme}.png"))
    assert box["scrollLeft"] == 0
    assert box["headline"] <= box["viewRight"] + 0.5 and box["cost"] <= box["viewRight"] + 0.5, box
    # the chart at the top of the page: one per model, DeepSeek-R1 first
    first = page.evaluate("() => document.querySelector('section.iem-roverview figure.iem-chart figcaption').textContent")
    assert re.match(r"DeepSeek-R1: cost per million tokens", first)
    context.close()
    assert not errors


@pytest.mark.parametrize("size, scheme", VIEWS, ids=[f"{s}-{c}" for s, c in VIEWS])
def test_compare_shows_cost_rows(browser, site_server, catalog, size, scheme):
    context, page, errors = new_view(browser, size, scheme)
    page.goto(site_server.url + "compare/?engines=sglang,tensorrt-llm,dynamo")
    page.wait_for_function("() => !document.querySelector('#compare-table[data-pending]')")
    row = page.locator("#compare-table tr[data-row]", has_text="Lowest cost per million").first
    row.scroll_into_view_if_needed()
    assert row.is_visible()
    shown = row.evaluate("""(tr) => [...tr.querySelectorAll('td')].filter((td) => td.checkVisibility())
        .map((td) => [td.dataset.col, td.textContent.trim().split(' ')[0]])""")
    python = next(r for r in views.compare.compare(catalog)["rows"]
                  if r["group"] == "Measured results" and r["label"][0].get("text", "").startswith("Lowest cost"))
    engines = [e["id"] for e in views.compare.compare(catalog)["engines"]]
    want = {eid: cell[0].get("text", cell[0].get("unknown", "")).split(" ")[0] for eid, cell in zip(engines, python["cells"])}
    assert [c for c, _ in shown] == ["sglang", "tensorrt-llm", "dynamo"]
    for col, text in shown:
        assert text == want[col], (col, text, want[col])
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"compare-cost-{size}-{scheme}.png"))
    context.close()
    assert not errors


@pytest.mark.parametrize("size, scheme", [("desktop", "light"), ("phone", "dark")])
def test_load_control_shows_one_measured_load(browser, site_server, catalog, size, scheme):
    context, page, errors = new_view(browser, size, scheme)
    page.goto(site_server.url + "results/")
    page.wait_for_selector(READY)
    curves = views.results.load_curves(catalog)
    first = curves[0]
    form = page.locator(f'form.iem-load[data-load="{first["id"]}"]')
    form.scroll_into_view_if_needed()
    # before any move every load shows (the page as built, also without JavaScript)
    assert form.locator("tr[data-level]:visible").count() == len(first["levels"])
    form.locator("input[type=range]").evaluate("(r) => { r.value = '2'; r.dispatchEvent(new Event('input')); }")
    assert form.locator("tr[data-level]:visible").count() == 1
    level = first["levels"][2]
    assert form.locator("output").text_content() == f"{level['level']:,} concurrent requests"
    cells = form.locator("tr[data-level='2'] td").all_text_contents()
    for shown, cell in zip(cells, level["cells"]):
        if cell is None:
            assert shown.strip() == "not measured at this load"
        elif cell["cost"]:
            assert f"${cell['cost']} per million" in shown and f"{cell['total']} tokens/s in all" in shown
    assert cells[-1].strip() == (level["cheapest"] or "no priced setup")
    SCREENS.mkdir(parents=True, exist_ok=True)
    form.screenshot(path=str(SCREENS / f"results-load-{size}-{scheme}.png"))
    context.close()
    assert not errors
