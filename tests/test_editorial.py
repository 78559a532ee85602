"""Editorial guards: what readers see must not name internal sources or contradict the data.

- No built page says "seed" (the site cites public documents, never an internal brief).
- Text agrees with each engine's status: an engine's own prose never gives it another status (its
  milestones never do, even hedged), and no sentence on any page that names an engine calls it
  archived or in maintenance unless that is its status, or the sentence also names the status the
  data follows (the way a disagreement between sources is explained).
- Matrix rationales state the rubric level that matches their score; glossary terms reach the pages
  as generated abbreviations.

The checks are pure functions over text, tried first on made-up inputs that must fail, then on the
real data and the real build.
"""

import html
import re
from html.parser import HTMLParser

import pytest

from conftest import ROOT

SEED = re.compile(r"\bseed(?:s|ed)?\b", re.I)
# phrases that state a status; the key is the status they claim
STATUS_PHRASES = {
    "archived": re.compile(r"\b(?:archived|read-only|discontinued|abandoned|has exited|end[- ]of[- ]life|"
                           r"no longer (?:maintained|developed))\b", re.I),
    "maintenance": re.compile(r"\bmaintenance[- ]mode\b|\bin maintenance\b", re.I),
}
STATUS_WORD = {"archived": re.compile(r"\barchived\b", re.I), "maintenance": re.compile(r"\bmaintenance\b", re.I),
               "active": re.compile(r"\bactive\b", re.I)}
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


# -- the checks ------------------------------------------------------------------------------------

def sentences(text):
    return [s for s in SENTENCE.split(" ".join(text.split())) if s]


def engine_aliases(engine):
    """Names a sentence may use for an engine: its name, and the parts outside and inside brackets."""
    name = engine["name"]
    out = {name}
    m = re.fullmatch(r"(.+?)\s*\((.+)\)", name)
    if m:
        out |= {m.group(1).strip(), m.group(2).strip()}
    return {a for a in out if len(a) >= 3}


def claimed_statuses(text):
    """``[(status, phrase, start)]`` for every status phrase in ``text``."""
    return [(status, m.group(0), m.start()) for status, rx in STATUS_PHRASES.items() for m in rx.finditer(text)]


def own_prose_problems(engine):
    """An engine's own text that gives it a status other than its data status.

    Milestones are events and may not claim another status at all; elsewhere a sentence may report a
    claim it does not follow if it also names the status the data keeps."""
    status = engine["status"]["value"]
    fields = [("positioning", engine.get("positioning", "")), ("summary", engine.get("summary", "")),
              ("status.note", engine["status"].get("note", ""))]
    fields += [(f"pick_when[{i}]", t) for i, t in enumerate(engine.get("pick_when", []))]
    fields += [(f"avoid_when[{i}]", t) for i, t in enumerate(engine.get("avoid_when", []))]
    fields += [(f"relations[{i}].note", r.get("note", "")) for i, r in enumerate(engine.get("relations", []))]
    for i, f in enumerate(engine.get("figures", [])):
        fields += [(f"figures[{i}].{k}", f.get(k, "")) for k in ("display", "claim", "setup")]
    strict = [(f"milestones[{i}].event", m["event"]) for i, m in enumerate(engine.get("milestones", []))]
    out = []
    for where, text in fields:
        for sentence in sentences(text or ""):
            for claimed, phrase, _ in claimed_statuses(sentence):
                if claimed != status and not STATUS_WORD[status].search(sentence):
                    out.append(f"{engine['id']}: {where}: says {phrase!r} but the status is {status}: {sentence}")
    for where, text in strict:
        for claimed, phrase, _ in claimed_statuses(text):
            if claimed != status:
                out.append(f"{engine['id']}: {where}: a milestone says {phrase!r} but the status is {status}: {text}")
    return out


def sentence_problems(sentence, engines):
    """Status phrases in one sentence attributed to the nearest engine named before them."""
    mentions = []
    for e in engines:
        for alias in engine_aliases(e):
            for m in re.finditer(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", sentence):
                mentions.append((m.start(), e))
    out = []
    for claimed, phrase, at in claimed_statuses(sentence):
        before = [(pos, e) for pos, e in mentions if pos < at]
        # "archived TGI", "archived the TGI repository": the subject may follow the phrase closely
        after = [(pos, e) for pos, e in mentions if at + len(phrase) <= pos <= at + len(phrase) + 12
                 and not re.search(r"[,;:.()]", sentence[at + len(phrase):pos])]
        if before:
            subject = max(before, key=lambda x: x[0])[1]
        elif after:
            subject = min(after, key=lambda x: x[0])[1]
        else:
            continue
        status = subject["status"]["value"]
        if claimed != status and not STATUS_WORD[status].search(sentence):
            out.append(f"calls {subject['name']} {phrase!r} but its status is {status}: {sentence}")
    return out


class _Blocks(HTMLParser):
    """Visible text of a page by block (paragraph, list item, cell, heading), leaving out scripts,
    styles and external links (the titles of cited documents are quotes, not the site's words);
    ``titles`` collects title attributes, which readers see on hover."""

    BLOCK = {"p", "li", "td", "th", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "caption", "figcaption",
             "blockquote", "summary", "div", "section", "nav", "header", "footer", "label", "option", "title"}
    SKIP = {"script", "style", "template", "svg"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self.titles, self._cur, self._skip, self._ext = [], [], [], 0, 0

    def _flush(self):
        text = " ".join("".join(self._cur).split())
        if text:
            self.blocks.append(text)
        self._cur = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("title"):
            self.titles.append(attrs["title"])
        if tag in self.SKIP:
            self._skip += 1
        elif tag == "a" and (attrs.get("href") or "").startswith(("http://", "https://")):
            self._ext += 1
        elif tag in self.BLOCK or tag == "br":
            self._flush()

    def handle_endtag(self, tag):
        if tag in self.SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag == "a" and self._ext:
            self._ext -= 1
        elif tag in self.BLOCK:
            self._flush()

    def handle_data(self, data):
        if not self._skip and not self._ext:
            self._cur.append(data)

    def close(self):
        super().close()
        self._flush()


def page_text(markup):
    parser = _Blocks()
    parser.feed(markup)
    parser.close()
    return parser.blocks, parser.titles


def page_problems(markup, engines):
    blocks, titles = page_text(markup)
    out = [f"says {m.group(0)!r}: {t}" for t in blocks + titles for m in SEED.finditer(t)]
    for block in blocks:
        for sentence in sentences(block):
            out += sentence_problems(sentence, engines)
    return out


# -- the checks catch what they are meant to catch --------------------------------------------------

MAINT = {"id": "tgi", "name": "Text Generation Inference (TGI)", "status": {"value": "maintenance"}, "positioning": "p",
         "milestones": [{"event": "Maintenance-mode banner merged"}]}
ACTIVE = {"id": "vllm", "name": "vLLM", "status": {"value": "active"}, "positioning": "p"}
LMD = {"id": "lmdeploy", "name": "LMDeploy (TurboMind)", "status": {"value": "active"}, "positioning": "p"}


@pytest.mark.parametrize("markup", [
    "<p>The seed article attributes a 20% gain to NVIDIA GPUs.</p>",
    "<table><tr><td>As the SEED says</td></tr></table>",
    '<p><abbr title="from the seed brief">KV</abbr> cache</p>',
    "<p>If you hold GGUF, TGI has exited and vLLM is the only option.</p>",
    "<li>Hugging Face archived TGI in March.</li>",
    "<p>TGI, archived since 2026-03-21, still runs.</p>",
    "<p>vLLM is in maintenance mode.</p>",
    "<td>TurboMind is no longer maintained</td>",
])
def test_page_check_flags(markup):
    assert page_problems(markup, [MAINT, ACTIVE, LMD])


@pytest.mark.parametrize("markup", [
    "<p>TGI is in maintenance mode; new production deployments should go to vLLM or SGLang.</p>",
    "<p>Start with vLLM or SGLang instead: Hugging Face moved TGI to maintenance mode in December 2025.</p>",
    "<p>Hugging Face's former server, frozen in maintenance mode since December 2025 with vLLM named as its successor.</p>",
    "<p>A write-up reports TGI archived in March; Hugging Face's pages still say maintenance, the status kept here.</p>",
    '<li><a href="https://example.org/x">TGI archived: what happened</a> (third-party)</li>',
    "<td>Archived path only; GPU layers run in the checkpoint's dtype.</td>",
    "<p>Prefill and decode run on separate pools; the random generator is reset per request.</p>",
])
def test_page_check_passes(markup):
    assert page_problems(markup, [MAINT, ACTIVE, LMD]) == []


def test_own_prose_check_flags_milestones_and_unhedged_text():
    e = {**MAINT, "milestones": [{"event": "GitHub repository archived (read-only); status kept as maintenance"}]}
    assert any("milestones[0]" in p for p in own_prose_problems(e)), "a milestone may not claim another status"
    e = {**MAINT, "summary": "The project was discontinued in 2026."}
    assert any("summary" in p for p in own_prose_problems(e))
    e = {**ACTIVE, "avoid_when": ["You need support: it is in maintenance mode."]}
    assert any("avoid_when[0]" in p for p in own_prose_problems(e))
    e = {**MAINT, "status": {"value": "maintenance", "note": "Third-party reports say it was archived; the first-party "
                                                                "status, maintenance, is kept."}}
    assert own_prose_problems(e) == []


# -- the real data and the real site --------------------------------------------------------------------

def test_engine_prose_agrees_with_status(catalog):
    problems = [p for e in catalog.engines.values() for p in own_prose_problems(e)]
    assert not problems, "\n".join(problems)


def test_no_data_text_says_seed():
    found = []
    for path in sorted((ROOT / "data").rglob("*.yaml")) + sorted((ROOT / "docs").rglob("*.md")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SEED.search(line) and "url:" not in line:
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_built_pages_say_no_seed_and_agree_with_statuses(built_site, catalog):
    engines = list(catalog.engines.values())
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 30
    problems = []
    for page in pages:
        problems += [f"{page.relative_to(built_site)}: {p}" for p in page_problems(page.read_text(encoding="utf-8"), engines)]
    assert not problems, "\n".join(problems)


RUBRIC_LEVEL = re.compile(r"^(?:Anchor ([531])\b|Between ([13]) and ([35]):)")


def test_matrix_rationales_state_the_rubric_level_of_their_score(catalog):
    bad = []
    for d in catalog.matrix.values():
        assert set(d["rubric"]) == {"five", "three", "one"}, d["id"]
        for engine_id, s in d["scores"].items():
            m = RUBRIC_LEVEL.match(s["rationale"])
            if not m:
                bad.append(f"{d['id']}.{engine_id}: rationale does not start with 'Anchor N' or 'Between A and B:'")
            elif m.group(1) and int(m.group(1)) != s["score"]:
                bad.append(f"{d['id']}.{engine_id}: says anchor {m.group(1)} but scores {s['score']}")
            elif m.group(2) and not int(m.group(2)) < s["score"] < int(m.group(3)):
                bad.append(f"{d['id']}.{engine_id}: says between {m.group(2)} and {m.group(3)} but scores {s['score']}")
    assert not bad, "\n".join(bad)


def test_matrix_page_shows_the_rubric(built_site, catalog):
    page = (built_site / "matrix" / "index.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    assert "own judgements" in " ".join(text.split())
    for d in catalog.matrix.values():
        assert f'id="rubric-{d["id"]}"' in page
        for level in ("five", "three", "one"):
            assert " ".join(d["rubric"][level].split()) in " ".join(text.split()), (d["id"], level)


def test_glossary_page_and_abbreviations(built_site, catalog):
    terms = catalog.glossary["terms"]
    required = {"MLA", "GQA", "MHA", "MoE", "EP", "TP", "PP", "DP", "KV", "PD", "TTFT", "TPOT", "ITL", "W8A8", "W4A16",
                "AWQ", "GPTQ", "GGUF", "FP8", "NVFP4", "MXFP4", "L1", "L1.5", "L2", "L3", "LoRA", "MTP", "SWA"}
    assert required <= {t["term"] for t in terms}
    page = (built_site / "glossary" / "index.html").read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    for t in terms:
        assert f'id="term-{t["term"].lower()}"' in page, t["term"]
        assert " ".join(t["expansion"].split()) in text and " ".join(t["definition"].split()) in text, t["term"]
    # on a Markdown page every abbreviation carries the expansion from the data, and nothing else does
    expansion = {t["term"]: t["expansion"] for t in terms}
    seen = set()
    for name in ("index.html", "models/index.html", "quantization/index.html", "tiers/l1-5/index.html"):
        for title, term in re.findall(r'<abbr title="([^"]*)">([^<]*)</abbr>', (built_site / name).read_text(encoding="utf-8")):
            assert term in expansion and html.unescape(title) == expansion[term], (name, term, title)
            seen.add(term)
    assert {"MoE", "L1.5", "KV", "NVFP4"} <= seen, seen


def test_abbreviation_titles_are_text_not_markup():
    """The abbr extension takes the glossary as a dict and writes each expansion as an attribute."""
    import markdown
    hostile = '<img src=x onerror=alert(1)> "q" [x](javascript:y) {: onclick=z}'
    out = markdown.markdown("The KV cache.", extensions=["abbr"], extension_configs={"abbr": {"glossary": {"KV": hostile}}})
    assert out.count("<abbr") == 1 and "<img" not in out and "&lt;img" in out and "&quot;q&quot;" in out
