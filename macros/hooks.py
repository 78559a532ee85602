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
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # hooks load by file path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from macros import site
from macros.templating import render


def on_config(config):
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


def on_pre_build(config):
    site.clear_stash()


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
    files.append(_generated(config, "assets/selector/catalog.json", site.catalog_json(cat, trimmed=True)))
    files.append(_generated(config, f"assets/selector/{site.WHEEL_NAME}", site.build_wheel()))
    files.append(_generated(config, "assets/selector/manifest.json", json.dumps({
        "wheel": site.WHEEL_NAME, "catalog": "catalog.json", "pyodide": "../pyodide/"})))
    for schema in sorted((site.DATA / "schema").glob("*.schema.json")):
        files.append(File.generated(config, f"schema/{schema.name}", abs_src_path=str(schema)))
    nm = site.node_modules()
    missing = []
    for name in site.PYODIDE_FILES:
        src = nm / "pyodide" / name
        if not src.is_file():
            missing.append(str(src))
            continue
        files.append(File.generated(config, f"assets/pyodide/{name}", abs_src_path=str(src)))
    mermaid = nm / "mermaid" / "dist" / "mermaid.min.js"
    if mermaid.is_file():
        files.append(File.generated(config, "assets/vendor/mermaid.min.js", abs_src_path=str(mermaid)))
    else:
        missing.append(str(mermaid))
    if missing:
        raise PluginError("runtime files missing (run `npm ci`): " + ", ".join(missing))
    return files


# -- Content-Security-Policy ------------------------------------------------------------------
# Only this origin; Pyodide needs 'wasm-unsafe-eval'; Material's few inline scripts are allowed by
# their hashes (computed per page below), not by 'unsafe-inline'. Styles keep 'unsafe-inline'
# because Material and Mermaid set style attributes.
CSP_BASE = {
    "default-src": ["'self'"],
    "script-src": ["'self'", "'wasm-unsafe-eval'"],
    "worker-src": ["'self'"],
    "connect-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "font-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
}
class _InlineScripts(HTMLParser):
    """Collects the text of inline scripts (no ``src``, not JSON data) exactly as the page holds it."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.bodies, self._open = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            attrs = dict(attrs)
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


def inline_script_hashes(html):
    parser = _InlineScripts()
    parser.feed(html)
    parser.close()
    return sorted({"'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'" for body in parser.bodies})


def csp_policy(hashes=()):
    parts = []
    for key, values in CSP_BASE.items():
        extra = list(hashes) if key == "script-src" else []
        parts.append(" ".join([key] + values + extra))
    return "; ".join(parts)


_all_hashes = set()


def on_page_content(html, page, config, files):
    """Put the markup the macros rendered in place of their placeholders, after Markdown has run."""
    try:
        return site.unstash(html)
    except site.DataError as exc:
        raise PluginError(str(exc)) from None


def on_post_page(output, page, config):
    hashes = inline_script_hashes(output)
    _all_hashes.update(hashes)
    meta = render("csp-meta.html", policy=csp_policy(hashes))
    return output.replace("<head>", "<head>\n" + meta, 1)


def on_post_template(output, template_name, config):
    """The theme's own pages (404.html) are not `pages`; they get the same policy and count toward _headers."""
    if template_name.endswith(".html") and "<head>" in output:
        return on_post_page(output, None, config)
    return output


def on_post_build(config):
    """Header form of the policy for hosts that read a _headers file (it also covers the worker)."""
    site_dir = Path(config["site_dir"])
    policy = csp_policy(sorted(_all_hashes))
    (site_dir / "_headers").write_text(
        "/*\n"
        f"  Content-Security-Policy: {policy}; frame-ancestors 'none'\n"
        "  X-Content-Type-Options: nosniff\n"
        "  Referrer-Policy: strict-origin-when-cross-origin\n"
        "/assets/*\n"
        "  Cache-Control: public, max-age=31536000, immutable\n", encoding="utf-8")
