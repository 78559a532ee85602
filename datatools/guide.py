"""The field guide in CONTRIBUTING.md, generated from the schemas' descriptions.

``python -m selector fields [KIND]`` prints it; ``python -m selector fields --update CONTRIBUTING.md``
rewrites the part of CONTRIBUTING.md between the ``fields:start`` and ``fields:end`` markers (a test
fails when that part is out of date).  Build side only.
"""

import re

from selector.catalog import COLLECTIONS

from .validation import SchemaSet, bundle_schema


START, END = "<!-- fields:start -->", "<!-- fields:end -->"
# where each collection shows up on the site (the schemas cannot say this)
SHOWN = {
    "engines": "its own page (/engines/ID/), its tier page, /overview/ and /compare/, the format and quantization "
               "tables, /figures/ and the selector; the decision tree and the matrix only where data/tree.yaml or "
               "data/matrix/ name it",
    "gpus": "the GPU table on /quantization/ and the memory figures of /fit/",
    "formats": "/formats/ (format × engine) and the selector's format question",
    "quantization": "/quantization/ (scheme × engine × hardware), the weight sizes of /fit/ and the selector",
    "hardware": "/overview/ and /quantization/ columns and the selector's hardware question",
    "models": "/models/ and /fit/ (weights and KV cache are sized from these numbers)",
    "tiers": "the tier pages (/tiers/l1/ ...), the home page and /overview/",
    "trends": "/trends/",
    "matrix": "/matrix/ (one column per dimension) and the selector's priorities",
    "scenarios": "/scenarios/ (each answer is checked against the selector)",
    "results": "/sources/ (its citations) and /api/catalog.json; validate checks every row",
    "prices": "the cost per million tokens on /results/, /compare/ and `python -m selector results`",
}
FACT_FIELDS = {"value", "note", "source", "methods"}
KIND_OF = {"engines": "engine", "gpus": "gpu", "formats": "format", "quantization": "quantization",
           "hardware": "hardware", "models": "model", "tiers": "tier", "trends": "trend", "matrix": "dimension",
           "scenarios": "scenario", "results": "results", "prices": "prices"}


def _cell(text):
    return " ".join(str(text).split()).replace("|", "\\|")


def _what(schema):
    """A short statement of what a (bundled) schema accepts."""
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    kind = schema.get("type")
    pattern = schema.get("pattern", "")
    if kind == "string":
        if schema.get("format") == "date":
            return "date YYYY-MM-DD"
        if pattern.startswith("^https://"):
            return "https URL"
        if pattern.startswith("^[a-z0-9][a-z0-9.-]*"):
            return "id"
        if pattern.startswith("^[a-z0-9][a-z0-9_-]*"):
            return "source key"
        if schema.get("maxLength"):
            return f"text, up to {schema['maxLength']} characters" + (", one line" if "\\n" in pattern else "")
        return "text"
    if kind in ("number", "integer"):
        word = "whole number" if kind == "integer" else "number"
        low = (f"above {schema['exclusiveMinimum']:g}" if "exclusiveMinimum" in schema
               else f"at least {schema['minimum']:g}" if "minimum" in schema else "")
        high = f"at most {schema['maximum']:g}" if "maximum" in schema else ""
        return ", ".join(x for x in (word, low, high) if x)
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        items = schema.get("items") or {}
        inner = ("mappings" if items.get("type") == "object" else f"ids" if _what(items) == "id"
                 else f"texts ({_what(items)})" if items.get("type") == "string" else f"({_what(items)})")
        least = f", at least {schema['minItems']}" if schema.get("minItems") else ""
        return f"list of {inner}{least}"
    if kind == "object":
        props = set(schema.get("properties") or {})
        if props and props <= FACT_FIELDS:
            return "fact: " + ", ".join(f"`{k}`" for k in schema["properties"])
        return "mapping"
    return ""


def _rows(schema, prefix, required, depth):
    rows = []
    for key, sub in (schema.get("properties") or {}).items():
        name = f"{prefix}{key}"
        need = "yes" if key in required else ""
        rows.append((name, need, _what(sub), sub.get("description", "")))
        nested = sub if sub.get("properties") else (sub.get("items") or {}) if isinstance(sub.get("items"), dict) else {}
        expand = nested.get("properties") and not set(nested["properties"]) <= FACT_FIELDS
        if depth < 2 and expand and key not in ("features", "sources"):
            joiner = "[]." if nested is not sub else "."
            rows.extend(_rows(nested, f"{name}{joiner}", nested.get("required", []), depth + 1))
    return rows


def collection_guide(collection, bundled):
    kind = KIND_OF.get(collection, collection)
    lines = [f"### {kind}: `data/{collection}/ID.yaml`", ""]
    if bundled.get("title"):
        lines.append(f"{bundled['title']}. Shown on {SHOWN.get(collection, 'the site')}. "
                     f"Start one with `python -m selector new {kind} ID`.")
        lines.append("")
    lines += ["| Field | Required | Value | What to write |", "|---|---|---|---|"]
    for name, need, what, description in _rows(bundled, "", bundled.get("required", []), 1):
        lines.append(f"| `{name}` | {need} | {_cell(what)} | {_cell(description)} |")
    return "\n".join(lines)


def shared_guide(schema_set):
    """Sections for the parts every file shares: a citation under ``sources`` and a fact."""
    out = []
    for name, title, intro in (
            ("source", "every entry of `sources`", "A citation; facts point at it by its key."),
            ("fact", "every fact (`features`, ...)", "A fact about an engine: `{value: yes, note: ..., source: KEY}`.")):
        schema = bundle_schema(schema_set.schemas["common.schema.json"]["$defs"][name], "common.schema.json",
                         schema_set.registry, ("common.schema.json",))
        lines = [f"### {title}", "", intro, "", "| Field | Required | Value | What to write |", "|---|---|---|---|"]
        for field, need, what, description in _rows(schema, "", schema.get("required", []), 2):
            lines.append(f"| `{field}` | {need} | {_cell(what)} | {_cell(description)} |")
        out.append("\n".join(lines))
    return out


def markdown(schemas, only=None):
    """The field guide for every collection (or only one) as Markdown."""
    schema_set = SchemaSet(schemas)
    bundled = schema_set.bundled
    first = [c for c in ("engines", "models", "quantization", "hardware", "gpus", "formats") if c in COLLECTIONS]
    parts = []
    for collection in first + [c for c in COLLECTIONS if c not in first]:
        if only and collection != only:
            continue
        parts.append(collection_guide(collection, bundled[COLLECTIONS[collection]]))
    if not only:
        parts.extend(shared_guide(schema_set))
    return "\n\n".join(parts) + "\n"


def update(text, guide):
    """``text`` with the part between the markers replaced by ``guide``."""
    pattern = re.compile(re.escape(START) + r"\n.*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise ValueError(f"the markers {START} and {END} are missing")
    return pattern.sub(lambda _m: f"{START}\n\n{guide}\n{END}", text, count=1)
