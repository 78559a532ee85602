"""``python -m selector new KIND ID``: a new data file with every required field.

Build side only.  The skeleton is made from the collection's JSON Schema: every required field,
``unknown`` wherever the schema allows it (facts), ids that already exist where a reference must
resolve, and one citation ``docs`` under ``sources`` for the facts to point at.  Text to write
says ``TODO``; numbers, dates and choices that have no "unknown" carry a ``# TODO`` comment.
The file is written in the canonical layout (``make fix`` leaves it alone) and validates as
written: ``validate`` exits 0 and warns about every TODO still in it.
"""

import re
from datetime import date
from pathlib import Path

from selector.catalog import COLLECTIONS
from selector.rules import recommend
from selector.suggest import did_you_mean

from .files import load_data_dir, read_schemas
from .fixer import Comment, format_document, write_file
from .validation import SchemaSet


KINDS = {  # what a contributor types -> collection folder
    "engine": "engines", "gpu": "gpus", "model": "models", "quantization": "quantization",
    "hardware": "hardware", "format": "formats", "scenario": "scenarios", "results": "results",
    "tier": "tiers", "trend": "trends", "dimension": "matrix", "prices": "prices", "launch": "launch",
}
ALIASES = {"engines": "engine", "gpus": "gpu", "models": "model", "formats": "format", "scenarios": "scenario",
           "result": "results", "result-set": "results", "tiers": "tier", "trends": "trend", "matrix": "dimension",
           "quant": "quantization", "price": "prices", "price-list": "prices"}
SOURCE_KEY = "docs"
# fields that name an entry of another collection -> that collection (the skeleton picks an existing id)
REFERENCES = {
    ("gpus", "hardware"): "hardware", ("models", "native_precision"): "quantization",
    ("results", "engine"): "engines", ("results", "gpu"): "gpus", ("results", "model"): "models",
    ("results", "weights"): "quantization", ("prices", "gpu"): "gpus",
}
TEXT_HINTS = {
    "name": "the name as the project writes it", "title": "the title of the page as it appears there",
    "positioning": "one sentence: what it is and who it is for", "summary": "two or three sentences in your own words",
    "vendor": "who makes it", "audience": "who this tier is for", "question": "the question this dimension answers",
    "situation": "the reader's situation in one sentence", "answer": "the one-line answer",
    "measured_by": "who ran the measurement", "tool": "benchmark tool and scenario",
    "throughput_counts": "what a throughput figure counts", "rationale": "why this score, with the evidence",
    "text": "the point, in your own words", "pick_within": "how to pick within the tier",
    "pick_when": "a situation where this is the right pick", "avoid_when": "a situation where it is not",
    "what_matters": "what matters at this tier", "license": "SPDX license id", "language": "main languages",
    "maintainer": "who maintains it",
}


class NewError(Exception):
    """A request `new` refuses, with the one-line reason."""


def resolve_kind(kind):
    key = kind.strip().lower()
    key = ALIASES.get(key, key)
    if key not in KINDS or KINDS[key] not in COLLECTIONS:
        allowed = sorted(k for k, c in KINDS.items() if c in COLLECTIONS)
        raise NewError(f"KIND: {kind!r} is not a kind of data file{did_you_mean(kind, allowed)}; use one of {', '.join(allowed)}")
    return KINDS[key]


class _Builder:
    def __init__(self, collection, entry_id, catalog, today):
        self.collection, self.entry_id, self.catalog, self.today = collection, entry_id, catalog, today
        self.comments = []

    def note(self, path, text, inline=True):
        self.comments.append(Comment(f"# {text}", tuple(path), inline))

    def todo(self, path, text):
        self.note(path, f"TODO: {text}")

    # -- values --------------------------------------------------------------------------------------
    def value(self, schema, path):
        if path == ["id"]:
            return self.entry_id
        field = next((p for p in reversed(path) if isinstance(p, str)), "")
        ref = REFERENCES.get((self.collection, field))
        if ref:
            ids = self.ids(ref)
            if field == "weights":
                ids = [q for q in ids if self.catalog.quantization[q].get("applies_to") == "weights"]
            choice = "bf16" if "bf16" in ids and field in ("native_precision", "weights") else (ids[0] if ids else "unknown")
            self.todo(path, f"an id from data/{ref}/")
            return choice
        if "enum" in schema:
            options = schema["enum"]
            if "unknown" in options:
                return "unknown"
            if len(options) > 1:
                self.todo(path, "one of " + ", ".join(str(o) for o in options))
            return options[0]
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            return self.mapping(schema, path)
        if kind == "array":
            items = schema.get("items") or {}
            if schema.get("minItems", 0) >= 1:
                return [self.value(items, path + [0])]
            return []
        if kind == "boolean":
            self.todo(path, "true or false")
            return False
        if kind in ("number", "integer"):
            return self.number(schema, path, field)
        if kind == "string":
            return self.text(schema, path, field)
        return "unknown"

    def number(self, schema, path, field):
        if "minimum" in schema:
            value = schema["minimum"]
        elif "exclusiveMinimum" in schema:
            value = schema["exclusiveMinimum"] + 1
        else:
            value = 1
        hint = schema.get("description", "the real number").split(". ")[0].rstrip(".")
        if field == "order":
            value = self.next_order()
            hint = "position on its page (1 comes first)"
        value = min(value, schema.get("maximum", value))
        self.todo(path, hint)
        return int(value) if schema.get("type") == "integer" or float(value).is_integer() else value

    def text(self, schema, path, field):
        pattern = schema.get("pattern", "")
        if path == ["id"]:
            return self.entry_id
        if schema.get("format") == "date":
            if field == "verified":
                self.note(path, "the day you checked the whole entry")
            elif field == "as_of":
                self.note(path, "the day you read this source")
            else:
                self.todo(path, "the real date (YYYY-MM-DD)")
            return self.today.isoformat()
        if pattern.startswith("^https://"):
            return "https://example.com/TODO"
        if pattern.startswith("^[a-z0-9][a-z0-9_-]*"):  # a source key
            return SOURCE_KEY
        if pattern.startswith("^[a-z0-9][a-z0-9.-]*"):  # an id
            self.todo(path, "an id")
            return self.entry_id
        if field in ("name", "title") and len(path) == 1:
            self.todo(path, TEXT_HINTS[field if field == "name" else "name"])
            return self.display_name()
        if field == "value" and len(path) >= 2:  # a text fact: maintainer, license, language
            field = path[-2]
        hint = TEXT_HINTS.get(field) or schema.get("description", "").split(". ")[0].rstrip(".") or field.replace("_", " ")
        return f"TODO: {hint}"[: schema.get("maxLength", 120)]

    def mapping(self, schema, path):
        out = {}
        props = schema.get("properties") or {}
        for key in props:
            if key in schema.get("required", []):
                out[key] = self.value(props[key], path + [key])
        extra = schema.get("additionalProperties")
        if not props and isinstance(extra, dict) and schema.get("minProperties", 0) >= 1:
            key = SOURCE_KEY if path[-1:] == ["sources"] else "todo"
            out[key] = self.value(extra, path + [key])
        return out

    # -- data-aware pieces ---------------------------------------------------------------------------
    def ids(self, collection):
        return sorted(getattr(self.catalog, collection, {}) or {})

    def next_order(self):
        orders = [e.get("order", 0) for e in (getattr(self.catalog, self.collection, {}) or {}).values()]
        return max([0] + [o for o in orders if isinstance(o, int)]) + 1

    def display_name(self):
        taken = {str(e.get("name") or e.get("title") or "").casefold()
                 for e in (getattr(self.catalog, self.collection, {}) or {}).values()}
        return self.entry_id if self.entry_id.casefold() not in taken else f"{self.entry_id} (new)"

    def finish(self, doc):
        """Collection-specific parts the schema alone cannot give (cross-file rules)."""
        if self.collection == "models":
            doc.update({"architecture": "dense", "total_params_b": 1, "active_params_b": 1})
            doc["params"] = {"embeddings": 0, "lm_head": 0, "attention": 1}
            doc["attention"] = {"type": "gqa", "kv_heads": 1, "head_dim": 1}
            self.todo(["params"], "parameter groups in billions from config.json; they add up to total_params_b")
            self.todo(["attention"], "attention type and shape from config.json (mla needs kv_lora_rank, qk_rope_head_dim)")
        if self.collection == "matrix":
            engines = self.catalog.matrix_engines() if self.catalog.matrix else []
            doc["scores"] = {e: {"score": 3, "rationale": "TODO: why this score, with the evidence", "source": SOURCE_KEY}
                             for e in engines} or doc.get("scores")
            for e in engines:
                self.todo(["scores", e, "score"], "1 to 5")
        if self.collection == "scenarios":
            doc["answers"] = {"scale": "local"}
            self.todo(["answers"], "the selector answers for this situation; the page shows the selector's engines for them")
            top = self.top_candidate(doc["answers"])
            name = self.catalog.name_of("engines", top) if self.catalog else top
            doc["answer"] = f"TODO: the one-line answer; it must name {name}, the selector's first pick for these answers."
        if self.collection == "launch":
            engines = self.ids("engines")
            doc["engine"] = self.entry_id if self.entry_id in engines or not engines else engines[0]
            doc["version"] = "0.0.0"
            doc["steps"] = [{"program": ["TODO-program"], "source": SOURCE_KEY}]
            doc["flags"] = [{"param": "model", "form": "positional", "value": "repo", "source": SOURCE_KEY},
                            {"param": "port", "form": "option", "flag": "--port", "default": 8000, "source": SOURCE_KEY}]
            self.todo(["version"], "the engine release the flags were checked for")
            self.todo(["flags"], "one entry per plan parameter, with the flag the engine's CLI reference gives")
        if self.collection == "results":
            doc["rows"][0]["metrics"] = {"decode_tps": 1}
            self.todo(["rows", 0, "metrics"], "the measured values (see the schema for names and units)")
        return doc

    def top_candidate(self, answers):
        try:
            result = recommend(self.catalog, answers)
            return result["candidates"][0]["engine"]
        except Exception:
            return self.ids("engines")[0] if self.ids("engines") else self.entry_id


LIST_HINTS = {
    ("engines", "hardware"): "rows like {id: nvidia-hopper, support: yes, note: ..., source: docs}",
    ("engines", "formats"): "rows like {id: gguf, support: partial, note: ..., source: docs}",
    ("engines", "quantization"): "rows like {id: fp8, support: yes, hardware: [nvidia-hopper], source: docs}",
    ("quantization", "native_hardware"): "hardware ids whose matrix units compute in this format",
    ("trends", "engines"): "engine ids this trend concerns",
}


def skeleton(collection, entry_id, catalog, schemas, today=None, kind=None):
    """``(document, comments)`` for a new entry of ``collection``."""
    bundled = SchemaSet(schemas).bundled[COLLECTIONS[collection]]
    builder = _Builder(collection, entry_id, catalog, today or date.today())
    doc = builder.finish(builder.mapping(bundled, []))
    for (name, field), hint in LIST_HINTS.items():
        if name == collection and doc.get(field) == []:
            builder.note([field], f"add {hint}")
    optional = [k for k in bundled.get("properties", {}) if k not in doc]
    head = [Comment(f"# New {kind or collection} from `python -m selector new`: replace every TODO; "
                    "a fact you cannot source stays `unknown`.", (), False)]
    if optional:
        head.append(Comment("# Optional fields: " + ", ".join(optional) + " (see CONTRIBUTING.md, Field guide).", (), False))
    keep = {tuple(path) for path in _paths(doc)}
    comments = head + [c for c in builder.comments if c.anchor in keep]
    return doc, comments


def _paths(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield path + (key,)
            yield from _paths(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield path + (i,)
            yield from _paths(value, path + (i,))


def check_id(collection, entry_id, schemas, data_dir):
    """Refuse an id the schema would refuse or that a file already has."""
    id_schema = SchemaSet(schemas).bundled[COLLECTIONS[collection]].get("properties", {}).get("id", {})
    if "enum" in id_schema:
        if entry_id not in id_schema["enum"]:
            raise NewError(f"ID: {entry_id!r} is not allowed for {collection}; use one of "
                           f"{', '.join(map(str, id_schema['enum']))}")
    else:
        pattern = id_schema.get("pattern", "^[a-z0-9][a-z0-9.-]*$")
        if not re.search(pattern, entry_id) or len(entry_id) > id_schema.get("maxLength", 64):
            raise NewError(f"ID: {entry_id!r} is not a valid id; use lower-case letters, digits, '-' and '.', "
                           f"starting with a letter or digit, at most {id_schema.get('maxLength', 64)} characters")
    target = Path(data_dir) / collection / f"{entry_id}.yaml"
    if target.exists() or target.is_symlink():
        raise NewError(f"ID: data/{collection}/{entry_id}.yaml already exists; edit it, or pick another id")
    return target


def new_entry(kind, entry_id, data_dir, today=None):
    """Write the skeleton; returns the path written.  Raises :class:`NewError`."""
    collection = resolve_kind(kind)
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise NewError(f"{data_dir}: data directory not found")
    schemas, problems = read_schemas(data_dir)
    if problems:
        raise NewError(str(problems[0]))
    target = check_id(collection, entry_id, schemas, data_dir)
    if not (data_dir / collection).is_dir() or (data_dir / collection).is_symlink():
        raise NewError(f"data/{collection}: collection folder is missing")
    catalog, _problems = load_data_dir(data_dir)  # only entries that passed their schema
    doc, comments = skeleton(collection, entry_id, catalog, schemas, today,
                             kind=next((k for k, c in KINDS.items() if c == collection), collection))
    text = format_document(doc, COLLECTIONS[collection], schemas, f"../schema/{COLLECTIONS[collection]}", comments)
    if text is None:  # pragma: no cover - format_document checks its own output
        raise NewError("could not lay out the skeleton; please report this")
    try:
        target.touch(mode=0o644, exist_ok=False)
    except FileExistsError:
        raise NewError(f"ID: data/{collection}/{entry_id}.yaml already exists; edit it, or pick another id") from None
    write_file(target, text)
    return target
