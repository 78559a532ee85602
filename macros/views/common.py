"""The shared parts of every page's renderer: cells as lists of parts, tables as data, links, ordering.

A table cell is a list of *parts*, each a one-key dict (``{"text": ...}``, ``{"link": {"href", "text"}}``,
``{"fact": ...}``, ``{"cite": ...}`` ...) that the ``cell`` macro of ``templates/_lib.html`` knows how to
draw; links are site paths that the template makes relative to the page.
"""

import functools
import json

from ..site import DATA


# -- labels from the schemas ------------------------------------------------------------------------
# The words the site shows for a field or an enum value are written once, in data/schema/*.json: a
# field's ``title``; an enum's ``enumNames``, one per value in the enum's order (the schema stays the
# one list of values, so validation keeps its "use one of ..." message).

@functools.cache
def schema(name):
    """A schema of ``data/schema/`` as written (not bundled): only its annotations are read here."""
    return json.loads((DATA / "schema" / name).read_text(encoding="utf-8"))


def schema_node(name, pointer):
    """The part of schema ``name`` at a JSON Pointer (``/properties/kind``)."""
    node = schema(name)
    for key in pointer.strip("/").split("/"):
        node = node[key.replace("~1", "/").replace("~0", "~")]
    return node


def enum_labels(name, pointer):
    """``{value: label}`` of the enum at ``pointer``, from its ``enumNames``."""
    node = schema_node(name, pointer)
    values, names = node.get("enum"), node.get("enumNames")
    if not values or not isinstance(names, list) or len(names) != len(values):
        raise ValueError(f"data/schema/{name}: {pointer}: enumNames must give one label per enum value "
                         f"({len(values or [])} values, {len(names) if isinstance(names, list) else 'no'} labels)")
    return dict(zip(values, names))


def field_titles(name, pointer):
    """``[(key, title)]`` of the properties at ``pointer``, in the schema's order."""
    out = []
    for key, node in schema_node(name, pointer).items():
        if not node.get("title"):
            raise ValueError(f"data/schema/{name}: {pointer}/{key}: needs a title (the label the site shows)")
        out.append((key, node["title"]))
    return out


FEATURES = field_titles("engine.schema.json", "/properties/features/properties")
KIND_LABEL = enum_labels("engine.schema.json", "/properties/kind")
METHOD_LABEL = {**enum_labels("engine.schema.json", "/$defs/speculativeDecodingMethod"),
                **enum_labels("engine.schema.json", "/$defs/cpuOffloadMethod")}


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


def tier_url(tier_id):
    """A tier's page: ``docs/tiers/`` names it after the id (L1.5 -> ``tiers/l1-5/``)."""
    return f"tiers/{tier_id.lower().replace('.', '-')}/"


def tier_link(tier_id):
    return link(tier_url(tier_id), tier_id)


def engines_ordered(catalog, kinds=None):
    """Engines in the site's order: by their tier's ``order`` (data/tiers), engines before the layers
    around them, then by name."""
    return sorted((e for e in catalog.engines.values() if kinds is None or e["kind"] in kinds),
                  key=lambda e: (catalog.tiers[e["tier"]]["order"], e["kind"] != "engine", e["name"].lower()))


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


def engine_headers(catalog, engines):
    return [[engine_link(catalog, e["id"])] for e in engines]


def quant_order(catalog):
    return sorted(catalog.quantization.values(), key=lambda q: (q["applies_to"], -q["bits_per_weight"], q["name"].lower()))
