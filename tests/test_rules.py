"""The selector's rules, table-driven from tests/cases/*.yaml: a case per tree leaf, per gate, per bad input."""

import json

import pytest

from cases_lib import check_result, load_cases
from selector.inputs import InputError
from selector.rules import RULES, Trace, recommend

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


def test_scenarios_agree_with_selector(catalog):
    for scen in catalog.scenarios.values():
        result = recommend(catalog, scen["answers"])
        assert result["candidates"][0]["engine"] in scen["engines"], scen["id"]


def test_trimmed_catalog_gives_identical_answers(catalog):
    from selector.catalog import Catalog, trim_for_selector
    small = Catalog(json.loads(json.dumps(trim_for_selector(catalog.raw))))
    for case in CASES:
        if case["kind"] != "invalid":
            assert recommend(small, case["answers"]) == recommend(catalog, case["answers"]), case["id"]
