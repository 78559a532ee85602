"""An Atom feed of data changes (``/feed.xml``), built from the git history of ``data/``.

Readers who follow the map subscribe to it to see which facts moved. Outside a git checkout (or with
no history) the feed is written with no entries rather than failing the build. Commit text is
untrusted: it is decoded leniently (a subject that is not UTF-8 is shown with replacement characters),
characters XML 1.0 forbids are dropped, and the template escapes the rest.
"""

import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # hooks load by file path

from macros.templating import render  # noqa: E402

SEP = "\x1f"
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def clean(text):
    """Text that XML 1.0 can carry."""
    return NOT_XML.sub("", text)


def data_commits(repo, limit=40):
    """``[{sha, date, subject, files}]`` for the newest commits that touched ``data/``."""
    try:
        raw = subprocess.run(
            ["git", "log", f"-{limit}", f"--format=%x1e%H{SEP}%cI{SEP}%s", "--name-only", "--", "data"],
            cwd=repo, capture_output=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    out = raw.decode("utf-8", errors="replace")
    commits = []
    for block in out.split("\x1e"):
        lines = [line for line in block.strip().splitlines() if line.strip()]
        if not lines or lines[0].count(SEP) < 2:
            continue
        sha, date, subject = lines[0].split(SEP, 2)
        commits.append({"sha": clean(sha), "date": clean(date), "subject": clean(subject), "files": [clean(f) for f in lines[1:]]})
    return commits


def entries(commits, base):
    out = []
    for c in commits:
        pages = sorted({f"engines/{PurePosixPath(f).stem}/" for f in c["files"] if f.startswith("data/engines/")})
        files = ", ".join(c["files"][:12]) + (" …" if len(c["files"]) > 12 else "")
        out.append({"id": f"urn:git:{c['sha']}", "title": c["subject"], "updated": c["date"],
                    "link": base + (pages[0] if len(pages) == 1 else "sources/"), "summary": f"Changed: {files}"})
    return out


def atom(commits, site_url, title="Inference Engine Map: data changes"):
    base = (site_url or "/").rstrip("/") + "/"
    updated = commits[0]["date"] if commits else datetime(2026, 1, 1, tzinfo=timezone.utc).isoformat()
    return render("atom.xml", base=base, title=title, updated=updated, entries=entries(commits, base)) + "\n"


def on_files(files, config):
    from mkdocs.structure.files import File
    repo = Path(config["config_file_path"]).parent
    files.append(File.generated(config, "feed.xml", content=atom(data_commits(repo), config.get("site_url"))))
    return files
