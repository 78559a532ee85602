"""The selector and fit pages in headless Chromium against the built site: the whole case table goes
through the page's form and worker, and every answer must equal CPython's JSON for the same input."""

import json
from urllib.parse import urlencode

import pytest

from cases_lib import check_result, load_cases
from selector.api import answer

pytestmark = pytest.mark.browser
READY = "#selector-result[data-state=ready], #selector-result[data-state=error]"

LONGTASKS = """
window.__longtasks = [];
try {
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longtasks.push(e.duration); })
    .observe({ type: "longtask", buffered: true });
} catch (e) {}
"""

FILL = """
([answers]) => {
  const form = document.getElementById("selector-form");
  for (const field of form.elements) {
    if (!field.name) continue;
    const v = answers[field.name];
    if (field.type === "checkbox") field.checked = Array.isArray(v) && v.includes(field.value);
    else field.value = v === undefined ? "" : String(v);
  }
  const out = document.getElementById("selector-result");
  const before = Number(out.dataset.seq || 0);
  form.dispatchEvent(new Event("change", { bubbles: true }));
  return before;
}
"""


def open_page(page, path, wait=True):
    page.goto(page.base + path)
    if wait:
        page.wait_for_selector(READY, timeout=30000)


RENDERED = """
() => {
  const o = document.getElementById('selector-result');
  const text = (n) => n ? n.textContent.trim() : null;
  const reasons = (ul) => [...ul.querySelectorAll(':scope > li')].map((li) => ({
    text: text(li.querySelector('.iem-reason-text')), points: Number(li.dataset.points), kind: li.dataset.kind,
    source: li.querySelector('a.iem-cite') ? li.querySelector('a.iem-cite').getAttribute('href') : null}));
  return {
    state: o.dataset.state, response: o.__result, seq: Number(o.dataset.seq || 0),
    engines: [...o.querySelectorAll('[data-engine]')].map((e) => e.dataset.engine),
    cards: [...o.querySelectorAll('[data-engine]')].map((c) => ({engine: c.dataset.engine, fallback: c.dataset.fallback === '1',
      reasons: reasons(c.querySelector('ul.iem-reasons')),
      measured: [...c.querySelectorAll('ul.iem-measured > li')].map((li) => text(li.querySelector('.iem-measured-text'))),
      companions: [...c.querySelectorAll('ul.iem-companions > li')].map((li) => li.dataset.companion),
      fit: text(c.querySelector('.iem-cand-fit-text'))})),
    excluded: [...o.querySelectorAll('[data-excluded]')].map((li) => ({engine: li.dataset.excluded, reasons: reasons(li.querySelector('ul'))})),
    warnings: [...o.querySelectorAll('#selector-warnings li')].map(text),
    suggestions: [...o.querySelectorAll('.iem-suggestions li')].map(text),
    path: [...o.querySelectorAll('.iem-path > li')].map((li) => li.dataset.node),
    headline: text(o.querySelector('.iem-headline')),
  };
}
"""


def result_of(page):
    return page.evaluate(RENDERED)


def rendered_from_json(result):
    """What the page must show for a recommend() result: every candidate in order with every reason, points and
    source; every exclusion with its reasons; every warning and suggestion; the tree path."""
    def reasons(rs):
        return [{"text": r["text"], "points": r["points"], "kind": r["kind"], "source": (r["source"] or {}).get("url")} for r in rs]
    return {
        "cards": [{"engine": c["engine"], "fallback": c["fallback"], "reasons": reasons(c["reasons"]),
                   "measured": [m["text"] for m in c["measured"]], "companions": [x["engine"] for x in c["companions"]],
                   "fit": c["fit_line"]} for c in result["candidates"]],
        "excluded": [{"engine": x["engine"], "reasons": reasons(x["reasons"])} for x in result["excluded"]],
        "warnings": result["warnings"],
        "suggestions": [s["text"] for s in result["suggestions"]],
        "path": [step["id"] for step in result["path"]],
    }


def submit(page, answers):
    before = page.evaluate(FILL, [answers])
    wait_seq(page, before)
    return result_of(page)


def wait_seq(page, before, timeout=15000):
    page.wait_for_function("(b) => Number(document.getElementById('selector-result').dataset.seq || 0) > b",
                           arg=before, timeout=timeout)


def form_expressible(case):
    a = case["answers"]
    return isinstance(a, dict) and "scale" in a and all(k in {
        "scale", "need", "hardware", "weights", "quantization", "model", "gpu", "gpus", "gpu_memory_gb", "memory", "ram_gb",
        "kv_cache", "context_tokens", "concurrency", "workload", "priority"} for k in a) and case["kind"] != "invalid"


def test_whole_case_table_through_the_form_matches_cpython(page, catalog):
    open_page(page, "selector/")
    cases = [c for c in load_cases() if form_expressible(c)]
    assert len(cases) >= 25
    for case in cases:
        got = submit(page, case["answers"])
        expected = json.loads(json.dumps(answer(catalog, "recommend", case["answers"]), sort_keys=True))
        assert got["state"] == "ready", (case["id"], got)
        assert got["response"] == expected, case["id"]
        check_result(got["response"]["result"], case["expect"])
        shown = {k: got[k] for k in ("cards", "excluded", "warnings", "suggestions", "path")}
        assert shown == rendered_from_json(expected["result"]), case["id"]
    assert not page.errors


def test_invalid_inputs_through_the_worker_match_cpython(page, catalog):
    open_page(page, "selector/")
    for case in load_cases(("invalid",)):
        got = page.evaluate("([a]) => window.iem.ask('recommend', a)", [case["answers"]])
        assert got == json.loads(json.dumps(answer(catalog, "recommend", case["answers"]), sort_keys=True)), case["id"]
        assert got["ok"] is False and got["error"]["key"] == case["error"]["key"]


def test_bad_query_shows_a_message_not_a_traceback(page):
    open_page(page, "selector/?scale=service&hardware=nvidia-hoper")
    got = result_of(page)
    assert got["state"] == "error"
    text = page.inner_text("#selector-result")
    assert "did you mean 'nvidia-hopper'" in text and "Traceback" not in text


def test_url_query_reproduces_an_answer_and_inputs_update_the_url(page, catalog):
    answers = {"scale": "service", "need": "moe-prefix", "hardware": "nvidia-hopper", "workload": ["shared-prefix"]}
    open_page(page, "selector/?" + urlencode({**answers, "workload": "shared-prefix"}))
    got = result_of(page)
    assert got["response"] == json.loads(json.dumps(answer(catalog, "recommend", answers), sort_keys=True))
    assert got["engines"][0] == "sglang"
    assert page.eval_on_selector("#q-need", "e => e.value") == "moe-prefix"
    before = got["seq"]
    page.select_option("#q-hardware", "amd-instinct-cdna3")
    wait_seq(page, before)
    assert "hardware=amd-instinct-cdna3" in page.url
    assert "tensorrt-llm" not in result_of(page)["engines"]


def test_need_options_follow_scale(page):
    open_page(page, "selector/?scale=local")
    visible = page.eval_on_selector_all("#q-need option:not([hidden])", "os => os.map(o => o.value)")
    assert set(visible) == {"", "one-command", "edge-cpu", "prototype", "huge-moe-low-vram", "mlx-weights"}
    page.select_option("#q-scale", "service")
    visible = page.eval_on_selector_all("#q-need option:not([hidden])", "os => os.map(o => o.value)")
    assert "moe-prefix" in visible and "edge-cpu" not in visible


def test_candidates_link_to_engine_pages_and_tree_path_highlights(page):
    open_page(page, "selector/?scale=local&need=edge-cpu")
    card = page.locator("[data-engine]").first
    assert card.get_attribute("data-engine") == "llama-cpp"
    card.locator("h3 a").click()
    page.wait_for_url("**/engines/llama-cpp/")
    open_page(page, "selector/?scale=local&need=edge-cpu")
    page.locator(".iem-path li").last.locator("a").click()
    page.wait_for_url("**/tree/#tree-local-edge-cpu")
    page.wait_for_selector("#tree-local-edge-cpu.iem-highlight, #tree-local-edge-cpu:target")


def test_runtime_runs_in_a_worker_from_this_origin_only(browser, site_server):
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(LONGTASKS)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(site_server.url + "selector/")
    page.wait_for_selector("#selector-result[data-state=ready]", timeout=30000)
    worker_started = page.evaluate("() => performance.getEntriesByType('resource').some(e => e.name.includes('selector-worker'))")
    context.close()
    # Pyodide loads in a module worker, never on the page (its timing budget is `make bench`'s, not a test's)
    assert worker_started
    assert any(u.endswith("pyodide.asm.wasm") for u in requests)
    assert all(u.startswith(site_server.url) for u in requests), [u for u in requests if not u.startswith(site_server.url)]


def test_instant_navigation_away_and_back_keeps_the_worker(page):
    open_page(page, "selector/?scale=local")
    page.get_by_role("navigation").get_by_text("Overview", exact=True).first.click()
    page.wait_for_url("**/overview/")
    page.get_by_role("navigation").get_by_text("Selector", exact=True).first.click()
    page.wait_for_url("**/selector/**")
    page.wait_for_selector("#selector-result[data-state=ready]", timeout=10000)
    wasm = [u for u in page.requests if u.endswith("pyodide.asm.wasm")]
    assert len(wasm) == 1, "Pyodide was loaded again after instant navigation"
    assert result_of(page)["engines"]


FIT_CASES = [
    {"model": "gpt-oss-120b", "quantization": "mxfp4", "gpu": "h100-sxm"},
    {"model": "deepseek-r1", "quantization": "gguf-q4-k-m", "gpu": "rtx-4090", "ram_gb": 512, "engine": "ktransformers"},
    {"model": "llama-3.1-70b", "gpus": 2, "gpu_memory_gb": 48, "context_tokens": 32768, "concurrency": 4},
    {"model": "qwen3-32b", "quantization": "bf16", "gpu_memory_gb": 36, "memory": "unified"},
    {"model": "qwen3-30b-a3b", "quantization": "gguf-q4-k-m", "memory": "cpu", "ram_gb": 64, "ram_bandwidth_gbs": 89.6},
    {"model": "qwen3-32b", "quantization": "fp8", "gpu": "h100-sxm", "kv_cache": "kv-fp8", "context_tokens": 32768, "concurrency": 16},
]


def test_fit_page_matches_cpython(page, catalog):
    open_page(page, "fit/?" + urlencode(FIT_CASES[0]))
    got = result_of(page)
    expected = json.loads(json.dumps(answer(catalog, "fit", FIT_CASES[0]), sort_keys=True))
    assert got["response"] == expected
    assert got["headline"].startswith("Fits on 1 × NVIDIA H100")
    assert page.locator(".iem-bar-part").count() >= 3
    assert page.locator("#fit-table tbody tr").count() == len(expected["result"]["table"])
    for case in FIT_CASES[1:]:
        got = submit(page, case)
        expected = json.loads(json.dumps(answer(catalog, "fit", case), sort_keys=True))
        assert got["response"] == expected, case
        assert got["headline"] == page.evaluate("() => document.querySelector('#selector-result .iem-headline').textContent.trim()")
    assert not page.errors


def test_fit_page_asks_before_it_answers(page):
    """No red error on a fresh page: a prompt until a model is chosen, then the answer."""
    page.goto(page.base + "fit/")
    page.wait_for_selector("#selector-result[data-state=prompt]", timeout=30000)
    assert page.locator("#selector-result .iem-error").count() == 0
    assert "Choose a model" in page.inner_text("#selector-result")
    page.select_option("#q-model", "qwen3-8b")
    page.wait_for_selector("#selector-result[data-state=error]", timeout=30000)
    text = page.inner_text("#selector-result .iem-error")
    assert text.startswith("GPU or machine:") and "gpu_memory_gb" not in text
    assert page.eval_on_selector("#q-gpu", "e => e.getAttribute('aria-invalid')") == "true"
    assert page.evaluate("() => document.activeElement && document.activeElement.id") == "q-gpu"
    page.select_option("#q-gpu", "rtx-4090")
    page.wait_for_selector("#selector-result[data-state=ready]", timeout=30000)
    assert page.eval_on_selector("#q-gpu", "e => e.hasAttribute('aria-invalid')") is False
    # the picked GPU brings its memory: the typed field is off and shows the GPU's figure
    assert page.eval_on_selector("#q-gpu_memory_gb", "e => [e.disabled, e.placeholder]") == [True, "24"]
    assert "gpu=rtx-4090" in page.url and "model=qwen3-8b" in page.url


def test_fit_field_errors_are_words_and_highlighted(page):
    open_page(page, "fit/?model=qwen3-8b&gpu_memory_gb=-4")
    assert page.inner_text("#selector-result .iem-error").startswith("Memory per GPU (GiB): ")
    assert page.eval_on_selector("#q-gpu_memory_gb", "e => e.getAttribute('aria-invalid')") == "true"
    assert page.locator(".iem-field-error #q-gpu_memory_gb").count() == 1


def test_tracking_parameters_and_strict_numbers_in_links(page, catalog):
    open_page(page, "selector/?scale=service&utm_source=newsletter&fbclid=abc&gclid=x")
    got = result_of(page)
    assert got["state"] == "ready" and got["response"]["result"]["answers"] == {**answer(catalog, "recommend", {"scale": "service"})["result"]["answers"]}
    assert "utm_source" not in page.url and "fbclid" not in page.url
    open_page(page, "fit/?model=qwen3-8b&gpu=h100-sxm&gpus=1e400")
    got = result_of(page)
    assert got["state"] == "error" and got["response"]["error"]["key"] == "gpus" and "1e400" in got["response"]["error"]["message"]
    open_page(page, "fit/?model=qwen3-8b&gpu_memory_gb=0x10")
    assert result_of(page)["response"]["error"]["key"] == "gpu_memory_gb"


def test_answer_region_is_in_view_on_desktop(page):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_page(page, "selector/?scale=service")
    top = page.eval_on_selector("#selector-result", "e => e.getBoundingClientRect().top")
    assert top < 900 * 0.6, top
    first = page.eval_on_selector("#selector-result [data-engine]", "e => e.getBoundingClientRect().top")
    assert first < 900, first


def test_a_late_runtime_ends_with_the_full_answer(browser, built_site):
    """The wasm arrives 20 s late: the tree's answer shows meanwhile, the page says it is still loading, and the
    full answer replaces it; never "could not start"."""
    import time
    from sitesrv import Server

    def late_wasm(handler):
        if handler.path.split("?")[0].endswith("pyodide.asm.wasm"):
            time.sleep(20)
        return False  # then serve it as usual

    with Server(built_site, fault=late_wasm) as server:
        context = browser.new_context()
        page = context.new_page()
        page.goto(server.url + "selector/?scale=service&need=moe-prefix")
        page.wait_for_selector(".iem-preview-leaf[data-preview-need=moe-prefix]:not([hidden])", timeout=10000)
        assert "SGLang" in page.inner_text(".iem-preview")
        page.wait_for_function("() => document.querySelector('.iem-loading-text').textContent.includes('still loading')",
                               timeout=25000)
        assert page.eval_on_selector("#selector-result", "e => e.dataset.state") == "loading"
        page.wait_for_selector("#selector-result[data-state=ready]", timeout=60000)
        assert result_of(page)["engines"][0] == "sglang"
        assert page.locator("#selector-result .iem-error").count() == 0
        context.close()


def test_candidate_fit_links_to_the_planner_and_back(page, catalog):
    """Each candidate's fit line links to /fit/ with the same answers and its engine; /fit/ shows that engine's answer
    (the same JSON as the candidate's fit) and links back to the selector with the shared answers."""
    open_page(page, "selector/")
    answers = {"scale": "service", "model": "llama-3.3-70b", "gpu": "h100-sxm", "gpus": 8}
    got = submit(page, answers)
    cand = got["response"]["result"]["candidates"][1]
    href = page.locator(f'[data-engine="{cand["engine"]}"] .iem-cand-fit a').get_attribute("href")
    assert "/fit/?" in href and f"engine={cand['engine']}" in href
    page.goto(href)
    page.wait_for_function("() => document.getElementById('selector-result').dataset.state === 'ready'", timeout=60000)
    shown = page.evaluate("() => document.getElementById('selector-result').__result")
    fit = shown["result"]
    fit.pop("table")
    # /fit/ shows the launch command beside its answer, as the candidate carries it beside its fit
    assert fit.pop("launch") == json.loads(json.dumps(cand["launch"], sort_keys=True))
    assert fit == json.loads(json.dumps(cand["fit"], sort_keys=True))
    back = page.locator("#fit-to-selector").get_attribute("href")
    assert "/selector/?" in back and "model=llama-3.3-70b" in back and "gpu=h100-sxm" in back
