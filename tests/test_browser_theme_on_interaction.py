"""Material's bundle on the table pages (front matter ``theme_script: on-interaction``) loads on the
reader's first interaction, not while the page loads (docs/overrides/main.html, site.js): the page's own
widgets and the light/dark toggle work before it; the first click, key or tap brings search, instant
navigation and the rest; an address that asks Material for something at start (#target, ?q=, ?h=) loads it
at once; every other page loads it while parsing, as Material does."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEFERRED = {  # page -> the selector that shows its widgets are mounted
    "results/": "#results-filter[data-mounted]",
    "compare/?engines=vllm,sglang": "#compare-form[data-mounted]",
    "matrix/": ".iem-table-block[data-overflow], .iem-table-block[data-fits]",
    "tiers/l2/": ".iem-table-block[data-overflow], .iem-table-block[data-fits]",
}
BUNDLE_RE = re.compile(r"/assets/javascripts/bundle\.[0-9a-f]+\.min\.js$")


def _flagged_sources():
    """Markdown pages whose front matter asks for the bundle on interaction, as site paths."""
    out = set()
    for md in sorted((ROOT / "docs").rglob("*.md")):
        text = md.read_text(encoding="utf-8")
        front = text.split("---", 2)[1] if text.startswith("---") else ""
        if re.search(r"^theme_script:\s*on-interaction\b", front, re.M):
            rel = md.relative_to(ROOT / "docs").with_suffix("")
            out.add("" if rel.name == "index" and rel.parent == Path(".") else f"{rel.as_posix()}/")
    return out


def test_only_flagged_pages_wait_and_their_bundle_exists(built_site):
    """Every built page either runs Material's bundle while parsing or names it, by a file that exists, for
    the first interaction; the second kind is exactly the pages flagged in their front matter."""
    flagged = _flagged_sources()
    assert flagged == {"results/", "compare/", "matrix/", "tiers/l1/", "tiers/l1-5/", "tiers/l2/", "tiers/l3/"}
    waiting = set()
    for html in sorted(Path(built_site).rglob("index.html")):
        rel = html.parent.relative_to(built_site).as_posix()
        page = "" if rel == "." else rel + "/"
        text = html.read_text(encoding="utf-8")
        tag = re.search(r'<template id="iem-theme-script" data-src="([^"]+)"></template>', text)
        script = re.search(r'<script src="([^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>', text)
        if page.startswith("__") or page.startswith("api/"):
            continue
        assert bool(tag) != bool(script), f"{page}: expected exactly one of the bundle's script tag or its template"
        src = (tag or script).group(1)
        assert (html.parent / src).resolve().is_file(), f"{page}: {src} does not exist"
        if tag:
            waiting.add(page)
    assert waiting == flagged


def _bundle_requests(pg):
    return [u for u in pg.requests if BUNDLE_RE.search(u.split("?")[0])]


def _has_theme(pg):
    return pg.evaluate("() => typeof window.document$ === 'object' && window.document$ !== null")


@pytest.mark.browser
@pytest.mark.parametrize("path", sorted(DEFERRED))
def test_the_page_works_before_the_bundle_and_the_first_click_brings_it(page, path):
    page.goto(page.base + path, wait_until="load")
    # tables are measured as they come near the view: bring the first one there by script (a scroll
    # is not one of the interactions that load the bundle)
    page.evaluate("document.querySelector('.iem-table-block')?.scrollIntoView()")
    page.wait_for_selector(DEFERRED[path], state="attached")
    page.wait_for_timeout(400)
    assert not _bundle_requests(page) and not _has_theme(page), "the bundle ran before any interaction"
    # the light/dark toggle is this site's own script: it works before the bundle (its click also wakes it)
    before = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
    page.locator("form[data-iem-component=palette] label:not([hidden])").click()
    page.wait_for_function("() => typeof window.document$ === 'object'")
    after = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
    assert {before, after} == {"default", "slate"}
    page.wait_for_timeout(300)
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == after, "the bundle undid the toggle"
    assert len(_bundle_requests(page)) == 1
    # Material started on this document: for instant navigation it makes every relative link absolute
    page.wait_for_function("() => /^https?:/.test(document.querySelector('.md-nav__link[href]').getAttribute('href'))")
    page.mouse.click(5, 400)
    assert len(_bundle_requests(page)) == 1, "a second interaction loaded the bundle again"
    assert not page.errors


@pytest.mark.browser
def test_instant_navigation_after_the_first_interaction(page):
    page.goto(page.base + "compare/?engines=vllm,sglang", wait_until="load")
    page.wait_for_selector("#compare-form[data-mounted]")
    page.locator("h1").click()
    page.wait_for_function("() => typeof window.document$ === 'object'")
    page.wait_for_load_state("networkidle")  # Material intercepts links once it has read sitemap.xml
    # the page's widgets were mounted once, and still answer
    page.select_option("#compare-add", "lmdeploy")
    cols = page.eval_on_selector_all("#compare-table thead th[data-col]:not([hidden])", "ths => ths.map(t => t.dataset.col)")
    assert cols == ["vllm", "sglang", "lmdeploy"]
    assert page.url.endswith("engines=vllm,sglang,lmdeploy")
    page.evaluate("window.__sameDocument = true")
    page.locator(".md-nav__link[href$='matrix/']").first.click()
    page.wait_for_url("**/matrix/")
    page.wait_for_selector(DEFERRED["matrix/"], state="attached")
    page.locator(".md-nav__link[href$='results/']").first.click()
    page.wait_for_url("**/results/")
    page.wait_for_selector(DEFERRED["results/"], state="attached")
    assert page.evaluate("window.__sameDocument === true"), "instant navigation is off after the late bundle"
    assert len(_bundle_requests(page)) == 1
    assert not page.errors


@pytest.mark.browser
def test_a_first_key_still_opens_search(page):
    page.goto(page.base + "matrix/", wait_until="load")
    page.wait_for_timeout(300)
    assert not _has_theme(page)
    page.keyboard.press("/")
    page.wait_for_function("() => document.getElementById('__search').checked")
    page.wait_for_function("() => document.activeElement?.getAttribute('data-md-component') === 'search-query'")
    page.keyboard.type("sglang")
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    assert not page.errors


@pytest.mark.browser
def test_phone_first_taps_on_search_and_menu(browser, site_server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        pg = context.new_page()
        errors = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(site_server.url + "results/", wait_until="load")
        pg.wait_for_selector(DEFERRED["results/"], state="attached")
        pg.tap("header label[for='__drawer']")
        pg.wait_for_function("() => typeof window.document$ === 'object'")
        pg.wait_for_timeout(400)
        assert pg.evaluate("document.getElementById('__drawer').checked"), "the menu closed when the bundle came"
        pg.goto(site_server.url + "matrix/", wait_until="load")
        pg.tap("header label[for='__search']")
        pg.wait_for_function("() => typeof window.document$ === 'object'")
        # the tap that opened search gives its field the focus, as it does with the bundle already running
        pg.wait_for_function("() => document.activeElement?.getAttribute('data-md-component') === 'search-query'")
        assert pg.evaluate("document.getElementById('__search').checked")
        assert not errors
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("suffix", ["results/#results-filter", "matrix/?q=vllm", "compare/?engines=vllm,sglang&h=vllm"])
def test_an_address_that_asks_material_loads_it_at_once(page, suffix):
    page.goto(page.base + suffix, wait_until="load")
    page.wait_for_function("() => typeof window.document$ === 'object'", timeout=10000)
    if "?q=" in suffix:  # Material's search deep link
        page.wait_for_function("() => document.getElementById('__search').checked")
        assert page.input_value("[data-md-component=search-query]") == "vllm"
    assert not page.errors


@pytest.mark.browser
@pytest.mark.parametrize("path", ["", "selector/", "quantization/"])
def test_other_pages_run_the_bundle_while_loading(page, path):
    page.goto(page.base + path, wait_until="domcontentloaded")
    assert _has_theme(page)
    assert len(_bundle_requests(page)) == 1


@pytest.mark.browser
@pytest.mark.parametrize("path", ["tiers/l2/", "results/"])
def test_sidebars_stop_above_the_footer_before_the_bundle(page, path):
    """Material sizes its sidebars by script; before that script runs, site.css keeps each one within the
    view, so at the bottom of the page the navigation does not run over the footer."""
    page.goto(page.base + path, wait_until="load")
    for _ in range(3):  # tables drawn near the view may lengthen the page: scroll again until it stops growing
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        page.wait_for_timeout(300)
    assert not _has_theme(page)
    boxes = page.evaluate("""() => {
      const footer = document.querySelector('.md-footer').getBoundingClientRect().top;
      return [...document.querySelectorAll('.md-sidebar')].filter((s) => s.offsetParent).map((s) => {
        const wrap = s.querySelector('.md-sidebar__scrollwrap').getBoundingClientRect();
        return { sidebar: s.className, bottom: wrap.bottom, footer, height: wrap.height };
      });
    }""")
    assert boxes, "no sidebar shown at 1280 px"
    for box in boxes:
        assert box["bottom"] <= box["footer"] + 1, box
        assert box["height"] > 100, box
