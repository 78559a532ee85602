"""Hostile text in every free-text field of the data must come out as literal text, everywhere.

A copy of ``data/`` gets payloads in every free-text field while staying valid. The fields are found from
the JSON Schemas (a string with no enum, format or pattern of its own), so a field added to a schema is
covered without touching this file. One-line payloads (HTML, script and attribute breakouts, Jinja,
``javascript:`` URLs, Markdown inline syntax, attribute lists, Mermaid directives, line separators) go to
every field; multi-line ones (fences with attribute lists, reference definitions, block attribute lists,
raw HTML blocks, comments) to every field that may hold a paragraph. The site is built from it and
checked: no element or attribute the real build does not have, no live payload in any file, the table of
contents reads as written, and in Chromium (without the CSP, so a slip would really run) no dialog and
every payload visible as the exact text that was written, on every page, in search and in the selector.
"""

import json
import re
import shutil
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT, build_site, free_port
from selector.catalog import COLLECTIONS, SINGLETONS
from datatools.checks import names_in

# one-line payloads: every free-text field gets them
ONE_LINE = [
    "<img src=x onerror=alert(1)>",
    "</script><script>alert(1)</script>",
    '"><svg onload=alert(1)>',
    "{{ 7*7 }}",
    "{% raw %}",
    "javascript:alert(1)",
    "[x](javascript:alert(1))",
    "*emphasis* # heading |pipe|",
    "</title></textarea><img src=x onerror=alert(2)>",
    "&lt;b&gt; &amp; &#60;i&#62;",
    "it's #quot; #60; `**bold**`",
    "<!-- comment --> ends here",
    "&#60;img src=x onerror=alert(3)&#62;",
    "<https://evil.example/> [ref][x] and *[AWQ]: hijacked",
    "word{: onclick=alert(4) style=position:fixed;inset:0 }",
    "%%{init: {'theme':'forest'}}%% click A call alert(5)",
    "line\u2028separator\u2029paragraph",
    "<a href=javascript:alert(6)>link</a>",
]
# multi-line payloads: Markdown block syntax only acts at the start of a line, so fields that may hold a
# paragraph (no one-line pattern in their schema) get these as well
MULTI_LINE = [
    "ok\n\n```{ autofocus onfocus=alert(7) style=position:fixed;inset:0 }\nfenced\n```\n",
    "ok\n\n[x]: javascript:alert(8)\n\nsee [x]",
    "ok\n{: onclick=alert(9) }\n\n## heading\n\n- item one\n- item two",
    "ok <!--\nmulti-line comment\n--> after",
    "ok\n\n<div markdown=1 onclick=alert(10)>\n*inside*\n</div>\n",
    "ok\n\n    indented code\n\n> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    "ok &#10; &NewLine; entities\n\n~~~\ntilde fence\n~~~",
]
PAYLOADS = ONE_LINE + MULTI_LINE
# field types whose first instance gets a given payload: Mermaid syntax in the diagram's labels, an
# apostrophe in headings that reach the table of contents (it once showed as &#x27;)
FIRST = {"tree.question": ONE_LINE[15], "tree.branches[].label": ONE_LINE[15], "tree.branches[].question": ONE_LINE[15],
         "tree.branches[].leaves[].label": ONE_LINE[15],
         "tiers.name": ONE_LINE[10], "engines.name": ONE_LINE[10], "results.title": ONE_LINE[10]}
ONE_LINE_PATTERN = "^[^\\n\\r]*$(?!\\n)"


def _tag(n):
    """A marker that makes each (field, payload) pair findable; plain letters survive Markdown."""
    return f"zq{n}z"


def norm(text):
    """Text as a reader sees it: runs of white space (newlines, U+2028) read as one space."""
    return " ".join(text.split())


def free_text(schema):
    """``"text"`` (may span lines) or ``"short"`` (one line) for a free-text string schema, else ``None``.

    Free text is a string with no enum, const or format but the text formats (line, prose) and either no
    pattern or only the one-line pattern: ids, dates, URLs and keys have patterns of their own and are
    checked as such."""
    if not isinstance(schema, dict) or schema.get("type") != "string":
        return None
    if {"enum", "const"} & set(schema) or schema.get("format", "prose") not in ("line", "prose"):
        return None
    pattern = schema.get("pattern")
    if pattern is None:
        return "text"
    return "short" if pattern == ONE_LINE_PATTERN else None


def _child(schema, key):
    """The schema of property ``key`` and the name its field type uses (``*`` for any key)."""
    props = schema.get("properties") or {}
    if key in props:
        return props[key], key
    for pattern, sub in (schema.get("patternProperties") or {}).items():
        if re.search(pattern, key):
            return sub, "*"
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        return extra, "*"
    return None, None


class Injector:
    """Walks every data document beside its (bundled) JSON Schema and replaces every free-text string
    with a tagged payload, round-robin per field type. A field type is the collection plus the path in
    the schema (``engines.features.*.note``, ``questions.questions[].label``)."""

    def __init__(self, raw, bundled):
        self.raw, self.bundled = raw, bundled
        self.n = 0
        self.counters = {}   # field type -> instances seen
        self.tried = {}      # field type -> set of payload indexes
        self.kinds = {}      # field type -> "text" | "short"
        self.expected = {}   # literal text -> field type
        self.where = {}      # field type -> list of literal texts
        self.pools = {}      # field type -> payload indexes that fit it, in the order handed out

    def fits(self, schema):
        """Payload indexes for a field, in the order they are handed out: a field that may span lines
        gets multi-line and one-line payloads in turn, then the rest of the one-line ones."""
        cap = schema.get("maxLength", 10_000)
        if free_text(schema) == "text":
            m = len(ONE_LINE)
            pool = [i for pair in zip(range(m, len(PAYLOADS)), range(m)) for i in pair]
            pool += [i for i in range(m) if i not in pool]
        else:
            pool = list(range(len(ONE_LINE)))
        return [i for i in pool if len(f"{_tag(9999)} {PAYLOADS[i]}") <= cap]

    def value(self, field, schema, original):
        fitting = self.pools.setdefault(field, self.fits(schema))
        assert fitting, f"{field}: no payload fits in {schema.get('maxLength')} characters"
        c = self.counters.get(field, 0)
        self.counters[field] = c + 1
        # spread the first payloads over the field types (a field that may span lines starts with a
        # multi-line one); a few field types start with the payload that found a bug there (FIRST)
        first = PAYLOADS.index(FIRST[field]) if field in FIRST else None
        if first in fitting:
            offset = fitting.index(first)
        elif free_text(schema) == "text":
            offset = 2 * (zlib.crc32(field.encode()) % len(MULTI_LINE))
        else:
            offset = zlib.crc32(field.encode()) % len(fitting)
        i = fitting[(c + offset) % len(fitting)]
        self.n += 1
        text = f"{_tag(self.n)} {PAYLOADS[i]}"
        if field == "scenarios.answer":
            # the build checks that an answer names its top candidate: keep the engines it named, by id
            named = sorted(names_in(original, self.original_engines))
            text = f"{text} ({', '.join(named)})" if named else text
            assert len(text) <= schema.get("maxLength", 10_000)
        self.tried.setdefault(field, set()).add(i)
        self.kinds[field] = free_text(schema)
        self.expected[text] = field
        self.where.setdefault(field, []).append(text)
        return text

    def walk(self, doc, schema, field):
        if isinstance(doc, dict):
            for key in list(doc):
                sub, name = _child(schema, key)
                if sub is not None:
                    doc[key] = self.visit(doc[key], sub, f"{field}.{name}")
        elif isinstance(doc, list):
            items = schema.get("items")
            if isinstance(items, dict):
                for j, item in enumerate(doc):
                    doc[j] = self.visit(item, items, f"{field}[]")
        return doc

    def visit(self, value, schema, field):
        if isinstance(value, str):
            return self.value(field, schema, value) if free_text(schema) else value
        return self.walk(value, schema, field)


def inject(raw):
    """Payloads in every free-text field of ``raw`` (in place), found from the schemas."""
    import copy

    from datatools.files import read_schemas
    from datatools.validation import schema_set
    schemas, problems = read_schemas(ROOT / "data")
    assert not problems, problems
    bundled = schema_set(schemas).bundled
    inj = Injector(raw, bundled)
    inj.original_engines = copy.deepcopy(raw["engines"])
    for name, schema_name in {**COLLECTIONS, **SINGLETONS}.items():
        if name in COLLECTIONS:
            for key in sorted(raw[name]):
                inj.walk(raw[name][key], bundled[schema_name], name)
        else:
            inj.walk(raw[name], bundled[schema_name], name)
    return inj


def write_data(src, dest, raw):
    """Copy ``src`` (schemas included) to ``dest`` and rewrite every data file from ``raw``."""
    import yaml

    shutil.copytree(src, dest)

    def dump(path, doc):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        path.write_text(first + "\n" + yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=10000),
                        encoding="utf-8")

    for name in COLLECTIONS:
        for key, doc in raw[name].items():
            dump(dest / name / f"{key}.yaml", doc)
    for name in SINGLETONS:
        dump(dest / f"{name}.yaml", raw[name])


def load_raw(data_dir):
    from datatools.files import read_data_dir
    raw, _, problems = read_data_dir(data_dir)
    assert not [p for p in problems if p.severity == "error"]
    return raw


# ---------------------------------------------------------------------------------------------
# Validation: a hostile URL is refused; the hostile text set stays valid.

@pytest.mark.parametrize("url", [
    'https://example.com/"><script>alert(1)</script>',
    "https://example.com/<img src=x>",
    "javascript:alert(1)",
    "http://example.com/plain-http",
    "https://example.com/a b",
    "data:text/html,<script>alert(1)</script>",
    "https://example.com/'onmouseover=alert(1)",
])
def test_hostile_url_is_rejected(tmp_path, url):
    import subprocess
    import sys
    from datatools.files import load_data_dir
    raw = load_raw(ROOT / "data")
    raw["engines"]["lm-studio"]["homepage"] = url
    first = sorted(raw["trends"]["dynamo"]["sources"])[0]
    raw["trends"]["dynamo"]["sources"][first]["url"] = url
    # an engine the tree and the scenarios depend on: reported, not a crash
    vllm_key = sorted(raw["engines"]["vllm"]["sources"])[0]
    raw["engines"]["vllm"]["sources"][vllm_key]["url"] = url
    write_data(ROOT / "data", tmp_path / "data", raw)
    _, problems = load_data_dir(tmp_path / "data")
    errors = [str(p) for p in problems if p.severity == "error"]
    assert any("lm-studio" in p and "homepage" in p for p in errors), errors
    assert any("dynamo" in p and f"sources.{first}.url" in p for p in errors), errors
    assert any("vllm" in p and f"sources.{vllm_key}.url" in p for p in errors), errors
    proc = subprocess.run([sys.executable, "-m", "selector", "validate", str(tmp_path / "data")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    assert "homepage" in proc.stdout and "url" in proc.stdout


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    base = tmp_path_factory.mktemp("xss")
    raw = load_raw(ROOT / "data")
    inj = inject(raw)
    write_data(ROOT / "data", base / "data", raw)
    from datatools.files import load_data_dir
    _, problems = load_data_dir(base / "data")
    errors = [p for p in problems if p.severity == "error"]
    assert not errors, "the hostile data set must stay valid:\n" + "\n".join(map(str, errors))
    port = free_port()
    site = base / "site"
    build_site(site, f"http://127.0.0.1:{port}/", {"IEM_DATA_DIR": str(base / "data")})
    pairs = sum(len(v) for v in inj.tried.values())
    instances = len(inj.expected)
    print(f"\nXSS: {len(PAYLOADS)} payloads x {len(inj.tried)} field types = {pairs} distinct payload/field pairs "
          f"tried, in {instances} field instances")
    return {"base": base, "site": site, "port": port, "inj": inj, "raw": raw}


def test_every_payload_reaches_every_field_type(hostile):
    inj = hostile["inj"]
    # the schemas have about 140 free-text field types; a walk that finds far fewer has lost its way
    assert len(inj.tried) >= 130, sorted(inj.tried)
    for field in ("engines.name", "engines.features.openai_api.note", "engines.quantization[].note", "results.rows[].note",
                  "questions.questions[].help", "tree.branches[].leaves[].label", "glossary.terms[].expansion",
                  "matrix.scores.*.rationale", "scenarios.answer", "models.attention.note", "gpus.name"):
        assert field in inj.tried, field
    # field types with enough instances carry every payload that fits them
    for field, seen in inj.tried.items():
        assert len(seen) == min(inj.counters[field], len(inj.pools[field])), (field, seen)
    assert set().union(*inj.tried.values()) == set(range(len(PAYLOADS)))
    multi = set(range(len(ONE_LINE), len(PAYLOADS)))
    text_fields = [f for f, kind in inj.kinds.items() if kind == "text"]
    assert len(text_fields) >= 70
    # every field that may hold a paragraph gets a multi-line payload; one-line fields never do
    assert all(inj.tried[f] & multi for f in text_fields), [f for f in text_fields if not inj.tried[f] & multi]
    assert not any(inj.tried[f] & multi for f, kind in inj.kinds.items() if kind == "short")
    for field, payload in FIRST.items():
        assert PAYLOADS.index(payload) in inj.tried[field], field


# elements Markdown would make of a payload, and the words that would then start them
MARKUP_TAGS = ("em", "strong", "code", "b", "i", "h1", "h2", "h3", "h4", "h5", "h6", "li", "pre", "blockquote", "td", "th", "a")
MARKDOWN_WORDS = re.compile(r"^\s*(emphasis|bold|heading|inside|item one|item two|fenced|indented code|quote$|tilde fence|multi-line comment|see \[x\]|link$)")


class LiveMarkup(HTMLParser):
    """Collects markup a payload could have created: tags, event handlers, javascript: URLs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad, self.stack, self.script = [], [], None

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        for name, value in attrs:
            if name.startswith("on"):
                self.bad.append(f"<{tag} {name}={value!r}>")
            if name in ("href", "src", "action", "formaction", "xlink:href") and (value or "").strip().lower().startswith("javascript:"):
                self.bad.append(f"<{tag} {name}={value!r}>")
        if tag == "img" and dict(attrs).get("src") == "x":
            self.bad.append("<img src=x>")
        if tag == "a" and (dict(attrs).get("href") or "").startswith("https://evil.example"):
            self.bad.append(f"<a href={dict(attrs)['href']!r}>")
        if "autofocus" in dict(attrs) or "position:fixed" in (dict(attrs).get("style") or "").replace(" ", ""):
            self.bad.append(f"<{tag} {attrs}>")
        if tag == "script":
            self.script = ""

    def handle_endtag(self, tag):
        if tag == "script" and self.script is not None:
            if "alert(" in self.script:
                self.bad.append(f"<script>{self.script[:80]}")
            self.script = None

    def handle_data(self, data):
        if self.script is not None:
            self.script += data
        elif self.stack and self.stack[-1] in MARKUP_TAGS and MARKDOWN_WORDS.match(data):
            self.bad.append(f"<{self.stack[-1]}>{data}")
        if re.search(r"zq\d+z 49\b", data):
            self.bad.append(f"Jinja ran: {data.strip()[:80]}")


class Structure(HTMLParser):
    """Every (element, attribute) pair a page uses."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pairs = set()

    def handle_starttag(self, tag, attrs):
        self.pairs.add((tag, ""))
        self.pairs.update((tag, name) for name, _ in attrs)

    handle_startendtag = handle_starttag


def _structure(path):
    parser = Structure()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser.pairs


def test_payloads_add_no_element_or_attribute(hostile, built_site):
    """Page by page, the hostile build uses no element and no attribute that the build of the real data
    does not use: whatever a payload says, it changes text, never structure. (<abbr> is the one
    exception: which glossary terms a page mentions depends on its text.)"""
    site = hostile["site"]
    pages = sorted(p.relative_to(site) for p in site.rglob("*.html"))
    assert len(pages) > 30
    assert pages == sorted(p.relative_to(built_site) for p in built_site.rglob("*.html"))
    extra = {}
    for rel in pages:
        new = {pair for pair in _structure(site / rel) - _structure(built_site / rel) if pair[0] != "abbr"}
        if new:
            extra[rel.as_posix()] = sorted(new)
    assert not extra, extra


class TocText(HTMLParser):
    """The link texts of Material's table of contents (``nav.md-nav--secondary``)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.link, self.links = 0, None, []

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if tag == "nav" and (self.depth or "md-nav--secondary" in cls.split()):
            self.depth += 1
        elif self.depth and tag == "a":
            self.link = ""

    def handle_endtag(self, tag):
        if self.depth and tag == "nav":
            self.depth -= 1
        elif tag == "a" and self.link is not None:
            self.links.append(norm(self.link))
            self.link = None

    def handle_data(self, data):
        if self.link is not None:
            self.link += data


def test_table_of_contents_reads_as_written(hostile):
    """Headings made from data reach the table of contents with their text as written: no entity codes
    (an apostrophe once showed as &#x27;), no backslashes from Markdown escaping, nothing cut."""
    inj, site = hostile["inj"], hostile["site"]
    by_tag = {t.split(" ", 1)[0]: norm(t) for t in inj.expected}
    seen, wrong = [], []
    for path in sorted(site.rglob("*.html")):
        parser = TocText()
        parser.feed(path.read_text(encoding="utf-8"))
        parser.close()
        for link in parser.links:
            for tag in re.findall(r"zq\d+z", link):
                seen.append(by_tag[tag])
                if by_tag[tag] not in link:
                    wrong.append(f"{path.relative_to(site)}: {link!r} should read {by_tag[tag]!r}")
    assert len(seen) >= 20 and not wrong, wrong[:10]
    assert any("it's" in t for t in seen), "an apostrophe in a heading reaches the table of contents"


def test_built_files_hold_no_live_payload(hostile):
    site = hostile["site"]
    bad = []
    files = [p for p in site.rglob("*.html") if p.is_file()]
    assert len(files) > 30
    for path in files:
        parser = LiveMarkup()
        parser.feed(path.read_text(encoding="utf-8"))
        parser.close()
        bad += [f"{path.relative_to(site)}: {b}" for b in parser.bad]
    assert not bad, "\n".join(bad[:30])
    # the JSON the worker reads carries the text as data
    manifest = json.loads((site / "assets/selector/manifest.json").read_text(encoding="utf-8"))
    catalog = json.loads((site / "assets/selector" / manifest["catalog"]).read_text(encoding="utf-8"))
    assert any(PAYLOADS[0] in e["name"] for e in catalog["engines"].values())


# ---------------------------------------------------------------------------------------------
# In the browser.

PROBE = """() => {
  const MARKUP_TAGS = %s;
  const MARKDOWN_WORDS = new RegExp(%s);
  const bad = [];
  for (const node of document.querySelectorAll('*')) {
    for (const attr of node.attributes) {
      if (/^on/i.test(attr.name)) bad.push(`${node.tagName} ${attr.name}=${attr.value}`);
      if (/^(href|src|action|formaction|xlink:href)$/i.test(attr.name) && /^\\s*javascript:/i.test(attr.value))
        bad.push(`${node.tagName} ${attr.name}=${attr.value}`);
    }
  }
  for (const img of document.querySelectorAll('img[src="x"], img[src$="/x"]')) bad.push('img ' + img.outerHTML);
  for (const svg of document.querySelectorAll('svg[onload]')) bad.push('svg ' + svg.outerHTML);
  for (const s of document.querySelectorAll('script')) {
    if (/alert\\(/.test(s.textContent)) bad.push('script ' + s.outerHTML.slice(0, 120));
    if (s.src && new URL(s.src).origin !== location.origin) bad.push('script src ' + s.src);
  }
  for (const em of document.querySelectorAll(MARKUP_TAGS))
    if (MARKDOWN_WORDS.test(em.textContent)) bad.push('markdown ' + em.outerHTML.slice(0, 160));
  for (const a of document.querySelectorAll('a[href^="https://evil.example"]')) bad.push('link ' + a.outerHTML);
  for (const el of document.querySelectorAll('[autofocus]')) bad.push('autofocus ' + el.outerHTML.slice(0, 160));
  for (const el of document.querySelectorAll('[style]'))
    if (/position:\s*fixed/.test(el.getAttribute('style'))) bad.push('overlay ' + el.outerHTML.slice(0, 160));
  const texts = [document.title, document.body.innerText];
  for (const n of document.querySelectorAll('[title],[aria-label],[data-md-tooltip]'))
    texts.push(n.getAttribute('title') || '', n.getAttribute('aria-label') || '');
  for (const o of document.querySelectorAll('option')) texts.push(o.textContent);
  return { bad, text: texts.join('\\n'), scripts: document.scripts.length };
}""" % (json.dumps(", ".join(MARKUP_TAGS)), json.dumps(MARKDOWN_WORDS.pattern))


# fields that only the selector and fit forms show (checked in test_selector_shows_payloads_as_text)
SELECTOR_ONLY = {"questions.questions[].label", "questions.questions[].help", "questions.workloads.*.label",
                 "questions.priorities.*.label", "questions.questions[].none_label", "questions.memory_modes.cpu",
                 "questions.memory_modes.discrete", "questions.memory_modes.unified"}
# fields no page and no answer shows, with the reason; they reach the reader only as JSON data in
# assets/selector/catalog.json. A field that starts to be shown must leave this list (the test says so).
NOT_RENDERED = {
    "engines.figures[].unit": "figures are shown by their display text, which carries the unit",
    "quantization.figures[].unit": "as above", "trends.figures[].unit": "as above",
    "engines.language.note": "the language is shown; its note is for maintainers",
    "engines.license.note": "the licence is shown; its note is for maintainers",
    "engines.maintainer.note": "the maintainer is shown; its note is for maintainers",
    "engines.memory.fraction.note": "the fit estimator uses the fraction; the answer states the number, not the note",
    "engines.memory.fraction.option": "as above (the option's name is in the engine's docs the figure cites)",
    "gpus.gpu_usable.note": "the fit answer states the usable memory, not the note behind it",
    "hardware.summary": "hardware is named in tables and answers; its summary is not shown yet",
    "hardware.vendor": "hardware names include the vendor",
    "models.attention.note": "the fit answer states the attention layout in numbers; the note is for maintainers",
    "launch.steps[].note": "a launch command shows the step itself; the note is for maintainers",
    "launch.flags[].note": "a launch command shows the flag itself; the note is for maintainers",
    "launch.flags[].experts.note": "the launch note says in its own words why the data-parallel flag is left out",
    "launch.flags[].earlier_defaults[].note": "the command states the port change in its own words",
    "launch.dp_attention.note": "the command shows the flags the recipe adds; the note is for maintainers",
    "models.drafts[].repo": "a published draft is shown only in the launch command and notes of a latency answer",
    "models.drafts[].note": "the launch note names the draft; its note is for maintainers",
    "models.license": "the models page lists size, attention and context; licence and vendor are not shown yet",
    "models.vendor": "as above", "models.note": "as above",
    "questions.fit_defaults.gpu_fraction.note": "the fit answer states each default as a number with its source",
    "questions.fit_defaults.host_reserve_gib.note": "as above",
    "questions.fit_defaults.local_reserve_gib.note": "as above",
    "questions.fit_defaults.runtime_reserve_gib.note": "as above",
    "questions.fit_defaults.unified_gpu_fraction.note": "as above",
    "questions.fit_defaults.local_users.note": "the load answer states the figure and cites its source, not the note",
    "questions.fit_defaults.min_user_tps.note": "as above",
    "questions.fit_defaults.gpus_per_node.note": "as above",
    "tree.branches[].fallback_note": "a branch's fallback is described by the selector's own warning text",
}
# citations show title, address, kind and date; the publisher field is kept for the catalog JSON
NOT_RENDERED.update({f"{c}.sources.*.publisher": "citations show the title, host, kind and date"
                     for c in (*COLLECTIONS, *SINGLETONS)})
# whole blocks read by the fit estimator only: it states the figures in numbers, the notes are for maintainers
NOT_RENDERED_UNDER = {"engines.memory.profile.": "the planner states each engine's figures in numbers; notes are for maintainers",
                      "gpus.memory_reported.": "the planner states the reported memory in GiB; the note is for maintainers"}
# fields some of whose instances are not shown, with the reason; at least one instance must show
PARTLY_RENDERED = {
    "results.sources.*.license": "a result set's page cites its main source with the licence; extra sources by title",
    "models.checkpoints[].repo": "shown in the launch commands of the engine pages' setups (other checkpoints only in answers)",
    "models.checkpoints[].note": "shown with a GGUF checkpoint an engine page's setup loads; the others are for maintainers",
}


def _pages(site):
    out = []
    for path in sorted(site.rglob("index.html")):
        rel = path.relative_to(site).parent.as_posix()
        out.append("" if rel == "." else rel + "/")
    return out


@pytest.fixture(scope="module")
def hostile_server(hostile):
    from sitesrv import Server
    with Server(hostile["site"], port=hostile["port"]) as server:
        yield server


@pytest.fixture(scope="module")
def xpage(browser, hostile_server):
    # without the site's CSP an escaping bug would actually run, not just be blocked by the policy
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    pg = context.new_page()
    pg.dialogs, pg.errors = [], []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    # a second line of defence for the check: record alert() even if a dialog were suppressed
    pg.add_init_script("window.__alerts = []; window.alert = (m) => window.__alerts.push(String(m));")
    pg.base = hostile_server.url
    yield pg
    context.close()


def _check(pg, where, seen_text):
    got = pg.evaluate(PROBE)
    assert not got["bad"], f"{where}: payload became markup: {got['bad'][:5]}"
    alerts = pg.evaluate("window.__alerts")
    assert not alerts and not pg.dialogs, f"{where}: a payload ran: {alerts} {pg.dialogs}"
    seen_text.append(got["text"])
    return got["text"]


@pytest.mark.browser
def test_pages_show_payloads_as_text(hostile, xpage):
    pg = xpage
    pages = _pages(hostile["site"])
    assert len(pages) > 30
    seen = []
    for rel in pages:
        if rel in ("selector/", "fit/"):
            continue
        pg.goto(pg.base + rel, wait_until="load")
        if rel == "tree/":
            # the diagram wraps its labels into lines: each label still reads as written
            labels = set(pg.eval_on_selector_all(".iem-tree-svg text", "(els) => els.map((e) => e.textContent)"))
            inj = hostile["inj"]
            labels = {norm(label) for label in labels}
            for field in ("tree.question", "tree.branches[].label", "tree.branches[].leaves[].label"):
                for literal in inj.where[field]:
                    assert norm(literal) in labels, f"diagram shows {field} {literal!r} differently: {sorted(labels)}"
        pg.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        # tables and result sets out of view wait to be rendered (content-visibility), as if the reader had
        # scrolled to them
        pg.evaluate("document.querySelectorAll('.iem-table-block, section.iem-rset').forEach((b) => { b.style.contentVisibility = 'visible'; })")
        _check(pg, rel, seen)
    text = norm("\n".join(seen))
    inj = hostile["inj"]
    # everything rendered on the static pages (selector-only fields are checked below)
    missing = [(f, t) for t, f in inj.expected.items()
               if f not in SELECTOR_ONLY | set(NOT_RENDERED) | set(PARTLY_RENDERED) and not f.startswith(tuple(NOT_RENDERED_UNDER)) and norm(t) not in text]
    assert not missing, f"{len(missing)} payloads not shown literally: {sorted(set(f for f, _ in missing))} {missing[:3]}"
    for field in PARTLY_RENDERED:
        assert any(norm(t) in text for t in inj.where[field]), f"{field}: no instance shown"
    # the lists above stay true: a field they name as not shown is not shown
    now_shown = sorted(f for f in NOT_RENDERED if f in inj.where and any(norm(t) in text for t in inj.where[f]))
    assert not now_shown, f"shown now, take them off NOT_RENDERED: {now_shown}"
    missing = []
    assert not missing, f"{len(missing)} payloads not shown literally: {sorted(set(f for f, _ in missing))} {missing[:3]}"
    assert not re.search(r"zq\d+z 49\b", text)


@pytest.mark.browser
def test_search_results_show_payloads_as_text(hostile, xpage):
    """Material's search renders its index as HTML: the payloads must stay text there too."""
    pg = xpage
    pg.goto(pg.base, wait_until="load")
    pg.keyboard.press("s")
    query = pg.locator("[data-md-component=search-query]")
    query.wait_for(state="visible")
    inj = hostile["inj"]
    shown = 0
    for field in ("engines.name", "engines.summary", "tiers.name", "trends.title", "engines.pick_when[]"):
        for literal in inj.where[field][:len(PAYLOADS)]:
            tag = literal.split(" ", 1)[0]
            query.fill("")
            query.type(tag)
            # the page holding the tag is found (its teaser may be cut before the tag: long sections are)
            pg.wait_for_function("() => /^[1-9][0-9]* matching document/.test("
                                 "document.querySelector('.md-search-result__meta').textContent.trim())", timeout=10000)
            _check(pg, f"search {field} {tag}", [])
            results = pg.text_content(".md-search-result__list")
            shown += norm(literal) in norm(results)
    assert shown >= 20, f"only {shown} payloads seen literally in search results"


def _ask(pg, answers):
    """Fill the form the way a user would (values and change events), wait for the next answer."""
    seq = int(pg.get_attribute("#selector-result", "data-seq") or 0)
    pg.evaluate("""(answers) => {
      const form = document.getElementById('selector-form');
      form.reset();
      for (const [k, v] of Object.entries(answers)) {
        const field = form.elements.namedItem(k);
        if (field instanceof RadioNodeList || field.type === 'checkbox') {
          for (const box of form.querySelectorAll(`input[name="${k}"]`)) box.checked = v.includes(box.value);
        } else field.value = String(v);
      }
      form.requestSubmit();
    }""", answers)
    pg.wait_for_function(f"Number(document.querySelector('#selector-result').dataset.seq || 0) > {seq}", timeout=30000)
    state = pg.get_attribute("#selector-result", "data-state")
    assert state == "ready", (answers, pg.inner_text("#selector-result"))


@pytest.mark.browser
def test_selector_shows_payloads_as_text(hostile, xpage):
    pg = xpage
    raw = hostile["raw"]
    workloads = sorted(raw["questions"]["workloads"])
    seen = []
    pg.goto(pg.base + "selector/", wait_until="load")
    pg.wait_for_function("['ready','error'].includes(document.querySelector('#selector-result').dataset.state)", timeout=60000)
    _check(pg, "selector (initial)", seen)
    asks = [
        {"scale": "service", "hardware": "nvidia-hopper", "quantization": "fp8", "model": "deepseek-r1",
         "gpu_memory_gb": 80, "gpus": 8, "ram_gb": 2048, "workload": workloads, "priority": "throughput"},
        {"scale": "service", "hardware": "cpu", "quantization": "fp8", "weights": "gguf", "workload": workloads,
         "priority": "latency"},
        {"scale": "service", "need": "moe-prefix", "hardware": "amd-instinct-cdna3", "workload": workloads[:3], "priority": "ease"},
        {"scale": "local", "need": "huge-moe-low-vram", "model": "deepseek-r1", "gpu_memory_gb": 24, "ram_gb": 1024,
         "workload": workloads, "priority": "coverage"},
        {"scale": "local", "hardware": "apple-silicon", "weights": "mlx", "workload": workloads, "priority": "hardware-breadth"},
        {"scale": "cluster", "hardware": "nvidia-blackwell", "workload": workloads},
    ]
    for answers in asks:
        _ask(pg, answers)
        pg.evaluate("document.querySelectorAll('#selector-result details').forEach(d => d.open = true)")
        _check(pg, f"selector {answers}", seen)
    pg.goto(pg.base + "fit/?model=deepseek-r1&quantization=gguf-q4-k-m&gpus=1&gpu_memory_gb=24&ram_gb=512", wait_until="load")
    pg.wait_for_function("document.querySelector('#selector-result').dataset.state === 'ready'", timeout=60000)
    _check(pg, "fit", seen)
    text = norm("\n".join(seen))
    inj = hostile["inj"]
    # the fields the selector reads show up literally in its answers and its form
    for field in SELECTOR_ONLY | {"tree.warnings[].text", "tree.branches[].label", "tree.branches[].leaves[].label",
                                  "tree.question", "matrix.name", "models.name", "hardware.name", "formats.name",
                                  "quantization.name"}:
        shown = [t for t in inj.where[field] if norm(t) in text]
        assert shown, f"{field}: none of {inj.where[field][:3]} shown in the selector"
    for field in ("engines.features.multi_lora.note", "engines.features.structured_output.note",
                  "engines.features.prefix_caching.note", "matrix.scores.*.rationale", "engines.sources.*.title", "engines.name",
                  "engines.positioning", "engines.hardware[].note"):
        shown = {PAYLOADS.index(t.split(" ", 1)[1]) for t in inj.where[field] if norm(t) in text}
        assert len(shown) >= 3, f"{field}: only payloads {shown} reached the selector's answers"
    assert not re.search(r"zq\d+z 49\b", text)
    assert not pg.errors, pg.errors


# ---------------------------------------------------------------------------------------------
# A pull request may edit the schemas as well as the data: the build's own guards are not data.

JINJA_ID = "x{{ lipsum.__globals__.os.system('touch iem-pwned') }}{{ 7*7 }}"


def test_loosened_id_pattern_runs_no_code(tmp_path):
    """Finding 2: loosen the id pattern in common.schema.json and add an engine whose id (and file name)
    is Jinja. The build must not run it: it either refuses the file in one clear line or shows the id as
    text; no file appears, no 49 is computed."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    common = data / "schema" / "common.schema.json"
    schema = json.loads(common.read_text(encoding="utf-8"))
    schema["$defs"]["id"].update(pattern="^[^\\n]*$(?!\\n)", maxLength=200)  # any one line
    common.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    text = (data / "engines" / "lm-studio.yaml").read_text(encoding="utf-8")
    text = text.replace("\nid: lm-studio\n", f"\nid: \"{JINJA_ID}\"\n", 1).replace("\nname: LM Studio\n", "\nname: Jinja\n", 1)
    (data / "engines" / f"{JINJA_ID}.yaml").write_text(text, encoding="utf-8")
    from datatools.files import load_data_dir
    _, problems = load_data_dir(data)
    assert not [p for p in problems if p.severity == "error"], "the edited schema lets the id through validation"
    marker = ROOT / "iem-pwned"
    marker.unlink(missing_ok=True)
    try:
        proc = build_site(tmp_path / "site", "http://127.0.0.1:9/", {"IEM_DATA_DIR": str(data)}, check=False)
        assert not marker.exists(), "the id ran as Jinja during the build"
    finally:
        marker.unlink(missing_ok=True)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out[-3000:]
    if proc.returncode != 0:
        # refused by the build's own id check (code, not data): one line that names the file
        assert re.search(r"ERROR .*" + re.escape(JINJA_ID) + r".*engine ids are", out), out[-3000:]
        return
    for path in (tmp_path / "site").rglob("*.html"):
        page = path.read_text(encoding="utf-8")
        assert "x49" not in page and ")}}49" not in page, path


def test_empty_catalog_is_one_clear_line(tmp_path):
    """Finding 5: a data folder with no data files at all is reported in words, one line per missing
    file, not as a Python traceback on a page or in the build log."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    for path in data.rglob("*.yaml"):
        path.unlink()
    proc = build_site(tmp_path / "site", "http://127.0.0.1:9/", {"IEM_DATA_DIR": str(data)}, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out, out[-3000:]
    for name in SINGLETONS:
        assert f"data/{name}.yaml: file is missing" in out, out[-3000:]
    assert not (tmp_path / "site" / "index.html").exists()
