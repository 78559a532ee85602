"""Loads the table-driven selector cases and checks one result against its expectations.

Shared by the CPython tests and the browser tests, so both hold the page to the same table.

Expectation keys (all optional):
  first / second            the first / second candidate's engine id
  first_in                  the first candidate is one of these
  not_first                 this engine is not the first candidate
  candidates_include        every one of these is a candidate
  candidates_include_any    at least one of these is a candidate
  not_candidates            none of these is a candidate
  excluded                  {engine: fragment}: the engine is ruled out and a reason holds the fragment
  not_excluded              none of these is ruled out
  excluded_any_contains     some exclusion reason holds this fragment
  warnings_contain          every fragment appears in some warning
  warnings_exclude          no warning holds any of these fragments
  reason_contains           {engine: fragment}: a reason of that candidate holds the fragment
  suggestion_contains       every fragment appears in some suggestion
  measured_contains         {engine: fragment}: a measured row quoted for that candidate holds the fragment
  effective_quantization_in the quantization the answer assumed (or was given) is one of these
  fallback                  true: some candidate comes from a fallback tier
  fit                       {key: value} of the fit estimate
  leaf                      the tree leaf taken
  inferred                  every fragment appears in why the leaf was inferred (the leaf's own entry of the path)
  no_candidates             true: the answer is empty (with a warning)
  fired                     rules that must fire (CPython only)
  order_before              [[a, b], ...]: a is a candidate and b is not, or comes after a
  reason_excludes           {engine: fragment}: no reason of that candidate (if listed) holds the fragment
  reason_contains_any       a reason of some candidate holds this fragment
  companions_include        {engine: [ids]}: that candidate lists these companions (KV layers, engines underneath)
  companions_include_any    some candidate lists one of these companions
  suggestion_before         [a, b]: fragment a appears in the suggestions, before b if b appears at all
Invariants of every answer: scores never increase down the list, each score is the sum of its reasons' points,
the "why this order" line is made of the reasons with the largest points, and no sentence says "None".
Every non-invalid case must have candidates unless it says no_candidates.
"""

from pathlib import Path

import yaml

CASES_DIR = Path(__file__).resolve().parent / "cases"
KINDS = ("tree", "gates", "expert", "invalid")


def load_case_file(name):
    """One case file of tests/cases/, its ids checked unique."""
    cases = yaml.safe_load((CASES_DIR / f"{name}.yaml").read_text())
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), f"duplicate case ids in {name}.yaml"
    return cases


def load_cases(kinds=KINDS):
    cases = []
    for kind in kinds:
        for case in yaml.safe_load((CASES_DIR / f"{kind}.yaml").read_text()):
            case["kind"] = kind
            cases.append(case)
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    return cases


def texts(reasons):
    return [r["text"] if isinstance(r, dict) else r for r in reasons]


def check_result(result, expect):
    """Assert a recommend() result matches a case's `expect` block."""
    cands = [c["engine"] for c in result["candidates"]]
    excluded = {x["engine"]: " ".join(texts(x["reasons"])) for x in result["excluded"]}
    if "first" in expect:
        assert cands and cands[0] == expect["first"], f"first candidate {cands[:1]} != {expect['first']} ({cands})"
    if "first_in" in expect:
        assert cands and cands[0] in expect["first_in"], f"first candidate {cands[:1]} not in {expect['first_in']} ({cands})"
    if "not_first" in expect:
        assert not cands or cands[0] != expect["not_first"], f"{expect['not_first']} must not be first ({cands})"
    if "second" in expect:
        assert len(cands) > 1 and cands[1] == expect["second"], f"second candidate in {cands} != {expect['second']}"
    for engine in expect.get("candidates_include", []):
        assert engine in cands, f"{engine} not among {cands}"
    if "candidates_include_any" in expect:
        assert set(cands) & set(expect["candidates_include_any"]), f"none of {expect['candidates_include_any']} in {cands}"
    for engine in expect.get("not_candidates", []):
        assert engine not in cands, f"{engine} should not be a candidate ({cands})"
    for engine, fragment in expect.get("excluded", {}).items():
        assert engine in excluded, f"{engine} not excluded ({list(excluded)}; candidates {cands})"
        assert fragment in excluded[engine], f"{fragment!r} not in {excluded[engine]!r}"
    for engine in expect.get("not_excluded", []):
        assert engine not in excluded, f"{engine} is excluded: {excluded.get(engine)}"
    if "excluded_any_contains" in expect:
        assert any(expect["excluded_any_contains"] in r for r in excluded.values()), excluded
    for fragment in expect.get("warnings_contain", []):
        assert any(fragment in w for w in result["warnings"]), f"{fragment!r} not in {result['warnings']}"
    for fragment in expect.get("warnings_exclude", []):
        assert not any(fragment in w for w in result["warnings"]), f"{fragment!r} in {result['warnings']}"
    for engine, fragment in expect.get("reason_contains", {}).items():
        reasons = texts(next(c["reasons"] for c in result["candidates"] if c["engine"] == engine))
        assert any(fragment in r for r in reasons), f"{fragment!r} not in {reasons}"
    for fragment in expect.get("suggestion_contains", []):
        said = [s["text"] for s in result.get("suggestions", [])]
        assert any(fragment in s for s in said), f"{fragment!r} not in suggestions {said}"
    for engine, fragment in expect.get("measured_contains", {}).items():
        quoted = [m["text"] for m in next(c for c in result["candidates"] if c["engine"] == engine).get("measured", [])]
        assert any(fragment in m for m in quoted), f"{fragment!r} not in {quoted}"
    for a, b in expect.get("order_before", []):
        assert a in cands and (b not in cands or cands.index(a) < cands.index(b)), f"{a} not before {b} in {cands}"
    for engine, fragment in expect.get("reason_excludes", {}).items():
        for c in result["candidates"]:
            if c["engine"] == engine:
                assert not any(fragment in r for r in texts(c["reasons"])), f"{fragment!r} in {texts(c['reasons'])}"
    if "reason_contains_any" in expect:
        every = [r for c in result["candidates"] for r in texts(c["reasons"])]
        assert any(expect["reason_contains_any"] in r for r in every), f"{expect['reason_contains_any']!r} not in {every}"
    for engine, ids in expect.get("companions_include", {}).items():
        listed = [x["engine"] for x in next(c for c in result["candidates"] if c["engine"] == engine).get("companions", [])]
        assert set(ids) <= set(listed), f"companions of {engine}: {listed}, expected {ids}"
    if "companions_include_any" in expect:
        listed = {x["engine"] for c in result["candidates"] for x in c.get("companions", [])}
        assert listed & set(expect["companions_include_any"]), f"companions {listed}, expected one of {expect['companions_include_any']}"
    if "suggestion_before" in expect:
        said = " ".join(s["text"] for s in result.get("suggestions", []))
        a, b = expect["suggestion_before"]
        assert a in said and (b not in said or said.index(a) < said.index(b)), f"{a!r} not before {b!r} in {said!r}"
    if "effective_quantization_in" in expect:
        q = (result.get("assumed") or {}).get("quantization") or result["answers"].get("quantization")
        assert q in expect["effective_quantization_in"], f"assumed quantization {q!r} not in {expect['effective_quantization_in']}"
    if "fallback" in expect:
        assert any(c.get("fallback") for c in result["candidates"]) == expect["fallback"], cands
    if "leaf" in expect:
        assert result["path"][-1]["id"] == expect["leaf"]
    for fragment in expect.get("inferred", []):
        said = result["path"][-1].get("inferred") or ""
        assert fragment in said, f"{fragment!r} not in why the leaf was inferred: {said!r}"
    if expect.get("no_candidates"):
        assert cands == [] and result["warnings"], result
    else:
        assert cands, f"empty answer: {result['warnings']}"
    if "fit" in expect:
        for key, value in expect["fit"].items():
            assert result["fit"][key] == value, (key, result["fit"][key], result["fit"]["notes"])
    # invariants of every answer
    assert len(cands) <= 3
    for c in result["candidates"]:
        assert c["reasons"], c
        assert abs(c["score"] - sum(r["points"] for r in c["reasons"])) < 0.051, c
        top = sorted((abs(r["points"]) for r in c["reasons"] if r["points"]), reverse=True)[:len(c["why"])]
        assert sorted((abs(w["points"]) for w in c["why"]), reverse=True) == top, (c["why"], top)
    scores = [c["score"] for c in result["candidates"]]
    assert scores == sorted(scores, reverse=True), f"displayed order disagrees with scores: {list(zip(cands, scores))}"
    for x in result["excluded"]:
        assert x["reasons"], x
    # a missing value printed into a sentence
    said = [t for c in result["candidates"] for r in c["reasons"] if isinstance(r, dict) for t in (r["text"], r["short"])]
    said += result["warnings"] + [s["text"] for s in result.get("suggestions", [])]
    said += [t for c in result["candidates"] + result["excluded"] for t in texts(c["reasons"])]
    assert not [t for t in said if "None" in t], [t for t in said if "None" in t]
    if not cands:
        assert result["warnings"]


# -- "Will it fit?" cases (tests/cases/fit.yaml), run through selector.api.run_fit ---------------------------
#
# Expectation keys (all optional):
#   fits                       the answer's fits
#   engine / engine_in         assumptions.engine is this / one of these
#   chosen_by                  assumptions.engine_chosen_by: "selector" (no engine named) or "given"
#   engine_profile / via       the engine whose memory profile answered, and the engine that handed over to it
#   sizing, fraction_of, fraction_from, dp_attention, kv_cache_from, batched_tokens     the assumptions of that name
#   kv_cache                   the KV-cache quantization planned (null: 16-bit), asked or the engine's own default
#   memory_fraction            assumptions.memory_fraction, to 0.001
#   kv_tokens_between          [low, high] for capacity.kv_tokens (the count the engine prints)
#   max_sequences_between      [low, high] for capacity.max_sequences (summed over replicas)
#   layout                     {key: value} of the answer's layout (tensor_parallel, replicas)
#   engine_counts_fewer        true: capacity.kv_tokens < capacity.kv_tokens_memory (and a note says why)
#   engines_include            every one of these is listed under `engines` with its own fits and kv_tokens
#   notes_contain              every fragment appears in some note
#   quantization               the weight quantization the answer prices (with no preference: the one chosen)
#   quantization_chosen_by     assumptions.quantization_chosen_by: given, native or best-fit
#   verdict                    gpu, offload, needs-ram (fits with offload once host RAM is given) or no
#   headline_contains / _lacks fragments the one-line answer says / must not say
#   table_includes / _excludes weight schemes the "what fits" table lists / must not list on this hardware
#   typical_family             speed.typical comes from the measured rows of this engine family
#   above_every_measured       speed.measured says the bound lies above every measured speed for this model and GPU
#   communication_counted      speed.communication.counted (false: the bound leaves out the all-reduces under TP/EP)
#   error                      the answer is refused naming this key (one-line message)

def load_fit_cases():
    return load_case_file("fit")


def check_fit(result, expect):
    a, cap = result["assumptions"], result["capacity"] or {}
    if "fits" in expect:
        assert result["fits"] is expect["fits"], (result["fits"], result["notes"])
    if "engine" in expect:
        assert a["engine"] == expect["engine"], a["engine"]
    if "engine_in" in expect:
        assert a["engine"] in expect["engine_in"], a["engine"]
    for key, field in (("chosen_by", "engine_chosen_by"), ("engine_profile", "engine_profile"), ("via", "engine_via"),
                       ("sizing", "sizing"), ("fraction_of", "fraction_of"), ("fraction_from", "fraction_from"),
                       ("dp_attention", "dp_attention"), ("kv_cache_from", "kv_cache_from"), ("batched_tokens", "batched_tokens")):
        if key in expect:
            assert a[field] == expect[key], (field, a[field])
    if "kv_cache" in expect:
        assert result["kv_cache"] == expect["kv_cache"], result["kv_cache"]
    if "memory_fraction" in expect:
        assert abs(a["memory_fraction"] - expect["memory_fraction"]) < 0.001, a["memory_fraction"]
    if "kv_tokens_between" in expect:
        low, high = expect["kv_tokens_between"]
        assert low <= cap["kv_tokens"] <= high, (cap["kv_tokens"], cap.get("kv_count_note"))
    if "max_sequences_between" in expect:
        low, high = expect["max_sequences_between"]
        assert low <= cap["max_sequences"] <= high, cap
    for key, value in expect.get("layout", {}).items():
        assert (result.get("layout") or {}).get(key) == value, (key, result.get("layout"), result["notes"])
    if expect.get("engine_counts_fewer"):
        assert cap["kv_tokens"] < cap["kv_tokens_memory"] and cap["kv_count_note"], cap
    listed = {e["engine"]: e for e in result.get("engines", [])}
    for engine in expect.get("engines_include", []):
        assert engine in listed, f"{engine} not under engines ({list(listed)})"
        row = listed[engine]
        assert isinstance(row["fits"], bool) and row["why"] and row["name"], row
    if "quantization" in expect:
        assert result["quantization"] == expect["quantization"], (result["quantization"], result.get("quantization_choice"))
    if "quantization_chosen_by" in expect:
        assert a["quantization_chosen_by"] == expect["quantization_chosen_by"], a["quantization_chosen_by"]
    if "verdict" in expect:
        assert result["verdict"] == expect["verdict"], (result["verdict"], result["headline"])
    for fragment in expect.get("headline_contains", []):
        assert fragment in result["headline"], (fragment, result["headline"])
    for fragment in expect.get("headline_lacks", []):
        assert fragment not in result["headline"], (fragment, result["headline"])
    speed = result.get("speed") or {}
    if "typical_family" in expect:
        assert (speed.get("typical") or {}).get("family") == expect["typical_family"], speed.get("typical")
    if "above_every_measured" in expect:
        assert bool((speed.get("measured") or {}).get("above_every_measured")) is expect["above_every_measured"], speed.get("measured")
    if "communication_counted" in expect:
        assert (speed.get("communication") or {}).get("counted", None) == expect["communication_counted"], speed.get("communication")
    listed_schemes = {r["quantization"] for r in result.get("table") or []}
    for q in expect.get("table_includes", []):
        assert q in listed_schemes, (q, sorted(listed_schemes))
    for q in expect.get("table_excludes", []):
        assert q not in listed_schemes, (q, sorted(listed_schemes))
    for fragment in expect.get("notes_contain", []):
        assert any(fragment in n for n in result["notes"]), f"{fragment!r} not in {result['notes']}"
    # invariants: the engine answering is named, and every listed engine differs from it
    assert a["engine"] is None or a["engine"] not in listed


# -- load cases (tests/cases/load.yaml), run through selector.api.answer(op="load") ---------------------------
#
# Expectation keys (all optional):
#   at                     {users: {...}} at that load: first / first_in (engine), scale, gpus, gpus_at_least,
#                          basis (measured or estimate), set (the measured row's set), usd_per_million_tokens (to 1%)
#   first_flip             the first change: reason, between [low, high] (its load), to_in (the engine it moves to)
#   flip_reasons_include   every one of these reasons is among the flips
#   flip_to_cluster        the flip into the cluster scale: between [low, high], to_in
#   one_set                every measured point comes from this one set
#   price_rule             the price's rule: median (cited list prices) or given
#   no_price               true: no cited price for the GPU, so no cost (and the answer says to type one)
#   empty_because          no points, and the answer's `why` holds this fragment
#   error                  the answer is refused naming this key

def load_load_cases():
    return load_case_file("load")


def check_load(response, expect):
    if "error" in expect:
        assert not response["ok"] and response["error"]["key"] == expect["error"], response
        assert "\n" not in response["error"]["message"], response["error"]
        return
    assert response["ok"], response
    result = response["result"]
    points = {p["users"]: p for p in result["points"]}
    if "empty_because" in expect:
        assert not points and expect["empty_because"] in result["why"], result
        return
    assert points, result
    for users, want in expect.get("at", {}).items():
        p = points[users]
        if "first" in want:
            assert p["engine"] == want["first"], (users, p["engine"], p["text"])
        if "first_in" in want:
            assert p["engine"] in want["first_in"], (users, p["engine"], p["text"])
        for key in ("scale", "gpus"):
            if key in want:
                assert p[key] == want[key], (users, key, p[key], p["text"])
        if "gpus_at_least" in want:
            assert p["gpus"] >= want["gpus_at_least"], (users, p["gpus"])
        if "basis" in want:
            assert p["basis"]["kind"] == want["basis"], (users, p["basis"])
        if "set" in want:
            assert p["basis"].get("set") == want["set"], (users, p["basis"])
        if "usd_per_million_tokens" in want:
            got = p["usd_per_million_tokens"]
            assert got and abs(got - want["usd_per_million_tokens"]) <= 0.01 * want["usd_per_million_tokens"], (users, got)
    flips = result["flips"]
    if "first_flip" in expect:
        want = expect["first_flip"]
        assert flips, result["summary"]
        f = flips[0]
        assert f["reason"] == want["reason"], f
        low, high = want["between"]
        assert low <= f["users"] <= high, f
        if "to_in" in want:
            assert f["to"]["engine"] in want["to_in"], f
    for why in expect.get("flip_reasons_include", []):
        assert any(f["reason"] == why for f in flips), (why, [f["text"] for f in flips])
    if "flip_to_cluster" in expect:
        want = expect["flip_to_cluster"]
        f = next((f for f in flips if f["to"]["scale"] == "cluster" and f["from"]["scale"] != "cluster"), None)
        assert f, [x["text"] for x in flips]
        low, high = want["between"]
        assert low <= f["users"] <= high and f["to"]["engine"] in want["to_in"], f
    if "one_set" in expect:
        sets = {p["basis"]["set"] for p in result["points"] if p["basis"]["kind"] == "measured"}
        assert sets == {expect["one_set"]}, sets
    if "price_rule" in expect:
        priced = [p for p in result["points"] if p["price"]]
        assert priced and all(p["price"]["rule"] == expect["price_rule"] for p in priced), result["points"][0]["price"]
    if expect.get("no_price"):
        assert all(p["usd_per_million_tokens"] is None for p in result["points"]) and "type" in result["price_note"], result["price_note"]
    # invariants: every point says where its figures come from, flips sit at loads the points hold, in order
    users = [p["users"] for p in result["points"]]
    assert users == sorted(users)
    for p in result["points"]:
        assert p["basis"]["kind"] in ("measured", "estimate") and p["text"], p
        if p["basis"]["kind"] == "estimate":
            assert "estimate" in p["text"] and p["basis"]["engine"], p
        if p["usd_per_million_tokens"] is not None:
            assert p["price"] and p["tokens_per_s_per_gpu"], p
    for f in flips:
        assert f["users"] in users and f["reason"] in ("batching", "memory", "per-user speed", "ranking") and f["text"], f
    assert [f["users"] for f in flips] == sorted(f["users"] for f in flips)
