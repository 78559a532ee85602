"""An Atom feed of data changes (``/feed.xml``), built from the git history of ``data/``.

Readers who follow the map subscribe to it to see which facts moved. Outside a git checkout
(or with no history) the feed is written with no entries rather than failing the build.
"""

import subprocess
from datetime import datetime, timezone
from pathlib import Path
from xml.sax.saxutils import escape

SEP = "\x1f"


def data_commits(repo, limit=40):
    """``[{sha, date, subject, files}]`` for the newest commits that touched ``data/``."""
    try:
        out = subprocess.run(
            ["git", "log", f"-{limit}", f"--format=%x1e%H{SEP}%cI{SEP}%s", "--name-only", "--", "data"],
            cwd=repo, capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    commits = []
    for block in out.split("\x1e"):
        lines = [line for line in block.strip().splitlines() if line.strip()]
        if not lines or SEP not in lines[0]:
            continue
        sha, date, subject = lines[0].split(SEP, 2)
        commits.append({"sha": sha, "date": date, "subject": subject, "files": lines[1:]})
    return commits


def atom(commits, site_url, title="Inference Engine Map: data changes"):
    base = (site_url or "/").rstrip("/") + "/"
    updated = commits[0]["date"] if commits else datetime(2026, 1, 1, tzinfo=timezone.utc).isoformat()
    entries = []
    for c in commits:
        pages = sorted({f"engines/{Path(f).stem}/" for f in c["files"] if f.startswith("data/engines/")})
        link = base + (pages[0] if len(pages) == 1 else "sources/")
        files = ", ".join(c["files"][:12]) + (" …" if len(c["files"]) > 12 else "")
        entries.append(
            "<entry>"
            f"<id>urn:git:{escape(c['sha'])}</id><title>{escape(c['subject'])}</title>"
            f"<updated>{escape(c['date'])}</updated><link href=\"{escape(link)}\"/>"
            f"<summary>Changed: {escape(files)}</summary>"
            "</entry>")
    return ('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
            f"<id>{escape(base)}feed.xml</id><title>{escape(title)}</title><updated>{escape(updated)}</updated>"
            f"<link rel=\"self\" href=\"{escape(base)}feed.xml\"/><link href=\"{escape(base)}\"/>"
            + "".join(entries) + "</feed>\n")


def on_files(files, config):
    from mkdocs.structure.files import File
    repo = Path(config["config_file_path"]).parent
    files.append(File.generated(config, "feed.xml", content=atom(data_commits(repo), config.get("site_url"))))
    return files
