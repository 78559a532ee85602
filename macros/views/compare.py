"""The compare view (``templates/compare.html``): every system side by side, each row with the
comparison keys the page script uses to show only differences."""

import hashlib

from .common import (
    FEATURES, KIND_LABEL, cite, engine_link, engines_ordered, fact, link, parts, plain, quant_order, text, tier_link)
from .results import compare_costs, result_counts, results_compare_cell


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
    rows += [(q["name"], [quant_summary(catalog, e, q) for e in engines]) for q in quant_order(catalog)]
    rows.append("Measured results")
    rows.append(("Published measurements", [results_compare_cell(counts, e["id"]) for e in engines]))
    rows += compare_costs(catalog, [e["id"] for e in engines])

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
