"""The command line: exit codes and one-line messages, never a traceback.

Most tests call the CLI's ``main`` in this process with the real data read once (each ``python -m
selector`` would read and validate it again); a few run the real command, and every test that could hang
or fill memory on a regression runs it in a child process with a timeout and a memory limit."""

import contextlib
import functools
import io
import json
import os
import resource
import subprocess
import sys
import types

import pytest

from cases_lib import load_cases
from conftest import ROOT


def run_process(*args):
    """``python -m selector ARGS`` in a child process: killed after a minute, refused memory past 2 GiB."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
    return subprocess.run([sys.executable, "-m", "selector", *args], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          preexec_fn=limit)


@functools.lru_cache(maxsize=None)
def _real_data():
    from datatools.files import load_data_dir
    return load_data_dir(ROOT / "data")


def run(*args):
    """``python -m selector ARGS`` as this process runs it (``selector/__main__.py`` calls ``datatools.cli.main``)."""
    from datatools import cli
    real = cli.load_data_dir

    def load(data_dir, *rest, **kw):  # the real data once; any other folder as the command reads it
        same = not rest and not kw and os.path.realpath(data_dir) == os.path.realpath(ROOT / "data")
        return _real_data() if same else real(data_dir, *rest, **kw)

    out, err = io.StringIO(), io.StringIO()
    cli.load_data_dir = load
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(list(args))
            except SystemExit as exc:
                code = exc.code
    finally:
        cli.load_data_dir = real
    return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def test_the_module_runs_the_cli():
    """The real entry point, once: a child process, its exit codes and its streams."""
    proc = run_process("recommend", "--answers", '{"scale": "local"}')
    assert proc.returncode == 0 and json.loads(proc.stdout) == json.loads(run("recommend", "--answers", '{"scale": "local"}').stdout)
    bad = run_process("recommend", "--answers", "[" * 3000 + "]" * 3000)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1 and "nested too deeply" in bad.stderr


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
    # JSON and numbers the parsers refuse with an exception of their own: nesting past the recursion limit,
    # integers past Python's 4,300-digit conversion limit, floats that overflow or are not numbers
    (["recommend", "--answers", "[" * 3000 + "]" * 3000], "--answers is not valid JSON (nested too deeply)"),
    (["recommend", "--answers", '{"scale": ' + "[" * 3000 + "]" * 3000 + "}"], "--answers is not valid JSON (nested too deeply)"),
    (["recommend", "--answers", '{"scale": ' + "9" * 5000 + "}"], "--answers is not valid JSON (Exceeds the limit (4300 digits)"),
    (["recommend", "--answers", '{"scale": "service", "gpus": -' + "1" * 4301 + "}"], "--answers is not valid JSON"),
    (["recommend", "--answers", '{"scale": 1e400}'], "scale: inf is not allowed"),
    (["recommend", "--answers", '{"scale": "service", "hardware": NaN}'], "hardware: nan is not allowed"),
    (["recommend", "--answers", '{"scale": "service", "gpu_memory_gb": 1e400}'], "gpu_memory_gb"),
    (["recommend", "--answers", '{"scale": "service", "context_tokens": ' + "9" * 4000 + "}"], "context_tokens"),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100-sxm", "--context-tokens", "1e400"], "--context-tokens: '1e400' is not a whole number"),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100-sxm", "--context-tokens", "9" * 5000], "--context-tokens: '999"),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100-sxm", "--concurrency", "1e400"], "--concurrency: '1e400' is not a whole number"),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100-sxm", "--gpus", "9" * 5000], "--gpus: '999"),
    (["fit", "--model", "qwen3-8b", "--gpu-memory-gb", "nan"], "--gpu-memory-gb: 'nan' is not a number"),
    (["fit", "--model", "qwen3-8b", "--gpu-memory-gb", "inf"], "--gpu-memory-gb: 'inf' is not a number"),
    (["fit", "--model", "qwen3-8b", "--gpu-memory-gb", "-1"], "--gpu-memory-gb: -1.0 is out of range"),
    (["fit", "--model", "qwen3-8b", "--gpu-memory-gb", "1e308"], "--gpu-memory-gb: '1e308' is not a number"),
    (["fit", "--model", "qwen3-8b", "--gpu-memory-gb", "9" * 5000], "--gpu-memory-gb: '999"),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100-sxm", "--bandwidth-gbs", "1e309"], "--bandwidth-gbs: '1e309' is not a number"),
    (["fit", "--model", "qwen3-8b", "--memory", "cpu", "--ram-gb", "-inf"], "--ram-gb: expected one argument"),
    (["fit", "--model", "qwen3-8b", "--memory", "cpu", "--ram-gb", "=-inf"], "--ram-gb"),
    (["fit", "--model", "qwen3-8b", "--gpu", "h100-sxm", "--engine", "vllm", "--memory-fraction", "nan"], "--memory-fraction: 'nan' is not a number"),
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
    proc = run("validate", "--strict", str(data))  # strict: the same whether or not CI=true is set
    assert proc.returncode == 1, proc.stdout + proc.stderr
    todo = [line.split(": ")[1] for line in proc.stdout.splitlines() if "is still marked TODO" in line]
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


@pytest.mark.parametrize("make, fragment", [
    (lambda p: os.mkfifo(p), "is a named pipe (FIFO), not a regular file"),
    (lambda p: p.symlink_to("/dev/zero"), "is a symbolic link; files to update must be regular files"),
    (lambda p: p.symlink_to(ROOT / "CONTRIBUTING.md"), "is a symbolic link; files to update must be regular files"),
    (lambda p: p.write_bytes(b"x" * (300 * 1024)), "must stay under"),
    (lambda p: p.write_bytes(b"\xff\xfe"), "can't decode"),
    (lambda p: p.write_text("no markers here\n"), "markers"),
], ids=["fifo", "link-to-dev-zero", "link-to-a-file", "huge", "not-utf8", "no-markers"])
def test_fields_update_reads_only_a_regular_file(tmp_path, make, fragment):
    """--update used to block on a named pipe and read /dev/zero until memory ran out (run() has a timeout)."""
    target = tmp_path / "GUIDE.md"
    make(target)
    before = os.lstat(target)
    proc = run_process("fields", "--update", str(target))
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith(f"error: --update {target}: ") and fragment in line, line
    after = os.lstat(target)
    assert (after.st_mode, after.st_size, after.st_mtime_ns) == (before.st_mode, before.st_size, before.st_mtime_ns)


def test_fields_update_rewrites_a_regular_file(tmp_path):
    from datatools.guide import END, START
    target = tmp_path / "GUIDE.md"
    target.write_text(f"# Guide\n\n{START}\nold\n{END}\n\nafter\n", encoding="utf-8")
    proc = run("fields", "--update", str(target))
    assert proc.returncode == 0 and proc.stdout.startswith("updated the field guide"), proc.stderr
    text = target.read_text(encoding="utf-8")
    assert "\nold\n" not in text and text.endswith(f"{END}\n\nafter\n") and "| `id` | yes |" in text
    again = run("fields", "--update", str(target))
    assert again.returncode == 0 and "is up to date" in again.stdout


@pytest.mark.parametrize("make, fragment", [
    (lambda p: os.mkfifo(p), "is a named pipe (FIFO), not a regular file"),
    (lambda p: p.symlink_to("/dev/zero"), "is a symbolic link; start-up logs must be regular files"),
    (lambda p: p.write_text("[" * 5000 + "]" * 5000), "x.yaml: "),
    (lambda p: p.write_text("a: [b\n"), "x.yaml: "),
    (lambda p: p.write_text("- a list\n"), "a start-up log is one YAML mapping"),
], ids=["fifo", "link-to-dev-zero", "deep", "not-yaml", "not-a-mapping"])
def test_calibration_logs_are_read_like_data_files(tmp_path, make, fragment):
    """--logs read every *.yaml of a folder with open(): a named pipe blocked it, /dev/zero filled memory."""
    make(tmp_path / "x.yaml")
    proc = run_process("calibration", "--startup", "--logs", str(tmp_path))
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith(f"error: --logs: {tmp_path / 'x.yaml'}: ") and fragment in line, line
