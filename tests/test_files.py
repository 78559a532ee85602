"""datatools.files: only regular files inside data/, read safely; YAML through PyYAML's CSafeLoader with
the project's refusals (duplicate keys, aliases, anchors, tags, escapes that are not characters, deep
nesting, values JSON cannot carry), each one line with the file and line or field."""

import json
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from datatools import files
from datatools.files import MAX_BYTES, Refused, parse_document, parse_yaml_text, read_bytes

REAL = ROOT / "data"


def test_libyaml_is_used():
    """libyaml (PyYAML's C parser) reads the files; the pure-Python loader is three times slower."""
    import yaml
    assert issubclass(files.loader_class(), yaml.CSafeLoader)


def typed(value):
    """JSON text that tells 1, 1.0 and true apart (== does not)."""
    return json.dumps(value, sort_keys=True, default=repr)


@pytest.mark.parametrize("text,expected", [
    ("a: yes\nb: no\nc: on\nd: off\ne: y\n", {"a": "yes", "b": "no", "c": "on", "d": "off", "e": "y"}),
    ("a: true\nb: True\nc: TRUE\nd: false\n", {"a": True, "b": True, "c": True, "d": False}),
    ("d: 2026-11-29\nt: 2026-11-29 10:00:00\n", {"d": "2026-11-29", "t": "2026-11-29 10:00:00"}),
    ("a: 1.5\nb: 1e3\nc: 7\nd: '7'\n", {"a": 1.5, "b": "1e3", "c": 7, "d": "7"}),
    ("a: ~\nb: null\nc:\n", {"a": None, "b": None, "c": None}),
    ("<<: {a: 1}\nb: =\n", {"<<": {"a": 1}, "b": "="}),
    ("a: \"it's \\u00e9 \\U0001F600\"\n", {"a": "it's \u00e9 \U0001F600"}),
    ("\ufeffa: 1\r\nb: [1, {c: d}]\r\n", {"a": 1, "b": [1, {"c": "d"}]}),
    ("a: \"!x *y &z\"\nb: '!'\n", {"a": "!x *y &z", "b": "!"}),
])
def test_yaml_scalars_follow_yaml_1_2(text, expected):
    assert typed(parse_yaml_text(text)) == typed(expected)


@pytest.mark.parametrize("text,where,fragment", [
    ("a: 1\nb: 2\na: 3\n", "line 3", "key 'a' appears twice (first on line 1); keep one"),
    ("a: &x 1\nb: *x\n", "line 2", "uses a YAML alias (*x); write the value out in full instead"),
    ("a: &x [1]\n", "line 1", "uses a YAML anchor (&x)"),
    ("a: !!str 12\n", "line 1", "uses a YAML tag (!!str)"),
    ("a: 1\nb: !!binary aGVsbG8=\n", "line 2", "uses a YAML tag (!!binary)"),
    ("a: !!set {x, y}\n", "line 1", "uses a YAML tag (!!set)"),
    ("a: !custom x\n", "line 1", "uses a YAML tag (!custom)"),
    ("a: !!python/object:os.system x\n", "line 1", "uses a YAML tag (!!python/object:os.system)"),
    ("? [a, b]\n: c\n", "line 1", "found a list or mapping used as a key; keys must be plain text"),
    ("--- a\n--- b\n", "line 2", "is not valid YAML"),
    ("a: [\n", "line 2", "is not valid YAML"),
    ("- a\n- b\n", "", "top level must be a mapping of fields, not a list"),
    ("# only a comment\n", "", "file has no data, only comments"),
    ("1: a\n", "(top level)", "key 1 must be text; quote it"),
    ("a: .nan\n", "a", "nan is not a finite number"),
    ("a: 12345678901234567890123\n", "a", "is a 74-bit whole number; keep numbers below 2**53"),
    ("a: " + "9" * 5000 + "\n", "", "write a shorter number"),
    ("k: " + "[" * 3000 + "]" * 3000 + "\n", "line 1", "is nested too deeply to be a data file"),
    ("k:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 110)) + "  " * 110 + "x: 1\n", "k.k1.k2", "nested too deeply"),
])
def test_what_the_loader_refuses(text, where, fragment):
    doc, problems = parse_document(text, "data/x.yaml")
    assert doc is None and len(problems) == 1, problems
    assert problems[0].path.startswith(where) and fragment in problems[0].message, problems[0]


@pytest.mark.parametrize("text,where", [
    ('name: "vLLM\\ud800"\n', "line 1: name"),                            # issue 27: passed, then crashed the build
    ('a:\n  b: [1, {name: "x\\udc00y"}]\n', "line 2: a.b[1].name"),
    ('a: "\\ud83d\\ude00"\n', "line 1: a"),                                # a JSON-style surrogate pair
    ('a: "\\U0000D800"\n', "line 1: a"),
    ('a: "\\U00110000"\n', "line 1: a"),                                   # past the last character
    ('a: "\\ud800"\nb: "\\udfff"\n', "line 1: a"),                         # two of them: the first
])
def test_escapes_that_are_not_characters_are_refused_with_the_field(text, where):
    doc, problems = parse_document(text, "data/x.yaml")
    assert doc is None and len(problems) == 1, problems
    assert problems[0].path == where, problems[0]
    assert "which is not a character" in problems[0].message and "write the character itself" in problems[0].message


def test_deep_nesting_never_reaches_libyaml():
    """libyaml composes nodes recursively in C: 100,000 levels overflow the C stack (a crash, not an
    exception). Such files are refused from the parser's events first, in a subprocess to survive a crash."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from datatools.files import parse_document\n"
            "n = 100000\ntext = 'a: ' + '[' * n + ']' * n + '\\n'\n"
            "doc, problems = parse_document(text, 'x.yaml')\nprint(problems[0].message)\n"
            "text = 'a:\\n' + '- ' * n + 'x\\n'\ndoc, problems = parse_document(text, 'x.yaml')\nprint(problems[0].message)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["is nested too deeply to be a data file (more than 100 levels)"] * 2


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


def test_a_file_read_again_is_parsed_again_only_when_it_changed(tmp_path):
    import shutil
    data = tmp_path / "data"
    shutil.copytree(REAL, data)
    first, problems = files.load_data_dir(data)
    first.raw["engines"]["vllm"]["name"] = "changed by a consumer"  # a consumer's edit reaches no later load
    path = data / "engines" / "vllm.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("\nname: vLLM\n", "\nname: 7\n", 1), encoding="utf-8")
    second, again = files.load_data_dir(data)
    assert "vllm" not in second.engines and any(p.path == "name" and "must be a text" in p.message for p in again)
    assert second.engines["sglang"] == first.engines["sglang"]
    edited, _ = files.load_data_dir(REAL, texts={"data/engines/sglang.yaml": "id: sglang\n"})
    assert "sglang" not in edited.engines
    third, _ = files.load_data_dir(REAL)
    assert third.engines["sglang"]["name"] == "SGLang" and third.engines["vllm"]["name"] == "vLLM"
