"""Renderers on a tiny catalog: the data they return, and the markup their templates make of it."""

from html.parser import HTMLParser
import re

import pytest

from macros import forms, views
from macros.templating import rel, render
from mini import mini_catalog


@pytest.fixture()
def cat():
    return mini_catalog()


def table_html(t, page="overview/"):
    return render("table.html", page, t=t, empty="")


def cell_text(cell):
    """The visible text of a cell (a list of parts), for assertions on data."""
    out = []
    for p in cell:
        for key in ("text", "strong", "small", "warn", "unknown", "span", "sep"):
            if key in p:
                out.append(str(p[key]))
        if "link" in p:
            out.append(p["link"]["text"])
        if "ext" in p:
            out.append(p["ext"]["text"])
        if "fact" in p:
            out.append(p["fact"]["value"])
    return " ".join(out)


def test_rel_links():
    assert rel("", "engines/vllm/") == "engines/vllm/"
    assert rel("overview/", "engines/vllm/") == "../engines/vllm/"
    assert rel("engines/vllm/", "engines/sglang/") == "../sglang/"
    assert rel("engines/vllm/", "tree/#tree-x") == "../../tree/#tree-x"
    assert rel("tiers/l1/", "tiers/l1/") == "./"


def test_overview_rows_are_data(cat):
    t = views.tables.overview_table(cat)
    assert [cell_text(r[0]) for r in t["rows"]] == ["Alpha", "Beta"]
    beta = t["rows"][1]
    assert beta[0] == [{"link": {"href": "engines/beta/", "text": "Beta"}}]
    assert cell_text(beta[5]) == "⚠ maintenance since 2025-01-01"
    assert cell_text(beta[3]) == "Team & Co"


def test_overview_markup_links_relative_and_escapes(cat):
    html = table_html(views.tables.overview_table(cat))
    assert html.count("<tr>") == 3  # header + two engines
    assert 'href="../engines/alpha/"' in html and "Team &amp; Co" in html
    assert "maintenance since 2025-01-01" in html


def test_feature_grid_cells(cat):
    t = views.grids.feature_table(cat)
    assert len(t["rows"]) == len(views.common.FEATURES) and len(t["headers"]) == 3
    values = [c[0]["fact"]["value"] for row in t["rows"] for c in row[1:]]
    assert values == ["yes"] * 24
    assert t["rows"][0][1][0]["fact"]["cite"]["url"] == "https://example.org/docs"
    html = table_html(t)
    assert html.count("iem-yes") == 24 and "OpenAI-compatible API" in html


def test_support_grids_mark_undocumented_cells(cat):
    fmt = views.grids.format_table(cat)
    assert fmt["rows"][0][1][0]["fact"]["value"] == "partial" and fmt["rows"][0][1][0]["fact"]["note"] == "beta"
    cat.engines["beta"]["formats"] = []
    fmt = views.grids.format_table(cat)
    missing = fmt["rows"][0][2][0]["fact"]
    assert missing["value"] == "unknown" and missing["note"] == "No source found" and missing["cite"] is None
    html = table_html(fmt, "formats/")
    assert 'title="beta"' in html and 'title="No source found"' in html and "iem-unknown" in html
    assert cell_text(views.grids.hardware_table(cat)["rows"][0][0]) == "GPU X"


def test_citation_is_an_escaped_link(cat):
    html = table_html(views.grids.feature_table(cat))
    assert 'href="https://example.org/docs"' in html
    assert "Docs &lt;b&gt;" in html and "Docs <b>" not in html


def test_quant_tables(cat):
    ref = views.tables.quant_reference(cat)
    by_name = {cell_text(r[0][:1]) or r[0][0]["text"]: r for r in ref["rows"]}
    assert cell_text(by_name["Q8"][3]) == "GPU X" and cell_text(by_name["BF"][3]) == "none (stored, computed wider)"
    grid = views.grids.quant_engine_table(cat)
    q8 = next(r for r in grid["rows"] if cell_text(r[0]) == "Q8")
    assert [p for p in q8[1] if "small" in p] == [{"small": "GPU X"}]
    bf = next(r for r in grid["rows"] if cell_text(r[0]) == "BF")
    assert bf[1][0]["fact"]["value"] == "unknown"
    assert table_html(grid, "quantization/").count("<small>GPU X</small>") == 2


def test_gpu_and_model_tables(cat):
    gpu = views.tables.gpu_table(cat)["rows"][0]
    assert cell_text(gpu[2]) == "80 GiB" and cell_text(gpu[4]) == "3350 GB/s"
    assert cell_text(views.tables.model_table(cat)["rows"][0][5]) == "GQA, 8 KV heads × 128"


def test_attention_text_names_layer_kinds():
    model = {"attention": {"type": "gqa", "kv_heads": 8, "head_dim": 64, "layers": {"full": 18, "sliding": 18}, "window": 128}}
    assert views.tables.attention_text(model) == "GQA, 8 KV heads × 64; 18 full, 18 sliding layers (window 128)"


def test_engine_page_sections(cat):
    view = views.engines.engine_page(cat, "beta")
    headings = [s["heading"] for s in view["sections"]]
    assert headings == ["When to pick it", "When not to", "Serving features", "Hardware", "Weight formats", "Quantization",
                        "Headline figures", "Milestones", "Launch commands", "Measured results", "Sources"]
    assert view["head"]["retired"]["successors"] == [{"link": {"href": "engines/alpha/", "text": "Alpha"}}]
    head = render("engine-head.html", "engines/beta/", **view["head"])
    assert "admonition warning" in head and 'href="../alpha/"' in head
    figures = next(s for s in view["sections"] if s["heading"] == "Headline figures")
    html = render(figures["template"], "engines/beta/", **figures["data"])
    assert "vendor-reported" in html and "2x faster" in html


def test_engine_page_macro_makes_markdown_headings_and_placeholders(cat, monkeypatch):
    from macros import sections_markdown, site
    md = sections_markdown(views.engines.engine_page(cat, "beta"), "engines/beta/")
    assert "## When to pick it" in md and "## Sources" in md
    keys = re.findall(r"<!--(iem[0-9a-f]{24})-->", md)
    assert len(keys) == 11
    html = site.unstash(md)
    assert "<!--iem" not in html and "when A" in html


def test_tier_page_follows_the_tree_order(cat):
    view = views.tiers.tier_page(cat, "L2")
    names = [s["heading"] for s in view["sections"] if s["template"] == "tier-engine.html"]
    assert names == ["Alpha", "Beta"]
    cat.tree["branches"][0]["leaves"][0]["engines"] = ["beta"]
    names = [s["heading"] for s in views.tiers.tier_page(cat, "L2")["sections"] if s["template"] == "tier-engine.html"]
    assert names == ["Beta", "Alpha"]
    assert any(s["heading"] == "Side by side" for s in view["sections"])
    choose = next(s for s in view["sections"] if s["heading"] == "Choosing within the tier")
    assert "Common mistake" in render(choose["template"], **choose["data"])


def test_trends(cat):
    view = views.trends.trends(cat)
    sec = view["sections"][0]
    assert sec["heading"] == "Trend T" and cell_text(sec["data"]["points"][0]) == "point one"
    html = render(sec["template"], "trends/", **sec["data"])
    assert 'href="../engines/alpha/"' in html


def test_matrix_has_rationale_on_hover_and_footnotes(cat):
    data = views.matrix.matrix(cat)
    scores = [p["score"]["n"] for row in data["scores"]["rows"] for c in row[1:] for p in c if "score" in p]
    assert scores == [4, 2]
    html = table_html(data["scores"], "matrix/") + table_html(data["notes"], "matrix/")
    assert 'title="fast kernels"' in html
    assert re.search(r'id="m1".*fast kernels', html, re.S)
    assert "●●●●○" in html and "●●○○○" in html


def test_tree_list_and_diagram(cat):
    data = views.tree.tree_list(cat)
    leaf = data["branches"][0]["leaves"][0]
    assert leaf["id"] == "svc-d" and leaf["default"] and data["warnings"] == ["Beta is retired"]
    html = render("tree-list.html", "tree/", **data)
    assert 'id="tree-svc-d"' in html and "(default)" in html and "Beta is retired" in html
    diagram = views.tree.tree_diagram(cat)
    leaves = [n for n in diagram["nodes"] if n["kind"] == "leaf"]
    assert len(leaves) == len(diagram["labels"]) == sum(len(b["leaves"]) for b in cat.tree["branches"])
    assert [n["kind"] for n in diagram["nodes"]].count("branch") == len(cat.tree["branches"])
    assert any(" ".join(line["text"] for line in n["lines"]) == "Alpha" for n in leaves)
    # every box lies inside the drawing, and no two boxes overlap
    boxes = diagram["nodes"] + diagram["labels"]
    for a in boxes:
        assert 0 <= a["x"] and a["x"] + a["w"] <= diagram["width"] and 0 <= a["y"] and a["y"] + a["h"] <= diagram["height"], a
        for b in boxes:
            if a is not b:
                assert (a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"] or a["y"] + a["h"] <= b["y"]
                        or b["y"] + b["h"] <= a["y"]), (a["lines"], b["lines"])
    # one edge into each branch, one to each label and one from each label to its leaf
    assert len(diagram["edges"]) == len(cat.tree["branches"]) + 2 * len(leaves)


def test_tree_diagram_labels_are_text(cat):
    label = '%%{init: {"theme": "dark"}}%% <b>x</b> `y` #1\nz &amp; {{ 7*7 }} ' + "a" * 60
    cat.tree["branches"][0]["label"] = label
    html = render("tree-diagram.html", "tree/", **views.tree.tree_diagram(cat))
    assert "<b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html and "&amp;amp;" in html

    class Texts(HTMLParser):
        def __init__(self):
            super().__init__()
            self.texts, self.depth = [], 0

        def handle_starttag(self, tag, attrs):
            if tag == "text":
                self.texts.append("")
                self.depth += 1

        def handle_endtag(self, tag):
            if tag == "text":
                self.depth -= 1

        def handle_data(self, data):
            if self.depth:
                self.texts[-1] += data

    parser = Texts()
    parser.feed(html)
    assert " ".join(label.split()) in parser.texts  # wrapped into lines, words whole: reads as written


def test_scenarios_link_to_selector_with_answers(cat, monkeypatch):
    monkeypatch.setattr(views.scenarios, "scenario_engines", lambda catalog, s: ["alpha"])
    row = views.scenarios.scenarios(cat)["rows"][0]
    assert row[2] == [{"link": {"href": "engines/alpha/", "text": "Alpha"}}]
    assert row[3] == [{"link": {"href": "selector/?scale=service&workload=w", "text": "try it"}}]
    assert 'href="../selector/?scale=service&amp;workload=w"' in table_html(views.scenarios.scenarios(cat), "scenarios/")


def test_sources_and_freshness(cat):
    t = views.sources.sources_table(cat)
    assert sum(1 for r in t["rows"] if r[0][0]["ext"]["href"] == "https://example.org/docs") >= 5
    assert len(views.sources.stale_facts(cat, limit=3)["rows"]) == 3
    assert views.sources.source_counts(cat)["official-docs"] > 0


def test_all_figures(cat):
    rows = views.tables.all_figures(cat)["rows"]
    assert [r[1][0]["strong"] for r in rows] == ["2x faster", "2x faster"]


def test_compare_has_a_column_per_system(cat):
    data = views.compare.compare(cat)
    assert [e["id"] for e in data["engines"]] == ["alpha", "beta"]
    assert all(len(r["cells"]) == 2 and len(r["cmp"]) == 2 for r in data["rows"])
    html = render("compare.html", "compare/", **data)
    assert html.count('<th scope="col" data-col=') == 2
    assert html.count('<option value="') == 3  # a placeholder and one per system, in the add-a-system select
    assert html.count('data-remove="alpha"') == 1
    rows = html.count("<tr data-row>")
    assert rows == len(data["rows"])
    assert html.count('data-col="alpha"') == rows + 1  # header cell + one per row


def test_compare_rows_differentiate(cat):
    """Groups for scores, figures, features and per-item support; keys tell equal cells from different ones."""
    data = views.compare.compare(cat)
    rows = {(r["group"], views.common.plain(r["label"])): r for r in data["rows"]}
    assert [g for g in dict.fromkeys(r["group"] for r in data["rows"])] == [
        "At a glance", "Decision matrix", "Serving features", "Hardware", "Weight formats", "Quantization", "Measured results"]
    speed = rows[("Decision matrix", "Speed")]
    assert speed["cmp"] == ["4", "2"] and speed["label"][0]["link"]["href"] == "matrix/#rubric-speed"
    assert any(p.get("small") == "fast kernels" for p in speed["cells"][0])
    assert rows[("At a glance", "Headline figures")]["cells"][0][0] == {"strong": "2x faster"}
    status = rows[("At a glance", "Status")]
    assert status["cmp"] == ["active", "maintenance"]
    assert rows[("Hardware", "GPU X")]["cmp"] == ["yes", "yes"]
    assert rows[("Weight formats", "Fmt")]["cmp"] == ["partial", "partial"]
    assert rows[("Quantization", "Q8")]["cmp"] == ["yes gpu x", "yes gpu x"]
    assert rows[("Quantization", "BF")]["cmp"] == ["unknown", "unknown"]
    assert rows[("Measured results", "Published measurements")]["cmp"] == ["4 rows in 3 comparable sets", "3 rows in 3 comparable sets"]
    # a citation or a note does not make two cells different
    cat.engines["beta"]["features"]["openai_api"] = {"value": "yes", "note": "other words", "source": "d"}
    api = next(r for r in views.compare.compare(cat)["rows"] if views.common.plain(r["label"]) == "OpenAI-compatible API")
    assert api["cmp"] == ["yes", "yes"]
    html = render("compare.html", "compare/", **data)
    assert html.count('<tbody class="iem-compare-group">') == 7 and 'data-key="maintenance"' in html


def test_compare_key_is_short_and_stable():
    long = [views.common.text("x" * 100)]
    assert views.compare.compare_key(long) == views.compare.compare_key([views.common.text("X" * 100)])
    assert views.compare.compare_key(long).startswith("#") and len(views.compare.compare_key(long)) == 13
    assert views.compare.compare_key([views.common.text("  Yes ")]) == "yes"


def test_wide_tables_carry_column_ids_picker_and_labels(cat, catalog):
    grid = views.grids.feature_table(catalog)
    engines = [e["id"] for e in views.common.engines_ordered(catalog, ("engine",))]
    assert grid["cols"] == engines and [c["id"] for c in grid["picker"]] == engines
    html = table_html(grid)
    assert html.count('name="col"') == len(engines) and f"all {len(engines)} shown" in html
    assert html.count('data-col="vllm"') == len(views.common.FEATURES) + 1
    assert "Scroll sideways for more columns" in html and "data-wide" in html
    # few engine columns: no picker, still ids and the sticky-header box
    small = views.grids.feature_table(cat)
    assert small["picker"] is None and 'name="col"' not in table_html(small) and 'data-col="alpha"' in table_html(small)
    # text tables become cards on phones: every cell labelled with its column header
    overview = table_html(views.tables.overview_table(cat))
    assert "iem-stack" in overview and overview.count('data-label="Positioning"') == 2
    assert 'data-label="Tier"' in overview
    # a narrow table stays plain
    plain = table_html(views.sources.verified_table(cat))
    assert "data-wide" not in plain and "data-label" not in plain and "Scroll sideways" not in plain


def test_one_word_names_never_break():
    html = render("list.html", "", items=[[views.common.tier_link("L1.5")], [views.common.link("engines/x/", "TensorRT-LLM")],
                                          [views.common.link("engines/y/", "Text Generation Inference")]])
    assert html.count('class="iem-nowrap"') == 2 and '<a href="engines/y/">Text' in html


def test_form_fields_come_from_the_questions(catalog):
    data = forms.form(catalog, "recommend")
    keys = [f["key"] for f in data["fields"]]
    assert keys[:2] == ["scale", "need"]
    need = next(f for f in data["fields"] if f["key"] == "need")
    assert {o["scale"] for o in need["options"]} == {b["scale"] for b in catalog.tree["branches"]}
    html = render("form.html", "selector/", **data)
    assert html.count("<select") == sum(1 for f in data["fields"] if f["type"] == "choice")
    assert 'data-assets="../assets/"' in html


def test_md_heading_is_inert():
    from macros.site import md_heading
    out = md_heading("It's <b>x</b> & {: onclick=alert(1)} [y](javascript:z) `c`\n\n```")
    assert "\n" not in out and "<" not in out and "&#x27;" not in out
    assert "\\{" in out and "\\[" in out and "\\`" in out and "&amp;" in out


def test_no_python_file_writes_html_tags():
    """Markup lives in templates: no string literal in macros/ or selector/ holds an HTML tag (docstrings may
    name one in prose)."""
    import ast
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    tag = re.compile(r"<\s*/?\s*(a|p|div|span|table|tr|td|th|ul|li|ol|br|strong|small|form|input|select|option|label|"
                     r"fieldset|legend|button|meta|script|style|img|svg|section|article|details|summary|h[1-6]|code|pre)[\s>/]", re.I)
    found = []
    for path in sorted([*root.joinpath("macros").glob("*.py"), *root.joinpath("selector").glob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(n)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs and tag.search(node.value):
                found.append(f"{path.name}:{node.lineno}: {node.value[:60]!r}")
    assert found == []


def test_scenario_engines_come_from_the_selector(catalog):
    for s in catalog.scenarios.values():
        from selector.rules import recommend
        assert views.scenarios.scenario_engines(catalog, s)[0] == recommend(catalog, s["answers"])["candidates"][0]["engine"]


def test_every_support_cell_is_the_engines_own_fact(cat):
    """Each cell of the format, hardware and quantization grids says what that engine documents for that row
    (yes, partial, no, or unknown when nothing is documented), with its note and its citation, in its own column."""
    alpha, beta = cat.engines["alpha"], cat.engines["beta"]
    alpha["hardware"] = [{"id": "gpu-x", "support": "partial", "note": "some kernels", "source": "d"}]
    beta["hardware"] = []
    beta["formats"] = [{"id": "fmt", "support": "no", "note": "not loaded", "source": "d"}]
    beta["quantization"] = [{"id": "q8", "support": "no", "hardware": ["gpu-x"], "source": "d"},
                            {"id": "bf", "support": "yes", "hardware": ["gpu-x"], "source": "d"}]
    expected = {  # (grid, row name, engine): (value, note, cited)
        ("hardware", "GPU X", "alpha"): ("partial", "some kernels", True), ("hardware", "GPU X", "beta"): ("unknown", "No source found", False),
        ("formats", "Fmt", "alpha"): ("partial", "beta", True), ("formats", "Fmt", "beta"): ("no", "not loaded", True),
        ("quantization", "Q8", "alpha"): ("yes", None, True), ("quantization", "Q8", "beta"): ("no", None, True),
        ("quantization", "BF", "alpha"): ("unknown", "Not in this engine's documented schemes", False),
        ("quantization", "BF", "beta"): ("yes", None, True),
    }
    seen = {}
    for grid, t in (("hardware", views.grids.hardware_table(cat)), ("formats", views.grids.format_table(cat)),
                    ("quantization", views.grids.quant_engine_table(cat))):
        for row in t["rows"]:
            name = row[0]["text"] if "text" in row[0] else cell_text(row[0])
            for engine, cell in zip(("alpha", "beta"), row[1:]):
                facts = [p["fact"] for p in cell if "fact" in p]
                assert len(facts) == 1, (grid, name, engine, cell)
                cites = [p for p in cell if "cite" in p and p["cite"]] + ([facts[0]] if facts[0]["cite"] else [])
                seen[(grid, name, engine)] = (facts[0]["value"], facts[0]["note"], bool(cites))
                for c in cites:
                    assert c["cite"]["url"] == "https://example.org/docs"
                if grid == "quantization" and facts[0]["value"] != "unknown":
                    assert {"small": "GPU X"} in cell, cell  # the hardware the entry covers
    assert seen == expected
    html = table_html(views.grids.format_table(cat), "formats/")
    assert re.search(r'data-col="alpha"[^>]*>\s*<span class="iem-support iem-partial" title="beta"', html), html
    assert re.search(r'data-col="beta"[^>]*>\s*<span class="iem-support iem-no" title="not loaded"', html), html


def test_others_table_rows_cite_and_link(cat):
    cat.others = {"systems": [{"id": "gamma", "name": "Gamma <b>", "what": "a plugin", "line": "It runs on X.",
                               "homepage": "https://example.org/gamma", "related": ["alpha", "beta"], "why_not_full": "young",
                               "source": "d"}],
                  "sources": {"d": {"url": "https://example.org/d", "title": "D", "kind": "repository", "as_of": "2026-12-01"}}}
    t = views.others.others_table(cat)
    (row,) = t["rows"]
    assert cell_text(row[0]).startswith("Gamma <b>") and row[0][0] == {"anchor": "other-gamma", "text": "Gamma <b>"}
    assert cell_text(row[2]) == "It runs on X. (as of 2026-12-01)" and row[2][1]["cite"]["url"] == "https://example.org/d"
    assert [p["link"]["href"] for p in row[3] if "link" in p] == ["engines/alpha/", "engines/beta/"]
    html = table_html(t, "field/")
    assert 'id="other-gamma">Gamma &lt;b&gt;</span>' in html and 'href="../engines/beta/"' in html
    cat.others = {}
    assert views.others.others_table(cat)["rows"] == []


def test_engine_page_says_latest_release_and_when_checked(cat):
    facts = views.engines.engine_page(cat, "alpha")["head"]["facts"]
    row = next(r for r in facts["rows"] if cell_text(r[0]) == "Latest release")
    assert cell_text(row[1]) == "1.0 (2026-01-01), checked on 2026-01-02" and row[1][1]["cite"]
    assert facts["rows"].index(row) == 6  # right after Status, near the top
    cat.engines["alpha"]["status"]["released"] = "unknown"
    row = next(r for r in views.engines.engine_page(cat, "alpha")["head"]["facts"]["rows"] if cell_text(r[0]) == "Latest release")
    assert cell_text(row[1]) == "1.0 (release day not found), checked on 2026-01-02"


def test_freshness_table_puts_the_stalest_release_first(cat):
    cat.engines["alpha"]["status"].update(released="2026-03-01")
    cat.engines["beta"]["status"].update(released="2025-11-01")
    assert [cell_text(r[0]) for r in views.sources.verified_table(cat)["rows"]] == ["Beta", "Alpha"]
    cat.engines["alpha"]["status"].update(released="unknown")
    rows = views.sources.verified_table(cat)["rows"]
    assert [cell_text(r[0]) for r in rows] == ["Alpha", "Beta"]  # no release day found: most likely behind
    assert [cell_text(c) for c in rows[1][1:]] == ["1.0", "2025-11-01", "2026-01-02"]
