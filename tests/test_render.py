"""Each renderer on a tiny catalog: structure, links, citations and escaping."""

import re

import pytest

from macros import render
from macros.html import esc, md_text, rel
from mini import mini_catalog


@pytest.fixture()
def cat():
    return mini_catalog()


def test_rel_links():
    assert rel("", "engines/vllm/") == "engines/vllm/"
    assert rel("overview/", "engines/vllm/") == "../engines/vllm/"
    assert rel("engines/vllm/", "engines/sglang/") == "../sglang/"
    assert rel("engines/vllm/", "tree/#tree-x") == "../../tree/#tree-x"
    assert rel("tiers/l1/", "tiers/l1/") == "./"


def test_escaping_helpers():
    assert esc('<a href="x">') == "&lt;a href=&quot;x&quot;&gt;"
    assert "\\*" in md_text("*bold*") and "&lt;" in md_text("<i>")


def test_overview_table(cat):
    html = render.overview_table(cat, "overview/")
    assert html.count("<tr>") == 3  # header + two engines
    assert 'href="../engines/alpha/"' in html and "Team &amp; Co" in html
    assert "maintenance since 2025-01-01" in html


def test_feature_and_support_grids(cat):
    html = render.feature_table(cat, "overview/")
    assert html.count("iem-yes") == 24 and "OpenAI-compatible API" in html
    fmt = render.format_table(cat, "formats/")
    assert "iem-partial" in fmt and 'title="beta"' in fmt
    hw = render.hardware_table(cat, "overview/")
    assert "GPU X" in hw


def test_citation_is_escaped_link(cat):
    html = render.feature_table(cat, "overview/")
    assert 'href="https://example.org/docs"' in html
    assert "Docs &lt;b&gt;" in html and "Docs <b>" not in html


def test_quant_tables(cat):
    ref = render.quant_reference(cat, "quantization/")
    assert "GPU X" in ref and "none (stored, computed wider)" in ref
    grid = render.quant_engine_table(cat, "quantization/")
    assert grid.count("<small>GPU X</small>") == 2


def test_gpu_and_model_tables(cat):
    assert "3350 GB/s" in render.gpu_table(cat, "quantization/")
    assert "GQA, 8 KV heads × 128" in render.model_table(cat, "models/")


def test_engine_page(cat):
    md = render.engine_page(cat, "beta", "engines/beta/")
    for heading in ("## When to pick it", "## Serving features", "## Hardware", "## Quantization", "## Headline figures", "## Milestones", "## Sources"):
        assert heading in md
    assert "vendor-reported" in md and "2x faster" in md
    assert 'href="../alpha/"' in md  # successor link
    assert "admonition warning" in md


def test_tier_page(cat):
    md = render.tier_page(cat, "L2", "tiers/l2/")
    assert "## Alpha" in md and "## Beta" in md and "Common mistake" in md
    assert "## Side by side" in md


def test_trends(cat):
    md = render.trends(cat, "trends/")
    assert "## Trend T" in md and "point one" in md and 'href="../engines/alpha/"' in md


def test_matrix_has_rationale_on_hover_and_footnotes(cat):
    md = render.matrix(cat, "matrix/")
    assert 'title="fast kernels"' in md
    assert re.search(r'id="m1".*fast kernels', md, re.S)
    assert "●●●●○" in md and "●●○○○" in md


def test_tree_list_and_diagram(cat):
    html = render.tree_list(cat, "tree/")
    assert 'id="tree-svc-d"' in html and "(default)" in html and "Beta is retired" in html
    src = render.tree_mermaid_source(cat)
    assert src.startswith("flowchart") and "Alpha" in src
    assert "<" not in src.replace("&lt;", "")


def test_scenarios_link_to_selector_with_answers(cat):
    html = render.scenarios(cat, "scenarios/")
    assert 'href="../selector/?scale=service&amp;workload=w"' in html


def test_sources_and_freshness(cat):
    html = render.sources_table(cat, "sources/")
    assert html.count("https://example.org/docs") >= 5
    stale = render.stale_facts(cat, "freshness/", limit=3)
    assert stale.count("<tr>") == 4
    assert render.source_counts(cat)["official-docs"] > 0


def test_all_figures(cat):
    assert render.all_figures(cat, "figures/").count("2x faster") == 2


def test_compare_has_a_column_per_system_and_a_picker(cat):
    html = render.compare(cat, "compare/")
    assert html.count('<th scope="col" data-col=') == 2
    assert html.count('name="engines"') == 2
    rows = html.count("<tr>") - 1
    assert html.count('data-col="alpha"') == rows + 1  # header cell + one per row
