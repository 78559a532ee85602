"""The whole rendered answer, checked against CPython's JSON: what `make mutation-js` showed the other browser
tests could miss (the order's explanation, the memory-fit numbers and headline, the types of the numbers sent
to Python, the form's steps, a need left over from another scale). tests/mutation/js_mutations.py names the
page-script mutations each of these tests must catch."""

import json
import math
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urlencode

import pytest

from cases_lib import load_cases
from selector.api import answer
from test_browser_selector import FILL, FIT_CASES, RENDERED, form_expressible, open_page, rendered_from_json, wait_seq

pytestmark = pytest.mark.browser

# every request the page posts to the worker, as Python receives it (the worker may start in the page head)
SPY = """
window.__iemRequests = [];
const post = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (msg, ...rest) {
  try { if (msg && typeof msg.request === "string") window.__iemRequests.push(JSON.parse(msg.request)); } catch (e) {}
  return post.call(this, msg, ...rest);
};
"""

EXTRA = """
() => {
  const o = document.getElementById('selector-result');
  const text = (n) => n ? n.textContent.trim() : null;
  const summary = o.querySelector('.iem-fit-summary');
  return {
    why: [...o.querySelectorAll('[data-engine]')].map((c) => text(c.querySelector('.iem-why'))),
    scores: [...o.querySelectorAll('[data-engine] .iem-score')].map(text),
    fit: summary ? {headline: text(summary.querySelector('.iem-headline')),
                    rows: Object.fromEntries([...summary.querySelectorAll('tr')].map((tr) => [text(tr.querySelector('th')), text(tr.querySelector('td'))]))}
                 : null,
  };
}
"""


# -- the page's number formats (dom.js fmt), to compare text with CPython's numbers --------------------------

def js_number(p):
    return str(int(p)) if float(p).is_integer() else repr(p)


def fmt_points(p):
    return f"+{js_number(p)}" if p > 0 else js_number(p)


def fmt_int(n):
    return "–" if n is None else f"{math.floor(n + 0.5):,}"


def fmt_num(n, digits=1):
    if n is None:
        return "–"
    # toLocaleString rounds the shortest decimal form half away from zero (368.45 -> 368.5)
    text = f"{Decimal(repr(float(n))).quantize(Decimal(1).scaleb(-digits), ROUND_HALF_UP):,.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def headline(fit):
    """What the headline must say: selector.fit.headline writes it, the page only shows it."""
    return fit["headline"]


def check_fit_summary(shown, fit):
    assert shown["headline"] == headline(fit)
    rows = shown["rows"]
    assert rows["Weights"] == f"{fmt_num(fit['weights_gib'], 2)} GiB (checkpoint {fmt_num(fit['weights_gb'], 2)} GB)"
    assert rows["KV cache for the load asked"] == f"{fmt_num(fit['kv_cache_gib'], 2)} GiB"
    assert rows["Runtime reserve"] == f"{fmt_num(fit['overhead_gib'], 2)} GiB"
    assert rows["Fits (weights + one sequence)"] == ("yes" if fit["fits"] else "with offload" if fit["fits_with_offload"] else "no")
    cap = fit["capacity"]
    assert cap and fit["speed"], "the selector's fit always carries capacity and speed"
    assert rows["KV-cache capacity"] == f"{fmt_int(cap['kv_tokens'])} tokens"
    assert rows["Sequences at this context"] == fmt_int(cap["max_sequences"])
    assert rows["Longest context at this concurrency"] == f"{fmt_int(cap['max_context_tokens'])} tokens"
    speed = fit["speed"]
    assert rows["Decode speed per sequence"] == (speed["basis"] if speed["decode_tokens_per_s"] is None
                                                 else f"{fmt_num(speed['decode_tokens_per_s'])} tokens/s ({speed['label']})")


# -- tests ----------------------------------------------------------------------------------------------------

FEATURES = {
    "a fallback candidate": lambda r: any(c["fallback"] for c in r["candidates"]),
    "exactly one warning": lambda r: len(r["warnings"]) == 1,
    "several warnings": lambda r: len(r["warnings"]) > 1,
    "a memory fit": lambda r: bool(r.get("fit")),
    "a fit with offload": lambda r: bool(r.get("fit")) and r["fit"]["fits_with_offload"] and not r["fit"]["fits"],
    "a suggestion": lambda r: bool(r["suggestions"]),
    "exclusions": lambda r: bool(r["excluded"]),
    "a cited reason": lambda r: any(x["source"] for c in r["candidates"] for x in c["reasons"]),
    "measured results": lambda r: any(c["measured"] for c in r["candidates"]),
    "no candidate": lambda r: not r["candidates"],
}


def covering_cases(catalog):
    """A few form-expressible cases that together show every part an answer can have."""
    chosen, missing = [], dict(FEATURES)
    for case in (c for c in load_cases() if form_expressible(c)):
        result = answer(catalog, "recommend", case["answers"])["result"]
        hits = [name for name, has in missing.items() if has(result)]
        if hits:
            chosen.append(case)
            for name in hits:
                del missing[name]
    assert not missing, f"no case in tests/cases shows {sorted(missing)}"
    return chosen


def test_whole_answer_rendered(page, catalog):
    """Every part of the answer on the page equals CPython's: candidates in order with score, reasons, points,
    sources, measured rows and the "why this place" line; exclusions with their reasons; warnings; suggestions;
    the tree path; the memory-fit headline and numbers."""
    cases = covering_cases(catalog)
    assert len(cases) <= 10
    open_page(page, "selector/")
    for case in cases:
        before = page.evaluate(FILL, [case["answers"]])
        wait_seq(page, before)
        got = page.evaluate(RENDERED)
        extra = page.evaluate(EXTRA)
        expected = json.loads(json.dumps(answer(catalog, "recommend", case["answers"]), sort_keys=True))
        assert got["state"] == "ready" and got["response"] == expected, case["id"]
        result = expected["result"]
        shown = {k: got[k] for k in ("cards", "excluded", "warnings", "suggestions", "path")}
        assert shown == rendered_from_json(result), case["id"]
        assert extra["scores"] == [f"{fmt_num(c['score'])} points" for c in result["candidates"]], case["id"]
        assert extra["why"] == [("Why this place: " + "; ".join(f"{w['text']} ({fmt_points(w['points'])})" for w in c["why"]))
                                if c.get("why") else None for c in result["candidates"]], case["id"]
        if result.get("fit"):
            check_fit_summary(extra["fit"], result["fit"])
        else:
            assert extra["fit"] is None, case["id"]
    assert not page.errors


def test_fit_headlines_say_what_the_numbers_say(page, catalog):
    open_page(page, "fit/?" + urlencode(FIT_CASES[0]))
    for i, case in enumerate(FIT_CASES):
        if i:
            wait_seq(page, page.evaluate(FILL, [case]))
        got = page.evaluate(RENDERED)
        fit = answer(catalog, "fit", case)["result"]
        assert got["headline"] == headline(fit), case
    # said in words for the two cases a reader acts on
    offload = answer(catalog, "fit", FIT_CASES[1])["result"]
    assert offload["offload"]["method"] == "experts" and "the routed experts in host RAM" in headline(offload)
    assert headline(answer(catalog, "fit", FIT_CASES[0])["result"]).startswith("Fits on 1 × NVIDIA H100")
    assert not page.errors


def requests_sent(page):
    return page.evaluate("() => window.__iemRequests")


def test_numbers_reach_python_as_numbers(page, catalog):
    """Plain decimals from a link or the form cross to Python as JSON numbers; anything else as the text typed,
    so that Python names it."""
    page.add_init_script(SPY)
    numbers = {"model": "llama-3.1-70b", "gpus": 2, "gpu_memory_gb": 48.5, "context_tokens": 32768, "concurrency": 4}
    open_page(page, "fit/?" + urlencode(numbers))
    sent = requests_sent(page)[-1]["answers"]
    assert sent == numbers and all(type(sent[k]) is type(v) for k, v in numbers.items()), sent
    typed = {**numbers, "gpus": 4, "context_tokens": 8192}
    wait_seq(page, page.evaluate(FILL, [typed]))
    sent = requests_sent(page)[-1]["answers"]
    assert {k: sent[k] for k in typed} == typed and all(type(sent[k]) is type(v) for k, v in typed.items()), sent
    for bad in ("0x10", "8x", "1e3"):
        open_page(page, "fit/?" + urlencode({"model": "qwen3-8b", "gpu_memory_gb": bad}))
        assert requests_sent(page)[-1]["answers"]["gpu_memory_gb"] == bad
        got = page.evaluate(RENDERED)
        assert got["state"] == "error" and got["response"]["error"]["key"] == "gpu_memory_gb"
        assert repr(bad) in got["response"]["error"]["message"]


def test_number_fields_step_by_their_type(page, catalog):
    """Whole-number questions step by 1 (a fraction is a step mismatch); the others take any decimal."""
    kinds = {q["key"]: q["type"] for q in catalog.questions["questions"]}
    for path in ("selector/", "fit/"):
        open_page(page, path, wait=False)  # the fit page waits for a model: no answer to wait for
        page.wait_for_selector("#selector-form")
        fields = page.eval_on_selector_all("form input[type=number]", "es => es.map(e => [e.name, e.step])")
        assert fields
        for name, step in fields:
            assert step == ("1" if kinds[name] == "integer" else "any"), (path, name, step)
        integer = next(name for name, _ in fields if kinds[name] == "integer")
        mismatch = page.evaluate("(n) => { const e = document.querySelector(`form input[name=${n}]`); const v = e.value;"
                                 " e.value = '1.5'; const m = e.validity.stepMismatch; e.value = v; return m; }", integer)
        assert mismatch is True, (path, integer)


def test_changing_scale_drops_a_need_of_the_other_scale(page, catalog):
    page.add_init_script(SPY)
    open_page(page, "selector/?scale=local&need=edge-cpu")
    before = page.evaluate(RENDERED)["seq"]
    page.select_option("#q-scale", "service")
    wait_seq(page, before)
    assert page.eval_on_selector("#q-need", "e => e.value") == ""
    sent = requests_sent(page)[-1]["answers"]
    assert sent["scale"] == "service" and "need" not in sent, sent
    got = page.evaluate(RENDERED)
    assert got["state"] == "ready", got["response"]
    assert got["response"] == json.loads(json.dumps(answer(catalog, "recommend", sent), sort_keys=True))
