"""Read ``data/`` from disk: the one door from files to the catalog.

Build-side only (imports PyYAML lazily): the site build, ``python -m selector
validate``, ``fix`` and the tests all read through :func:`read_data_dir`.  Only
regular files inside the data folder are read: symbolic links, named pipes and
devices are refused by name, the size is checked on the open file before reading,
and never more than the limit is read.  Problems are returned, never raised, so
one run reports every bad file at once.

YAML is parsed by PyYAML's ``CSafeLoader`` (libyaml) with YAML 1.2-style scalars
(``yes``/``no`` and dates stay text); duplicate keys, aliases, anchors, tags, escapes that
are not characters and deep nesting are refused with their line.
"""

import errno
import json
import math
import os
import re
import stat
from dataclasses import replace
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

MAX_DEPTH = 100  # nesting; the real files stay under 10


class DuplicateKey(Exception):
    def __init__(self, key, first_line, line):
        super().__init__(key)
        self.key, self.first_line, self.line = key, first_line, line


class NotPlainYaml(Exception):
    """An alias, an anchor, a tag or nesting deeper than :data:`MAX_DEPTH`, with its line and message."""

    def __init__(self, line, message):
        super().__init__(message)
        self.line, self.message = line, message


_LOADER = []


def loader_class():
    """PyYAML's safe loader on libyaml (``CSafeLoader``) with YAML 1.2-style scalars (only true/false are
    booleans; ``yes``, ``no``, dates and ``<<`` stay text) and duplicate keys reported with both lines.
    Aliases, anchors and tags are refused by :func:`parse_yaml_text` before the loader runs."""
    if _LOADER:
        return _LOADER[0]
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        def construct_mapping(self, node, deep=False):
            mapping, lines = {}, {}
            for key_node, value_node in node.value:
                key = self.construct_object(key_node, deep=deep)
                if isinstance(key, (list, dict, set)):
                    raise yaml.constructor.ConstructorError(
                        None, None, "found a list or mapping used as a key; keys must be plain text", key_node.start_mark)
                line = key_node.start_mark.line + 1
                if key in mapping:
                    raise DuplicateKey(key, lines[key], line)
                lines[key] = line
                mapping[key] = self.construct_object(value_node, deep=deep)
            return mapping

    dropped = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:merge",
               "tag:yaml.org,2002:value")
    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in dropped]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    _LOADER.append(Loader)
    return Loader


def _nesting_bound(text):
    """An upper bound on how deeply ``text`` nests through brackets, dashes and ``?`` (indentation alone
    cannot go far in a file under :data:`MAX_BYTES`); cheap to compute."""
    return text.count("[") + text.count("{") + text.count("- ") + text.count("-\n") + text.count("?")


def _refuse_unplain(text):
    """Raise :class:`NotPlainYaml` for the first alias (else anchor, else tag) of ``text``, or nesting
    deeper than :data:`MAX_DEPTH`: libyaml composes nodes recursively in C, where 100,000 levels are a
    crash, and an alias lets a small file expand into a huge tree.  Reads the parser's events only
    when the text could hold one of these."""
    import yaml
    deep = _nesting_bound(text) > 1000
    if not deep and not any(mark in text for mark in "&*!"):
        return
    depth, found = 0, {}
    for event in yaml.parse(text, Loader=loader_class()):
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            raise NotPlainYaml(line, f"uses a YAML alias (*{event.anchor}); write the value out in full instead")
        if getattr(event, "anchor", None) is not None:
            found.setdefault("anchor", NotPlainYaml(line, f"uses a YAML anchor (&{event.anchor}); data files do not "
                                                          "share values, remove it"))
        tag = getattr(event, "tag", None)
        if tag is not None:
            shown = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag
            found.setdefault("tag", NotPlainYaml(line, f"uses a YAML tag ({shown}); write plain text, numbers, lists "
                                                       "or mappings without tags"))
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise NotPlainYaml(line, f"is nested too deeply to be a data file (more than {MAX_DEPTH} levels)")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    if found:
        raise found.get("anchor") or found["tag"]


def parse_yaml_text(text):
    """Parse one YAML document with the project's semantics (raises on errors)."""
    import yaml
    _refuse_unplain(text)
    return yaml.load(text, Loader=loader_class())


def _not_json(doc):
    """The first value JSON cannot carry or the site cannot print (NaN, infinity, huge integers, keys that
    are not text, lone surrogates, nesting past :data:`MAX_DEPTH`), as ``(path, message)``."""
    stack = [(doc, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return path, f"is nested too deeply to be a data file (more than {MAX_DEPTH} levels)"
        if isinstance(node, dict):
            for key in node:
                if not isinstance(key, str):
                    return path or "(top level)", f"key {key!r} must be text; quote it"
            stack.extend((value, join(path, key), depth + 1) for key, value in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((value, join(path, i), depth + 1) for i, value in reversed(list(enumerate(node))))
        elif isinstance(node, str):
            if not node.isascii():
                try:
                    node.encode("utf-8")
                except UnicodeEncodeError as exc:
                    return path, (f"holds U+{ord(node[exc.start]):04X}, half of a surrogate pair, which is not a "
                                  "character; write the character itself (or one \\U0001F600-style escape)")
        elif isinstance(node, float) and not math.isfinite(node):
            return path, f"{node} is not a finite number; JSON has no NaN or infinity, write a real number"
        elif isinstance(node, int) and not isinstance(node, bool) and abs(node) > MAX_SAFE_INT:
            # a browser's JSON.parse keeps integers exact only up to 2**53, and a huge one
            # breaks repr() (int max str digits) and float arithmetic in the fit estimator
            return path, f"is a {node.bit_length()}-bit whole number; keep numbers below 2**53 (9007199254740991)"
        elif not (node is None or isinstance(node, (str, int, float, bool))):
            return path, f"is a YAML {type(node).__name__} value, which JSON cannot carry; write plain text, numbers, lists or mappings"
    return None


_BAD_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")
_MARKER = "@@not-a-character@@"


def _bad_escape(text, exc):
    """``(field path or "", message)`` for libyaml's "invalid Unicode character escape code": the escape
    (a lone surrogate such as ``\\ud800``, or past U+10FFFF) is found again in the text, replaced by a marker
    and the document parsed once more to name the field that held it."""
    mark = exc.problem_mark
    line_start = text.rfind("\n", 0, mark.index) + 1
    escapes = [m for m in _BAD_ESCAPE.finditer(text, line_start, mark.index + 9) if m.start() <= mark.index]
    if not escapes:
        return "", "holds an escape that is not a character"
    escape = escapes[-1]
    message = (f"holds the escape {escape.group(0)}, which is not a character (half of a surrogate pair, or past "
               "U+10FFFF); write the character itself, or one \\U0001F600-style escape for a character beyond U+FFFF")
    def swap(match):  # the escape found gets the marker; any other that is not a character, a plain "?"
        if match.start() == escape.start():
            return _MARKER
        code = int(match.group(0)[2:], 16)
        return "?" if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF else match.group(0)
    try:
        doc = parse_yaml_text(_BAD_ESCAPE.sub(swap, text))
    except Exception:  # noqa: BLE001 - the line alone then
        return "", message
    stack = [(doc, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str) and _MARKER in key:
                    return join(path, key.replace(_MARKER, escape.group(0))), message
                stack.append((value, join(path, key)))
        elif isinstance(node, list):
            stack.extend((value, join(path, i)) for i, value in enumerate(node))
        elif isinstance(node, str) and _MARKER in node:
            return path, message
    return "", message


def decode(raw, rel):
    """``(text or None, [Problem])``: UTF-8 text of a file's bytes."""
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return None, [Problem(rel, f"line {line}", f"is not UTF-8 text (byte 0x{raw[exc.start]:02x}); re-save the file as UTF-8")]


def parse_document(text, rel):
    """``(document or None, [Problem])`` for the text of one data file: YAML errors, a top level
    that is not a mapping and values JSON cannot carry are reported, never raised."""
    import yaml
    try:
        doc = parse_yaml_text(text)
    except DuplicateKey as dup:
        return None, [Problem(rel, f"line {dup.line}", f"key {dup.key!r} appears twice (first on line {dup.first_line}); keep one")]
    except NotPlainYaml as refused:
        return None, [Problem(rel, f"line {refused.line}", refused.message)]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else ""
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if what == "found invalid Unicode character escape code" and mark is not None:
            field, message = _bad_escape(text, exc)
            return None, [Problem(rel, f"{where}: {field}" if field else where, message)]
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


def read_file(path, rel, schema_ref=None, text=None):
    """Return ``(document or None, [Problem])`` for one data file (or ``text`` standing in for it).

    ``schema_ref`` is what the first line's ``$schema=`` should say (``../schema/engine.schema.json``)."""
    if text is None:
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
    doc, problems = parse_document(text, rel)
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


_LAST = {}  # rel -> ((path, text, $schema, schema set, day), result): what the file gave when last read


def _read_all(targets, rel, schema_set=None, today=None, texts=None):
    """Read (and, given a schema set, schema-check) every data file.  Returns ``[(collection, id, rel,
    document or None, problems, schema problems, document check rows)]``: given ``today``, a document that
    passed its schema also goes through the checks that read one document alone
    (:func:`datatools.checks.document_checks`) while it is at hand.  A file whose text, schemas and day
    are those of its last reading is not parsed or checked again (a rebuild after one edit)."""
    doc_checks = document_checks if schema_set is not None and today is not None else None
    out = []
    for collection, key, path, schema_name, ref in targets:
        name = rel(path)
        text = (texts or {}).get(name)
        if text is None:
            try:
                text, problems = decode(read_bytes(path), name)
            except Refused as exc:
                text, problems = None, [Problem(name, "", str(exc))]
            if text is None:
                out.append((collection, key, name, None, problems, None, None))
                continue
        key_now = (path, text, ref, schema_set, today)
        last = _LAST.get(name)
        if last is not None and last[0] == key_now:
            doc, problems, found, rows = last[1]
            out.append((collection, key, name, json.loads(json.dumps(doc)), list(problems), found, rows))
            continue
        doc, problems = read_file(path, name, schema_ref=ref, text=text)
        found = schema_set.validate(doc, schema_name) if doc is not None and schema_set is not None else None
        rows = doc_checks(collection, key, doc, today) if found == [] and doc_checks else None
        _LAST[name] = (key_now, (json.loads(json.dumps(doc)), list(problems), found, rows))
        out.append((collection, key, name, doc, problems, found, rows))
    return out


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


def load_data_dir(data_dir, today=None, strict=False, texts=None):
    """Read, validate and wrap ``data_dir``: returns ``(Catalog, problems)``.

    ``texts`` maps paths as problems name them (``data/engines/vllm.yaml``) to text read instead of
    the file there (an edit not saved yet; the malformed-data corpus).

    ``strict`` makes placeholders (``TODO`` values and comments, ``https://example.com/TODO``) errors:
    the build and CI load strictly; a local ``validate`` keeps them as warnings for work in progress.

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
    raw, files, checked, doc_rows = _assemble(_read_all(targets, rel, checker, today, texts), problems)
    if schema_problems:
        return Catalog({}), sorted(problems + schema_problems)
    unreadable = set()
    for p in problems:
        parts = p.file.split("/")
        if p.severity == "error" and len(parts) >= 2 and parts[-1].endswith(".yaml"):
            unreadable.add((parts[-2], parts[-1][:-5]) if parts[-2] in COLLECTIONS else (parts[-1][:-5], None))
    clean, found = validate(raw, files, schemas, today=today, schema_file=lambda n: rel(data_dir / "schema" / n),
                            unreadable=unreadable, checked=checked, doc_rows=doc_rows, removed=removed_ids(data_dir))
    problems += found
    if strict:
        problems = [replace(p, severity="error") if p.check == "placeholders" else p for p in problems]
    return Catalog(clean), sorted(problems)
