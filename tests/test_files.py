"""datatools.files: only regular files inside data/, read safely, with libyaml and the Python loader agreeing.

The libyaml fast path must give the same document as the pure-Python reference loader on every real
data file, on every file of the malformed-data corpus and on a set of tricky YAML snippets (booleans,
dates, numbers, tags, anchors, duplicate keys, odd line breaks); anything it does not handle exactly
falls back to the reference loader, which gives the messages.
"""

import json
import os
import re
import subprocess
import sys
import time

import pytest

from bad_data import corpus
from conftest import ROOT
from datatools import files
from datatools.files import MAX_BYTES, Refused, parse_document, parse_yaml_text, read_bytes

REAL = ROOT / "data"


def typed(value):
    """JSON text that tells 1, 1.0 and true apart (== does not)."""
    return json.dumps(value, sort_keys=True, default=repr)


def both(text):
    """(fast result, reference result), each a document in typed JSON or the exception's type and text."""
    out = []
    for fast in (True, False):
        try:
            out.append(typed(parse_yaml_text(text, fast=fast)))
        except Exception as exc:  # noqa: BLE001 - compared, not swallowed
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def test_libyaml_is_available():
    """The fast path is what makes 2,000 files validate in seconds; the build machine must have it."""
    assert files._fast_parts() is not None


def test_fast_path_is_taken_on_real_files():
    text = (REAL / "engines" / "vllm.yaml").read_text(encoding="utf-8")
    assert typed(files._parse_fast(text)[0]) == typed(parse_yaml_text(text, fast=False))


def test_real_data_identical_both_ways():
    paths = sorted(REAL.rglob("*.yaml"))
    assert len(paths) > 100
    for path in paths:
        fast, reference = both(path.read_text(encoding="utf-8"))
        assert fast == reference, path


@pytest.mark.parametrize("case", corpus.load_cases(), ids=lambda c: c["id"])
def test_corpus_identical_both_ways(case, tmp_path):
    data_dir = corpus.build_case(case, tmp_path)
    for edit in case["edits"]:
        path = data_dir / edit["file"]
        if not path.is_file() or path.is_symlink() or not path.name.endswith(".yaml"):
            continue
        raw = path.read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if "\t" in text:
            continue  # refused before parsing
        fast, reference = both(text)
        assert fast == reference
        # and the problems a contributor sees are the same
        rel = f"data/{edit['file']}"
        doc_fast, found_fast = parse_document(text, rel)
        doc_ref, found_ref = parse_document(text, rel, loader=files.loader_class())
        assert typed(doc_fast) == typed(doc_ref) and found_fast == found_ref


TRICKY = [
    "a: yes\nb: no\nc: on\nd: off\ne: y\nf: n\n",
    "a: true\nb: True\nc: TRUE\nd: false\n",
    "d: 2026-11-29\nt: 2026-11-29 10:00:00\n",
    "a: 0x10\nb: 0o17\nc: 017\nd: 1_000\ne: 1:20\nf: +5\ng: -0\n",
    "a: 1.5\nb: .inf\nc: -.Inf\nd: .nan\ne: 1e3\nf: 6.8523015e+5\n",
    "a: ~\nb: null\nc: Null\nd:\n",
    "a: '1'\nb: \"true\"\nc: '2026-11-29'\n",
    "a: !!str 12\nb: !!int '7'\n",
    "a: !!binary aGVsbG8=\n",
    "a: !!set {x, y}\n",
    "a: !custom x\n",
    "a: &x 1\nb: *x\n",
    "a: &x 1\n",
    "<<: {a: 1}\nb: 2\n",
    "a: 1\na: 2\n",
    "1: a\ntrue: b\n",
    "? [a, b]\n: c\n",
    "{a: 1}: x\n",
    "a: =\n",
    "--- a\n--- b\n",
    "---\n...\n",
    "",
    "# only a comment\n",
    "a: [1, 2, {b: c}]\nd: {e: [f]}\n",
    "a: >-\n  folded\n  text\nb: |\n  literal\n  text\n",
    "a: \"tab\\there\"\nb: 'it''s'\n",
    "a: b\u2028c\n",
    "a: b\x85c\n",
    "a: b\r\nc: d\r\n",
    "\ufeffa: 1\n",
    "a: \x07\n",
    "a: [\n",
    "a: b: c\n",
    "- a\n- b\n",
    "just text\n",
    "%YAML 1.1\n---\na: 1\n",
    "a: 12345678901234567890123\n",
    "a: " + "9" * 5000 + "\n",
    "k: " + "[" * 3000 + "]" * 3000 + "\n",
]


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_tricky_yaml_identical_both_ways(text):
    fast, reference = both(text)
    assert fast == reference


def test_deep_nesting_never_reaches_libyaml():
    """libyaml composes nodes recursively in C: 100,000 levels overflow the C stack (a crash, not an
    exception). The bound sends such files to the Python loader, in a subprocess to survive a crash."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from datatools.files import parse_document\n"
            "n = 100000\ntext = 'a: ' + '[' * n + ']' * n + '\\n'\n"
            "doc, problems = parse_document(text, 'x.yaml')\nprint(problems[0].message)\n"
            "text = 'a:\\n' + '- ' * n + 'x\\n'\ndoc, problems = parse_document(text, 'x.yaml')\nprint(problems[0].message)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["is nested too deeply to be a data file"] * 2


# -- reading ---------------------------------------------------------------------------------------

def test_read_bytes_reads_a_regular_file(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_bytes(b"id: a\n")
    assert read_bytes(path) == b"id: a\n"


def test_symlinks_are_refused(tmp_path):
    target = tmp_path / "real.yaml"
    target.write_text("id: real\n")
    for name, to in (("link.yaml", target), ("dangling.yaml", tmp_path / "gone"), ("zero.yaml", "/dev/zero")):
        (tmp_path / name).symlink_to(to)
        with pytest.raises(Refused, match="is a symbolic link"):
            read_bytes(tmp_path / name)


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(Refused, match=r"is a named pipe \(FIFO\), not a regular file"):
        read_bytes(fifo)
    assert time.monotonic() - start < 5


def test_device_is_refused():
    with pytest.raises(Refused, match="is a character device"):
        read_bytes("/dev/zero")


def test_size_is_checked_before_reading(tmp_path):
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as fh:
        fh.truncate(50 * 2**30)  # sparse: 50 GiB claimed, nothing stored
    start = time.monotonic()
    with pytest.raises(Refused, match=f"file is {50 * 2**30} bytes; data files must stay under {MAX_BYTES} bytes"):
        read_bytes(huge)
    assert time.monotonic() - start < 5


def test_never_more_than_the_limit_is_read(tmp_path, monkeypatch):
    path = tmp_path / "a.yaml"
    path.write_bytes(b"x" * 1000)
    asked = []
    real_read = os.read
    monkeypatch.setattr(files.os, "read", lambda fd, n: asked.append(n) or real_read(fd, n))
    assert read_bytes(path, limit=2000) == b"x" * 1000
    assert all(n <= 2001 for n in asked)
    with pytest.raises(Refused):
        read_bytes(path, limit=999)


def test_validate_never_hangs_on_special_files(tmp_path):
    import shutil
    data = tmp_path / "data"
    shutil.copytree(REAL, data)
    os.mkfifo(data / "engines" / "pipe.yaml")
    (data / "models" / "zero.yaml").symlink_to("/dev/zero")
    (data / "gpus" / "gone.yaml").symlink_to(tmp_path / "nothing.yaml")
    proc = subprocess.run([sys.executable, "-m", "selector", "validate", str(data)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stdout.splitlines() == [
        "data/engines/pipe.yaml: is a named pipe (FIFO), not a regular file; remove it from data/",
        "data/gpus/gone.yaml: is a symbolic link; data files must be regular files inside data/ (replace the link with the file)",
        "data/models/zero.yaml: is a symbolic link; data files must be regular files inside data/ (replace the link with the file)",
    ]


def test_worker_processes_give_the_same_report(tmp_path):
    """Large catalogs are read in forked workers: the report must be the one a single process gives."""
    import shutil
    data = tmp_path / "data"
    shutil.copytree(REAL, data)
    text = (REAL / "engines" / "vllm.yaml").read_text(encoding="utf-8")
    for i in range(files.PARALLEL_FROM):
        new = text.replace("\nid: vllm\n", f"\nid: copy-{i}\n", 1).replace("\nname: vLLM\n", f"\nname: Copy {i}\n", 1)
        if i % 97 == 1:
            new = new.replace("\nkind: engine\n", "\nkind: server\n", 1)          # a schema error
        if i % 131 == 2:
            new = new.replace("\nname: Copy", "\nname: [Copy", 1)                # a YAML error
        if i % 89 == 3:
            new = new.replace("as_of: 2026-", "as_of: 2099-", 1)                # a one-document check, run in the worker
        (data / "engines" / f"copy-{i}.yaml").write_text(new, encoding="utf-8")
    (data / "engines" / "link.yaml").symlink_to(REAL / "engines" / "vllm.yaml")
    assert files._jobs(len(list(data.rglob("*.yaml")))) >= 1
    outputs = []
    for jobs in ("1", "2"):
        env = {**os.environ, "IEM_JOBS": jobs}
        proc = subprocess.run([sys.executable, "-m", "selector", "validate", "--warnings", str(data)], cwd=ROOT,
                              capture_output=True, text=True, timeout=600, env=env)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    assert "data/engines/copy-1.yaml: kind: 'server' is not allowed" in outputs[0]
    assert re.search(r"^data/engines/copy-2\.yaml: line \d+: is not valid YAML", outputs[0], re.M)
    assert "data/engines/link.yaml: is a symbolic link" in outputs[0]
    assert re.search(r"^data/engines/copy-3\.yaml: sources\.\S+\.as_of: 2099-\S+ is in the future", outputs[0], re.M)


def test_document_checks_where_read_equal_checks_after():
    """The one-document checks run where a file is read (``done``) or, for a catalog assembled
    elsewhere, after it; both give the same problems."""
    from datetime import date
    from datatools.checks import document_checks, run_checks, _entries
    catalog, _ = files.load_data_dir(REAL, today=date(2026, 12, 1))
    data = catalog.raw
    paths = {(c, k): f"data/{c}/{k}.yaml" for c, k, _ in _entries(data)}
    done = {(c, k): document_checks(c, k, doc, date(2027, 12, 1)) for c, k, doc in _entries(data)}
    after = run_checks(data, paths, today=date(2027, 12, 1))
    assert sorted(after) == sorted(run_checks(data, paths, today=date(2027, 12, 1), done=done))
    assert any(p.check == "dates" and p.severity == "warning" for p in after)  # a year on, sources are stale
