"""`python -m selector new KIND ID`: a skeleton for every collection that validates as written.

"Validates" means what it means for a contributor: `validate` exits 0 with no error; it warns about
each TODO still in the file (so the skeleton cannot be merged unnoticed), and `fix --check` has
nothing to change.  Bad kinds and ids are refused with exit 2 and one line.
"""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from selector.catalog import COLLECTIONS
from datatools.files import load_data_dir, parse_yaml_text
from datatools.fixer import fix_dir
from datatools.skeleton import KINDS

REAL = ROOT / "data"


def run(*args):
    env = {k: v for k, v in os.environ.items() if k != "CI"}  # a contributor's machine: TODOs are warnings
    return subprocess.run([sys.executable, "-m", "selector", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    data = tmp_path_factory.mktemp("new") / "data"
    shutil.copytree(REAL, data)
    (data / "tiers" / "L1.5.yaml").unlink()  # every tier id exists; make room for one
    return data


def test_every_collection_has_a_kind():
    assert set(KINDS.values()) == set(COLLECTIONS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_new_then_validate_is_clean(workspace, kind):
    collection = KINDS[kind]
    entry_id = "L1.5" if kind == "tier" else f"new-{kind}"
    proc = run("new", kind, entry_id, "--data-dir", workspace)
    assert proc.returncode == 0, proc.stderr
    path = workspace / collection / f"{entry_id}.yaml"
    assert proc.stdout.startswith(f"wrote {path}\n")
    text = path.read_text(encoding="utf-8")
    doc = parse_yaml_text(text)
    assert doc["id"] == entry_id
    assert "TODO" in text
    if "sources" in doc:
        assert doc["sources"]["docs"]["url"] == "https://example.com/TODO"
    # canonical as written
    assert path not in fix_dir(workspace, check=True).changed
    # validates: no error anywhere, a warning for the TODOs of this file
    _, problems = load_data_dir(workspace)
    errors = [p for p in problems if p.severity == "error"]
    assert errors == [], "\n".join(map(str, errors))
    rel = f"data/{collection}/{entry_id}.yaml"
    todo = [p for p in problems if p.file == rel and p.check == "placeholders"]
    assert todo and all(p.severity == "warning" for p in todo)


def test_engine_skeleton_has_unknown_facts_and_a_source(workspace):
    proc = run("new", "engine", "skeleton-engine", "--data-dir", workspace)
    assert proc.returncode == 0, proc.stderr
    doc = parse_yaml_text((workspace / "engines" / "skeleton-engine.yaml").read_text(encoding="utf-8"))
    assert set(doc["features"]) >= {"openai_api", "paged_kv", "cpu_offload"}
    assert all(fact == {"value": "unknown"} for fact in doc["features"].values())
    assert doc["status"]["source"] == "docs" and set(doc["sources"]) == {"docs"}
    assert doc["hardware"] == [] and doc["formats"] == [] and doc["quantization"] == []


def test_validate_cli_exits_0_on_a_skeleton(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(REAL, data)
    assert run("new", "gpu", "rtx-6000-pro", "--data-dir", data).returncode == 0
    proc = run("validate", data)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning: data/gpus/rtx-6000-pro.yaml: line " in proc.stdout
    assert "is still marked TODO" in proc.stdout


@pytest.mark.parametrize("args,fragment", [
    (["engine", "VLLM2"], "'VLLM2' is not a valid id"),
    (["engine", "vllm\n"], "is not a valid id"),
    (["engine", "_vllm"], "is not a valid id"),
    (["engine", "a" * 65], "at most 64 characters"),
    (["engine", "vllm"], "data/engines/vllm.yaml already exists"),
    (["tier", "L9"], "'L9' is not allowed for tiers; use one of L1, L1.5, L2, L3"),
    (["tier", "L1"], "data/tiers/L1.yaml already exists"),
    (["engnie", "foo"], "'engnie' is not a kind of data file (did you mean 'engine'?)"),
])
def test_new_refuses(tmp_path, args, fragment):
    data = tmp_path / "data"
    shutil.copytree(REAL, data)
    before = sorted(p.relative_to(data) for p in data.rglob("*"))
    proc = run("new", *args, "--data-dir", data)
    assert proc.returncode == 2, proc.stdout
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], proc.stderr
    assert sorted(p.relative_to(data) for p in data.rglob("*")) == before


def test_kind_aliases():
    proc = run("new", "--help")
    assert proc.returncode == 0 and "KIND" in proc.stdout
    from datatools.skeleton import resolve_kind
    assert resolve_kind("engines") == "engines" and resolve_kind("Matrix") == "matrix" and resolve_kind("result") == "results"
