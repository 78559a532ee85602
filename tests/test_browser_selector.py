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


def result_of(page):
    return page.evaluate("() => { const o = document.getElementById('selector-result'); "
                         "return {state: o.dataset.state, response: o.__result, seq: Number(o.dataset.seq || 0), "
                         "engines: [...o.querySelectorAll('[data-engine]')].map(e => e.dataset.engine)}; }")


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
        "scale", "need", "hardware", "weights", "quantization", "model", "gpus", "gpu_memory_gb", "ram_gb",
        "context_tokens", "concurrency", "workload", "priority"} for k in a) and case["kind"] != "invalid"


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
        assert got["engines"] == [c["engine"] for c in expected["result"]["candidates"]], case["id"]
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
    assert set(visible) == {"", "one-command", "edge-cpu", "prototype", "huge-moe-low-vram"}
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


def test_worker_keeps_main_thread_free_and_only_own_origin(browser, site_server):
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(LONGTASKS)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(site_server.url + "selector/")
    page.wait_for_selector("#selector-result[data-state=ready]", timeout=30000)
    longest = page.evaluate("Math.max(0, ...window.__longtasks)")
    context.close()
    assert longest < 300, f"main thread blocked {longest:.0f} ms"   # the budget (100 ms) is checked by `make bench`
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
    {"model": "gpt-oss-120b", "quantization": "mxfp4", "gpus": 1, "gpu_memory_gb": 80},
    {"model": "deepseek-r1", "quantization": "gguf-q4-k-m", "gpus": 1, "gpu_memory_gb": 24, "ram_gb": 512},
    {"model": "llama-3.1-70b", "gpus": 2, "gpu_memory_gb": 48, "context_tokens": 32768, "concurrency": 4},
    {"model": "qwen3-8b", "gpu_memory_gb": 24},
]


def test_fit_page_matches_cpython(page, catalog):
    open_page(page, "fit/?" + urlencode(FIT_CASES[0]))
    got = result_of(page)
    assert got["response"] == json.loads(json.dumps(answer(catalog, "fit", FIT_CASES[0]), sort_keys=True))
    assert page.locator("table[data-fits=gpu]").count() == 1
    for case in FIT_CASES[1:]:
        got = submit(page, case)
        assert got["response"] == json.loads(json.dumps(answer(catalog, "fit", case), sort_keys=True)), case
    got = submit(page, {"model": "qwen3-8b"})
    assert got["state"] == "error" and got["response"]["error"]["key"] == "gpu_memory_gb"
