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


def test_feed_survives_a_non_utf8_subject_and_control_characters(tmp_path):
    """A commit subject that is not UTF-8, or holds characters XML 1.0 forbids, must not break the build."""
    git(tmp_path, "init", "-q")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.yaml").write_text("id: x\n")
    git(tmp_path, "add", "-A")
    (tmp_path / "msg").write_bytes(b"caf\xe9 \x01\x02 bell\x07 <b>&")
    git(tmp_path, "-c", "i18n.commitEncoding=latin-1", "commit", "-q", "-F", "msg")
    commits = data_commits(tmp_path)
    assert len(commits) == 1
    root = ET.fromstring(atom(commits, "http://127.0.0.1:8000/"))  # well-formed XML
    title = root.find("a:entry/a:title", NS).text
    assert "\x01" not in title and "\x07" not in title and "<b>&" in title and "caf" in title
