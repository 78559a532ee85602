"""Launch commands in Chromium: the selector's candidates, /fit/ and the engine pages show the command CPython
writes, with the engine version, and the copy button puts exactly that command on the clipboard."""

from urllib.parse import urlencode

import pytest

from macros.views.engines import launch_setups
from selector.api import answer
from test_browser_selector import open_page

pytestmark = pytest.mark.browser

SHOWN = """
() => [...document.querySelectorAll('#selector-result .iem-launch')].map((b) => ({
  engine: b.closest('[data-engine]') ? b.closest('[data-engine]').dataset.engine : null,
  command: b.querySelector('.iem-launch-command') ? b.querySelector('.iem-launch-command').textContent : null,
  version: b.querySelector('.iem-launch-version') ? b.querySelector('.iem-launch-version').textContent : null,
  why: b.querySelector('.iem-launch-why') ? b.querySelector('.iem-launch-why').textContent : null,
  notes: [...b.querySelectorAll('.iem-launch-notes li')].map((li) => li.textContent)}))
"""

FIT = {"model": "qwen3-32b", "quantization": "fp8", "gpu": "h100-sxm", "gpus": 2, "engine": "vllm", "context_tokens": 32768,
       "kv_cache": "kv-fp8", "memory_fraction": 0.85}
SELECT = {"scale": "local", "model": "qwen3-8b", "quantization": "gguf-q4-k-m", "gpu_memory_gb": 8, "context_tokens": 8192}
# a latency answer: vLLM's --speculative-config JSON (quoted for the shell) and SGLang's EAGLE-3 draft flags
LATENCY = {"scale": "service", "hardware": "nvidia-hopper", "model": "llama-3.1-8b", "gpu": "h100-sxm", "priority": "latency"}


def test_fit_page_shows_cpythons_command(page, catalog):
    open_page(page, "fit/?" + urlencode(FIT))
    shown = page.evaluate(SHOWN)
    expected = answer(catalog, "fit", FIT)["result"]["launch"]
    assert expected["command"] and "--gpu-memory-utilization 0.85" in expected["command"]
    assert len(shown) == 1
    assert shown[0]["command"] == expected["command"]
    assert shown[0]["version"].strip() == f"written for vLLM {expected['engine_version']}"
    assert shown[0]["notes"] == expected["notes"]
    assert not page.errors


@pytest.mark.parametrize("answers", [SELECT, LATENCY], ids=["local-gguf", "latency-speculative"])
def test_selector_candidates_show_cpythons_commands(page, catalog, answers):
    open_page(page, "selector/?" + urlencode(answers))
    shown = page.evaluate(SHOWN)
    result = answer(catalog, "recommend", answers)["result"]
    assert [s["engine"] for s in shown] == [c["engine"] for c in result["candidates"]]
    for got, cand in zip(shown, result["candidates"]):
        launch = cand["launch"]
        assert got["command"] == launch["command"], cand["engine"]
        assert got["notes"] == launch["notes"], cand["engine"]
        if launch["command"] is None:
            assert got["why"] == "No launch command: " + launch["why"]
    assert any(s["command"] for s in shown)
    if answers is LATENCY:
        assert any("--speculative-config '{" in (s["command"] or "") for s in shown)
    assert not page.errors


def test_engine_page_commands_and_copy_button(browser, site_server, catalog):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_server.url.rstrip("/"))
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        for engine in ("llama-cpp", "vllm", "ollama"):
            pg.goto(site_server.url + f"engines/{engine}/")
            expected = [s["command"] for s in launch_setups(catalog, engine)["setups"]]
            shown = pg.eval_on_selector_all(".iem-launch-command", "(els) => els.map((e) => e.textContent)")
            assert shown == expected and expected
        button = pg.locator(".iem-launch .iem-copy").first
        button.click()
        pg.wait_for_function("() => document.querySelector('.iem-launch .iem-copy').dataset.copied !== undefined")
        assert pg.evaluate("document.querySelector('.iem-launch .iem-copy').dataset.copied") == "1"
        assert pg.evaluate("navigator.clipboard.readText()") == expected[0]
        assert pg.text_content(".iem-launch .iem-copy-status") == "Copied to the clipboard."
        assert not errors
    finally:
        context.close()
