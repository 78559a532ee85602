"""Cost per million tokens on the explorer (built from selector.costs, the CLI's arithmetic): the column
that follows the headline figure, the cost chart of each set and the default view of one chart per model."""

import pytest

from macros import charts as chartlib, views
from selector import costs


def cell_text(cell):
    return " ".join(str(p.get("text", p.get("mark", ""))) for p in cell)


@pytest.fixture(scope="module")
def explorer(catalog):
    rows = views.results.result_rows(catalog)
    return rows, views.results.result_groups(catalog, rows)


def test_cost_column_follows_the_headline_and_equals_the_cli(catalog, explorer):
    rows, groups = explorer
    cli = costs.results(catalog)["rows"]
    assert len(cli) == len(rows)
    by_id = {r["id"]: c for r, c in zip(rows, cli)}
    g = next(g for g in groups if g["id"] == "inferencex-dsr1-1k1k")
    headers = [cell_text(h) for h in g["table"]["headers"]]
    assert headers[:4] == ["Engine", "Throughput per GPU (tokens/s)", "Cost per million tokens (USD, derived)",
                           "Output speed per user (tokens/s)"]
    seen = 0
    for row in g["table"]["rows"]:
        want = by_id[row["id"]]["usd_per_million_tokens"]
        cell = row["cells"][2]
        if want is None:
            assert cell_text(cell) == ""
            continue
        seen += 1
        assert cell[0]["text"] == chartlib.number(want)
        assert cell[1]["mark"] == "derived" and "not measured" in cell[1]["title"]
    assert seen > 50


def test_each_priced_set_has_a_cost_chart_of_its_own_rows(explorer):
    _, groups = explorer
    priced = [g for g in groups if any(c.get("cost") for c in g["charts"])]
    assert len(priced) >= 10
    for g in priced:
        chart = next(c for c in g["charts"] if c.get("cost"))
        assert chart["set"] == g["id"] and all(p["attrs"]["set"] == g["id"] for p in chart["points"])
        assert chart["y"]["label"].startswith("USD per million")
        for p in chart["points"]:
            assert chart["plot"]["top"] <= p["y"] <= chart["plot"]["bottom"]


def test_default_view_one_chart_per_model_most_gpus_first(catalog, explorer):
    rows, groups = explorer
    view = views.results.cost_overview(catalog, rows, groups)
    charts = view["charts"]
    assert charts and charts[0]["model"] == "DeepSeek-R1"  # compared on the most GPU types
    assert len({c["model"] for c in charts}) == len(charts)
    assert [c["gpus"] for c in charts] == sorted((c["gpus"] for c in charts), reverse=True)
    for c in charts:
        assert {p["attrs"]["set"] for p in c["chart"]["points"]} == {c["group"]}
    assert {p["gpu"] for p in view["prices"]} >= {"NVIDIA H100 SXM", "NVIDIA B200", "AMD Instinct MI300X"}


def test_compare_cost_rows_quote_each_engines_cheapest_priced_row(catalog, explorer):
    rows, _ = explorer
    view = views.compare.compare(catalog)
    engines = [e["id"] for e in view["engines"]]
    cost_rows = [r for r in view["rows"] if r["group"] == "Measured results" and r["label"][0]["text"].startswith("Lowest cost")]
    assert cost_rows
    first = cost_rows[0]
    assert "DeepSeek-R1" in first["label"][0]["text"]
    set_title = first["label"][2]["small"]
    members = [r for r in rows if r["cost"] is not None and r["set"]["title"] == set_title and r["row"]["model"] == "deepseek-r1"]
    for eid, cell in zip(engines, first["cells"]):
        own = [r for r in members if r["row"]["engine"] == eid]
        if not own:
            assert cell == [{"unknown": "no priced row"}]
            continue
        assert cell[0]["text"] == "$" + chartlib.number(min(r["cost"] for r in own))
        assert cell[1]["span"] == "(derived)" and "not measured" in cell[1]["title"]


def test_load_curves_compare_measured_setups_at_the_same_load(catalog, explorer):
    rows, _ = explorer
    curves = views.results.load_curves(catalog, rows)
    assert curves
    by_id = {r["id"]: r for r in rows}
    for c in curves:
        assert len(c["series"]) >= 2
        for level in c["levels"]:
            measured = [cell for cell in level["cells"] if cell]
            assert len(measured) >= 2  # "cheapest" only where two setups were measured at this load
            for cell in measured:
                r = by_id[cell["row"]]
                assert r["concurrency"] == level["level"] and r["group"] == c["set"]
            priced = [(by_id[cell["row"]]["cost"], name) for cell, name in zip(level["cells"], c["series"])
                      if cell and by_id[cell["row"]]["cost"] is not None]
            assert level["cheapest"] == (min(priced)[1] if priced else None)
        for change in c["changes"]:
            assert change["from"] != change["to"]
