"""The light/dark toggle (docs/overrides/partials/palette.html and partials/javascripts/palette.html), which
replaces Material's palette component: the reader's system setting on a first visit, a click that switches
and is remembered across a reload and instant navigation, Enter on the toggle, the two meta tags, the tree
diagram redrawn in the new scheme, and no second styling pass of the page at load."""

import contextlib

import pytest

pytestmark = pytest.mark.browser

STATE = """() => {
  const visible = [...document.querySelectorAll('form[data-iem-component=palette] label')].filter((l) => !l.hidden);
  const meta = (n) => document.querySelector(`meta[name="${n}"]`)?.content ?? null;
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(Object.keys(localStorage).find((k) => k.endsWith('__palette')) || '')); }
  catch (e) { saved = null; }
  return { scheme: document.body.getAttribute('data-md-color-scheme'),
           primary: document.body.getAttribute('data-md-color-primary'),
           checked: document.querySelector('input[name=__palette]:checked')?.id ?? null,
           visible: visible.map((l) => l.title), colorScheme: meta('color-scheme'), themeColor: meta('theme-color'),
           saved, switching: document.body.hasAttribute('data-md-color-switching'),
           metas: document.querySelectorAll('meta[name="color-scheme"], meta[name="theme-color"]').length };
}"""


@contextlib.contextmanager
def _page(browser, scheme):
    """A page in a fresh context (no saved palette) whose system colour scheme is ``scheme``; page errors
    are collected in ``pg.errors``."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    try:
        pg = context.new_page()
        pg.errors = []
        pg.on("pageerror", lambda e: pg.errors.append(str(e)))
        yield pg
    finally:
        context.close()


def _state(pg):
    pg.wait_for_function("() => /^#[0-9a-f]{6}$/.test(document.querySelector('meta[name=\"theme-color\"]')?.content || '')")
    return pg.evaluate(STATE)


@pytest.mark.parametrize("system,scheme,other,label", [("light", "default", "slate", "Switch to dark mode"),
                                                      ("dark", "slate", "default", "Switch to light mode")])
def test_first_visit_follows_the_system_and_a_click_is_remembered(browser, site_server, system, scheme, other, label):
    with _page(browser, system) as pg:
        pg.goto(site_server.url, wait_until="load")
        first = _state(pg)
        assert first["scheme"] == scheme and first["primary"] == "indigo", first
        assert first["visible"] == [label], first  # one button, naming what it does
        assert first["colorScheme"] == ("dark" if scheme == "slate" else "light"), first
        assert first["metas"] == 2 and not first["switching"], first
        assert first["saved"]["color"]["scheme"] == scheme, first  # Material's storage format

        pg.get_by_title(label).click()
        after = _state(pg)
        assert after["scheme"] == other and after["colorScheme"] == ("dark" if other == "slate" else "light"), after
        assert after["saved"]["color"]["scheme"] == other and after["checked"] != first["checked"], after
        assert after["visible"] != first["visible"] and len(after["visible"]) == 1, after
        pg.wait_for_function("() => !document.body.hasAttribute('data-md-color-switching')")  # one frame only
        # the header's colour is the theme colour of the browser's own interface
        header = pg.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor")
        assert after["themeColor"] == "#" + "".join(f"{int(c):02x}" for c in header[header.index("(") + 1:-1].split(",")[:3])

        # kept across a full load, whatever the system says
        pg.reload(wait_until="load")
        assert _state(pg)["scheme"] == other
        # and across instant navigation (the header, and this toggle, stay in place)
        pg.wait_for_load_state("networkidle")
        pg.evaluate("window.__same = true")
        pg.locator("a.md-nav__link[href$='overview/']").first.click()
        pg.wait_for_url("**/overview/")
        assert pg.evaluate("window.__same === true")  # no full load
        assert _state(pg)["scheme"] == other
        pg.get_by_title(after["visible"][0]).click()
        assert _state(pg)["scheme"] == scheme
        assert not pg.errors, pg.errors


def test_enter_on_the_toggle_switches(browser, site_server):
    with _page(browser, "light") as pg:
        pg.goto(site_server.url, wait_until="load")
        assert _state(pg)["scheme"] == "default"
        pg.locator("input[name=__palette]:checked").focus()
        pg.keyboard.press("Enter")
        state = _state(pg)
        assert state["scheme"] == "slate" and state["checked"] == "__palette_1", state
        assert pg.evaluate("document.activeElement.id") == "__palette_1"  # focus moves with the choice
        pg.keyboard.press("Enter")
        assert _state(pg)["scheme"] == "default"
        assert not pg.errors, pg.errors


def test_the_tree_diagram_follows_the_toggle(browser, site_server):
    with _page(browser, "light") as pg:
        pg.goto(site_server.url + "tree/", wait_until="load")
        pg.wait_for_selector('[data-diagram][data-rendered="1"] svg', timeout=20000)
        edge = "() => getComputedStyle(document.querySelector('[data-diagram] svg .flowchart-link, [data-diagram] svg path')).stroke"
        light = pg.evaluate(edge)
        pg.get_by_title("Switch to dark mode").click()
        pg.wait_for_function("(light) => (" + edge + ")() !== light", arg=light, timeout=10000)
        assert not pg.errors, pg.errors


def test_the_page_is_styled_once_at_load(browser, site_server):
    """Material's palette component set and removed an attribute on <body> at load and filled a
    color-scheme meta after inserting it, each of which re-styles every element of the page. The toggle
    sets the scheme once, while the header is parsed, and inserts the meta with its content."""
    with _page(browser, "dark") as pg:
        pg.add_init_script("""
          window.__changes = [];
          new MutationObserver((records) => {
            for (const r of records) {
              if (r.type === 'attributes' && r.target === document.body) window.__changes.push('body ' + r.attributeName);
              if (r.type === 'attributes' && r.target.nodeName === 'META' && r.target.name === 'color-scheme') window.__changes.push('meta ' + r.attributeName);
            }
          }).observe(document, { attributes: true, subtree: true });""")
        pg.goto(site_server.url + "matrix/", wait_until="load")
        pg.wait_for_timeout(1000)
        assert pg.evaluate("document.body.getAttribute('data-md-color-scheme')") == "slate"
        # the first visit with a dark system: the scheme changes once from the page's default, and the
        # media attribute is added, both while the header is parsed; nothing is set twice or taken back
        assert pg.evaluate("window.__changes") == ["body data-md-color-media", "body data-md-color-scheme"]
        pg.reload(wait_until="load")  # the choice is now saved: the same
        pg.wait_for_timeout(1000)
        assert pg.evaluate("window.__changes") == ["body data-md-color-media", "body data-md-color-scheme"]


def test_html_classes_are_set_before_the_body(browser, site_server):
    """Material's bundle swaps <html class="no-js"> for "js" and its focus-visible polyfill adds a class;
    any class change on <html> re-styles every element. The head sets them first (docs/overrides/main.html),
    so once the body exists, nothing changes the classes of <html>."""
    with _page(browser, "light") as pg:
        pg.add_init_script("""
          window.__htmlChanges = [];
          new MutationObserver((records) => {
            for (const r of records) {
              if (r.target !== document.documentElement || !document.body) continue;
              const before = new Set((r.oldValue || '').split(/\\s+/).filter(Boolean));
              const after = new Set(document.documentElement.className.split(/\\s+/).filter(Boolean));
              if (before.size !== after.size || [...after].some((c) => !before.has(c))) window.__htmlChanges.push([r.oldValue, document.documentElement.className]);
            }
          }).observe(document, { attributes: true, attributeOldValue: true, subtree: true, attributeFilter: ['class'] });""")
        for path in ("", "matrix/"):
            pg.goto(site_server.url + path, wait_until="load")
            pg.wait_for_timeout(500)
            classes = pg.evaluate("document.documentElement.className.split(/\\s+/)")
            assert "js" in classes and "js-focus-visible" in classes and "no-js" not in classes, classes
            assert pg.evaluate("window.__htmlChanges") == [], pg.evaluate("window.__htmlChanges")
        assert not pg.errors, pg.errors


def test_stylesheets_are_loaded_once(browser, site_server):
    """For instant navigation Material's bundle gives every relative href an absolute one; on a stylesheet
    link that reloads the sheet and re-styles the whole page after it was drawn. The head does it first
    (docs/overrides/main.html), so once the body exists no stylesheet link changes, and, every sheet being
    named by its content and cached as immutable, each one is requested once."""
    with _page(browser, "light") as pg:
        pg.add_init_script("""
          window.__linkChanges = [];
          new MutationObserver((records) => {
            for (const r of records) {
              if (r.target.nodeName === 'LINK' && r.target.rel === 'stylesheet' && document.body) window.__linkChanges.push(r.oldValue + ' -> ' + r.target.getAttribute('href'));
            }
          }).observe(document, { attributes: true, attributeOldValue: true, subtree: true, attributeFilter: ['href'] });""")
        requests = []
        pg.on("request", lambda r: requests.append(r.url) if r.resource_type == "stylesheet" else None)
        for path in ("", "matrix/", "engines/vllm/"):
            requests.clear()
            pg.goto(site_server.url + path, wait_until="load")
            pg.wait_for_timeout(500)
            assert pg.evaluate("window.__linkChanges") == [], (path, pg.evaluate("window.__linkChanges"))
            links = pg.evaluate("[...document.querySelectorAll('link[rel=stylesheet]')].map((l) => [l.getAttribute('href'), !!l.sheet])")
            assert len(links) == 3 and all(href.startswith(site_server.url) and loaded for href, loaded in links), links
            assert any("/assets/style/" in href and href.endswith("/site.css") for href, _ in links), links
            assert len(requests) == len(set(requests)) == 3, requests
        assert not pg.errors, pg.errors
