"""``python -m selector fix``: one canonical layout for every data file, comments kept.

Keys follow the order of the file's JSON Schema (``id`` first, ``sources``
last); keys the schema does not name (source keys, matrix scores, workloads)
keep the author's order, because that order is shown on the site.  Short
mappings and lists of plain values are written on one line in flow style
(``{id: cpu, support: yes, source: docs}``) when the line stays within
:data:`WIDTH` characters; longer ones are written as blocks, and text too long
for one line becomes a folded ``>-`` block.  Strings are quoted only where YAML
needs it, the ``$schema`` comment line is (re)written, and the output is stable:
running it twice changes nothing the second time.

Comments are kept.  Each comment is tied to a field: a comment at the end of a
line to the field that line starts (the whole one-line value when it fits on
the line), a comment on a line of its own to the field below it.  The comment
then travels with its field when keys are reordered, and the mappings and lists
around a commented field stay in block style so the comment keeps its place.

Every rewrite is checked by reading it back: a file is only written when the
new text holds exactly the same data and the same comments.  Files are read
through :mod:`selector.files` (regular files inside ``data/`` only), written by
replacing the file in its own folder, and a file that is not valid YAML is
reported with its line and left untouched; tabs used for indentation are turned
into two spaces first.
"""

import json
import os
import re
import tempfile
from collections import namedtuple
from pathlib import Path

from .files import Refused, data_files, decode, loader_class, parse_document, parse_yaml_text, read_bytes, read_schemas
from .problem import Problem
from .validation import SchemaError, child_schema, schema_properties, schema_set


WIDTH = 110          # one-line flow collections and plain text stay within this many columns
FOLD_AT = WIDTH - 12  # folded text breaks at the first space after this column


class _Flow(dict):
    """A mapping written on one line."""


class _FlowList(list):
    """A list written on one line."""


class _Folded(str):
    """Text written as a folded ``>-`` block."""


class _Literal(str):
    """Text with line breaks, written as a literal ``|`` block."""


_DUMPER = []


def _dumper_class():
    if _DUMPER:
        return _DUMPER[0]
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
    _DUMPER.append(Dumper)
    return Dumper


def _sorted(node, schema):
    """Mapping keys in the order of the (bundled) schema's ``properties``, recursively; keys the schema
    does not name keep their relative order (the sort is stable)."""
    if isinstance(node, dict):
        rank = {key: i for i, key in enumerate(schema_properties(schema))}
        return {k: _sorted(node[k], child_schema(schema, k)) for k in sorted(node, key=lambda k: rank.get(k, len(rank)))}
    if isinstance(node, list):
        return [_sorted(v, child_schema(schema, i)) for i, v in enumerate(node)]
    return node


# -- layout ---------------------------------------------------------------------

def _scalar(value):
    return not isinstance(value, (dict, list))


def _as_flow(value):
    if isinstance(value, dict):
        return _Flow((k, _as_flow(v)) for k, v in value.items())
    if isinstance(value, list):
        return _FlowList(_as_flow(v) for v in value)
    return value


_ONE_LINE = {}


def _one_line(value, dumper):
    """``value`` as one line of flow YAML (or None if it cannot be one line)."""
    if _scalar(value):
        key = (type(value), value, dumper)
        if key not in _ONE_LINE:
            if len(_ONE_LINE) > 50000:
                _ONE_LINE.clear()
            _ONE_LINE[key] = _render_one_line(value, dumper)
        return _ONE_LINE[key]
    return _render_one_line(value, dumper)


def _render_one_line(value, dumper):
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


def _layout(value, prefix, indent, dumper, top=False, path=(), block=frozenset()):
    """Wrap ``value`` so the dumper writes it in the house style.

    ``prefix`` is how many characters precede the value on its first line
    (``key: `` or ``- `` and their indentation); ``indent`` is the column at which
    a block form of the value would start its lines.  Collections at a path in
    ``block`` are never written on one line (a comment sits inside them).
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
    if not top and path not in block and _flowable(value):
        line = _one_line(value, dumper)
        if line is not None and prefix + len(line) <= WIDTH:
            return _Flow(value) if isinstance(value, dict) else _FlowList(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            key_text = _one_line(key, dumper) or str(key)
            out[key] = _layout(item, indent + len(key_text) + 2, indent + 2, dumper, path=path + (key,), block=block)
        return out
    # block list: "- " at ``indent``, item content at indent + 2
    return [_layout(item, indent + 2, indent + 2, dumper, path=path + (i,), block=block) for i, item in enumerate(value)]


def _dump(doc, dumper, styled, block=frozenset()):
    import yaml
    body = _layout(doc, 0, 0, dumper, top=True, block=block) if styled else doc
    return yaml.dump(body, Dumper=dumper, sort_keys=False, allow_unicode=True, width=10**9,
                     default_flow_style=False)


# -- comments -------------------------------------------------------------------------------------

Comment = namedtuple("Comment", "text anchor inline")
"""A comment's text (from ``#``), the field path it belongs to (``()``: the top of the file,
``None``: its end) and
whether it ends that field's first line (else it stands on its own line above the field)."""

Entry = namedtuple("Entry", "path line column one_line")
_MAYBE_COMMENT = re.compile(r"(?:^|[ \t])#", re.M)


def _line_starts(text):
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    return starts


def find_comments(text):
    """``[(line, column, text)]`` of every comment in ``text`` (0-based lines), in order.

    A ``#`` starts a comment when it is at the start of a line or after a space or tab and
    is not inside a token (quoted, plain or block text, tags, anchors)."""
    import bisect

    import yaml
    spans = []
    for token in yaml.scan(text, Loader=yaml.SafeLoader):
        if token.start_mark.index != token.end_mark.index:
            spans.append((token.start_mark.index, token.end_mark.index))
    spans.sort()
    starts = [a for a, _ in spans]
    found, lines = [], _line_starts(text)
    for number, begin in enumerate(lines):
        end = text.find("\n", begin)
        end = len(text) if end < 0 else end
        pos = text.find("#", begin, end)
        while pos >= 0:
            before = text[pos - 1] if pos > begin else " "
            i = bisect.bisect_right(starts, pos) - 1
            inside = i >= 0 and spans[i][0] <= pos < spans[i][1]
            if before in " \t" and not inside:
                found.append((number, pos - begin, text[pos:end].rstrip()))
                break
            pos = text.find("#", pos + 1, end)
    return found


def _entries(text):
    """Every field of ``text`` in document order as :data:`Entry` (path, first line, column,
    whether its whole value sits on that line)."""
    import yaml

    root = yaml.compose(text, Loader=loader_class())
    out = []

    def one_line(node, line):
        if isinstance(node, yaml.ScalarNode):
            return node.style not in ("|", ">") and node.end_mark.line == line
        return bool(node.flow_style) and node.end_mark.line == line

    def walk(node, path):
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                here = path + (key_node.value,)
                line = key_node.start_mark.line
                out.append(Entry(here, line, key_node.start_mark.column,
                                 value_node.start_mark.line == line and one_line(value_node, line)))
                walk(value_node, here)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                here = path + (i,)
                line = item.start_mark.line
                out.append(Entry(here, line, item.start_mark.column, one_line(item, line)))
                walk(item, here)

    if root is not None:
        walk(root, ())
    return out


def comments_of(text):
    """The comments of a data file tied to their fields (the first line's ``$schema`` comment excluded)."""
    if not _MAYBE_COMMENT.search(text, text.find("\n") + 1 if text.startswith("# yaml-language-server:") else 0):
        return []
    found = [c for c in find_comments(text) if not (c[0] == 0 and c[1] == 0 and c[2].startswith("# yaml-language-server:"))]
    if not found:
        return []
    entries = _entries(text)
    lines = text.split("\n")
    by_line = {}
    for entry in entries:
        by_line.setdefault(entry.line, []).append(entry)
    out = []
    for line, column, body in found:
        code_before = lines[line][:column].strip()
        here = by_line.get(line, [])
        if code_before and here:
            whole = [e for e in here if e.one_line]
            pick = min(whole, key=lambda e: len(e.path)) if whole else max(here, key=lambda e: len(e.path))
            out.append(Comment(body, pick.path, True))
            continue
        if not entries or entries[0].line > line:  # above the first field: about the whole file
            out.append(Comment(body, (), False))
            continue
        below = next((e for e in entries if e.line > line), None)
        out.append(Comment(body, below.path if below else None, False))
    return out


def _block_paths(comments):
    """Collections that must stay in block style: every enclosing collection of a commented field."""
    block = set()
    for comment in comments:
        if comment.anchor:
            for depth in range(1, len(comment.anchor)):
                block.add(tuple(comment.anchor[:depth]))
    return frozenset(block)


def _place_comments(body, comments):
    """Insert ``comments`` into the canonical ``body`` next to their fields."""
    if not comments:
        return body
    lines = body.split("\n")
    trailing = lines[-1] == ""
    if trailing:
        lines.pop()
    where = {e.path: e for e in _entries(body)}
    before, after, start, end = {}, {}, [], []
    for comment in comments:
        entry = where.get(tuple(comment.anchor)) if comment.anchor else None
        if comment.anchor == ():
            start.append(comment.text)
        elif entry is None:
            end.append(comment.text)
        elif comment.inline:
            after.setdefault(entry.line, []).append(comment.text)
        else:
            before.setdefault(entry.line, []).append(comment.text)
    out = list(start)
    for number, line in enumerate(lines):
        indent = line[: len(line) - len(line.lstrip(" "))]
        out.extend(indent + text for text in before.get(number, []))
        out.append(line + "".join("  " + text for text in after.get(number, [])))
    out.extend(end)
    return "\n".join(out) + ("\n" if trailing or end else "")


# -- documents and files --------------------------------------------------------------------------------

def format_document(doc, schema_name, schemas, schema_ref, comments=()):
    """The canonical text of ``doc`` with ``comments`` (see :func:`comments_of`) in place; falls
    back to plain block style if the styled text would not read back as the same data.
    Returns None when no layout reads back as the same data and comments."""
    comments = list(comments)
    ordered = _sorted(doc, schema_set(schemas).bundled.get(schema_name, {}))
    dumper = _dumper_class()
    block = _block_paths(comments)
    for styled in (True, False):
        body = _place_comments(_dump(ordered, dumper, styled, block), comments)
        text = f"# yaml-language-server: $schema={schema_ref}\n{body}"
        try:
            same = _same(parse_yaml_text(text), doc)
            same = same and sorted(c.text for c in comments_of(text)) == sorted(c.text for c in comments)
        except Exception:
            same = False
        if same:
            return text
    return None


def _same(a, b):
    """Equal data, types included (``1``, ``1.0`` and ``true`` differ; key order does not matter)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


_LEADING_WS = re.compile(r"^[ \t]+", re.M)

Result = namedtuple("Result", "changed problems")


def write_file(path, text):
    """Replace ``path`` (a regular file already read) with ``text``, in its own folder."""
    mode = os.lstat(path).st_mode & 0o777
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".fix-", suffix=".yaml")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def fix_file(path, rel, schema_name, schema_ref, schemas):
    """``(new text or None, [Problem])`` for one data file; None when it is already canonical."""
    try:
        raw = read_bytes(path)
    except Refused as exc:
        return None, [Problem(rel, "", str(exc), check="fix")]
    text, problems = decode(raw, rel)
    if text is None:
        return None, problems
    text = _LEADING_WS.sub(lambda m: m.group(0).replace("\t", "  "), text)
    doc, problems = parse_document(text, rel)
    if doc is None:
        return None, [Problem(p.file, p.path, p.message + "; left unchanged", check="fix") for p in problems]
    try:
        comments = comments_of(text)
    except Exception:  # the text parsed above; this is only a safety net
        comments = None
    new = format_document(doc, schema_name, schemas, schema_ref, comments or ()) if comments is not None else None
    if new is None:
        return None, [Problem(rel, "", "could not be laid out with its comments in place; left unchanged "
                                       "(move each comment onto the line of a field or the line above it)", check="fix")]
    if new.encode("utf-8") == raw:
        return None, []
    return new, []


def fix_dir(data_dir, check=False):
    """Lay out every data file of ``data_dir``; returns :data:`Result` (changed paths, problems).

    With ``check``, nothing is written."""
    data_dir = Path(data_dir)
    targets, problems = data_files(data_dir)
    if not targets:
        return Result([], problems)
    problems = [p for p in problems if p.message != "collection folder is missing"]  # validate's business
    schemas, schema_problems = read_schemas(data_dir)
    if not schema_problems:
        try:
            schema_set(schemas)
        except SchemaError as exc:
            schema_problems = [Problem(f"{data_dir.name}/schema/{exc.name}", "", exc.message, check="fix")]
    if schema_problems:
        return Result([], problems + schema_problems)
    base = data_dir.parent
    changed = []
    for _collection, _key, path, schema_name, ref in targets:
        if _key is None and not os.path.lexists(path):
            continue  # a missing tree.yaml or questions.yaml is validate's business
        try:
            rel = path.relative_to(base).as_posix()
        except ValueError:
            rel = str(path)
        new, found = fix_file(path, rel, schema_name, ref, schemas)
        problems.extend(found)
        if new is not None:
            changed.append(path)
            if not check:
                write_file(path, new)
    return Result(changed, problems)
