"""The "also in the field" table: systems without a full entry, one cited line each (data/others.yaml)."""

from .common import engine_link, ext_link, parts, source, table, text


def others_table(catalog):
    """One row per system in data order: name (with an anchor), what it is, the cited line with the day it
    was checked, the engines it relates to, and why it has no full entry yet."""
    doc = catalog.others or {}
    rows = []
    for row in doc.get("systems", []):
        src = source(catalog.cite(doc, row["source"]))
        line = parts(text(row["line"]), {"cite": src} if src else None,
                     {"small": f"(as of {src['as_of']})"} if src else None)
        related = []
        for i, engine_id in enumerate(row.get("related", [])):
            if i:
                related.append({"sep": ", "})
            related.append(engine_link(catalog, engine_id))
        rows.append([[{"anchor": f"other-{row['id']}", "text": row["name"]}, {"br": True}, ext_link(row["homepage"], "repository")],
                     text(row["what"]), line, related or [text("")], text(row.get("why_not_full", ""))])
    return table(["System", "What it is", "What its source says", "Related entries", "Why not a full entry yet"], rows,
                 cls="iem-table iem-others", stack=True)
