"""``python -m selector freshness``: compare each engine's stated latest release with its upstream feed.

Where an engine's releases are published is data (``status.release_feed``: a GitHub repository's releases
or a PyPI project). The check reads each feed (standard-library HTTP with a timeout, or a recorded set of
answers with ``--offline``), picks the newest stable release (drafts, pre-releases and yanked versions are
skipped and said so), and compares it with ``status.latest_version`` and ``status.released``. It never edits
data; with ``--open-issues`` it opens or updates one GitHub issue per engine that is behind.

Exit codes: 0 every feed read agrees with the data; 1 at least one engine is behind; 3 none is behind but
a feed could not be read (timeout, HTTP error, malformed answer); 2 bad input (options, the --offline file).
"""

import json
import os
import re
import socket
import urllib.error
import urllib.request
from datetime import date

TIMEOUT_S = 10
MAX_BYTES = 8 * 1024 * 1024  # a PyPI answer for a project with thousands of files stays well below this
EXIT_CURRENT, EXIT_BEHIND, EXIT_BAD_INPUT, EXIT_UNREADABLE = 0, 1, 2, 3
ISSUE_PREFIX = "[freshness] "
ISSUE_MARKER = "<!-- freshness:{engine} -->"
_PRE = re.compile(r"(?:a|alpha|b|beta|c|rc|pre|preview|dev)\.?\d*(?:$|[^a-z])", re.I)


class FeedError(Exception):
    """A feed that could not be read or understood; the message is one line for the report."""


class InputError(Exception):
    """Bad input to the command (the --offline file); the message is one line."""


# -- versions ----------------------------------------------------------------------------------------------

def normalize(version):
    """``v0.35.0`` and ``0.35.0`` name the same release."""
    version = str(version).strip()
    return version[1:] if version[:1] in ("v", "V") and version[1:2].isdigit() else version


def version_key(version):
    """A sort key: the numeric release segments (``b10240`` counts as 10240)."""
    return tuple(int(n) for n in re.findall(r"\d+", normalize(version).split("+")[0].split("-")[0]) or [0])


def is_prerelease(version):
    """PEP 440 and semver pre-releases: 1.0rc1, 1.0.0-rc.1, 0.3.0.dev20260822, 2.0b2 (not 0.9.0.post1)."""
    tail = re.sub(r"^(?:[vV]?\d+(?:\.\d+)*|b\d+)", "", str(version))  # b10240: a llama.cpp build tag
    return bool(tail) and bool(_PRE.search(tail.lstrip(".-_")))


# -- feeds ---------------------------------------------------------------------------------------------------

def feed_url(feed):
    if "github" in feed:
        return f"https://api.github.com/repos/{feed['github']}/releases?per_page=30"
    return f"https://pypi.org/pypi/{feed['pypi']}/json"


def release_page(feed, version):
    if "github" in feed:
        return f"https://github.com/{feed['github']}/releases/tag/{version}"
    return f"https://pypi.org/project/{feed['pypi']}/{version}/"


def newest_github(answer):
    """(version, day, skipped) from a GitHub ``/releases`` answer: the newest published stable release."""
    if not isinstance(answer, list):
        raise FeedError("the answer is not a list of releases as GitHub's /releases API gives")
    stable, skipped = [], []
    for rel in answer:
        if not isinstance(rel, dict) or not isinstance(rel.get("tag_name"), str):
            raise FeedError("a release in the answer has no tag_name")
        day = str(rel.get("published_at") or rel.get("created_at") or "")[:10]
        if rel.get("draft"):
            continue
        if rel.get("prerelease") or is_prerelease(rel["tag_name"]):
            skipped.append(f"{rel['tag_name']} (pre-release)")
            continue
        stable.append((version_key(rel["tag_name"]), day, rel["tag_name"]))
    if not stable:
        raise FeedError("the feed lists no stable release" + (f" (only {', '.join(skipped[:3])})" if skipped else ""))
    _, day, tag = max(stable)
    return tag, day or None, [s for s in skipped if version_key(s.split(" ")[0]) > version_key(tag)]


def newest_pypi(answer):
    """(version, day, skipped) from PyPI's JSON API: the highest version with a file that is not yanked."""
    if not isinstance(answer, dict) or not isinstance(answer.get("releases"), dict):
        raise FeedError("the answer has no `releases` mapping as PyPI's JSON API gives")
    stable, skipped = [], []
    for version, files in answer["releases"].items():
        if not isinstance(files, list):
            raise FeedError(f"release {version!r} in the answer is not a list of files")
        live = [f for f in files if isinstance(f, dict) and not f.get("yanked")]
        if not live:
            if files:
                skipped.append(f"{version} (yanked)")
            continue
        if is_prerelease(version):
            skipped.append(f"{version} (pre-release)")
            continue
        day = min(str(f.get("upload_time_iso_8601") or f.get("upload_time") or "")[:10] for f in live)
        stable.append((version_key(version), day, version))
    if not stable:
        raise FeedError("the project lists no stable release that is not yanked")
    _, day, version = max(stable)
    return version, day or None, [s for s in skipped if version_key(s.split(" ")[0]) > version_key(version)]


# -- reading answers ---------------------------------------------------------------------------------------

def live_fetch(url, timeout=TIMEOUT_S, token=None):
    """The JSON at ``url`` (standard library only); a FeedError with one line for anything else."""
    headers = {"Accept": "application/vnd.github+json" if "api.github.com" in url else "application/json",
               "User-Agent": "inference-engine-map-freshness"}
    if token and url.startswith("https://api.github.com/"):
        headers["Authorization"] = f"Bearer {token}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as resp:
            body = resp.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise FeedError(f"HTTP {exc.code} from {url}") from None
    except (TimeoutError, socket.timeout):
        raise FeedError(f"timed out after {timeout} s reading {url}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise FeedError(f"timed out after {timeout} s reading {url}") from None
        raise FeedError(f"could not reach {url}: {reason}") from None
    return _decode(body, url)


def _decode(body, url):
    if len(body) > MAX_BYTES:
        raise FeedError(f"the answer from {url} is larger than {MAX_BYTES // 2**20} MiB")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise FeedError(f"the answer from {url} is not JSON") from None


def load_recording(path):
    """``{url: answer}`` from a recorded file: ``{"answers": {url: {"json": ...} | {"body": text} |
    {"status": 404} | {"timeout": true}}}``. Bad files raise InputError with one line."""
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as exc:
        raise InputError(f"--offline: cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"--offline: {path} is not UTF-8 text") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InputError(f"--offline: {path} is not JSON (line {exc.lineno}: {exc.msg})") from None
    answers = doc.get("answers") if isinstance(doc, dict) else None
    if not isinstance(answers, dict) or not all(isinstance(v, dict) for v in answers.values()):
        raise InputError(f"--offline: {path} must be an object with `answers`: {{url: {{json|body|status|timeout}}}}")
    return answers


def recorded_fetch(answers, timeout=TIMEOUT_S):
    def fetch(url):
        if url not in answers:
            raise FeedError(f"no recorded answer for {url}")
        rec = answers[url]
        if rec.get("timeout"):
            raise FeedError(f"timed out after {timeout} s reading {url}")
        status = rec.get("status", 200)
        if status != 200:
            raise FeedError(f"HTTP {status} from {url}")
        if "json" in rec:
            return rec["json"]
        return _decode(str(rec.get("body", "")).encode("utf-8"), url)
    return fetch


# -- the comparison ----------------------------------------------------------------------------------------

def check_engine(engine, fetch):
    """One engine's row of the report, with a ``line`` a person reads."""
    status = engine["status"]
    row = {"engine": engine["id"], "name": engine["name"],
           "data": {"version": status["latest_version"], "released": status["released"], "verified": engine["verified"]}}
    feed = status.get("release_feed")
    if not feed:
        row.update(state="no-feed", line=f"{engine['id']}: no releases feed in the data (status.release_feed); "
                                         f"{status['latest_version']} is checked by hand")
        return row
    url = feed_url(feed)
    row["feed"] = url
    try:
        answer = fetch(url)
        version, day, skipped = (newest_github if "github" in feed else newest_pypi)(answer)
    except FeedError as exc:
        row.update(state="unreadable", line=f"{engine['id']}: could not read the feed: {exc}")
        return row
    row["upstream"] = {"version": version, "released": day, "url": release_page(feed, version)}
    skipped = sorted(skipped, key=lambda s: version_key(s.split(" ")[0]), reverse=True)
    ignored = f"; ignored {', '.join(skipped[:3])}" + (f" and {len(skipped) - 3} more" if len(skipped) > 3 else "") if skipped else ""
    if skipped:
        row["ignored"] = skipped
    data_v = status["latest_version"]
    if normalize(version) == normalize(data_v):
        row.update(state="current", line=f"{engine['id']}: current at {data_v} ({day or 'date not given'}){ignored}")
    elif version_key(version) > version_key(data_v):
        row.update(state="behind", line=f"{engine['id']}: behind: upstream {version} ({day or 'date not given'}), "
                                        f"data says {data_v} ({status['released']}){ignored}")
    else:
        row.update(state="differs", line=f"{engine['id']}: the data names {data_v}, newer than the feed's newest stable "
                                         f"{version} ({day or 'date not given'}); check the feed or the data{ignored}")
    return row


def report(catalog, fetch, engines=None, today=None):
    rows = [check_engine(catalog.engines[e], fetch) for e in sorted(engines or catalog.engines)]
    states = [r["state"] for r in rows]
    code = EXIT_BEHIND if "behind" in states else EXIT_UNREADABLE if "unreadable" in states else EXIT_CURRENT
    counts = {s: states.count(s) for s in ("current", "behind", "differs", "unreadable", "no-feed")}
    return {"checked": (today or date.today()).isoformat(), "exit": code, "counts": counts, "engines": rows}


# -- issues ------------------------------------------------------------------------------------------------

def issue_text(row):
    """Title and body of the one issue kept per engine that is behind (the marker finds it again)."""
    up, data = row["upstream"], row["data"]
    title = f"{ISSUE_PREFIX}{row['engine']}: {up['version']} is out (data says {data['version']})"
    body = "\n".join([
        ISSUE_MARKER.format(engine=row["engine"]),
        f"The scheduled upstream check found a newer release of {row['name']} than `data/engines/{row['engine']}.yaml` states.",
        "",
        f"- upstream: {up['version']} ({up['released'] or 'date not given'}), {up['url']}",
        f"- data: `status.latest_version` {data['version']}, `status.released` {data['released']}, `verified` {data['verified']}",
        f"- feed: {row['feed']}",
        "",
        "Read the release notes, update `status` (latest_version, released, release_source) and any fact the "
        "release changes, with sources. This issue is updated by the check and never edits data itself.",
    ])
    return title, body


def github_api(token, timeout=TIMEOUT_S):
    """``call(method, path, payload=None) -> JSON`` on api.github.com with the workflow's token."""
    def call(method, path, payload=None):
        data = json.dumps(payload).encode("utf-8") if payload is not None else None
        req = urllib.request.Request(f"https://api.github.com{path}", data=data, method=method, headers={
            "Accept": "application/vnd.github+json", "Authorization": f"Bearer {token}",
            "User-Agent": "inference-engine-map-freshness", "X-GitHub-Api-Version": "2022-11-28",
            **({"Content-Type": "application/json"} if data else {})})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return _decode(resp.read(MAX_BYTES + 1), path)
        except urllib.error.HTTPError as exc:
            raise FeedError(f"GitHub answered HTTP {exc.code} to {method} {path}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise FeedError(f"could not reach GitHub for {method} {path}: {getattr(exc, 'reason', exc)}") from None
    return call


def sync_issues(rows, repo, call):
    """Open or update one issue per engine that is behind; returns ``[(engine, action, number)]``."""
    behind = [r for r in rows if r["state"] == "behind"]
    if not behind:
        return []
    open_issues = []
    for page in range(1, 11):  # at most 1,000 open issues are looked through
        batch = call("GET", f"/repos/{repo}/issues?state=open&per_page=100&page={page}")
        if not isinstance(batch, list):
            raise FeedError(f"GitHub's issue list for {repo} is not a list")
        open_issues += [i for i in batch if isinstance(i, dict) and "pull_request" not in i]
        if len(batch) < 100:
            break
    done = []
    for row in behind:
        title, body = issue_text(row)
        marker = ISSUE_MARKER.format(engine=row["engine"])
        found = next((i for i in open_issues if marker in (i.get("body") or "")
                      or str(i.get("title", "")).startswith(f"{ISSUE_PREFIX}{row['engine']}:")), None)
        if found is None:
            made = call("POST", f"/repos/{repo}/issues", {"title": title, "body": body})
            done.append((row["engine"], "opened", made.get("number") if isinstance(made, dict) else None))
        elif found.get("title") != title or found.get("body") != body:
            call("PATCH", f"/repos/{repo}/issues/{found['number']}", {"title": title, "body": body})
            done.append((row["engine"], "updated", found["number"]))
        else:
            done.append((row["engine"], "unchanged", found["number"]))
    return done


def issue_settings(environ=None):
    """(repository, token) from the workflow's environment, or an InputError naming what is missing."""
    environ = os.environ if environ is None else environ
    repo, token = environ.get("GITHUB_REPOSITORY", ""), environ.get("GITHUB_TOKEN", "")
    missing = [n for n, v in (("GITHUB_REPOSITORY", repo), ("GITHUB_TOKEN", token)) if not v]
    if missing:
        raise InputError(f"--open-issues: {' and '.join(missing)} not set; the workflow passes its own token "
                         "(permissions: issues: write)")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*", repo):
        raise InputError(f"--open-issues: GITHUB_REPOSITORY {repo!r} is not owner/name")
    return repo, token
