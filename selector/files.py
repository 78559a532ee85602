"""Read ``data/`` from disk: the one door from YAML files to the catalog.

Build-side only (imports PyYAML lazily): the site build, ``python -m selector
validate`` and the tests all call :func:`read_data_dir` and then
:func:`selector.catalog.build`.  Problems are returned, never raised, so one run
reports every bad file at once.
"""

import json
import math
import re
from pathlib import Path

from .catalog import COLLECTIONS, SINGLETONS, Problem

MAX_BYTES = 256 * 1024
MAX_SAFE_INT = 2**53 - 1
SCHEMA_LINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)\s*$")


def _loader_class():
    import yaml

    class Loader(yaml.SafeLoader):
        """SafeLoader with YAML 1.2-ish scalars (``yes``/``no``/dates stay text)
        and duplicate keys reported instead of silently overwritten."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers
                if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))

    def construct_mapping(loader, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if key in seen:
                raise DuplicateKey(key, seen[key], key_node.start_mark.line + 1)
            seen[key] = key_node.start_mark.line + 1
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)

    def compose_node(loader, parent, index):
        # Aliases (*name) would let a small file expand into a huge tree (an
        # "alias bomb"); data files have no reason to share values, so refuse them.
        if loader.check_event(yaml.events.AliasEvent):
            raise AliasUsed(loader.peek_event().start_mark.line + 1)
        return yaml.SafeLoader.compose_node(loader, parent, index)

    Loader.compose_node = compose_node
    return Loader


class DuplicateKey(Exception):
    def __init__(self, key, first_line, line):
        super().__init__(key)
        self.key, self.first_line, self.line = key, first_line, line


class AliasUsed(Exception):
    def __init__(self, line):
        super().__init__(line)
        self.line = line


def _not_json(node, path=""):
    """The first value JSON cannot carry (NaN, infinity, YAML-only types), as ``(path, message)``."""
    from .jsonschema_lite import join
    if isinstance(node, dict):
        for key, value in node.items():
            found = _not_json(value, join(path, key if isinstance(key, str) else repr(key)))
            if found:
                return found
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found = _not_json(value, join(path, i))
            if found:
                return found
    elif isinstance(node, float) and not math.isfinite(node):
        return path, f"{node} is not a finite number; JSON has no NaN or infinity, write a real number"
    elif isinstance(node, int) and not isinstance(node, bool) and abs(node) > MAX_SAFE_INT:
        # a browser's JSON.parse keeps integers exact only up to 2**53, and a huge one
        # breaks repr() (int max str digits) and float arithmetic in the fit estimator
        return path, f"is a {node.bit_length()}-bit whole number; keep numbers below 2**53 (9007199254740991)"
    elif not (node is None or isinstance(node, (str, int, float, bool))):
        return path, f"is a YAML {type(node).__name__} value, which JSON cannot carry; write plain text, numbers, lists or mappings"
    return None


def parse_yaml_text(text, loader=None):
    """Parse one YAML document with the project's loader (raises on errors)."""
    import yaml
    return yaml.load(text, Loader=loader or _loader_class())


def read_file(path, rel, loader=None):
    """Return ``(document or None, [Problem])`` for one data file."""
    import yaml

    problems = []
    raw = path.read_bytes()
    if len(raw) > MAX_BYTES:
        return None, [Problem(rel, "", f"file is {len(raw)} bytes; data files must stay under {MAX_BYTES} bytes")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return None, [Problem(rel, f"line {line}", f"is not UTF-8 text (byte 0x{raw[exc.start]:02x}); re-save the file as UTF-8")]
    if not text.strip():
        return None, [Problem(rel, "", "file is empty; it must hold one mapping starting with `id:`")]
    for number, line in enumerate(text.splitlines(), 1):
        if "\t" in line[: len(line) - len(line.lstrip(" \t"))]:
            problems.append(Problem(rel, f"line {number}", "indents with a tab; YAML needs spaces (run `make fix` or replace the tab with spaces)"))
    if problems:
        return None, problems
    try:
        doc = parse_yaml_text(text, loader)
    except DuplicateKey as dup:
        return None, [Problem(rel, f"line {dup.line}", f"key {dup.key!r} appears twice (first on line {dup.first_line}); keep one")]
    except AliasUsed as alias:
        return None, [Problem(rel, f"line {alias.line}", "uses a YAML alias (*name); write the value out in full instead")]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else ""
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return None, [Problem(rel, where, f"is not valid YAML: {what}; check indentation and quoting")]
    except RecursionError:
        return None, [Problem(rel, "", "is nested too deeply to be a data file")]
    except ValueError as exc:  # e.g. int(): a number with more than 4300 digits
        return None, [Problem(rel, "", f"is not valid YAML: {str(exc).split(';')[0]}; write a shorter number")]
    if doc is None:
        return None, [Problem(rel, "", "file has no data, only comments; it must hold one mapping starting with `id:`")]
    if not isinstance(doc, dict):
        kind = "a list" if isinstance(doc, list) else type(doc).__name__
        return None, [Problem(rel, "", f"top level must be a mapping of fields, not {kind}")]
    bad = _not_json(doc)
    if bad:
        return None, [Problem(rel, bad[0] or "(top level)", bad[1])]
    first = text.splitlines()[0]
    match = SCHEMA_LINE.match(first)
    if not match:
        problems.append(Problem(rel, "line 1", "must be the `# yaml-language-server: $schema=...` comment naming this file's schema (run `make fix`)"))
    else:
        target = (path.parent / match.group(1)).resolve()
        if not target.is_file():
            problems.append(Problem(rel, "line 1", f"$schema points at {match.group(1)}, which does not exist"))
    return doc, problems


def read_data_dir(data_dir):
    """Read every data file. Returns ``(raw, files, problems)``.

    ``raw`` maps collection -> {id: document} (singletons: name -> document);
    ``files`` maps (collection, id) -> path relative to the data dir's parent, for messages.
    """
    data_dir = Path(data_dir)
    base = data_dir.parent
    loader = _loader_class()
    raw, files, problems = {}, {}, []
    if not data_dir.is_dir():
        return raw, files, [Problem(str(data_dir), "", "data directory not found")]

    def rel(p):
        try:
            return str(p.relative_to(base))
        except ValueError:
            return str(p)

    for name in COLLECTIONS:
        folder = data_dir / name
        raw[name] = {}
        if not folder.is_dir():
            problems.append(Problem(rel(folder), "", "collection folder is missing"))
            continue
        for path in sorted(folder.iterdir()):
            if path.name.startswith(".") or path.is_dir():
                continue
            if path.suffix != ".yaml":
                problems.append(Problem(rel(path), "", "data files end in .yaml; rename it"))
                continue
            doc, found = read_file(path, rel(path), loader)
            problems.extend(found)
            if doc is None:
                continue
            key = path.stem
            raw[name][key] = doc
            files[(name, key)] = rel(path)
    for name in SINGLETONS:
        path = data_dir / f"{name}.yaml"
        if not path.is_file():
            problems.append(Problem(rel(path), "", "file is missing"))
            continue
        doc, found = read_file(path, rel(path), loader)
        problems.extend(found)
        if doc is not None:
            raw[name] = doc
            files[(name, None)] = rel(path)
    return raw, files, problems


def load_schemas(data_dir):
    folder = Path(data_dir) / "schema"
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.schema.json"))}


def load_data_dir(data_dir, today=None):
    """Read, validate and wrap ``data_dir``: returns ``(Catalog, problems)``.

    The catalog holds only the entries that passed their schema, so a consumer
    never sees a malformed document; callers decide whether errors are fatal.
    """
    from .catalog import Catalog, validate

    raw, files, problems = read_data_dir(data_dir)
    schemas = load_schemas(data_dir)
    clean, found = validate(raw, files, schemas, today=today)
    return Catalog(clean), sorted(problems + found)
