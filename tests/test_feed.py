"""The data-changes feed: pure functions on a throwaway git repository."""

import subprocess
import xml.etree.ElementTree as ET

import pytest

from macros.feed import MAX_CHANGES, atom, change_lines, data_commits, parse_log

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


def commit_file(repo, rel, text, message):
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    (repo / ".msg").write_text(message, encoding="utf-8")
    git(repo, "commit", "-q", "--cleanup=verbatim", "-F", str(repo / ".msg"))


FORGED_SHA = "f" * 40


@pytest.mark.parametrize("sep", ["\x1e", "\x1f", "\x0b", "\x1c", "\x1d", "\x0c", "\x85", "\u2028", "\u2029", "\r", "\n"])
def test_a_subject_cannot_forge_an_entry_or_a_file_name(tmp_path, sep):
    """Whatever separator a subject carries, it is one entry with the files git reports, nothing more."""
    git(tmp_path, "init", "-q")
    forged = (f"real{sep}{FORGED_SHA}\x1f2099-01-01T00:00:00+00:00\x1fFAKE entry{sep}data/engines/evil.yaml{sep}"
              f"\x1e{FORGED_SHA}{sep}2099-01-01T00:00:00+00:00{sep}FAKE{sep}data/engines/evil.yaml")
    commit_file(tmp_path, "data/engines/vllm.yaml", "id: vllm\n", forged)
    commits = data_commits(tmp_path)
    assert len(commits) == 1
    assert commits[0]["files"] == ["data/engines/vllm.yaml"]
    assert commits[0]["sha"] != FORGED_SHA and not commits[0]["date"].startswith("2099")
    root = ET.fromstring(atom(commits, "http://127.0.0.1:8000/"))
    entries = root.findall("a:entry", NS)
    assert len(entries) == 1 and "evil" not in entries[0].find("a:summary", NS).text
    assert entries[0].find("a:link", NS).get("href") == "http://127.0.0.1:8000/engines/vllm/"


@pytest.mark.parametrize("name", ["data/engines/new\nline.yaml", 'data/engines/"quoted".yaml', "data/engines/tab\tx.yaml",
                                  "data/engines/ünïcode.yaml", "data/engines/back\\slash.yaml"])
def test_file_names_come_through_verbatim(tmp_path, name):
    """Names are NUL-terminated (-z), so a newline or quote in a name neither splits it nor gets C-quoted."""
    git(tmp_path, "init", "-q")
    commit_file(tmp_path, name, "id: x\n", "add a file")
    commit_file(tmp_path, "data/engines/b.yaml", "id: b\n", "second")
    commits = data_commits(tmp_path)
    assert [c["files"] for c in commits] == [["data/engines/b.yaml"], [name]]


def test_parse_log_drops_records_whose_sha_or_date_does_not_parse():
    raw = (f"{'a' * 40}\x00not-a-date\x00bad date\x00\ndata/x.yaml\x00"
           f"zzzz\x002026-01-01T00:00:00+00:00\x00bad sha\x00\ndata/y.yaml\x00"
           f"{'b' * 40}\x002026-01-02T00:00:00+00:00\x00good\x00\ndata/z.yaml\x00"
           f"{'b' * 40}\x002026-01-02T00:00:00+00:00\x00twice\x00\ndata/z.yaml\x00").encode()
    commits = parse_log(raw)
    assert [(c["subject"], c["files"]) for c in commits] == [("good", ["data/z.yaml"])]


def test_feed_says_which_facts_changed(tmp_path):
    git(tmp_path, "init", "-q")
    commit_file(tmp_path, "data/engines/vllm.yaml", "id: vllm\nstatus:\n  latest_version: 0.10.0\n  maturity: stable\n", "add vLLM")
    commit_file(tmp_path, "data/engines/vllm.yaml", "id: vllm\nstatus:\n  latest_version: 0.11.0\n  maturity: stable\n"
                "tags: [a, b]\n", "vLLM 0.11")
    commits = data_commits(tmp_path)
    assert change_lines(commits[0]) == ["vllm: status.latest_version 0.10.0 → 0.11.0", 'vllm: tags (none) → ["a", "b"]']
    assert change_lines(commits[1]) == ["vllm: (file) (none) → present"]
    summary = ET.fromstring(atom(commits, "http://x/")).find("a:entry/a:summary", NS).text
    assert "status.latest_version 0.10.0 → 0.11.0" in summary


def test_fact_changes_are_bounded(tmp_path):
    git(tmp_path, "init", "-q")
    commit_file(tmp_path, "data/engines/e.yaml", "id: e\n" + "".join(f"k{i}: 1\n" for i in range(200)), "one")
    commit_file(tmp_path, "data/engines/e.yaml", "id: e\n" + "".join(f"k{i}: 2\n" for i in range(200)), "two")
    lines = change_lines(data_commits(tmp_path)[0])
    assert len(lines) == MAX_CHANGES + 1 and lines[-1] == f"… and {200 - MAX_CHANGES} more"


def test_freshness_page_lists_the_facts_each_commit_changed(tmp_path):
    from macros.feed import changes_view
    from macros.templating import render
    git(tmp_path, "init", "-q")
    commit_file(tmp_path, "data/engines/vllm.yaml", "id: vllm\nstatus:\n  latest_version: 0.10.0\n", "add vLLM")
    commit_file(tmp_path, "data/engines/vllm.yaml", "id: vllm\nstatus:\n  latest_version: '<b>0.11</b>'\n", "vLLM <i>0.11</i>")
    commit_file(tmp_path, "data/glossary.yaml", "terms: []\n", "glossary")
    view = changes_view(data_commits(tmp_path), limit=2)
    assert [c["subject"] for c in view["commits"]] == ["glossary", "vLLM <i>0.11</i>"]
    (fact,) = view["commits"][1]["facts"]
    assert fact == {"entry": "vllm", "field": "status.latest_version", "old": "0.10.0", "new": "<b>0.11</b>", "href": "engines/vllm/"}
    assert view["commits"][0]["facts"][0]["href"] is None  # not an engine: no page to link
    html = render("changes.html", "freshness/", **view)
    assert '<a href="../engines/vllm/">vllm</a>: <code>status.latest_version</code> 0.10.0 → &lt;b&gt;0.11&lt;/b&gt;' in html
    assert "vLLM &lt;i&gt;0.11&lt;/i&gt;" in html and "<i>" not in html
    assert "not a git checkout" in render("changes.html", "freshness/", **changes_view([]))
