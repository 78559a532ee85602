"""``python -m selector fix``: one canonical layout for every data file.

Keys follow the order of the file's JSON Schema (``id`` first, ``sources``
last); keys the schema does not name (source keys, matrix scores, workloads)
keep the author's order, because that order is shown on the site.  Short
mappings and lists of plain values are written on one line in flow style
(``{id: cpu, support: yes, source: docs}``) when the line stays within
:data:`WIDTH` characters; longer ones are written as blocks, and text too long
for one line becomes a folded ``>-`` block.  Strings are quoted only where YAML
needs it, the ``$schema`` comment line is (re)written, and the output is stable:
running it twice changes nothing the second time.

Every rewrite is checked by parsing it back: a file is only written when the
new text holds exactly the same data.  Files that do not parse are left
untouched (validate reports them), except that tabs used for indentation are
turned into two spaces first.  Comments other than the ``$schema`` line are not
kept.
"""

import json
import re
from pathlib import Path

from .catalog import COLLECTIONS, SINGLETONS

WIDTH = 110          # one-line flow collections and plain text stay within this many columns
FOLD_AT = WIDTH - 12  # folded text breaks at the first space after this column
_LEADING_WS = re.compile(r"^[ \t]+", re.M)


class _Flow(dict):
    """A mapping written on one line."""


class _FlowList(list):
    """A list written on one line."""


class _Folded(str):
    """Text written as a folded ``>-`` block."""


class _Literal(str):
    """Text with line breaks, written as a literal ``|`` block."""


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

    def write_folded(self, text):
        # Only folded text wraps; plain, quoted and flow scalars stay on one line
        # (the dumper's width is huge), so a value never spills onto a second line.
        saved, self.best_width = self.best_width, FOLD_AT
        try:
            yaml.SafeDumper.write_folded(self, text)
        finally:
            self.best_width = saved

    Dumper.increase_indent = increase_indent
    Dumper.write_folded = write_folded
    Dumper.ignore_aliases = lambda self, data: True
    str_tag, map_tag, seq_tag = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
    Dumper.add_representer(_Flow, lambda d, v: d.represent_mapping(map_tag, v.items(), flow_style=True))
    Dumper.add_representer(_FlowList, lambda d, v: d.represent_sequence(seq_tag, v, flow_style=True))
    Dumper.add_representer(_Folded, lambda d, v: d.represent_scalar(str_tag, str(v), style=">"))
    Dumper.add_representer(_Literal, lambda d, v: d.represent_scalar(str_tag, str(v), style="|"))
    Dumper.add_representer(dict, lambda d, v: d.represent_mapping(map_tag, v.items(), flow_style=False))
    Dumper.add_representer(list, lambda d, v: d.represent_sequence(seq_tag, v, flow_style=False))
    return Dumper


def _order(schema_props):
    return {key: i for i, key in enumerate(schema_props)}


def _sorted(node, schema, schemas, base):
    """Reorder mapping keys following the schema's ``properties`` order, recursively.

    Keys the schema does not list keep their relative order (the sort is stable)."""
    schema, base = _deref(schema, schemas, base)
    if isinstance(node, dict):
        props = schema.get("properties", {}) if isinstance(schema, dict) else {}
        rank = _order(props)
        keys = sorted(node, key=lambda k: rank.get(k, len(rank)))
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


# -- layout ---------------------------------------------------------------------

def _scalar(value):
    return not isinstance(value, (dict, list))


def _as_flow(value):
    if isinstance(value, dict):
        return _Flow((k, _as_flow(v)) for k, v in value.items())
    if isinstance(value, list):
        return _FlowList(_as_flow(v) for v in value)
    return value


def _one_line(value, dumper):
    """``value`` as one line of flow YAML (or None if it cannot be one line)."""
    import yaml
    text = yaml.dump(_FlowList([_as_flow(value)]), Dumper=dumper, default_flow_style=True, width=10**9, allow_unicode=True)
    text = text.rstrip("\n")
    if "\n" in text:
        return None
    return text[1:-1]  # drop the wrapping [ ]


def _flowable(value):
    if isinstance(value, dict):
        return bool(value) and all(
            isinstance(k, str) and (_scalar(v) or (isinstance(v, list) and all(_scalar(x) for x in v)))
            for k, v in value.items())
    if isinstance(value, list):
        return bool(value) and all(_scalar(v) for v in value)
    return False


def _layout(value, prefix, indent, dumper, top=False):
    """Wrap ``value`` so the dumper writes it in the house style.

    ``prefix`` is how many characters precede the value on its first line
    (``key: `` or ``- `` and their indentation); ``indent`` is the column at which
    a block form of the value would start its lines.
    """
    if isinstance(value, str):
        if "\n" in value.rstrip("\n"):
            return _Literal(value)
        line = _one_line(value, dumper)
        if line is not None and prefix + len(line) > WIDTH and " " in value.strip():
            return _Folded(value)
        return value
    if _scalar(value):
        return value
    if not top and _flowable(value):
        line = _one_line(value, dumper)
        if line is not None and prefix + len(line) <= WIDTH:
            return _Flow(value) if isinstance(value, dict) else _FlowList(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            key_text = _one_line(key, dumper) or str(key)
            out[key] = _layout(item, indent + len(key_text) + 2, indent + 2, dumper)
        return out
    # block list: "- " at ``indent``, item content at indent + 2
    return [_layout(item, indent + 2, indent + 2, dumper) for item in value]


def _dump(doc, dumper, styled):
    import yaml
    body = _layout(doc, 0, 0, dumper, top=True) if styled else doc
    return yaml.dump(body, Dumper=dumper, sort_keys=False, allow_unicode=True, width=10**9,
                     default_flow_style=False)


def format_document(doc, schema_name, schemas, schema_ref):
    """The canonical text of ``doc``; falls back to plain block style if the styled
    text would not read back as the same data."""
    from .files import parse_yaml_text
    schema = schemas.get(schema_name, {})
    ordered = _sorted(doc, schema, schemas, schema_name)
    dumper = _dumper_class()
    for styled in (True, False):
        body = _dump(ordered, dumper, styled)
        try:
            same = parse_yaml_text(body) == doc
        except Exception:
            same = False
        if same:
            return f"# yaml-language-server: $schema={schema_ref}\n{body}"
    return None


def _read(path):
    """Parse a data file the way validate does; returns the document or None."""
    from .files import parse_yaml_text
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for attempt in (text, _LEADING_WS.sub(lambda m: m.group(0).replace("\t", "  "), text)):
        try:
            return parse_yaml_text(attempt)
        except Exception:  # unreadable files are validate's business
            continue
    return None


def fix_dir(data_dir, check=False):
    data_dir = Path(data_dir)
    schemas = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted((data_dir / "schema").glob("*.schema.json"))}
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
        doc = _read(path)
        if not isinstance(doc, dict):
            continue
        new = format_document(doc, schema_name, schemas, ref)
        if new is None:
            continue
        if new.encode("utf-8") != path.read_bytes():
            changed.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    return changed
