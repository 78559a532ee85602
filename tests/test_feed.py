"""The data-changes feed: pure functions on a throwaway git repository."""

import subprocess
import xml.etree.ElementTree as ET

from macros.feed import atom, data_commits

NS = {"a": "http://www.w3.org/2005/Atom"}


def git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo, check=True, capture_output=True)


def test_feed_lists_commits_touching_data(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "data" / "engines").mkdir(parents=True)
    (tmp_path / "data" / "engines" / "vllm.yaml").write_text("id: vllm\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "vLLM: <new> release")
    (tmp_path / "README.md").write_text("x")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "docs only")
    commits = data_commits(tmp_path)
    assert [c["subject"] for c in commits] == ["vLLM: <new> release"]
    assert commits[0]["files"] == ["data/engines/vllm.yaml"]
    root = ET.fromstring(atom(commits, "http://127.0.0.1:8000/"))
    entries = root.findall("a:entry", NS)
    assert len(entries) == 1
    assert entries[0].find("a:title", NS).text == "vLLM: <new> release"
    assert entries[0].find("a:link", NS).get("href") == "http://127.0.0.1:8000/engines/vllm/"


def test_feed_outside_git_is_empty_but_valid(tmp_path):
    assert data_commits(tmp_path) == []
    root = ET.fromstring(atom([], None))
    assert root.findall("a:entry", NS) == []
