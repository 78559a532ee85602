"""/fit/ in Chromium: the answer leads with the quantization chosen when none is asked, the page shows the figures
CPython computes for the new keys (quantization_choice, verdict and headline, the table's engine and GiB columns),
the answer column fits a 390 px phone, the "what fits" header stays in view without a scroll box of its own, and
"Show the answer" brings the answer into view. Screenshots at desktop and phone size, light and dark, go to
tests/output/screens/ (git-ignored) for a person to look at."""

import json
from urllib.parse import urlencode

import pytest

from selector.api import answer
from test_browser_answer import fmt_int, fmt_num
from test_browser_tables import shot

pytestmark = pytest.mark.browser

READY = "#selector-result[data-state=ready]"
NO_PREFERENCE = {"model": "qwen3-32b", "gpu": "rtx-4090"}
DESKTOP_8GB = {"model": "llama-3.1-8b", "quantization": "gguf-q4-k-m", "gpu_memory_gb": 8}
NEEDS_RAM = {"model": "deepseek-r1", "quantization": "fp8", "gpu": "rtx-4090"}
EIGHT_H200 = {"model": "deepseek-r1", "quantization": "fp8", "gpu": "h200", "gpus": 8}

SHOWN = """
() => {
  const o = document.getElementById('selector-result');
  const text = (n) => n ? n.textContent.trim() : null;
  const head = o.querySelector(':scope > .iem-headline');
  return {
    response: o.__result,
    lead: text(o.querySelector('.iem-lead')),
    headline: text(head), verdict: head ? head.dataset.fits : null,
    rows: [...o.querySelectorAll('#fit-table tbody tr')].map((tr) => [...tr.children].map(text)),
    summary: Object.fromEntries([...o.querySelectorAll('table.iem-fit tr')].map((tr) => [text(tr.querySelector('th')), text(tr.querySelector('td'))])),
    others: [...o.querySelectorAll('.iem-other-engines li')].map((li) => li.dataset.otherEngine),
    speedNotes: [...o.querySelectorAll('.iem-speed-notes li')].map(text),
  };
}
"""


def open_fit(pg, answers):
    pg.goto(pg.base + "fit/?" + urlencode(answers))
    pg.wait_for_selector(READY, timeout=60000)


@pytest.mark.parametrize("answers", [NO_PREFERENCE, DESKTOP_8GB, NEEDS_RAM, EIGHT_H200],
                         ids=["no-preference", "desktop-8gb", "needs-ram", "8x-h200"])
def test_fit_page_shows_the_new_keys_as_cpython_computes_them(page, catalog, answers):
    open_fit(page, answers)
    shown = page.evaluate(SHOWN)
    expected = json.loads(json.dumps(answer(catalog, "fit", answers), sort_keys=True))
    assert shown["response"] == expected
    fit = expected["result"]
    for key in ("quantization_choice", "verdict", "headline", "weights_gib", "kv_cache_gib", "overhead_gib"):
        assert key in fit, key
    choice = fit["quantization_choice"]
    assert shown["lead"] == (choice["text"] if choice else None)
    assert shown["headline"] == fit["headline"] and shown["verdict"] == fit["verdict"]
    assert shown["summary"]["Weights"] == f"{fmt_num(fit['weights_gib'], 2)} GiB (checkpoint {fmt_num(fit['weights_gb'], 2)} GB)"
    assert shown["summary"]["KV cache for the load asked"] == f"{fmt_num(fit['kv_cache_gib'], 2)} GiB"
    assert shown["summary"]["Runtime reserve"] == f"{fmt_num(fit['overhead_gib'], 2)} GiB"
    assert len(shown["rows"]) == len(fit["table"])
    for cells, row in zip(shown["rows"], fit["table"]):
        assert cells[0] == row["name"] + row["kv_name"] + (row["engine_name"] or "–")
        assert cells[1] == fmt_num(row["weights_gib"], 1)
        assert cells[2] == ("yes" if row["fits"] else "offload" if row["fits_with_offload"] else "no")
        assert cells[3] == fmt_int(row["max_sequences"]) and cells[4] == fmt_int(row["max_context_tokens"])
    assert shown["others"] == [e["engine"] for e in fit["engines"]]
    speed = fit["speed"]
    assert shown["speedNotes"] == [speed[k]["text"] for k in ("typical", "communication", "measured") if speed.get(k)]
    assert not page.errors


def test_fit_page_shows_the_replica_layout(page, catalog):
    """16 H100s for Llama 3.3 70B (8 KV heads): the page says 2 copies of a TP 8 group, as CPython plans it."""
    answers = {"model": "llama-3.3-70b", "gpu": "h100-sxm", "gpus": 16, "concurrency": 500}
    open_fit(page, answers)
    shown = page.evaluate(SHOWN)
    fit = answer(catalog, "fit", answers)["result"]
    assert fit["layout"] == {"tensor_parallel": 8, "replicas": 2}
    assert shown["headline"] == fit["headline"] and "2 copies of 8 ×" in shown["headline"]
    assert shown["summary"]["GPU layout"] == "2 copies of a tensor-parallel group of 8 GPUs"
    assert not page.errors


def test_no_preference_leads_with_the_4_bit_answer(page, catalog):
    open_fit(page, NO_PREFERENCE)
    shown = page.evaluate(SHOWN)
    assert shown["lead"].startswith("No quantization asked: GGUF Q4_K_M")
    assert shown["headline"].startswith("Fits on 1 × NVIDIA GeForce RTX 4090")
    names = {r[0] for r in shown["rows"]}
    assert not any(n.startswith(("MLX", "NVFP4")) for n in names), names
    assert "yes" in {r[2] for r in shown["rows"]}


LAYOUT = """
() => {
  const o = document.getElementById('selector-result');
  const head = o.querySelector(':scope > .iem-headline');
  const table = document.getElementById('fit-table');
  const boxes = [];
  for (let n = table.parentElement; n && n !== o; n = n.parentElement) {
    const s = getComputedStyle(n);
    if (/(auto|scroll)/.test(s.overflowX + s.overflowY)) boxes.push(n.className || n.tagName);
  }
  return {
    answerRight: o.getBoundingClientRect().right, answerWidth: o.getBoundingClientRect().width,
    headClipped: head.scrollWidth > head.clientWidth + 1,
    tableRight: table.getBoundingClientRect().right,
    brokenWords: [...table.querySelectorAll('th, td span, td')].filter((c) => c.children.length === 0 && c.textContent.trim()
      && c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent).slice(0, 5), tableOverflow: table.scrollWidth > table.parentElement.clientWidth + 1,
    boxes, docOverflow: document.documentElement.scrollWidth > innerWidth + 1,
  };
}
"""

# scroll the answer (its own scroll box on a wide screen, the page on a phone) until the table's middle row is at the top
SCROLL_TABLE = """
(wide) => {
  const o = document.getElementById('selector-result');
  const rows = document.querySelectorAll('#fit-table tbody tr');
  const row = rows[Math.floor(rows.length / 2)];
  if (wide) o.scrollTop += row.getBoundingClientRect().top - o.getBoundingClientRect().top;
  else window.scrollBy(0, row.getBoundingClientRect().top - 60);
}
"""

HEADER_IN_VIEW = """
(wide) => {
  const th = document.querySelector('#fit-table thead th');
  const r = th.getBoundingClientRect();
  const o = document.getElementById('selector-result').getBoundingClientRect();
  const header = document.querySelector('.md-header').getBoundingClientRect();
  const top = wide ? o.top : header.bottom;
  return {top: r.top, limit: top, visible: r.top >= top - 1 && r.bottom <= innerHeight,
          tableTop: document.getElementById('fit-table').getBoundingClientRect().top};
}
"""


@pytest.mark.parametrize("name,answers", [("qwen3-32b-rtx-4090-no-preference", NO_PREFERENCE), ("llama-8b-q4-8gb", DESKTOP_8GB)])
def test_fit_page_layout_and_screenshots(view, name, answers):
    open_fit(view, answers)
    view.evaluate("() => document.fonts.ready")
    layout = view.evaluate(LAYOUT)
    assert layout["answerRight"] <= view.width + 1, layout  # the answer column fits the screen
    assert not layout["headClipped"] and not layout["docOverflow"], layout
    assert not layout["tableOverflow"] and layout["tableRight"] <= view.width + 1, layout
    assert layout["boxes"] == [], layout  # no scroll box of its own inside the answer
    assert layout["brokenWords"] == [], layout
    shot(view, f"fit-{name}")
    wide = view.size == "desktop"
    view.evaluate(SCROLL_TABLE, wide)
    header = view.evaluate(HEADER_IN_VIEW, wide)
    assert header["tableTop"] < header["limit"] and header["visible"], header  # the table is scrolled past, its header stays
    shot(view, f"fit-{name}-table")
    assert not view.errors


def test_show_the_answer_brings_the_answer_into_view_on_a_phone(browser, site_server):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    pg = context.new_page()
    try:
        pg.goto(site_server.url + "fit/?" + urlencode(DESKTOP_8GB))
        pg.wait_for_selector(READY, timeout=60000)
        seq = int(pg.get_attribute("#selector-result", "data-seq"))
        button = pg.locator("#selector-form button[type=submit]")
        button.scroll_into_view_if_needed()
        assert pg.evaluate("() => document.getElementById('selector-result').getBoundingClientRect().bottom") < 0
        button.click()
        pg.wait_for_function("(b) => Number(document.getElementById('selector-result').dataset.seq) > b", arg=seq)
        pg.wait_for_function("() => { const r = document.getElementById('selector-result').getBoundingClientRect();"
                             " return r.top >= 0 && r.top < innerHeight / 2; }", timeout=5000)
    finally:
        context.close()
