"""The calibration set of real engine start-up logs (tests/calibration/logs): every file has the agreed
shape, names ids the catalog knows, and every figure under `observed` is printed in its own quote."""

import datetime
import re
from pathlib import Path

import pytest
import yaml

LOG_DIR = Path(__file__).resolve().parent / "calibration" / "logs"
LOGS = sorted(LOG_DIR.glob("*.yaml"))

TOP_KEYS = {"engine", "engine_version", "source", "quoted", "setup", "observed", "note"}
SOURCE_KEYS = {"url", "title", "as_of"}
SETUP_KEYS = {"model", "quantization", "kv_quantization", "gpu", "gpu_memory_gib", "gpus", "tensor_parallel",
              "data_parallel_attention", "max_model_len", "max_num_batched_tokens", "max_num_seqs", "memory_fraction",
              "parallel_slots"}
OBSERVED_KEYS = {"weights_gib", "kv_gib", "kv_tokens", "total_memory_gib"}
# Engines that print MiB (llama.cpp, Ollama): the figure is kept in the unit printed, never converted.
OBSERVED_OPTIONAL = {"weights_mib", "kv_mib", "compute_mib", "total_memory_mib"}
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
PINNED_GITHUB = re.compile(r"^https://github\.com/[^/]+/[^/]+/(issues|pull|discussions)/\d+"
                           r"|^https://github\.com/[^/]+/[^/]+/blob/[0-9a-f]{40}/")
MIN_LOGS, MIN_ENGINES = 30, 4


def load(path):
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def numbers_in(text):
    """Every number printed in the quote, thousands separators dropped (178,880 -> 178880.0)."""
    return {float(match.replace(",", "")) for match in NUMBER.findall(text) if match.replace(",", "").strip("-")}


def test_the_set_is_large_and_varied():
    engines = {load(path)["engine"] for path in LOGS}
    assert len(LOGS) >= MIN_LOGS, f"{len(LOGS)} logs, want at least {MIN_LOGS}"
    assert len(engines) >= MIN_ENGINES, f"engines {sorted(engines)}, want at least {MIN_ENGINES}"


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_log_has_the_agreed_shape(path):
    log = load(path)
    assert set(log) == TOP_KEYS
    assert set(log["source"]) == SOURCE_KEYS
    assert SETUP_KEYS <= set(log["setup"]) <= SETUP_KEYS | {"experts_on_host"}
    assert isinstance(log["setup"].get("experts_on_host", False), bool)  # routed experts in host RAM (KTransformers)
    assert OBSERVED_KEYS <= set(log["observed"]) <= OBSERVED_KEYS | OBSERVED_OPTIONAL
    assert path.stem.startswith(log["engine"] + "-"), "file name starts with the engine id"
    assert log["engine_version"] is None or isinstance(log["engine_version"], str)
    assert isinstance(log["source"]["as_of"], datetime.date)
    url = log["source"]["url"]
    assert url.startswith("https://")
    if url.startswith("https://github.com/"):
        assert PINNED_GITHUB.match(url), f"{url}: a GitHub source is an issue/PR/discussion or a pinned blob"
    assert isinstance(log["quoted"], str) and log["quoted"].strip()
    assert isinstance(log["note"], str) and log["note"].strip()
    setup = log["setup"]
    assert isinstance(setup["gpus"], int) and setup["gpus"] >= 1
    assert isinstance(setup["tensor_parallel"], int) and 1 <= setup["tensor_parallel"] <= setup["gpus"]
    assert isinstance(setup["data_parallel_attention"], bool)
    assert setup["memory_fraction"] is None or 0 < setup["memory_fraction"] <= 1
    for key in ("max_model_len", "max_num_batched_tokens", "max_num_seqs", "parallel_slots"):
        assert setup[key] is None or (isinstance(setup[key], int) and setup[key] > 0), key
    if setup["gpu"] is not None:
        assert setup["gpu_memory_gib"] is None, "gpu_memory_gib only for a GPU missing from data/gpus"
    observed = {k: v for k, v in log["observed"].items() if v is not None}
    assert observed, "a log with no figure calibrates nothing"
    for key, value in observed.items():
        assert isinstance(value, (int, float)) and not isinstance(value, bool), key


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_log_names_catalog_ids(path, catalog):
    log = load(path)
    setup = log["setup"]
    assert log["engine"] in catalog.engines
    assert setup["model"] in catalog.models
    assert setup["quantization"] in catalog.quantization
    assert setup["kv_quantization"] is None or setup["kv_quantization"] in catalog.quantization
    assert setup["gpu"] is None or setup["gpu"] in catalog.gpus


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_observed_figures_are_printed_in_the_quote(path):
    log = load(path)
    printed = numbers_in(log["quoted"])
    for key, value in log["observed"].items():
        if value is not None:
            assert float(value) in printed, f"observed.{key} = {value} is not printed in `quoted`"


@pytest.mark.parametrize("text, expected", [
    ("GPU KV cache size: 178,880 tokens", {178880.0}),
    ("Available KV cache memory: -2.14 GiB", {-2.14}),
    ("KV buffer size =  9216.00 MiB", {9216.0}),
])
def test_numbers_in_reads_separators_signs_and_decimals(text, expected):
    assert numbers_in(text) == expected


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_plan_keeps_the_logs_tensor_parallel_size(path, catalog):
    """The planner compares with the layout the log ran, not its own pick of one."""
    from datatools.startup import setup_arguments
    from selector.fit import estimate

    log = load(path)
    setup = log["setup"]
    kw = setup_arguments(catalog, log)
    if setup["data_parallel_attention"] or (kw.get("gpu_memory_gb") is None and not kw.get("gpu")):
        return
    layout = estimate(catalog, setup["model"], setup["quantization"], **kw)["layout"]
    assert layout == {"tensor_parallel": setup["tensor_parallel"], "replicas": setup["gpus"] // setup["tensor_parallel"]}


def test_a_tensor_parallel_size_above_the_kv_heads_is_kept(catalog):
    """A log of TP 16 over Llama 3.3 70B's 8 KV heads is compared as TP 16, though the planner alone would run copies of a smaller group."""
    from datatools.startup import setup_arguments
    from selector.fit import estimate

    log = load(LOG_DIR / "sglang-llama-3.3-70b-tp8-140gb.yaml")
    log["setup"].update(gpus=16, tensor_parallel=16, gpu="h100-sxm")
    kw = setup_arguments(catalog, log)
    assert estimate(catalog, "llama-3.3-70b", "bf16", **kw)["layout"] == {"tensor_parallel": 16, "replicas": 1}
    kw.pop("tensor_parallel")
    alone = estimate(catalog, "llama-3.3-70b", "bf16", **kw)["layout"]
    assert alone["tensor_parallel"] <= 8 and alone["tensor_parallel"] * alone["replicas"] == 16, alone
