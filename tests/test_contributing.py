"""CONTRIBUTING.md stays true: its field guide is the schemas' descriptions, its skeleton example is what
`selector new` writes, its links work on GitHub and on the site, and the Makefile targets it names exist."""

import re
import shutil
import subprocess
import sys

from conftest import ROOT
from datatools.files import load_schemas
from datatools.guide import END, START, markdown

TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def test_field_guide_is_generated_from_the_schemas():
    block = TEXT.split(START + "\n", 1)[1].split(END, 1)[0]
    assert block == "\n" + markdown(load_schemas(ROOT / "data")) + "\n", (
        "the field guide is out of date: run `python -m selector fields --update CONTRIBUTING.md`")


def test_field_guide_covers_every_collection_and_the_conventions():
    from selector.catalog import COLLECTIONS
    for collection in COLLECTIONS:
        assert f"`data/{collection}/ID.yaml`" in TEXT, collection
    guide = markdown(load_schemas(ROOT / "data"))
    assert "an '80 GB' H100 has 80 GiB: write 80" in guide           # units, from gpu.schema.json
    assert "decimal GB/s" in guide
    assert "Each source's `as_of` says when that source was read" in guide  # verified vs as_of
    for kind in ("official-docs", "release-notes", "repository", "paper", "blog-official", "third-party", "vendor-claim"):
        assert f"| `{kind}` |" in TEXT, kind                             # source kinds with examples
    assert "its README, a docs folder" in TEXT and "a vendor spec page" in TEXT
    assert "### every entry of `sources`" in guide and "| `as_of` | yes | date YYYY-MM-DD | The date you read" in guide
    assert "**Unknown is not no.**" in TEXT
    assert "**The decision tree**" in TEXT and "**The decision matrix**" in TEXT


def test_skeleton_example_is_what_new_writes(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    proc = subprocess.run([sys.executable, "-m", "selector", "new", "engine", "my-engine", "--data-dir", str(data)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    written = (data / "engines" / "my-engine.yaml").read_text(encoding="utf-8")
    written = re.sub(r"\d{4}-\d{2}-\d{2}", "DATE", written).splitlines()
    example = TEXT.split("```yaml\n# yaml-language-server", 1)[1].split("```", 1)[0]
    lines = ["# yaml-language-server" + example.splitlines()[0]] + example.splitlines()[1:]
    shown = [re.sub(r"\d{4}-\d{2}-\d{2}", "DATE", line) for line in lines if line.strip() not in ("...", "")]
    assert len(shown) > 15
    for line in shown:
        assert line in written, line


def test_relative_links_work_on_github_and_on_the_site():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", TEXT)
    assert "docs/freshness.md" in links
    for link in links:
        if link.startswith(("http://", "https://")):
            continue
        assert (ROOT / link).is_file(), f"{link} is broken on GitHub"
        assert link.startswith("docs/") and (ROOT / "docs" / link.removeprefix("docs/")).is_file(), (
            f"{link}: the site renders CONTRIBUTING.md inside docs/ and only rewrites links into docs/")
    from macros import __init__ as macros_init  # noqa: F401 - the rewrite lives in the contributing() macro
    source = (ROOT / "macros" / "__init__.py").read_text(encoding="utf-8")
    assert 'text.replace("](docs/", "](")' in source


def test_makefile_has_fix_and_check_format_in_test():
    assert re.search(r"^fix: .*\n\t\$\(PY\) -m selector fix\n", MAKEFILE, re.M)
    assert re.search(r"^check-format: .*\n\t\$\(PY\) -m selector fix --check\n", MAKEFILE, re.M)
    test_recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", MAKEFILE, re.M).group(1).splitlines()
    assert any("check-format" in line for line in test_recipe)
    assert [i for i, line in enumerate(test_recipe) if "check-format" in line][0] < \
        [i for i, line in enumerate(test_recipe) if "pytest" in line][0]
    assert "make check-format" in TEXT and "fix --check" in TEXT


def test_fix_check_is_documented_in_the_cli():
    proc = subprocess.run([sys.executable, "-m", "selector", "fix", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "--check" in proc.stdout and "make check-format" in proc.stdout
