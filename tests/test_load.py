"""The load answer: table-driven cases (tests/cases/load.yaml) through the API the browser calls, and the CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from selector.api import answer
from cases_lib import check_load, load_load_cases

CASES = load_load_cases()
ROOT = Path(__file__).resolve().parent.parent


def ask(catalog, case):
    return answer(catalog, "load", case["answers"], gpu_hour_usd=case.get("gpu_hour_usd"))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_load_case(catalog, case):
    check_load(ask(catalog, case), case["expect"])


def test_load_json_is_strict(catalog):
    """What the worker returns: strict JSON, sorted keys, no NaN."""
    response = ask(catalog, CASES[0])
    assert json.loads(json.dumps(response, sort_keys=True, allow_nan=False)) == response


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "selector", "load", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_cli_prints_the_api_answer(catalog):
    case = next(c for c in CASES if c["id"] == "load-deepseek-r1-h200-given-price")
    done = run_cli("--answers", json.dumps(case["answers"]), "--gpu-hour-usd", case["gpu_hour_usd"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ask(catalog, case)["result"]


@pytest.mark.parametrize("args, fragment", [
    (["--answers", '{"scale": "service", "model": "qwen3-8b", "gpu": "h100-sxm"}', "--gpu-hour-usd", "-3"],
     "error: --gpu-hour-usd: '-3' is not a price; give a price in US dollars per GPU-hour"),
    (["--answers", '{"scale": "servic"}'], "error: scale: 'servic' is not allowed"),
    (["--answers", "{"], "error: --answers is not valid JSON"),
])
def test_cli_bad_input_is_one_line(args, fragment):
    done = run_cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(fragment) and done.stderr.count("\n") == 1, done.stderr


def test_page_costs_follow_the_price(catalog):
    """The explorer's repricing: every row at the typed price, in the build's row order; a bad price is one line."""
    from selector import costs
    got = answer(catalog, "costs", {}, gpu_hour_usd="2")
    assert got["ok"]
    rows = costs.results(catalog)["rows"]
    assert [r["row"] for r in got["result"]["rows"]] == [f"r{i}" for i in range(len(rows))]
    for r, cited in zip(got["result"]["rows"], rows):
        tps = cited["metrics"].get("throughput_per_gpu")
        want = costs.usd_per_million_tokens(2.0, tps) if tps and cited["tokens_counted"] else None
        assert r["usd_per_million_tokens"] == want
    assert answer(catalog, "costs", {})["result"]["rows"] == [{"row": f"r{i}", "usd_per_million_tokens": r["usd_per_million_tokens"]}
                                                             for i, r in enumerate(rows)]
    bad = answer(catalog, "costs", {}, gpu_hour_usd="0")
    assert not bad["ok"] and bad["error"]["key"] == "gpu_hour_usd" and "'0' is not a price" in bad["error"]["message"]


SWEEP = [  # one model of each kind on machines of each memory layout, at each scale
    ("local", "qwen3-30b-a3b", {"gpu": "apple-m3-ultra"}), ("service", "gpt-oss-120b", {"gpu": "mi300x"}),
    ("cluster", "deepseek-v3", {"gpu": "b200", "gpus": 8}), ("local", "deepseek-r1", {"gpu": "rtx-4090", "ram_gb": 512}),
    ("service", "llama-3.1-405b", {"gpu": "h100-sxm"}), ("local", "llama-2-7b", {"gpu": "amd-epyc-9654", "ram_gb": 256}),
    ("service", "qwen3-32b", {"gpu_memory_gb": 48, "gpus": 3}),
]


@pytest.mark.parametrize("scale, model, machine", SWEEP, ids=[f"{s}-{m}" for s, m, _ in SWEEP])
def test_load_invariants(catalog, scale, model, machine):
    """Every answer keeps the invariants of check_load: loads in order, each figure with its basis, flips at listed loads;
    the total GPU count never shrinks as the load grows."""
    response = answer(catalog, "load", {"scale": scale, "model": model, **machine})
    check_load(response, {})
    gpus = [p["gpus"] for p in response["result"]["points"]]
    assert gpus == sorted(gpus)
