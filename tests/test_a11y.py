"""Accessibility: axe-core finds nothing serious or critical on the main pages, in both colour schemes,
and the selector works from the keyboard alone."""

import json
import os
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.browser

AXE = Path(os.environ.get("IEM_NODE_MODULES", ROOT / "node_modules")) / "axe-core" / "axe.min.js"
PAGES = ["", "tiers/l2/", "matrix/", "selector/", "fit/", "overview/", "formats/", "quantization/", "sources/", "tree/", "results/", "engines/llama-cpp/",
         "field/", "freshness/", "engines/mlx-lm/",
         "compare/?engines=tensorrt-llm,vllm,sglang", "compare/?engines=vllm,sglang&all=1"]
READY = "#selector-result[data-state=ready]"


@pytest.fixture(scope="module", params=["light", "dark"])
def axe_page(request, browser, site_server):
    # axe is injected as an inline script, which the site's own CSP (rightly) refuses
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True,
                                  color_scheme=request.param)
    pg = context.new_page()
    pg.base = site_server.url
    pg.scheme = request.param
    yield pg
    context.close()


def _axe(pg):
    pg.add_script_tag(path=str(AXE))
    return pg.evaluate("""async () => {
      const r = await axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary.split('\\n').slice(1).join(' ').trim()) }));
    }""")


@pytest.mark.parametrize("path", PAGES)
def test_no_serious_axe_violations(axe_page, path):
    pg = axe_page
    query = "?model=qwen3-8b&gpu_memory_gb=24" if path == "fit/" else ""
    pg.goto(pg.base + path + query, wait_until="load")
    if path in ("selector/", "fit/"):
        pg.wait_for_selector(READY, timeout=60000)
    expected = {"light": "default", "dark": "slate"}[pg.scheme]
    assert pg.get_attribute("body", "data-md-color-scheme") == expected
    # tables and result sets far below are drawn when the reader comes near them (content-visibility); axe
    # checks them as drawn, once tables.js has measured each (a table that scrolls takes the focus)
    pg.evaluate("document.querySelectorAll('.iem-table-block, section.iem-rset').forEach((b) => { b.style.contentVisibility = 'visible'; })")
    pg.wait_for_function("""() => [...document.querySelectorAll('.iem-table-block')].filter((b) => b.checkVisibility())
        .every((b) => b.hasAttribute('data-fits') || b.hasAttribute('data-overflow'))""")
    violations = _axe(pg)
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    others = [f'{v["id"]} ({v["impact"]})' for v in violations if v not in serious]
    print(f"\naxe /{path} [{pg.scheme}]: {len(serious)} serious/critical, other: {others or 'none'}")
    assert not serious, json.dumps(serious, indent=1)[:4000]


def test_selector_result_states_pass_axe(axe_page):
    """A full answer (cards, warnings, exclusions, fit table) and an input error are accessible too."""
    pg = axe_page
    pg.goto(pg.base + "selector/?scale=service&hardware=cpu&quantization=fp8&model=deepseek-r1&gpu_memory_gb=24"
            "&ram_gb=64&workload=shared-prefix,vision&priority=latency", wait_until="load")
    pg.wait_for_selector(READY, timeout=60000)
    pg.evaluate("document.querySelectorAll('#selector-result details').forEach((d) => d.open = true)")
    serious = [v for v in _axe(pg) if v["impact"] in ("serious", "critical")]
    assert not serious, json.dumps(serious, indent=1)[:4000]
    pg.goto(pg.base + "selector/?scale=service&gpus=0", wait_until="load")
    pg.wait_for_selector("#selector-result[data-state=error]", timeout=60000)
    serious = [v for v in _axe(pg) if v["impact"] in ("serious", "critical")]
    assert not serious, json.dumps(serious, indent=1)[:4000]


def _tab_to(page, predicate, limit=200):
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(predicate):
            return
    raise AssertionError(f"never reached {predicate} with Tab")


def _seq(page):
    return int(page.get_attribute("#selector-result", "data-seq") or 0)


def test_selector_by_keyboard(page):
    """Tab to the scale, change it with the arrow keys, tab to a checkbox and tick it with Space."""
    page.goto(page.base + "selector/", wait_until="load")
    page.wait_for_selector(READY + '[data-seq="1"]', timeout=60000)
    page.locator("body").click(position={"x": 5, "y": 300})  # start from the page, not the address bar
    before = page.input_value("#q-scale")

    _tab_to(page, "() => document.activeElement && document.activeElement.id === 'q-scale'")
    page.keyboard.press("ArrowDown")
    page.wait_for_selector(READY + '[data-seq="2"]', timeout=15000)
    after = page.input_value("#q-scale")
    assert after != before
    assert f"scale={after}" in page.url
    branch = page.get_attribute("#selector-result .iem-path li:nth-child(2)", "data-node")
    assert branch == after, (branch, after)

    _tab_to(page, "() => document.activeElement && document.activeElement.type === 'checkbox'")
    box = page.evaluate("document.activeElement.value")
    assert not page.is_checked(f"input[type=checkbox][value='{box}']")
    page.keyboard.press("Space")
    page.wait_for_selector(READY + '[data-seq="3"]', timeout=15000)
    assert page.is_checked(f"input[type=checkbox][value='{box}']")
    assert f"workload={box}" in page.url
    assert _seq(page) == 3
    # the answer is announced: a polite live region that is no longer busy
    assert page.get_attribute("#selector-result", "aria-live") == "polite"
    assert page.get_attribute("#selector-result", "aria-busy") == "false"
    assert not page.errors, page.errors
