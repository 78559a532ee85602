"""The engine pages (``templates/engine-head.html`` and the sections after it: ``list.html``,
``table.html``, ``results-engine.html``, ``sources-list.html``) and the engine index."""

from .common import (
    FEATURES, KIND_LABEL, cite, engine_link, engines_ordered, enum_labels, ext_link, fact, figure_rows, parts, source,
    table, text, tier_link)
from .results import engine_results
from selector.launch import setup_launch


REL_LABEL = enum_labels("engine.schema.json", "/properties/relations/items/properties/type")


def source_list(entry):
    items = []
    for key, s in sorted((entry.get("sources") or {}).items(), key=lambda kv: kv[1]["title"].lower()):
        items.append(source(s))
    return items


def latest_release_text(e):
    """``0.33.0 (2026-11-02), checked on 2026-12-02``: the release the page describes and when it was checked."""
    status = e["status"]
    day = status["released"] if status["released"] != "unknown" else "release day not found"
    return f"{status['latest_version']} ({day}), checked on {e['verified']}"


def engine_page(catalog, engine_id):
    """An engine page as sections: ``{"lede": ..., "sections": [{"heading", "template", "data"}]}``."""
    e = catalog.engines[engine_id]
    c = lambda f: cite(catalog, e, (f or {}).get("source"))
    status = e["status"]
    status_text = f"{status['value']} since {status['since']}"
    if status.get("latest_version"):
        status_text += f", latest {status['latest_version']}"
    if status.get("note"):
        status_text += f" — {status['note']}"
    facts = [
        [text("Tier"), tier_link(e["tier"])],
        [text("Kind"), text(KIND_LABEL[e["kind"]])],
        [text("Maintainer"), parts(text(e["maintainer"]["value"]), c(e["maintainer"]))],
        [text("License"), parts(text(e["license"]["value"]), c(e["license"]))],
        [text("Language"), parts(text(e["language"]["value"]), c(e["language"]))],
        [text("Status"), parts(text(status_text), c(status))],
        [text("Latest release"), parts(text(latest_release_text(e)), cite(catalog, e, status["release_source"]))],
        [text("Homepage"), ext_link(e["homepage"], e["homepage"])],
    ]
    if e.get("repository"):
        facts.append([text("Repository"), ext_link(e["repository"], e["repository"])])
    facts.append([text("Last verified"), text(e["verified"])])
    retired = None
    if status["value"] != "active":
        retired = {"title": status["value"].capitalize(), "name": e["name"], "status": status["value"], "since": status["since"],
                   "successors": [engine_link(catalog, s) for s in status.get("successors", [])]}
    head = {"positioning": e["positioning"], "retired": retired, "facts": table(["Fact", "Value"], facts, cls="iem-table iem-facts"),
            "summary": e.get("summary")}
    sections = [
        {"heading": "When to pick it", "template": "list.html", "data": {"items": [[text(x)] for x in e["pick_when"]]}},
        {"heading": "When not to", "template": "list.html", "data": {"items": [[text(x)] for x in e["avoid_when"]]}},
        {"heading": "Serving features", "template": "table.html", "data": {"t": table(["Feature", "Support"], [
            [text(label), fact(catalog, e, e["features"][key])] for key, label in FEATURES])}},
    ]
    for title, list_name in (("Hardware", "hardware"), ("Weight formats", "formats")):
        rows = [[text(catalog.name_of(list_name, x["id"])), fact(catalog, e, x)] for x in e[list_name]]
        sections.append({"heading": title, "template": "table.html",
                         "data": {"t": table([title, "Support"], rows) if rows else None,
                                  "empty": "No entries of its own; it relies on the engines it runs with."}})
    rows = [[text(catalog.name_of("quantization", q["id"])), {"fact": {**fact(catalog, e, q)["fact"], "cite": None}},
             text(", ".join(catalog.name_of("hardware", h) for h in q["hardware"])), parts(text(q.get("note", "")), c(q))]
            for q in e["quantization"]]
    sections.append({"heading": "Quantization", "template": "table.html",
                     "data": {"t": table(["Scheme", "Support", "Hardware", "Notes"], rows) if rows else None,
                              "empty": "No quantization schemes of its own are documented here."}})
    if e.get("relations"):
        items = [parts(text(f"{e['name']} {REL_LABEL[r['type']]}"), engine_link(catalog, r["engine"]),
                       text(f"— {r['note']}") if r.get("note") else None, c(r)) for r in e["relations"]]
        sections.append({"heading": "Related systems", "template": "list.html", "data": {"items": items}})
    if e.get("figures"):
        sections.append({"heading": "Headline figures", "template": "table.html",
                         "data": {"t": table(["Figure", "What it measures", "Source"], figure_rows(catalog, e, e["figures"]))}})
    if e.get("milestones"):
        rows = [[text(m["date"]), text(m.get("version", "")), parts(text(m["event"]), c(m))]
                for m in sorted(e["milestones"], key=lambda m: m["date"])]
        sections.append({"heading": "Milestones", "template": "table.html", "data": {"t": table(["Date", "Version", "What happened"], rows)}})
    sections.append({"heading": "Launch commands", "template": "launch-engine.html", "data": launch_setups(catalog, engine_id)})
    sections.append({"heading": "Measured results", "template": "results-engine.html", "data": engine_results(catalog, engine_id)})
    sections.append({"heading": "Sources", "template": "sources-list.html", "data": {"sources": source_list(e)}})
    return {"name": e["name"], "head": head, "sections": sections}


def launch_setups(catalog, engine_id):
    """The command of each setup the engine's launch template lists, from the generator the answers use."""
    e = catalog.engines[engine_id]
    template = (getattr(catalog, "launch", None) or {}).get(engine_id)
    if template is None:
        return {"setups": [], "sources": [], "engine": e["name"],
                "empty": f"No launch template for {e['name']} in the data yet, so no command is shown."}
    setups, sources = [], []
    for setup in template.get("setups", []):
        _, launch = setup_launch(catalog, engine_id, setup["answers"])
        setups.append({"name": setup["name"], "command": launch["command"], "why": launch.get("why"), "notes": launch["notes"],
                       "version": launch["engine_version"] or template["version"]})
        sources += [s for s in launch["sources"] if s not in sources]
    return {"setups": setups, "sources": sources, "engine": e["name"],
            "empty": f"The launch template of {e['name']} lists no common setup yet."}


def engine_index(catalog):
    sections = []
    for tier in sorted(catalog.tiers.values(), key=lambda t: t["order"]):
        engines = [e for e in engines_ordered(catalog) if e["tier"] == tier["id"]]
        items = [parts(engine_link(catalog, e["id"]), text(f"— {e['positioning']}")) for e in engines]
        sections.append({"heading": f"{tier['id']}: {tier['name']}", "template": "list.html", "data": {"items": items}})
    return {"sections": sections}
