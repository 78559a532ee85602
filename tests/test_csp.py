"""Content-Security-Policy: a per-page <meta> with script hashes, the same policy as a header in
``_headers`` for every path, and no violation in Chromium (scripts and styles) on the pages that run
scripts (Material, Mermaid, Pyodide). Inline styles are allowed only on pages that draw a Mermaid diagram,
and those pages are never swapped in by instant navigation."""

import base64
import hashlib
import re
from html.parser import HTMLParser

import pytest

from conftest import free_port


def parse_policy(text):
    policy = {}
    for part in text.split(";"):
        words = part.split()
        if words:
            policy[words[0]] = words[1:]
    return policy


class Head(HTMLParser):
    """First element inside <head>, the CSP meta content, inline scripts and inline handlers."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.in_head = False
        self.first = None
        self.csp_metas = []
        self.inline = []
        self.handlers = []
        self.styles = []
        self.diagram = False
        self._script = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "head":
            self.in_head = True
            return
        if self.in_head and self.first is None:
            self.first = (tag, a)
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp_metas.append(a.get("content", ""))
        if tag == "script" and not a.get("src") and "json" not in (a.get("type") or ""):
            self._script = ""
        self.handlers += [f"<{tag} {k}>" for k in a if k.startswith("on")]
        if tag == "style" or "style" in a:
            self.styles.append(f"<{tag} style={a.get('style')!r}>")
        if a.get("data-diagram") == "mermaid":
            self.diagram = True

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False
        if tag == "script" and self._script is not None:
            if self._script.strip():
                self.inline.append(self._script)
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self._script += data


# HTML files in the built site that are not pages and so carry no <head> (and no policy), each with the reason.
# None today: a new one fails test_every_html_file_is_a_page_or_listed until it is listed here with its reason.
NOT_PAGES = {}


@pytest.fixture(scope="module")
def heads(built_site):
    out = {}
    for path in sorted(built_site.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(built_site).as_posix()
        if rel in NOT_PAGES:
            continue
        parser = Head()
        parser.feed(text)
        parser.close()
        out[rel] = parser
    assert len(out) > 30
    return out


@pytest.fixture(scope="module")
def header_rules(built_site):
    from sitesrv import parse_headers
    return parse_headers((built_site / "_headers").read_text(encoding="utf-8"))


def header_policy_for(rules, path):
    from sitesrv import headers_for
    found = {k.lower(): v for k, v in headers_for(rules, path).items()}
    assert "content-security-policy" in found, f"_headers sends no policy for {path}"
    assert ", " not in found["content-security-policy"], f"{path}: more than one rule sets the policy"
    return found["content-security-policy"]


def url_of(rel):
    return "/" + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)


def _sha(body):
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"


def test_every_html_file_is_a_page_or_listed(built_site, heads):
    files = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*.html")}
    assert files == set(heads) | (files & set(NOT_PAGES))
    headless = sorted(rel for rel in files - set(NOT_PAGES) if "<head" not in (built_site / rel).read_text(encoding="utf-8"))
    assert not headless, f"HTML files without <head> (so without a policy): {headless}; list them in NOT_PAGES with why"
    assert set(NOT_PAGES) <= files, f"NOT_PAGES names files the build no longer makes: {sorted(set(NOT_PAGES) - files)}"


def test_every_page_starts_its_head_with_the_policy(heads):
    bad = []
    for rel, head in heads.items():
        if len(head.csp_metas) != 1:
            bad.append(f"{rel}: {len(head.csp_metas)} CSP metas")
            continue
        tag, attrs = head.first
        if tag != "meta" or (attrs.get("http-equiv") or "").lower() != "content-security-policy":
            bad.append(f"{rel}: first child of <head> is <{tag} {attrs}>")
    assert not bad, "\n".join(bad)


def test_meta_policy_is_strict(heads):
    for rel, head in heads.items():
        policy = parse_policy(head.csp_metas[0])
        script = policy["script-src"]
        assert "'unsafe-inline'" not in script and "'unsafe-eval'" not in script, (rel, script)
        assert "'wasm-unsafe-eval'" in script, (rel, script)
        assert "'strict-dynamic'" not in script
        assert policy["default-src"] == ["'self'"]
        assert policy["object-src"] == ["'none'"]
        assert policy["base-uri"] == ["'self'"]
        for directive, values in policy.items():
            for v in values:
                assert v.startswith("'") or v == "data:", f"{rel}: {directive} allows {v}"  # no other origin, no *
        # every inline script on the page is allowed by its hash, and only those
        hashes = {v for v in script if v.startswith("'sha256-")}
        assert {_sha(body) for body in head.inline} == hashes, rel
        assert not head.handlers, f"{rel}: inline event handlers {head.handlers} would be blocked"
        # inline styles only where Mermaid draws a diagram; no page's own markup carries any
        assert not head.styles, f"{rel}: inline styles in the built page: {head.styles[:5]}"
        expected = ["'self'", "'unsafe-inline'"] if head.diagram else ["'self'"]
        assert policy["style-src"] == expected, (rel, policy["style-src"])


def test_only_the_diagram_pages_allow_inline_styles(heads):
    lenient = sorted(rel for rel, head in heads.items() if "'unsafe-inline'" in parse_policy(head.csp_metas[0])["style-src"])
    assert lenient == ["tree/index.html"]
    assert len(heads) - len(lenient) > 30


def test_headers_file_matches_the_pages(heads, header_rules, built_site):
    all_hashes = set()
    for head in heads.values():
        all_hashes |= {v for v in parse_policy(head.csp_metas[0])["script-src"] if v.startswith("'sha256-")}
    for rel, head in heads.items():
        meta = parse_policy(head.csp_metas[0])
        for path in {url_of(rel), "/" + rel}:
            header = parse_policy(header_policy_for(header_rules, path))
            assert header.pop("frame-ancestors") == ["'none'"], path  # a <meta> cannot set it
            for directive, values in meta.items():
                if directive != "script-src":
                    assert header[directive] == values, (path, directive)
            assert set(header) == set(meta), path
            assert {v for v in header["script-src"] if v.startswith("'sha256-")} == all_hashes, path
            assert [v for v in header["script-src"] if not v.startswith("'sha256-")] == ["'self'", "'wasm-unsafe-eval'"]
    # the worker gets its policy from the header alone: strict, with what Pyodide needs
    worker = parse_policy(header_policy_for(header_rules, "/assets/javascripts/selector-worker.js"))
    assert "'wasm-unsafe-eval'" in worker["script-src"] and "'unsafe-inline'" not in worker["script-src"]
    assert worker["worker-src"] == ["'self'"] and worker["connect-src"] == ["'self'"]
    assert worker["style-src"] == ["'self'"]
    text = (built_site / "_headers").read_text(encoding="utf-8")
    assert "X-Content-Type-Options: nosniff" in text
    assert "Mermaid" in text and "'unsafe-inline'" in text  # the one exception says why


# ---------------------------------------------------------------------------------------------
# In Chromium, with the policy sent as a real header (it then also covers the worker).

RECORD = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
});
"""


def _csp_page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.violations = []

    def console(msg):
        if "Content Security Policy" in msg.text or "Content-Security-Policy" in msg.text:
            pg.violations.append(msg.text)

    pg.on("console", console)
    pg.on("worker", lambda w: w.on("console", console))
    pg.add_init_script(RECORD)
    pg.base = server.url
    return context, pg


def _violations(pg):
    return pg.violations + pg.evaluate("window.__csp || []")


def _sitemap_for_this_port(built_site, site_url):
    """The site was built for ``site_url`` (another port): Material navigates instantly only to pages listed
    in sitemap.xml, so serve the sitemap with this server's address in it."""
    def fault(handler):
        if handler.path.split("?")[0] != "/sitemap.xml":
            return False
        here = f"http://{handler.headers['Host']}/"
        body = (built_site / "sitemap.xml").read_bytes().replace(site_url.encode(), here.encode())
        handler.send_response(200)
        handler.send_header("Content-Type", "application/xml")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
        return True
    return fault


@pytest.fixture(scope="module")
def csp_server(built_site, site_port):
    """The built site with the headers _headers gives each path, as Netlify or Cloudflare Pages send them."""
    from sitesrv import Server
    fault = _sitemap_for_this_port(built_site, f"http://127.0.0.1:{site_port}/")
    with Server(built_site, port=free_port(), headers=True, fault=fault) as server:
        yield server


# pages and what to wait for on each; Material's search, palette toggle and the selector's form run too
PAGES = [
    ("selector/?scale=service&hardware=nvidia-hopper", "#selector-result[data-state=ready]"),
    ("", ".md-search[data-md-component=search]"),
    ("overview/", "table"),
    ("matrix/", "table"),
    ("compare/?engines=vllm,sglang", "table"),
    ("tiers/l2/", "table"),
    ("engines/vllm/", "h1"),
    ("tree/", '[data-diagram][data-rendered="1"]'),
    ("fit/?model=qwen3-8b&gpu_memory_gb=24", "#selector-result[data-state=ready]"),
]


@pytest.mark.browser
def test_no_violation_with_header_policy(browser, csp_server):
    context, pg = _csp_page(browser, csp_server)
    try:
        for path, ready in PAGES:
            response = pg.goto(pg.base + path, wait_until="load")
            policy = response.headers["content-security-policy"]
            assert "wasm-unsafe-eval" in policy
            assert ("'unsafe-inline'" in policy.split("style-src")[1].split(";")[0]) == path.startswith("tree/"), path
            pg.wait_for_selector(ready, timeout=60000)
            pg.wait_for_timeout(300)
            assert not _violations(pg), (path, _violations(pg))
        assert pg.locator("[data-diagram] svg").count() == 0  # left the tree: the last page is /fit/

        # Material's search (results drawn by its worker), the palette toggle and the back-to-top button
        pg.goto(pg.base, wait_until="load")
        pg.wait_for_selector(".md-search[data-md-component=search]")
        pg.keyboard.press("s")  # Material's shortcut: opens the search box at every width
        pg.locator("[data-md-component=search-query]").wait_for(state="visible")
        pg.keyboard.type("vllm")
        pg.wait_for_selector(".md-search-result__item", timeout=10000)
        pg.keyboard.press("Escape")
        pg.locator("form[data-iem-component=palette] label:visible").first.click()
        pg.mouse.wheel(0, 3000)
        pg.wait_for_timeout(500)
        pg.mouse.wheel(0, -500)
        pg.wait_for_timeout(500)
        assert not _violations(pg), _violations(pg)
    finally:
        context.close()


def _mark(pg):
    """A flag that lives as long as the document: gone after a full load, kept by instant navigation.
    Waits for the network to settle first: Material intercepts clicks only once it has read sitemap.xml."""
    pg.wait_for_load_state("networkidle")
    pg.evaluate("window.__sameDocument = true")


def _same_document(pg):
    return pg.evaluate("window.__sameDocument === true")


@pytest.mark.browser
def test_diagram_pages_are_loaded_in_full(browser, csp_server):
    """Instant navigation keeps the document, and with it the policy of the page it was loaded as: the tree
    (inline styles for Mermaid) is therefore always loaded in full, by a link or by the back button."""
    context, pg = _csp_page(browser, csp_server)
    try:
        pg.goto(pg.base, wait_until="load")
        pg.wait_for_selector(".md-search[data-md-component=search]")
        pg.wait_for_timeout(300)
        # instant navigation still works between the other pages
        _mark(pg)
        pg.locator(".md-nav__link[href$='overview/']").first.click()
        pg.wait_for_url("**/overview/")
        pg.wait_for_selector("table")
        assert _same_document(pg), "instant navigation is off"
        # a link to the tree: a full load, and the diagram draws without a violation
        pg.locator(".md-nav__link[href$='tree/']").first.click()
        pg.wait_for_url("**/tree/")
        pg.wait_for_selector('[data-diagram][data-rendered="1"]', timeout=30000)
        assert not _same_document(pg), "the tree was swapped into a document loaded with another page's policy"
        assert pg.locator("[data-diagram] svg").count() >= 1
        assert not _violations(pg), _violations(pg)
        # from the tree onwards instant navigation works as before ...
        _mark(pg)
        pg.locator(".md-nav__link[href$='matrix/']").first.click()
        pg.wait_for_url("**/matrix/")
        pg.wait_for_selector("table")
        assert _same_document(pg)
        # ... and back to the tree reloads it
        pg.go_back()
        pg.wait_for_url("**/tree/")
        pg.wait_for_selector('[data-diagram][data-rendered="1"]', timeout=30000)
        assert not _same_document(pg)
        # an anchor on the tree page itself stays on the page
        _mark(pg)
        pg.evaluate("document.querySelector('a.headerlink').click()")
        pg.wait_for_timeout(300)
        assert _same_document(pg)
        assert not _violations(pg), _violations(pg)
    finally:
        context.close()


@pytest.mark.browser
def test_meta_policy_alone_lets_the_selector_run(browser, built_site):
    """A host that cannot send headers: the meta policy must still let every page work."""
    from sitesrv import Server
    with Server(built_site, port=free_port()) as server:
        context, pg = _csp_page(browser, server)
        try:
            pg.goto(pg.base + "fit/?model=qwen3-8b&gpu_memory_gb=24", wait_until="load")
            pg.wait_for_selector("#selector-result[data-state=ready]", timeout=60000)
            pg.goto(pg.base + "tree/", wait_until="load")
            pg.wait_for_selector('[data-diagram][data-rendered="1"]', timeout=30000)
            assert not _violations(pg), _violations(pg)
        finally:
            context.close()


@pytest.mark.browser
def test_violations_are_detected(browser, built_site, header_rules):
    """Control: without the hashes and without 'wasm-unsafe-eval' the same checks do see violations."""
    from sitesrv import Server
    stripped = re.sub(r" '(sha256-[^']+|wasm-unsafe-eval)'", "", header_policy_for(header_rules, "/selector/"))
    with Server(built_site, port=free_port(), csp=stripped) as server:
        context, pg = _csp_page(browser, server)
        try:
            pg.goto(pg.base + "selector/", wait_until="load")
            pg.wait_for_selector("#selector-result[data-state=error]", timeout=30000)
            found = _violations(pg)
            assert any("inline" in v or "script-src" in v for v in found), found
        finally:
            context.close()


@pytest.mark.browser
def test_style_violations_are_detected(browser, built_site, header_rules):
    """Control: the tree under the other pages' policy (no inline styles) does show style violations, so the
    checks above would see one, and the tree's exception is needed."""
    from sitesrv import Server
    strict = header_policy_for(header_rules, "/overview/")
    assert "'unsafe-inline'" not in strict
    with Server(built_site, port=free_port(), csp=strict) as server:
        context, pg = _csp_page(browser, server)
        try:
            pg.goto(pg.base + "tree/", wait_until="load")
            pg.wait_for_selector('[data-diagram]', timeout=30000)
            pg.wait_for_timeout(3000)
            found = _violations(pg)
            assert any("style-src" in v for v in found), found
        finally:
            context.close()
