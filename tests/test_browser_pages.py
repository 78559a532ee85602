"""Content-page widgets in Chromium: the compare view, and widgets after instant navigation."""

import pytest

pytestmark = pytest.mark.browser


def visible_columns(page):
    return page.eval_on_selector_all("#compare-table thead th[data-col]:not([hidden])", "ths => ths.map(t => t.dataset.col)")


def test_compare_view_from_url_and_picker(page):
    page.goto(page.base + "compare/?engines=vllm,sglang")
    page.wait_for_selector("#compare-form[data-mounted]")
    assert visible_columns(page) == ["vllm", "sglang"]
    page.select_option("#compare-add", "lmdeploy")
    assert visible_columns(page) == ["vllm", "sglang", "lmdeploy"]
    assert "engines=vllm,sglang,lmdeploy" in page.url
    for engine in ("vllm", "sglang", "lmdeploy"):
        page.click(f'#compare-table [data-remove="{engine}"]')
    # none picked: all shown
    assert len(visible_columns(page)) == page.locator("#compare-add option[value]:not([value=''])").count()


def test_widgets_mount_after_instant_navigation(page):
    page.goto(page.base)
    page.get_by_role("navigation").get_by_text("Compare", exact=True).first.click()
    page.wait_for_url("**/compare/")
    page.wait_for_selector("#compare-form[data-mounted]")
    page.get_by_role("navigation").get_by_text("Decision tree", exact=True).first.click()
    page.wait_for_url("**/tree/")
    page.wait_for_selector(".iem-diagram .iem-tree-svg")
    assert not page.errors


@pytest.mark.parametrize("path", ["matrix/", "results/", "tiers/l2/"])
def test_search_works_on_the_table_pages_at_once(page, path):
    """Material's bundle runs on every page as it loads (it once waited for the first interaction here)."""
    page.goto(page.base + path, wait_until="load")
    page.wait_for_selector(".md-search[data-md-component=search]")
    page.keyboard.press("s")  # Material's shortcut
    page.locator("[data-md-component=search-query]").wait_for(state="visible")
    page.keyboard.type("vllm")
    page.wait_for_selector(".md-search-result__item", timeout=10000)
    assert not page.errors, page.errors
