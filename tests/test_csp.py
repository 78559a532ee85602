"""Content-Security-Policy: a per-page <meta> with script hashes, the same policy as a header in
``_headers``, and no violation in Chromium on the pages that run scripts (Material, Mermaid, Pyodide)."""

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


@pytest.fixture(scope="module")
def heads(built_site):
    out = {}
    for path in sorted(built_site.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        if "<head" not in text:
            continue  # not a page (e.g. a template copied as a static file)
        parser = Head()
        parser.feed(text)
        parser.close()
        out[path.relative_to(built_site).as_posix()] = parser
    assert len(out) > 30
    return out


@pytest.fixture(scope="module")
def header_policy(built_site):
    text = (built_site / "_headers").read_text(encoding="utf-8")
    m = re.search(r"^/\*\n((?:  .*\n)+)", text, re.M)
    assert m, text
    headers = dict(line.strip().split(": ", 1) for line in m.group(1).splitlines())
    return headers["Content-Security-Policy"]


def _sha(body):
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"


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


def test_headers_file_matches_the_pages(heads, header_policy, built_site):
    header = parse_policy(header_policy)
    all_hashes = set()
    for rel, head in heads.items():
        meta = parse_policy(head.csp_metas[0])
        all_hashes |= {v for v in meta["script-src"] if v.startswith("'sha256-")}
        for directive, values in meta.items():
            if directive != "script-src":
                assert header[directive] == values, (rel, directive)
    assert {v for v in header["script-src"] if v.startswith("'sha256-")} == all_hashes
    assert "'unsafe-inline'" not in header["script-src"] and "'unsafe-eval'" not in header["script-src"]
    assert "'wasm-unsafe-eval'" in header["script-src"]
    assert header["worker-src"] == ["'self'"]
    text = (built_site / "_headers").read_text(encoding="utf-8")
    assert "/assets/*\n  Cache-Control: public, max-age=31536000, immutable" in text
    assert "X-Content-Type-Options: nosniff" in text


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


@pytest.fixture(scope="module")
def csp_server(built_site, header_policy):
    from sitesrv import Server
    with Server(built_site, port=free_port(), csp=header_policy) as server:
        yield server


@pytest.mark.browser
def test_no_violation_with_header_policy(browser, csp_server):
    context, pg = _csp_page(browser, csp_server)
    try:
        response = pg.goto(pg.base, wait_until="load")
        assert "wasm-unsafe-eval" in response.headers["content-security-policy"]
        pg.wait_for_selector(".md-search[data-md-component=search]")
        pg.wait_for_timeout(500)
        assert not _violations(pg), _violations(pg)

        pg.goto(pg.base + "tree/", wait_until="load")
        pg.wait_for_selector('[data-diagram][data-rendered="1"]', timeout=30000)
        assert pg.locator("[data-diagram] svg").count() >= 1
        assert not _violations(pg), _violations(pg)

        pg.goto(pg.base + "selector/?scale=service&hardware=nvidia-hopper", wait_until="load")
        pg.wait_for_selector("#selector-result[data-state=ready]", timeout=60000)
        assert pg.locator("#selector-result [data-engine]").count() >= 1
        assert not _violations(pg), _violations(pg)

        # Material's instant navigation from the home page to the tree keeps working under the policy
        pg.goto(pg.base, wait_until="load")
        pg.locator(".md-nav__link[href$='tree/']").first.click()
        pg.wait_for_url("**/tree/")
        pg.wait_for_selector('[data-diagram][data-rendered="1"]', timeout=30000)
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
def test_violations_are_detected(browser, built_site, header_policy):
    """Control: without the hashes and without 'wasm-unsafe-eval' the same checks do see violations."""
    from sitesrv import Server
    stripped = re.sub(r" '(sha256-[^']+|wasm-unsafe-eval)'", "", header_policy)
    with Server(built_site, port=free_port(), csp=stripped) as server:
        context, pg = _csp_page(browser, server)
        try:
            pg.goto(pg.base + "selector/", wait_until="load")
            pg.wait_for_selector("#selector-result[data-state=error]", timeout=30000)
            found = _violations(pg)
            assert any("inline" in v or "script-src" in v for v in found), found
        finally:
            context.close()
