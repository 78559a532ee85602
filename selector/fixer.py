"""``python -m selector fix``: one canonical layout for every data file.

Keys follow the order of the file's JSON Schema (``id`` first, ``sources``
last), strings are quoted only where YAML needs it, the ``$schema`` comment
line is (re)written, and the output is stable: running it twice changes
nothing the second time.  Files that do not parse are left untouched (validate
reports them).  Comments other than the ``$schema`` line are not kept.
"""

import json
import re
from pathlib import Path

from .catalog import COLLECTIONS, SINGLETONS


def _dumper_class():
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    # Mirror the loader: only true/false are booleans, dates stay text, so
    # `yes`, `no` and 2026-11-29 are written without quotes.
    Dumper.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers
                if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
        for first, resolvers in yaml.SafeDumper.yaml_implicit_resolvers.items()
    }
    Dumper.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))

    def increase_indent(self, flow=False, indentless=False):
        return yaml.SafeDumper.increase_indent(self, flow, False)

    Dumper.increase_indent = increase_indent
    return Dumper


def _order(schema_props):
    return {key: i for i, key in enumerate(schema_props)}


def _sorted(node, schema, schemas, base):
    """Reorder mapping keys following the schema's ``properties`` order, recursively."""
    schema, base = _deref(schema, schemas, base)
    if isinstance(node, dict):
        props = schema.get("properties", {}) if isinstance(schema, dict) else {}
        rank = _order(props)
        keys = sorted(node, key=lambda k: (rank.get(k, len(rank)), str(k)))
        extra = schema.get("additionalProperties") if isinstance(schema, dict) else None
        return {k: _sorted(node[k], props.get(k, extra if isinstance(extra, dict) else {}), schemas, base) for k in keys}
    if isinstance(node, list):
        items = schema.get("items", {}) if isinstance(schema, dict) else {}
        return [_sorted(v, items, schemas, base) for v in node]
    return node


def _deref(schema, schemas, base):
    """Follow ``$ref`` chains; returns ``(schema, base)`` where ``base`` is the file the
    schema came from, so nested ``#/$defs/...`` refs resolve against the right file."""
    while isinstance(schema, dict) and "$ref" in schema:
        doc, _, pointer = schema["$ref"].partition("#")
        base = doc or base
        node = schemas.get(base, {})
        for part in [p for p in pointer.split("/") if p]:
            node = node.get(part, {}) if isinstance(node, dict) else {}
        schema = node
    return schema, base


def format_document(doc, schema_name, schemas, schema_ref):
    import yaml
    ordered = _sorted(doc, schemas[schema_name], schemas, schema_name)
    body = yaml.dump(ordered, Dumper=_dumper_class(), sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)
    return f"# yaml-language-server: $schema={schema_ref}\n{body}"


def fix_dir(data_dir, check=False):
    from .files import parse_yaml_text
    data_dir = Path(data_dir)
    schemas = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in (data_dir / "schema").glob("*.schema.json")}
    targets = []
    for name, schema_name in COLLECTIONS.items():
        for path in sorted((data_dir / name).glob("*.yaml")):
            targets.append((path, schema_name, f"../schema/{schema_name}"))
    for name, schema_name in SINGLETONS.items():
        targets.append((data_dir / f"{name}.yaml", schema_name, f"schema/{schema_name}"))
    changed = []
    for path, schema_name, ref in targets:
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8").replace("\t", "  ")
            doc = parse_yaml_text(text)
        except Exception:  # unreadable files are validate's business
            continue
        if not isinstance(doc, dict):
            continue
        new = format_document(doc, schema_name, schemas, ref)
        if new != path.read_text(encoding="utf-8"):
            changed.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    return changed
