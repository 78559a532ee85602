"""Read ``data/`` from disk: the one door from files to the catalog.

Build-side only (imports PyYAML lazily): the site build, ``python -m selector
validate``, ``fix`` and the tests all read through :func:`read_data_dir`.  Only
regular files inside the data folder are read: symbolic links, named pipes and
devices are refused by name, the size is checked on the open file before reading,
and never more than the limit is read.  Problems are returned, never raised, so
one run reports every bad file at once.

YAML is parsed with libyaml (PyYAML's C parser) when it is available, with the
same YAML 1.2-style semantics as the pure-Python loader (``yes``/``no`` and dates
stay text, duplicate keys and aliases are refused): any document the fast path
does not handle exactly (tags, anchors, aliases, duplicate keys, parse errors,
deep nesting) is parsed again by the Python loader, which gives the messages.
"""

import errno
import json
import math
import os
import re
import stat
from pathlib import Path

from selector.catalog import COLLECTIONS, SINGLETONS, Catalog

from .checks import document_checks
from .history import removed_ids
from .paths import join
from .problem import Problem
from .validate import validate
from .validation import SchemaError, schema_set



MAX_BYTES = 256 * 1024
MAX_SAFE_INT = 2**53 - 1
SCHEMA_LINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)\s*$")
_FILE_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


class Refused(Exception):
    """A path that is not read, with the one-line reason."""


# -- files ------------------------------------------------------------------------------------------

def _kind(mode):
    return next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")


def refusal(mode, folder="data/", what="data files"):
    """Why a file of this ``lstat`` mode is not read (a link, a pipe, a device...), or None for a
    regular file; ``folder`` and ``what`` name where such files belong (the build reuses this for docs/)."""
    if stat.S_ISLNK(mode):
        return f"is a symbolic link; {what} must be regular files inside {folder} (replace the link with the file)"
    if not stat.S_ISREG(mode):
        return f"is {_kind(mode)}, not a regular file; remove it from {folder}"
    return None


def read_bytes(path, limit=MAX_BYTES, folder="data/", what="data files"):
    """The bytes of a regular file, never through a symbolic link and never more than ``limit``.

    Raises :class:`Refused` with a message for the contributor.  The checks run on the open
    file (``fstat``), so a file swapped for a link or a pipe after the listing is still refused,
    and a named pipe is opened without blocking."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise Refused("file is missing") from None
    except OSError as exc:
        raise Refused(f"cannot be read ({exc.strerror})") from None
    if why := refusal(st.st_mode, folder, what):
        raise Refused(why)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(refusal(stat.S_IFLNK, folder, what)) from None
        raise Refused(f"cannot be read ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if why := refusal(st.st_mode, folder, what):
            raise Refused(why)
        if st.st_size > limit:
            raise Refused(f"file is {st.st_size} bytes; {what} must stay under {limit} bytes")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew after fstat
            raise Refused(f"file is over {limit} bytes; {what} must stay under {limit} bytes")
        return b"".join(chunks)
    except OSError as exc:
        raise Refused(f"cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)


def list_folder(folder):
    """``(names of regular .yaml files, [(name, message)] refused)`` for one collection folder.

    Raises :class:`Refused` when the folder itself is missing, a link or not a folder.
    Hidden entries and sub-folders are skipped."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        raise Refused("collection folder is missing") from None
    if stat.S_ISLNK(st.st_mode):
        raise Refused("is a symbolic link; collection folders must be real folders inside data/")
    if not stat.S_ISDIR(st.st_mode):
        raise Refused(f"is {_kind(st.st_mode)}, not a folder")
    names, refused = [], []
    with os.scandir(folder) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir(follow_symlinks=False):
            continue
        elif why := refusal(entry.stat(follow_symlinks=False).st_mode):
            refused.append((entry.name, why))
        elif not entry.name.endswith(".yaml"):
            refused.append((entry.name, "data files end in .yaml; rename it"))
        else:
            names.append(entry.name)
    return names, refused


# -- YAML -------------------------------------------------------------------------------------------

class DuplicateKey(Exception):
    def __init__(self, key, first_line, line):
        super().__init__(key)
        self.key, self.first_line, self.line = key, first_line, line


class AliasUsed(Exception):
    def __init__(self, line):
        super().__init__(line)
        self.line = line


_LOADER = None


def loader_class():
    """The reference loader: PyYAML's pure-Python SafeLoader with YAML 1.2-style scalars
    (only true/false are booleans; ``yes``, ``no`` and dates stay text), duplicate keys
    reported with both lines, and aliases refused."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    class Loader(yaml.SafeLoader):
        pass

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
            if isinstance(key, (list, dict, set)):
                raise yaml.constructor.ConstructorError(
                    None, None, "found a list or mapping used as a key; keys must be plain text", key_node.start_mark)
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
    _LOADER = Loader
    return Loader


class _Fallback(Exception):
    """The fast path cannot build this document exactly; the Python loader will."""


_SCALARS = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
            "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null")
_FAST = {}


def _fast_parts():
    """(CParser, event classes, a loader instance used as resolver and constructor) or None."""
    if "parts" not in _FAST:
        try:
            from yaml import events
            from yaml._yaml import CParser
        except ImportError:  # PyYAML built without libyaml
            _FAST["parts"] = None
        else:
            Loader = loader_class()
            table = Loader.yaml_implicit_resolvers
            wildcard = list(table.get(None, []))
            if Loader.yaml_path_resolvers:  # pragma: no cover - the inlined resolver would miss them
                _FAST["parts"] = None
                return None
            by_first = {first: list(resolvers) + wildcard for first, resolvers in table.items() if first is not None}
            by_first[None] = wildcard
            by_first[""] = list(table.get("", [])) + wildcard
            _FAST["parts"] = (CParser, events, Loader(""), by_first)
    return _FAST["parts"]


def _nesting_bound(text):
    """An upper bound on how deeply ``text`` can nest, cheap to compute.

    libyaml builds nodes recursively in C, so a file nested tens of thousands deep
    would overflow the C stack; such files go to the Python loader, which stops
    with RecursionError instead."""
    return text.count("[") + text.count("{") + text.count("- ") + text.count("-\n") + text.count("?") + 64


def _parse_fast(text):
    """Build the document from libyaml's events: ``(document, json_safe)``.

    ``json_safe`` is true when every key is text and every number fits JSON (finite, below 2**53),
    which the builder sees as it goes; otherwise :func:`_not_json` finds and words the problem.
    Raises :class:`_Fallback` on anything it does not handle exactly."""
    parts = _fast_parts()
    if parts is None or _nesting_bound(text) > 2000:
        raise _Fallback
    CParser, ev, helper, by_first = parts
    Scalar, MapStart, SeqStart = ev.ScalarEvent, ev.MappingStartEvent, ev.SequenceStartEvent
    MapEnd, SeqEnd = ev.MappingEndEvent, ev.SequenceEndEvent
    constructors = helper.yaml_constructors
    import yaml
    ScalarNode = yaml.ScalarNode
    str_tag = _SCALARS[0]
    safe = True
    parser = CParser(text)
    try:
        get = parser.get_event
        try:
            get()  # stream start
            event = get()
            if isinstance(event, ev.StreamEndEvent):
                return None, True
            event = get()  # first node after the document start
            stack = []  # [container, pending key list or None for a sequence]
            while True:
                cls = event.__class__
                if cls is Scalar:
                    if event.anchor is not None or event.tag not in (None, "!"):
                        raise _Fallback
                    value = event.value
                    if event.implicit[0]:
                        # BaseResolver.resolve for a plain scalar, inlined (no path resolvers are set)
                        tag = str_tag
                        for candidate, regexp in by_first.get(value[:1], by_first[None]):
                            if regexp.match(value):
                                tag = candidate
                                break
                        if tag != str_tag:
                            if tag not in _SCALARS:
                                raise _Fallback
                            value = constructors[tag](helper, ScalarNode(tag, value))
                            if isinstance(value, float) and not math.isfinite(value) or (
                                    isinstance(value, int) and abs(value) > MAX_SAFE_INT):
                                safe = False
                elif cls is MapStart or cls is SeqStart:
                    if event.anchor is not None or event.tag not in (None, "!"):
                        raise _Fallback
                    stack.append(({}, []) if cls is MapStart else ([], None))
                    event = get()
                    continue
                elif cls is MapEnd or cls is SeqEnd:
                    value = stack.pop()[0]
                elif cls is ev.DocumentEndEvent:
                    if not isinstance(get(), ev.StreamEndEvent):
                        raise _Fallback  # a second document: the Python loader names it
                    return result, safe
                else:  # an alias
                    raise _Fallback
                if not stack:
                    result = value
                else:
                    container, key = stack[-1]
                    if key is None:
                        container.append(value)
                    elif key:
                        name = key.pop()
                        if name in container:
                            raise _Fallback
                        container[name] = value
                    elif isinstance(value, (dict, list)):
                        raise _Fallback  # a list or mapping as a key
                    else:
                        if not isinstance(value, str):
                            safe = False
                        key.append(value)
                event = get()
        except yaml.YAMLError:
            raise _Fallback from None
    finally:
        parser.dispose()


def parse_yaml_text(text, loader=None, fast=True):
    """Parse one YAML document with the project's semantics (raises on errors).

    ``loader`` forces a given PyYAML loader class; ``fast=False`` forces the pure-Python one."""
    import yaml
    if loader is None and fast:
        try:
            return _parse_fast(text)[0]
        except _Fallback:
            pass
    return yaml.load(text, Loader=loader or loader_class())


def _parse(text, loader=None):
    """``(document, json_safe)``: the fast path when it applies, else the reference loader."""
    if loader is None:
        try:
            return _parse_fast(text)
        except _Fallback:
            pass
    return parse_yaml_text(text, loader, fast=False), False


def _not_json(node, path=""):
    """The first value JSON cannot carry (NaN, infinity, YAML-only types, keys that are not text),
    as ``(path, message)``."""
    if isinstance(node, dict):
        for key in node:
            if not isinstance(key, str):
                return path or "(top level)", f"key {key!r} must be text; quote it"
        for key, value in node.items():
            found = _not_json(value, join(path, key))
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


def decode(raw, rel):
    """``(text or None, [Problem])``: UTF-8 text of a file's bytes."""
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return None, [Problem(rel, f"line {line}", f"is not UTF-8 text (byte 0x{raw[exc.start]:02x}); re-save the file as UTF-8")]


def parse_document(text, rel, loader=None):
    """``(document or None, [Problem])`` for the text of one data file: YAML errors, a top level
    that is not a mapping and values JSON cannot carry are reported, never raised."""
    import yaml
    try:
        doc, safe = _parse(text, loader)
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
    bad = None if safe else _not_json(doc)
    if bad:
        return None, [Problem(rel, bad[0] or "(top level)", bad[1])]
    return doc, []


def tab_problems(text, rel):
    problems = []
    if "\t" in text:
        for number, line in enumerate(text.splitlines(), 1):
            if "\t" in line[: len(line) - len(line.lstrip(" \t"))]:
                problems.append(Problem(rel, f"line {number}", "indents with a tab; YAML needs spaces (run `make fix` or replace the tab with spaces)"))
    return problems


_TODO_COMMENT = re.compile(r"(?:^|\s)#\s*TODO\b:?\s*(.*)$")


def todo_problems(text, rel):
    """Warnings for ``# TODO`` comments (``selector new`` marks what to fill in with them)."""
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        match = _TODO_COMMENT.search(line)
        if match:
            what = match.group(1).strip() or "a value"
            out.append(Problem(rel, f"line {number}", f"is still marked TODO ({what}); fill it in and remove the comment",
                               "warning", "placeholders"))
    return out


def read_file(path, rel, loader=None, schema_ref=None):
    """Return ``(document or None, [Problem])`` for one data file.

    ``schema_ref`` is what the first line's ``$schema=`` should say (``../schema/engine.schema.json``)."""
    try:
        raw = read_bytes(path)
    except Refused as exc:
        return None, [Problem(rel, "", str(exc))]
    text, problems = decode(raw, rel)
    if text is None:
        return None, problems
    if not text.strip():
        return None, [Problem(rel, "", "file is empty; it must hold one mapping starting with `id:`")]
    problems = tab_problems(text, rel)
    if problems:
        return None, problems
    doc, problems = parse_document(text, rel, loader)
    if doc is None:
        return None, problems
    if "TODO" in text:
        problems.extend(todo_problems(text, rel))
    first = text.split("\n", 1)[0]
    match = SCHEMA_LINE.match(first)
    if not match:
        problems.append(Problem(rel, "line 1", "must be the `# yaml-language-server: $schema=...` comment naming this file's schema (run `make fix`)"))
    elif schema_ref is not None and match.group(1) != schema_ref:
        if not os.path.lexists(os.path.join(os.path.dirname(path), match.group(1))):
            problems.append(Problem(rel, "line 1", f"$schema points at {match.group(1)}, which does not exist; this file's schema is {schema_ref} (run `make fix`)"))
        else:
            problems.append(Problem(rel, "line 1", f"$schema points at {match.group(1)}, but this file's schema is {schema_ref} (run `make fix`)"))
    return doc, problems


def _rel_to(base):
    def rel(p):
        try:
            return Path(p).relative_to(base).as_posix()
        except ValueError:
            return str(p)
    return rel


def data_files(data_dir):
    """Every data file to read: ``([(collection, id or None, path, schema file, $schema ref)], [Problem])``.

    The same listing serves validate and fix, so both read exactly the same files."""
    data_dir = Path(data_dir)
    rel = _rel_to(data_dir.parent)
    if not data_dir.is_dir():
        return [], [Problem(str(data_dir), "", "data directory not found")]
    targets, problems = [], []
    for name, schema_name in COLLECTIONS.items():
        folder = data_dir / name
        try:
            names, refused = list_folder(folder)
        except Refused as exc:
            problems.append(Problem(rel(folder), "", str(exc)))
            continue
        problems.extend(Problem(rel(folder / n), "", msg) for n, msg in refused)
        for file_name in names:
            targets.append((name, file_name[: -len(".yaml")], folder / file_name, schema_name, f"../schema/{schema_name}"))
    for name, schema_name in SINGLETONS.items():
        targets.append((name, None, data_dir / f"{name}.yaml", schema_name, f"schema/{schema_name}"))
    return targets, problems


PARALLEL_FROM = 400  # files; below this, starting worker processes costs more than it saves
_WORKER = {}


def _read_batch(batch, schema_set=None, today=None):
    """Read (and, given a schema set, schema-check) a batch of data files; runs in a worker process
    for large catalogs.  Returns ``[(collection, id, rel, document or None, problems, schema problems,
    document check rows)]``: given ``today``, a document that passed its schema also goes through the
    checks that read one document alone (:func:`selector.checks.document_checks`), here, in parallel."""
    if schema_set is None and "schemas" in _WORKER:
        schema_set, today = _WORKER["schemas"], _WORKER["today"]
    doc_checks = document_checks if schema_set is not None and today is not None else None
    out = []
    for collection, key, path, schema_name, ref, rel in batch:
        doc, problems = read_file(path, rel, schema_ref=ref)
        found = schema_set.validate(doc, schema_name) if doc is not None and schema_set is not None else None
        rows = doc_checks(collection, key, doc, today) if found == [] and doc_checks else None
        out.append((collection, key, rel, doc, problems, found, rows))
    return out


def _jobs(count):
    """How many processes read ``count`` files: one below :data:`PARALLEL_FROM`, otherwise one per
    CPU (at most 8); always one when threads are running (forking them is unsafe), off Linux, or
    when the environment says ``IEM_JOBS=1``."""
    if count < PARALLEL_FROM:
        return 1
    import sys
    import threading
    if threading.active_count() > 1 or not sys.platform.startswith("linux"):
        return 1  # forking is only safe without threads, and only the default on Linux
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    limit = os.environ.get("IEM_JOBS", "")
    if limit.isdigit() and int(limit) > 0:
        cpus = min(cpus, int(limit))
    return max(1, min(cpus, 8))


def _read_all(targets, rel, schema_set=None, today=None):
    rows = [(collection, key, path, schema_name, ref, rel(path)) for collection, key, path, schema_name, ref in targets]
    jobs = _jobs(len(rows))
    if jobs > 1:
        import multiprocessing
        size = max(16, len(rows) // (jobs * 8))
        batches = [rows[i:i + size] for i in range(0, len(rows), size)]
        _WORKER.update(schemas=schema_set, today=today)  # inherited by the forked workers
        try:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                return [row for batch in pool.imap(_read_batch, batches) for row in batch]
        except OSError:  # no processes to be had: read them here
            pass
        finally:
            _WORKER.clear()
    return _read_batch(rows, schema_set, today)


def _assemble(results, problems):
    raw = {name: {} for name in COLLECTIONS}
    files, checked, doc_rows = {}, {}, {}
    for collection, key, rel, doc, found, schema_found, rows in results:
        problems.extend(found)
        if doc is None:
            continue
        if key is None:
            raw[collection] = doc
        else:
            raw[collection][key] = doc
        files[(collection, key)] = rel
        checked[(collection, key)] = schema_found
        if rows is not None:
            doc_rows[(collection, key)] = rows
    return raw, files, checked, doc_rows


def read_data_dir(data_dir):
    """Read every data file. Returns ``(raw, files, problems)``.

    ``raw`` maps collection -> {id: document} (singletons: name -> document);
    ``files`` maps (collection, id) -> path relative to the data dir's parent, for messages.
    """
    data_dir = Path(data_dir)
    targets, problems = data_files(data_dir)
    if not targets:
        return {}, {}, problems
    raw, files, _, _ = _assemble(_read_all(targets, _rel_to(data_dir.parent)), problems)
    return raw, files, problems


def read_schemas(data_dir):
    """``(schemas by file name, [Problem])``: every ``data/schema/*.schema.json``, read like data files.

    A schema a collection needs that is missing or not valid JSON is one problem each."""
    data_dir = Path(data_dir)
    rel = _rel_to(data_dir.parent)
    folder = data_dir / "schema"
    schemas, problems = {}, []
    try:
        names, refused = list_folder(folder)
    except Refused as exc:
        msg = str(exc).replace("collection folder", "schema folder")
        return {}, [Problem(rel(folder), "", msg)]
    problems.extend(Problem(rel(folder / n), "", msg) for n, msg in refused if not msg.startswith("data files end in"))
    with os.scandir(folder) as it:
        json_names = sorted(e.name for e in it if e.name.endswith(".schema.json") and not e.name.startswith("."))
    for name in json_names:
        path = folder / name
        try:
            raw = read_bytes(path)
        except Refused as exc:
            if not any(n == name for n, _ in refused):
                problems.append(Problem(rel(path), "", str(exc)))
            continue
        text, found = decode(raw, rel(path))
        if text is None:
            problems.extend(found)
            continue
        try:
            schema = json.loads(text)
        except ValueError as exc:
            line = getattr(exc, "lineno", None)
            problems.append(Problem(rel(path), f"line {line}" if line else "", f"is not valid JSON: {getattr(exc, 'msg', exc)}; fix the schema file"))
            continue
        except RecursionError:
            problems.append(Problem(rel(path), "", "is nested too deeply to be a schema"))
            continue
        if not isinstance(schema, dict):
            problems.append(Problem(rel(path), "", "must hold one JSON object (a JSON Schema)"))
            continue
        schemas[name] = schema
    for schema_name in sorted(set(COLLECTIONS.values()) | set(SINGLETONS.values())):
        if schema_name not in schemas and not any(p.file == rel(folder / schema_name) for p in problems):
            problems.append(Problem(rel(folder / schema_name), "", "schema file is missing; restore it (git checkout -- data/schema)"))
    return schemas, problems


def load_schemas(data_dir):
    """The schemas by file name (problems dropped; see :func:`read_schemas`)."""
    return read_schemas(data_dir)[0]


def load_data_dir(data_dir, today=None):
    """Read, validate and wrap ``data_dir``: returns ``(Catalog, problems)``.

    The catalog holds only the entries that passed their schema, so a consumer
    never sees a malformed document; callers decide whether errors are fatal.
    A schema file that is missing or broken stops validation there: nothing is
    checked against a schema that cannot be trusted.
    """

    data_dir = Path(data_dir)
    rel = _rel_to(data_dir.parent)
    targets, problems = data_files(data_dir)
    if not targets:
        return Catalog({}), sorted(problems)
    schemas, schema_problems = read_schemas(data_dir)
    checker = None
    if not schema_problems:
        try:
            checker = schema_set(schemas)
        except SchemaError as exc:
            schema_problems = [Problem(rel(data_dir / "schema" / exc.name), "", exc.message)]
    from datetime import date
    today = today or date.today()
    raw, files, checked, doc_rows = _assemble(_read_all(targets, rel, checker, today), problems)
    if schema_problems:
        return Catalog({}), sorted(problems + schema_problems)
    unreadable = set()
    for p in problems:
        parts = p.file.split("/")
        if p.severity == "error" and len(parts) >= 2 and parts[-1].endswith(".yaml"):
            unreadable.add((parts[-2], parts[-1][:-5]) if parts[-2] in COLLECTIONS else (parts[-1][:-5], None))
    clean, found = validate(raw, files, schemas, today=today, schema_file=lambda n: rel(data_dir / "schema" / n),
                            unreadable=unreadable, checked=checked, doc_rows=doc_rows, removed=removed_ids(data_dir))
    return Catalog(clean), sorted(problems + found)
