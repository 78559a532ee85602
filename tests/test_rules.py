"""The selector's rules, table-driven from tests/cases/*.yaml: a case per tree leaf, per gate, per bad input."""

import json
import re

import pytest

from cases_lib import check_result, load_cases
from selector.inputs import InputError
from selector.rules import (ALSO_PRIOR, DEFAULT_ALSO, DEFAULT_PRIOR, FIT_TIGHTER, MEASURED_POINTS, OUTRANKED, PRIORITY_FACT, PENALTY, RULES,
                            TREE_PRIOR, Trace, quantization_support, recommend)

CASES = load_cases()
FIRED = set()


@pytest.mark.parametrize("case", [c for c in CASES if c["kind"] != "invalid"], ids=lambda c: c["id"])
def test_case(catalog, case):
    trace = Trace()
    result = recommend(catalog, case["answers"], trace)
    FIRED.update(trace.fired)
    check_result(result, case["expect"])
    for rule in case["expect"].get("fired", []):
        assert rule in trace.fired, f"rule {rule} did not fire; fired: {sorted(trace.fired)}"
    json.dumps(result)  # JSON-ready


@pytest.mark.parametrize("case", [c for c in CASES if c["kind"] == "invalid"], ids=lambda c: c["id"])
def test_invalid(catalog, case):
    with pytest.raises(InputError) as info:
        recommend(catalog, case["answers"])
    assert info.value.key == case["error"]["key"]
    assert case["error"]["contains"] in str(info.value)
    assert "\n" not in str(info.value)


def test_every_rule_fires_in_some_case(catalog):
    fired = set()
    for case in CASES:
        if case["kind"] == "invalid":
            continue
        trace = Trace()
        recommend(catalog, case["answers"], trace)
        fired |= trace.fired
    # every engine documents every weight format today, so an undocumented format needs a gap made on purpose
    import copy
    from selector.catalog import Catalog
    raw = copy.deepcopy(catalog.raw)
    raw["engines"]["vllm"]["formats"] = [f for f in raw["engines"]["vllm"]["formats"] if f["id"] != "gguf"]
    trace = Trace()
    result = recommend(Catalog(raw), {"scale": "service", "weights": "gguf"}, trace)
    assert "vllm" not in {x["engine"] for x in result["excluded"]}  # not documented is not "no"
    fired |= trace.fired
    assert fired == set(RULES), f"rules never exercised: {sorted(set(RULES) - fired)}"


def test_every_tree_leaf_has_a_case(catalog):
    leaves = {leaf["id"] for b in catalog.tree["branches"] for leaf in b["leaves"]}
    covered = {c["expect"].get("leaf") for c in CASES if c["kind"] == "tree"}
    assert leaves <= covered, leaves - covered


def test_rules_name_no_engine():
    """Gates come from catalog facts: the rules module must not hard-code engine ids."""
    from pathlib import Path
    import selector.rules
    text = Path(selector.rules.__file__).read_text()
    for engine_id in ("vllm", "sglang", "tgi", "ollama", "ktransformers", "tensorrt", "lmdeploy", "dynamo", "llama"):
        assert engine_id not in text.lower(), engine_id


def scenario_problems(catalog):
    """What is wrong with the scenario answers: each must name the selector's first candidate and no engine it rules
    out (validation does not run the selector; this test does)."""
    from datatools.checks import names_in
    found = []
    for scen in catalog.scenarios.values():
        result = recommend(catalog, scen["answers"])
        if not result["candidates"]:
            found.append(f"{scen['id']}: no candidate")
            continue
        named = names_in(scen["answer"], catalog.engines)
        top = result["candidates"][0]
        if top["engine"] not in named:
            found.append(f"{scen['id']}: does not name {top['name']}, the selector's first candidate")
        found.extend(f"{scen['id']}: names {x['name']}, which the selector rules out" for x in result["excluded"] if x["engine"] in named)
    return found


def test_scenarios_name_the_selectors_first_candidate(catalog):
    assert scenario_problems(catalog) == []


def test_scenario_check_catches_a_contradiction(catalog):
    import copy
    from selector.catalog import Catalog
    raw = copy.deepcopy(catalog.raw)
    raw["scenarios"]["amd-service"]["answer"] = "TensorRT-LLM, the fastest choice here."
    found = " ".join(scenario_problems(Catalog(raw)))
    assert "does not name vLLM" in found and "names TensorRT-LLM, which the selector rules out" in found


def test_trimmed_catalog_gives_identical_answers(catalog):
    from selector.catalog import Catalog, trim_for_selector
    small = Catalog(json.loads(json.dumps(trim_for_selector(catalog.raw))))
    for case in CASES:
        if case["kind"] != "invalid":
            assert recommend(small, case["answers"]) == recommend(catalog, case["answers"]), case["id"]


# what each kind of reason may add to a score: a rule that rules out adds nothing, support gaps only take away
POINTS_BY_KIND = {
    "tree": lambda p: p > 0, "support": lambda p: p == 0, "partial": lambda p: p == PENALTY["partial"],
    "gap": lambda p: p == PENALTY["unknown"], "workload-gap": lambda p: p in (-8, -2), "fit": lambda p: p in (12, 2, 0, -4, FIT_TIGHTER),
    "matrix": lambda p: -40 <= p <= 40, "tier": lambda p: p == 0, "workload": lambda p: p != 0 and -8 <= p <= 6,
    "fallback": lambda p: p == 0, "companions": lambda p: p == 0, "fact": lambda p: p == 0,
    "evidence": lambda p: p in OUTRANKED.values(),
    "measured": lambda p: p in (0,) + MEASURED_POINTS,
    "priority-fact": lambda p: p in PRIORITY_FACT.values(),
}
EXCLUDING_KINDS = {"no", "status", "fit"}


@pytest.mark.parametrize("case", [c for c in CASES if c["kind"] != "invalid"], ids=lambda c: c["id"])
def test_reasons_carry_their_kind_and_points(catalog, case):
    result = recommend(catalog, case["answers"])
    for cand in result["candidates"]:
        assert cand["score"] == pytest.approx(sum(r["points"] for r in cand["reasons"]), abs=0.11), cand["engine"]
        assert cand["fallback"] == any(r["kind"] == "fallback" for r in cand["reasons"]), cand
        for r in cand["reasons"]:
            assert r["kind"] in POINTS_BY_KIND and POINTS_BY_KIND[r["kind"]](r["points"]), (cand["engine"], r)
            if r["kind"] in ("partial", "gap"):
                assert r["about"] in ("hardware", "format", "quantization", "kv_cache"), r
            assert r["short"] and len(r["short"]) <= len(r["text"]), r
        for r in (r for r in cand["reasons"] if r["kind"] == "matrix"):  # "<dimension> N/5": the matrix's own score
            dim = next(d for d in catalog.matrix.values() if r["short"] == f"{d['name'].lower()} {d['scores'][cand['engine']]['score']}/5")
            stars = dim["scores"][cand["engine"]]["score"]
            assert (r["points"] > 0) == (stars > 3) and (r["points"] < 0) == (stars < 3), (cand["engine"], r)
            assert r["text"].startswith(f"{dim['name']}: {stars}/5 in the site's decision matrix"), r
        tree = [r for r in cand["reasons"] if r["kind"] == "tree"]
        assert len(tree) <= 1 and all(r["points"] in TREE_PRIOR + DEFAULT_PRIOR + (ALSO_PRIOR, DEFAULT_ALSO) for r in tree), tree
    for row in result["excluded"]:
        assert row["engine"] not in {c["engine"] for c in result["candidates"]}
        for r in row["reasons"]:
            assert r["kind"] in EXCLUDING_KINDS and r["points"] == 0, (row["engine"], r)
        name = catalog.engines[row["engine"]]["name"]
        assert row["name"] == name


def _weights(catalog, answers, scale):
    from selector.rules import dimension_weights
    branch = next(b for b in catalog.tree["branches"] if b["scale"] == scale)
    return dimension_weights(catalog, answers, branch)


def test_matrix_weights_per_scale(catalog):
    """What each scale weighs in the decision matrix (the rules module's table, stated once more here)."""
    assert _weights(catalog, {}, "local") == {"ease-of-use": (3, ["local scale"]), "hardware-breadth": (2, ["local scale"]),
                                              "model-coverage": (1, ["local scale"]), "quantization": (1, ["local scale"])}
    assert _weights(catalog, {}, "service") == {d: (w, ["service scale"]) for d, w in {
        "throughput": 2, "model-coverage": 2, "latency": 1, "ease-of-use": 1, "hardware-breadth": 1, "ecosystem": 1}.items()}
    assert _weights(catalog, {}, "cluster") == {"throughput": (2, ["cluster scale"]), "large-moe": (2, ["cluster scale"]),
                                                "prefix-reuse": (1, ["cluster scale"])}


def test_matrix_weights_follow_the_answers(catalog):
    moe = catalog.models["deepseek-v3"]
    w = _weights(catalog, {"model": "deepseek-v3", "workload": ["shared-prefix"], "quantization": "fp8",
                           "_hardware": "amd-instinct-cdna3"}, "cluster")
    assert w["large-moe"] == (6, ["cluster scale", f"{moe['name']} is a {moe['total_params_b']:g}B mixture of experts served across GPUs"])
    assert w["prefix-reuse"] == (4, ["cluster scale", "shared prefixes"])
    assert w["quantization"] == (2, ["a quantized model or cache"])
    assert "hardware-breadth" not in w  # the hardware is stated: support for it counts, not breadth
    assert "hardware-breadth" in _weights(catalog, {}, "service") and "hardware-breadth" not in _weights(
        catalog, {"_hardware": "amd-instinct-cdna3"}, "service")
    # expert parallelism across GPUs does not weigh on one machine
    assert "large-moe" not in _weights(catalog, {"model": "deepseek-v3"}, "local")
    assert "large-moe" not in _weights(catalog, {"model": "deepseek-v3", "gpu": "apple-m3-ultra"}, "service")
    assert "large-moe" not in _weights(catalog, {"model": "deepseek-v3", "gpu": "h200"}, "service")
    assert "large-moe" in _weights(catalog, {"model": "deepseek-v3", "gpu": "h200", "gpus": 8}, "service")
    assert "large-moe" in _weights(catalog, {"model": "deepseek-v3"}, "service")
    assert "large-moe" not in _weights(catalog, {"model": "deepseek-v3", "gpu_memory_gb": 141, "gpus": 1}, "service")
    assert "large-moe" in _weights(catalog, {"model": "deepseek-v3", "gpu_memory_gb": 141, "gpus": 8}, "service")
    assert "large-moe" not in _weights(catalog, {"model": "deepseek-v3", "memory": "unified", "gpus": 8}, "service")
    assert _weights(catalog, {"need": "one-command"}, "local")["ease-of-use"] == (6, ["local scale", "a single command"])
    assert _weights(catalog, {"kv_cache": "kv-fp8"}, "cluster")["quantization"] == (2, ["a quantized model or cache"])
    assert "hardware-breadth" not in _weights(catalog, {"_hardware": "nvidia-hopper"}, "cluster")
    assert "large-moe" not in _weights(catalog, {"model": "llama-3.1-70b"}, "service")  # dense
    small_moe = next(m for m in catalog.models.values() if m["architecture"] == "moe" and m["total_params_b"] < 100)
    assert "large-moe" not in _weights(catalog, {"model": small_moe["id"]}, "service")
    # a stated priority weighs most, and halves what the scale alone weighs
    priority = next(iter(catalog.questions["priorities"]))
    spec = catalog.questions["priorities"][priority]
    w = _weights(catalog, {"priority": priority}, "service")
    assert max(w, key=lambda d: w[d][0]) == spec["dimension"]
    assert w[spec["dimension"]][1][-1] == f"your priority, {spec['label'].lower()}"
    assert w["model-coverage"] == (1.0, ["service scale"]) or spec["dimension"] == "model-coverage"


def test_quantization_support_reads_the_engines_rows(catalog):
    from selector.rules import quantization_support
    seen = set()
    for engine in catalog.engines.values():
        rows = engine.get("quantization", [])
        for q in catalog.quantization:
            mine = [r for r in rows if r["id"] == q]
            for hw in catalog.hardware:
                on = [r for r in mine if hw in r["hardware"]]
                state, row = quantization_support(catalog, engine, q, hw)
                assert (state, row) == ((on[0]["support"], on[0]) if on else ("unknown", None)), (engine["id"], q, hw)
                seen.add(state)
            state, row = quantization_support(catalog, engine, q, None)  # any hardware: the best documented
            best = next((s for s in ("yes", "partial", "no") if any(r["support"] == s for r in mine)), "unknown")
            assert state == best and (row is None) == (best == "unknown") and (row is None or row["support"] == best)
    assert seen == {"yes", "partial", "no", "unknown"}


def test_suggestions_name_the_quantization_and_only_when_it_does_not_fit(catalog):
    said = 0
    for case in (c for c in CASES if c["kind"] != "invalid"):
        result = recommend(catalog, case["answers"])
        fit = result.get("fit")
        if fit and fit["fits"] and fit["concurrency_met"]:
            # nothing to fix but the file format: a checkpoint the engine loads fully
            assert all(s["kind"] == "checkpoint" for s in result["suggestions"]), case["id"]
        for s in result["suggestions"]:
            if s.get("quantization"):
                said += 1
                assert catalog.quantization[s["quantization"]]["name"] in s["text"], (case["id"], s)
    assert said >= 3


def test_nothing_left_names_the_commonest_blocker(catalog):
    case = next(c for c in CASES if c["id"] == "nothing-loads-tensorrt-engines-off-nvidia")
    result = recommend(catalog, case["answers"])
    assert not result["candidates"]
    heads = [row["reasons"][0]["text"] for row in result["excluded"]]
    blocker = next(w for w in result["warnings"] if "The most common blocker (" in w)
    assert any(blocker.endswith(f"): {h}. Change that answer, or see what would make it work below.") for h in heads), blocker


def test_measured_rows_quoted_match_the_answer(catalog):
    case = next(c for c in CASES if c["id"] == "measured-deepseek-r1-b200")
    answers = case["answers"]
    result = recommend(catalog, answers)
    quoted = [m for c in result["candidates"] for m in c["measured"]]
    assert quoted
    gpu = catalog.gpus[answers["gpu"]]
    for m in quoted:
        assert gpu["name"] in m["text"] or answers["gpu"] in m["text"], m
    # another GPU count: the rows measured on this many GPUs are no longer quoted as they were
    fewer = recommend(catalog, {**answers, "gpus": 1})
    assert [m["text"] for c in fewer["candidates"] for m in c["measured"]] != [m["text"] for m in quoted]
    other_model = recommend(catalog, {**answers, "model": "llama-3.1-8b"})
    assert all("DeepSeek" not in m["text"] for c in other_model["candidates"] for m in c["measured"])


def test_each_candidate_carries_the_planners_fit_for_it(catalog):
    """Issue 22 item 5: a candidate's fit is what `fit --engine CANDIDATE` answers for the same answers (its
    what-fits table aside), and the candidate was ranked on it."""
    from selector.api import answer, run_fit
    checked = 0
    for case in (c for c in CASES if c["kind"] == "expert"):
        result = answer(catalog, "recommend", case["answers"])["result"]
        if result["fit_answers"] is None:
            assert all(c["fit"] is None for c in result["candidates"]), case["id"]
            continue
        for cand in result["candidates"]:
            try:
                planner = run_fit(catalog, {**result["fit_answers"], "engine": cand["engine"]})
            except InputError:  # a layer the planner does not size (an orchestrator): no fit of its own
                assert cand["fit"] is None, cand["engine"]
                continue
            planner.pop("table")
            # the launch command rides beside the candidate's fit, as `fit --engine` gives it beside its answer (a
            # latency answer also turns on the speculative decoding it argues for)
            launch = planner.pop("launch")
            if result["answers"].get("priority") == "latency":
                from selector.launch import launch_command
                launch = launch_command(catalog, planner, cand["engine"], speculative=True)
            assert cand["launch"] == launch, (case["id"], cand["engine"])
            assert cand["fit"] == planner, (case["id"], cand["engine"])
            fit_reason = next((r for r in cand["reasons"] if r["kind"] == "fit"), None)
            if cand["fit"]["fits"] and fit_reason:
                assert f"{cand['fit']['capacity']['kv_tokens']:,} tokens of KV cache" in fit_reason["text"], (case["id"], fit_reason)
            checked += 1
    assert checked >= 60, checked


def test_candidates_fit_differs_by_engine(catalog):
    """Two engines with different memory profiles get different KV figures for the same answers."""
    result = recommend(catalog, {"scale": "service", "model": "llama-3.3-70b", "gpu": "h100-sxm", "gpus": 8})
    kv = {c["engine"]: c["fit"]["capacity"]["kv_tokens"] for c in result["candidates"]}
    assert len(set(kv.values())) > 1, kv
    assert {c["fit"]["assumptions"]["engine"] for c in result["candidates"]} == set(kv)


# -- issue 23: targeted checks of the new weighing -----------------------------------------------------------

def _cand(result, engine):
    return next(c for c in result["candidates"] if c["engine"] == engine)


def test_closeness_of_measured_models(catalog):
    from selector.rules import _closeness
    m = catalog.models
    assert _closeness(catalog, m["llama-3.3-70b"], m["llama-3.3-70b"]) == 0
    assert _closeness(catalog, m["llama-3.3-70b"], m["llama-2-70b"]) == 1
    assert _closeness(catalog, m["llama-3.3-70b"], m["llama-3.1-8b"]) == 2
    assert _closeness(catalog, m["llama-3.3-70b"], m["qwen3-32b"]) is None
    assert _closeness(catalog, m["qwen3-32b"], m["qwen3-30b-a3b"]) is None  # dense against MoE: not one family here
    assert _closeness(catalog, m["deepseek-r1"], m["deepseek-v3"]) == 1


def test_practice_orders_native_then_checkpoints_then_files(catalog):
    from selector.rules import _practice
    q = catalog.quantization
    assert _practice(q["fp8"], "nvidia-hopper", "service") == 0
    assert _practice(q["awq"], "nvidia-hopper", "service") == 1
    assert _practice(q["gguf-q4-k-m"], "nvidia-hopper", "service") == 2
    assert _practice(q["mlx-4bit"], None, "cluster") == 2
    assert _practice(q["gguf-q4-k-m"], "nvidia-hopper", "local") == 0


def test_default_leaf_is_a_prior_and_a_stated_need_is_not(catalog):
    default = recommend(catalog, {"scale": "local"})
    stated = recommend(catalog, {"scale": "local", "need": "one-command"})
    tree = lambda r, e: next(x for x in _cand(r, e)["reasons"] if x["kind"] == "tree")  # noqa: E731
    assert tree(default, "ollama")["points"] == DEFAULT_PRIOR[0] and "a prior, not a stated fact" in tree(default, "ollama")["text"]
    assert tree(stated, "ollama")["points"] == TREE_PRIOR[0] and "prior" not in tree(stated, "ollama")["text"]
    assert tree(default, "llama-cpp")["points"] == DEFAULT_ALSO and tree(stated, "llama-cpp")["points"] == ALSO_PRIOR


def test_outranked_once_per_engine_with_the_largest_penalty(catalog):
    result = recommend(catalog, {"scale": "service", "gpu": "apple-m3-ultra", "model": "qwen3-235b-a22b",
                                 "quantization": "mlx-4bit", "concurrency": 4})
    for c in result["candidates"]:
        evidence = [r for r in c["reasons"] if r["kind"] == "evidence"]
        gaps = {r["about"] for r in c["reasons"] if r["kind"] in ("partial", "gap")}
        assert len(evidence) == (1 if gaps else 0), c["engine"]
        if gaps:
            assert evidence[0]["points"] == min(OUTRANKED[a] for a in gaps), (c["engine"], gaps)
            assert c["name"] in evidence[0]["text"] and "supports what you stated fully" in evidence[0]["text"]


def test_no_outranking_when_nobody_supports_the_fact_fully(catalog):
    result = recommend(catalog, {"scale": "service", "weights": "tensorrt-engine"})
    assert result["candidates"]
    assert not any(r["kind"] == "evidence" for c in result["candidates"] for r in c["reasons"])
    assert any(r["kind"] == "partial" for c in result["candidates"] for r in c["reasons"])


def test_priority_features_weigh_their_value(catalog):
    result = recommend(catalog, {"scale": "service", "priority": "latency", "need": "kv-quant-latency"})
    for c in result["candidates"]:
        fact = catalog.engines[c["engine"]]["features"]["speculative_decoding"]["value"]
        spec = [r for r in c["reasons"] if r["kind"] == "priority-fact"]
        assert len(spec) == 1 and spec[0]["points"] == PRIORITY_FACT[fact] and f"low latency: {fact}" in spec[0]["text"], c["engine"]
    assert PRIORITY_FACT["yes"] > PRIORITY_FACT["partial"] > 0 > PRIORITY_FACT["unknown"] > PRIORITY_FACT["no"]
    result = recommend(catalog, {"scale": "service", "priority": "throughput"})
    texts = [r["text"] for r in _cand(result, "vllm")["reasons"] if r["kind"] == "priority-fact"]
    assert any(t.startswith("Continuous batching for throughput per gpu: yes") for t in texts)
    assert any(t.startswith("Paged KV cache for throughput per gpu: yes") for t in texts)
    assert not any(r["kind"] == "priority-fact" for c in recommend(catalog, {"scale": "service"})["candidates"] for r in c["reasons"])


def test_measured_points_go_to_the_engine_ahead(catalog):
    result = recommend(catalog, {"scale": "local", "gpu": "rtx-4090d", "model": "deepseek-v3", "quantization": "gguf-q4-k-m", "ram_gb": 512})
    ahead = [r for r in _cand(result, "ktransformers")["reasons"] if r["kind"] == "measured"]
    behind = [r for r in _cand(result, "llama-cpp")["reasons"] if r["kind"] == "measured"]
    assert [r["points"] for r in ahead] == [MEASURED_POINTS[0]] and [r["points"] for r in behind] == [0]
    assert "the same model as yours" in ahead[0]["text"] and ahead[0]["source"]["url"].startswith("https://")
    family = recommend(catalog, {"scale": "local", "gpu": "rtx-4090d", "model": "deepseek-r1", "quantization": "gguf-q4-k-m", "ram_gb": 512})
    assert [r["points"] for r in _cand(family, "ktransformers")["reasons"] if r["kind"] == "measured"] == [MEASURED_POINTS[1]]
    assert not any(r["kind"] == "measured" for c in recommend(catalog, {"scale": "local", "model": "deepseek-v3"})["candidates"]
                   for r in c["reasons"])  # no GPU or hardware stated: nothing comparable


def test_gpus_for_the_load_are_explained_with_the_kv_arithmetic(catalog):
    result = recommend(catalog, {"scale": "service", "gpu": "h100-sxm", "gpus": 8, "model": "llama-3.3-70b", "concurrency": 200})
    load = next(s for s in result["suggestions"] if s["kind"] == "gpus-load")
    cap = result["fit"]["capacity"]
    per = cap["kv_budget_gib"] / cap["max_sequences"]
    assert f"about {per:.2f} GiB of KV cache, so 200 take {per * 200:,.0f} GiB" in load["text"]
    assert f"{cap['max_sequences']:,} sequences" in load["text"]
    assert load["gpus"] == 16 and "as 2 copies of this 8-GPU setup" in load["text"]
    native = next(s for s in result["suggestions"] if s["kind"] == "weights")
    assert native["quantization"] == "fp8" and "which NVIDIA Hopper computes natively" in native["text"]
    from selector.fit import estimate
    fp8 = estimate(catalog, "llama-3.3-70b", "fp8", gpu="h100-sxm", gpus=8, concurrency=200, profile="server")
    assert f"({fp8['weights_gb']:g} GB instead of {result['fit']['weights_gb']:g} GB)" in native["text"], native["text"]
    assert f"room for {fp8['capacity']['max_sequences']:,} sequences" in native["text"]
    context = next(s for s in result["suggestions"] if s["kind"] == "context")
    assert context["text"].startswith(f"At 200 sequences the longest context that fits is {cap['max_context_tokens']:,} tokens")
    wider = recommend(catalog, {"scale": "service", "model": "qwen3-32b", "gpu": "h100-sxm", "concurrency": 50})
    load = next(s for s in wider["suggestions"] if s["kind"] == "gpus-load")
    assert "; 1 GPU leaves " in load["text"], load["text"]
    assert "in one tensor-parallel group hold all 50" in load["text"] and load["gpus"] < 13


def test_checkpoint_advice_only_for_a_file_the_serving_engine_loads_partly(catalog):
    gguf = recommend(catalog, {"scale": "service", "weights": "gguf", "model": "qwen3-32b", "gpu": "h100-sxm"})
    advice = [s for s in gguf["suggestions"] if s["kind"] == "checkpoint"]
    assert len(advice) == 1 and advice[0]["text"].startswith("vLLM loads GGUF only partly") and "Qwen/Qwen3-32B" in advice[0]["text"]
    for answers in ({"scale": "service", "weights": "safetensors", "model": "qwen3-32b", "gpu": "h100-sxm"},
                    {"scale": "local", "weights": "gguf", "model": "qwen3-32b", "gpu": "rtx-4090"}):
        assert not any(s["kind"] == "checkpoint" for s in recommend(catalog, answers)["suggestions"]), answers
    no_model = recommend(catalog, {"scale": "service", "weights": "gguf"})
    assert any(s["kind"] == "checkpoint" and "FP8 or a 4-bit checkpoint format" in s["text"] for s in no_model["suggestions"])


def test_fit_line_says_how_each_engine_sizes_its_cache(catalog):
    result = recommend(catalog, {"scale": "local", "model": "qwen3-32b", "quantization": "gguf-q4-k-m", "gpu": "rtx-4090"})
    for c in result["candidates"]:
        a = c["fit"]["assumptions"]
        assert c["fit_line"].startswith("Fits: " if c["fit"]["fits"] else "Fits with" if c["fit"]["fits_with_offload"] else "Does not fit")
        assert f"{c['fit']['capacity']['kv_tokens']:,} tokens of KV cache" in c["fit_line"]
        assert ("with no memory share" in c["fit_line"]) == (a["sizing"] == "context"), c["fit_line"]
    service = recommend(catalog, {"scale": "service", "model": "llama-3.1-8b", "gpu": "h100-sxm"})
    line = _cand(service, "vllm")["fit_line"]
    a = _cand(service, "vllm")["fit"]["assumptions"]
    assert f"a {a['memory_fraction']:g} share of {a['fraction_of'].replace('-', ' ')} memory, less {a['runtime_reserve_gib']:.2f} GiB" in line
    assert recommend(catalog, {"scale": "service"})["fit_answers"] is None


def test_selector_answers_link_back_from_the_planner(catalog):
    from selector.api import run_fit
    out = run_fit(catalog, {"model": "qwen3-32b", "gpu": "rtx-4090", "quantization": "gguf-q4-k-m"})
    sel = out["selector_answers"]
    assert sel["scale"] == out["assumptions"]["scale"] and sel["model"] == "qwen3-32b" and sel["gpu"] == "rtx-4090"
    assert "engine" not in sel and "bandwidth_gbs" not in sel
    recommend(catalog, sel)  # the selector takes them as they are
    given = run_fit(catalog, {"model": "qwen3-32b", "gpu": "rtx-4090", "engine": "vllm"})
    assert "scale" not in given["selector_answers"] and given["assumptions"]["engine_chosen_by"] == "given"


def test_companions_come_from_relations_and_respect_the_answers(catalog):
    result = recommend(catalog, {"scale": "cluster", "hardware": "ascend"})
    sg = _cand(result, "sglang")
    assert [x["engine"] for x in sg["companions"]][:1] == ["mooncake"] and sg["companions"][0]["role"] == "KV-cache layer"
    dyn = recommend(catalog, {"scale": "cluster"})["candidates"][0]
    roles = [(x["engine"], x["role"]) for x in dyn["companions"]]
    assert ("tensorrt-llm", "engine underneath") in roles and ("mooncake", "KV-cache layer") in roles
    amd = recommend(catalog, {"scale": "cluster", "hardware": "amd-instinct-cdna3"})
    assert all(x["engine"] != "tensorrt-llm" for c in amd["candidates"] for x in c["companions"])  # ruled out on AMD
    assert all(c["companions"] == [] for c in recommend(catalog, {"scale": "service"})["candidates"])


def test_an_engine_that_dequantizes_is_priced_at_what_it_loads(catalog):
    from selector.fit import estimate
    kw = {"gpu": "amd-ryzen-ai-max-395"}
    packed = estimate(catalog, "gpt-oss-120b", "gguf-mxfp4", engine="llama-cpp", **kw)
    dense = estimate(catalog, "gpt-oss-120b", "gguf-mxfp4", engine="transformers", **kw)
    bf16 = estimate(catalog, "gpt-oss-120b", "bf16", engine="transformers", **kw)
    assert dense["weights_gb"] == bf16["weights_gb"] > 3 * packed["weights_gb"]
    assert any("unpacks GGUF MXFP4" in n for n in dense["notes"]) and not any("unpacks" in n for n in packed["notes"])
    assert dense["quantization"] == "gguf-mxfp4" and not dense["fits"] and packed["fits"]
    # no engine named: the size of the file itself
    assert estimate(catalog, "gpt-oss-120b", "gguf-mxfp4", **kw)["weights_gb"] == packed["weights_gb"]


def test_an_engines_own_plan_that_is_tighter_costs_points_and_more_weights_rule_it_out(catalog):
    from selector.rules import _fit_reason
    engine = catalog.engines["sglang"]
    own = {"fits": False, "fits_with_offload": False, "weights_gb": 100.0, "capacity": None}
    planned = {"fits": True, "fits_with_offload": True, "weights_gb": 100.0}
    trace = Trace()
    out, ok = _fit_reason(catalog, engine, own, "service", trace, planned)
    assert out is None and ok["points"] == FIT_TIGHTER and "SGLang's own memory plan" in ok["text"] and "fit-engine-tighter" in trace.fired
    out, ok = _fit_reason(catalog, engine, {**own, "weights_gb": 230.0}, "service", Trace(), planned)
    assert ok is None and out["text"].startswith("SGLang holds the weights in 230 GB after loading, not 100 GB")
    out, ok = _fit_reason(catalog, engine, own, "service", Trace(), None)
    assert ok is None and out["text"] == "The model does not fit the memory given"
    out, ok = _fit_reason(catalog, engine, own, "service", Trace(), {**planned, "fits": False})
    assert ok is None and out["text"].startswith("The model does not fit the memory given")


def test_the_planner_calls_one_gpu_of_up_to_48_gib_local_and_anything_else_a_service(catalog):
    from selector.rules import default_engines

    def scale(**answers):
        return default_engines(catalog, {"model": "llama-3.1-8b", **answers})["scale"]
    assert scale(gpu="rtx-4090") == scale(gpu_memory_gb=48) == scale(gpu="apple-m3-max") == scale(memory="cpu", ram_gb=64) == "local"
    assert scale(gpu="rtx-4090", gpus=2) == scale(gpu="h100-sxm") == scale(gpu_memory_gb=49) == "service"
    assert scale(gpu="h100-sxm", quantization="gguf-q4-k-m") == "local"  # a GGUF file is a desktop runtime's


def test_measured_latency_is_quoted_from_the_model_or_its_size(catalog):
    result = recommend(catalog, {"scale": "service", "priority": "latency", "gpu": "h100-sxm", "model": "llama-3.1-8b"})
    said = [r["text"] for c in result["candidates"] for r in c["reasons"] if r["text"].startswith("Measured latency: ")]
    assert said, "no candidate quotes its measured time to first token and per output token"
    for text in said:
        assert "median time to first token" in text and " ms and per output token " in text, text
        assert text.endswith(("(the same model as yours)", "(the same family and size as yours)")), text
        assert "× NVIDIA H100 SXM," in text, text  # the stated GPU's rows, not its family's


def test_fact_reasons_quote_the_engine_files_note(catalog):
    entry = catalog.support(catalog.engines["vllm"], "formats", "gguf")
    gguf = recommend(catalog, {"scale": "service", "weights": "gguf"})
    said = [r["text"] for r in _cand(gguf, "vllm")["reasons"] if r["about"] == "format"]
    assert entry["note"] and any(f"({entry['note']})" in t for t in said), said
    offload = recommend(catalog, {"scale": "local", "need": "huge-moe-low-vram", "model": "deepseek-r1",
                                  "quantization": "gguf-q4-k-m", "gpu": "rtx-4090", "ram_gb": 512})
    fact = catalog.engines["llama-cpp"]["features"]["cpu_offload"]
    experts = next(r for r in _cand(offload, "llama-cpp")["reasons"] if r["short"] == "keeps the experts in host RAM")
    assert fact["note"] and experts["text"].endswith(f"this engine does exactly that ({fact['note']})"), experts["text"]
    # a priority's feature without methods: its value and note, nothing between
    fact = catalog.engines["vllm"]["features"]["continuous_batching"]
    throughput = recommend(catalog, {"scale": "service", "priority": "throughput"})
    text = next(r["text"] for r in _cand(throughput, "vllm")["reasons"] if r["text"].startswith("Continuous batching for throughput"))
    assert not fact.get("methods")
    assert text == f"Continuous batching for throughput per gpu: {fact['value']}" + (f" ({fact['note']})" if fact.get("note") else "")


def test_continuous_batching_of_a_service_is_said_in_a_few_words(catalog):
    result = recommend(catalog, {"scale": "service", "hardware": "intel-gpu"})
    found = [(c, r) for c in result["candidates"] for r in c["reasons"] if r["text"].startswith("Continuous batching for many users")]
    assert found, "no candidate short of continuous batching here"
    for c, r in found:
        value = catalog.engines[c["engine"]]["features"]["continuous_batching"]["value"]
        assert r["points"] < 0 and r["short"] == f"continuous batching: {value}", r
        assert {"points": r["points"], "text": r["short"]} in c["why"], c["why"]


def test_an_engine_the_matrix_does_not_score_is_ranked_as_average(catalog):
    import copy
    from selector.catalog import Catalog
    raw = copy.deepcopy(catalog.raw)
    for dim in raw["matrix"].values():
        dim["scores"].pop("vllm")
    result = recommend(Catalog(raw), {"scale": "service"})
    vllm = _cand(result, "vllm")
    # unknown is not no: no matrix points either way, the tree's default prior stands
    assert not any(r["kind"] == "matrix" for r in vllm["reasons"]) and vllm["score"] == DEFAULT_PRIOR[0]


def test_no_preference_that_fits_only_with_a_quantized_cache_plans_that_cache(catalog):
    from selector.api import run_fit
    # 128K tokens of Qwen3-8B's 16-bit KV cache alone take more than the 16 GB card
    out = run_fit(catalog, {"model": "qwen3-8b", "gpu": "rtx-4080", "context_tokens": 131072})
    choice = out["quantization_choice"]
    assert choice["chosen_by"] == "best-fit" and choice["kv_asked"] and out["fits"]
    assert out["kv_cache"] == choice["kv_cache"] is not None and out["quantization"] == choice["quantization"]


def test_rows_quoted_for_a_hardware_family_are_on_that_family(catalog):
    quoted = 0
    for family in ("nvidia-hopper", "nvidia-ada"):
        names = [g["name"] for g in catalog.gpus.values() if g["hardware"] == family]
        result = recommend(catalog, {"scale": "service", "hardware": family, "model": "llama-3.1-8b"})
        for c in result["candidates"]:
            for row in c["measured"]:
                quoted += 1
                assert any(f"× {name}," in row["text"] for name in names), (family, row["text"])
    assert quoted


def test_an_offload_the_engine_cannot_do_rules_it_out_with_its_source(catalog):
    answers = {"scale": "local", "model": "qwen3-30b-a3b", "quantization": "gguf-q4-k-m", "gpu_memory_gb": 8, "ram_gb": 32}
    result = recommend(catalog, answers)
    for x in result["excluded"]:
        fact = catalog.engines[x["engine"]]["features"]["cpu_offload"]
        said = [r for r in x["reasons"] if "keeps no weights in host RAM" in r["text"]]
        assert bool(said) == (fact["value"] == "no"), x
        for r in said:
            assert r["source"] == {k: catalog.cite(catalog.engines[x["engine"]], fact["source"])[k] for k in ("title", "url")}
    assert any("keeps no weights in host RAM" in r["text"] for x in result["excluded"] for r in x["reasons"])
    # undocumented offload costs what any undocumented fact costs
    import copy
    from selector.catalog import Catalog
    raw = copy.deepcopy(catalog.raw)
    del raw["engines"]["llama-cpp"]["features"]["cpu_offload"]
    gap = next(r for r in _cand(recommend(Catalog(raw), answers), "llama-cpp")["reasons"] if "CPU offload is not documented" in r["text"])
    assert gap["points"] == PENALTY["unknown"] and gap["kind"] == "gap"


def test_quantization_reasons_and_suggestions_say_it_plainly(catalog):
    result = recommend(catalog, {"scale": "local", "model": "qwen3-30b-a3b", "quantization": "gguf-q4-k-m", "gpu_memory_gb": 8, "ram_gb": 32})
    for c in result["candidates"]:
        state, row = quantization_support(catalog, catalog.engines[c["engine"]], "gguf-q4-k-m", None)
        said = next(r["text"] for r in c["reasons"] if r["about"] == "quantization")
        assert row["note"] and said == f"Runs GGUF Q4_K_M ({row['note']})", said
    fitting = recommend(catalog, {"scale": "local", "gpu": "rtx-4090", "model": "qwen3-32b", "quantization": "bf16"})
    text = next(s["text"] for s in fitting["suggestions"] if s["kind"] == "quantization")
    assert re.fullmatch(r"Quantizations that fit this memory and that these engines run: "
                        r"[^;()]+ \([\d.]+ GB of weights\)(; [^;()]+ \([\d.]+ GB of weights\)){1,2}\.", text), text
    tight = recommend(catalog, {"scale": "local", "gpu": "rtx-4090", "model": "qwen3-235b-a22b", "quantization": "bf16", "ram_gb": 192})
    text = next(s["text"] for s in tight["suggestions"] if s["kind"] == "quantization")
    assert ", experts in host RAM)" in text, text


def test_the_planners_choice_says_when_it_fits_only_with_offload(catalog):
    from selector.api import run_fit
    out = run_fit(catalog, {"model": "deepseek-r1", "gpu": "rtx-4090", "ram_gb": 512})
    assert not out["fits"] and out["fits_with_offload"]
    assert " is the highest precision that fits with offload " in out["quantization_choice"]["text"]
    fits = run_fit(catalog, {"model": "qwen3-32b", "gpu": "rtx-4090"})["quantization_choice"]["text"]
    assert " is the highest precision that fits among " in fits or " is the highest precision that fits (" in fits, fits


def test_the_why_line_names_the_tree_and_the_measurements_in_a_few_words(catalog):
    vllm = _cand(recommend(catalog, {"scale": "service", "need": "default"}), "vllm")
    assert {"points": TREE_PRIOR[0], "text": "the decision tree's pick"} in vllm["why"]
    result = recommend(catalog, {"scale": "local", "gpu": "rtx-4090d", "model": "deepseek-v3", "quantization": "gguf-q4-k-m", "ram_gb": 512})
    name = catalog.name_of("models", "deepseek-v3")
    shorts = {r["short"] for c in result["candidates"] for r in c["reasons"] if r["kind"] == "measured"}
    assert shorts == {f"measured ahead on {name}", f"measured on {name}"}, shorts


def test_the_planner_lists_other_engines_for_a_chosen_scheme_only_where_they_run_it(catalog):
    from selector.api import run_fit
    from selector.fit import documents
    setup = {"model": "qwen3-235b-a22b", "gpu": "mi300x", "gpus": 2}
    chosen = run_fit(catalog, setup)
    quant, listed = chosen["quantization"], [e["engine"] for e in chosen["engines"]]
    assert chosen["assumptions"]["quantization_chosen_by"] == "best-fit" and listed
    # LMDeploy runs this scheme on other hardware, not on AMD Instinct: not priced with a scheme it cannot run here
    assert "lmdeploy" not in listed and documents(catalog, catalog.engines["lmdeploy"], quant, None)
    assert all(documents(catalog, catalog.engines[e], quant, "amd-instinct-cdna3") for e in listed)
    # the scheme the reader gave: every other engine's own plan for it
    given = run_fit(catalog, {**setup, "quantization": quant})
    assert "lmdeploy" in [e["engine"] for e in given["engines"]]


def test_companions_are_what_the_relations_say(catalog):
    for c in recommend(catalog, {"scale": "cluster"})["candidates"]:
        engine = catalog.engines[c["engine"]]
        assert c["companions"]
        for x in c["companions"]:
            mine = [r for r in engine.get("relations", []) if r["engine"] == x["engine"]]
            theirs = [r for r in catalog.engines[x["engine"]].get("relations", []) if r["engine"] == engine["id"]]
            rel = (mine + theirs)[0] if mine or theirs else None
            assert rel, (c["engine"], x["engine"])  # a KV-cache layer is listed only when a relation ties it to the candidate
            assert x["note"] == rel.get("note"), (c["engine"], x)


def test_answer_path_measured_rows_and_suggestions_follow_the_answers(catalog):
    result = recommend(catalog, {"scale": "service"})
    assert result["path"][0] == {"id": catalog.tree["id"], "label": catalog.tree["question"]}
    # the quoted rows lead with the precision stated
    for quant, said in (("bf16", "in BF16"), ("fp8", "in FP8")):
        rows = _cand(recommend(catalog, {"scale": "service", "gpu": "h100-sxm", "model": "llama-3.1-8b", "quantization": quant}), "vllm")["measured"]
        assert rows and said in rows[0]["text"], (quant, [r["text"][:120] for r in rows])
    # RAM for a CPU-only machine is not advice for a machine with a GPU
    gpu = recommend(catalog, {"scale": "local", "model": "deepseek-r1", "quantization": "gguf-q4-k-m", "gpu": "rtx-4090", "ram_gb": 128})
    assert not any("CPU-only machine" in s["text"] for s in gpu["suggestions"]), gpu["suggestions"]
    cpu = recommend(catalog, {"scale": "local", "model": "llama-3.1-70b", "quantization": "bf16", "memory": "cpu", "ram_gb": 64})
    assert any(s["text"].startswith("A CPU-only machine needs about ") for s in cpu["suggestions"]), cpu["suggestions"]


def test_support_reasons_cite_the_row_and_an_offload_without_a_note_reads_whole(catalog):
    entry = catalog.support(catalog.engines["vllm"], "formats", "gguf")
    reason = next(r for r in _cand(recommend(catalog, {"scale": "service", "weights": "gguf"}), "vllm")["reasons"] if r["about"] == "format")
    cited = catalog.cite(catalog.engines["vllm"], entry["source"])
    assert reason["source"] == {"title": cited["title"], "url": cited["url"]}
    import copy
    from selector.catalog import Catalog
    raw = copy.deepcopy(catalog.raw)
    raw["engines"]["llama-cpp"]["features"]["cpu_offload"].pop("note")
    result = recommend(Catalog(raw), {"scale": "local", "need": "huge-moe-low-vram", "model": "deepseek-r1",
                                      "quantization": "gguf-q4-k-m", "gpu": "rtx-4090", "ram_gb": 512})
    experts = next(r for r in _cand(result, "llama-cpp")["reasons"] if r["short"] == "keeps the experts in host RAM")
    assert experts["text"].endswith("this engine does exactly that"), experts["text"]
    from selector.api import run_fit
    shipped = run_fit(catalog, {"model": "qwen3-8b", "gpu": "rtx-4090"})["quantization_choice"]
    assert shipped["text"] == "No quantization asked: Qwen3-8B as shipped (BF16 (bfloat16)) fits.", shipped


def test_gpu_counts_are_listed_for_the_answers_scheme_then_the_widest(catalog):
    result = recommend(catalog, {"scale": "service", "gpu": "l40s", "model": "gpt-oss-120b"})
    listed = [(s["quantization"], s["gpus"]) for s in result["suggestions"] if s["kind"] == "gpus"]
    bits = [catalog.quantization[q]["bits_per_weight"] for q, _ in listed]
    assert len(listed) >= 3 and listed[0][0] == result["fit"]["quantization"], listed
    assert bits[1:] == sorted(bits[1:], reverse=True), listed


def test_small_rules_of_the_answer(catalog):
    """Each assertion tells a survivor of the fourth mutation sample (seed 53) from the code."""
    import copy
    from selector.api import run_fit
    from selector.catalog import Catalog
    from selector.rules import _distributed, _figure
    # the cluster answer names the companions of its leaf
    dynamo = _cand(recommend(catalog, {"scale": "cluster"}), "dynamo")
    line = next(r["text"] for r in dynamo["reasons"] if r["kind"] == "companions")
    assert line.startswith("Runs with: ") and catalog.engines["mooncake"]["name"] in line, line
    # a CPU-only or unified machine is one device at any scale
    for memory in ("cpu", "unified"):
        assert not _distributed(catalog, {"memory": memory}, {"scale": "service"})
    assert _distributed(catalog, {}, {"scale": "service"})
    # figures of 100 and more without decimals
    assert (_figure(100), _figure(100.4), _figure(99.94)) == ("100", "100", "99.9")
    # every other engine of the planner with its own KV tokens by memory
    out = run_fit(catalog, {"model": "qwen3-32b", "quantization": "gguf-q4-k-m", "gpu": "rtx-4090"})
    assert out["engines"]
    for row in out["engines"]:
        own = run_fit(catalog, {"model": "qwen3-32b", "quantization": "gguf-q4-k-m", "gpu": "rtx-4090", "engine": row["engine"]})
        assert row["kv_tokens_memory"] == own["capacity"]["kv_tokens_memory"] is not None, row
    # whole-layer offload costs nothing when the engine documents it fully
    layers = recommend(catalog, {"scale": "local", "gpu": "rtx-4090", "model": "llama-3.1-70b", "quantization": "gguf-q4-k-m", "ram_gb": 64})
    said = [(c["engine"], r["points"]) for c in layers["candidates"] for r in c["reasons"]
            if r["text"] == "Fits with weights in host RAM (CPU offload: yes)"]
    assert said and all(points == 0 for _, points in said), said
    # a quantization the reader gave: GPU counts only in it
    given = recommend(catalog, {"scale": "service", "gpu": "h100-sxm", "model": "deepseek-r1", "quantization": "fp8"})
    assert [s["quantization"] for s in given["suggestions"] if s["kind"] == "gpus"] == ["fp8"]
    # a documented "no" names what the engine does support
    amd = recommend(catalog, {"scale": "service", "hardware": "amd-instinct-cdna3"})
    trt = next(x for x in amd["excluded"] if x["engine"] == "tensorrt-llm")
    listed = [catalog.name_of("hardware", e["id"]) for e in catalog.engines["tensorrt-llm"]["hardware"] if e["support"] != "no"]
    assert listed and trt["reasons"][0]["text"].endswith("; documented: " + ", ".join(listed)), trt["reasons"][0]["text"]
    # a gated workload nobody documented costs 8, a documented one cites its source
    raw = copy.deepcopy(catalog.raw)
    del raw["engines"]["vllm"]["features"]["multi_lora"]
    gap = next(r for r in _cand(recommend(Catalog(raw), {"scale": "service", "workload": ["multi-lora"]}), "vllm")["reasons"]
               if r["kind"] == "workload-gap")
    assert gap["points"] == -8
    fact = catalog.engines["vllm"]["features"]["multi_lora"]
    said = next(r for r in _cand(recommend(catalog, {"scale": "service", "workload": ["multi-lora"]}), "vllm")["reasons"]
                if r["kind"] == "workload")
    cited = catalog.cite(catalog.engines["vllm"], fact["source"])
    assert said["source"] == {"title": cited["title"], "url": cited["url"]}
