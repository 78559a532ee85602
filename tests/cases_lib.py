"""Loads the table-driven selector cases and checks one result against its expectations.

Shared by the CPython tests and the browser tests, so both hold the page to the same table.
"""

from pathlib import Path

import yaml

CASES_DIR = Path(__file__).resolve().parent / "cases"


def load_cases(kinds=("tree", "gates", "invalid")):
    cases = []
    for kind in kinds:
        for case in yaml.safe_load((CASES_DIR / f"{kind}.yaml").read_text()):
            case["kind"] = kind
            cases.append(case)
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    return cases


def check_result(result, expect):
    """Assert a recommend() result matches a case's `expect` block."""
    cands = [c["engine"] for c in result["candidates"]]
    excluded = {x["engine"]: " ".join(x["reasons"]) for x in result["excluded"]}
    if "first" in expect:
        assert cands and cands[0] == expect["first"], f"first candidate {cands[:1]} != {expect['first']}"
    if "second" in expect:
        assert len(cands) > 1 and cands[1] == expect["second"], f"second candidate in {cands} != {expect['second']}"
    for engine in expect.get("candidates_include", []):
        assert engine in cands, f"{engine} not among {cands}"
    for engine in expect.get("not_candidates", []):
        assert engine not in cands, f"{engine} should not be a candidate"
    for engine, fragment in expect.get("excluded", {}).items():
        assert engine in excluded, f"{engine} not excluded ({list(excluded)})"
        assert fragment in excluded[engine], f"{fragment!r} not in {excluded[engine]!r}"
    if "excluded_any_contains" in expect:
        assert any(expect["excluded_any_contains"] in r for r in excluded.values()), excluded
    for fragment in expect.get("warnings_contain", []):
        assert any(fragment in w for w in result["warnings"]), f"{fragment!r} not in {result['warnings']}"
    for engine, fragment in expect.get("reason_contains", {}).items():
        reasons = next(c["reasons"] for c in result["candidates"] if c["engine"] == engine)
        assert any(fragment in r for r in reasons), f"{fragment!r} not in {reasons}"
    if "leaf" in expect:
        assert result["path"][-1]["id"] == expect["leaf"]
    if expect.get("no_candidates"):
        assert cands == [] and result["warnings"], result
    if "fit" in expect:
        for key, value in expect["fit"].items():
            assert result["fit"][key] == value, (key, result["fit"])
    # invariants of every answer
    assert len(cands) <= 3
    for c in result["candidates"]:
        assert c["reasons"], c
    for x in result["excluded"]:
        assert x["reasons"], x
    if not cands:
        assert result["warnings"]
