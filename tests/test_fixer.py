"""`python -m selector fix`: canonical layout, same content, stable on a second run.

The real data is already canonical (`fix --check` exits 0).  A copy is then made messy in ways
contributors do (flow vs block style, JSON, odd key order, quoted yes/no and dates, tabs, a wrong or
missing `$schema` line, comments); one `fix` must restore the canonical text without changing the
data, and a second `fix` must change nothing.
"""

import json
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT
from selector.files import load_data_dir, parse_yaml_text
from selector.fixer import fix_dir

REAL = ROOT / "data"


def run_fix(*args):
    return subprocess.run([sys.executable, "-m", "selector", "fix", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def body_of(text):
    return parse_yaml_text(text)


def header_of(path):
    return path.read_text(encoding="utf-8").splitlines()[0]


class QuotingDumper(yaml.SafeDumper):
    """PyYAML's SafeDumper quotes 'yes', 'no' and dates (YAML 1.1 would read them as bool/date)."""

    def ignore_aliases(self, data):
        return True


def _reverse_top(doc):
    return dict(reversed(list(doc.items())))


def _sort_deep(node):
    if isinstance(node, dict):
        return {k: _sort_deep(node[k]) for k in sorted(node)}
    if isinstance(node, list):
        return [_sort_deep(v) for v in node]
    return node


def _tabs(text):
    out = []
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        out.append("\t" * (indent // 2) + " " * (indent % 2) + stripped)
    return "".join(out)


# name -> (file, how to make it messy from (text, doc), whether fix must give back the exact bytes)
MESSES = {
    "flow-style-reversed-keys": ("engines/vllm.yaml", lambda text, doc: "# yaml-language-server: $schema=../schema/engine.schema.json\n"
                                 + yaml.dump(_reverse_top(doc), Dumper=QuotingDumper, default_flow_style=True, sort_keys=False,
                                             allow_unicode=True, width=80), True),
    "json-no-schema-line": ("questions.yaml", lambda text, doc: json.dumps(doc, indent=4, ensure_ascii=False) + "\n", True),
    "block-sorted-quoted": ("models/deepseek-r1.yaml", lambda text, doc: "# a comment the fixer drops\n"
                            + yaml.dump(_sort_deep(doc), Dumper=QuotingDumper, default_flow_style=False, allow_unicode=True, width=60),
                            False),
    "quoted-yes-no": ("engines/lmdeploy.yaml", lambda text, doc: text.replace("value: yes", "value: 'yes'")
                      .replace("value: no", 'value: "no"').replace("as_of: 2026-11-29", "as_of: '2026-11-29'")
                      .replace("verified: 2026-11-29", 'verified: "2026-11-29"'), True),
    "tab-indented": ("tree.yaml", lambda text, doc: _tabs(text), True),
    "wrong-schema-line": ("matrix/latency.yaml", lambda text, doc: text.replace("$schema=../schema/dimension.schema.json",
                                                                             "$schema=../schema/matrix.schema.json", 1), True),
    "missing-schema-line": ("scenarios/laptop-chat.yaml", lambda text, doc: text.split("\n", 1)[1], True),
    "sorted-matrix-scores": ("matrix/throughput.yaml", lambda text, doc: "# yaml-language-server: $schema=../schema/dimension.schema.json\n"
                             + yaml.dump(_sort_deep(doc), Dumper=QuotingDumper, sort_keys=False, allow_unicode=True), False),
}


def test_fix_check_passes_on_real_data():
    proc = run_fix("--check", REAL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("0 file(s) need formatting")


@pytest.fixture(scope="module")
def messy(tmp_path_factory):
    dest = tmp_path_factory.mktemp("fixer") / "data"
    shutil.copytree(REAL, dest)
    for name, (rel, mess, _) in MESSES.items():
        path = dest / rel
        text = path.read_text(encoding="utf-8")
        new = mess(text, body_of(text))
        assert new != text, f"{name} did not change {rel}"
        if name == "tab-indented":
            with pytest.raises(yaml.YAMLError):
                body_of(new)  # YAML refuses tab indentation; fix turns leading tabs into spaces first
        else:
            assert body_of(new) == body_of(text), f"{name}: the messy file must hold the same data"
        path.write_text(new, encoding="utf-8")
    return dest


def test_fix_restores_canonical_layout_and_keeps_content(messy):
    before, problems = load_data_dir(REAL)
    assert not [p for p in problems if p.severity == "error"]
    changed = fix_dir(messy)
    assert sorted(p.relative_to(messy).as_posix() for p in changed) == sorted(rel for rel, _, _ in MESSES.values())
    after, problems = load_data_dir(messy)
    assert not [p for p in problems if p.severity in ("error", "warning")], "\n".join(map(str, problems))
    assert after.raw == before.raw  # the loaded catalog holds the same data, every file
    for name, (rel, _, exact) in MESSES.items():
        fixed, real = messy / rel, REAL / rel
        assert header_of(fixed) == header_of(real), name  # the $schema line is (re)written
        if exact:
            assert fixed.read_bytes() == real.read_bytes(), name
        assert "# a comment" not in fixed.read_text(encoding="utf-8")


def test_fix_is_idempotent(messy):
    """Runs after the fix above: a second run over the whole copy changes nothing."""
    before = {p: p.read_bytes() for p in messy.rglob("*.yaml")}
    proc = run_fix(messy)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0 file(s) reformatted"
    assert {p: p.read_bytes() for p in messy.rglob("*.yaml")} == before


def test_fix_leaves_unparseable_files_alone(tmp_path):
    data = tmp_path / "data"
    (data / "engines").mkdir(parents=True)
    shutil.copytree(REAL / "schema", data / "schema")
    broken = data / "engines" / "broken.yaml"
    broken.write_text("id: broken\nname: [unclosed\n", encoding="utf-8")
    shutil.copy(REAL / "engines" / "ollama.yaml", data / "engines" / "ollama.yaml")
    assert fix_dir(data) == []
    assert broken.read_text(encoding="utf-8") == "id: broken\nname: [unclosed\n"


def test_fix_check_lists_files_and_writes_nothing(tmp_path):
    data = tmp_path / "data"
    (data / "models").mkdir(parents=True)
    shutil.copytree(REAL / "schema", data / "schema")
    target = data / "models" / "qwen3-8b.yaml"
    messy = json.dumps(body_of((REAL / "models" / "qwen3-8b.yaml").read_text(encoding="utf-8")))
    target.write_text(messy, encoding="utf-8")
    proc = run_fix("--check", data)
    assert proc.returncode == 1
    assert f"would reformat {target}" in proc.stdout
    assert target.read_text(encoding="utf-8") == messy
