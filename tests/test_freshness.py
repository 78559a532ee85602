"""`python -m selector freshness`: the recorded upstream answers of tests/freshness/ end to end, the pieces
(versions, feeds, issues) alone, and the weekly workflow's YAML (schedule, least permissions, pins)."""

import json
import re
import socket
import subprocess
import sys
import threading

import pytest

from bad_data import corpus
from conftest import ROOT
from datatools import freshness
from datatools.files import parse_yaml_text

FIXTURES = ROOT / "tests" / "freshness"
WORKFLOW = ROOT / ".github" / "workflows" / "freshness.yml"
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """The real data with the two engines the fixtures answer for held at known releases."""
    case = {"edits": [
        {"file": "engines/mlx-lm.yaml", "set": {"status.latest_version": "0.32.2", "status.released": "2026-10-16",
                                                "status.release_feed": {"pypi": "mlx-lm"}}},
        {"file": "engines/ollama.yaml", "set": {"status.latest_version": "v0.35.0", "status.released": "2026-09-28",
                                                "status.release_feed": {"github": "ollama/ollama"}}},
        {"file": "engines/lm-studio.yaml", "set": {"status.latest_version": "0.4.21"}}]}
    return corpus.build_case(case, tmp_path_factory.mktemp("freshness"))


def run(data_dir, *args):
    proc = subprocess.run([sys.executable, "-m", "selector", "freshness", "--data-dir", str(data_dir), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def run_fixture(data_dir, name, *engines):
    proc = run(data_dir, "--offline", str(FIXTURES / name), *[a for e in engines for a in ("--engine", e)])
    rows = {r["engine"]: r for r in json.loads(proc.stdout)["engines"]}
    lines = proc.stderr.splitlines()
    assert len(lines) == len(engines), lines  # one line per engine
    return proc, rows, dict(zip(engines, lines))


# -- the recorded fixtures, end to end ---------------------------------------------------------------------

def test_new_release_is_behind(data_dir):
    proc, rows, lines = run_fixture(data_dir, "new-release.json", "mlx-lm")
    assert proc.returncode == freshness.EXIT_BEHIND
    assert rows["mlx-lm"]["state"] == "behind"
    assert rows["mlx-lm"]["upstream"] == {"version": "0.33.0", "released": "2026-11-20", "url": "https://pypi.org/project/mlx-lm/0.33.0/"}
    assert lines["mlx-lm"] == "mlx-lm: behind: upstream 0.33.0 (2026-11-20), data says 0.32.2 (2026-10-16)"


def test_prerelease_draft_and_yanked_are_ignored_and_named(data_dir):
    proc, rows, lines = run_fixture(data_dir, "prerelease-yanked.json", "mlx-lm", "ollama")
    assert proc.returncode == freshness.EXIT_CURRENT
    assert rows["mlx-lm"]["state"] == rows["ollama"]["state"] == "current"
    assert lines["mlx-lm"] == "mlx-lm: current at 0.32.2 (2026-10-16); ignored 0.34.0rc1 (pre-release), 0.33.0 (yanked)"
    assert lines["ollama"] == "ollama: current at v0.35.0 (2026-09-28); ignored v0.36.0-rc1 (pre-release)"
    assert "v0.36.0" not in json.dumps(rows["ollama"]["upstream"])  # the draft is neither the answer nor named


def test_engine_without_a_feed_says_so(data_dir):
    proc, rows, lines = run_fixture(data_dir, "no-feed.json", "lm-studio")
    assert proc.returncode == freshness.EXIT_CURRENT and rows["lm-studio"]["state"] == "no-feed"
    assert lines["lm-studio"] == "lm-studio: no releases feed in the data (status.release_feed); 0.4.21 is checked by hand"


def test_timeout_is_one_line_and_exit_3(data_dir):
    proc, rows, lines = run_fixture(data_dir, "timeout.json", "mlx-lm")
    assert proc.returncode == freshness.EXIT_UNREADABLE and rows["mlx-lm"]["state"] == "unreadable"
    assert lines["mlx-lm"] == ("mlx-lm: could not read the feed: timed out after 10 s reading "
                               "https://pypi.org/pypi/mlx-lm/json")


def test_malformed_answers_are_one_line_each(data_dir):
    proc, rows, lines = run_fixture(data_dir, "malformed.json", "mlx-lm", "ollama")
    assert proc.returncode == freshness.EXIT_UNREADABLE
    assert lines["mlx-lm"] == "mlx-lm: could not read the feed: the answer from https://pypi.org/pypi/mlx-lm/json is not JSON"
    assert lines["ollama"] == "ollama: could not read the feed: the answer is not a list of releases as GitHub's /releases API gives"


def test_http_error_is_one_line(data_dir):
    proc, rows, lines = run_fixture(data_dir, "http-error.json", "ollama")
    assert proc.returncode == freshness.EXIT_UNREADABLE
    assert lines["ollama"] == "ollama: could not read the feed: HTTP 404 from https://api.github.com/repos/ollama/ollama/releases?per_page=30"


def test_behind_outranks_unreadable(data_dir, tmp_path):
    both = json.loads((FIXTURES / "new-release.json").read_text())["answers"]
    both.update(json.loads((FIXTURES / "http-error.json").read_text())["answers"])
    (tmp_path / "both.json").write_text(json.dumps({"answers": both}))
    proc = run(data_dir, "--offline", str(tmp_path / "both.json"), "--engine", "mlx-lm", "--engine", "ollama")
    assert proc.returncode == freshness.EXIT_BEHIND
    assert json.loads(proc.stdout)["counts"] == {"current": 0, "behind": 1, "differs": 0, "unreadable": 1, "no-feed": 0}


def test_every_engine_gets_a_line_without_answers(data_dir, tmp_path):
    (tmp_path / "empty.json").write_text('{"answers": {}}')
    proc = run(data_dir, "--offline", str(tmp_path / "empty.json"))
    report = json.loads(proc.stdout)
    assert len(report["engines"]) == len(proc.stderr.splitlines()) >= 16
    assert all(r["state"] in ("unreadable", "no-feed") for r in report["engines"])
    assert proc.returncode == freshness.EXIT_UNREADABLE


@pytest.mark.parametrize("args, fragment", [
    (["--offline", str(FIXTURES / "not-json.json")], "not-json.json is not JSON (line 1"),
    (["--offline", str(FIXTURES / "missing.json")], "--offline: cannot read"),
    (["--offline", str(FIXTURES / "no-feed.json"), "--engine", "vlm"], "--engine: 'vlm' is not an engine id"),
    (["--offline", str(FIXTURES / "no-feed.json"), "--open-issues"], "--open-issues: reads the live feeds; leave out --offline"),
])
def test_bad_input_is_one_line_exit_2(data_dir, args, fragment):
    proc = run(data_dir, *args)
    assert proc.returncode == freshness.EXIT_BAD_INPUT and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and fragment in proc.stderr and proc.stderr.startswith("error: ")


def test_wrong_shape_recording_is_bad_input(tmp_path):
    (tmp_path / "list.json").write_text('[1, 2]')
    with pytest.raises(freshness.InputError, match="must be an object with `answers`"):
        freshness.load_recording(tmp_path / "list.json")


def test_open_issues_needs_the_workflow_token():
    with pytest.raises(freshness.InputError, match="GITHUB_TOKEN not set"):
        freshness.issue_settings({"GITHUB_REPOSITORY": "o/r"})
    with pytest.raises(freshness.InputError, match="is not owner/name"):
        freshness.issue_settings({"GITHUB_REPOSITORY": "o/r/x", "GITHUB_TOKEN": "t"})
    assert freshness.issue_settings({"GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "t"}) == ("o/r", "t")


# -- the pieces --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("version, pre", [
    ("1.0.0", False), ("v0.35.0", False), ("b10240", False), ("0.34.0rc1", True), ("v0.36.0-rc1", True),
    ("1.7.0.dev20261101", True), ("2.0b2", True), ("0.5.0a1", True), ("v1.0.0-beta.2", True), ("0.9.0.post1", False),
])
def test_prerelease_detection(version, pre):
    assert freshness.is_prerelease(version) is pre


def test_versions_compare_by_number_not_text():
    assert freshness.version_key("0.10.0") > freshness.version_key("0.9.9")
    assert freshness.version_key("v1.6.2") == freshness.version_key("1.6.2")
    assert freshness.normalize("v5.24.0") == freshness.normalize("5.24.0") == "5.24.0"


def test_newest_github_picks_the_highest_stable_not_the_latest_published():
    answer = [{"tag_name": "v1.6.3", "published_at": "2026-11-30T00:00:00Z"},  # a patch of an older line, published last
              {"tag_name": "v1.7.0", "published_at": "2026-11-23T00:00:00Z"}]
    assert freshness.newest_github(answer)[:2] == ("v1.7.0", "2026-11-23")
    with pytest.raises(freshness.FeedError, match="no stable release .only v2.0.0-rc1"):
        freshness.newest_github([{"tag_name": "v2.0.0-rc1", "prerelease": True}])


def test_a_long_run_of_prereleases_is_named_newest_first_and_bounded():
    engine = {"id": "e", "name": "E", "verified": "2026-12-03",
              "status": {"latest_version": "1.2.1", "released": "2026-04-20", "release_feed": {"pypi": "e"}}}
    files = [{"upload_time_iso_8601": "2026-04-20T00:00:00Z"}]
    answer = {"releases": {"1.2.1": files, **{f"1.3.0rc{i}": files for i in range(12)}, "1.4.0rc1": files}}
    row = freshness.check_engine(engine, lambda url: answer)
    assert row["state"] == "current" and len(row["ignored"]) == 13
    assert row["line"] == ("e: current at 1.2.1 (2026-04-20); ignored 1.4.0rc1 (pre-release), 1.3.0rc11 (pre-release), "
                           "1.3.0rc10 (pre-release) and 10 more")


def test_live_fetch_times_out_instead_of_hanging():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    held = []
    threading.Thread(target=lambda: held.append(server.accept()), daemon=True).start()
    try:
        with pytest.raises(freshness.FeedError, match=r"timed out after 0.5 s"):
            freshness.live_fetch(f"http://127.0.0.1:{server.getsockname()[1]}/releases", timeout=0.5)
    finally:
        server.close()


class FakeGitHub:
    """api.github.com as ``call(method, path, payload)``: records every request, holds the open issues."""

    def __init__(self, issues):
        self.issues, self.calls = issues, []

    def __call__(self, method, path, payload=None):
        self.calls.append((method, path, payload))
        if method == "GET":
            return self.issues
        return {"number": 99}


def behind_row(engine="mlx-lm", version="0.33.0"):
    return {"engine": engine, "name": "MLX LM", "state": "behind", "feed": "https://pypi.org/pypi/mlx-lm/json",
            "data": {"version": "0.32.2", "released": "2026-10-16", "verified": "2026-12-03"},
            "upstream": {"version": version, "released": "2026-11-20", "url": f"https://pypi.org/project/mlx-lm/{version}/"}}


def test_issues_open_update_or_stay_one_per_engine():
    gh = FakeGitHub([{"number": 7, "title": "[freshness] mlx-lm: 0.32.9 is out", "body": "<!-- freshness:mlx-lm -->"},
                     {"number": 8, "title": "[freshness] vllm: PR", "body": "", "pull_request": {}}])
    current = {"engine": "vllm", "state": "current"}
    assert freshness.sync_issues([behind_row(), current], "o/r", gh) == [("mlx-lm", "updated", 7)]
    assert [c[0] for c in gh.calls] == ["GET", "PATCH"] and gh.calls[1][1] == "/repos/o/r/issues/7"
    title, body = freshness.issue_text(behind_row())
    assert gh.calls[1][2] == {"title": title, "body": body}

    gh = FakeGitHub([{"number": 7, "title": title, "body": body}])
    assert freshness.sync_issues([behind_row()], "o/r", gh) == [("mlx-lm", "unchanged", 7)]
    assert [c[0] for c in gh.calls] == ["GET"]

    gh = FakeGitHub([])
    assert freshness.sync_issues([behind_row(), behind_row("sglang")], "o/r", gh) == [("mlx-lm", "opened", 99), ("sglang", "opened", 99)]
    assert [c[:2] for c in gh.calls] == [("GET", "/repos/o/r/issues?state=open&per_page=100&page=1"),
                                        ("POST", "/repos/o/r/issues"), ("POST", "/repos/o/r/issues")]
    assert freshness.sync_issues([current], "o/r", FakeGitHub([])) == []  # nothing behind: no request at all


def test_issue_text_names_the_versions_and_never_claims_an_edit():
    title, body = freshness.issue_text(behind_row())
    assert title == "[freshness] mlx-lm: 0.33.0 is out (data says 0.32.2)"
    assert body.startswith("<!-- freshness:mlx-lm -->") and "https://pypi.org/project/mlx-lm/0.33.0/" in body
    assert "never edits data" in body


def test_every_feed_in_the_data_is_read_from_its_engine_repository(catalog):
    """A GitHub feed points at the engine's own repository, so the check cannot read another project's releases."""
    for engine in catalog.engines.values():
        feed = engine["status"].get("release_feed") or {}
        if "github" in feed:
            assert engine["repository"].rstrip("/").lower().endswith("/" + feed["github"].lower()), engine["id"]


# -- the workflow ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def workflow():
    return parse_yaml_text(WORKFLOW.read_text(encoding="utf-8"))


def test_workflow_runs_weekly_and_by_hand(workflow):
    on = workflow["on"]
    assert set(on) == {"schedule", "workflow_dispatch"}
    (cron,) = [s["cron"] for s in on["schedule"]]
    minute, hour, day, month, weekday = cron.split()
    assert day == month == "*" and weekday.isdigit() and minute.isdigit() and hour.isdigit()  # once a week


def test_workflow_permissions_are_least(workflow):
    assert workflow["permissions"] == {"contents": "read"}
    for name, job in workflow["jobs"].items():
        runs = " ".join(s.get("run", "") for s in job["steps"])
        expected = {"contents": "read", "issues": "write"} if "--open-issues" in runs else {"contents": "read"}
        assert job.get("permissions", workflow["permissions"]) == expected, name


def test_workflow_checkout_keeps_no_credentials_and_actions_are_pinned(workflow):
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    uses = [s for s in steps if "uses" in s]
    assert uses and all(PINNED.match(s["uses"]) for s in uses)
    checkouts = [s for s in uses if s["uses"].startswith("actions/checkout@")]
    assert checkouts and all(s.get("with", {}).get("persist-credentials") is False for s in checkouts)
    with_token = [s for s in steps if "GITHUB_TOKEN" in json.dumps(s)]
    assert len(with_token) == 1 and "python -m selector freshness --open-issues" in with_token[0]["run"]


def test_workflow_tolerates_only_exit_1(workflow):
    (step,) = [s for job in workflow["jobs"].values() for s in job["steps"] if "freshness" in s.get("run", "")]
    assert step["run"].endswith("|| test $? -eq 1")
