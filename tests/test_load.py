"""The load answer: table-driven cases (tests/cases/load.yaml) through the API the browser calls, and the CLI."""

import json

import pytest

from selector.api import answer
from cases_lib import check_load, load_load_cases

CASES = load_load_cases()


def ask(catalog, case):
    return answer(catalog, "load", case["answers"], gpu_hour_usd=case.get("gpu_hour_usd"))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_load_case(catalog, case):
    check_load(ask(catalog, case), case["expect"])


def test_load_json_is_strict(catalog):
    """What the worker returns: strict JSON, sorted keys, no NaN."""
    response = ask(catalog, CASES[0])
    assert json.loads(json.dumps(response, sort_keys=True, allow_nan=False)) == response
