"""The build reads only regular files of the repository: a symbolic link, a named pipe or a folder set outside
the repository anywhere the build reads (docs/, the theme overrides, CONTRIBUTING.md, the templates, the
selector's sources, includes) fails it with one line naming the file, before anything is read or published."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.build  # each test runs mkdocs (it stops at the first hook, in about a second)
PROJECT = ("mkdocs.yml", "CONTRIBUTING.md", "docs", "macros", "selector", "datatools")
SECRET = "TOKEN-not-for-the-site"


@pytest.fixture()
def project(tmp_path):
    """A copy of what the build reads (data/ and node_modules/ are read in place), and a secret beside it."""
    src = tmp_path / "src"
    src.mkdir()
    for name in PROJECT:
        item = ROOT / name
        if item.is_dir():
            shutil.copytree(item, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(item, src / name)
    (src / "data").mkdir()  # mkdocs.yml watches it; the build reads IEM_DATA_DIR
    (tmp_path / "secret.txt").write_text(SECRET)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "config").write_text(SECRET)
    return src


def build(src):
    env = {**os.environ, "SITE_URL": "http://127.0.0.1:9/", "NO_MKDOCS_2_WARNING": "1",
           "IEM_DATA_DIR": str(ROOT / "data"), "IEM_NODE_MODULES": os.environ.get("IEM_NODE_MODULES", str(ROOT / "node_modules"))}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(src.parent / "site")],
                          cwd=src, env=env, capture_output=True, text=True, timeout=120)


def refused(src, expected):
    """The build failed with exactly one error line, which holds ``expected``; nothing was published."""
    proc = build(src)
    out = proc.stdout + proc.stderr
    errors = [line for line in out.splitlines() if line.startswith("ERROR")]
    assert proc.returncode != 0, out[-2000:]
    assert len(errors) == 1 and expected in errors[0], out[-2000:]
    assert "Traceback" not in out
    site = src.parent / "site"
    assert not site.exists() or SECRET not in "".join(p.read_text(errors="replace") for p in site.rglob("*") if p.is_file())
    return errors[0]


LINK_MESSAGE = "is a symbolic link; the site's files must be regular files inside {} (replace the link with the file)"
LINKS = {  # the link's path in the project -> (its target, the folder named in the message)
    "docs/assets/notes.txt": ("{tmp}/secret.txt", "docs/"),
    "docs/assets/relative.txt": ("../../../secret.txt", "docs/"),
    "docs/assets/inside.txt": ("../../CONTRIBUTING.md", "docs/"),  # a link is refused even when it stays inside
    "docs/leak": ("{tmp}/outside", "docs/"),  # a folder: MkDocs would follow it and publish everything in it
    "docs/gone.md": ("{tmp}/nothing-here.md", "docs/"),
    "docs/overrides/partials/footer.html": ("{tmp}/secret.txt", "docs/"),
    "CONTRIBUTING.md": ("{tmp}/secret.txt", "the repository"),
    "selector/leak.py": ("{tmp}/secret.txt", "selector/"),  # would be packed into the published wheel
    "macros/templates/list.html": ("{tmp}/secret.txt", "macros/templates/"),
    "mkdocs.yml": ("{tmp}/elsewhere.yml", "the repository"),  # MkDocs reads it first; the build still stops
}


@pytest.mark.parametrize("link", list(LINKS))
def test_a_link_the_build_would_read_fails_it(project, link):
    target, folder = LINKS[link]
    path, target = project / link, Path(target.format(tmp=project.parent))
    if path.exists() and not target.exists():
        path.rename(target)  # the real file, moved out of the repository
    elif path.exists():
        path.unlink()
    path.symlink_to(target)
    line = refused(project, f"{link}: " + LINK_MESSAGE.format(folder))
    assert line.endswith("(replace the link with the file)")


def test_the_docs_folder_itself_as_a_link(project):
    real = project.parent / "real-docs"
    (project / "docs").rename(real)
    (project / "docs").symlink_to(real)
    refused(project, "docs: is a symbolic link")


def test_a_named_pipe_in_docs_fails_instead_of_hanging(project):
    os.mkfifo(project / "docs" / "pipe.md")
    refused(project, "docs/pipe.md: is a named pipe (FIFO), not a regular file; remove it from docs/")


CONFIG_GAMES = {  # a line added to mkdocs.yml -> what the one error line says
    "docs_dir: ../outside": "mkdocs.yml: docs_dir: ",
    "docs_dir: .git": "mkdocs.yml: docs_dir: ",
    "markdown_extensions:\n  - pymdownx.snippets": "mkdocs.yml: pymdownx.snippets.base_path: . is not allowed",
    "markdown_extensions:\n  - pymdownx.snippets:\n      base_path: [docs, /]": "pymdownx.snippets.base_path: / is not allowed",
    "markdown_extensions:\n  - pymdownx.snippets:\n      base_path: docs\n      url_download: true": "url_download must stay off",
}


@pytest.mark.parametrize("setting", list(CONFIG_GAMES))
def test_mkdocs_yml_cannot_point_the_build_elsewhere(project, setting):
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    key = setting.split(":", 1)[0]
    if key == "markdown_extensions":  # append to the existing list
        text = text.replace("markdown_extensions:\n", setting + "\n", 1)
    else:
        text = text.replace("docs_dir: docs\n", setting + "\n", 1)
    assert setting in text
    config.write_text(text, encoding="utf-8")
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text(SECRET)
    refused(project, CONFIG_GAMES[setting])


def test_a_snippets_folder_is_walked_like_docs(project):
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "markdown_extensions:\n", "markdown_extensions:\n  - pymdownx.snippets:\n      base_path: [snippets]\n", 1), encoding="utf-8")
    (project / "snippets").mkdir()
    (project / "snippets" / "env.txt").symlink_to("/proc/self/environ")
    refused(project, "snippets/env.txt: " + LINK_MESSAGE.format("snippets/"))
