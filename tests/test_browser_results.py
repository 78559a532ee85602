"""The measured-results explorer in Chromium: filters from the address hide the rows and chart points
that do not match, the address follows the filters, the tables and the charts always show the same rows,
and without JavaScript every row shows."""

import pytest

from macros import views

pytestmark = pytest.mark.browser

READY = "#results-filter[data-mounted]"

# shown = not hidden by the filters (display: none on the node or up the tree). A set far below the view
# counts as shown while content-visibility skips drawing it, so this does not ask for the box's size;
# checkVisibility alone answers true for a hidden SVG mark inside a skipped set, hence the node's own display.
VISIBLE = """(sel) => [...document.querySelectorAll(sel)]
  .filter((n) => n.checkVisibility() && getComputedStyle(n).display !== "none")
  .map((n) => ({ row: n.dataset.row, engine: n.dataset.engine, gpu: n.dataset.gpu, set: n.dataset.set }))"""


def visible(page, selector):
    return page.evaluate(VISIBLE, selector)


def table_rows(page):
    return visible(page, "table.iem-results-table tr[data-row]")


def chart_marks(page):
    return visible(page, "figure.iem-chart svg [data-row]")


def ids(items):
    """Row ids drawn or listed, each once (a row may be drawn in its set's figure chart, its cost chart and
    the chart of its model at the top)."""
    return sorted({i["row"] for i in items})


@pytest.fixture(scope="module")
def expected(catalog):
    rows = views.results.result_rows(catalog)
    groups = views.results.result_groups(catalog, rows)
    charted = {i["row"] for g in groups for c in g["charts"] for i in c.get("points", []) + c.get("bars", [])}
    return {"rows": rows, "charted": charted}


def test_engine_filter_from_the_address(page, expected):
    page.goto(page.base + "results/?engine=vllm")
    page.wait_for_selector(READY)
    vllm = [r for r in expected["rows"] if r["row"]["engine"] == "vllm"]
    assert vllm, "the data has vLLM rows"
    rows = table_rows(page)
    assert {r["engine"] for r in rows} == {"vllm"} and len(rows) == len(vllm)
    marks = chart_marks(page)
    assert {m["engine"] for m in marks} == {"vllm"}
    assert ids(marks) == sorted(r["id"] for r in vllm if r["id"] in expected["charted"])
    assert page.is_checked('#results-filter input[name="engine"][value="vllm"]')
    status = page.text_content("#results-status")
    assert f"Showing {len(vllm)} of {len(expected['rows'])} rows" in status
    # sets without a vLLM row are hidden, heading included
    shown_sets = {r["set"] for r in rows}
    for section in page.query_selector_all("section.iem-rset"):
        assert section.is_visible() == (section.get_attribute("data-set") in shown_sets)
    hidden_heading = page.query_selector("#set-inferencex-dsr1-1k1k")
    if "inferencex-dsr1-1k1k" not in shown_sets:
        assert hidden_heading is not None and not hidden_heading.is_visible()
    # the legend names only the picked engine
    legend = page.evaluate("""() => [...document.querySelectorAll('.iem-legend [data-engine]')]
        .filter((n) => n.offsetParent !== null).map((n) => n.dataset.engine)""")
    assert set(legend) == {"vllm"}
    assert not page.errors


def test_query_round_trips_when_a_filter_changes(page, expected):
    page.goto(page.base + "results/?engine=vllm")
    page.wait_for_selector(READY)
    gpu = table_rows(page)[0]["gpu"]
    page.click('summary:has([data-picked-for="gpu"])')
    page.check(f'#results-filter input[name="gpu"][value="{gpu}"]')
    # Material's scroll tracking may add a heading's hash when the opened list scrolls the page; the query is what counts
    assert page.url.split("#")[0].endswith(f"results/?engine=vllm&gpu={gpu}")
    assert page.text_content('[data-picked-for="gpu"]') != "all"
    shown = table_rows(page)
    assert shown and all(r["engine"] == "vllm" and r["gpu"] == gpu for r in shown)
    assert len(shown) == sum(1 for r in expected["rows"] if r["row"]["engine"] == "vllm" and r["row"]["gpu"] == gpu)
    # the address alone brings back the same view
    url = page.url
    page.goto(url)
    page.wait_for_selector(READY)
    assert page.is_checked(f'#results-filter input[name="gpu"][value="{gpu}"]')
    assert page.is_checked('#results-filter input[name="engine"][value="vllm"]')
    assert ids(table_rows(page)) == ids(shown)
    assert page.url == url
    # unticking everything clears the address and shows every row again
    page.uncheck(f'#results-filter input[name="gpu"][value="{gpu}"]')
    page.uncheck('#results-filter input[name="engine"][value="vllm"]')
    assert page.url.endswith("results/")
    assert len(table_rows(page)) == len(expected["rows"])
    assert not page.errors


@pytest.mark.parametrize("query", ["", "?engine=sglang", "?set=inferencex-dsr1-1k1k&engine=sglang,dynamo",
                                   "?gpu=b200&concurrency=none", "?engine=llama-cpp&model=llama-2-7b"])
def test_table_and_chart_show_the_same_rows(page, expected, query):
    page.goto(page.base + "results/" + query)
    page.wait_for_selector(READY)
    rows = table_rows(page)
    marks = chart_marks(page)
    assert rows
    assert ids(marks) == sorted(r for r in ids(rows) if r in expected["charted"])
    # each visible chart only holds the rows of its own comparable set
    for figure in page.query_selector_all("figure.iem-chart"):
        if figure.is_visible():
            sets = figure.evaluate("(f) => [...new Set([...f.querySelectorAll('svg [data-row]')].map((n) => n.dataset.set))]")
            assert sets == [figure.get_attribute("data-set")]
    assert not page.errors


def test_bars_close_up_over_hidden_rows(page):
    page.goto(page.base + "results/?engine=vllm")
    page.wait_for_selector(READY)
    charts = page.evaluate("""() => [...document.querySelectorAll('figure.iem-chart:not([hidden]) svg.iem-barchart')].map((svg) => {
        const bars = [...svg.querySelectorAll('.iem-rbar')].filter((b) => !b.hasAttribute('hidden'));
        const ys = bars.map((b) => b.querySelector('rect').getBoundingClientRect().top - svg.getBoundingClientRect().top);
        return { all: svg.querySelectorAll('.iem-rbar').length, shown: bars.length, ys,
                 height: svg.viewBox.baseVal.height, row: Number(svg.dataset.rowHeight), top: Number(svg.dataset.top),
                 bottom: Number(svg.dataset.bottom), scale: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width };
    })""")
    assert any(c["shown"] < c["all"] for c in charts), "some bar chart lost bars to the filter"
    for c in charts:
        assert c["height"] == c["top"] + c["shown"] * c["row"] + c["bottom"]
        steps = [round((b - a) / c["scale"]) for a, b in zip(c["ys"], c["ys"][1:])]
        assert all(s == c["row"] for s in steps), steps


def test_no_match_says_so(page):
    page.goto(page.base + "results/?engine=llama-cpp&gpu=b200")
    page.wait_for_selector(READY)
    assert table_rows(page) == [] and chart_marks(page) == []
    assert page.text_content("#results-status").startswith("No row matches every pick (0 of ")
    page.click("#results-filter button[type=reset]")
    page.wait_for_function("() => !location.search")
    assert page.text_content("#results-status").startswith("Showing all ")


def test_unknown_filter_values_are_reported_and_dropped(page):
    page.goto(page.base + "results/?engine=vllm,nope&utm_source=x")
    page.wait_for_selector(READY)
    assert page.is_visible("#results-unknown")
    assert "engine=nope" in page.text_content("#results-unknown")
    assert page.url.endswith("results/?engine=vllm")
    assert {r["engine"] for r in table_rows(page)} == {"vllm"}


def test_without_javascript_every_row_shows(browser, site_server, expected):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(site_server.url + "results/?engine=vllm")
    assert len(table_rows(page)) == len(expected["rows"])
    assert ids(chart_marks(page)) == sorted(expected["charted"])
    context.close()


def test_engine_page_links_to_its_rows(page):
    page.goto(page.base + "engines/vllm/")
    link = page.locator('#measured-results ~ p a[href$="results/?engine=vllm"]').first
    assert link.text_content().startswith("All ") and link.text_content().endswith(" rows of vLLM in the explorer")
    link.click()
    # instant navigation; Material's scroll tracking may carry the engine page's section into the hash
    page.wait_for_url(lambda url: "/results/?engine=vllm" in url)
    page.wait_for_selector(READY)
    assert {r["engine"] for r in table_rows(page)} == {"vllm"}
    assert not page.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_filtered_explorer_with_open_filters_passes_axe(browser, site_server, scheme):
    import json
    from test_a11y import _axe
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True, color_scheme=scheme)
    page = context.new_page()
    page.goto(site_server.url + "results/?engine=vllm&concurrency=none")
    page.wait_for_selector(READY)
    page.evaluate("document.querySelectorAll('#results-filter details, .iem-rnotes').forEach((d) => d.open = true)")
    serious = [v for v in _axe(page) if v["impact"] in ("serious", "critical")]
    context.close()
    assert not serious, json.dumps(serious, indent=1)[:4000]


def test_no_inline_style_attributes_on_the_explorer(page):
    """The markup uses classes only, so a CSP without 'unsafe-inline' for styles keeps the page intact."""
    page.goto(page.base + "results/?engine=sglang")
    page.wait_for_selector(READY)
    styled = page.evaluate("() => [...document.querySelectorAll('article [style]')].map((n) => n.outerHTML.slice(0, 80))")
    assert styled == []


def test_the_built_page_is_the_unfiltered_state(page):
    """On a load that picks nothing, results.js skips its first pass: the page as built must already be
    what that pass would make. Running the pass (a change event with nothing ticked) alters nothing in
    the explorer: rows, chart marks, bar positions, drawing heights, legends and the status line."""
    page.goto(page.base + "results/")
    page.wait_for_selector(READY)
    snapshot = """() => { const main = document.querySelector('.md-content');
      const attrs = [...main.querySelectorAll('*')].map((n) => [...n.attributes].map((a) => a.name + '=' + a.value).join(' '));
      return { attrs, status: document.getElementById('results-status').textContent,
               picked: [...document.querySelectorAll('[data-picked-for]')].map((s) => s.textContent) }; }"""
    before = page.evaluate(snapshot)
    assert page.get_attribute("#results-status", "data-shown") == page.get_attribute("#results-status", "data-total")
    page.evaluate("() => document.getElementById('results-filter').dispatchEvent(new Event('change'))")
    after = page.evaluate(snapshot)
    assert after["status"] == before["status"] and after["picked"] == before["picked"]
    changed = [(b, a) for b, a in zip(before["attrs"], after["attrs"]) if a != b]
    assert len(after["attrs"]) == len(before["attrs"]) and not changed, changed[:5]
