"""`python -m selector fix`: canonical layout, same content, comments kept, stable on a second run.

The real data is already canonical (`fix --check` exits 0).  A copy is then made messy in ways
contributors do (flow vs block style, JSON, odd key order, quoted yes/no and dates, tabs, a wrong or
missing `$schema` line, comments); one `fix` must restore the canonical text without changing the
data or losing a comment, and a second `fix` must change nothing.  A file that is not valid YAML
is named with its error and left alone (exit 1); fix reads and writes only regular files in data/.
"""

import json
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT
from datatools.files import load_data_dir, parse_yaml_text
from datatools.fixer import fix_dir

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
    "block-sorted-quoted": ("models/deepseek-r1.yaml", lambda text, doc: "# a comment the fixer keeps\n"
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
    changed = fix_dir(messy).changed
    assert sorted(p.relative_to(messy).as_posix() for p in changed) == sorted(rel for rel, _, _ in MESSES.values())
    after, problems = load_data_dir(messy)
    assert not [p for p in problems if p.severity in ("error", "warning")], "\n".join(map(str, problems))
    assert after.raw == before.raw  # the loaded catalog holds the same data, every file
    for name, (rel, _, exact) in MESSES.items():
        fixed, real = messy / rel, REAL / rel
        assert header_of(fixed) == header_of(real), name  # the $schema line is (re)written
        if exact:
            assert fixed.read_bytes() == real.read_bytes(), name
    deepseek = (messy / "models/deepseek-r1.yaml").read_text(encoding="utf-8").splitlines()
    assert deepseek[1] == "# a comment the fixer keeps" and deepseek[2].startswith("id: ")


def test_fix_is_idempotent(messy):
    """Runs after the fix above: a second run over the whole copy changes nothing."""
    before = {p: p.read_bytes() for p in messy.rglob("*.yaml")}
    proc = run_fix(messy)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0 file(s) reformatted"
    assert {p: p.read_bytes() for p in messy.rglob("*.yaml")} == before


def test_fix_reports_unparseable_files_and_leaves_them_alone(tmp_path):
    data = tmp_path / "data"
    (data / "engines").mkdir(parents=True)
    shutil.copytree(REAL / "schema", data / "schema")
    broken = data / "engines" / "broken.yaml"
    broken.write_text("id: broken\nname: [unclosed\n", encoding="utf-8")
    shutil.copy(REAL / "engines" / "ollama.yaml", data / "engines" / "ollama.yaml")
    result = fix_dir(data)
    assert result.changed == []
    assert [(p.file, p.path) for p in result.problems] == [("data/engines/broken.yaml", "line 3")]
    assert "is not valid YAML" in result.problems[0].message
    assert broken.read_text(encoding="utf-8") == "id: broken\nname: [unclosed\n"
    proc = run_fix(data)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "data/engines/broken.yaml: line 3: is not valid YAML" in proc.stderr
    assert "0 file(s) reformatted" not in proc.stdout


def test_fix_on_a_missing_folder_fails(tmp_path):
    proc = run_fix(tmp_path / "nope")
    assert proc.returncode == 1
    assert "data directory not found" in proc.stderr and "Traceback" not in proc.stderr


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


# -- comments ------------------------------------------------------------------------------------

COMMENTED = {
    # where the comment goes in the messy file -> what the fixed file must contain
    "top": ("\nid: vllm\n", "\n# checked against the README\nid: vllm  # same as the file name\n"),
    "reordered": ("\nkind: engine\n", "\n# tier follows the tier pages\nkind: engine\n"),
    "flow-item": ("\n  - {id: nvidia-hopper, support: yes, source: gpu-docs}\n",
                  "\n  # Hopper: H100 and H200\n  - {id: nvidia-hopper, support: yes, source: gpu-docs}  # see install docs\n"),
    "block-item": ("\n  - {id: nvidia-ada, support: yes, source: gpu-docs}\n",
                   "\n  - id: nvidia-ada  # RTX 40 and L40S\n    support: yes\n    source: gpu-docs # compat table\n"),
    "block-key": ("\nstatus:\n", "\nstatus:  # as of the V1 engine\n"),
    "hash-in-text": ("\nkind: engine\n", "\nkind: engine # kinds: engine, orchestration, kv-cache (#1)\n"),
}


def _comments(text):
    from datatools.fixer import find_comments
    return sorted(c[2] for c in find_comments(text) if not c[2].startswith("# yaml-language-server"))


@pytest.fixture()
def commented(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(REAL, data)
    path = data / "engines" / "vllm.yaml"
    text = path.read_text(encoding="utf-8")
    for old, new in COMMENTED.values():
        assert old in text
        text = text.replace(old, new, 1)
    # reorder: `kind` and its comment move below `tier`, and the file ends with a comment
    text = text.replace("\ntier: L2\n", "\n", 1).replace("\nname: vLLM\n", "\nname: vLLM\ntier: L2\n", 1)
    text += "# end of file\n"
    path.write_text(text, encoding="utf-8")
    return data, path, text


def test_fix_keeps_every_comment(commented):
    data, path, messy = commented
    before = _comments(messy)
    assert len(before) == 10
    result = fix_dir(data)
    assert result.problems == [] and result.changed == [path]
    fixed = path.read_text(encoding="utf-8")
    assert _comments(fixed) == before
    assert body_of(fixed) == body_of(messy)
    lines = fixed.splitlines()
    assert lines[0] == "# yaml-language-server: $schema=../schema/engine.schema.json"
    assert lines[1:3] == ["# checked against the README", "id: vllm  # same as the file name"]
    # a comment moves with its field when keys are put in schema order
    kind = lines.index("kind: engine  # kinds: engine, orchestration, kv-cache (#1)")
    assert lines[kind - 1] == "# tier follows the tier pages" and lines[kind - 2].startswith("name: ")
    assert "status:  # as of the V1 engine" in lines
    hopper = lines.index("  - {id: nvidia-hopper, support: yes, source: gpu-docs}  # see install docs")
    assert lines[hopper - 1] == "  # Hopper: H100 and H200"
    # a commented field keeps its list item in block style
    ada = lines.index("  - id: nvidia-ada  # RTX 40 and L40S")
    assert lines[ada + 1:ada + 3] == ["    support: yes", "    source: gpu-docs  # compat table"]
    assert lines[-1] == "# end of file"


def test_fix_with_comments_is_idempotent(commented):
    data, path, _ = commented
    fix_dir(data)
    once = path.read_bytes()
    assert fix_dir(data).changed == []
    assert path.read_bytes() == once
    proc = run_fix("--check", data)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_hash_inside_text_is_not_a_comment():
    from datatools.fixer import find_comments
    text = ("# yaml-language-server: $schema=x\ntitle: 'issue #3333'\nnote: C# and F#\nurl: https://a.b/#frag\n"
            "summary: >-\n  a folded # not a comment\n  line\nkey: v # yes\n")
    assert [c[2] for c in find_comments(text)] == ["# yaml-language-server: $schema=x", "# yes"]


# -- files ---------------------------------------------------------------------------------------------

def test_fix_never_writes_through_a_symlink(tmp_path):
    outside = tmp_path / "outside.yaml"
    shutil.copy(REAL / "engines" / "ollama.yaml", outside)
    messy = json.dumps(body_of(outside.read_text(encoding="utf-8")))
    outside.write_text(messy, encoding="utf-8")
    data = tmp_path / "data"
    shutil.copytree(REAL, data)
    (data / "engines" / "ollama.yaml").unlink()
    (data / "engines" / "ollama.yaml").symlink_to(outside)
    result = fix_dir(data)
    assert result.changed == []
    assert [str(p) for p in result.problems] == [
        "data/engines/ollama.yaml: is a symbolic link; data files must be regular files inside data/ (replace the link with the file)"]
    assert outside.read_text(encoding="utf-8") == messy
    assert (data / "engines" / "ollama.yaml").is_symlink()


def test_fix_keeps_the_file_mode(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(REAL, data)
    target = data / "formats" / "gguf.yaml"
    target.write_text(json.dumps(body_of(target.read_text(encoding="utf-8"))), encoding="utf-8")
    target.chmod(0o640)
    assert fix_dir(data).changed == [target]
    assert target.stat().st_mode & 0o777 == 0o640
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".fix-")]
