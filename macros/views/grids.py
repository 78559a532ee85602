"""Engine-by-item grids drawn with ``templates/table.html`` (an engine per column, a picker above
wide ones): serving features, hardware, weight formats and quantization schemes."""

from .common import FEATURES, cite, engine_headers, engines_ordered, fact, parts, quant_order, table, text


def feature_table(catalog, kinds=("engine",)):
    engines = engines_ordered(catalog, kinds)
    rows = [[text(label)] + [fact(catalog, e, e["features"][key]) for e in engines] for key, label in FEATURES]
    return table(["Feature"] + engine_headers(catalog, engines), rows, cls="iem-table iem-matrixlike",
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
    return table([collection.capitalize()] + engine_headers(catalog, engines), rows, cls="iem-table iem-matrixlike",
                 cols=[e["id"] for e in engines])


def format_table(catalog):
    return support_grid(catalog, "formats", "formats")


def hardware_table(catalog):
    return support_grid(catalog, "hardware", "hardware")


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


def quant_engine_table(catalog):
    engines = engines_ordered(catalog, ("engine",))
    rows = [[text(q["name"])] + [quant_cell(catalog, e, q) for e in engines] for q in quant_order(catalog)]
    return table(["Scheme"] + engine_headers(catalog, engines), rows, cls="iem-table iem-matrixlike",
                 cols=[e["id"] for e in engines])
