"""datatools.inferencex: snapshot points become catalog rows value by value, and --check finds a stale file."""

import copy
import json
import shutil
from pathlib import Path

import pytest

from datatools import inferencex as ix
from datatools.files import parse_yaml_text, read_schemas
from datatools.validation import schema_set

ROOT = Path(__file__).resolve().parent.parent

SINGLE = {
    "hardware": "mi355x", "framework": "sglang", "model": "dsr1", "precision": "fp4", "spec_method": "none",
    "disagg": False, "is_multinode": False, "prefill_tp": 4, "prefill_ep": 1, "prefill_dp_attention": False,
    "prefill_num_workers": 0, "decode_tp": 4, "decode_ep": 1, "decode_dp_attention": False, "decode_num_workers": 0,
    "num_prefill_gpu": 4, "num_decode_gpu": 4, "isl": 1024, "osl": 1024, "conc": 4,
    "image": "lmsysorg/sglang:v0.5.12-rocm700-mi35x",
    "metrics": {"tput_per_gpu": 198.9447984579421, "median_intvty": 103.64816793368249,
                "median_ttft": 0.10217383736744523, "p99_ttft": 0.8231137297395617,
                "median_tpot": 0.009648023886344358, "avg_power_w": 628.907, "joules_per_total_token": 3.161212,
                "joules_per_output_token": 6.353339},
    "date": "2026-06-11", "run_url": "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/27213443242/attempts/1"}

DISAGG = {
    "hardware": "gb200", "framework": "dynamo-trt", "model": "dsr1", "precision": "fp8", "spec_method": "mtp",
    "disagg": True, "is_multinode": True, "prefill_tp": 1, "prefill_ep": 1, "prefill_dp_attention": True,
    "prefill_num_workers": 10, "decode_tp": 16, "decode_ep": 16, "decode_dp_attention": True, "decode_num_workers": 1,
    "num_prefill_gpu": 40, "num_decode_gpu": 16, "isl": 8192, "osl": 1024, "conc": 666,
    "image": "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2",
    "metrics": {"tput_per_gpu": 5809.46, "median_intvty": 74.54, "median_ttft": 3.72404, "p99_ttft": 15.32449,
                "median_tpot": 0.013424, "avg_power_w": 900.0, "joules_per_total_token": 0.5},
    "date": "2026-02-05", "run_url": "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/21701654125/attempts/3"}


def test_single_node_point_keeps_its_values_and_measured_energy():
    assert ix.row(SINGLE) == {
        "engine": "sglang", "engine_version": "v0.5.12-rocm700-mi35x", "gpu": "mi355x", "gpus": 4,
        "model": "deepseek-r1", "weights": "mxfp4", "parallelism": "TP4 EP1", "concurrency": 4, "date": "2026-06-11",
        "metrics": {"throughput_per_gpu": 198.9, "output_tps_per_user": 103.6,
                    "ttft_ms": {"median": 102.2, "p99": 823.1}, "tpot_ms": {"median": 9.65},
                    "energy_j_per_token": 3.1612},
        "note": ("InferenceX GitHub Actions run 27213443242 (attempt 1); image lmsysorg/sglang:v0.5.12-rocm700-mi35x; "
                 "single node; GPU count is the TP size")}


def test_disaggregated_point_counts_every_gpu_and_leaves_multinode_energy_out():
    r = ix.row(DISAGG)
    assert (r["engine"], r["engine_version"], r["gpu"], r["gpus"], r["weights"]) == (
        "dynamo", "0.8.1.post2", "gb200-nvl72", 56, "fp8")
    assert r["parallelism"] == ("disaggregated: 10x prefill (TP1 EP1 with DP attention) "
                                "+ 1x decode (TP16 EP16 with DP attention)")
    assert r["variant"] == "MTP speculative decoding"
    assert "energy_j_per_token" not in r["metrics"] and "power_w" not in r["metrics"]
    assert "energy figure left out" in r["note"]


def test_left_out_points():
    assert ix.row(dict(SINGLE, framework="atom")) is None
    assert ix.row(dict(DISAGG, prefill_num_workers=0)) is None
    assert [r["concurrency"] for r in ix.rows([SINGLE, DISAGG, dict(SINGLE, conc=2)], 1024, 1024)] == [2, 4]


def test_energy_that_does_not_match_power_over_throughput_stops_the_conversion():
    bad = copy.deepcopy(SINGLE)
    bad["metrics"]["joules_per_total_token"] = 3.161212 * 2  # as if the monitor had seen eight GPUs
    with pytest.raises(ix.SnapshotError, match="J per token"):
        ix.row(bad)


def test_unknown_setting_is_refused():
    with pytest.raises(ix.SnapshotError):
        ix.row(dict(SINGLE, spec_method="eagle"))


def test_check_then_write_then_check(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "schema", data / "schema")
    (data / "results").mkdir()
    for name in ix.FILES:
        shutil.copy(ROOT / "data" / "results" / f"{name}.yaml", data / "results")
    points = [SINGLE, DISAGG, dict(SINGLE, isl=1024, osl=8192)]
    snapshot = tmp_path / "benchmarks.json"
    snapshot.write_text(json.dumps(points))
    args = ["--benchmarks", str(snapshot), "--data-dir", str(data)]
    assert ix.main(args + ["--check"]) == 1
    assert "rows differ" in capsys.readouterr().err
    assert ix.main(args) == 0
    doc = parse_yaml_text((data / "results" / "inferencex-deepseek-r1-8k1k.yaml").read_text())
    assert doc["rows"] == [ix.row(DISAGG)]
    assert not schema_set(read_schemas(data)[0]).validate(doc, "result-set.schema.json")
    assert ix.main(args + ["--check"]) == 0


def test_committed_files_name_a_pinned_commit():
    for name in ix.FILES:
        doc = parse_yaml_text((ROOT / "data" / "results" / f"{name}.yaml").read_text())
        assert len(ix._commit(doc, name)) == 40
