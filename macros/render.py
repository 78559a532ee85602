"""Pure renderers: catalog in, HTML/Markdown text out.  The macros call these;
the tests call them directly on small catalogs."""

from urllib.parse import urlencode

from .html import badge, block, cite, esc, md_text, rel, table, ul

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
METHOD_LABEL = {"ngram": "n-gram", "draft-model": "draft model", "eagle": "EAGLE", "eagle3": "EAGLE-3",
                "medusa": "Medusa", "mtp": "MTP", "lookahead": "lookahead"}


def engine_url(engine_id):
    return f"engines/{engine_id}/"


def engine_link(catalog, engine_id, page):
    engine = catalog.engines.get(engine_id)
    name = engine["name"] if engine else engine_id
    return f'<a href="{esc(rel(page, engine_url(engine_id)))}">{esc(name)}</a>'


def tier_link(tier_id, page):
    return f'<a href="{esc(rel(page, TIER_PAGE[tier_id]))}">{esc(tier_id)}</a>'


def _fact_cell(catalog, entry, fact):
    if fact is None:
        return badge("unknown")
    extra = ""
    if fact.get("methods"):
        extra = " " + esc(", ".join(METHOD_LABEL.get(m, m) for m in fact["methods"]))
    return badge(fact.get("value") or fact.get("support"), fact.get("note")) + extra + " " + cite(catalog.cite(entry, fact.get("source")))


def _engines_ordered(catalog, kinds=None):
    tiers = {"L1": 1, "L1.5": 2, "L2": 3, "L3": 4}
    return sorted((e for e in catalog.engines.values() if kinds is None or e["kind"] in kinds),
                  key=lambda e: (tiers[e["tier"]], e["kind"] != "engine", e["name"].lower()))


# -- overview -----------------------------------------------------------------

def overview_table(catalog, page):
    rows = []
    for e in _engines_ordered(catalog):
        status = e["status"]
        status_html = esc(status["value"])
        if status["value"] != "active":
            status_html = f'<strong class="iem-warn">⚠ {esc(status["value"])} since {esc(status["since"])}</strong>'
        rows.append([
            engine_link(catalog, e["id"], page),
            tier_link(e["tier"], page),
            esc(KIND_LABEL[e["kind"]]),
            esc(e["maintainer"]["value"]),
            esc(e["license"]["value"]),
            status_html,
            esc(e["positioning"]),
        ])
    return block(table(["System", "Tier", "Kind", "Maintainer", "License", "Status", "Positioning"], rows,
                       cls="iem-table iem-overview"))


def feature_table(catalog, page, kinds=("engine",)):
    engines = _engines_ordered(catalog, kinds)
    headers = ["Feature"] + [engine_link(catalog, e["id"], page) for e in engines]
    rows = [[esc(label)] + [_fact_cell(catalog, e, e["features"][key]) for e in engines] for key, label in FEATURES]
    return block(table(headers, rows, cls="iem-table iem-matrixlike"))


def _support_grid(catalog, page, collection, list_name, kinds=("engine",)):
    engines = _engines_ordered(catalog, kinds)
    items = sorted(getattr(catalog, collection).values(), key=lambda x: x["name"].lower())
    headers = [esc(collection.capitalize())] + [engine_link(catalog, e["id"], page) for e in engines]
    rows = []
    for item in items:
        row = [f'<span id="{esc(list_name)}-{esc(item["id"])}">{esc(item["name"])}</span>']
        for e in engines:
            entry = catalog.support(e, list_name, item["id"])
            row.append(_fact_cell(catalog, e, entry) if entry else badge("unknown", "No source found"))
        rows.append(row)
    return block(table(headers, rows, cls="iem-table iem-matrixlike"))


def format_table(catalog, page):
    return _support_grid(catalog, page, "formats", "formats")


def hardware_table(catalog, page):
    return _support_grid(catalog, page, "hardware", "hardware")


def format_list(catalog, page):
    rows = [[esc(f["name"]), esc(", ".join(f.get("file_extensions", []))), esc(f["summary"]) + " " + cite(catalog.cite(f, f["source"]))]
            for f in sorted(catalog.formats.values(), key=lambda f: f["name"].lower())]
    return block(table(["Format", "Files", "What it is"], rows))


# -- quantization ---------------------------------------------------------------

def quant_reference(catalog, page):
    hardware = sorted(catalog.hardware.values(), key=lambda h: h["name"].lower())
    rows = []
    for q in sorted(catalog.quantization.values(), key=lambda q: (q["applies_to"], -q["bits_per_weight"], q["name"].lower())):
        native = [h["id"] for h in hardware if h["id"] in q["native_hardware"]]
        rows.append([
            f'<span id="q-{esc(q["id"])}">{esc(q["name"])}</span>',
            esc("weights" if q["applies_to"] == "weights" else "KV cache"),
            esc(f'{q["bits_per_weight"]:g}'),
            esc(", ".join(catalog.name_of("hardware", h) for h in native) or "none (stored, computed wider)"),
            esc(q["summary"]) + " " + cite(catalog.cite(q, q["source"])),
        ])
    return block(table(["Scheme", "Applies to", "Bits per value", "Native compute on", "Notes"], rows))


def quant_engine_table(catalog, page):
    engines = _engines_ordered(catalog, ("engine",))
    headers = ["Scheme"] + [engine_link(catalog, e["id"], page) for e in engines]
    rows = []
    for q in sorted(catalog.quantization.values(), key=lambda q: (q["applies_to"], -q["bits_per_weight"], q["name"].lower())):
        row = [esc(q["name"])]
        for e in engines:
            entries = catalog.support_all(e, "quantization", q["id"])
            if not entries:
                row.append(badge("unknown", "Not in this engine's documented schemes"))
                continue
            parts = []
            for entry in entries:
                hw = ", ".join(catalog.name_of("hardware", h) for h in entry["hardware"])
                parts.append(badge(entry["support"], entry.get("note")) + f'<br><small>{esc(hw)}</small> '
                             + cite(catalog.cite(e, entry["source"])))
            row.append("<br>".join(parts))
        rows.append(row)
    return block(table(headers, rows, cls="iem-table iem-matrixlike"))


def gpu_table(catalog, page):
    rows = [[esc(g["name"]), esc(catalog.name_of("hardware", g["hardware"])), esc(f'{g["memory_gib"]:g} GiB'),
             esc(g.get("memory_type", "")), esc(f'{g["bandwidth_gbs"]:g} GB/s'),
             esc(g.get("note", "")) + " " + cite(catalog.cite(g, g["source"]))]
            for g in sorted(catalog.gpus.values(), key=lambda g: (g["hardware"], -g["memory_gib"]))]
    return block(table(["Accelerator", "Family", "Memory", "Type", "Bandwidth", "Notes"], rows))


def model_table(catalog, page):
    rows = []
    for m in sorted(catalog.models.values(), key=lambda m: (m["vendor"].lower(), m["total_params_b"])):
        att = m["attention"]
        if att["type"] == "mla":
            att_text = f'MLA, latent {att["kv_lora_rank"]} + RoPE {att["qk_rope_head_dim"]}'
        else:
            att_text = f'{att["type"].upper()}, {att["kv_heads"]} KV heads × {att["head_dim"]}'
        rows.append([esc(m["name"]), esc(m["architecture"].upper()), esc(f'{m["total_params_b"]:g}B'),
                     esc(f'{m["active_params_b"]:g}B'), esc(m["layers"]), esc(att_text),
                     esc(catalog.name_of("quantization", m["native_precision"])),
                     cite(catalog.cite(m, m["source"]))])
    return block(table(["Model", "Type", "Total", "Active", "Layers", "Attention", "Ships in", "Source"], rows))


# -- figures ------------------------------------------------------------------

def figure_rows(catalog, entry, figures, page):
    out = []
    for f in figures:
        flag = ' <span class="iem-vendor" title="Reported by the vendor about its own product">vendor-reported</span>' if f.get("vendor_reported") else ""
        setup = f'<br><small>{esc(f["setup"])}</small>' if f.get("setup") else ""
        out.append([f'<strong id="fig-{esc(f["id"])}">{esc(f["display"])}</strong>{flag}', esc(f["claim"]) + setup,
                    cite(catalog.cite(entry, f["source"]))])
    return out


def all_figures(catalog, page):
    rows = []
    for collection in ("engines", "quantization", "trends"):
        for entry in sorted(getattr(catalog, collection).values(), key=lambda x: x["id"]):
            name = entry.get("name") or entry.get("title")
            for row in figure_rows(catalog, entry, entry.get("figures", []), page):
                rows.append([esc(name)] + row)
    return block(table(["Subject", "Figure", "What it measures", "Source"], rows))


# -- engine page ----------------------------------------------------------------

def engine_page(catalog, engine_id, page):
    e = catalog.engines[engine_id]
    c = lambda fact: cite(catalog.cite(e, (fact or {}).get("source")))
    status = e["status"]
    facts = [
        ["Tier", tier_link(e["tier"], page)],
        ["Kind", esc(KIND_LABEL[e["kind"]])],
        ["Maintainer", esc(e["maintainer"]["value"]) + " " + c(e["maintainer"])],
        ["License", esc(e["license"]["value"]) + " " + c(e["license"])],
        ["Language", esc(e["language"]["value"]) + " " + c(e["language"])],
        ["Status", esc(status["value"]) + f' since {esc(status["since"])}'
         + (f', latest {esc(status["latest_version"])}' if status.get("latest_version") else "")
         + (f' — {esc(status["note"])}' if status.get("note") else "") + " " + c(status)],
        ["Homepage", f'<a href="{esc(e["homepage"])}">{esc(e["homepage"])}</a>'],
    ]
    if e.get("repository"):
        facts.append(["Repository", f'<a href="{esc(e["repository"])}">{esc(e["repository"])}</a>'])
    facts.append(["Last verified", esc(e["verified"])])
    out = [f'<p class="iem-lede">{esc(e["positioning"])}</p>']
    if status["value"] != "active":
        succ = ", ".join(engine_link(catalog, s, page) for s in status.get("successors", []))
        out.append(f'<div class="admonition warning"><p class="admonition-title">{esc(status["value"].capitalize())}</p>'
                   f'<p>{esc(e["name"])} is in {esc(status["value"])} mode since {esc(status["since"])}. Go to {succ} instead.</p></div>')
    out.append(table(["Fact", "Value"], facts, cls="iem-table iem-facts"))
    md = [block("".join(out))]
    if e.get("summary"):
        md.append(block(f'<p>{esc(e["summary"])}</p>'))
    md.append("## When to pick it\n" + block(ul([esc(x) for x in e["pick_when"]])))
    md.append("## When not to\n" + block(ul([esc(x) for x in e["avoid_when"]])))
    md.append("## Serving features\n" + block(table(["Feature", "Support"], [
        [esc(label), _fact_cell(catalog, e, e["features"][key])] for key, label in FEATURES])))
    for title, list_name, collection in (("Hardware", "hardware", "hardware"), ("Weight formats", "formats", "formats")):
        rows = [[esc(catalog.name_of(collection, x["id"])), _fact_cell(catalog, e, x)] for x in e[list_name]]
        md.append(f"## {title}\n" + block(table([esc(title), "Support"], rows) if rows else
                                          "<p>No entries of its own; it relies on the engines it runs with.</p>"))
    rows = [[esc(catalog.name_of("quantization", q["id"])), badge(q["support"], q.get("note")),
             esc(", ".join(catalog.name_of("hardware", h) for h in q["hardware"])),
             esc(q.get("note", "")) + " " + c(q)] for q in e["quantization"]]
    md.append("## Quantization\n" + block(table(["Scheme", "Support", "Hardware", "Notes"], rows) if rows else
                                          "<p>No quantization schemes of its own are documented here.</p>"))
    if e.get("relations"):
        rel_label = {"backend": "runs on top of", "integrates-with": "integrates with", "built-on": "is built on",
                     "kernels-merged-into": "has its kernels merged into"}
        items = [f'{esc(e["name"])} {esc(rel_label[r["type"]])} {engine_link(catalog, r["engine"], page)}'
                 + (f' — {esc(r["note"])}' if r.get("note") else "") + " " + c(r) for r in e["relations"]]
        md.append("## Related systems\n" + block(ul(items)))
    if e.get("figures"):
        md.append("## Headline figures\n" + block(table(["Figure", "What it measures", "Source"],
                                                          figure_rows(catalog, e, e["figures"], page))))
    if e.get("milestones"):
        rows = [[esc(m["date"]), esc(m.get("version", "")), esc(m["event"]) + " " + c(m)]
                for m in sorted(e["milestones"], key=lambda m: m["date"])]
        md.append("## Milestones\n" + block(table(["Date", "Version", "What happened"], rows)))
    md.append("## Sources\n" + block(source_list(e)))
    return "\n".join(md)


def source_list(entry):
    items = []
    for key, s in sorted((entry.get("sources") or {}).items(), key=lambda kv: kv[1]["title"].lower()):
        pub = f', published {esc(s["published"])}' if s.get("published") else ""
        items.append(f'<a href="{esc(s["url"])}" rel="noopener">{esc(s["title"])}</a> '
                     f'<small>({esc(s["kind"])}{pub}; checked {esc(s["as_of"])})</small>')
    return ul(items, "iem-sources")


def engine_index(catalog, page):
    md = []
    for tier in sorted(catalog.tiers.values(), key=lambda t: t["order"]):
        engines = [e for e in _engines_ordered(catalog) if e["tier"] == tier["id"]]
        items = [f'{engine_link(catalog, e["id"], page)} — {esc(e["positioning"])}' for e in engines]
        md.append(f"## {md_text(tier['id'])}: {md_text(tier['name'])}\n" + block(ul(items)))
    return "\n".join(md)


# -- tiers ----------------------------------------------------------------------

def tier_page(catalog, tier_id, page):
    t = catalog.tiers[tier_id]
    md = [block(f'<p class="iem-lede">{esc(t["audience"])}</p><p>{esc(t["summary"])}</p>')]
    md.append("## What matters here\n" + block(ul([esc(x) for x in t["what_matters"]])))
    md.append("## Choosing within the tier\n" + block(f'<p>{esc(t["pick_within"])}</p>'
              + (f'<div class="admonition warning"><p class="admonition-title">Common mistake</p><p>{esc(t["mistake"])}</p></div>' if t.get("mistake") else "")))
    engines = [e for e in _engines_ordered(catalog) if e["tier"] == tier_id]
    for e in engines:
        warn = ""
        if e["status"]["value"] != "active":
            succ = ", ".join(engine_link(catalog, s, page) for s in e["status"].get("successors", []))
            warn = f'<p class="iem-warn">⚠ {esc(e["status"]["value"].capitalize())} since {esc(e["status"]["since"])}; go to {succ}.</p>'
        body = (f'<p>{esc(e["positioning"])}</p>{warn}'
                f'<p><strong>Pick it when</strong></p>{ul([esc(x) for x in e["pick_when"]])}'
                f'<p><strong>Not when</strong></p>{ul([esc(x) for x in e["avoid_when"]])}'
                f'<p>{engine_link(catalog, e["id"], page)} — full facts and sources</p>')
        md.append(f"## {md_text(e['name'])}\n" + block(body))
    if engines:
        md.append("## Side by side\n" + block(table(
            ["Feature"] + [engine_link(catalog, e["id"], page) for e in engines],
            [[esc(label)] + [_fact_cell(catalog, e, e["features"][key]) for e in engines] for key, label in FEATURES],
            cls="iem-table iem-matrixlike")))
    return "\n".join(md)


def tiers_glance(catalog, page):
    rows = []
    for t in sorted(catalog.tiers.values(), key=lambda t: t["order"]):
        names = ", ".join(engine_link(catalog, e["id"], page) for e in _engines_ordered(catalog) if e["tier"] == t["id"])
        rows.append([tier_link(t["id"], page), esc(t["name"]), esc(t["audience"]), names])
    return block(table(["Tier", "Name", "Who it is for", "Systems"], rows))


# -- trends ---------------------------------------------------------------------

def trends(catalog, page):
    md = []
    for t in sorted(catalog.trends.values(), key=lambda t: t["order"]):
        body = [f'<p>{esc(t["summary"])}</p>']
        body.append(ul([esc(p["text"]) + " " + cite(catalog.cite(t, p["source"])) for p in t["points"]]))
        if t.get("figures"):
            body.append(table(["Figure", "What it measures", "Source"], figure_rows(catalog, t, t["figures"], page)))
        if t.get("selection_impact"):
            body.append(f'<div class="admonition tip"><p class="admonition-title">What it means for your choice</p><p>{esc(t["selection_impact"])}</p></div>')
        if t["engines"]:
            body.append("<p>Related: " + ", ".join(engine_link(catalog, x, page) for x in t["engines"]) + "</p>")
        md.append(f"## {md_text(t['title'])}\n" + block("".join(body)))
    return "\n".join(md)


# -- matrix -----------------------------------------------------------------------

def matrix(catalog, page):
    dims = catalog.dimensions()
    engines = catalog.matrix_engines()
    headers = ["Dimension"] + [engine_link(catalog, e, page) for e in engines]
    rows, notes = [], []
    n = 0
    for d in dims:
        row = [f'<span title="{esc(d["question"])}">{esc(d["name"])}</span>']
        for e in engines:
            s = d["scores"].get(e)
            if not s:
                row.append(badge("unknown"))
                continue
            n += 1
            row.append(f'<span class="iem-score iem-score-{s["score"]}" title="{esc(s["rationale"])}">{"●" * s["score"]}{"○" * (5 - s["score"])}'
                       f' <span class="iem-score-n">{s["score"]}/5</span></span> <a class="iem-note" href="#m{n}" id="r{n}">[{n}]</a>')
            notes.append([f'<a href="#r{n}" id="m{n}">{n}</a>', esc(d["name"]), engine_link(catalog, e, page),
                          esc(s["score"]), esc(s["rationale"]) + " " + cite(catalog.cite(d, s["source"]))])
        rows.append(row)
    return (block(table(headers, rows, cls="iem-table iem-matrix"))
            + "## Why each score\n" + block(table(["#", "Dimension", "Engine", "Score", "Rationale and source"], notes)))


# -- tree ---------------------------------------------------------------------------

def tree_list(catalog, page, highlight=None):
    tree = catalog.tree
    branches = []
    for b in tree["branches"]:
        leaves = []
        for leaf in b["leaves"]:
            engines = ", ".join(engine_link(catalog, x, page) for x in leaf["engines"])
            extra = ""
            if leaf.get("with"):
                extra = " <small>with " + ", ".join(engine_link(catalog, x, page) for x in leaf["with"]) + "</small>"
            default = ' <small class="iem-default">(default)</small>' if leaf.get("default") else ""
            note = f'<br><small>{esc(leaf["note"])}</small>' if leaf.get("note") else ""
            leaves.append(f'<li id="tree-{esc(leaf["id"])}" data-node="{esc(leaf["id"])}">{esc(leaf["label"])}{default} → <strong>{engines}</strong>{extra}{note}</li>')
        branches.append(f'<li id="tree-{esc(b["id"])}" data-node="{esc(b["id"])}"><strong>{esc(b["label"])}</strong>'
                        f'<br><small>{esc(b["question"])}</small><ul>{"".join(leaves)}</ul></li>')
    warnings = "".join(f'<p class="iem-warn">⚠ {esc(w["text"])}</p>' for w in tree["warnings"])
    return block(f'<div class="iem-tree"><p id="tree-{esc(tree["id"])}" data-node="{esc(tree["id"])}"><strong>{esc(tree["question"])}</strong></p><ul>{"".join(branches)}</ul>{warnings}</div>')


# Mermaid decodes its own entity codes (#quot;, #60;) and treats `...` as Markdown, then inserts labels
# as sanitized HTML: spell every special character as a Mermaid code so any text comes out literally
# (html.escape's &#x27; would show as "&&x27;").
MERMAID_CODES = {"#": "#35;", "&": "#amp;", "<": "#lt;", ">": "#gt;", '"': "#quot;", "'": "#39;", "`": "#96;"}


def _mermaid_label(text):
    return '"' + "".join(MERMAID_CODES.get(c, c) for c in str(text)) + '"'


def tree_mermaid_source(catalog):
    tree = catalog.tree
    lines = ["flowchart LR", f"  root[{_mermaid_label(tree['question'])}]"]
    for i, b in enumerate(tree["branches"]):
        bid = f"b{i}"
        lines.append(f"  root --> {bid}[{_mermaid_label(b['label'])}]")
        for j, leaf in enumerate(b["leaves"]):
            names = ", ".join(catalog.name_of("engines", x) for x in leaf["engines"])
            lines.append(f"  {bid} -->|{_mermaid_label(leaf['label'])}| {bid}l{j}([{_mermaid_label(names)}])")
    return "\n".join(lines)


def tree_diagram(catalog, page):
    return block(f'<div class="iem-diagram" data-diagram="mermaid"><pre class="iem-diagram-src">{esc(tree_mermaid_source(catalog))}</pre></div>')


# -- scenarios ----------------------------------------------------------------------

def scenarios(catalog, page):
    rows = []
    for s in sorted(catalog.scenarios.values(), key=lambda s: s["order"]):
        query = urlencode({k: ",".join(v) if isinstance(v, list) else v for k, v in s["answers"].items()}, safe=",")
        rows.append([esc(s["situation"]), esc(s["answer"]),
                     ", ".join(engine_link(catalog, e, page) for e in s["engines"]),
                     f'<a href="{esc(rel(page, "selector/") + "?" + query)}">try it</a>'])
    return block(table(["Situation", "Answer", "Engines", "Selector"], rows))


# -- sources and freshness ----------------------------------------------------------

def _owner_link(catalog, collection, entry_id, page):
    if collection == "engines":
        return engine_link(catalog, entry_id, page)
    pages = {"quantization": "quantization/", "formats": "formats/", "hardware": "quantization/", "gpus": "quantization/",
             "models": "models/", "trends": "trends/", "matrix": "matrix/", "tiers": "overview/", "scenarios": "scenarios/"}
    target = pages.get(collection, "sources/")
    entry = getattr(catalog, collection).get(entry_id, {}) if entry_id else {}
    label = entry.get("name") or entry.get("title") or entry_id or collection
    return f'<a href="{esc(rel(page, target))}">{esc(label)}</a>'


def sources_table(catalog, page):
    rows = []
    for collection, entry_id, key, s in catalog.all_sources():
        rows.append([f'<a href="{esc(s["url"])}" rel="noopener">{esc(s["title"])}</a>', esc(s["kind"]),
                     esc(s.get("published", "")), esc(s["as_of"]), _owner_link(catalog, collection, entry_id, page)])
    return block(table(["Source", "Kind", "Published", "Checked", "Cited by"], rows, cls="iem-table iem-sources-table"))


def source_counts(catalog):
    counts = {}
    for _, _, _, s in catalog.all_sources():
        counts[s["kind"]] = counts.get(s["kind"], 0) + 1
    return counts


def stale_facts(catalog, page, limit=40):
    rows = []
    for collection, entry_id, key, s in catalog.all_sources():
        rows.append((s["as_of"], s.get("published", ""), collection, entry_id, s))
    rows.sort(key=lambda r: (r[0], r[1] or "9999"))
    out = [[esc(a), esc(p), _owner_link(catalog, c, i, page), f'<a href="{esc(s["url"])}" rel="noopener">{esc(s["title"])}</a>']
           for a, p, c, i, s in rows[:limit]]
    return block(table(["Checked", "Published", "Entry", "Source"], out))


def verified_table(catalog, page):
    rows = [[engine_link(catalog, e["id"], page), esc(e["verified"])] for e in sorted(catalog.engines.values(), key=lambda e: e["verified"])]
    return block(table(["System", "Last verified"], rows))


# -- compare view -------------------------------------------------------------------

def compare(catalog, page):
    """Every system side by side; a column per system carries ``data-col`` so the page script can
    show only the ones the reader picks (``?engines=vllm,sglang``). Without JavaScript all columns show."""
    engines = _engines_ordered(catalog)
    picker = "".join(
        f'<label class="iem-check"><input type="checkbox" name="engines" value="{esc(e["id"])}"> {esc(e["name"])}</label>'
        for e in engines)
    head = '<th scope="col">Fact</th>' + "".join(
        f'<th scope="col" data-col="{esc(e["id"])}">{engine_link(catalog, e["id"], page)}</th>' for e in engines)

    def row(label, cells):
        return (f'<tr><th scope="row">{esc(label)}</th>'
                + "".join(f'<td data-col="{esc(e["id"])}">{c}</td>' for e, c in zip(engines, cells)) + "</tr>")

    def listed(e, list_name, collection):
        items = [f'{esc(catalog.name_of(collection, x["id"]))}{"" if x["support"] == "yes" else " (" + esc(x["support"]) + ")"}'
                 for x in e[list_name] if x["support"] != "no"]
        return ", ".join(items) or '<span class="iem-unknown">none documented</span>'

    rows = [
        row("Tier", [tier_link(e["tier"], page) for e in engines]),
        row("Kind", [esc(KIND_LABEL[e["kind"]]) for e in engines]),
        row("Status", [esc(e["status"]["value"]) + " " + cite(catalog.cite(e, e["status"]["source"])) for e in engines]),
        row("License", [esc(e["license"]["value"]) for e in engines]),
        row("Positioning", [esc(e["positioning"]) for e in engines]),
    ]
    rows += [row(label, [_fact_cell(catalog, e, e["features"][key]) for e in engines]) for key, label in FEATURES]
    rows += [
        row("Hardware", [listed(e, "hardware", "hardware") for e in engines]),
        row("Weight formats", [listed(e, "formats", "formats") for e in engines]),
        row("Quantization", [", ".join(sorted({esc(catalog.name_of("quantization", q["id"])) for q in e["quantization"]}))
                             or '<span class="iem-unknown">none documented</span>' for e in engines]),
    ]
    table_html = (f'<div class="iem-scroll"><table class="iem-table iem-compare" id="compare-table">'
                  f'<thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    return block(f'<form id="compare-form" class="iem-compare-pick" aria-label="Systems to compare">'
                 f'<fieldset class="iem-multi"><legend>Compare</legend>{picker}</fieldset></form>{table_html}')
