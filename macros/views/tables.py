"""Reference tables drawn with ``templates/table.html``: the overview of every system, formats,
quantization schemes, accelerators, models and every headline figure."""

from .common import (
    KIND_LABEL, cite, engine_link, engines_ordered, enum_labels, figure_rows, parts, quant_order, table, text, tier_link)
from .results import result_counts, results_link_cell

APPLIES_TO_LABEL = enum_labels("quantization.schema.json", "/properties/applies_to")


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


def format_list(catalog):
    rows = [[text(f["name"]), text(", ".join(f.get("file_extensions", []))),
             parts(text(f["summary"]), cite(catalog, f, f["source"]))]
            for f in sorted(catalog.formats.values(), key=lambda f: f["name"].lower())]
    return table(["Format", "Files", "What it is"], rows)


def quant_reference(catalog):
    hardware = sorted(catalog.hardware.values(), key=lambda h: h["name"].lower())
    rows = []
    for q in quant_order(catalog):
        native = [h["name"] for h in hardware if h["id"] in q["native_hardware"]]
        rows.append([
            {"anchor": f"q-{q['id']}", "text": q["name"]},
            text(APPLIES_TO_LABEL[q["applies_to"]]),
            text(f"{q['bits_per_weight']:g}"),
            text(", ".join(native) or "none (stored, computed wider)"),
            parts(text(q["summary"]), cite(catalog, q, q["source"])),
        ])
    return table(["Scheme", "Applies to", "Bits per value", "Native compute on", "Notes"], rows)


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
