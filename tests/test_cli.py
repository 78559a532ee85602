"""The command line: exit codes and one-line messages, never a traceback."""

import json
import subprocess
import sys

import pytest

from cases_lib import load_cases
from conftest import ROOT


def run(*args):
    return subprocess.run([sys.executable, "-m", "selector", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_validate_real_data_is_clean(catalog):
    proc = run("validate")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = proc.stdout.strip().splitlines()[-1]
    assert summary.startswith("ok: ")
    # every collection is counted, so a new GPU or format file is confirmed as read
    from datatools.cli import LABELS
    from selector.catalog import COLLECTIONS, SINGLETONS
    for name in COLLECTIONS:
        count = len(getattr(catalog, name))
        one, many = LABELS[name]
        assert f" {count} {one if count == 1 else many}," in summary, (name, summary)
    for name in SINGLETONS:
        assert f"{name}.yaml" in summary


def test_recommend_prints_json_matching_python(catalog):
    from selector.launch import add_launches
    from selector.rules import recommend
    answers = {"scale": "service", "hardware": "nvidia-hopper", "workload": ["shared-prefix"]}
    proc = run("recommend", "--answers", json.dumps(answers))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(json.dumps(add_launches(catalog, recommend(catalog, answers))))


def test_fit_prints_json():
    proc = run("fit", "--model", "gpt-oss-120b", "--quantization", "mxfp4", "--gpus", "1", "--gpu-memory-gb", "80")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["fits_gpu"] is True and out["model"] == "gpt-oss-120b"


@pytest.mark.parametrize("case", [c for c in load_cases(("invalid",)) if isinstance(c["answers"], dict)], ids=lambda c: c["id"])
def test_recommend_bad_input_exits_2(case):
    proc = run("recommend", "--answers", json.dumps(case["answers"]))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert case["error"]["contains"] in lines[0]
    assert case["error"]["key"] in lines[0]


@pytest.mark.parametrize("args,fragment", [
    (["recommend", "--answers", "{not json"], "not valid JSON"),
    (["recommend", "--answers", "[1, 2]"], "must be a JSON object"),
    (["fit", "--model", "gpt-oss-12b", "--gpu-memory-gb", "80"], "did you mean 'gpt-oss-120b'"),
    (["fit", "--model", "qwen3-8b", "--gpu-memory-gb", "-5"], "out of range"),
    (["fit", "--model", "qwen3-8b", "--gpu-memory-gb", "80", "--quantization", "fp3"], "quantization"),
    (["fit", "--model", "qwen3-8b"], "--gpu-memory-gb"),
    (["fit", "--model", "qwen3-8b", "--gpu-memory-gb", "eighty"], "--gpu-memory-gb: 'eighty' is not a number"),
    (["fit", "--model", "qwen3-8b", "--gpu-memory-gb", "0x10"], "--gpu-memory-gb: '0x10' is not a number"),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100-sxm", "--gpus", "1e400"], "--gpus: '1e400' is not a whole number"),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100"], "--gpu: 'h100' is not allowed"),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100-sxm", "--memory", "unified"], "--memory: 'unified' is not allowed"[:9]),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100-sxm", "--kv-cache", "fp8"], "--kv-cache: 'fp8' is not allowed"),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100-sxm", "--gpu-memory-gb", "80"], "not both"),
    (["fit", "--model", "qwen3-8b", "--memory", "cpu"], "--ram-gb"),
    (["frobnicate"], "invalid choice"),
])
def test_cli_errors_are_one_clear_line(args, fragment):
    proc = run(*args)
    assert proc.returncode == 2, proc.stdout
    assert "Traceback" not in proc.stderr
    assert fragment in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_fit_cli_contract():
    """The documented command line: today's keys plus capacity and speed."""
    proc = run("fit", "--model", "qwen3-32b", "--quantization", "fp8", "--gpu", "h100-sxm", "--kv-cache", "kv-fp8",
               "--context-tokens", "32768", "--concurrency", "16")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("weights_gb", "kv_cache_gb", "overhead_gb", "required_gb", "available_gb", "fits_gpu", "fits_with_offload",
                "offload", "kv_bytes_per_token", "notes"):
        assert key in out
    assert set(out["capacity"]) >= {"kv_tokens", "max_sequences", "max_context_tokens"}
    assert set(out["speed"]) >= {"decode_tokens_per_s", "basis"}
    assert out["capacity"]["max_sequences"] >= 7 and "table" not in out
    mac = json.loads(run("fit", "--model", "llama-3.1-8b", "--gpu", "apple-m4-max").stdout)
    assert mac["machine"]["mode"] == "unified"
    cpu = json.loads(run("fit", "--model", "qwen3-8b", "--quantization", "gguf-q4-k-m", "--memory", "cpu", "--ram-gb", "32",
                         "--ram-bandwidth-gbs", "89.6").stdout)
    assert cpu["fits"] and cpu["speed"]["decode_tokens_per_s"] > 0


def test_validate_output_orders_lines_by_number(tmp_path):
    import shutil
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    path = data / "engines" / "vllm.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    for number in (3, 9, 12):
        lines[number - 1] += "  # TODO: check"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = run("validate", str(data))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    todo = [line.split(": ")[2] for line in proc.stdout.splitlines() if "is still marked TODO" in line]
    assert todo == ["line 3", "line 9", "line 12"]


def test_validate_missing_dir_fails_cleanly(tmp_path):
    proc = run("validate", str(tmp_path / "nope"))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "not found" in proc.stdout + proc.stderr


@pytest.mark.parametrize("args, option, fragment", [
    (("--memory-fraction", "1.5"), "--memory-fraction", "out of range; use a number from 0.05 to 1"),
    (("--memory-fraction", "half"), "--memory-fraction", "is not a number"),
])
def test_fit_memory_fraction_errors_are_one_line(args, option, fragment):
    proc = run("fit", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--engine", "vllm", *args)
    assert proc.returncode == 2 and proc.stdout == ""
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith(f"error: {option}: ") and fragment in line, line


def test_fit_memory_fraction_and_dp_attention_reach_the_answer():
    proc = run("fit", "--model", "deepseek-v3", "--quantization", "fp8", "--gpu", "h200", "--gpus", "8", "--engine", "sglang",
               "--memory-fraction", "0.85", "--dp-attention")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["assumptions"]["memory_fraction"] == 0.85 and out["assumptions"]["fraction_from"] == "given"
    assert out["assumptions"]["dp_attention"] is True and out["assumptions"]["engine_chosen_by"] == "given"


def test_fit_without_engine_names_the_selectors_engine():
    proc = run("fit", "--model", "llama-3.1-8b", "--quantization", "gguf-q4-k-m", "--gpu-memory-gb", "8")
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and out["fits"] and out["assumptions"]["engine_chosen_by"] == "selector"
    assert out["assumptions"]["engine"] in ("ollama", "llama-cpp", "lm-studio") and out["engines"]


def test_calibration_startup_prints_the_markdown_table(catalog):
    from datatools.cli import DEFAULT_LOGS, read_logs
    from datatools.startup import markdown
    proc = run("calibration", "--startup")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip("\n") == markdown(catalog, read_logs(DEFAULT_LOGS))
    bad = run("calibration", "--startup", "--logs", "no/such/folder")
    assert bad.returncode == 2 and bad.stderr.strip().startswith("error: --logs: ") and "\n" not in bad.stderr.strip()
