"""The trends page: one section per trend (``templates/trend.html``)."""

from .common import cite, engine_link, figure_rows, parts, table, text


def trends(catalog):
    sections = []
    for t in sorted(catalog.trends.values(), key=lambda t: t["order"]):
        sections.append({"heading": t["title"], "template": "trend.html", "data": {
            "summary": t["summary"],
            "points": [parts(text(p["text"]), cite(catalog, t, p["source"])) for p in t["points"]],
            "figures": table(["Figure", "What it measures", "Source"], figure_rows(catalog, t, t["figures"])) if t.get("figures") else None,
            "impact": t.get("selection_impact"),
            "engines": [engine_link(catalog, x) for x in t["engines"]]}})
    return {"sections": sections}
