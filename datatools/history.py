"""Ids that were published: the data files git history says were deleted (a rename counts as a deletion).

A published id is public API (saved links, scripts, the API), so :func:`datatools.checks.check_aliases` asks
that each one still answers, through a row of data/aliases.yaml. Outside a git checkout there is no history
and nothing to ask."""

import subprocess
from pathlib import Path, PurePosixPath

from selector.catalog import COLLECTIONS


def _git(args, cwd):
    try:
        proc = subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=cwd, capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def removed_ids(data_dir):
    """``{(collection, id)}`` of every ``data/<collection>/<id>.yaml`` deleted in the history of ``data_dir``."""
    data_dir = Path(data_dir).resolve()
    if not data_dir.is_dir():
        return frozenset()
    top = _git(["rev-parse", "--show-toplevel"], data_dir)
    if not top:
        return frozenset()
    root = Path(top.decode("utf-8", "replace").strip()).resolve()
    try:
        rel = PurePosixPath(data_dir.relative_to(root).as_posix())
    except ValueError:
        return frozenset()
    # -z: names are NUL-separated, so a name holding a newline or quote is read as written
    out = _git(["log", "--diff-filter=D", "--no-renames", "--name-only", "--format=", "-z", "--", str(rel)], root)
    found = set()
    for raw in (out or b"").split(b"\0"):
        name = PurePosixPath(raw.decode("utf-8", "replace").strip("\n"))
        if len(name.parts) != len(rel.parts) + 2 or name.parts[:len(rel.parts)] != rel.parts or name.suffix != ".yaml":
            continue
        collection = name.parts[-2]
        if collection in COLLECTIONS:
            found.add((collection, name.stem))
    return frozenset(found)
