"""An Atom feed of data changes (``/feed.xml``), built from the git history of ``data/``.

Readers who follow the map subscribe to it to see which facts moved. Outside a git checkout (or with
no history) the feed is written with no entries rather than failing the build. Commit text is
untrusted: it is decoded leniently (a subject that is not UTF-8 is shown with replacement characters),
characters XML 1.0 forbids are dropped, and the template escapes the rest.
"""

import json
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # hooks load by file path

from datatools.files import MAX_BYTES, parse_document  # noqa: E402
from macros.templating import render  # noqa: E402

NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
GIT = ["git", "-c", "core.quotepath=off", "-c", "log.showSignature=false"]
MAX_FILES = 12  # files whose facts are compared, per commit
MAX_CHANGES = 12  # fact changes listed per commit ("… and N more")
VALUE_CHARS = 80


def clean(text):
    """Text that XML 1.0 can carry."""
    return NOT_XML.sub("", text)


def _date(text):
    try:
        return datetime.fromisoformat(text).isoformat()
    except ValueError:
        return None


def parse_log(raw):
    """Commits from ``git log -z --format=%H%x00%cI%x00%s --name-only`` output.

    Every field and every file name ends with NUL, which neither a commit subject nor a path can hold,
    so no character of a subject (``\x1e``, ``\x1f``, ``\x0b``, U+2028 ...) or of a file name (a newline,
    a quote) starts a record or a name. A record whose sha or date does not parse is dropped, and a
    sha seen twice is kept once."""
    tokens = raw.decode("utf-8", errors="replace").split("\0")
    commits, seen, i = [], set(), 0
    while i + 2 < len(tokens):
        sha = tokens[i].removeprefix("\n")
        if not SHA.fullmatch(sha):
            i += 1
            continue
        date, subject = _date(tokens[i + 1]), tokens[i + 2]
        i += 3
        files, first = [], True
        while i < len(tokens) and not SHA.fullmatch(tokens[i].removeprefix("\n")):
            name = tokens[i].removeprefix("\n") if first else tokens[i]  # git puts one newline before the names
            first = False
            if name.startswith("data/"):
                files.append(name)
            i += 1
        if date and sha not in seen:
            seen.add(sha)
            commits.append({"sha": sha, "date": date, "subject": clean(subject), "files": files})
    return commits


def data_commits(repo, limit=40, facts=True):
    """``[{sha, date, subject, files, changes}]`` for the newest commits that touched ``data/``."""
    try:
        raw = subprocess.run(
            [*GIT, "log", "-z", f"-{int(limit)}", "--no-renames", "--format=%H%x00%cI%x00%s", "--name-only", "--", "data"],
            cwd=repo, capture_output=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    commits = parse_log(raw)
    changes = fact_changes(repo, commits) if facts else {}
    for c in commits:
        c["changes"] = changes.get(c["sha"], {"list": [], "more": 0})
        c["files"] = [clean(f) for f in c["files"]]
    return commits


# -- which facts changed ------------------------------------------------------------------------------

def _blobs(repo, names):
    """``{name: text or None}`` for ``rev:path`` names, read by two ``git cat-file`` processes whatever
    their number; a blob over the data-file size limit, missing or not UTF-8 reads as None."""
    names = [n for n in names if "\n" not in n]  # the batch protocol is one name a line
    if not names:
        return {}
    request = "".join(n + "\n" for n in names).encode("utf-8", errors="surrogateescape")
    try:
        check = subprocess.run([*GIT, "cat-file", "--batch-check=%(objecttype) %(objectsize)"], input=request,
                               cwd=repo, capture_output=True, timeout=20, check=True).stdout.decode("ascii", "replace").split("\n")
    except (OSError, subprocess.SubprocessError):
        return {}
    wanted = []
    for name, line in zip(names, check):
        kind, _, size = line.partition(" ")
        if kind == "blob" and size.isdigit() and int(size) <= MAX_BYTES:
            wanted.append(name)
    out = dict.fromkeys(names)
    if not wanted:
        return out
    try:
        raw = subprocess.run([*GIT, "cat-file", "--batch"], input="".join(n + "\n" for n in wanted).encode("utf-8", "surrogateescape"),
                             cwd=repo, capture_output=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return out
    pos = 0
    for name in wanted:
        header_end = raw.find(b"\n", pos)
        if header_end < 0:
            break
        header = raw[pos:header_end].split()
        if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
            pos = header_end + 1
            continue
        size = int(header[2])
        body = raw[header_end + 1: header_end + 1 + size]
        pos = header_end + 1 + size + 1
        try:
            out[name] = body.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return out


def flatten(node, path="", out=None):
    """``{field path: value}`` for the leaves of a document (a list of plain values is one leaf)."""
    out = {} if out is None else out
    if isinstance(node, dict):
        for key, value in node.items():
            flatten(value, f"{path}.{key}" if path else str(key), out)
    elif isinstance(node, list) and any(isinstance(v, (dict, list)) for v in node):
        for i, value in enumerate(node):
            flatten(value, f"{path}[{i}]", out)
    else:
        out[path] = node
    return out


def _show(value):
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = clean(" ".join(text.split()))
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def diff_documents(old, new):
    """``[(field, old, new)]`` between two parsed documents, in the new document's field order."""
    before, after = flatten(old or {}), flatten(new or {})
    keys = list(after) + [k for k in before if k not in after]
    return [(k, before.get(k), after.get(k)) for k in keys if before.get(k) != after.get(k)]


def fact_changes(repo, commits):
    """``{sha: {"list": [{entry, field, old, new}], "more": N}}``: the fields each commit changed in the data
    files it touched (at most ``MAX_FILES`` files a commit), each version loaded with the project's parser."""
    pairs = [(c["sha"], f) for c in commits for f in c["files"][:MAX_FILES] if f.endswith(".yaml") and not f.startswith("data/schema/")]
    texts = _blobs(repo, [f"{sha}^:{f}" for sha, f in pairs] + [f"{sha}:{f}" for sha, f in pairs])
    out = {}
    for sha, f in pairs:
        docs = []
        for name in (f"{sha}^:{f}", f"{sha}:{f}"):
            text = texts.get(name)
            docs.append(parse_document(text, f)[0] if text is not None else None)
        entry = clean(str((docs[1] or docs[0] or {}).get("id") or PurePosixPath(f).stem))
        record = out.setdefault(sha, {"list": [], "more": 0})
        if docs[0] is None or docs[1] is None:  # added, removed, or a version that does not parse
            found = [("(file)", None if docs[0] is None else "present", None if docs[1] is None else "present")]
            found = [] if docs[0] is None and docs[1] is None else found
        else:
            found = diff_documents(*docs)
        for field, old, new in found:
            if len(record["list"]) < MAX_CHANGES:
                record["list"].append({"entry": entry, "field": clean(field), "old": _show(old), "new": _show(new)})
            else:
                record["more"] += 1
    return out


def change_lines(commit):
    """``["vllm: status.latest_version 0.10.0 → 0.11.0", ...]`` for one commit."""
    changes = commit.get("changes") or {"list": [], "more": 0}
    lines = [f"{c['entry']}: {c['field']} {c['old']} → {c['new']}" for c in changes["list"]]
    if changes["more"]:
        lines.append(f"… and {changes['more']} more")
    return lines


def changes_view(commits, limit=15):
    """The freshness page's "recent changes" as plain data: per commit its day, subject and the facts it
    changed (entry, field, old, new), an engine's entry linking to its page."""
    out = []
    for c in commits[:limit]:
        engines = {PurePosixPath(f).stem for f in c["files"] if f.startswith("data/engines/")}
        changes = c.get("changes") or {"list": [], "more": 0}
        facts = [{**f, "href": f"engines/{f['entry']}/" if f["entry"] in engines else None} for f in changes["list"]]
        out.append({"date": c["date"][:10], "sha": c["sha"][:7], "subject": c["subject"], "facts": facts,
                    "more": changes["more"], "files": c["files"][:MAX_FILES], "more_files": max(0, len(c["files"]) - MAX_FILES)})
    return {"commits": out}


def entries(commits, base):
    out = []
    for c in commits:
        pages = sorted({f"engines/{PurePosixPath(f).stem}/" for f in c["files"] if f.startswith("data/engines/")})
        files = ", ".join(c["files"][:12]) + (" …" if len(c["files"]) > 12 else "")
        facts = change_lines(c)
        summary = f"Changed: {files}" + (f". Facts: {'; '.join(facts)}" if facts else "")
        out.append({"id": f"urn:git:{c['sha']}", "title": c["subject"], "updated": c["date"],
                    "link": base + (pages[0] if len(pages) == 1 else "sources/"), "summary": summary})
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
