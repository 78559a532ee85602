"""The sources and freshness pages: every citation with the entry that cites it, the facts checked
longest ago, and when each system was last verified."""

from .common import cite, engine_link, ext_link, link, parts, table, text
from .results import result_url


OWNER_PAGE = {"quantization": "quantization/", "formats": "formats/", "hardware": "quantization/", "gpus": "quantization/",
              "models": "models/", "trends": "trends/", "matrix": "matrix/", "tiers": "overview/", "scenarios": "scenarios/",
              "results": "results/", "glossary": "glossary/", "others": "field/"}


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
    """Engines by how far behind their data may be: no release day first, then the oldest latest release, then
    the oldest check against upstream."""
    def age(e):
        released = e["status"]["released"]
        return (released != "unknown", released, e["verified"], e["id"])
    rows = [[engine_link(catalog, e["id"]), parts(text(e["status"]["latest_version"]), cite(catalog, e, e["status"]["release_source"])),
             text(e["status"]["released"]), text(e["verified"])] for e in sorted(catalog.engines.values(), key=age)]
    return table(["System", "Latest release in the data", "Released", "Last verified"], rows)


def renamed_ids(catalog):
    """Ids that were published and renamed (data/aliases.yaml): a saved link with the old id answers as the new one."""
    rows = [[text(a["id"]), text(a["collection"]), text(a["successor"]), text(a["since"]), text(a["note"])]
            for a in sorted(catalog.aliases.get("aliases", []), key=lambda a: (a["since"], a["collection"], a["id"]))]
    return table(["Old id", "Folder", "Answers as", "Since", "What changed"], rows)
