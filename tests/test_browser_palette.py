"""The light/dark toggle, Material's own (theme.palette in mkdocs.yml): the reader's system setting on a first
visit, a click that switches and is remembered across a reload and instant navigation, and the site's own
colours (tables, the tree diagram) following the scheme."""

import contextlib

import pytest

pytestmark = pytest.mark.browser

STATE = """() => ({
  scheme: document.body.getAttribute('data-md-color-scheme'),
  primary: document.body.getAttribute('data-md-color-primary'),
  visible: [...document.querySelectorAll('form[data-md-component=palette] label')].filter((l) => !l.hidden).map((l) => l.title),
})"""


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
    return pg.evaluate(STATE)


def _wait_scheme(pg, scheme):
    pg.wait_for_function("(s) => document.body.getAttribute('data-md-color-scheme') === s", arg=scheme, timeout=10000)
    return _state(pg)


@pytest.mark.parametrize("system,scheme,other,label", [("light", "default", "slate", "Switch to dark mode"),
                                                      ("dark", "slate", "default", "Switch to light mode")])
def test_first_visit_follows_the_system_and_a_click_is_remembered(browser, site_server, system, scheme, other, label):
    with _page(browser, system) as pg:
        pg.goto(site_server.url, wait_until="load")
        first = _wait_scheme(pg, scheme)
        assert first["primary"] == "indigo" and first["visible"] == [label], first  # one button, naming what it does

        pg.get_by_title(label).click()
        after = _wait_scheme(pg, other)
        assert len(after["visible"]) == 1 and after["visible"] != first["visible"], after

        # kept across a full load, whatever the system says
        pg.reload(wait_until="load")
        _wait_scheme(pg, other)
        # and across instant navigation
        pg.wait_for_load_state("networkidle")
        pg.evaluate("window.__same = true")
        pg.locator("a.md-nav__link[href$='overview/']").first.click()
        pg.wait_for_url("**/overview/")
        assert pg.evaluate("window.__same === true")  # no full load
        _wait_scheme(pg, other)
        pg.get_by_title(after["visible"][0]).click()
        _wait_scheme(pg, scheme)
        assert not pg.errors, pg.errors


def test_the_saved_choice_is_there_before_the_first_paint(browser, site_server):
    """Material's palette script (a file here, for the CSP) sets the saved scheme while the header is parsed,
    so a dark reader never sees the page drawn light first."""
    with _page(browser, "light") as pg:
        pg.goto(site_server.url, wait_until="load")
        pg.get_by_title("Switch to dark mode").click()
        _wait_scheme(pg, "slate")
        pg.add_init_script("""
          new MutationObserver((records, observer) => {
            if (!document.querySelector('.md-container')) return;  // the page under the header, parsed next
            window.__atParse = document.body.getAttribute('data-md-color-scheme');
            observer.disconnect();
          }).observe(document, { childList: true, subtree: true });""")
        pg.goto(site_server.url + "matrix/", wait_until="load")
        assert pg.evaluate("window.__atParse") == "slate"
        assert not pg.errors, pg.errors


def test_the_tree_diagram_follows_the_toggle(browser, site_server):
    with _page(browser, "light") as pg:
        pg.goto(site_server.url + "tree/", wait_until="load")
        box = "() => getComputedStyle(document.querySelector('.iem-tree-svg .iem-node text')).fill"
        light = pg.evaluate(box)
        pg.get_by_title("Switch to dark mode").click()
        pg.wait_for_function("(light) => (" + box + ")() !== light", arg=light, timeout=10000)
        assert not pg.errors, pg.errors
