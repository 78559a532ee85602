"""Hostile text in every free-text field of the data must come out as literal text, everywhere.

A copy of ``data/`` gets payloads (HTML, script breakouts, attribute breakouts, Jinja, ``javascript:``
URLs in text, Markdown) in every kind of free-text field while staying valid; the site is built from
it and every page, the search box and the selector are checked in Chromium: no dialog, no element or
attribute created by a payload, every payload visible as the exact text that was written.
"""

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT, build_site, free_port

PAYLOADS = [
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
]


def _tag(n):
    """A marker that makes each (field, payload) pair findable; plain letters survive Markdown."""
    return f"zq{n}z"


class Injector:
    """Walks the raw data and replaces free-text fields with tagged payloads, round-robin per field type."""

    def __init__(self, raw):
        self.raw = raw
        self.n = 0
        self.tried = {}      # field type -> set of payload indexes
        self.expected = {}   # literal text -> field type
        self.where = {}      # field type -> list of literal texts

    def value(self, field, i, cap=120):
        p = PAYLOADS[i % len(PAYLOADS)]
        self.n += 1
        text = f"{_tag(self.n)} {p}"
        assert len(text) <= cap
        self.tried.setdefault(field, set()).add(i % len(PAYLOADS))
        self.expected[text] = field
        self.where.setdefault(field, []).append(text)
        return text

    def set(self, field, obj, key, i, cap=120):
        if key in obj and isinstance(obj[key], str):
            obj[key] = self.value(field, i, cap)
            return i + 1
        return i

    def each(self, field, items, key, start=0):
        i = start
        for obj in items:
            i = self.set(field, obj, key, i)
        return i

    def strings(self, field, lst, start=0):
        for j in range(len(lst)):
            lst[j] = self.value(field, start + j)
        return start + len(lst)


def inject(raw):
    inj = Injector(raw)
    engines = [raw["engines"][k] for k in sorted(raw["engines"])]
    # every field type gets every payload at least once when it has enough instances; a field type
    # with few instances starts at a different offset so the payloads spread over the types
    counters = {}

    def nxt(field, k=1):
        c = counters.get(field, 0)
        counters[field] = c + k
        return c

    for e in engines:
        inj.set("engine.name", e, "name", nxt("engine.name"))
        inj.set("engine.positioning", e, "positioning", nxt("engine.positioning"))
        inj.set("engine.summary", e, "summary", nxt("engine.summary"))
        inj.strings("engine.pick_when", e["pick_when"], nxt("engine.pick_when", len(e["pick_when"])))
        inj.strings("engine.avoid_when", e["avoid_when"], nxt("engine.avoid_when", len(e["avoid_when"])))
        for key in sorted(e["features"]):
            inj.set("engine.feature.note", e["features"][key], "note", nxt("engine.feature.note"))
        for lst, field in (("hardware", "engine.hardware.note"), ("formats", "engine.format.note"),
                           ("quantization", "engine.quantization.note"), ("relations", "engine.relation.note")):
            for item in e.get(lst, []):
                inj.set(field, item, "note", nxt(field))
        inj.set("engine.status.note", e["status"], "note", nxt("engine.status.note"))
        for f in e.get("figures", []):
            for key in ("display", "claim", "setup"):
                inj.set(f"figure.{key}", f, key, nxt(f"figure.{key}"))
        for m in e.get("milestones", []):
            inj.set("engine.milestone.event", m, "event", nxt("engine.milestone.event"))
        inj.set("engine.maintainer", e["maintainer"], "value", nxt("engine.maintainer"))
    for collection in ("quantization", "hardware", "formats", "gpus", "models", "trends", "matrix", "tiers", "scenarios"):
        for entry in (raw[collection][k] for k in sorted(raw[collection])):
            for f in entry.get("figures", []):
                for key in ("display", "claim", "setup"):
                    inj.set(f"figure.{key}", f, key, nxt(f"figure.{key}"))
    for collection in ("engines", "quantization", "hardware", "formats", "gpus", "models", "trends", "matrix"):
        for entry in (raw[collection][k] for k in sorted(raw[collection])):
            for key in sorted(entry.get("sources") or {}):
                inj.set("source.title", entry["sources"][key], "title", nxt("source.title"))
    for q in (raw["quantization"][k] for k in sorted(raw["quantization"])):
        inj.set("quantization.name", q, "name", nxt("quantization.name"))
        inj.set("quantization.summary", q, "summary", nxt("quantization.summary"))
    for h in (raw["hardware"][k] for k in sorted(raw["hardware"])):
        inj.set("hardware.name", h, "name", nxt("hardware.name"))
        inj.set("hardware.summary", h, "summary", nxt("hardware.summary"))
    for g in (raw["gpus"][k] for k in sorted(raw["gpus"])):
        inj.set("gpu.note", g, "note", nxt("gpu.note"))
    for f in (raw["formats"][k] for k in sorted(raw["formats"])):
        inj.set("format.name", f, "name", nxt("format.name"))
        inj.set("format.summary", f, "summary", nxt("format.summary"))
    for m in (raw["models"][k] for k in sorted(raw["models"])):
        inj.set("model.name", m, "name", nxt("model.name"))
        inj.set("model.note", m, "note", nxt("model.note"))
    for t in (raw["tiers"][k] for k in sorted(raw["tiers"])):
        for key in ("name", "audience", "summary", "pick_within", "mistake"):
            inj.set(f"tier.{key}", t, key, nxt(f"tier.{key}"))
        inj.strings("tier.what_matters", t["what_matters"], nxt("tier.what_matters", len(t["what_matters"])))
    for t in (raw["trends"][k] for k in sorted(raw["trends"])):
        for key in ("title", "summary", "selection_impact"):
            inj.set(f"trend.{key}", t, key, nxt(f"trend.{key}"))
        for p in t["points"]:
            inj.set("trend.point.text", p, "text", nxt("trend.point.text"))
    for d in (raw["matrix"][k] for k in sorted(raw["matrix"])):
        inj.set("matrix.name", d, "name", nxt("matrix.name"))
        inj.set("matrix.question", d, "question", nxt("matrix.question"))
        for key in sorted(d["scores"]):
            inj.set("matrix.rationale", d["scores"][key], "rationale", nxt("matrix.rationale"))
        for key in ("five", "three", "one"):
            inj.set("matrix.rubric", d["rubric"], key, nxt("matrix.rubric"))
    for s in (raw["scenarios"][k] for k in sorted(raw["scenarios"])):
        inj.set("scenario.situation", s, "situation", nxt("scenario.situation"))
        inj.set("scenario.answer", s, "answer", nxt("scenario.answer"))
    tree = raw["tree"]
    inj.set("tree.question", tree, "question", nxt("tree.question") + 3)
    for b in tree["branches"]:
        inj.set("tree.branch.label", b, "label", nxt("tree.branch.label"))
        inj.set("tree.branch.question", b, "question", nxt("tree.branch.question") + 5)
        for leaf in b["leaves"]:
            inj.set("tree.leaf.label", leaf, "label", nxt("tree.leaf.label") + 2)
            inj.set("tree.leaf.note", leaf, "note", nxt("tree.leaf.note") + 7)
    for w in tree["warnings"]:
        inj.set("tree.warning", w, "text", nxt("tree.warning"))
    # glossary expansions also become the title of every <abbr> on the Markdown pages
    for term in raw["glossary"]["terms"]:
        inj.set("glossary.expansion", term, "expansion", nxt("glossary.expansion"))
        inj.set("glossary.definition", term, "definition", nxt("glossary.definition"))
    qs = raw["questions"]
    for q in qs["questions"]:
        inj.set("question.label", q, "label", nxt("question.label"))
        inj.set("question.help", q, "help", nxt("question.help"))
    for key in sorted(qs["workloads"]):
        inj.set("workload.label", qs["workloads"][key], "label", nxt("workload.label"))
    for key in sorted(qs["priorities"]):
        inj.set("priority.label", qs["priorities"][key], "label", nxt("priority.label"))
    return inj


def write_data(src, dest, raw):
    """Copy ``src`` (schemas included) to ``dest`` and rewrite every data file from ``raw``."""
    import yaml
    from selector.catalog import COLLECTIONS, SINGLETONS

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
    from selector.files import read_data_dir
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
    from selector.files import load_data_dir
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
    from selector.files import load_data_dir
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
    assert len(inj.tried) >= 45, sorted(inj.tried)
    # field types with enough instances carry every payload
    for field, seen in inj.tried.items():
        count = len(inj.where[field])
        assert len(seen) == min(count, len(PAYLOADS)), (field, seen)
    covered = set().union(*inj.tried.values())
    assert covered == set(range(len(PAYLOADS)))


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
        elif self.stack and self.stack[-1] in ("em", "strong", "code") and re.match(r"\s*(emphasis|bold)", data):
            self.bad.append(f"<{self.stack[-1]}>{data}")
        if re.search(r"zq\d+z 49\b", data):
            self.bad.append(f"Jinja ran: {data.strip()[:80]}")


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
  for (const em of document.querySelectorAll('em, strong, code, b, h1, h2, h3, h4, h5, h6'))
    if (/^\s*(emphasis|bold|heading)/.test(em.textContent)) bad.push('markdown ' + em.outerHTML);
  const texts = [document.title, document.body.innerText];
  for (const n of document.querySelectorAll('[title],[aria-label],[data-md-tooltip]'))
    texts.push(n.getAttribute('title') || '', n.getAttribute('aria-label') || '');
  for (const o of document.querySelectorAll('option')) texts.push(o.textContent);
  return { bad, text: texts.join('\\n'), scripts: document.scripts.length };
}"""


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
            pg.wait_for_selector("[data-diagram][data-rendered]", timeout=20000)
            assert pg.get_attribute("[data-diagram]", "data-rendered") == "1"
            # Mermaid has its own entity codes and Markdown strings: the labels still read as written
            labels = set(pg.eval_on_selector_all(".iem-diagram-svg .nodeLabel, .iem-diagram-svg .edgeLabel",
                                                 "(els) => els.map((e) => e.textContent)"))
            inj = hostile["inj"]
            for field in ("tree.question", "tree.branch.label", "tree.leaf.label"):
                for literal in inj.where[field]:
                    assert literal in labels, f"diagram shows {field} {literal!r} differently: {sorted(labels)}"
        _check(pg, rel, seen)
    text = "\n".join(seen)
    inj = hostile["inj"]
    # everything rendered on the static pages (selector-only fields are checked below)
    selector_only = {"question.label", "question.help", "workload.label", "priority.label"}
    not_rendered = {"hardware.summary", "model.note"}  # only in api/catalog.json
    missing = [(f, t) for t, f in inj.expected.items() if f not in selector_only | not_rendered and t not in text]
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
    for field in ("engine.name", "engine.summary", "tier.name", "trend.title", "engine.pick_when"):
        for literal in inj.where[field][:len(PAYLOADS)]:
            tag = literal.split(" ", 1)[0]
            query.fill("")
            query.type(tag)
            pg.wait_for_function("(tag) => [...document.querySelectorAll('.md-search-result__item mark')]"
                                 ".some((m) => m.textContent === tag)", arg=tag, timeout=10000)
            _check(pg, f"search {field} {tag}", [])
            results = pg.inner_text(".md-search-result__list")
            shown += literal in results
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
    text = "\n".join(seen)
    inj = hostile["inj"]
    # the fields the selector reads show up literally in its answers and its form
    for field in ("question.label", "question.help", "workload.label", "priority.label", "tree.warning",
                  "tree.branch.label", "tree.leaf.label", "tree.question", "matrix.name", "model.name",
                  "hardware.name", "format.name", "quantization.name"):
        shown = [t for t in inj.where[field] if t in text]
        assert shown, f"{field}: none of {inj.where[field][:3]} shown in the selector"
    for field in ("engine.feature.note", "matrix.rationale", "source.title", "engine.name", "engine.positioning",
                  "engine.hardware.note"):
        shown = {PAYLOADS.index(t.split(" ", 1)[1]) for t in inj.where[field] if t in text}
        assert len(shown) >= 3, f"{field}: only payloads {shown} reached the selector's answers"
    assert not re.search(r"zq\d+z 49\b", text)
    assert not pg.errors, pg.errors
