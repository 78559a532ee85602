"""Every link of the built site resolves: internal files and #fragments, well-formed https outside,
and nothing but plain <a> links points at another origin."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urljoin, urlsplit

import pytest

# attributes that load a resource (must stay on this origin) versus plain navigation links
RESOURCE_TAGS = {"script": "src", "img": "src", "iframe": "src", "source": "src", "video": "src", "audio": "src",
                 "embed": "src", "track": "src", "object": "data", "link": "href", "form": "action", "input": "src"}
# <link rel> values that only name a URL and load nothing
NON_LOADING_REL = {"canonical", "prev", "next", "alternate", "author", "license", "search"}
URL_OK = re.compile(r"^https://[A-Za-z0-9.-]+\.[A-Za-z]{2,}(:\d+)?(/[^\s<>\"'`{}|\\^]*)?(\?[^\s<>\"'`{}|\\^#]*)?(#[^\s<>\"'`{}|\\^]*)?$")


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.refs, self.config = set(), [], None
        self._in_config = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key) and (key == "id" or tag == "a"):
                self.ids.add(a[key])
        if tag == "a" and a.get("href") is not None:
            self.refs.append(("a", "href", a["href"], a))
        elif tag in RESOURCE_TAGS and a.get(RESOURCE_TAGS[tag]) is not None:
            self.refs.append((tag, RESOURCE_TAGS[tag], a[RESOURCE_TAGS[tag]], a))
        if tag == "script" and a.get("id") == "__config":
            self._in_config = True
            self.config = ""

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_config = False

    def handle_data(self, data):
        if self._in_config:
            self.config += data


@pytest.fixture(scope="module")
def pages(built_site):
    out = {}
    for path in sorted(built_site.rglob("*.html")):
        parser = Page()
        parser.feed(path.read_text(encoding="utf-8"))
        parser.close()
        out[path.relative_to(built_site).as_posix()] = parser
    assert len(out) > 30
    return out


def _page_url(rel):
    """Site-relative URL path of a built file: engines/vllm/index.html -> /engines/vllm/."""
    return "/" + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)


def _target_file(site, path):
    """File served for a URL path, as a static host would: directories serve their index.html."""
    local = site / unquote(path).lstrip("/")
    if path.endswith("/") or local.is_dir():
        local = local / "index.html"
    return local


def _walk(built_site, pages, site_origin):
    problems, checked, external = [], 0, set()
    for rel, parser in pages.items():
        base = site_origin + _page_url(rel)
        for tag, attr, value, attrs in parser.refs:
            value = value.strip()
            if value.startswith(("mailto:", "tel:")):
                continue
            url = urljoin(base, value)
            parts = urlsplit(url)
            loads = tag != "a" and not (tag == "link" and set((attrs.get("rel") or "").split()) <= NON_LOADING_REL)
            if parts.scheme in ("data", "blob"):
                continue
            if f"{parts.scheme}://{parts.netloc}" != site_origin:
                if loads:
                    problems.append(f"{rel}: <{tag} {attr}={value!r}> loads from another origin")
                elif not URL_OK.match(url):
                    problems.append(f"{rel}: <{tag} {attr}={value!r}> is not a well-formed https link")
                else:
                    external.add(url)
                continue
            checked += 1
            target = _target_file(built_site, parts.path)
            if not target.is_file():
                problems.append(f"{rel}: <{tag} {attr}={value!r}> -> {parts.path} does not exist")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages[target.relative_to(built_site).as_posix()].ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{rel}: <{tag} {attr}={value!r}> -> #{parts.fragment} is not an id on {parts.path}")
    return problems, checked, external


def test_internal_links_and_fragments_resolve(built_site, pages, site_port):
    origin = f"http://127.0.0.1:{site_port}"
    problems, checked, external = _walk(built_site, pages, origin)
    assert not problems, f"{len(problems)} broken:\n" + "\n".join(problems[:40])
    assert checked > 1000
    print(f"\nlinks: {checked} internal links and fragments resolved on {len(pages)} pages; {len(external)} distinct external links")


def test_material_runtime_assets_exist(built_site, pages):
    """Material names its search worker and index in a JSON blob, not in href/src."""
    config = json.loads(pages["index.html"].config)
    assert _target_file(built_site, "/" + PurePosixPath(config["search"]).as_posix().lstrip("./")).is_file(), config["search"]
    assert (built_site / "search/search_index.json").is_file()
    assert (built_site / "sitemap.xml").is_file()


def test_no_other_origin_in_resources(built_site, pages, site_port):
    origin = f"http://127.0.0.1:{site_port}"
    bad = []
    for rel, parser in pages.items():
        for tag, attr, value, attrs in parser.refs:
            if tag == "a":
                continue
            url = urljoin(origin + _page_url(rel), value.strip())
            if urlsplit(url).scheme in ("data", "blob"):
                continue
            if not url.startswith(origin + "/"):
                bad.append(f"{rel}: <{tag} {attr}={value!r}>")
    # stylesheets and scripts must not pull from elsewhere either (url(), @import, import)
    for path in list(built_site.rglob("*.css")) + list(built_site.rglob("*.js")) + list(built_site.rglob("*.mjs")):
        if "/pyodide/" in path.as_posix():
            continue  # Pyodide's loader mentions its CDN only as a fallback we never use (indexURL is set)
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".css":
            for m in re.finditer(r"(?:url\(\s*['\"]?|@import\s+['\"])(https?:)?//", text):
                bad.append(f"{path.relative_to(built_site)}: {text[m.start():m.start() + 80]!r}")
    assert not bad, "\n".join(bad[:40])


def test_external_urls_in_data_are_https_and_well_formed(catalog):
    from selector.catalog import COLLECTIONS

    urls = []

    def walk(node, where):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("url", "homepage", "repository"):
                    urls.append((where + "." + key, value))
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")

    for name in COLLECTIONS:
        for entry_id, doc in catalog.raw.get(name, {}).items():
            walk(doc, f"{name}/{entry_id}")
    assert len(urls) > 100
    bad = [(w, u) for w, u in urls if not isinstance(u, str) or not URL_OK.match(u)
           or urlsplit(u).hostname in ("localhost", "127.0.0.1", "example.com")]
    assert not bad, bad[:20]


def test_external_links_on_pages_come_from_the_data(built_site, pages, site_port, catalog):
    """Off-site <a> links are the data's citations and homepages (plus Material's own credit link)."""
    _, _, external = _walk(built_site, pages, f"http://127.0.0.1:{site_port}")
    known = set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("url", "homepage", "repository") and isinstance(value, str):
                    known.add(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(catalog.raw)
    stray = sorted(u for u in external if u not in known and "squidfunk.github.io/mkdocs-material" not in u)
    assert not stray, stray[:20]


@pytest.mark.browser
def test_selector_result_links_resolve(page, built_site, pages):
    """The links the selector draws at run time resolve too: engines and tree branches on this site, its
    citations as well-formed https links elsewhere."""
    page.goto(page.base + "selector/?scale=cluster", wait_until="load")
    page.wait_for_selector("#selector-result[data-state=ready]", timeout=60000)
    hrefs = page.eval_on_selector_all("#selector-result a[href]", "(as) => as.map((a) => a.href)")
    page.goto(page.base + "selector/?scale=local&need=huge-moe-low-vram&hardware=cpu", wait_until="load")
    page.wait_for_selector("#selector-result[data-state=ready]", timeout=60000)
    hrefs += page.eval_on_selector_all("#selector-result a[href]", "(as) => as.map((a) => a.href)")
    assert len(hrefs) > 10
    bad = []
    here = urlsplit(page.base).netloc
    external = [u for u in hrefs if urlsplit(u).netloc != here]
    assert external, "the answer cites its sources"
    bad += [f"{u}: not a well-formed https link" for u in external if not URL_OK.match(u)]
    for url in hrefs:
        parts = urlsplit(url)
        if parts.netloc != here:
            continue
        target = _target_file(built_site, parts.path)
        if not target.is_file():
            bad.append(f"{url}: no such page")
        elif parts.fragment and unquote(parts.fragment) not in pages[target.relative_to(built_site).as_posix()].ids:
            bad.append(f"{url}: no such id")
    assert not bad, bad
