"""Contributor workflow files: GitHub workflows, issue forms, the PR template and pre-commit hooks.

Workflows and issue forms are validated with check-jsonschema's vendored schemas (no network), and
every `make X` they call must be a target of the Makefile.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from selector.files import parse_yaml_text  # YAML 1.2-ish: `on:` stays the key "on", not True

GITHUB = ROOT / ".github"
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))
ISSUE_FORMS = sorted((GITHUB / "ISSUE_TEMPLATE").glob("*.yml"))
PRE_COMMIT = ROOT / ".pre-commit-config.yaml"
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")
EXACT_TAG = re.compile(r"^[\w.-]+/[\w.-]+@v\d+\.\d+\.\d+$")


def load(path):
    return parse_yaml_text(path.read_text(encoding="utf-8"))


def check_jsonschema(schema, *files):
    if not CHECK_JSONSCHEMA.exists():
        pytest.fail(f"{CHECK_JSONSCHEMA} missing: it is pinned in requirements.txt, run `make setup`")
    return subprocess.run([str(CHECK_JSONSCHEMA), "--builtin-schema", schema, *map(str, files)],
                          capture_output=True, text=True, timeout=120)


def steps(workflow):
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def make_targets():
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return {m.group(1) for m in re.finditer(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", text, re.M)}


def test_expected_files_exist():
    names = {p.name for p in WORKFLOWS} | {p.name for p in ISSUE_FORMS}
    assert {"ci.yml", "pages.yml", "data-wrong.yml", "add-engine.yml"} <= names
    assert (GITHUB / "PULL_REQUEST_TEMPLATE.md").is_file() and PRE_COMMIT.is_file()


def test_check_jsonschema_is_the_pinned_version():
    pins = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert "check-jsonschema==0.39.0" in pins.splitlines()
    proc = subprocess.run([str(CHECK_JSONSCHEMA), "--version"], capture_output=True, text=True, timeout=60)
    assert "0.39.0" in proc.stdout


def test_workflows_match_github_schema():
    proc = check_jsonschema("vendor.github-workflows", *WORKFLOWS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = check_jsonschema("custom.github-workflows-require-timeout", *WORKFLOWS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_issue_forms_match_github_schema():
    proc = check_jsonschema("vendor.github-issue-forms", *ISSUE_FORMS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_schema_check_is_not_vacuous(tmp_path):
    bad_workflow = tmp_path / "bad.yml"
    bad_workflow.write_text("on: push\njobs:\n  x:\n    steps:\n      - run: make test\n", encoding="utf-8")  # no runs-on
    bad_form = tmp_path / "form.yml"
    bad_form.write_text("name: x\nbody:\n  - type: dropdown\n    id: d\n    attributes: {label: L}\n", encoding="utf-8")
    assert check_jsonschema("vendor.github-workflows", bad_workflow).returncode == 1
    assert check_jsonschema("vendor.github-issue-forms", bad_form).returncode == 1


def test_actions_use_exact_version_tags():
    for path in WORKFLOWS:
        for step in steps(load(path)):
            if "uses" in step:
                assert EXACT_TAG.match(step["uses"]), f"{path.name}: {step['uses']} is not pinned to an exact vX.Y.Z tag"


def test_ci_workflow():
    wf = load(GITHUB / "workflows" / "ci.yml")
    assert {"pull_request", "push"} <= set(wf["on"])
    all_steps = steps(wf)
    uses = {s["uses"].split("@")[0]: s for s in all_steps if "uses" in s}
    assert {"actions/checkout", "actions/setup-python", "actions/setup-node"} <= set(uses)
    assert str(uses["actions/setup-python"]["with"]["python-version"]) == "3.11"
    assert str(uses["actions/setup-node"]["with"]["node-version"]) == "20"
    runs = [s["run"].strip() for s in all_steps if "run" in s]
    assert runs.index("make validate") < runs.index("make test")


def test_pages_workflow():
    wf = load(GITHUB / "workflows" / "pages.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    assert wf["permissions"]["pages"] == "write" and wf["permissions"]["id-token"] == "write"
    all_steps = steps(wf)
    by_action = {s["uses"].split("@")[0]: s for s in all_steps if "uses" in s}
    assert {"actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"} <= set(by_action)
    assert by_action["actions/upload-pages-artifact"]["with"]["path"] == "site"
    pages_id = by_action["actions/configure-pages"]["id"]
    build = next(s for s in all_steps if s.get("run", "").strip() == "make build")
    assert f"steps.{pages_id}.outputs.base_url" in build["env"]["SITE_URL"]
    deploy_job = next(j for j in wf["jobs"].values() if any("deploy-pages" in s.get("uses", "") for s in j["steps"]))
    assert deploy_job["environment"]["name"] == "github-pages"


def test_pre_commit_runs_make_fix_and_validate():
    config = load(PRE_COMMIT)
    hooks = [h for repo in config["repos"] if repo["repo"] == "local" for h in repo["hooks"]]
    entries = {h["entry"] for h in hooks}
    assert {"make fix", "make validate"} <= entries
    for hook in hooks:
        assert hook["language"] == "system" and hook["pass_filenames"] is False
    fix, validate = (next(i for i, h in enumerate(hooks) if h["entry"] == e) for e in ("make fix", "make validate"))
    assert fix < validate  # format first, then check what will be committed


def test_every_make_call_is_a_makefile_target():
    calls = []
    for path in WORKFLOWS:
        calls += [c for s in steps(load(path)) for c in re.findall(r"\bmake\s+([\w.-]+)", s.get("run", ""))]
    calls += [c for repo in load(PRE_COMMIT)["repos"] for h in repo["hooks"]
              for c in re.findall(r"\bmake\s+([\w.-]+)", h["entry"])]
    assert {"validate", "test", "build", "fix"} <= set(calls)
    missing = set(calls) - make_targets()
    assert not missing, f"make targets called but not defined in the Makefile: {sorted(missing)}"


def test_pull_request_template_asks_for_sources_and_changes():
    text = (GITHUB / "PULL_REQUEST_TEMPLATE.md").read_text(encoding="utf-8").lower()
    assert "what changed" in text and "source" in text and "make validate" in text


def test_issue_forms_ask_for_sources():
    for path in ISSUE_FORMS:
        form = load(path)
        ids = {item.get("id") for item in form["body"]}
        assert "sources" in ids, path.name
        sources = next(item for item in form["body"] if item.get("id") == "sources")
        assert sources["validations"]["required"] is True
