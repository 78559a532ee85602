"""The tier pages (``templates/tier-intro.html``, ``tier-choose.html``, ``tier-engine.html``, then the
side-by-side grid), their meta descriptions, and the tiers at a glance on the home page."""

from .common import FEATURES, engine_headers, engine_link, engines_ordered, fact, table, text, tier_link


def tier_engines(catalog, tier_id):
    """The tier's engines, in the decision tree's order where the tree names them, then by name."""
    order = []
    for branch in catalog.tree.get("branches", []):
        for leaf in branch["leaves"]:
            for eid in leaf["engines"] + leaf.get("with", []):
                if eid not in order:
                    order.append(eid)
    rank = {eid: i for i, eid in enumerate(order)}
    engines = [e for e in engines_ordered(catalog) if e["tier"] == tier_id]
    return sorted(engines, key=lambda e: (e["kind"] != "engine", rank.get(e["id"], len(rank)), e["name"].lower()))


def tier_description(catalog, tier_id):
    """A tier page's meta description (search snippets), made from the data: the tier, and the systems
    whose ``tier:`` is this one in the tier page's order, so no page names its engines by hand."""
    t = catalog.tiers[tier_id]
    names = [e["name"] for e in tier_engines(catalog, tier_id)]
    if not names:
        return f"Tier {t['id']} ({t['name']})."
    if len(names) == 1:
        return f"Tier {t['id']} ({t['name']}): {names[0]}, every fact cited."
    return f"Tier {t['id']} ({t['name']}): {', '.join(names[:-1])} and {names[-1]} compared, every fact cited."


def tier_page(catalog, tier_id):
    t = catalog.tiers[tier_id]
    engines = tier_engines(catalog, tier_id)
    sections = [
        {"heading": None, "template": "tier-intro.html", "data": {"audience": t["audience"], "summary": t["summary"]}},
        {"heading": "What matters here", "template": "list.html", "data": {"items": [[text(x)] for x in t["what_matters"]]}},
        {"heading": "Choosing within the tier", "template": "tier-choose.html",
         "data": {"pick_within": t["pick_within"], "mistake": t.get("mistake")}},
    ]
    for e in engines:
        retired = None
        if e["status"]["value"] != "active":
            retired = {"status": e["status"]["value"].capitalize(), "since": e["status"]["since"],
                       "successors": [engine_link(catalog, s) for s in e["status"].get("successors", [])]}
        sections.append({"heading": e["name"], "template": "tier-engine.html", "data": {
            "positioning": e["positioning"], "retired": retired, "link": engine_link(catalog, e["id"]),
            "pick_when": [[text(x)] for x in e["pick_when"]], "avoid_when": [[text(x)] for x in e["avoid_when"]]}})
    if engines:
        rows = [[text(label)] + [fact(catalog, e, e["features"][key]) for e in engines] for key, label in FEATURES]
        sections.append({"heading": "Side by side", "template": "table.html",
                         "data": {"t": table(["Feature"] + engine_headers(catalog, engines), rows, cls="iem-table iem-matrixlike",
                                             cols=[e["id"] for e in engines])}})
    return {"sections": sections}


def tiers_glance(catalog):
    rows = []
    for t in sorted(catalog.tiers.values(), key=lambda t: t["order"]):
        names = []
        for i, e in enumerate(tier_engines(catalog, t["id"])):
            if i:
                names.append({"sep": ", "})
            names.append(engine_link(catalog, e["id"]))
        rows.append([tier_link(t["id"]), text(t["name"]), text(t["audience"]), names])
    return table(["Tier", "Name", "Who it is for", "Systems"], rows)
