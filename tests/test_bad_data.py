"""The malformed-data corpus: every case in tests/bad_data/cases.yaml is reported as expected.

Each case edits the real data/ (see tests/bad_data/corpus.py): in memory when its edits are text,
else in a copy in a temporary folder, and names the problem `python -m selector validate` must
report: file, field path, a message fragment and the named check.  All cases run in-process
through datatools.files.load_data_dir; the ones marked `cli: true` also run as
`python -m selector validate DIR` on a copy to prove the exit code, one line per problem and no
traceback.
"""

import hashlib
import os
import re
import subprocess
import sys

import pytest

from bad_data import corpus
from conftest import ROOT
from datatools.checks import CHECKS, DOC_CHECKS
from datatools.files import load_data_dir

REAL_DATA = ROOT / "data"
CASES = corpus.load_cases()
CLI_CASES = [c for c in CASES if c["cli"]]
CHECK_NAMES = {name for name, _ in CHECKS + DOC_CHECKS}
# Every named check can fire on schema-valid data, so none is exempt from needing a case.
# (If a check ever becomes unreachable, add its name here with the reason.)
EXEMPT_CHECKS = {}
LINE = re.compile(r"^(?:warning: |note: )?data/\S+: ")


def _hash_tree(folder):
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


REAL_HASH = _hash_tree(REAL_DATA)  # taken when the module is imported, checked by the last test


def _matches(problem, expect):
    return (problem.file == expect["file"] and problem.path == expect["path"] and expect["message"] in problem.message
            and problem.check == expect["check"] and problem.severity == expect["severity"])


def test_corpus_is_large_and_well_formed():
    assert len(CASES) >= 45, len(CASES)
    assert len({c["id"] for c in CASES}) == len(CASES)
    for case in CASES:
        assert case["expect"]["check"] in CHECK_NAMES | {"schema"}, case["id"]
        assert case["expect"]["file"].startswith("data/"), case["id"]
    assert 8 <= len(CLI_CASES) <= 20


def test_every_named_check_has_a_case():
    covered = {c["expect"]["check"] for c in CASES}
    missing = CHECK_NAMES - covered - set(EXEMPT_CHECKS)
    assert not missing, f"named checks without a malformed-data case: {sorted(missing)}"
    assert "schema" in covered


def test_real_data_is_clean():
    _, problems = load_data_dir(REAL_DATA)
    assert not [p for p in problems if p.severity in ("error", "warning")], "\n".join(map(str, problems))


def test_real_data_cli_exit_0():
    proc = subprocess.run([sys.executable, "-m", "selector", "validate", str(REAL_DATA)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("ok: ")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_case_is_reported(case, tmp_path):
    texts = corpus.texts_for(case)
    if texts is None:
        _, problems = load_data_dir(corpus.build_case(case, tmp_path))
    else:  # the real data with the edited texts in memory; unchanged files are not parsed again
        _, problems = load_data_dir(REAL_DATA, texts=texts)
    expect = case["expect"]
    assert any(_matches(p, expect) for p in problems), (
        f"{case['id']}: expected {expect}\ngot:\n" + "\n".join(f"  [{p.check}/{p.severity}] {p}" for p in problems))
    for p in problems:
        assert p.file.startswith("data/"), p
        assert "\n" not in str(p), p
    errors = [p for p in problems if p.severity == "error"]
    assert bool(errors) == (expect["severity"] == "error"), "\n".join(map(str, errors))


def _run_validate(data_dir):
    env = {k: v for k, v in os.environ.items() if k != "CI"}  # severities as on a contributor's machine
    return subprocess.run([sys.executable, "-m", "selector", "validate", str(data_dir)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env=env)


def _assert_clean_cli_output(proc):
    both = proc.stdout + proc.stderr
    assert "Traceback" not in both, both
    lines = proc.stdout.splitlines()
    problem_lines = [line for line in lines if not line.startswith("ok: ")]
    for line in problem_lines:
        assert LINE.match(line), f"not a `<file>: <path>: message` line: {line!r}"
    return problem_lines


@pytest.mark.parametrize("case", CLI_CASES, ids=lambda c: c["id"])
def test_case_cli(case, tmp_path):
    data_dir = corpus.build_case(case, tmp_path)
    proc = _run_validate(data_dir)
    problem_lines = _assert_clean_cli_output(proc)
    expect = case["expect"]
    assert corpus.matching_lines(proc.stdout, expect), (
        f"no line starting {corpus.expected_line_prefix(expect)!r} containing {expect['message']!r}:\n{proc.stdout}")
    if expect["severity"] == "error":
        assert proc.returncode == 1, proc.stdout + proc.stderr
        errors = [line for line in problem_lines if not line.startswith(("warning: ", "note: "))]
        summary = proc.stderr.strip().splitlines()[-1]
        assert summary.startswith(f"{len(errors)} error(s)"), summary  # one line per problem
    else:
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stdout.splitlines()[-1].startswith("ok: ")


def test_number_too_long_for_int_is_reported_not_raised(tmp_path):
    """Regression: PyYAML's int() raised ValueError (over 4300 digits), which escaped read_file as a traceback."""
    case = {"edits": [{"file": "models/qwen3-8b.yaml", "replace": [["layers: 36", "layers: " + "9" * 5000]]}]}
    data_dir = corpus.build_case(case, tmp_path)
    _, problems = load_data_dir(data_dir)
    assert any(p.file == "data/models/qwen3-8b.yaml" and "write a shorter number" in p.message for p in problems)
    proc = _run_validate(data_dir)
    assert proc.returncode == 1
    _assert_clean_cli_output(proc)


def test_real_data_untouched():
    """Runs last in this module: no case wrote into the real data/."""
    assert _hash_tree(REAL_DATA) == REAL_HASH
