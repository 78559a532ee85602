"""When the selector's runtime cannot load, the page says so and points at the static decision tree.

Each case breaks one request of the real built site with Playwright's routing (in the page and in the
module worker) and expects, within the page's own time limit: ``#selector-result[data-state=error]``,
a readable message, a link to the decision tree, and no spinner left behind.
"""

import os

import pytest

pytestmark = pytest.mark.browser

ERROR = "#selector-result[data-state=error]"


def _404(route):
    route.fulfill(status=404, content_type="text/plain", body="not found")


def _random_bytes(route):
    route.fulfill(status=200, content_type="application/zip", body=os.urandom(40_000))


def _throwing_worker(route):
    route.fulfill(status=200, content_type="text/javascript",
                  body='throw new Error("worker exploded on purpose");\n')


CASES = {
    # name: (url glob, handler, words the message must contain, time allowed in ms); the runtime sits under
    # folders named by its content hash (assets/pyodide/<hash>/, assets/selector/<hash>/), hence the "*/"
    "pyodide-wasm-404": ("**/assets/pyodide/*/pyodide.asm.wasm", _404, ["pyodide.asm.wasm"], 12000),
    "pyodide-wasm-corrupt": ("**/assets/pyodide/*/pyodide.asm.wasm", _random_bytes, ["pyodide.asm.wasm"], 12000),
    "pyodide-mjs-404": ("**/assets/pyodide/*/pyodide.mjs", _404, ["did not load"], 12000),
    "wheel-corrupt": ("**/assets/selector/*/*.whl", _random_bytes, ["wheel"], 20000),
    "catalog-404": ("**/assets/selector/*/catalog.json", _404, ["catalog", "404"], 20000),
    "manifest-404": ("**/assets/selector/manifest.json", _404, ["manifest", "404"], 20000),
    "worker-throws": ("**/assets/javascripts/selector-worker.js", _throwing_worker, ["worker"], 20000),
}


def _expect_error(page, words, timeout):
    page.wait_for_selector(ERROR, timeout=timeout)
    out = page.locator("#selector-result")
    message = out.locator(".iem-error").inner_text().strip()
    assert len(message) > 25, message
    for bad in ("undefined", "[object", "null.", "Traceback"):
        assert bad not in message, message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    tree = out.locator("a[href$='/tree/']")
    assert tree.count() == 1 and tree.inner_text().strip() == "decision tree"
    assert out.get_attribute("aria-busy") == "false"
    assert out.locator("progress, .iem-loading").count() == 0, "the loading spinner is still there"
    # the state stays put: no late success or second error overwrites it
    page.wait_for_timeout(500)
    assert out.get_attribute("data-state") == "error"
    return message


@pytest.mark.parametrize("case", sorted(CASES))
def test_runtime_failure_shows_error_and_tree_link(page, case):
    glob, handler, words, timeout = CASES[case]
    hits = []
    page.context.route(glob, lambda route: (hits.append(route.request.url), handler(route)))
    page.goto(page.base + "selector/", wait_until="load")
    message = _expect_error(page, words, timeout)
    assert hits, f"{glob} was never requested"
    print(f"\n{case}: {message}")
    # the link leads to the static tree, which works without the runtime
    page.locator("#selector-result a[href$='/tree/']").click()
    page.wait_for_selector("#tree-local, [data-node]", timeout=10000)
    assert "/tree/" in page.url


def test_fit_page_fails_the_same_way(page):
    page.context.route("**/assets/pyodide/*/pyodide.asm.wasm", _404)
    page.goto(page.base + "fit/?model=qwen3-8b&gpu_memory_gb=24", wait_until="load")
    _expect_error(page, ["pyodide.asm.wasm"], 12000)


def test_answer_after_failure_still_reports_error(page):
    """Changing an answer once the runtime has failed gives the same error at once, not a new spinner."""
    page.context.route("**/assets/selector/*/catalog.json", _404)
    page.goto(page.base + "selector/", wait_until="load")
    _expect_error(page, ["catalog"], 20000)
    page.select_option("#q-scale", "local")
    page.wait_for_timeout(300)
    _expect_error(page, ["catalog"], 2000)
