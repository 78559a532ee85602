"""MkDocs hooks: validate data, add one page per engine, and ship runtime files.

- on_config: the build fails (with file, field and fix) if ``data/`` is invalid;
  each engine gets a nav entry under "Engines".
- on_files: generated pages ``engines/<id>.md``; ``api/catalog.json`` (everything),
  ``assets/selector/catalog.json`` (what the selector reads); the selector wheel;
  the JSON Schemas under ``schema/``; Pyodide and Mermaid from ``node_modules``.
"""

import base64
import hashlib
import html
from html.parser import HTMLParser
import json
import os
import re
import stat
import sys
import textwrap
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
    # The site's stylesheet is published under a folder named by its content hash (immutable, like the
    # runtime): the head of every page can then give its link the absolute address Material's bundle
    # would give it later, at no cost (see docs/overrides/main.html).
    source = Path(config["docs_dir"]) / SITE_CSS
    if SITE_CSS in config["extra_css"] and source.is_file():
        folder = f"{SITE_CSS_FOLDER}/{site.content_hash([('site.css', source)])}"
        config["extra_css"] = [f"{folder}/site.css" if c == SITE_CSS else c for c in config["extra_css"]]
        _site_css["folder"], _site_css["source"] = folder, source
    return config


SITE_CSS = "assets/stylesheets/site.css"
SITE_CSS_FOLDER = "assets/style"
_site_css = {"folder": None, "source": None}


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


# What this build wrote where, for the templates (docs/overrides/main.html reads config.extra.iem) and
# for _headers: content-addressed folders, and the pages that need inline styles.
_build = {"immutable_dirs": set(), "inline_style_pages": [], "pyodide": None, "theme_bundle": None}


THEME_BUNDLE_RE = re.compile(r"assets/javascripts/bundle\.[0-9a-f]+\.min\.js")


def on_pre_build(config):
    site.clear_stash()
    _build["immutable_dirs"].clear()
    _build["inline_style_pages"].clear()
    _build["pyodide"] = None
    _build["theme_bundle"] = None
    _all_hashes.clear()
    config.extra["iem"] = _build


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
    if _site_css["folder"]:
        files.remove(files.get_file_from_path(SITE_CSS))
        files.append(File.generated(config, f"{_site_css['folder']}/site.css", abs_src_path=str(_site_css["source"])))
        _build["immutable_dirs"].add(_site_css["folder"])
    for schema in sorted((site.DATA / "schema").glob("*.schema.json")):
        files.append(File.generated(config, f"schema/{schema.name}", abs_src_path=str(schema)))
    nm = site.node_modules()
    mermaid = nm / "mermaid" / "dist" / "mermaid.min.js"
    missing = [str(p) for p in [nm / "pyodide" / name for name in site.PYODIDE_FILES] + [mermaid] if not p.is_file()]
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
    _build["pyodide"] = "assets/" + manifest["pyodide"].removeprefix("../")
    files.append(File.generated(config, "assets/vendor/mermaid.min.js", abs_src_path=str(mermaid)))
    # Material's bundle, by its content-hashed name, for the pages that load it on the first interaction
    # (front matter `theme_script: on-interaction`; see docs/overrides/main.html)
    bundles = [f.src_uri for f in files if THEME_BUNDLE_RE.fullmatch(f.src_uri)]
    if len(bundles) != 1:
        raise PluginError(f"expected one Material bundle (assets/javascripts/bundle.<hash>.min.js), found {bundles}")
    _build["theme_bundle"] = bundles[0]
    return files


# -- Content-Security-Policy ------------------------------------------------------------------
# Only this origin; Pyodide needs 'wasm-unsafe-eval'; Material's few inline scripts are allowed by
# their hashes (computed per page below), not by 'unsafe-inline'. Styles come from files only, except on
# pages that draw a Mermaid diagram (see INLINE_STYLE_WHY).
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
INLINE_STYLE_WHY = (
    "style-src 'unsafe-inline' only where a page draws a Mermaid diagram (the decision tree): Mermaid writes a "
    "style element and style attributes into the SVG it draws, with ids that change on every render, so no "
    "hash can allow them. Material and the site's own scripts set styles through the CSSOM only, which the "
    "policy does not restrict. A document keeps the policy it was loaded with through Material's instant "
    "navigation, so docs/overrides/main.html has those pages always loaded in full.")


class _PageScan(HTMLParser):
    """Collects the text of inline scripts (no ``src``, not JSON data) exactly as the page holds it, and
    notes whether the page has a diagram that Mermaid will draw."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.bodies, self._open, self.diagram = [], None, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("data-diagram") == "mermaid":
            self.diagram = True
        if tag == "script":
            inline = "src" not in attrs and "json" not in (attrs.get("type") or "")
            self._open = [] if inline else None

    def handle_data(self, data):
        if self._open is not None:
            self._open.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._open is not None:
            body = "".join(self._open)
            if body.strip():
                self.bodies.append(body)
            self._open = None


def _scan(html):
    parser = _PageScan()
    parser.feed(html)
    parser.close()
    return parser


def inline_script_hashes(html):
    return sorted({"'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
                   for body in _scan(html).bodies})


def needs_inline_styles(html):
    return _scan(html).diagram


def csp_policy(hashes=(), inline_styles=False):
    parts = []
    for key, values in CSP_BASE.items():
        extra = list(hashes) if key == "script-src" else []
        if key == "style-src" and inline_styles:
            extra = ["'unsafe-inline'"]
        parts.append(" ".join([key] + values + extra))
    return "; ".join(parts)


_all_hashes = set()


def on_page_content(html, page, config, files):
    """Put the markup the macros rendered in place of their placeholders, after Markdown has run.

    Every page's content is ready before the first page is rendered into the theme, so the list of pages
    that need inline styles is complete when main.html reads it."""
    try:
        html = site.unstash(html)
    except site.DataError as exc:
        raise PluginError(str(exc)) from None
    if needs_inline_styles(html) and page.url not in _build["inline_style_pages"]:
        _build["inline_style_pages"].append(page.url)
    return html


def on_post_page(output, page, config):
    scan = _scan(output)
    hashes = inline_script_hashes(output)
    _all_hashes.update(hashes)
    meta = render("csp-meta.html", policy=csp_policy(hashes, inline_styles=scan.diagram))
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
# for the headers every response shares.
#
# Cache-Control: "immutable" only for files whose path carries a hash of their content: the folders
# assets/selector/<sha256>/ (selector wheel, catalog), assets/pyodide/<sha256>/ (Pyodide),
# assets/style/<sha256>/ (site.css) and Material's bundle.<hash>.min.js and the like. Everything else
# (pages, assets/selector/manifest.json, site.js, the worker, api/catalog.json, search index) is
# "no-cache": revalidated on every use, so a deploy reaches every reader at once.
#
# Content-Security-Policy: the pages' meta-tag policy (all their inline-script hashes) plus frame-ancestors,
# which a meta tag cannot set; the header also covers the selector's worker, which a meta tag does not.
"""


def write_headers(site_dir, immutable_dirs, inline_style_pages, hashes):
    site_dir = Path(site_dir)
    lenient = {(url + "index.html") if url.endswith("/") or not url else url for url in inline_style_pages}
    policies = {False: csp_policy(hashes) + "; frame-ancestors 'none'",
                True: csp_policy(hashes, inline_styles=True) + "; frame-ancestors 'none'"}

    def classify(rel):
        return cache_control(rel, immutable_dirs), rel in lenient

    def may_group(folder, klass):  # an immutable rule always names a content hash, in its folder or file name
        return klass[0] != IMMUTABLE or folder in immutable_dirs

    lines = [HEADERS_INTRO]
    if inline_style_pages:
        lines.append("# " + "\n# ".join(textwrap.wrap(INLINE_STYLE_WHY, 100)) + "\n")
    lines.append("/*\n  X-Content-Type-Options: nosniff\n  Referrer-Policy: strict-origin-when-cross-origin\n")
    for pattern, (cache, inline_styles) in header_rules(site_dir, classify, may_group):
        lines.append(f"{pattern}\n  Cache-Control: {cache}\n  Content-Security-Policy: {policies[inline_styles]}\n")
    (site_dir / "_headers").write_text("\n".join(lines), encoding="utf-8")


def on_post_build(config):
    """Header form of the policy and the caching rules, for hosts that read a _headers file."""
    write_headers(config["site_dir"], _build["immutable_dirs"], _build["inline_style_pages"], sorted(_all_hashes))
