"""Contributor workflow files: GitHub workflows, issue forms, the PR template and pre-commit hooks.

Workflows and issue forms are validated with check-jsonschema's vendored schemas (no network), and
every `make X` they call must be a target of the Makefile.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from datatools.files import parse_yaml_text  # YAML 1.2-ish: `on:` stays the key "on", not True

GITHUB = ROOT / ".github"
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))
ISSUE_FORMS = sorted((GITHUB / "ISSUE_TEMPLATE").glob("*.yml"))
PRE_COMMIT = ROOT / ".pre-commit-config.yaml"
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")
PINNED = re.compile(r"^\s*(?:-\s+)?uses:\s*([\w.-]+/[\w./-]+)@([0-9a-f]{40})\s+#\s*(v\d+\.\d+\.\d+)\s*$")
LOCK = ROOT / "requirements.lock"


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


def action_pins(text, name="workflow"):
    """Every `uses:` line of a workflow as (action, sha, tag); a line not pinned by commit is an error."""
    pins, bad = [], []
    for line in text.splitlines():
        if re.match(r"^\s*(?:-\s+)?uses:", line):
            m = PINNED.match(line)
            if m:
                pins.append(m.groups())
            else:
                bad.append(f"{name}: {line.strip()!r} is not `owner/repo@<40-hex commit> # vX.Y.Z`")
    return pins, bad


def test_actions_are_pinned_by_commit_with_the_tag_in_a_comment():
    seen, problems = {}, []
    for path in WORKFLOWS:
        text = path.read_text(encoding="utf-8")
        pins, bad = action_pins(text, path.name)
        problems += bad
        uses = [s["uses"] for s in steps(load(path)) if "uses" in s]
        assert len(pins) + len(bad) == len(uses) > 0, path.name  # every step's `uses` was looked at
        for action, sha, tag in pins:
            assert f"{action}@{sha}" in uses
            if seen.setdefault((action, tag), sha) != sha:
                problems.append(f"{path.name}: {action} {tag} pinned to two commits")
    assert not problems, "\n".join(problems)


def test_pin_check_is_not_vacuous():
    for line in ("uses: actions/checkout@v5.0.0", "- uses: actions/checkout@v5",
                 "uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8",  # no tag comment
                 "uses: actions/checkout@08c6903c # v5.0.0", "uses: actions/checkout@main"):
        pins, bad = action_pins(line)
        assert not pins and len(bad) == 1, line
    assert action_pins("  - uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0")[0]


# ---------------------------------------------------------------------------------------------
# Python packages: requirements.txt (direct pins) -> requirements.lock (everything, with hashes).

def read_lock(text):
    """{normalized name: (version, [sha256, ...])} from a pip-compile --generate-hashes file."""
    out, current = {}, None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", line)
        if m:
            current = normalize(m.group(1))
            assert current not in out, f"{current} twice in the lock"
            out[current] = (m.group(2), [])
            continue
        h = re.match(r"^\s+--hash=sha256:([0-9a-f]{64})\s*\\?$", line)
        assert h and current, f"unexpected line in the lock: {line!r}"
        out[current][1].append(h.group(1))
    return out


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def direct_pins():
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep, f"requirements.txt: {line!r} is not pinned with =="
            pins[normalize(name)] = version
    return pins


def test_lock_has_every_direct_pin_and_a_hash_for_every_package():
    lock = read_lock(LOCK.read_text(encoding="utf-8"))
    for name, version in direct_pins().items():
        assert name in lock, f"{name} is in requirements.txt but not in requirements.lock: run `make lock`"
        assert lock[name][0] == version, f"{name}: requirements.txt says {version}, the lock {lock[name][0]}: run `make lock`"
    assert len(lock) > len(direct_pins()) + 20  # the transitive ones are there too
    for name, (version, hashes) in lock.items():
        assert hashes, f"{name}=={version} has no hash"


def test_lock_holds_every_dependency_of_what_it_locks():
    """Closure: each locked package's requirements (as installed here, markers evaluated for this Python)
    are locked too; `pip install --require-hashes` would refuse anything else, this says which."""
    from importlib import metadata
    from packaging.requirements import Requirement
    lock = read_lock(LOCK.read_text(encoding="utf-8"))
    missing = []
    for name, (version, _hashes) in lock.items():
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # not for this platform
        assert dist.version == version, f"{name}: installed {dist.version}, locked {version}: run `make setup`"
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                if normalize(req.name) not in lock:
                    missing.append(f"{name} needs {req.name}")
    assert not missing, missing


def test_make_installs_the_lock_with_hashes():
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^STAMP := .*\$\(LOCK\)", text, re.M) and re.search(r"^LOCK := requirements\.lock$", text, re.M)
    assert re.search(r"^\$\(STAMP\): \$\(LOCK\)", text, re.M), "the install stamp must depend on the lock"
    install = re.search(r"^\$\(STAMP\):.*\n((?:\t.*\n)+)", text, re.M).group(1)
    assert "--require-hashes -r $(LOCK)" in install and "requirements.txt" not in install
    lock_target = re.search(r"^lock:.*\n((?:\t.*\n)+)", text, re.M).group(1)
    assert "--generate-hashes" in lock_target and "--index-url $(PYPI)" in lock_target
    assert re.search(r"^PYPI := https://pypi\.org/simple$", text, re.M)
    assert "PIP_CONFIG_FILE=/dev/null" in lock_target  # this machine's extra indexes do not leak into the lock
    assert "lock" in make_targets()


def test_npm_packages_are_locked_with_integrity():
    """package-lock.json pins every npm package with a SHA-512 integrity hash, and make installs with `npm ci`
    without running any package's install scripts (none of the locked packages has one; a new one that
    does must be looked at before the flag goes)."""
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    packages = {k: v for k, v in lock["packages"].items() if k and not v.get("link")}
    assert packages
    for name, entry in packages.items():
        assert entry.get("version"), name
        assert entry.get("integrity", "").startswith("sha512-"), f"{name} has no sha512 integrity"
    assert not [name for name, entry in packages.items() if entry.get("hasInstallScript")]
    installs = re.findall(r"\bnpm (?:ci|install)\b.*", (ROOT / "Makefile").read_text(encoding="utf-8"))
    assert installs and all(line.startswith("npm ci --ignore-scripts ") for line in installs), installs


# ---------------------------------------------------------------------------------------------
# Workflow security: zizmor (pinned in requirements.txt) audits every workflow offline: permissions
# wider than a job needs, checkouts that leave the token in .git/config, template injection, unpinned
# actions and the rest of its audits. No finding may be left.

ZIZMOR = Path(sys.executable).with_name("zizmor")


def zizmor(*paths):
    if not ZIZMOR.exists():
        pytest.fail(f"{ZIZMOR} missing: it is pinned in requirements.txt, run `make setup`")
    proc = subprocess.run([str(ZIZMOR), "--offline", "--no-config", "--format", "json", "--no-progress", *map(str, paths)],
                          capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"})
    assert proc.returncode in (0, 10, 11, 12, 13, 14), proc.stderr  # 1x: findings, by their highest severity
    audited = set(re.findall(r"completed (\S+)", proc.stderr))
    return proc.returncode, json.loads(proc.stdout or "[]"), audited


def test_zizmor_is_the_pinned_version():
    assert "zizmor==1.32.0" in [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    proc = subprocess.run([str(ZIZMOR), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["zizmor", "1.32.0"]


def test_zizmor_finds_nothing_in_any_workflow():
    assert WORKFLOWS and (GITHUB / "workflows").is_dir()
    code, findings, audited = zizmor(GITHUB / "workflows")  # the folder: a workflow added later is audited too
    assert {Path(p).name for p in audited} == {p.name for p in WORKFLOWS}
    problems = [f"{f['ident']} ({f['determinations']['severity']}): {loc['symbolic']['annotation']}, "
                f"{(loc['symbolic']['key'].get('Local') or {}).get('verbatim_path')} line {loc['concrete']['location']['start_point']['row'] + 1}"
                for f in findings for loc in f["locations"][:1]]
    assert code == 0 and not findings, "\n".join(problems)


def test_zizmor_check_is_not_vacuous(tmp_path):
    """The grants and checkout this project had before: zizmor must report each of them."""
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "pages.yml").write_text("""\
on:
  push:
    branches: [main]
permissions:
  contents: read
  pages: write
  id-token: write
jobs:
  build:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0
      - run: echo "${{ github.event.head_commit.message }}"
  deploy:
    needs: build
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/deploy-pages@d6db90164ac5ed86f2b6aed7e0febac5b3c0c03e # v4.0.5
""", encoding="utf-8")
    code, findings, audited = zizmor(folder)
    assert code != 0 and len(audited) == 1
    assert {f["ident"] for f in findings} >= {"excessive-permissions", "artipacked", "template-injection"}


def test_only_the_deploy_job_can_publish():
    """What zizmor cannot know: which job needs a write grant. The Pages deploy job holds the Pages grants, and
    the freshness job may write issues (one per engine behind upstream); no other job writes anything."""
    for path in WORKFLOWS:
        wf = load(path)
        assert all(v in ("read", "none") for v in (wf.get("permissions") or {}).values()), path.name
        for name, job in wf["jobs"].items():
            grants = job.get("permissions") or {}
            writes = {k for k, v in grants.items() if v == "write"}
            if any("deploy-pages" in s.get("uses", "") for s in job.get("steps", [])):
                assert grants == {"pages": "write", "id-token": "write"}, (path.name, name)
            elif path.name == "freshness.yml":
                assert writes <= {"issues"} and set(grants) <= {"issues", "contents"}, (path.name, name, grants)
            else:
                assert not writes, (path.name, name, writes)


def test_ci_workflow():
    wf = load(GITHUB / "workflows" / "ci.yml")
    assert {"pull_request", "push"} <= set(wf["on"])
    all_steps = steps(wf)
    uses = {s["uses"].split("@")[0]: s for s in all_steps if "uses" in s}
    assert {"actions/checkout", "actions/setup-python", "actions/setup-node"} <= set(uses)
    assert str(uses["actions/setup-python"]["with"]["python-version"]) == "3.11"
    assert uses["actions/setup-python"]["with"]["cache-dependency-path"] == "requirements.lock"
    assert str(uses["actions/setup-node"]["with"]["node-version"]) == "20"
    runs = [s["run"].strip() for s in all_steps if "run" in s]
    assert runs.index("make validate") < runs.index("make test")


def test_pages_workflow():
    wf = load(GITHUB / "workflows" / "pages.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
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
