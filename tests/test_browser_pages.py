"""Content-page widgets in Chromium: the compare view and the Mermaid tree after instant navigation."""

import pytest

pytestmark = pytest.mark.browser


def visible_columns(page):
    return page.eval_on_selector_all("#compare-table thead th[data-col]:not([hidden])", "ths => ths.map(t => t.dataset.col)")


def test_compare_view_from_url_and_picker(page):
    page.goto(page.base + "compare/?engines=vllm,sglang")
    page.wait_for_selector("#compare-form[data-mounted]")
    assert sorted(visible_columns(page)) == ["sglang", "vllm"]
    page.check('#compare-form input[value="lmdeploy"]')
    assert sorted(visible_columns(page)) == ["lmdeploy", "sglang", "vllm"]
    assert "engines=" in page.url and "lmdeploy" in page.url
    for engine in ("vllm", "sglang", "lmdeploy"):
        page.uncheck(f'#compare-form input[value="{engine}"]')
    assert len(visible_columns(page)) == page.locator("#compare-form input").count()  # none picked: all shown


def test_widgets_mount_after_instant_navigation(page):
    page.goto(page.base)
    page.get_by_role("navigation").get_by_text("Compare", exact=True).first.click()
    page.wait_for_url("**/compare/")
    page.wait_for_selector("#compare-form[data-mounted]")
    page.get_by_role("navigation").get_by_text("Decision tree", exact=True).first.click()
    page.wait_for_url("**/tree/")
    page.wait_for_selector('[data-diagram][data-rendered="1"] svg', timeout=20000)
    assert not page.errors
