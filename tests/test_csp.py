"""Content-Security-Policy: one static policy, the same in every page's <meta> and in ``_headers`` (which
adds frame-ancestors and covers the worker): scripts and styles from files of this origin only. No page
holds an inline script but Material's JSON configuration (hooks.DATA_SCRIPTS); a script or event handler
written into a Markdown source fails the build; in Chromium the pages run without a violation."""

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT, free_port
from macros import hooks

MATERIAL = Path(__import__("material").__file__).parent / "templates"
THEME_JS = ROOT / "docs" / "assets" / "javascripts" / "theme"
POLICY = ("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; "
          "img-src 'self' data:; style-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'")


def parse_policy(text):
    policy = {}
    for part in text.split(";"):
        words = part.split()
        if words:
            policy[words[0]] = words[1:]
    return policy


class Head(HTMLParser):
    """First element inside <head>, the CSP metas, scripts without src, inline handlers and styles."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.in_head = False
        self.first = None
        self.csp_metas = []
        self.inline = []
        self.handlers = []
        self.styles = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "head":
            self.in_head = True
            return
        if self.in_head and self.first is None:
            self.first = (tag, a)
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp_metas.append(a.get("content", ""))
        if tag == "script" and "src" not in a:
            self.inline.append((a.get("id"), a.get("type")))
        self.handlers += [f"{tag} {k}" for k in a if k.startswith("on")]
        if tag == "style" or "style" in a:
            self.styles.append(f"{tag} style={a.get('style')!r}")

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False


# HTML files in the built site that are not pages and so carry no <head> (and no policy), each with the reason.
# None today: a new one fails test_every_html_file_is_a_page_or_listed until it is listed here with its reason.
NOT_PAGES = {}


@pytest.fixture(scope="module")
def heads(built_site):
    out = {}
    for path in sorted(built_site.rglob("*.html")):
        rel = path.relative_to(built_site).as_posix()
        if rel in NOT_PAGES:
            continue
        parser = Head()
        parser.feed(path.read_text(encoding="utf-8"))
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


def test_every_html_file_is_a_page_or_listed(built_site, heads):
    files = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*.html")}
    assert files == set(heads) | (files & set(NOT_PAGES))
    headless = sorted(rel for rel in files - set(NOT_PAGES) if "<head" not in (built_site / rel).read_text(encoding="utf-8"))
    assert not headless, f"HTML files without <head> (so without a policy): {headless}; list them in NOT_PAGES with why"
    assert set(NOT_PAGES) <= files, f"NOT_PAGES names files the build no longer makes: {sorted(set(NOT_PAGES) - files)}"


def test_the_policy_is_static_and_strict():
    assert hooks.CSP == POLICY  # written out here: a change to the policy is a change to this test
    policy = parse_policy(hooks.CSP)
    assert policy["script-src"] == ["'self'", "'wasm-unsafe-eval'"]  # no hash, no nonce, no 'unsafe-inline'
    assert policy["style-src"] == ["'self'"]
    for directive, values in policy.items():
        for v in values:
            assert v in ("'self'", "'none'", "'wasm-unsafe-eval'", "data:"), f"{directive} allows {v}"


def test_every_page_starts_its_head_with_the_one_policy(heads):
    bad = []
    for rel, head in heads.items():
        if head.csp_metas != [POLICY]:
            bad.append(f"{rel}: CSP metas {head.csp_metas}")
            continue
        tag, attrs = head.first
        if tag != "meta" or (attrs.get("http-equiv") or "").lower() != "content-security-policy":
            bad.append(f"{rel}: first child of <head> is <{tag} {attrs}>")
    assert not bad, "\n".join(bad[:10])


def test_no_page_holds_an_inline_script_outside_the_fixed_list(heads):
    assert set(hooks.DATA_SCRIPTS) == {"__config"}  # the fixed list: data a browser never runs
    for rel, head in heads.items():
        assert head.inline == [("__config", "application/json")], f"{rel}: scripts without src {head.inline}"
        assert not head.handlers, f"{rel}: inline event handlers {head.handlers}"
        assert not head.styles, f"{rel}: inline styles in the built page: {head.styles[:5]}"


def test_headers_file_sends_the_same_policy(heads, header_rules):
    expected = POLICY + "; frame-ancestors 'none'"  # a <meta> cannot set frame-ancestors
    for rel in heads:
        for path in {url_of(rel), "/" + rel}:
            assert header_policy_for(header_rules, path) == expected, path
    # the worker gets its policy from the header alone
    assert header_policy_for(header_rules, "/assets/javascripts/selector-worker.js") == expected


@pytest.mark.parametrize("name", ["base", "palette", "content"])
def test_materials_scripts_from_files_are_materials(name):
    """Material writes three small scripts inline; the overrides load the same code from files. After an
    upgrade of Material this fails until the copy in docs/assets/javascripts/theme/ is taken again."""
    partial = (MATERIAL / "partials" / "javascripts" / f"{name}.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script>(.*?)</script>", partial)
    ours = (THEME_JS / f"{name}.js").read_text(encoding="utf-8").split("\n", 1)[1].strip()  # after its comment line
    theirs = scripts[-1].replace('new URL("{{ config.extra.scope | d(base_url) }}",location)',
                                 "new URL(document.currentScript.dataset.scope,location)")
    assert ours == theirs
    assert "{{" not in ours


def test_materials_other_inline_scripts_stay_off():
    """Material's other inline scripts (partials/javascripts/) come with features the site does not turn on;
    turning one on needs its script in a file first (the build would fail on it anyway)."""
    others = {p.stem for p in (MATERIAL / "partials" / "javascripts").glob("*.html")} - {"base", "palette", "content"}
    assert others == {"announce", "consent", "outdated"}, others  # a new one in a Material upgrade: look at it
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for switch in ("announce.dismiss", "content.tabs.link", "consent:", "version:"):
        assert switch not in config, switch


@pytest.mark.parametrize("text,found", [
    ("ok\n\n<script>alert(1)</script>\n", "line 3: a script element"),
    ("ok <SCRIPT src=x></SCRIPT>", "line 1: a script element"),
    ("ok < script>", "line 1: a script element"),
    ('<img src=x onerror="alert(1)">', "line 1: an event handler attribute (onerror=)"),
    ("<img src=x/onerror=alert(1)>", "line 1: an event handler attribute (onerror=)"),
    ("<div markdown=1 onClick = 'x'>\n</div>", "line 1: an event handler attribute (onClick=)"),
    ("[link](x){: onmouseover=alert(1) }", "line 1: an event handler attribute (onmouseover=)"),
    ("text `<script>` in code and one = two, online=yes", None),
    ("```html\n<script>x</script>\n<b onclick=x>\n```\n", None),
    ("~~~\n<script>\n~~~\nthen <script>", "line 4: a script element"),
    ('<abbr title="x" data-one="1">', None),
    ("a stray ` backtick\n\n<script>alert(1)</script>\n\nand ` another", "line 3: a script element"),
])
def test_markdown_check(text, found):
    assert hooks.markdown_script_problem(text) == found


def test_a_built_page_with_an_inline_script_fails():
    with pytest.raises(hooks.PluginError, match="inline script element"):
        hooks.on_post_page("<html><head></head><body><script>x()</script></body></html>", None, {})
    with pytest.raises(hooks.PluginError, match="event handler attribute"):
        hooks.on_post_page("<html><head></head><body><svg onload=x()></svg></body></html>", None, {})
    out = hooks.on_post_page('<html><head></head><body><script id="__config" type="application/json">{}</script></body></html>', None, {})
    assert POLICY.replace("'", "&#39;") in out


def test_files_copied_as_they_are_hold_no_script(tmp_path):
    """A file under docs/ that is not Markdown is published as it is, without the page's meta policy: an HTML
    file fails the build, and so does an SVG or XML file with a script or event handler."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text(f'<html><head><meta http-equiv="Content-Security-Policy" content="{POLICY}"></head></html>')
    (tmp_path / "feed.xml").write_text("<feed><title>&lt;script&gt; as text, one = two</title></feed>")
    (tmp_path / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"/></svg>')
    hooks.check_site_files(tmp_path)
    for name, text, found in [("notes.html", "<p>hello</p>", "not a page"),
                              ("x.svg", '<svg><script>alert(1)</script></svg>', "inline script"),
                              ("y.svg", '<svg><image href="x" onerror="alert(1)"/></svg>', "event handler"),
                              ("z.xml", '<x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>', "inline script"),
                              ("w.svg", '<svg><a href="JavaScript:alert(1)"><text>x</text></a></svg>', "javascript: link")]:
        (tmp_path / name).write_text(text)
        with pytest.raises(hooks.PluginError, match=found):
            hooks.check_site_files(tmp_path)
        (tmp_path / name).unlink()


def _project_copy(tmp_path):
    """What a build reads, copied (data, code, docs); node_modules is shared through IEM_NODE_MODULES."""
    dest = tmp_path / "project"
    for name in ("data", "datatools", "docs", "macros", "selector"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "CONTRIBUTING.md", "pyproject.toml"):
        shutil.copy(ROOT / name, dest / name)
    return dest


@pytest.mark.parametrize("target,line", [("docs/overview.md", 5), ("CONTRIBUTING.md", 3), ("docs/glossary.md", 4)])
def test_an_inline_script_in_markdown_fails_the_build(tmp_path, target, line):
    project = _project_copy(tmp_path)
    path = project / target
    text = path.read_text(encoding="utf-8").split("\n")
    payload = "<script>alert(1)</script>" if target != "docs/glossary.md" else '<img src=x onerror="alert(1)">'
    text.insert(line - 1, payload)
    path.write_text("\n".join(text), encoding="utf-8")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "IEM_NODE_MODULES": str(ROOT / "node_modules")}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    name = target if target.startswith("docs/") else Path(target).name
    errors = [x for x in (proc.stdout + proc.stderr).splitlines() if x.startswith("ERROR")]
    assert any(f"{name}: line {line}: " in x for x in errors), proc.stdout[-2000:] + proc.stderr[-2000:]


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
    ("tree/", ".iem-tree-svg"),
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
            assert policy == POLICY + "; frame-ancestors 'none'", path
            pg.wait_for_selector(ready, timeout=60000)
            pg.wait_for_timeout(300)
            assert not _violations(pg), (path, _violations(pg))

        # Material's search (results drawn by its worker), the palette toggle and the back-to-top button
        pg.goto(pg.base, wait_until="load")
        pg.wait_for_selector(".md-search[data-md-component=search]")
        pg.keyboard.press("s")  # Material's shortcut: opens the search box at every width
        pg.locator("[data-md-component=search-query]").wait_for(state="visible")
        pg.keyboard.type("vllm")
        pg.wait_for_selector(".md-search-result__item", timeout=10000)
        pg.keyboard.press("Escape")
        pg.locator("form[data-md-component=palette] label:visible").first.click()
        pg.mouse.wheel(0, 3000)
        pg.wait_for_timeout(500)
        pg.mouse.wheel(0, -500)
        pg.wait_for_timeout(500)
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
            pg.wait_for_selector(".iem-tree-svg")
            pg.locator("form[data-md-component=palette] label:visible").first.click()
            assert not _violations(pg), _violations(pg)
        finally:
            context.close()


@pytest.mark.browser
def test_violations_are_detected(browser, built_site, header_rules):
    """Control: without 'wasm-unsafe-eval' the same checks do see violations."""
    from sitesrv import Server
    stripped = header_policy_for(header_rules, "/selector/").replace(" 'wasm-unsafe-eval'", "")
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
def test_an_inline_script_does_not_run(browser, built_site):
    """The policy's point: a script written into a page (as if an inline script had got past the build) is
    blocked, under the meta policy alone and as a header, and the checks above see the violation."""
    from sitesrv import Server
    page = (built_site / "overview" / "index.html").read_text(encoding="utf-8")
    body = page.replace("<body", "<body data-x", 1).replace("</body>", "<script>window.__ran = 1</script><img src=x onerror=\"window.__ran = 2\"></body>", 1)

    def fault(handler):
        if handler.path.split("?")[0] != "/overview/":
            return False
        data = body.encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
        return True

    for csp in (None, POLICY):
        with Server(built_site, port=free_port(), fault=fault, csp=csp) as server:
            context, pg = _csp_page(browser, server)
            try:
                pg.goto(pg.base + "overview/", wait_until="load")
                pg.wait_for_selector("table")
                pg.wait_for_timeout(300)
                assert pg.evaluate("window.__ran") is None
                found = _violations(pg)
                assert any("script-src" in v for v in found), found
            finally:
                context.close()
