"""Ids are public API: an id that was published and then renamed keeps answering (URL, CLI, API) as its successor,
with a note, and validation refuses a data file removed without an alias (data/aliases.yaml)."""

import copy
import subprocess
from datetime import date

import pytest

from conftest import ROOT
from datatools.checks import Ctx, check_aliases
from datatools.history import removed_ids
from selector.api import answer
from selector.catalog import Catalog

OLD_LINKS = [  # (page, answers with an old id, key, successor)
    ("recommend", {"scale": "service", "hardware": "amd-instinct"}, "hardware", "amd-instinct-cdna3"),
    ("recommend", {"scale": "local", "hardware": "nvidia-ada", "quantization": "gguf-kquant"}, "quantization", "gguf-q4-k-m"),
    ("fit", {"model": "llama-3.1-8b", "quantization": "gguf-kquant", "gpu": "rtx-4090"}, "quantization", "gguf-q4-k-m"),
]


@pytest.mark.parametrize("op, answers, key, successor", OLD_LINKS)
def test_an_old_id_answers_as_its_successor_with_a_note(catalog, op, answers, key, successor):
    old = answer(catalog, op, answers)
    assert old["ok"], old
    new = answer(catalog, op, {**answers, key: successor})
    renamed = old["result"].pop("renamed")
    assert new["result"].pop("renamed") == []
    assert old["result"] == new["result"]  # the same answer as for the new id
    assert [(r["key"], r["given"], r["answered_as"]) for r in renamed] == [(key, answers[key], successor)]
    assert "old id" in renamed[0]["note"]


def test_an_unknown_id_is_still_refused(catalog):
    response = answer(catalog, "recommend", {"scale": "service", "hardware": "amd-instinkt"})
    assert not response["ok"] and response["error"]["key"] == "hardware"


def test_the_cli_answers_an_old_id(tmp_path):
    proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "selector", "recommend", "--answers",
                           '{"scale": "service", "hardware": "amd-instinct"}'], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert '"answered_as": "amd-instinct-cdna3"' in proc.stdout


def test_history_knows_the_published_renames():
    assert {("hardware", "amd-instinct"), ("quantization", "gguf-kquant")} <= removed_ids(ROOT / "data")


def _problems(raw, removed):
    return [row[2:] for row in check_aliases(raw, Ctx(raw, date(2026, 12, 2), frozenset(removed)))]


def test_the_real_aliases_cover_every_removed_file(catalog):
    assert _problems(catalog.raw, removed_ids(ROOT / "data")) == []


def test_removing_a_file_without_an_alias_is_refused(catalog):
    raw = copy.deepcopy(catalog.raw)
    raw["aliases"]["aliases"] = [a for a in raw["aliases"]["aliases"] if a["id"] != "amd-instinct"]
    found = _problems(raw, {("hardware", "amd-instinct")})
    assert len(found) == 1 and "data/hardware/amd-instinct.yaml was published and is gone" in found[0][1]


@pytest.mark.parametrize("edit, path, words", [
    ({"id": "nvidia-ada"}, "aliases[0].id", "is a current hardware id"),
    ({"successor": "amd-instinct-cdna9"}, "aliases[0].successor", "is not a hardware id"),
])
def test_an_alias_must_name_a_gone_id_and_a_real_successor(catalog, edit, path, words):
    raw = copy.deepcopy(catalog.raw)
    raw["aliases"]["aliases"][0].update(edit)
    found = _problems(raw, set())
    assert any(p == path and words in m for p, m in found), found


def test_history_reads_names_as_written(tmp_path):
    """Deleted files are read from NUL-separated git output: a name with a newline is not two names."""
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    (tmp_path / "data" / "engines").mkdir(parents=True)
    for name in ("gone.yaml", "odd\nengines/fake.yaml", "kept.yaml"):
        path = tmp_path / "data" / "engines" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("id: x\n")
    git("add", "-A")
    git("commit", "-q", "-m", "add")
    git("rm", "-q", "data/engines/gone.yaml", "data/engines/odd\nengines/fake.yaml")
    git("commit", "-q", "-m", "remove")
    assert removed_ids(tmp_path / "data") == {("engines", "gone")}
    assert removed_ids(tmp_path / "nowhere") == frozenset()


def test_outside_git_there_is_no_history(tmp_path):
    (tmp_path / "data").mkdir()
    assert removed_ids(tmp_path / "data") == frozenset()


def test_the_trimmed_catalog_keeps_the_aliases(catalog):
    from selector.catalog import trim_for_selector
    small = Catalog(trim_for_selector(catalog.raw))
    assert small.alias("hardware", "amd-instinct")["successor"] == "amd-instinct-cdna3"


@pytest.mark.browser
def test_an_old_shared_link_answers_on_the_page(page):
    page.goto(page.base + "selector/?scale=service&hardware=amd-instinct")
    page.wait_for_selector("#selector-result[data-state=ready]", timeout=30000)
    assert "old id" in page.inner_text("#selector-renamed")
    assert page.eval_on_selector("select[name=hardware]", "s => s.value") == "amd-instinct-cdna3"
    assert "hardware=amd-instinct-cdna3" in page.url
