"""Property tests: the selector never crashes, whatever the answers.

Answers come from the browser form, the CLI or a hand-written JSON request, so anything can arrive.
selector.rules.recommend and selector.api.run_fit either answer or raise selector.inputs.InputError
with a one-line message naming the key; selector.api.answer/handle always return strict JSON.
About 10,000 generated inputs in total (see EXAMPLES), derandomized so a run is repeatable.
"""

import json
import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from selector import api
from selector.catalog import trim_for_selector
from datatools.files import load_data_dir
from selector.inputs import InputError, show_value, options
from selector.rules import recommend

CATALOG, _PROBLEMS = load_data_dir(ROOT / "data")
assert not [p for p in _PROBLEMS if p.severity == "error"]
QUESTIONS = {q["key"]: q for q in CATALOG.questions["questions"]}
SELECTOR_KEYS = [k for k, q in QUESTIONS.items() if q.get("page", "both") in ("selector", "both")]
FIT_KEYS = [k for k, q in QUESTIONS.items() if q.get("page", "both") in ("fit", "both")]
SCALES = options(CATALOG, "tree-scales")
NEEDS = {scale: options(CATALOG, "tree-needs", scale) for scale in SCALES}
ALL_IDS = sorted({v for q in QUESTIONS.values() if q.get("options_from")
                  for v in options(CATALOG, q["options_from"])} | {n for ns in NEEDS.values() for n in ns})

EXAMPLES = {"valid": 2000, "junk": 2500, "fit": 1500, "answer": 1500, "handle": 1500, "property": 300}
# `make mutation` runs each mutant against a small share of the budget (IEM_FUZZ_SCALE=0.02); the full suite uses all
SCALE = float(os.environ.get("IEM_FUZZ_SCALE", "1"))
SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


def fuzz(kind):
    return settings(max_examples=max(10, round(EXAMPLES[kind] * SCALE)), **SETTINGS)


# -- strategies -------------------------------------------------------------------------------

def valid_value(key, scale=None):
    q = QUESTIONS[key]
    if q["type"] == "choice":
        return st.sampled_from(NEEDS[scale] if key == "need" else options(CATALOG, q["options_from"]))
    if q["type"] == "multi":
        return st.lists(st.sampled_from(options(CATALOG, q["options_from"])), max_size=4)
    low, high = q.get("minimum", 0), q.get("maximum", 10**6)
    if q["type"] == "integer":
        return st.integers(min_value=low, max_value=high)
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)


def consistent(answers):
    """Drop the answers that contradict each other (a GPU from the list brings its memory, family and layout)."""
    out = dict(answers)
    gpu = CATALOG.gpus.get(out.get("gpu") or "")
    if gpu:
        for key in ("gpu_memory_gb", "bandwidth_gbs"):
            out.pop(key, None)
        if "hardware" in out:
            out["hardware"] = gpu["hardware"]
        out.pop("memory", None)
    if out.get("memory") == "cpu":
        out.pop("gpu_memory_gb", None)
    if out.get("kv_cache") and out.get("engine"):
        out.pop("kv_cache")
    return out


def valid_answers(keys=SELECTOR_KEYS, with_scale=True):
    """Answers the selector must accept: real option ids for the scale drawn, numbers within range, no two
    answers that contradict each other."""
    def for_scale(scale):
        required = {"scale": st.just(scale)} if with_scale and "scale" in keys else {}
        optional = {key: valid_value(key, scale) for key in keys if key != "scale"}
        return st.fixed_dictionaries(required, optional=optional).map(consistent)
    return st.one_of([for_scale(scale) for scale in SCALES])  # static strategies: flatmap is much slower


def huge_int():
    return 10**5000  # repr() refuses more than 4300 digits


def deep_list():
    out = []
    for _ in range(5000):
        out = [out]  # repr() of it exceeds the recursion limit
    return out


def huge_digits():
    return "9" * 5000  # int(text) refuses more than 4300 digits


def times_10_to_300(n):
    return n * 10**300


numbers = st.one_of(
    st.integers(), st.integers(-(10**6), 10**6).map(times_10_to_300),
    st.floats(), st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e308, -1e308, 5e-324]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, st.sampled_from(ALL_IDS), st.text(max_size=12),
                    st.sampled_from(["", " ", "service ", "SERVICE", "8", "1e999", "nan", "-1", "0x10"]),
                    st.builds(huge_digits), st.builds(huge_int), st.builds(deep_list))
junk_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                            st.dictionaries(st.text(max_size=4), inner, max_size=2)),
                           max_leaves=4)
junk_keys = st.one_of(st.sampled_from(list(QUESTIONS)), st.sampled_from(["Scale", "scale ", "hw", "", "answers"]),
                      st.text(max_size=12))


def mixed_answers(keys=SELECTOR_KEYS):
    """Valid answers (with or without a scale) with up to two junk keys or junk values mixed in."""
    junk = st.dictionaries(junk_keys, st.one_of(junk_values, st.sampled_from(ALL_IDS)), max_size=2)
    return st.builds(lambda valid, extra: {**valid, **extra},
                     st.one_of(valid_answers(keys), valid_answers(keys, with_scale=False)), junk)


any_answers = st.one_of(mixed_answers(), st.dictionaries(junk_keys, junk_values, max_size=4), junk_values)


# -- checks -----------------------------------------------------------------------------------

def check_input_error(exc):
    message = str(exc)
    assert message and len(message.splitlines()) == 1, message
    key = exc.key
    assert isinstance(key, str), key
    assert key in message or show_value(key) in message, (key, message)
    json.dumps(exc.to_dict(), allow_nan=False)


def check_reason(r):
    assert isinstance(r, dict) and isinstance(r["text"], str) and r["text"].strip(), r
    assert isinstance(r["points"], (int, float)) and math.isfinite(r["points"]), r
    assert r["source"] is None or r["source"]["url"].startswith("https://"), r


def check_result(result):
    json.dumps(result, allow_nan=False)
    for cand in result["candidates"]:
        assert cand["reasons"], cand
        for r in cand["reasons"]:
            check_reason(r)
        assert cand["score"] == pytest.approx(sum(r["points"] for r in cand["reasons"]), abs=0.11), cand
    for row in result["excluded"]:
        assert row["reasons"] and all(r["text"] for r in row["reasons"]), row
    if not result["candidates"]:
        assert result["warnings"], result
    assert len(result["candidates"]) <= 3
    scores = [c["score"] for c in result["candidates"] if not c["fallback"]]
    assert scores == sorted(scores, reverse=True), result["candidates"]  # best first within the tier asked
    assert len({c["engine"] for c in result["candidates"]}) == len(result["candidates"])


def strict_json(text):
    def no_constants(name):
        raise AssertionError(f"non-standard JSON constant {name} in {text[:200]}")
    return json.loads(text, parse_constant=no_constants)


# -- properties -------------------------------------------------------------------------------

@fuzz("valid")
@given(valid_answers())
def test_valid_answers_always_answered(answers):
    result = recommend(CATALOG, answers)
    check_result(result)
    assert result["answers"]["scale"] == answers["scale"]


@fuzz("junk")
@given(any_answers)
def test_recommend_raises_only_input_error(answers):
    try:
        result = recommend(CATALOG, answers)
    except InputError as exc:
        check_input_error(exc)
    else:
        check_result(result)


@fuzz("fit")
@given(st.one_of(valid_answers(FIT_KEYS, with_scale=False), mixed_answers(FIT_KEYS), any_answers))
def test_run_fit_raises_only_input_error(answers):
    try:
        result = api.run_fit(CATALOG, answers)
    except InputError as exc:
        check_input_error(exc)
    else:
        json.dumps(result, allow_nan=False)
        assert result["required_gb"] > 0 and result["notes"]


@fuzz("answer")
@given(st.one_of(st.sampled_from(["recommend", "fit"]), junk_values), any_answers)
def test_answer_is_always_json(op, answers):
    response = api.answer(CATALOG, op, answers)
    strict_json(json.dumps(response, allow_nan=False))
    if response["ok"] is True:
        assert set(response) == {"ok", "result"}
        assert ("candidates" in response["result"]) == (op == "recommend")
    else:
        assert response["ok"] is False and set(response) == {"ok", "error"}
        assert set(response["error"]) == {"key", "value", "message", "detail", "label", "allowed"}
        assert len(response["error"]["message"].splitlines()) == 1


@pytest.fixture(scope="module")
def loaded_api():
    saved = api._catalog
    api.load(json.dumps(trim_for_selector(CATALOG.raw)))
    yield
    api._catalog = saved


def _request_text(request):
    try:
        return json.dumps(request)  # allow_nan: NaN/Infinity literals reach json.loads as a client could send them
    except (ValueError, RecursionError):  # a 5000-digit int or a 5000-deep list has no JSON text
        return "null"


def deep_json():
    return "[" * 100000 + "]" * 100000  # json.loads hits the recursion limit


def huge_number_json():
    return '{"op": 1' + "0" * 5000 + "}"  # json.loads refuses the int


requests = st.one_of(
    st.builds(lambda op, answers: _request_text({"op": op, "answers": answers}),
              st.sampled_from(["recommend", "fit"]), st.one_of(mixed_answers(), mixed_answers(FIT_KEYS))),
    st.builds(lambda req: _request_text(req), junk_values),
    st.text(max_size=40),
    st.sampled_from(["", "{", "[]", "null", '{"op": "recommend"}', '{"op": "recommend", "answers": []}',
                     '{"op": "fit", "answers": {"model": "qwen3-8b", "gpu_memory_gb": NaN}}']),
    st.builds(deep_json), st.builds(huge_number_json),
)


@fuzz("handle")
@given(requests)
def test_handle_always_returns_strict_json(loaded_api, text):
    response = strict_json(api.handle(text))
    if response["ok"] is True:
        if isinstance(response["result"], dict) and "candidates" in response["result"]:
            check_result(response["result"])
    else:
        assert response["ok"] is False and response["error"]["message"]


# -- properties of the answers ------------------------------------------------------------------

HARDWARE_DRAWN = st.fixed_dictionaries({"scale": st.sampled_from(SCALES), "hardware": st.sampled_from(sorted(CATALOG.hardware))},
                                       optional={"quantization": valid_value("quantization"), "weights": valid_value("weights"),
                                                 "workload": valid_value("workload")})


def documented_no(engine, answers):
    """What the engine's own file says "no" to among these answers (read from the data, not from the rules)."""
    said = []
    if engine["status"]["value"] != "active":
        said.append("status")
    row = CATALOG.support(engine, "hardware", answers["hardware"])
    if row and row["support"] == "no":
        said.append("hardware")
    if answers.get("weights"):
        row = CATALOG.support(engine, "formats", answers["weights"])
        if row and row["support"] == "no":
            said.append("format")
    if answers.get("quantization") and (engine.get("quantization") or engine["kind"] == "engine"):
        rows = [r for r in engine.get("quantization", []) if r["id"] == answers["quantization"] and answers["hardware"] in r["hardware"]]
        if rows and all(r["support"] == "no" for r in rows):
            said.append("quantization")
    for item in answers.get("workload", []):
        spec = CATALOG.questions["workloads"][item]
        fact = (engine.get("features") or {}).get(spec["feature"]) or {}
        if spec["gate"] and fact.get("value") == "no":
            said.append(item)
    return said


@fuzz("property")
@given(HARDWARE_DRAWN)
def test_a_documented_no_always_excludes(answers):
    """Hardware, weight format, quantization on that hardware, a gated workload feature, a status other than active:
    an engine whose file says no is never offered (not even from a neighbouring tier) and, when listed, is ruled out."""
    result = recommend(CATALOG, answers)
    offered = {c["engine"] for c in result["candidates"]}
    excluded = {x["engine"] for x in result["excluded"]}
    assert not offered & excluded
    said_no = 0
    for engine in CATALOG.engines.values():
        if documented_no(engine, answers):
            said_no += 1
            assert engine["id"] not in offered, (engine["id"], documented_no(engine, answers), answers)
    assert said_no >= 1  # TGI's status at least: the property is never vacuous


@fuzz("property")
@given(st.fixed_dictionaries({"scale": st.sampled_from(SCALES), "hardware": st.sampled_from(sorted(CATALOG.hardware))}))
def test_undocumented_support_never_excludes(answers):
    result = recommend(CATALOG, answers)
    for row in result["excluded"]:
        engine = CATALOG.engines[row["engine"]]
        documented = CATALOG.support(engine, "hardware", answers["hardware"])
        if documented is None and engine["status"]["value"] == "active":
            assert not any(answers["hardware"] in r["text"] or CATALOG.hardware[answers["hardware"]]["name"] in r["text"]
                           for r in row["reasons"]), row


FIT_DRAWN = st.fixed_dictionaries({
    "model": st.sampled_from(sorted(CATALOG.models)), "gpu_memory_gb": st.integers(4, 400),
    "gpus": st.sampled_from([1, 2, 4, 8]), "context_tokens": st.sampled_from([1024, 8192, 32768, 131072]),
}, optional={"quantization": valid_value("quantization"), "kv_cache": valid_value("kv_cache"), "ram_gb": st.integers(8, 2048)})


@fuzz("property")
@given(FIT_DRAWN)
def test_more_memory_never_turns_a_fit_into_a_non_fit(answers):
    small = api.run_fit(CATALOG, answers)
    bigger = {**answers, "gpu_memory_gb": answers["gpu_memory_gb"] * 2}
    if not answers.get("quantization"):  # with no preference more memory may buy precision, never lose it
        chosen = api.run_fit(CATALOG, bigger)
        bits = lambda q: CATALOG.quantization[q]["bits_per_weight"]  # noqa: E731
        assert small["fits"] <= chosen["fits"] and (not small["fits"] or int(bits(chosen["quantization"])) >= int(bits(small["quantization"])))
    same = {"quantization": small["quantization"]}
    if not answers.get("quantization") and small["assumptions"]["engine"]:
        same["engine"] = small["assumptions"]["engine"]  # the scheme chosen and the engine it was priced with
    large = api.run_fit(CATALOG, {**bigger, **same})
    if small["fits"]:
        assert large["fits"]
        assert large["capacity"]["kv_tokens"] >= small["capacity"]["kv_tokens"]
    if small["fits_with_offload"]:
        assert large["fits_with_offload"]


@fuzz("property")
@given(FIT_DRAWN)
def test_another_gpu_never_removes_an_engine_that_fit(answers):
    base = {**answers, "scale": "service"}
    base.pop("ram_gb", None)
    fewer = recommend(CATALOG, base)
    more = recommend(CATALOG, {**base, "gpus": answers["gpus"] * 2})
    ruled_out_before = {x["engine"] for x in fewer["excluded"]}
    for row in more["excluded"]:
        assert row["engine"] in ruled_out_before, (row, answers)
