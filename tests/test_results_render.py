"""Measured-results renderers on the tiny catalog (and a few checks on the real one): groups by comparable
set, the method in words, chart geometry, marks, filters, and the links from engine pages, compare and the
model and GPU tables."""

import re
from html.parser import HTMLParser

import pytest

from macros import charts, views
from macros.templating import render
from mini import RESULTS, mini_catalog


@pytest.fixture()
def cat():
    return mini_catalog()


def group(groups, gid):
    return next(g for g in groups if g["id"] == gid)


def cell_text(cell):
    return " ".join(str(p.get("text", p.get("small", p.get("mark", p.get("link", {}).get("text", ""))))) for p in cell)


def test_mini_results_follow_the_schema():
    """The hand-made sets have the shape data/results must have (so the renderers are tested on real shapes)."""
    from conftest import ROOT
    from datatools.files import read_schemas
    from datatools.validation import schema_set
    found, problems = read_schemas(ROOT / "data")
    assert not problems, problems
    schemas = schema_set(found)
    for sid, rs in RESULTS.items():
        assert schemas.validate(rs, "result-set.schema.json") == [], sid


def test_rows_flatten_with_per_user_speed_measured_or_derived(cat):
    rows = {(r["set_id"], r["index"]): r for r in views.results.result_rows(cat)}
    assert len(rows) == 7 and [r["id"] for r in views.results.result_rows(cat)] == [f"r{i}" for i in range(7)]
    measured = rows[("serve-a", 0)]
    assert measured["per_user"] == 50 and not measured["derived_user"]
    derived = rows[("audit-server", 0)]
    assert derived["per_user"] == 40.0 and derived["derived_user"]  # 1000 / 25 ms median TPOT
    assert rows[("audit-server", 1)]["per_user"] is None
    # concurrency: the row's, else the method's, else "none" for the filter
    assert rows[("serve-a", 1)]["filters"]["concurrency"] == "64"
    assert rows[("bench-v", 0)]["filters"]["concurrency"] == "1"
    assert rows[("audit-server", 0)]["filters"]["concurrency"] == views.results.NO_CONCURRENCY
    assert rows[("bench-c", 0)]["filters"] == {"engine": "alpha", "gpu": "x80", "model": "m", "weights": "q8", "set": "bench-512",
                                               "concurrency": "1"}
    # age: the run date, else the source's publication date, else its as-of date
    assert (measured["date"], measured["date_basis"]) == ("2025-12-01", "run")
    assert (derived["date"], derived["date_basis"]) == ("2026-01-02", "as of")


def test_groups_follow_comparable_sets_and_say_the_method(cat):
    groups = views.results.result_groups(cat)
    assert [g["id"] for g in groups] == ["serve-1k", "audit-server", "bench-512"]  # suite, audited, then the rest
    bench = group(groups, "bench-512")
    assert bench["count"] == 3 and [s["title"] for s in bench["sources"]] == ["Set bench-c <i>", "Set bench-v <i>"]
    # two sources: a title from what they share (models, tool, lengths, concurrency)
    assert bench["title"] == "M 8B: benchtool, 512 input / 128 output tokens, concurrency 1"
    assert group(groups, "serve-1k")["title"] == "Set serve-a <i>"
    method = {m["label"]: m["texts"] for m in bench["method"]}
    assert method["Tool"] == ["benchtool bench-c (Set bench-c <i>)", "benchtool bench-v (Set bench-v <i>)"]
    assert method["Lengths"] == ["512 input / 128 output tokens"] and method["Concurrency"] == ["1 (every row)"]
    assert method["What throughput counts"] == ["output tokens per second"]
    audit = {m["label"]: m["texts"] for m in group(groups, "audit-server")["method"]}
    assert audit["Lengths"] == ["set by the dataset"] and audit["Dataset"] == ["D set"]
    assert audit["Concurrency"] == ["no fixed number: the load generator sets the load"]
    serve = {m["label"]: m["texts"] for m in group(groups, "serve-1k")["method"]}
    assert serve["Concurrency"] == ["per row (see the table)"]


def test_marks_say_who_measured(cat):
    groups = views.results.result_groups(cat)
    marks = {s["title"]: [m["mark"] for m in s["marks"]] for g in groups for s in g["sources"]}
    assert marks == {"Set serve-a <i>": [], "Set audit-server <i>": ["derived, unofficial"],
                     "Set bench-c <i>": ["community"], "Set bench-v <i>": ["vendor-reported"]}
    html = render("results-group.html", "results/", g=group(groups, "bench-512"))
    assert html.count('class="iem-mark iem-mark-community"') == 1 + 2  # the source line and its two rows
    assert html.count('class="iem-mark iem-mark-vendor"') == 1 + 1


def test_charts_scatter_where_both_figures_exist_else_bars(cat):
    groups = views.results.result_groups(cat)
    serve = group(groups, "serve-1k")["charts"]
    assert [c["kind"] for c in serve] == ["scatter"] and len(serve[0]["points"]) == 2
    audit = group(groups, "audit-server")["charts"]
    assert [c["kind"] for c in audit] == ["scatter", "bars"]
    assert [p["derived"] for p in audit[0]["points"]] == [True] and audit[0]["derived"]
    assert audit[1]["metric"] == "throughput_per_gpu" and len(audit[1]["bars"]) == 1
    bench = group(groups, "bench-512")["charts"]
    assert [c["kind"] for c in bench] == ["bars"] and bench[0]["metric"] == "decode_tps"
    assert [b["value"] for b in bench[0]["bars"]] == ["60", "55", "40"]  # largest first
    assert [b["slot_index"] for b in bench[0]["bars"]] == [0, 1, 2]
    assert all(g["not_charted"] == 0 for g in groups)


def test_scatter_coordinates_stay_in_the_plot_and_follow_the_values(cat):
    chart = group(views.results.result_groups(cat), "serve-1k")["charts"][0]
    box = chart["plot"]
    for p in chart["points"]:
        assert box["left"] <= p["x"] <= box["right"] and box["top"] <= p["y"] <= box["bottom"]
    slow, fast = sorted(chart["points"], key=lambda p: p["x"])
    assert "3,000 tokens/s per GPU" in slow["title"] and slow["y"] < fast["y"]  # more throughput is higher up
    assert chart["x"]["label"] == "Output tokens/s per user" and chart["y"]["label"] == "Tokens/s per GPU"
    assert chart["y"]["ticks"][0] == {"pos": box["bottom"], "label": "0"}


def test_axes():
    lin = charts.Axis([18, 187], 0, 100)
    assert not lin.log and lin.lo == 0 and lin.hi == 200 and [t["label"] for t in lin.tick_marks()] == ["0", "50", "100", "150", "200"]
    assert lin(100) == 50
    log = charts.Axis([43, 11000], 300, 0)
    assert log.log and (log.lo, log.hi) == (20, 20000) and log(20) == 300 and log(20000) == 0
    assert [t["label"] for t in log.tick_marks()] == ["20", "100", "1,000", "10,000"]
    assert charts.number(101611.0) == "101,611" and charts.number(12701.4) == "12,701.4" and charts.number(1000 / 7, 1) == "142.9"


def _no_chart_mixes_sets(groups):
    for g in groups:
        for c in g["charts"]:
            assert c["set"] == g["id"]
            for item in c.get("points", []) + c.get("bars", []):
                assert item["attrs"]["set"] == g["id"], (g["id"], item["title"])
        # the figure charts hold each row once; the cost chart draws the same rows again, priced
        charted = [i["row"] for c in g["charts"] if not c.get("extra") for i in c.get("points", []) + c.get("bars", [])]
        priced = [i["row"] for c in g["charts"] if c.get("extra") for i in c["points"]]
        table = [r["id"] for r in g["table"]["rows"]]
        assert len(charted) == len(set(charted)) and set(charted) <= set(table)
        assert len(priced) == len(set(priced)) and set(priced) <= set(charted)
        assert len(charted) + g["not_charted"] == len(table) == g["count"]


def test_no_chart_mixes_comparable_sets(cat, catalog):
    _no_chart_mixes_sets(views.results.result_groups(cat))
    groups = views.results.result_groups(catalog)
    _no_chart_mixes_sets(groups)
    assert sum(g["count"] for g in groups) == sum(len(rs["rows"]) for rs in catalog.results.values())
    assert len(groups) == len({rs.get("comparable_set") or sid for sid, rs in catalog.results.items()})


def test_table_columns_units_and_marks(cat):
    t = group(views.results.result_groups(cat), "audit-server")["table"]
    headers = [cell_text(h) for h in t["headers"]]
    # what tells the two rows apart stays in the table, the figures always; version and parallelism are
    # empty in both rows and go; what both rows share is said once, above the table
    # the engine, then the figures, then what sets rows apart (so the figures show before any scrolling)
    assert headers == ["Engine", "Throughput per GPU (tokens/s)", "Output speed per user (tokens/s)",
                       "System throughput (tokens/s)", "Time per output token (ms)", "GPU × count", "System or submitter",
                       "KV cache"]
    common = {c["label"]: cell_text(c["cells"]) for c in t["common"]}
    assert common == {"Model": "M 8B", "Weights": "Q8", "Concurrency": "not fixed", "Date": "2026-01-02 as of",
                      "Marks and notes": "derived, unofficial", "Source": cell_text(t["common"][-1]["cells"])}
    assert t["common"][-1]["cells"][0]["cite"]["url"] == "https://example.org/docs"
    alpha, beta = t["rows"]
    assert cell_text(alpha["cells"][6]) == "Sub, Sys 1" and cell_text(alpha["cells"][5]) == "8 × X 80GB"
    assert cell_text(alpha["cells"][2]) == "40 derived" and cell_text(alpha["cells"][4]) == "p50 25 · p99 40"
    assert cell_text(beta["cells"][7]) == "Q8" and cell_text(alpha["cells"][7]) == "16-bit (default)"
    assert t["caption"].startswith("Set audit-server <i>. Tool: benchtool audit-server; lengths: set by the dataset")
    assert t["caption"].endswith(". The same in every row, given above the table: model; weights; concurrency; date; "
                                 "marks and notes; source")


def test_lifting_keeps_figures_and_single_rows():
    headers = ["Engine", "GPU", "Throughput", "Source"]
    row = lambda i, engine, value: {"id": f"r{i}", "attrs": {}, "cells": [[{"text": engine}], [{"text": "H100"}],  # noqa: E731
                                                                          [{"text": value}], [{"text": ""}]]}
    # a single row keeps every column, empty or not
    assert views.results._lift_common_columns(headers, [row(0, "A", "1")], figures=range(2, 3)) == (headers, [row(0, "A", "1")], [])
    # a figure equal in every row stays; a shared GPU goes above the table; an empty source goes
    h, rows, common = views.results._lift_common_columns(headers, [row(0, "A", "1"), row(1, "B", "1")], figures=range(2, 3))
    assert h == ["Engine", "Throughput"] and [r["cells"] for r in rows] == [[[{"text": "A"}], [{"text": "1"}]],
                                                                           [[{"text": "B"}], [{"text": "1"}]]]
    assert common == [{"label": "GPU", "cells": [{"text": "H100"}]}]


class Markup(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def parse(html):
    m = Markup()
    m.feed(html)
    return m.tags


def test_group_markup_escapes_and_carries_filter_attributes(cat):
    g = group(views.results.result_groups(cat), "bench-512")
    html = render("results-group.html", "results/", g=g)
    assert "<i>" not in html and "Set bench-c &lt;i&gt;" in html
    assert "a &lt;b&gt;note&lt;/b&gt;" in html
    tags = parse(html)
    assert not [t for t, a in tags if "style" in a], "no inline style attributes (CSP)"
    rows = [a for t, a in tags if t == "tr" and "data-row" in a]
    bars = [a for t, a in tags if t == "g" and "data-row" in a]
    assert len(rows) == len(bars) == 3
    for a in rows + bars:
        assert {k for k in a if k.startswith("data-")} >= {"data-row", "data-engine", "data-gpu", "data-model", "data-weights",
                                                          "data-set", "data-concurrency"}
        assert a["data-set"] == "bench-512"
    assert {a["data-row"] for a in rows} == {a["data-row"] for a in bars}
    svg = next(a for t, a in tags if t == "svg" and "iem-chart-svg" in a.get("class", ""))
    assert svg["viewbox"].startswith("0 0 480 ") and svg["role"] == "img"
    assert html.count("<title>") == 3  # one per bar, with the row's figures
    assert 'href="../engines/alpha/"' in html


def test_scatter_markup_marks_derived_points(cat):
    g = group(views.results.result_groups(cat), "audit-server")
    html = render("results-group.html", "results/", g=g)
    assert 'class="iem-pt iem-c0 iem-derived"' in html
    assert "hollow: per-user speed derived as 1000 / median TPOT (unofficial)" in html
    assert "(derived from median TPOT)" in html


def test_filters_come_from_the_values_present(cat):
    view = views.results.results_explorer(cat)
    filters = {f["key"]: f for f in view["filters"]}
    assert list(filters) == ["engine", "gpu", "model", "weights", "set", "concurrency"]
    assert [(o["value"], o["label"], o["count"]) for o in filters["engine"]["options"]] == [("alpha", "Alpha", 4), ("beta", "Beta", 3)]
    assert [o["value"] for o in filters["set"]["options"]] == ["serve-1k", "audit-server", "bench-512"]
    assert [(o["value"], o["label"]) for o in filters["concurrency"]["options"]] == [("1", "1"), ("8", "8"), ("64", "64"),
                                                                                   ("none", "not fixed")]
    html = render("results-filters.html", "results/", filters=view["filters"], total=view["total"], groups=len(view["groups"]))
    assert html.count('type="checkbox"') == sum(len(f["options"]) for f in view["filters"])
    assert 'name="engine" value="alpha" data-label="Alpha"' in html
    assert "Showing all 7 rows in 3 comparable sets." in html


def test_explorer_markdown_has_anchored_headings_and_placeholders(cat):
    from macros import results_markdown
    md = results_markdown(views.results.results_explorer(cat), "results/")
    assert "## Set serve-a &lt;i&gt; {#set-serve-1k}" in md  # data text escaped for a heading (macros.site.md_heading)
    assert "## M 8B: benchtool, 512 input / 128 output tokens, concurrency 1 {#set-bench-512}" in md
    assert len(re.findall(r"<!--(iem[0-9a-f]{24})-->", md)) == 1 + 3


def test_engine_page_quotes_best_rows_and_links_to_the_explorer(cat):
    view = views.results.engine_results(cat, "alpha")
    assert view["total"] == 4 and view["sets"] == 3
    assert view["link"] == {"link": {"href": "results/?engine=alpha", "text": "All 4 rows of Alpha in the explorer"}}
    rows = view["table"]["rows"]
    # best row of each set first (best-known sets first), then the next best: here the 40 tokens/s bench row
    assert [r[0][0]["link"]["href"] for r in rows] == ["results/?engine=alpha&set=serve-1k", "results/?engine=alpha&set=audit-server",
                                                       "results/?engine=alpha&set=bench-512", "results/?engine=alpha&set=bench-512"]
    assert [cell_text(r[3]).split(" ")[0] for r in rows] == ["1,000", "2,000", "60", "40"]
    assert "at 40 tokens/s per user (derived)" in cell_text(rows[1][3])
    assert len(views.results.engine_results(cat, "alpha", limit=2)["table"]["rows"]) == 2
    html = render("results-engine.html", "engines/alpha/", **view)
    assert 'href="../../results/?engine=alpha"' in html and "iem-mark-vendor" in html and "iem-mark-community" in html
    page = views.engines.engine_page(cat, "alpha")
    assert any(s["heading"] == "Measured results" and s["template"] == "results-engine.html" for s in page["sections"])


def test_engine_without_rows_says_so(cat):
    bare = mini_catalog(results=False)
    view = views.results.engine_results(bare, "alpha")
    assert view["table"] is None
    html = render("results-engine.html", "engines/alpha/", **view)
    assert "No measured results for Alpha in the map yet" in html and 'href="../../contributing/"' in html


def test_compare_models_and_gpus_link_to_the_filtered_explorer(cat):
    data = views.compare.compare(cat)
    row = next(r for r in data["rows"] if r["group"] == "Measured results")
    assert row["label"] == [{"text": "Published measurements"}]
    assert row["cells"][0] == [{"link": {"href": "results/?engine=alpha", "text": "4 rows in 3 comparable sets"}}]
    assert row["cells"][1] == [{"link": {"href": "results/?engine=beta", "text": "3 rows in 3 comparable sets"}}]
    models = views.tables.model_table(cat)
    assert cell_text(models["headers"][-1]) == "Measured results"
    assert models["rows"][0][-1] == [{"link": {"href": "results/?model=m", "text": "7 rows"}}]
    gpus = views.tables.gpu_table(cat)
    assert gpus["rows"][0][-1] == [{"link": {"href": "results/?gpu=x80", "text": "7 rows"}}]
    bare = mini_catalog(results=False)
    assert views.tables.gpu_table(bare)["rows"][0][-1] == [{"unknown": "none yet"}]
    assert next(r for r in views.compare.compare(bare)["rows"] if r["group"] == "Measured results")["cells"][0] == [{"unknown": "none yet"}]


def test_real_explorer_page_weight_of_markup(catalog):
    """The whole explorer's markup (every row, every chart) stays well inside the page budget once gzipped."""
    import gzip
    from macros import results_markdown, site
    site.clear_stash()
    md = results_markdown(views.results.results_explorer(catalog), "results/")
    html = site.unstash(md)
    assert len(gzip.compress(html.encode("utf-8"), 9)) < 300_000


def test_sources_page_cites_result_sets_by_their_explorer_view(cat):
    assert views.sources.owner_link(cat, "results", "bench-v") == {"link": {"href": "results/?set=bench-512", "text": "Set bench-v <i>"}}


def test_energy_sets_say_what_the_power_covers(catalog):
    """A set with measured energy names its power boundary in the method, from the schema's labels: the whole
    system for MLPerf's power runs, the GPUs for ML.ENERGY; a set without power figures says nothing of power."""
    groups = {g["id"]: g for g in views.results.result_groups(catalog)}
    label = views.results.POWER_BOUNDARY_LABEL
    assert label["system"].startswith("the whole system") and label["accelerator"].startswith("the accelerators only")
    for gid, boundary in (("mlperf-llama2-70b-offline-power", "system"), ("mlperf-llama2-70b-server-power", "system"),
                          ("mlenergy-v3-gpqa", "accelerator")):
        method = {m["label"]: m["texts"] for m in groups[gid]["method"]}
        assert method["What the measured power covers"] == [label[boundary]], gid
        assert "Energy (J per token)" in [cell_text(h) for h in groups[gid]["table"]["headers"]], gid
    # the Llama 2 70B power set spans two rounds: 8x H200 MaxQ (v4.1) and 8x B200 (v5.1), each row with its energy
    offline = groups["mlperf-llama2-70b-offline-power"]["members"]
    assert sorted(r["row"]["gpu"] for r in offline) == ["b200", "h200"]
    assert all(r["energy"]["boundary"] == "system" and r["energy"]["value"] > 0 for r in offline)
    for gid, g in groups.items():
        if not any(r["energy"] or "power_w" in r["row"]["metrics"] for r in g["members"]):
            assert "What the measured power covers" not in {m["label"] for m in g["method"]}, gid
