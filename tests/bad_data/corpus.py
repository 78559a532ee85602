"""The malformed-data corpus: load ``cases.yaml`` and build each case's data directory.

Every case is a list of edits of the real ``data/`` (so everything the edit does not touch still
resolves): in memory (:func:`texts_for`, read by ``load_data_dir(..., texts=...)``) when the edits
are text, else on a fresh copy (:func:`build_case`); plus what
``python -m selector validate`` must report: the file, the field path, a
fragment of the message and the named check that produces it.  ``cli: true``
cases are also run through the command line; ``loader: true`` marks problems
found while reading the file (before any schema), which the schema tests leave out.

Edit operations (each edit names one ``file`` relative to ``data/``):

``set: {path: value}``       set fields (``a.b[0].c``); the file is re-dumped with its ``$schema`` line
``delete: [path]``           remove fields or list items
``duplicate: path``          insert a copy of the list item at ``path`` right after it
``write: text``              replace (or create) the file with exactly this text
``replace: [[old, new]]``    replace the first occurrence of ``old`` in the file's text (it must occur)
``encoding: latin-1``        encode ``write`` with this codec instead of UTF-8
``append_text: text``        append raw text
``pad_bytes: n``             append a comment line of ``n`` bytes
``copy_to: other``           copy the file to another name inside ``data/``
``remove: true``             delete the file, or the folder when ``file`` names one
``symlink: target``          make ``file`` a symbolic link to ``target`` (replacing a file or folder there);
                             ``{real}`` in the target stands for the real data folder
``fifo: true``               make ``file`` a named pipe
``nest: n``                  add, as line 2, a field whose value is a list nested ``n`` deep (``[[[...]]]``)
"""

import copy
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REAL_DATA = ROOT / "data"
CASES_FILE = Path(__file__).with_name("cases.yaml")

EDIT_KEYS = {"file", "set", "delete", "duplicate", "write", "encoding", "replace", "append_text", "pad_bytes",
             "copy_to", "remove", "symlink", "fifo", "nest"}
CASE_KEYS = {"id", "about", "edits", "expect", "cli", "loader"}
EXPECT_KEYS = {"file", "path", "message", "check", "severity"}
_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def load_cases():
    """The cases, checked for shape so a typo in the corpus fails loudly."""
    import sys
    sys.path.insert(0, str(ROOT))
    from datatools.files import parse_yaml_text

    cases = parse_yaml_text(CASES_FILE.read_text(encoding="utf-8"))
    assert isinstance(cases, list), "cases.yaml must be a list of cases"
    seen = set()
    for case in cases:
        assert set(case) <= CASE_KEYS and {"id", "about", "edits", "expect"} <= set(case), case
        assert case["id"] not in seen, f"duplicate case id {case['id']}"
        seen.add(case["id"])
        assert isinstance(case["edits"], list) and case["edits"], case["id"]
        for edit in case["edits"]:
            assert set(edit) <= EDIT_KEYS and "file" in edit, (case["id"], edit)
        expect = case["expect"]
        assert set(expect) <= EXPECT_KEYS and {"file", "path", "message", "check"} <= set(expect), case["id"]
        expect.setdefault("severity", "error")
        assert expect["severity"] in ("error", "warning", "info"), case["id"]
        case.setdefault("cli", False)
        case.setdefault("loader", False)
    return cases


def tokens(path):
    """``"a.b[0].c"`` -> ``["a", "b", 0, "c"]`` (a list is taken as already split)."""
    if isinstance(path, list):
        return path
    out, pos = [], 0
    for match in _TOKEN.finditer(path):
        assert match.start() in (pos, pos + 1), f"bad path {path!r}"
        pos = match.end()
        out.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
    assert pos == len(path), f"bad path {path!r}"
    return out


def _parent(doc, path):
    parts = tokens(path)
    node = doc
    for part in parts[:-1]:
        node = node[part]  # KeyError/IndexError: the case names a field the real data lacks
    return node, parts[-1]


def _dump(doc, header):
    import yaml

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # libyaml: five times the pure-Python speed
        def ignore_aliases(self, data):  # the project's loader refuses aliases
            return True

    body = yaml.dump(doc, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=10**6)
    return f"{header}\n{body}" if header else body


DISK_ONLY = {"symlink", "fifo", "remove", "copy_to", "encoding", "pad_bytes"}  # what only a real file shows


def edit_text(text, edit):
    """The text of ``edit["file"]`` after the edit's text operations (``text`` None: a new file)."""
    from datatools.files import parse_yaml_text

    if "write" in edit:
        text = edit["write"]
    for old, new in edit.get("replace") or []:
        assert old in text, f"{edit['file']}: {old!r} not found"
        text = text.replace(old, new, 1)
    if "append_text" in edit:
        text += edit["append_text"]
    if "nest" in edit:
        first, _, rest = text.partition("\n")
        text = f"{first}\ndeep: {'[' * edit['nest']}{']' * edit['nest']}\n{rest}"
    if any(k in edit for k in ("set", "delete", "duplicate")):
        header = text.splitlines()[0] if text.startswith("#") else ""
        doc = parse_yaml_text(text)
        for path, value in (edit.get("set") or {}).items():
            parent, key = _parent(doc, path)
            if isinstance(parent, list):
                assert key < len(parent), f"{edit['file']}: {path} is past the end of the list"
            parent[key] = copy.deepcopy(value)
        for path in edit.get("delete") or []:
            parent, key = _parent(doc, path)
            assert key in parent if isinstance(parent, dict) else key < len(parent), f"{edit['file']}: no {path} to delete"
            del parent[key]
        if "duplicate" in edit:
            parent, key = _parent(doc, edit["duplicate"])
            parent.insert(key + 1, copy.deepcopy(parent[key]))
        text = _dump(doc, header)
    return text


def texts_for(case):
    """``{"data/<file>": text}``: the case as edits of the real files' texts, for
    ``load_data_dir(REAL_DATA, texts=...)``; None when the case needs files on disk (links, pipes,
    removed or copied files, other encodings, sizes, new files)."""
    texts = {}
    for edit in case["edits"]:
        name = "data/" + edit["file"]
        path = REAL_DATA / edit["file"]
        if DISK_ONLY & set(edit) or not path.is_file() or path.is_symlink():
            return None
        if name not in texts:
            texts[name] = path.read_text(encoding="utf-8")
        texts[name] = edit_text(texts[name], edit)
    return texts


def apply_edit(data_dir, edit):
    target = data_dir / edit["file"]
    if "symlink" in edit or edit.get("fifo"):
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
        if edit.get("fifo"):
            import os
            os.mkfifo(target)
        else:
            target.symlink_to(edit["symlink"].replace("{real}", str(REAL_DATA)))
        return
    if edit.get("remove"):
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink()
        return
    if "copy_to" in edit:
        shutil.copyfile(target, data_dir / edit["copy_to"])
        return
    if "write" in edit:
        target.write_bytes(edit["write"].encode(edit.get("encoding", "utf-8")))
    if set(edit) - {"file", "write", "encoding", "pad_bytes"}:
        target.write_text(edit_text(target.read_text(encoding="utf-8"), {k: v for k, v in edit.items() if k != "write"}),
                          encoding="utf-8")
    if "pad_bytes" in edit:
        with target.open("a", encoding="utf-8") as fh:
            fh.write("#" + "x" * (edit["pad_bytes"] - 2) + "\n")


def build_case(case, dest):
    """Copy the real data into ``dest/data``, apply the case's edits and return that data dir."""
    data_dir = Path(dest) / "data"
    shutil.copytree(REAL_DATA, data_dir)
    for edit in case["edits"]:
        apply_edit(data_dir, edit)
    return data_dir


def expected_line_prefix(expect):
    """What the validate line must start with: ``[warning: ]file: path: `` (or ``file: `` for file-level problems)."""
    lead = {"warning": "warning: ", "info": "note: "}.get(expect["severity"], "")
    return f"{lead}{expect['file']}: {expect['path']}: " if expect["path"] else f"{lead}{expect['file']}: "


def matching_lines(output, expect):
    prefix = expected_line_prefix(expect)
    return [line for line in output.splitlines() if line.startswith(prefix) and expect["message"] in line]
