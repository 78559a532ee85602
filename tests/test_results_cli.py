"""`python -m selector results`: the cost arithmetic on the returned rows, the price rule, --gpu-hour-usd, bad input."""

import json
import statistics
import subprocess
import sys

import pytest

from conftest import ROOT


def run(*args):
    return subprocess.run([sys.executable, "-m", "selector", "results", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def every_row():
    proc = run()
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["rows"]


def _cited_per_gpu(catalog, gpu):
    out = []
    for pl in catalog.prices.values():
        for p in pl["prices"]:
            if p["gpu"] == gpu:
                out.append(p["usd_per_hour"] / (p["gpus_per_instance"] if p["per"] == "instance" else 1))
    return out


def test_every_row_with_per_gpu_throughput_has_a_cost_from_the_formula(every_row, catalog):
    costed = [r for r in every_row if r["usd_per_million_tokens"] is not None]
    assert len(costed) > 200
    priced = {p["gpu"] for pl in catalog.prices.values() for p in pl["prices"]}
    assert all(r["usd_per_million_tokens"] for r in every_row if "throughput_per_gpu" in r["metrics"] and r["gpu"] in priced)
    for r in costed:
        price = r["price"]["value"]
        tps = r["metrics"]["throughput_per_gpu"]
        expect = price / (tps * 3600) * 1e6
        assert r["usd_per_million_tokens"] == pytest.approx(expect, rel=1e-3), r
        assert r["tokens_counted"] in ("input+output", "output", "input")
        assert r["cost_marked"] == "derived"  # a cost is never "measured"
        assert r["price"]["list_price"] is True and "median" in r["price"]["source"]
        assert r["price"]["value"] == pytest.approx(statistics.median(_cited_per_gpu(catalog, r["gpu"])), abs=1e-3)
    # rows without a per-GPU throughput (single-sequence decode) carry no cost
    for r in every_row:
        if "throughput_per_gpu" not in r["metrics"]:
            assert r["usd_per_million_tokens"] is None and r["price"] is None


def test_rows_keep_the_catalog_fields(every_row, catalog):
    n = sum(len(rs["rows"]) for rs in catalog.results.values())
    assert len(every_row) == n
    for r in every_row:
        for key in ("engine", "gpu", "gpus", "model", "weights", "concurrency", "metrics", "set", "source",
                    "usd_per_million_tokens", "price", "tokens_counted", "joules_per_token"):
            assert key in r
        assert r["source"]["url"].startswith("https://")


def test_common_datacenter_gpus_have_a_cited_price(catalog):
    from selector.costs import gpu_price
    for gpu in ("h100-sxm", "h200", "b200", "a100-80gb", "l40s", "mi300x"):
        price = gpu_price(catalog, gpu)
        assert price and price["value"] > 0 and price["list_price"], gpu
    providers = {pid for pid, pl in catalog.prices.items() if any(p["gpu"] == "h100-sxm" for p in pl["prices"])}
    assert len(providers) >= 3


def test_filters_and_a_worked_example():
    proc = run("--model", "deepseek-r1", "--gpu", "b200")
    rows = json.loads(proc.stdout)["rows"]
    assert rows and all(r["model"] == "deepseek-r1" and r["gpu"] == "b200" for r in rows)
    proc = run("--engine", "sglang", "--gpu", "h200")
    assert all(r["engine"] == "sglang" and r["gpu"] == "h200" for r in json.loads(proc.stdout)["rows"])


def test_gpu_hour_usd_overrides_the_cited_price():
    rows = json.loads(run("--gpu", "h100-sxm", "--gpu-hour-usd", "2").stdout)["rows"]
    costed = [r for r in rows if r["usd_per_million_tokens"] is not None]
    assert costed
    for r in costed:
        assert r["price"] == {"value": 2.0, "unit": "USD per GPU-hour", "source": "given", "rule": "given", "offers": 0,
                              "list_price": False}
        assert r["usd_per_million_tokens"] == pytest.approx(2 / (r["metrics"]["throughput_per_gpu"] * 3600) * 1e6, rel=1e-3)
    # a GPU with no cited price still gets a cost from a typed one
    rows = json.loads(run("--gpu", "mi355x", "--gpu-hour-usd", "3.5").stdout)["rows"]
    assert any(r["usd_per_million_tokens"] for r in rows)


@pytest.mark.parametrize("args, option, value", [
    (("--gpu-hour-usd", "abc"), "--gpu-hour-usd", "'abc'"),
    (("--gpu-hour-usd", "-1"), "--gpu-hour-usd", "'-1'"),
    (("--gpu-hour-usd", "0"), "--gpu-hour-usd", "'0'"),
    (("--gpu-hour-usd", "nan"), "--gpu-hour-usd", "'nan'"),
    (("--gpu-hour-usd", "1e309"), "--gpu-hour-usd", "'1e309'"),
    (("--gpu-hour-usd", "20000"), "--gpu-hour-usd", "'20000'"),
    (("--model", "no-such-model"), "--model", "'no-such-model'"),
    (("--gpu", "h100"), "--gpu", "'h100'"),
    (("--engine", "vllmm"), "--engine", "'vllmm'"),
])
def test_bad_input_is_one_line_and_exit_2(args, option, value):
    proc = run(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert option in lines[0] and value in lines[0] and "Traceback" not in proc.stderr
    assert "give" in lines[0]  # says what is allowed


def test_energy_is_only_measured_with_its_boundary(every_row):
    energy = [r for r in every_row if r["joules_per_token"]]
    for r in energy:
        assert r["joules_per_token"]["boundary"] in ("system", "accelerator")
        assert r["joules_per_token"]["value"] == r["metrics"]["energy_j_per_token"]


def test_quoted_measured_rows_carry_their_derived_cost(catalog):
    from selector import costs, measured
    quoted = measured.rows_for(catalog, gpu="b200", model="deepseek-r1", limit=3)
    assert quoted
    for q in quoted:
        rs = catalog.results[q["set"]]
        row = next(r for r in rs["rows"] if r["gpu"] == "b200" and r["model"] == "deepseek-r1"
                   and r["metrics"].get(q["metric"]) == q["value"])
        assert q["usd_per_million_tokens"] == costs.view(catalog, rs, row)["usd_per_million_tokens"]
        assert "Derived cost: about $" in q["text"] and "list price" in q["text"]
        assert q["price"]["list_price"] and q["tokens_counted"]
    # a single-sequence decode row has no per-GPU throughput, so no cost is quoted
    solo = measured.rows_for(catalog, gpu="rtx-4090", model="llama-2-7b", limit=1)
    assert solo and solo[0]["usd_per_million_tokens"] is None and "Derived cost" not in solo[0]["text"]


def test_mlperf_power_rows_give_energy_at_the_system_boundary(every_row):
    """MLPerf power runs: energy per token is the measured system power over the measured token rate, at the wall."""
    power = [r for r in every_row if r["set"].startswith("mlperf-") and r["joules_per_token"]]
    assert len(power) >= 11
    assert {r["model"] for r in power} >= {"llama-2-70b", "llama-3.1-8b", "llama-3.1-405b", "mixtral-8x7b"}
    assert {r["gpu"] for r in power} >= {"b200", "h200"}
    for r in power:
        j = r["joules_per_token"]
        assert j["boundary"] == "system" and j["tokens"] == "output", r["set"]
        assert j["value"] == pytest.approx(j["power_w"] / r["metrics"]["throughput_total"], rel=2e-3), r["set"]
        assert "/tree/" in r["source"]["url"] and "inference_results_v" in r["source"]["url"]
    # ML.ENERGY measures the GPUs only: its energy keeps that boundary
    assert {r["joules_per_token"]["boundary"] for r in every_row if r["set"].startswith("mlenergy-") and r["joules_per_token"]} == {"accelerator"}


def test_filtered_results_carry_the_power_boundary():
    proc = run("--model", "mixtral-8x7b", "--gpu", "h200")
    assert proc.returncode == 0, proc.stderr
    energy = [r["joules_per_token"] for r in json.loads(proc.stdout)["rows"] if r["joules_per_token"]]
    assert len(energy) == 2 and all(e["boundary"] == "system" and 0.1 < e["value"] < 0.2 for e in energy)
