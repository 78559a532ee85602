"""Renderers: the catalog in, plain data out.

Every function here is pure: it reads the catalog and returns dicts, lists and strings for a template
in ``macros/templates/`` to turn into markup. Table cells are lists of *parts*, each a one-key dict
(``{"text": ...}``, ``{"link": {"href", "text"}}``, ``{"fact": ...}``, ``{"cite": ...}`` ...) that the
``cell`` macro of ``_lib.html`` knows how to draw; links are site paths that the template makes
relative to the page. The tests call these functions on small catalogs and check the data.
"""

import hashlib
from urllib.parse import urlencode

from selector.rules import recommend

from . import charts

FEATURES = [
    ("openai_api", "OpenAI-compatible API"),
    ("continuous_batching", "Continuous batching"),
    ("paged_kv", "Paged / block KV cache"),
    ("prefix_caching", "Prefix caching"),
    ("chunked_prefill", "Chunked prefill"),
    ("speculative_decoding", "Speculative decoding"),
    ("pd_disaggregation", "Prefill/decode disaggregation"),
    ("expert_parallelism", "Expert parallelism"),
    ("multi_lora", "Multi-LoRA"),
    ("structured_output", "Structured output"),
    ("multimodal", "Multimodal input"),
    ("cpu_offload", "CPU weight offload"),
]
KIND_LABEL = {"engine": "Engine", "orchestration": "Orchestration layer", "kv-cache": "KV-cache layer"}
TIER_PAGE = {"L1": "tiers/l1/", "L1.5": "tiers/l1-5/", "L2": "tiers/l2/", "L3": "tiers/l3/"}
TIER_ORDER = {"L1": 1, "L1.5": 2, "L2": 3, "L3": 4}
METHOD_LABEL = {"ngram": "n-gram", "draft-model": "draft model", "eagle": "EAGLE", "eagle3": "EAGLE-3",
                "medusa": "Medusa", "mtp": "MTP", "lookahead": "lookahead", "suffix": "suffix decoding",
                "experts": "MoE experts on the CPU", "layers": "whole layers on the CPU",
                "weights-streaming": "weights streamed from host RAM"}
REL_LABEL = {"backend": "runs on top of", "integrates-with": "integrates with", "built-on": "is built on",
             "kernels-merged-into": "has its kernels merged into"}
OWNER_PAGE = {"quantization": "quantization/", "formats": "formats/", "hardware": "quantization/", "gpus": "quantization/",
              "models": "models/", "trends": "trends/", "matrix": "matrix/", "tiers": "overview/", "scenarios": "scenarios/",
              "results": "results/", "glossary": "glossary/"}


# -- parts ------------------------------------------------------------------------------------------

def text(value):
    return {"text": "" if value is None else str(value)}


def link(href, label):
    return {"link": {"href": href, "text": str(label)}}


def ext_link(url, label):
    return {"ext": {"href": url, "text": str(label)}}


def source(src):
    """A citation as data (``None`` when absent)."""
    if not src:
        return None
    return {"url": src["url"], "title": src["title"], "kind": src["kind"], "kind_label": src["kind"].replace("-", " "),
            "as_of": src["as_of"], "published": src.get("published"), "publisher": src.get("publisher")}


def cite(catalog, entry, key):
    src = source(catalog.cite(entry, key))
    return {"cite": src} if src else None


def fact(catalog, entry, f, missing_note=None):
    """A support fact (``value`` or ``support``) with its note, methods and citation."""
    if f is None:
        return {"fact": {"value": "unknown", "note": missing_note, "methods": None, "cite": None}}
    methods = ", ".join(METHOD_LABEL.get(m, m) for m in f.get("methods", [])) or None
    return {"fact": {"value": f.get("value") or f.get("support") or "unknown", "note": f.get("note"), "methods": methods,
                     "cite": source(catalog.cite(entry, f.get("source")))}}


def parts(*items):
    return [p for p in items if p is not None]


def engine_url(engine_id):
    return f"engines/{engine_id}/"


def engine_link(catalog, engine_id):
    engine = catalog.engines.get(engine_id)
    return link(engine_url(engine_id), engine["name"] if engine else engine_id)


def tier_link(tier_id):
    return link(TIER_PAGE[tier_id], tier_id)


def engines_ordered(catalog, kinds=None):
    return sorted((e for e in catalog.engines.values() if kinds is None or e["kind"] in kinds),
                  key=lambda e: (TIER_ORDER[e["tier"]], e["kind"] != "engine", e["name"].lower()))


PICK_MIN = 7  # a table with at least this many engine columns gets an engine picker above it
WIDE_MIN = 6  # columns from which a table counts as wide: sticky header in its own scroll box, scroll hint


def plain(cell):
    """The visible text of a cell (a list of parts), without citations: for labels and comparisons."""
    out = []
    for p in cell:
        for key in ("text", "strong", "small", "warn", "unknown", "span", "sep"):
            if key in p:
                out.append(str(p[key]))
        for key in ("link", "ext"):
            if key in p:
                out.append(p[key]["text"])
        if "fact" in p:
            out.append(p["fact"]["value"] + (f" ({p['fact']['methods']})" if p["fact"].get("methods") else ""))
        if "score" in p:
            out.append(f"{p['score']['n']}/5")
    return " ".join(x for x in out if x.strip())


def table(headers, rows, cls="iem-table", caption=None, table_id=None, cols=None, stack=False, search=None):
    """A table as data: header cells and rows of cells, each cell a list of parts; column 0 is the row header.

    ``cols`` names the data columns (engine ids): every cell of a column carries its id, and a table with
    ``PICK_MIN`` or more of them gets an engine picker (``?engines=a,b``). ``stack``: on phones each row
    becomes a card, its cells labelled with their column headers (``labels``, the headers' plain text).
    ``search``: whether the site search indexes it (default: all but wide tables, whose cells repeat the
    engine pages; the index is loaded and parsed on every page)."""
    headers = [h if isinstance(h, list) else [text(h)] for h in headers]
    labels = [plain(h) for h in headers]
    picker = [{"id": c, "label": label} for c, label in zip(cols, labels[1:])] if cols and len(cols) >= PICK_MIN else None
    return {"headers": headers, "rows": [[c if isinstance(c, list) else [c] for c in row] for row in rows],
            "cls": cls + (" iem-stack" if stack else ""), "caption": caption, "id": table_id, "labels": labels,
            "cols": list(cols) if cols else None, "picker": picker, "wide": len(headers) >= WIDE_MIN or bool(cols),
            "stack": stack, "search": search}


def figure_rows(catalog, entry, figures):
    out = []
    for f in figures:
        head = [{"strong": f["display"], "id": f"fig-{f['id']}"}]
        if f.get("vendor_reported"):
            head.append({"vendor": True})
        claim = [text(f["claim"])]
        if f.get("setup"):
            claim += [{"br": True}, {"small": f["setup"]}]
        out.append([head, claim, parts(cite(catalog, entry, f["source"]))])
    return out


# -- overview and grids -------------------------------------------------------------------------------

def overview_table(catalog):
    rows = []
    for e in engines_ordered(catalog):
        status = e["status"]
        if status["value"] != "active":
            status_cell = [{"warn": f"⚠ {status['value']} since {status['since']}"}]
        else:
            status_cell = [text(status["value"])]
        rows.append([engine_link(catalog, e["id"]), tier_link(e["tier"]), text(KIND_LABEL[e["kind"]]),
                     text(e["maintainer"]["value"]), text(e["license"]["value"]), status_cell, text(e["positioning"])])
    return table(["System", "Tier", "Kind", "Maintainer", "License", "Status", "Positioning"], rows,
                 cls="iem-table iem-overview", stack=True)


def _engine_headers(catalog, engines):
    return [[engine_link(catalog, e["id"])] for e in engines]


def feature_table(catalog, kinds=("engine",)):
    engines = engines_ordered(catalog, kinds)
    rows = [[text(label)] + [fact(catalog, e, e["features"][key]) for e in engines] for key, label in FEATURES]
    return table(["Feature"] + _engine_headers(catalog, engines), rows, cls="iem-table iem-matrixlike",
                 cols=[e["id"] for e in engines])


def support_grid(catalog, collection, list_name, kinds=("engine",)):
    engines = engines_ordered(catalog, kinds)
    items = sorted(getattr(catalog, collection).values(), key=lambda x: x["name"].lower())
    rows = []
    for item in items:
        row = [{"anchor": f"{list_name}-{item['id']}", "text": item["name"]}]
        for e in engines:
            row.append(fact(catalog, e, catalog.support(e, list_name, item["id"]), missing_note="No source found"))
        rows.append(row)
    return table([collection.capitalize()] + _engine_headers(catalog, engines), rows, cls="iem-table iem-matrixlike",
                 cols=[e["id"] for e in engines])


def format_table(catalog):
    return support_grid(catalog, "formats", "formats")


def hardware_table(catalog):
    return support_grid(catalog, "hardware", "hardware")


def format_list(catalog):
    rows = [[text(f["name"]), text(", ".join(f.get("file_extensions", []))),
             parts(text(f["summary"]), cite(catalog, f, f["source"]))]
            for f in sorted(catalog.formats.values(), key=lambda f: f["name"].lower())]
    return table(["Format", "Files", "What it is"], rows)


# -- quantization ----------------------------------------------------------------------------------

def _quant_order(catalog):
    return sorted(catalog.quantization.values(), key=lambda q: (q["applies_to"], -q["bits_per_weight"], q["name"].lower()))


def quant_reference(catalog):
    hardware = sorted(catalog.hardware.values(), key=lambda h: h["name"].lower())
    rows = []
    for q in _quant_order(catalog):
        native = [h["name"] for h in hardware if h["id"] in q["native_hardware"]]
        rows.append([
            {"anchor": f"q-{q['id']}", "text": q["name"]},
            text("weights" if q["applies_to"] == "weights" else "KV cache"),
            text(f"{q['bits_per_weight']:g}"),
            text(", ".join(native) or "none (stored, computed wider)"),
            parts(text(q["summary"]), cite(catalog, q, q["source"])),
        ])
    return table(["Scheme", "Applies to", "Bits per value", "Native compute on", "Notes"], rows)


def quant_cell(catalog, e, q):
    """One engine's support for one scheme: a badge, the hardware and a citation per documented entry."""
    entries = catalog.support_all(e, "quantization", q["id"])
    if not entries:
        return [fact(catalog, e, None, missing_note="Not in this engine's documented schemes")]
    cell = []
    for i, entry in enumerate(entries):
        if i:
            cell.append({"br": True})
        hw = ", ".join(catalog.name_of("hardware", h) for h in entry["hardware"])
        cell += parts({"fact": {**fact(catalog, e, entry)["fact"], "cite": None}}, {"br": True}, {"small": hw},
                      cite(catalog, e, entry["source"]))
    return cell


SUPPORT_ORDER = ("yes", "partial", "no")


def quant_summary(catalog, e, q):
    """One engine's support for one scheme, shortened for the compare view: a badge per support level and
    the hardware it covers (in the catalog's order). The notes and citations of each entry are on the
    quantization page, which the compare view links to."""
    entries = catalog.support_all(e, "quantization", q["id"])
    if not entries:
        return [fact(catalog, e, None, missing_note="Not in this engine's documented schemes")]
    order = {h: i for i, h in enumerate(sorted(catalog.hardware, key=lambda h: catalog.name_of("hardware", h).lower()))}
    cell = []
    for value in SUPPORT_ORDER:
        hw = sorted({h for x in entries if x["support"] == value for h in x["hardware"]}, key=lambda h: order.get(h, len(order)))
        if not hw:
            continue
        if cell:
            cell.append({"br": True})
        cell += [{"fact": {"value": value, "note": None, "methods": None, "cite": None}}, {"br": True},
                 {"small": ", ".join(catalog.name_of("hardware", h) for h in hw)}]
    return cell


def quant_engine_table(catalog):
    engines = engines_ordered(catalog, ("engine",))
    rows = [[text(q["name"])] + [quant_cell(catalog, e, q) for e in engines] for q in _quant_order(catalog)]
    return table(["Scheme"] + _engine_headers(catalog, engines), rows, cls="iem-table iem-matrixlike",
                 cols=[e["id"] for e in engines])


def gpu_table(catalog):
    counts = result_counts(catalog, "gpu")
    rows = [[text(g["name"]), text(catalog.name_of("hardware", g["hardware"])), text(f"{g['memory_gib']:g} GiB"),
             text(g.get("memory_type", "")), text(f"{g['bandwidth_gbs']:g} GB/s"),
             parts(text(g.get("note", "")), cite(catalog, g, g["source"])), results_link_cell(counts, "gpu", g["id"])]
            for g in sorted(catalog.gpus.values(), key=lambda g: (g["hardware"], -g["memory_gib"]))]
    return table(["Accelerator", "Family", "Memory", "Type", "Bandwidth", "Notes", "Measured results"], rows)


def attention_text(model):
    att = model["attention"]
    if att["type"] == "mla":
        out = f"MLA, latent {att['kv_lora_rank']} + RoPE {att['qk_rope_head_dim']}"
    else:
        out = f"{att['type'].upper()}, {att['kv_heads']} KV heads × {att['head_dim']}"
    kinds = att.get("layers") or {}
    extra = [f"{n} {k}" for k, n in kinds.items() if n and k != "full"]
    if extra:
        out += f"; {kinds.get('full', 0)} full, " + ", ".join(extra) + " layers"
        if att.get("window"):
            out += f" (window {att['window']})"
    return out


def model_table(catalog):
    counts = result_counts(catalog, "model")
    rows = []
    for m in sorted(catalog.models.values(), key=lambda m: (m["vendor"].lower(), m["total_params_b"])):
        rows.append([text(m["name"]), text(m["architecture"].upper()), text(f"{m['total_params_b']:g}B"),
                     text(f"{m['active_params_b']:g}B"), text(m["layers"]), text(attention_text(m)),
                     text(catalog.name_of("quantization", m["native_precision"])), parts(cite(catalog, m, m["source"])),
                     results_link_cell(counts, "model", m["id"])])
    return table(["Model", "Type", "Total", "Active", "Layers", "Attention", "Ships in", "Source", "Measured results"], rows)


def all_figures(catalog):
    rows = []
    for collection in ("engines", "quantization", "trends"):
        for entry in sorted(getattr(catalog, collection).values(), key=lambda x: x["id"]):
            name = entry.get("name") or entry.get("title")
            for row in figure_rows(catalog, entry, entry.get("figures", [])):
                rows.append([[text(name)]] + row)
    return table(["Subject", "Figure", "What it measures", "Source"], rows)


# -- engine pages -------------------------------------------------------------------------------------

def source_list(entry):
    items = []
    for key, s in sorted((entry.get("sources") or {}).items(), key=lambda kv: kv[1]["title"].lower()):
        items.append(source(s))
    return items


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
    sections.append({"heading": "Measured results", "template": "results-engine.html", "data": engine_results(catalog, engine_id)})
    sections.append({"heading": "Sources", "template": "sources-list.html", "data": {"sources": source_list(e)}})
    return {"name": e["name"], "head": head, "sections": sections}


def engine_index(catalog):
    sections = []
    for tier in sorted(catalog.tiers.values(), key=lambda t: t["order"]):
        engines = [e for e in engines_ordered(catalog) if e["tier"] == tier["id"]]
        items = [parts(engine_link(catalog, e["id"]), text(f"— {e['positioning']}")) for e in engines]
        sections.append({"heading": f"{tier['id']}: {tier['name']}", "template": "list.html", "data": {"items": items}})
    return {"sections": sections}


# -- tiers --------------------------------------------------------------------------------------------

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
                         "data": {"t": table(["Feature"] + _engine_headers(catalog, engines), rows, cls="iem-table iem-matrixlike",
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


# -- trends -------------------------------------------------------------------------------------------

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


# -- matrix -------------------------------------------------------------------------------------------

def matrix(catalog):
    dims = catalog.dimensions()
    engines = catalog.matrix_engines()
    rows, notes = [], []
    n = 0
    for d in dims:
        row = [[{"span": d["name"], "title": d["question"]}]]
        for e in engines:
            s = d["scores"].get(e)
            if not s:
                row.append(fact(catalog, d, None))
                continue
            n += 1
            row.append([{"score": {"n": s["score"], "rationale": s["rationale"], "note": n}}])
            notes.append([[{"backref": n}], text(d["name"]), engine_link(catalog, e), text(s["score"]),
                          parts(text(s["rationale"]), cite(catalog, d, s["source"]))])
        rows.append(row)
    return {"scores": table(["Dimension"] + [[engine_link(catalog, e)] for e in engines], rows, cls="iem-table iem-matrix",
                            cols=engines),
            "notes": table(["#", "Dimension", "Engine", "Score", "Rationale and source"], notes, cls="iem-table iem-notes",
                           stack=True)}


# -- tree ---------------------------------------------------------------------------------------------

def tree_list(catalog):
    tree = catalog.tree
    branches = []
    for b in tree["branches"]:
        leaves = []
        for leaf in b["leaves"]:
            leaves.append({"id": leaf["id"], "label": leaf["label"], "default": bool(leaf.get("default")),
                           "engines": [engine_link(catalog, x) for x in leaf["engines"]],
                           "also": [engine_link(catalog, x) for x in leaf.get("also", [])],
                           "with": [engine_link(catalog, x) for x in leaf.get("with", [])], "note": leaf.get("note")})
        branches.append({"id": b["id"], "label": b["label"], "question": b["question"], "leaves": leaves})
    return {"id": tree["id"], "question": tree["question"], "branches": branches, "warnings": [w["text"] for w in tree["warnings"]]}


# Mermaid decodes its own entity codes (#quot;, #60;), treats `...` as Markdown and %% as a directive,
# then inserts labels as sanitized HTML: spell every special character as a Mermaid code so any text
# comes out literally.
MERMAID_CODES = {"#": "#35;", "&": "#amp;", "<": "#lt;", ">": "#gt;", '"': "#quot;", "'": "#39;", "`": "#96;", "%": "#37;",
                 "\n": " ", "\r": " "}


def mermaid_label(value):
    return '"' + "".join(MERMAID_CODES.get(ch, ch) for ch in str(value)) + '"'


def tree_mermaid_source(catalog):
    tree = catalog.tree
    lines = ["flowchart LR", f"  root[{mermaid_label(tree['question'])}]"]
    for i, b in enumerate(tree["branches"]):
        bid = f"b{i}"
        lines.append(f"  root --> {bid}[{mermaid_label(b['label'])}]")
        for j, leaf in enumerate(b["leaves"]):
            names = ", ".join(catalog.name_of("engines", x) for x in leaf["engines"])
            lines.append(f"  {bid} -->|{mermaid_label(leaf['label'])}| {bid}l{j}([{mermaid_label(names)}])")
    return "\n".join(lines)


def tree_diagram(catalog):
    return {"source": tree_mermaid_source(catalog)}


# -- scenarios ------------------------------------------------------------------------------------------

def scenario_query(answers):
    return urlencode({k: ",".join(v) if isinstance(v, list) else v for k, v in answers.items()}, safe=",")


def scenario_engines(catalog, scenario, limit=2):
    """The selector's first candidates for the scenario's answers: the engines column is the selector's own answer."""
    return [c["engine"] for c in recommend(catalog, scenario["answers"])["candidates"][:limit]]


def scenarios(catalog):
    rows = []
    for s in sorted(catalog.scenarios.values(), key=lambda s: s["order"]):
        names = []
        for i, e in enumerate(scenario_engines(catalog, s)):
            if i:
                names.append({"sep": ", "})
            names.append(engine_link(catalog, e))
        rows.append([text(s["situation"]), text(s["answer"]), names, link("selector/?" + scenario_query(s["answers"]), "try it")])
    return table(["Situation", "Answer", "Engines", "Selector"], rows)


# -- sources and freshness ------------------------------------------------------------------------------

def owner_link(catalog, collection, entry_id):
    if collection == "engines":
        return engine_link(catalog, entry_id)
    if collection == "results" and entry_id in catalog.results:
        rs = catalog.results[entry_id]
        return link(result_url(set=rs.get("comparable_set") or entry_id), rs["title"])
    target = OWNER_PAGE.get(collection, "sources/")
    entry = getattr(catalog, collection, {}).get(entry_id, {}) if entry_id else {}
    label = entry.get("name") or entry.get("title") or entry_id or collection
    return link(target, label)


def sources_table(catalog):
    rows = []
    for collection, entry_id, _key, s in catalog.all_sources():
        rows.append([ext_link(s["url"], s["title"]), text(s["kind"]), text(s.get("published", "")), text(s["as_of"]),
                     owner_link(catalog, collection, entry_id)])
    # the list of every citation stays out of the search index (each engine page lists its own sources)
    return table(["Source", "Kind", "Published", "Checked", "Cited by"], rows, cls="iem-table iem-sources-table", stack=True,
                 search=False)


def source_counts(catalog):
    counts = {}
    for _, _, _, s in catalog.all_sources():
        counts[s["kind"]] = counts.get(s["kind"], 0) + 1
    return counts


def stale_facts(catalog, limit=40):
    rows = [(s["as_of"], s.get("published", ""), collection, entry_id, s) for collection, entry_id, _key, s in catalog.all_sources()]
    rows.sort(key=lambda r: (r[0], r[1] or "9999"))
    out = [[text(a), text(p), owner_link(catalog, c, i), ext_link(s["url"], s["title"])] for a, p, c, i, s in rows[:limit]]
    return table(["Checked", "Published", "Entry", "Source"], out)


def verified_table(catalog):
    rows = [[engine_link(catalog, e["id"]), text(e["verified"])] for e in sorted(catalog.engines.values(), key=lambda e: e["verified"])]
    return table(["System", "Last verified"], rows)


# -- compare ----------------------------------------------------------------------------------------------

COMPARE_MAX = 6  # systems side by side in the compare view


def compare_key(cell):
    """A cell's value for "only differences": its visible text without citations, notes or case (a long
    one as a short digest: the page script only tests keys for equality)."""
    key = " ".join(plain(cell).lower().split())
    return key if len(key) <= 40 else "#" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def compare(catalog):
    """Every system side by side; each column carries its engine id so the page script can show the
    reader's picks in the reader's order (``?engines=vllm,sglang``). Without JavaScript all columns show.

    ``rows`` is a plain list: a string starts a group of rows, ``(label, cells)`` is a row with one cell per
    engine, ``(label, cells, keys)`` gives each cell's comparison key explicitly (otherwise
    :func:`compare_key`). The page script hides a row whose shown cells all have the same key."""
    engines = engines_ordered(catalog)
    counts = result_counts(catalog, "engine")

    def figures(e):
        cell = []
        for f in e.get("figures", []):
            if cell:
                cell.append({"br": True})
            cell += parts({"strong": f["display"]}, {"vendor": True} if f.get("vendor_reported") else None,
                          cite(catalog, e, f["source"]))
        return cell or [{"unknown": "none recorded"}]

    def score(d, e):
        s = d["scores"].get(e["id"])
        if not s:
            return [{"unknown": "not scored"}]
        return parts({"score": {"n": s["score"], "rationale": s["rationale"], "note": None}}, {"br": True},
                     {"small": s["rationale"]}, cite(catalog, d, s["source"]))

    def support(e, list_name, item_id):
        return [fact(catalog, e, catalog.support(e, list_name, item_id), missing_note="Not documented for this system")]

    rows = [
        "At a glance",
        ("Tier", [[tier_link(e["tier"])] for e in engines]),
        ("Kind", [[text(KIND_LABEL[e["kind"]])] for e in engines]),
        ("Status", [parts(text(e["status"]["value"]), cite(catalog, e, e["status"]["source"])) for e in engines]),
        ("License", [[text(e["license"]["value"])] for e in engines]),
        ("Positioning", [[text(e["positioning"])] for e in engines]),
        ("Headline figures", [figures(e) for e in engines]),
        "Decision matrix",
    ]
    for d in catalog.dimensions():
        label = [link(f"matrix/#rubric-{d['id']}", d["name"])]
        rows.append((label, [score(d, e) for e in engines],
                     [str(d["scores"][e["id"]]["score"]) if e["id"] in d["scores"] else "" for e in engines]))
    rows.append("Serving features")
    rows += [(label, [[fact(catalog, e, e["features"][key])] for e in engines]) for key, label in FEATURES]
    for title, collection in (("Hardware", "hardware"), ("Weight formats", "formats")):
        rows.append(title)
        items = sorted(getattr(catalog, collection).values(), key=lambda x: x["name"].lower())
        rows += [(item["name"], [support(e, collection, item["id"]) for e in engines]) for item in items]
    rows.append("Quantization")
    rows += [(q["name"], [quant_summary(catalog, e, q) for e in engines]) for q in _quant_order(catalog)]
    rows.append("Measured results")
    rows.append(("Published measurements", [results_compare_cell(counts, e["id"]) for e in engines]))

    out, group = [], None
    for r in rows:
        if isinstance(r, str):
            group = r
            continue
        label, cells, *keys = r
        out.append({"label": label if isinstance(label, list) else [text(label)], "group": group, "cells": cells,
                    "cmp": keys[0] if keys else [compare_key(c) for c in cells]})
    return {"engines": [{"id": e["id"], "name": e["name"], "link": engine_link(catalog, e["id"])} for e in engines],
            "rows": out, "max": COMPARE_MAX}


# -- glossary ---------------------------------------------------------------------------------------

def term_anchor(term):
    """The glossary page's anchor for a term (terms are unique ignoring case, see checks.check_glossary)."""
    return "term-" + term.lower()


def glossary(catalog):
    """Every term, alphabetically, with its expansion, definition and citation."""
    g = catalog.glossary or {}
    terms = sorted(g.get("terms", []), key=lambda t: (t["term"].lower(), t["term"]))
    return {"terms": [{"term": t["term"], "anchor": term_anchor(t["term"]), "expansion": t["expansion"],
                       "definition": t["definition"], "cite": source(catalog.cite(g, t["source"]))} for t in terms]}


def abbreviations(catalog):
    """``{term: expansion}`` for the Markdown ``abbr`` extension's glossary: every term the data does not
    mark ``abbr: false``. The extension sets the expansion as an element attribute (escaped by the
    serializer), so data text never becomes Markdown source."""
    return {t["term"]: t["expansion"] for t in (catalog.glossary or {}).get("terms", []) if t.get("abbr", True)}


# -- matrix rubric ----------------------------------------------------------------------------------

RUBRIC_LEVELS = (("five", "5 means"), ("three", "3 means"), ("one", "1 means"))


def matrix_rubric(catalog):
    """What a 5, a 3 and a 1 mean on each dimension of the matrix (4 and 2 sit between)."""
    rows = []
    for d in catalog.dimensions():
        rubric = d.get("rubric") or {}
        row = [[{"anchor": f"rubric-{d['id']}", "text": d["name"]}, {"br": True}, {"small": d["question"]}]]
        row += [[text(rubric[key])] if rubric.get(key) else [{"unknown": "not defined"}] for key, _ in RUBRIC_LEVELS]
        rows.append(row)
    return table(["Dimension"] + [label for _, label in RUBRIC_LEVELS], rows, cls="iem-table iem-rubric")

# -- measured results -----------------------------------------------------------------------------------
# data/results holds published sets of measurements; sets that share a method share a ``comparable_set``.
# The explorer groups rows by comparable set and never draws two sets in one chart.

RESULT_FILTERS = [("engine", "Engine"), ("gpu", "GPU"), ("model", "Model"), ("weights", "Weight precision"),
                  ("set", "Comparable set (method and lengths)"), ("concurrency", "Concurrency")]
NO_CONCURRENCY = "none"  # filter value of rows whose method fixes no concurrency (MLPerf Offline, Server ...)
# metric key -> (column heading, unit)
RESULT_METRICS = {
    "throughput_per_gpu": ("Throughput per GPU", "tokens/s"),
    "throughput_total": ("System throughput", "tokens/s"),
    "output_tps_per_user": ("Output speed per user", "tokens/s"),
    "prompt_tps": ("Prompt processing", "tokens/s"),
    "decode_tps": ("Decode, one sequence", "tokens/s"),
    "requests_per_s": ("Requests", "per s"),
    "ttft_ms": ("Time to first token", "ms"),
    "tpot_ms": ("Time per output token", "ms"),
    "itl_ms": ("Inter-token latency", "ms"),
    "energy_j_per_token": ("Energy", "J per token"),
    "power_w": ("Power", "W"),
}
LATENCY_STATS = (("median", "p50"), ("p99", "p99"), ("mean", "mean"), ("p90", "p90"), ("p95", "p95"))
# the figure a set is summed up by, best first: bars use it, engine pages quote it
HEADLINE_METRICS = ("throughput_per_gpu", "decode_tps", "throughput_total", "prompt_tps", "output_tps_per_user", "requests_per_s")
RESULT_KIND_RANK = {"benchmark-suite": 0, "audited-benchmark": 1, "engine-project": 2, "vendor": 3, "paper": 4, "community": 5}
RESULT_KIND_LABEL = {"audited-benchmark": "audited benchmark", "benchmark-suite": "independent benchmark suite",
                     "vendor": "hardware or cloud vendor", "engine-project": "the engine's own team", "community": "community",
                     "paper": "paper"}
SCATTER = {"width": 480, "height": 340, "left": 70, "right": 14, "top": 12, "bottom": 58}
BARS = {"width": 480, "row": 30, "top": 38, "bottom": 8, "pad": 6}


def result_url(**query):
    """The explorer's address filtered by ``query`` (``engine="vllm"`` -> ``results/?engine=vllm``)."""
    return "results/" + ("?" + urlencode(query, safe=",") if query else "")


def _result_date(rs, row):
    if row.get("date"):
        return row["date"], "run"
    src = rs["sources"].get(rs["source"]) or {}
    if src.get("published"):
        return src["published"], "published"
    return src.get("as_of", rs["verified"]), "as of"


def _result_marks(rs):
    marks = []
    if rs["vendor_reported"]:
        marks.append({"mark": "vendor-reported", "cls": "vendor",
                      "title": "Measured by whoever sells the hardware or builds the engine measured"})
    if rs["kind"] == "community":
        marks.append({"mark": "community", "cls": "community", "title": "Measured and shared by users, not audited"})
    if rs.get("derived"):
        marks.append({"mark": "derived, unofficial", "cls": "derived",
                      "title": "Some values were computed on this site from the published figures"})
    return marks


def result_rows(catalog):
    """Every row of every set, flattened, with what the pages need worked out once: its comparable set,
    per-user speed (measured, or derived as 1000 / median TPOT), concurrency, date and the filter values."""
    out = []
    for set_id in sorted(catalog.results):
        rs = catalog.results[set_id]
        group = rs.get("comparable_set") or set_id
        for i, row in enumerate(rs["rows"]):
            m = row["metrics"]
            per_user, derived_user = m.get("output_tps_per_user"), False
            tpot = (m.get("tpot_ms") or {}).get("median")
            if per_user is None and tpot:
                per_user, derived_user = round(1000 / tpot, 1), True
            conc = row.get("concurrency", rs["method"].get("concurrency"))
            date, basis = _result_date(rs, row)
            out.append({"id": f"r{len(out)}", "set_id": set_id, "set": rs, "group": group, "row": row, "index": i,
                        "per_user": per_user, "derived_user": derived_user, "concurrency": conc,
                        "date": date, "date_basis": basis,
                        "filters": {"engine": row["engine"], "gpu": row["gpu"], "model": row["model"], "weights": row["weights"],
                                    "set": group, "concurrency": str(conc) if conc else NO_CONCURRENCY}})
    return out


def _headline(members):
    """The metric a group of rows is summed up by: the first of HEADLINE_METRICS that any row has."""
    for key in HEADLINE_METRICS:
        if any(key in r["row"]["metrics"] for r in members):
            return key
    return None


def _common_words(texts):
    words = [t.split() for t in texts]
    common = []
    for column in zip(*words):
        if len(set(column)) != 1:
            break
        common.append(column[0])
    return " ".join(common).rstrip(" ,;:(")


def _names(catalog, collection, ids, limit=3):
    names = [catalog.name_of(collection, i) for i in ids]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _lengths_text(method):
    i, o = method.get("input_tokens"), method.get("output_tokens")
    if i and o:
        return f"{i:,} input / {o:,} output tokens"
    if i:
        return f"{i:,} input tokens"
    if o:
        return f"{o:,} output tokens"
    return None


def _group_title(catalog, sets, members):
    if len(sets) == 1:
        return sets[0]["title"]
    models = _names(catalog, "models", sorted({r["row"]["model"] for r in members}, key=lambda m: catalog.name_of("models", m).lower()))
    bits = [_common_words([s["method"]["tool"] for s in sets]) or "one method"]
    method = sets[0]["method"]
    if _lengths_text(method):
        bits.append(_lengths_text(method))
    if method.get("concurrency"):
        bits.append(f"concurrency {method['concurrency']}")
    return f"{models}: " + ", ".join(bits)


def _distinct(values):
    out = []
    for v in values:
        if v and v not in out:
            out.append(v)
    return out


def _group_method(sets, members):
    """The method of a comparable set in words, as (label, [texts]) pairs."""
    first = sets[0]["method"]
    tools = _distinct(s["method"]["tool"] for s in sets)
    if len(tools) > 1:
        tools = [f"{s['method']['tool']} ({s['title']})" for s in sets]
    lengths = _lengths_text(first)
    if any(r["row"].get("input_tokens") or r["row"].get("output_tokens") for r in members):
        lengths = ((lengths + "; ") if lengths else "") + "some rows set their own lengths (see the table)"
    datasets = _distinct(s["method"].get("dataset") for s in sets)
    if not lengths:
        lengths = "set by the dataset" if datasets else "not stated by the source"
    if first.get("concurrency"):
        conc = f"{first['concurrency']} (every row)"
    elif any(r["row"].get("concurrency") for r in members):
        conc = "per row (see the table)"
    else:
        conc = "no fixed number: the load generator sets the load"
    items = [("Tool", tools), ("Scenario", _distinct(s["method"].get("scenario") for s in sets)),
             ("Lengths", [lengths]), ("Concurrency", [conc]), ("Dataset", datasets),
             ("What throughput counts", _distinct(s["method"]["throughput_counts"] for s in sets))]
    return [{"label": label, "texts": texts} for label, texts in items if texts]


def _metric_cell(key, value, derived=False):
    if value is None:
        return [text("")]
    if key in ("ttft_ms", "tpot_ms", "itl_ms"):
        shown = [(short, value[stat]) for stat, short in LATENCY_STATS if stat in value]
        if "median" in value or "p99" in value:
            shown = [(s, v) for s, v in shown if s in ("p50", "p99")]
        return [text(" · ".join(f"{s} {charts.number(v)}" for s, v in shown))]
    cell = [text(charts.number(value))]
    if derived:
        cell.append({"mark": "derived", "cls": "derived", "title": "1000 / median time per output token, computed on this site"})
    return cell


def _row_identity(catalog, r, with_engine=True, with_model=True):
    """What tells a row from the others of its chart, most telling first (a bar's label)."""
    row = r["row"]
    bits = [catalog.name_of("engines", row["engine"])] if with_engine else []
    gpu = catalog.name_of("gpus", row["gpu"])
    bits.append(gpu if row["gpus"] == 1 else f"{row['gpus']}× {gpu}")
    if with_model:
        bits.append(catalog.name_of("models", row["model"]))
    bits.append(catalog.name_of("quantization", row["weights"]))
    if row.get("backend"):
        bits.append(row["backend"])
    if row.get("system"):
        bits.append(row["system"].split(",")[0])
    if row.get("variant"):
        bits.append(row["variant"])
    return bits


def _row_title(catalog, r, figures):
    row = r["row"]
    who = [catalog.name_of("engines", row["engine"]) + (f" {row['engine_version']}" if row.get("engine_version") else ""),
           f"{row['gpus']}× {catalog.name_of('gpus', row['gpu'])}", catalog.name_of("models", row["model"]),
           catalog.name_of("quantization", row["weights"])]
    for key in ("backend", "parallelism", "system", "variant"):
        if row.get(key):
            who.append(row[key])
    if r["concurrency"]:
        who.append(f"concurrency {r['concurrency']}")
    return " · ".join(who) + ": " + "; ".join(figures) + f" ({r['date']}, {r['date_basis']})"


def _styles(catalog, rows):
    """Colour slot and marker shape of each engine with rows, in the site's engine order."""
    present = {r["row"]["engine"] for r in rows}
    ids = [e["id"] for e in engines_ordered(catalog) if e["id"] in present] + sorted(present - set(catalog.engines))
    return {eid: {"slot": i % charts.PALETTE_SIZE, "shape": charts.SHAPES[i % len(charts.SHAPES)]} for i, eid in enumerate(ids)}


def _legend(catalog, members, styles):
    engines = [eid for eid in styles if any(r["row"]["engine"] == eid for r in members)]
    return [{"id": eid, "name": catalog.name_of("engines", eid), **styles[eid]} for eid in engines]


def _scatter(catalog, gid, members, styles):
    g = SCATTER
    x = charts.Axis([r["per_user"] for r in members], g["left"], g["width"] - g["right"])
    y = charts.Axis([r["row"]["metrics"]["throughput_per_gpu"] for r in members], g["height"] - g["bottom"], g["top"])
    points = []
    for r in sorted(members, key=lambda r: (r["per_user"], r["id"])):
        tput = r["row"]["metrics"]["throughput_per_gpu"]
        figures = [f"{charts.number(tput)} tokens/s per GPU",
                   f"{charts.number(r['per_user'])} output tokens/s per user" + (" (derived from median TPOT)" if r["derived_user"] else "")]
        points.append({"row": r["id"], "attrs": r["filters"], "x": x(r["per_user"]), "y": y(tput), "derived": r["derived_user"],
                       "title": _row_title(catalog, r, figures), **styles[r["row"]["engine"]]})
    derived = any(p["derived"] for p in points)
    scale = [name for name, axis in (("per-user speed", x), ("throughput", y)) if axis.log]
    return {"kind": "scatter", "id": f"chart-{gid}-xy", "set": gid, "width": g["width"], "height": g["height"],
            "plot": {"left": g["left"], "right": g["width"] - g["right"], "top": g["top"], "bottom": g["height"] - g["bottom"]},
            "title": f"Throughput per GPU against output speed per user, {len(points)} rows",
            "scale_note": ("logarithmic scale on " + " and ".join(scale)) if scale else None,
            "x": {"label": "Output tokens/s per user" + (" (log scale)" if x.log else ""), "ticks": x.tick_marks()},
            "y": {"label": "Tokens/s per GPU" + (" (log scale)" if y.log else ""), "ticks": y.tick_marks()},
            "points": points, "legend": _legend(catalog, members, styles), "derived": derived, "derived_shape": charts.SHAPES[0]}


def _bars(catalog, gid, members, styles, key):
    g = BARS
    label, unit = RESULT_METRICS[key]
    axis = charts.Axis([r["row"]["metrics"][key] for r in members], g["pad"], g["width"] - g["pad"], log=False, target=4)
    several_models = len({r["row"]["model"] for r in members}) > 1
    several_engines = len({r["row"]["engine"] for r in members}) > 1
    bars = []
    for i, r in enumerate(sorted(members, key=lambda r: (-r["row"]["metrics"][key], r["id"]))):
        value = r["row"]["metrics"][key]
        top = g["top"] + i * g["row"]
        bars.append({"row": r["id"], "attrs": r["filters"], "slot_index": i, "top": top, "text_y": top + 13, "bar_y": top + 18,
                     "width": max(round(axis(value) - g["pad"], 1), 1), "value": charts.number(value),
                     "label": charts.truncate(" · ".join(_row_identity(catalog, r, several_engines, several_models)), 50),
                     "title": _row_title(catalog, r, [f"{charts.number(value)} {unit} ({label.lower()})"]),
                     **styles[r["row"]["engine"]]})
    height = g["top"] + len(bars) * g["row"] + g["bottom"]
    return {"kind": "bars", "id": f"chart-{gid}-{key}", "set": gid, "width": g["width"], "height": height, "row": g["row"],
            "top": g["top"], "bottom": g["bottom"], "pad": g["pad"], "metric": key,
            "title": f"{label} ({unit}), {len(bars)} rows, largest first",
            "axis": {"label": f"{label} ({unit})", "ticks": axis.tick_marks()}, "bars": bars,
            "legend": _legend(catalog, members, styles), "derived": False, "derived_shape": None, "scale_note": None}


def _group_charts(catalog, gid, members, styles):
    """A scatter of the rows with both throughput per GPU and per-user speed; a bar chart of the set's
    headline figure for the others; rows with neither are named, never dropped silently."""
    xy = [r for r in members if r["per_user"] is not None and "throughput_per_gpu" in r["row"]["metrics"]]
    rest = [r for r in members if r not in xy]
    out = []
    if xy:
        out.append(_scatter(catalog, gid, xy, styles))
    key = _headline(rest)
    barred = [r for r in rest if key and key in r["row"]["metrics"]]
    if barred:
        out.append(_bars(catalog, gid, barred, styles, key))
    missing = len(rest) - len(barred)
    return out, missing


def _group_table(catalog, title, method, members):
    metrics = [k for k in RESULT_METRICS if any(k in r["row"]["metrics"] for r in members)
               or (k == "output_tps_per_user" and any(r["derived_user"] for r in members))]
    own_lengths = any(r["row"].get("input_tokens") or r["row"].get("output_tokens") for r in members)
    headers = ["Engine", "Version", "System or submitter", "GPU × count", "Model", "Weights", "KV cache", "Parallelism",
               "Concurrency"] + (["Input / output tokens"] if own_lengths else [])
    headers += [f"{RESULT_METRICS[k][0]} ({RESULT_METRICS[k][1]})" for k in metrics] + ["Date", "Marks and notes", "Source"]
    rows = []
    for r in members:
        row, rs = r["row"], r["set"]
        gpu = f"{row['gpus']} × {catalog.name_of('gpus', row['gpu'])}" + (f" ({row['backend']})" if row.get("backend") else "")
        cells = [[engine_link(catalog, row["engine"])], [text(row.get("engine_version", ""))],
                 [text(row.get("system") or rs["measured_by"])], [text(gpu)], [text(catalog.name_of("models", row["model"]))],
                 [text(catalog.name_of("quantization", row["weights"]))],
                 [text(catalog.name_of("quantization", row["kv"]) if row.get("kv") else "16-bit (default)")],
                 [text(row.get("parallelism", ""))], [text(r["concurrency"] or "not fixed")]]
        if own_lengths:
            i = row.get("input_tokens", rs["method"].get("input_tokens"))
            o = row.get("output_tokens", rs["method"].get("output_tokens"))
            cells.append([text(f"{i or '?'} / {o or '?'}")])
        for k in metrics:
            if k == "output_tps_per_user":
                cells.append(_metric_cell(k, r["per_user"], r["derived_user"]))
            else:
                cells.append(_metric_cell(k, row["metrics"].get(k)))
        cells.append([text(r["date"]), {"small": r["date_basis"]}])
        notes = [dict(m) for m in _result_marks(rs)]
        if row.get("variant"):
            notes.append(text(row["variant"]))
        if row.get("note"):
            notes.append({"small": row["note"]})
        cells.append(notes)
        src = source(rs["sources"].get(rs["source"]))
        cells.append([{"cite": src}] if src else [text("")])
        rows.append({"id": r["id"], "attrs": r["filters"], "cells": cells})
    said = {m["label"]: m["texts"] for m in method}
    told = "; ".join(f"{label.lower()}: {said[label][0]}" for label in ("Tool", "Lengths", "Concurrency")
                     if label in said and len(said[label]) == 1)
    caption = f"{title}. {told[:1].upper()}{told[1:]}"
    lead = len(headers) - len(metrics) - 3  # the columns before the figures
    headers, rows, common = _lift_common_columns(headers, rows, figures=range(lead, lead + len(metrics)))
    if common:
        names = [c["label"] if c["label"].startswith("GPU") else c["label"].lower() for c in common]
        caption += ". The same in every row, given above the table: " + "; ".join(names)
    return {"caption": caption, "headers": [[text(h)] for h in headers], "rows": rows, "common": common}


def _lift_common_columns(headers, rows, figures):
    """Columns that say the same in every row of a set (the model of an MLPerf set, its source and date,
    "not fixed" concurrency...) leave the table for one line above it, and columns empty in every row
    leave it altogether: the table keeps what tells its rows apart, and the page has a quarter fewer
    cells. The figures always stay, and so does every column of a set with a single row."""
    if len(rows) < 2:
        return headers, rows, []
    same = [i for i in range(len(headers)) if i not in figures
            and all(r["cells"][i] == rows[0]["cells"][i] for r in rows[1:])]
    if not same:
        return headers, rows, []
    blank = lambda cells: all(set(p) == {"text"} and not p["text"].strip() for p in cells)  # noqa: E731
    common = [{"label": headers[i], "cells": rows[0]["cells"][i]} for i in same if not blank(rows[0]["cells"][i])]
    kept = [i for i in range(len(headers)) if i not in same]
    return ([headers[i] for i in kept], [dict(r, cells=[r["cells"][i] for i in kept]) for r in rows], common)


def result_groups(catalog, rows=None):
    """Rows grouped by comparable set, best-known kinds of source first: each group has its title, method
    in words, sources, charts and table."""
    rows = result_rows(catalog) if rows is None else rows
    styles = _styles(catalog, rows)
    by_group = {}
    for r in rows:
        by_group.setdefault(r["group"], []).append(r)
    groups = []
    for gid, members in by_group.items():
        sets = []
        for r in members:
            if r["set"] not in sets:
                sets.append(r["set"])
        title = _group_title(catalog, sets, members)
        method = _group_method(sets, members)
        sources = []
        for s in sets:
            src = source(s["sources"].get(s["source"]))
            sources.append({"title": s["title"], "measured_by": s["measured_by"], "kind": RESULT_KIND_LABEL.get(s["kind"], s["kind"]),
                            "marks": _result_marks(s), "rows": len(s["rows"]), "cite": src, "summary": s.get("summary"),
                            "license": (s["sources"].get(s["source"]) or {}).get("license"), "notes": s["method"].get("notes"),
                            "verified": s["verified"]})
        chart_list, missing = _group_charts(catalog, gid, members, styles)
        groups.append({"id": gid, "anchor": f"set-{gid}", "title": title, "method": method, "sources": sources,
                       "charts": chart_list, "not_charted": missing, "count": len(members),
                       "models": sorted({r["row"]["model"] for r in members}),
                       "rank": min(RESULT_KIND_RANK.get(s["kind"], 9) for s in sets),
                       "headline": _headline(members), "members": members,
                       "table": _group_table(catalog, title, method, members)})
    groups.sort(key=lambda g: (g["rank"], _names(catalog, "models", g["models"]).lower(), g["title"].lower()))
    return groups


def _filter_options(catalog, rows, groups):
    counts = {}
    for r in rows:
        for key, value in r["filters"].items():
            counts.setdefault(key, {}).setdefault(value, 0)
            counts[key][value] += 1
    order = {
        "engine": [e["id"] for e in engines_ordered(catalog)],
        "set": [g["id"] for g in groups],
    }

    def label(key, value):
        if key == "set":
            return next(g["title"] for g in groups if g["id"] == value)
        if key == "concurrency":
            return "not fixed" if value == NO_CONCURRENCY else value
        collection = {"engine": "engines", "gpu": "gpus", "model": "models", "weights": "quantization"}[key]
        return catalog.name_of(collection, value)

    def sort_key(key, value):
        if key in order:
            return (order[key].index(value) if value in order[key] else len(order[key]), value)
        if key == "concurrency":
            return (value == NO_CONCURRENCY, int(value) if value.isdigit() else 0, value)
        return (label(key, value).lower(), value)

    out = []
    for key, name in RESULT_FILTERS:
        values = sorted(counts.get(key, {}), key=lambda v: sort_key(key, v))
        out.append({"key": key, "label": name,
                    "options": [{"value": v, "label": label(key, v), "count": counts[key][v]} for v in values]})
    return out


def results_explorer(catalog):
    """The explorer page: filters from the values present, then one section per comparable set."""
    rows = result_rows(catalog)
    groups = result_groups(catalog, rows)
    return {"filters": _filter_options(catalog, rows, groups), "total": len(rows), "sets": len(catalog.results),
            "groups": [{k: v for k, v in g.items() if k not in ("members", "models", "rank")} for g in groups]}


def result_counts(catalog, key):
    """Rows per filter value (``engine``, ``gpu``, ``model`` ...) and comparable sets per value."""
    rows, sets = {}, {}
    for r in result_rows(catalog):
        value = r["filters"][key]
        rows[value] = rows.get(value, 0) + 1
        sets.setdefault(value, set()).add(r["group"])
    return {v: {"rows": n, "sets": len(sets[v])} for v, n in rows.items()}


def results_link_cell(counts, key, value):
    """A table cell linking to the explorer filtered to ``value``, or a quiet "none yet"."""
    c = counts.get(value)
    if not c:
        return [{"unknown": "none yet"}]
    return [link(result_url(**{key: value}), f"{c['rows']} row{'s' if c['rows'] != 1 else ''}")]


def engine_results(catalog, engine_id, limit=10):
    """An engine page's short table: its best row in each comparable set (best-known sets first), then
    its next best, up to ``limit`` rows; and a link to all its rows in the explorer."""
    rows = [r for r in result_rows(catalog) if r["row"]["engine"] == engine_id]
    name = catalog.name_of("engines", engine_id)
    if not rows:
        return {"name": name, "total": 0, "sets": 0, "table": None, "link": None,
                "contribute": link("contributing/", "how to contribute results")}
    groups = result_groups(catalog, rows)
    queues = []
    for g in groups:
        key = g["headline"]
        ranked = sorted(g["members"], key=lambda r: (-(r["row"]["metrics"].get(key) or 0), r["id"]))
        queues.append((g, key, ranked))
    picked = []
    depth = 0
    while len(picked) < limit and any(depth < len(q[2]) for q in queues):
        for g, key, ranked in queues:
            if depth < len(ranked) and len(picked) < limit:
                picked.append((g, key, ranked[depth]))
        depth += 1
    order = {g["id"]: i for i, g in enumerate(groups)}
    picked.sort(key=lambda p: (order[p[0]["id"]], -(p[2]["row"]["metrics"].get(p[1]) or 0)))
    out = []
    for g, key, r in picked:
        row, rs = r["row"], r["set"]
        label, unit = RESULT_METRICS[key]
        figure = [text(f"{charts.number(row['metrics'][key])} {unit}"), {"br": True}, {"small": label}]
        if r["per_user"] is not None and key != "output_tps_per_user":
            figure += [{"br": True}, {"small": f"at {charts.number(r['per_user'])} tokens/s per user"
                                               + (" (derived)" if r["derived_user"] else "")}]
        marks = _result_marks(rs)
        src = source(rs["sources"].get(rs["source"]))
        setup = " · ".join([f"{row['gpus']} × {catalog.name_of('gpus', row['gpu'])}", catalog.name_of("models", row["model"]),
                            catalog.name_of("quantization", row["weights"])])
        out.append([[link(result_url(engine=engine_id, set=g["id"]), g["title"])], [text(setup)],
                    [text(r["concurrency"] or "not fixed")], figure, [text(r["date"]), {"br": True}, {"small": r["date_basis"]}],
                    parts(*marks, {"cite": src} if src else None)])
    t = table(["Comparable set", "GPU × count · model · weights", "Concurrency", "Figure", "Date", "Marks and source"], out,
              cls="iem-table iem-results-short")
    return {"name": name, "total": len(rows), "sets": len(groups), "shown": len(out), "table": t,
            "link": link(result_url(engine=engine_id), f"All {len(rows)} rows of {name} in the explorer"), "contribute": None}


def results_compare_cell(counts, engine_id):
    """The compare view's cell: rows and comparable sets of the engine, linked to the filtered explorer."""
    c = counts.get(engine_id)
    if not c:
        return [{"unknown": "none yet"}]
    return [link(result_url(engine=engine_id),
                 f"{c['rows']} row{'s' if c['rows'] != 1 else ''} in {c['sets']} comparable set{'s' if c['sets'] != 1 else ''}")]
