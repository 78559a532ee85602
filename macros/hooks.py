"""MkDocs hooks: validate data, add one page per engine, and ship runtime files.

- on_config: the build fails (with file, field and fix) if ``data/`` is invalid;
  each engine gets a nav entry under "Engines".
- on_files: generated pages ``engines/<id>.md``; ``api/catalog.json`` (everything),
  ``assets/selector/catalog.json`` (what the selector reads); the selector wheel;
  the JSON Schemas under ``schema/``; Pyodide from ``node_modules``.
- on_page_markdown, on_post_page: the build fails on an inline script or event handler; every page gets
  the one Content-Security-Policy.
"""

import html
from html.parser import HTMLParser
import json
import os
import re
import stat
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # hooks load by file path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

from datatools.files import refusal
from macros import site
from macros.templating import render


# -- what the build may read ---------------------------------------------------------------------
# Git stores symbolic links, so a pull request could link a page asset to .git/config (with the checkout
# token) or /proc/self/environ. Everything the build publishes or renders must be a regular file reached
# through real folders of the repository; data/ is refused the same way by datatools.files.
READ_FOLDERS = ("macros/templates", "selector")  # the pages' templates; the selector wheel's sources
READ_FILES = ("CONTRIBUTING.md",)  # the contributing page (macros.contributing)
SITE_FILES = "the site's files"


def _inside(root, path, what, folder=True):
    """``path`` as a path relative to ``root``, or PluginError if it lies outside the repository, is the
    repository itself, is hidden (.git) or is reached through a link."""
    rel = Path(os.path.relpath(os.path.abspath(os.path.join(root, path)), root))
    if rel == Path(".") or rel.parts[0] == ".." or any(part.startswith(".") for part in rel.parts):
        kind = "folder" if folder else "file"
        raise PluginError(f"mkdocs.yml: {what}: {path!s} is not allowed; use a {kind} inside the repository, "
                          "not hidden and not the repository itself")
    node = Path(root)
    for part in rel.parts[:-1] if rel != Path(".") else ():
        node = node / part
        if stat.S_ISLNK(os.lstat(node).st_mode):
            raise PluginError(f"{node.relative_to(root).as_posix()}: {refusal(stat.S_IFLNK, 'the repository', SITE_FILES)}")
    return rel


def unsafe_files(root, folders, files):
    """One line for each link, pipe or device in ``folders`` (walked without following links) and among
    ``files`` (paths relative to ``root``, which must be inside it)."""
    found = []
    for folder in folders:
        top = Path(root) / folder
        shown = folder.as_posix() + "/"
        try:
            mode = os.lstat(top).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISDIR(mode):
            found.append(f"{folder.as_posix()}: {refusal(mode, 'the repository', SITE_FILES) or 'is not a folder'}")
            continue
        for dirpath, dirs, names in os.walk(top, followlinks=False):
            for name in sorted(dirs + names):
                path = os.path.join(dirpath, name)
                mode = os.lstat(path).st_mode
                why = None if stat.S_ISDIR(mode) else refusal(mode, shown, SITE_FILES)
                if why:
                    found.append(f"{Path(path).relative_to(root).as_posix()}: {why}")
    for rel in files:
        try:
            mode = os.lstat(Path(root) / rel).st_mode
        except FileNotFoundError:
            continue
        if why := refusal(mode, "the repository", SITE_FILES):
            found.append(f"{rel.as_posix()}: {why}")
    return found


def check_read_paths(config):
    """Fail the build, one line per file, on anything it would read that is not a regular file of the
    repository: under docs_dir and the theme's custom_dir, every folder and file a macro or Markdown
    extension may include, the templates, the selector's sources and CONTRIBUTING.md."""
    root = Path(os.path.abspath(config["config_file_path"])).parent
    folders = [_inside(root, config["docs_dir"], "docs_dir")]
    if config["theme"].custom_dir:
        folders.append(_inside(root, config["theme"].custom_dir, "theme.custom_dir"))
    macros = config["plugins"].get("macros")
    if macros is not None:
        if macros.config.get("include_dir"):
            folders.append(_inside(root, macros.config["include_dir"], "plugins.macros.include_dir"))
        files = [_inside(root, f, "plugins.macros.include_yaml", folder=False)
                 for item in macros.config.get("include_yaml") or []
                 for f in (item.values() if isinstance(item, dict) else [item])]
    else:
        files = []
    snippets = config["mdx_configs"].get("pymdownx.snippets")
    if "pymdownx.snippets" in config["markdown_extensions"]:
        snippets = snippets or {}
        if snippets.get("url_download"):
            raise PluginError("mkdocs.yml: pymdownx.snippets: url_download must stay off (the build reads no network)")
        bases = snippets.get("base_path", ["."])
        for base in [bases] if isinstance(bases, str) else bases:
            folders.append(_inside(root, base, "pymdownx.snippets.base_path"))
    folders += [_inside(root, f, "build folder") for f in READ_FOLDERS]
    files += [_inside(root, f, "build file", folder=False) for f in READ_FILES]
    files.append(_inside(root, Path(config["config_file_path"]).name, "config file", folder=False))  # read already: fail now
    found = unsafe_files(root, folders, files)
    if found:
        raise PluginError("\n".join(found))


@event_priority(100)  # before any plugin reads a page, an include or a template
def on_config(config):
    check_read_paths(config)
    try:
        cat = site.catalog()
    except site.DataError as exc:
        raise PluginError(str(exc)) from None
    nav = config.get("nav") or []
    for item in nav:
        if isinstance(item, dict) and "Engines" in item:
            pages = [{"All systems": "engines/index.md"}]
            order = {"L1": 1, "L1.5": 2, "L2": 3, "L3": 4}
            for e in sorted(cat.engines.values(), key=lambda e: (order[e["tier"]], e["name"].lower())):
                pages.append({title_html(e["name"]): f"engines/{e['id']}.md"})
            item["Engines"] = pages
    return config


def title_html(text):
    """A data name as a page/nav title: Material prints titles as HTML and mkdocs-macros renders any
    title holding Jinja, so escape both (``{`` as an entity keeps ``{{ }}`` literal)."""
    return html.escape(text, quote=True).replace("{", "&#123;").replace("}", "&#125;")


def _description(engine, limit=160):
    """The engine's one-sentence positioning as its page's meta description (search snippets)."""
    text = " ".join(str(engine.get("positioning") or engine["name"]).split())
    if len(text) > limit:
        text = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return text


def _generated(config, path, content):
    return File.generated(config, path, content=content)


# The content-addressed folders this build wrote, for _headers.
_build = {"immutable_dirs": set()}


def on_pre_build(config):
    site.clear_stash()
    _build["immutable_dirs"].clear()
    check_markdown_file(site.ROOT / "CONTRIBUTING.md")  # included in docs/contributing.md by a macro


def on_files(files, config):
    cat = site.catalog()
    for engine_id in sorted(cat.engines):
        if not site.ID_RE.fullmatch(engine_id):  # the schema's pattern may be edited; this check is not data
            raise PluginError(f"data/engines/{engine_id!r}: engine ids are lowercase letters, digits, dots and hyphens")
        # The page source is constant: the macro finds its engine from the file name, so no id or name
        # ever becomes template source. Front matter holds the title as a JSON string (YAML reads it as
        # text); Material prints titles as HTML, hence title_html.
        front = (f"---\ntitle: {json.dumps(title_html(cat.engines[engine_id]['name']))}\n"
                 f"description: {json.dumps(title_html(_description(cat.engines[engine_id])))}\n---\n")
        files.append(_generated(config, f"engines/{engine_id}.md", front + "{{ engine_page() }}\n"))
    files.append(_generated(config, "api/catalog.json", site.catalog_json(cat)))
    for schema in sorted((site.DATA / "schema").glob("*.schema.json")):
        files.append(File.generated(config, f"schema/{schema.name}", abs_src_path=str(schema)))
    nm = site.node_modules()
    missing = [str(p) for p in [nm / "pyodide" / name for name in site.PYODIDE_FILES] if not p.is_file()]
    if missing:
        raise PluginError("runtime files missing (run `npm ci`): " + ", ".join(missing))
    # The worker's runtime (wheel, catalog, Pyodide) sits under folders named by their content hash, so
    # those may be cached for good; the manifest that names them keeps its name and is revalidated.
    runtime, manifest = site.runtime_files(cat, nm / "pyodide")
    for path, data in runtime:
        if isinstance(data, Path):
            files.append(File.generated(config, path, abs_src_path=str(data)))
        else:
            files.append(_generated(config, path, data))
        _build["immutable_dirs"].add(path.rsplit("/", 1)[0])
    files.append(_generated(config, "assets/selector/manifest.json", json.dumps(manifest, sort_keys=True)))
    return files


# -- Content-Security-Policy ------------------------------------------------------------------
# One policy for every page: scripts only from files of this origin (Pyodide needs 'wasm-unsafe-eval'),
# styles from files too.
CSP_BASE = {
    "default-src": ["'self'"],
    "script-src": ["'self'", "'wasm-unsafe-eval'"],
    "worker-src": ["'self'"],
    "connect-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "style-src": ["'self'"],
    "font-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
}
# The only <script> elements without src a page may hold, by id: JSON data, which no browser runs.
DATA_SCRIPTS = {"__config": "Material's configuration (base URL, search worker, translations), read by its bundle"}
MARKDOWN_SCRIPT = re.compile(r"<\s*script\b", re.I)
# an on...= attribute in a raw HTML tag or an attribute list ({: onclick=...}, the attr_list extension)
MARKDOWN_HANDLER = re.compile(r"(?:<[a-z][^>]*|\{[^}\n]*)(?<![\w-])(on[a-z]+)\s*=", re.I)
# fenced blocks, and code spans (which end at a blank line, as in Markdown)
MARKDOWN_CODE = re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$|(`+)(?!`)(?:(?!\n[ \t]*\n).)+?(?<!`)\2(?!`)", re.M | re.S)


CSP = "; ".join(" ".join([key] + values) for key, values in CSP_BASE.items())


def markdown_script_problem(text):
    """What in a Markdown source would become an inline script or event handler, as "line N: what"; None if clean.
    Code spans and fenced blocks are text, not markup."""
    text = MARKDOWN_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for pattern, what in ((MARKDOWN_SCRIPT, "a script element"), (MARKDOWN_HANDLER, "an event handler attribute")):
        found = pattern.search(text)
        if found:
            name = f" ({found.group(1)}=)" if found.groups() else ""
            return f"line {text.count(chr(10), 0, found.start()) + 1}: {what}{name}"
    return None


class _PageScan(HTMLParser):
    """Inline scripts and event handler attributes of a finished page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        handlers = sorted(k for k in attrs if k.startswith("on"))
        if handlers:
            self.problems.append(f"an event handler attribute ({tag} {handlers[0]}=)")
        if tag.rpartition(":")[2] == "script" and "src" not in attrs:  # x:script: the XHTML namespace in XML
            if attrs.get("type") != "application/json" or attrs.get("id") not in DATA_SCRIPTS:
                self.problems.append(f"an inline script element (id={attrs.get('id')!r}, type={attrs.get('type')!r})")


def _scan(html):
    parser = _PageScan()
    parser.feed(html)
    parser.close()
    return parser


def check_markdown_file(path):
    problem = markdown_script_problem(path.read_text(encoding="utf-8"))
    if problem:
        raise PluginError(f"{path.name}: {problem}; scripts come from files (see CSP_BASE in macros/hooks.py)")


def on_page_markdown(markdown, page, config, files):
    problem = markdown_script_problem(page.file.content_string)  # the source as written, front matter included
    if problem:
        raise PluginError(f"docs/{page.file.src_uri}: {problem}; scripts come from files (see CSP_BASE in macros/hooks.py)")
    return markdown


def on_page_content(html, page, config, files):
    """Put the markup the macros rendered in place of their placeholders, after Markdown has run."""
    try:
        return site.unstash(html)
    except site.DataError as exc:
        raise PluginError(str(exc)) from None


def on_post_page(output, page, config):
    scan = _scan(output)
    if scan.problems:
        name = f"docs/{page.file.src_uri}" if page and page.file else "theme page"
        raise PluginError(f"{name}: {scan.problems[0]} in the built page; scripts come from files (see CSP_BASE in macros/hooks.py)")
    meta = render("csp-meta.html", policy=CSP)
    return output.replace("<head>", "<head>\n" + meta, 1)


def on_post_template(output, template_name, config):
    """The theme's own pages (404.html) are not `pages`; they get the same policy and count toward _headers."""
    if template_name.endswith(".html") and "<head>" in output:
        return on_post_page(output, None, config)
    return output


# -- _headers ----------------------------------------------------------------------------------
# Material's own bundles carry a hash of their content in their names (bundle.a5f9d56c.min.js).
MATERIAL_HASHED = re.compile(r"assets/(?:javascripts|stylesheets)/(?:workers/)?[a-z]+\.[0-9a-f]{8}\.min\.(?:js|css)(?:\.map)?")
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


def cache_control(rel, immutable_dirs):
    """Cache-Control for a file of the site (path relative to the site folder)."""
    folder = rel.rpartition("/")[0]
    hashed = any(folder == d or folder.startswith(d + "/") for d in immutable_dirs) or MATERIAL_HASHED.fullmatch(rel)
    return IMMUTABLE if hashed else REVALIDATE


def header_rules(site_dir, classify, may_group=lambda folder, klass: True):
    """Rules (URL pattern, class) that cover every file under ``site_dir`` with exactly one pattern each.

    ``classify(rel)`` gives a file its class (the headers it needs). A folder whose files all share one
    class gets one ``/folder/*`` rule if ``may_group(folder, class)``; otherwise each file gets its own
    rule and each sub-folder is looked at the same way. An ``index.html`` with its own rule also gets one
    for its folder's URL. Hosts apply every rule whose pattern matches and join the values of a header
    set twice, so rules must not overlap."""
    site_dir = Path(site_dir)
    classes = {p.relative_to(site_dir).as_posix(): None for p in site_dir.rglob("*") if p.is_file()}
    for rel in classes:
        classes[rel] = classify(rel)
    rules = []

    def visit(folder, prefix):
        inside = {classes[rel] for rel in classes if rel.startswith(prefix)}
        if prefix and len(inside) == 1 and may_group(prefix.rstrip("/"), next(iter(inside))):
            rules.append((f"/{prefix}*", inside.pop()))
            return
        for item in sorted(folder.iterdir()):
            rel = prefix + item.name
            if item.is_dir():
                visit(item, rel + "/")
            elif rel in classes:
                if item.name == "index.html":
                    rules.append((f"/{prefix}", classes[rel]))
                rules.append((f"/{rel}", classes[rel]))

    visit(site_dir, "")
    return rules


HEADERS_INTRO = """\
# Response headers for hosts that read a _headers file (Netlify, Cloudflare Pages), written by
# macros/hooks.py at build time. GitHub Pages ignores this file; the pages' meta-tag policy still applies.
#
# Every URL of the site matches exactly one of the path rules below (hosts join the values of a header
# that several matching rules set, which would turn "immutable" plus "no-cache" into nonsense), plus /*
# for the headers every response shares, the one Content-Security-Policy among them.
#
# Cache-Control: "immutable" only for files whose path carries a hash of their content: the folders
# assets/selector/<sha256>/ (selector wheel, catalog), assets/pyodide/<sha256>/ (Pyodide) and
# Material's bundle.<hash>.min.js and the like. Everything else
# (pages, assets/selector/manifest.json, site.js, the worker, api/catalog.json, search index) is
# "no-cache": revalidated on every use, so a deploy reaches every reader at once.
#
# Content-Security-Policy: the policy of every page's meta tag plus frame-ancestors, which a meta tag cannot
# set; the header also covers the selector's worker, which a meta tag does not.
"""


def write_headers(site_dir, immutable_dirs):
    site_dir = Path(site_dir)

    def classify(rel):
        return cache_control(rel, immutable_dirs)

    def may_group(folder, klass):  # an immutable rule always names a content hash, in its folder or file name
        return klass != IMMUTABLE or folder in immutable_dirs

    lines = [HEADERS_INTRO, "/*\n  X-Content-Type-Options: nosniff\n  Referrer-Policy: strict-origin-when-cross-origin\n"
             f"  Content-Security-Policy: {CSP}; frame-ancestors 'none'\n"]
    for pattern, cache in header_rules(site_dir, classify, may_group):
        lines.append(f"{pattern}\n  Cache-Control: {cache}\n")
    (site_dir / "_headers").write_text("\n".join(lines), encoding="utf-8")


def check_site_files(site_dir):
    """A file copied from docs/ as it is gets no policy of its own: an HTML file must have come through
    on_post_page, and an SVG or XML file (a browser runs scripts in those too) may hold no script."""
    for path in sorted(Path(site_dir).rglob("*")):
        suffix = path.suffix.lower()
        if suffix in (".html", ".htm", ".xhtml") and 'http-equiv="Content-Security-Policy"' not in path.read_text(encoding="utf-8"):
            raise PluginError(f"{path.relative_to(site_dir)}: an HTML file that is not a page, without the site's "
                              "policy; write it as a Markdown page")
        if suffix in (".svg", ".xml", ".xhtml"):
            text = path.read_text(encoding="utf-8")
            problems = _scan(text).problems if re.search(r"<\s*(?:[\w-]+:)?script\b|\son[a-z]+\s*=", text, re.I) else []
            if suffix == ".svg" and re.search(r"javascript\s*:", text, re.I):
                problems.append("a javascript: link")
            if problems:
                raise PluginError(f"{path.relative_to(site_dir)}: {problems[0]}; scripts come from files (see CSP_BASE in macros/hooks.py)")


def on_post_build(config):
    """Header form of the policy and the caching rules, for hosts that read a _headers file."""
    check_site_files(config["site_dir"])
    write_headers(config["site_dir"], _build["immutable_dirs"])
