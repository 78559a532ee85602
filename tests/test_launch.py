"""Launch commands: every case of tests/cases/launch.yaml, the command read back through the engine's flags and
compared with the fit it came from, hostile data that must stay text, and release ranges of renamed flags."""

import copy
import json
import shlex
import subprocess
from pathlib import Path

import pytest

from cases_lib import load_case_file
from selector.api import answer
from selector.catalog import Catalog
from selector.fit import estimate, fit_arguments
from selector.inputs import clean_answers
from selector.launch import flags_at, launch_command, read_command, resolved_template

CASES = load_case_file("launch")
ENGINES_WITH_CASES = {"vllm", "sglang", "llama-cpp", "tensorrt-llm", "lmdeploy", "ollama", "lm-studio", "ktransformers", "dynamo",
                      "llm-d"}


def fit_for(catalog, answers):
    """What ``fit --engine`` answers; an orchestration layer (not an engine the planner takes) gets the same plan
    the selector's candidates get: the estimate with that engine named, and its launch."""
    response = answer(catalog, "fit", answers)
    if not response["ok"] and response["error"]["key"] == "engine" and answers["engine"] in catalog.engines:
        response = answer(catalog, "fit", {k: v for k, v in answers.items() if k != "engine"})
        assert response["ok"], response
        ask = clean_answers(catalog, {k: v for k, v in answers.items() if k != "engine"}, page="fit")
        fit = estimate(catalog, ask["model"], ask.get("quantization"), **{**fit_arguments(ask), "engine": answers["engine"]})
        fit["launch"] = launch_command(catalog, fit)
        return fit
    assert response["ok"], response
    return response["result"]


def case_launch(catalog, case):
    """``(fit, launch)`` of a case: ``fit --engine`` for the planner's answers, or, for ``op: recommend``, the
    candidate ``engine`` of the selector's answer (its own fit, or the plan ``fit --engine`` makes for it)."""
    if case.get("op") != "recommend":
        fit = fit_for(catalog, case["answers"])
        return fit, fit["launch"]
    result = answer(catalog, "recommend", case["answers"])["result"]
    cand = next(c for c in result["candidates"] if c["engine"] == case["engine"])
    fit = cand.get("fit") or fit_for(catalog, {**{k: v for k, v in case["answers"].items() if k not in ("scale", "hardware", "priority")},
                                               "engine": case["engine"],
                                               "quantization": result["assumed"].get("quantization", case["answers"].get("quantization"))})
    return fit, cand["launch"]


def case_engine(case):
    return case["engine"] if case.get("op") == "recommend" else case["answers"]["engine"]


def assert_consistent(catalog, fit, launch):
    """The plan the command sets, read back through the flags, is the plan the fit assumed."""
    a = fit["assumptions"]
    engine = a["engine"]
    template = resolved_template(catalog, engine)
    # a step a recipe runs from one of its files (llm-d's model-server container) is given in the notes
    in_file = [n.partition(": ")[2] for n in launch["notes"] if n.startswith("Before the command, in ")]
    assert len(in_file) == sum(1 for s in template["steps"] if s.get("file"))
    read = read_command(catalog, engine, in_file[0] if in_file else launch["command"])
    flags = flags_at(template)
    if flags.get("context"):
        assert read["context"] == fit["context_tokens"], (read, fit["context_tokens"])
    if flags.get("parallel"):
        assert read["sequences"] == fit["concurrency"]
    if a["fraction_from"] == "given":
        assert read["memory_fraction"] == pytest.approx(a["memory_fraction"])
    else:
        assert read["memory_fraction"] is None, "a share the plan did not ask for must stay the engine's"
    if a["kv_cache_from"] in ("asked", "chosen"):
        assert read["kv_cache"] == fit["kv_cache"]
    else:
        assert read["kv_cache"] is None
    if flags.get("tensor_parallel") and a["dp_attention"]:
        assert read["gpus"] == fit["machine"]["gpus"]
        assert read["dp_attention"] is True
    elif flags.get("tensor_parallel"):
        layout = fit["layout"]
        assert read["tensor_parallel"] == layout["tensor_parallel"] and not read["dp_attention"], (read, layout)
        if read["replicas"] == 1 and layout["replicas"] > 1:  # no data-parallel flag: the copies are in the notes
            assert any(f"The plan is {layout['replicas']} replicas" in n for n in launch["notes"]), launch["notes"]
        else:
            assert read["replicas"] == layout["replicas"], (read, layout)
        assert read["tensor_parallel"] * layout["replicas"] <= fit["machine"]["gpus"]
    port_step = template["steps"][flags["port"][0].get("step", 0)]
    if not port_step.get("separate"):
        assert read["port"] == flags["port"][0]["default"]
    checkpoints = [c["repo"] for c in catalog.models[fit["model"]].get("checkpoints", [])]
    model_entry = flags["model"][0]
    if template["steps"][model_entry.get("step", 0)].get("separate"):  # loaded by a later command, given in the notes
        later = [n for n in launch["notes"] if n.startswith("Then, from another terminal: ")]
        read["model"] = next(read_command(catalog, engine, n.partition(": ")[2])["model"] for n in later)
    assert read["model"] and read["model"].removeprefix("hf.co/").split(":")[0] in checkpoints


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_case(catalog, case):
    fit, launch = case_launch(catalog, case)
    expect = case["expect"]
    if "why" in expect:
        assert launch["command"] is None, launch
        assert expect["why"] in launch["why"], launch["why"]
        assert "\n" not in launch["why"]
        return
    assert launch["command"], launch.get("why")
    for fragment in expect.get("has", []):
        assert fragment in launch["command"], (fragment, launch["command"])
    for fragment in expect.get("lacks", []):
        assert fragment not in launch["command"], (fragment, launch["command"])
    for fragment in expect.get("notes", []):
        assert any(fragment in n for n in launch["notes"]), (fragment, launch["notes"])
    if "version" in expect:
        assert launch["engine_version"] == str(expect["version"])
    assert launch["engine_version"] == catalog.launch[fit["assumptions"]["engine"]]["version"]
    assert launch["sources"] and all(s["url"].startswith("https://") for s in launch["sources"])
    assert_consistent(catalog, fit, launch)
    read = read_command(catalog, case_engine(case), launch["command"])
    assert (read["speculative"], read["draft"]) == (expect.get("speculative"), expect.get("draft")), read


def test_cases_cover_every_template(catalog):
    covered = {case_engine(c) for c in CASES}
    assert set(catalog.launch) <= covered, set(catalog.launch) - covered
    assert ENGINES_WITH_CASES <= covered


SITUATIONS = [
    {"scale": "service", "hardware": "nvidia-hopper", "model": "qwen3-32b", "gpu": "h100-sxm", "gpus": 2},
    {"scale": "service", "hardware": "nvidia-hopper", "model": "qwen3-32b", "quantization": "fp8", "gpu": "h100-sxm",
     "context_tokens": 32768, "kv_cache": "kv-fp8"},
    {"scale": "local", "model": "qwen3-8b", "quantization": "gguf-q4-k-m", "gpu_memory_gb": 8},
    {"scale": "local", "model": "llama-3.1-8b", "quantization": "gguf-q4-k-m", "gpu": "rtx-4090", "context_tokens": 16384},
    {"scale": "cluster", "hardware": "nvidia-hopper", "model": "qwen3-32b", "gpu": "h100-sxm", "gpus": 2, "context_tokens": 16384},
    {"scale": "service", "hardware": "nvidia-hopper", "model": "deepseek-v3", "gpu": "h200", "gpus": 8, "priority": "latency"},
]


@pytest.mark.parametrize("answers", SITUATIONS, ids=lambda a: f"{a['scale']}-{a['model']}-{a.get('quantization', 'native')}")
def test_every_candidate_has_a_launch_matching_its_fit(catalog, answers):
    result = answer(catalog, "recommend", answers)["result"]
    assert result["candidates"]
    written = 0
    for cand in result["candidates"]:
        launch = cand["launch"]
        assert set(launch) >= {"command", "engine_version", "notes", "sources"}
        if launch["command"] is None:
            assert launch["why"] and "\n" not in launch["why"]
            continue
        fit = cand.get("fit") or fit_for(catalog, {**{k: v for k, v in answers.items() if k not in ("scale", "hardware", "priority")},
                                                    "engine": cand["engine"],
                                                    "quantization": result["assumed"].get("quantization", answers.get("quantization"))})
        assert_consistent(catalog, fit, launch)
        written += 1
    assert written, [c["launch"] for c in result["candidates"]]


def test_cluster_answer_gives_llm_d_its_entry_point(catalog):
    """A cluster answer's llm-d candidate gets the documented install (router chart, vLLM overlay) and the vLLM
    arguments its plan assumed, for the overlay's model-server container."""
    cluster = next(s for s in SITUATIONS if s["scale"] == "cluster")
    result = answer(catalog, "recommend", cluster)["result"]
    launch = next(c["launch"] for c in result["candidates"] if c["engine"] == "llm-d")
    assert launch["command"].startswith("helm install quickstart oci://ghcr.io/llm-d/charts/llm-d-router-standalone ")
    args = next(n for n in launch["notes"] if n.startswith("Before the command, in "))
    assert "vllm serve Qwen/Qwen3-32B " in args and "--tensor-parallel-size 2" in args and "--max-model-len 16384" in args
    assert launch["engine_version"] == catalog.launch["llm-d"]["version"]


def test_cli_fit_prints_launch(tmp_path):
    from conftest import ROOT
    proc = subprocess.run([".venv/bin/python", "-m", "selector", "fit", "--model", "qwen3-8b", "--gpu", "h100-sxm",
                           "--engine", "vllm", "--context-tokens", "8192"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["launch"]["command"].startswith("vllm serve Qwen/Qwen3-8B ")
    assert "--max-model-len 8192" in out["launch"]["command"]


HOSTILE = ["x; touch /tmp/iem-pwned #", "$(touch /tmp/iem-pwned)", "`touch /tmp/iem-pwned`", "a'b\"c", "--port 1 && id",
           "q\nnewline", "* ?[a]", "-hf evil"]


@pytest.mark.parametrize("repo", HOSTILE)
@pytest.mark.parametrize("engine", ["vllm", "sglang", "llama-cpp"])
def test_hostile_model_ids_stay_one_word(catalog, repo, engine, tmp_path):
    raw = copy.deepcopy(catalog.raw)
    model = raw["models"]["qwen3-8b"]
    quant = "gguf-q4-k-m" if engine == "llama-cpp" else "bf16"
    model["checkpoints"] = [{"repo": repo, "quantization": quant, "source": "config"}]
    cat = Catalog(raw)
    fit = fit_for(cat, {"model": "qwen3-8b", "quantization": quant, "gpu": "h100-sxm", "engine": engine})
    command = fit["launch"]["command"]
    if repo.startswith("-"):  # the program would take it for one of its flags: no command
        assert command is None and "starts with '-'" in fit["launch"]["why"]
        return
    expected = repo + (":Q4_K_M" if engine == "llama-cpp" else "")
    assert expected in shlex.split(command)
    # the shell itself sees the same words: a function stands in for the program and prints its arguments
    marker = tmp_path / "pwned"
    script = "f() { printf '%s\\0' \"$@\"; }; f " + command.replace("/tmp/iem-pwned", str(marker))
    proc = subprocess.run(["sh", "-c", script], capture_output=True, timeout=10)
    assert proc.returncode == 0
    words = proc.stdout.decode().split("\0")[:-1]
    assert words == shlex.split(command.replace("/tmp/iem-pwned", str(marker)))
    assert not marker.exists() and not Path("/tmp/iem-pwned").exists()


def test_renamed_flag_is_a_data_change(catalog):
    raw = copy.deepcopy(catalog.raw)
    template = raw["launch"]["vllm"]
    old = next(f for f in template["flags"] if f["param"] == "context")
    old["until"] = "0.30.0"
    template["flags"].append({**old, "flag": "--max-context-tokens", "since": "0.30.0", "until": None})
    del template["flags"][-1]["until"]
    cat = Catalog(raw)
    assert flags_at(template, "0.29.1")["context"][0]["flag"] == "--max-model-len"
    assert flags_at(template, "0.33.0")["context"][0]["flag"] == "--max-context-tokens"
    fit = fit_for(cat, {"model": "qwen3-8b", "gpu": "h100-sxm", "engine": "vllm", "context_tokens": 4096})
    assert "--max-context-tokens 4096" in fit["launch"]["command"]
    assert "--max-model-len" not in fit["launch"]["command"]
    assert read_command(cat, "vllm", fit["launch"]["command"])["context"] == 4096


def test_removed_flag_gives_no_command(catalog):
    raw = copy.deepcopy(catalog.raw)
    for entry in raw["launch"]["vllm"]["flags"]:
        if entry["param"] == "memory_fraction":
            entry["until"] = "0.20.0"
    cat = Catalog(raw)
    fit = fit_for(cat, {"model": "qwen3-8b", "gpu": "h100-sxm", "engine": "vllm", "memory_fraction": 0.8})
    assert fit["launch"]["command"] is None
    assert "memory share of 0.8" in fit["launch"]["why"]


def test_no_template_no_command(catalog):
    fit = fit_for(catalog, {"model": "qwen3-8b", "gpu": "h100-sxm", "engine": "tgi"})
    if "tgi" not in catalog.launch:
        assert fit["launch"]["command"] is None and "no launch template" in fit["launch"]["why"]


def test_read_command_refuses_unknown_flags(catalog):
    with pytest.raises(ValueError):
        read_command(catalog, "vllm", "vllm serve Qwen/Qwen3-8B --max-model-len 8192 --made-up-flag 1")


def test_launch_is_json_and_same_through_handle(catalog):
    from selector import api
    api._catalog = catalog
    out = json.loads(api.handle(json.dumps({"op": "fit", "answers": {"model": "qwen3-8b", "gpu": "h100-sxm", "engine": "sglang"}})))
    assert out["ok"]
    direct = launch_command(catalog, fit_for(catalog, {"model": "qwen3-8b", "gpu": "h100-sxm", "engine": "sglang"}))
    assert out["result"]["launch"] == direct




def test_engine_page_section_renders_each_setup(catalog):
    from macros.templating import render
    from macros.views.engines import launch_setups
    data = launch_setups(catalog, "llama-cpp")
    html = render("launch-engine.html", "engines/llama-cpp/", **data)
    for setup in data["setups"]:
        assert setup["command"] and f'<code class="iem-launch-command">{setup["command"]}</code>' in html
    assert html.count('<button type="button" class="iem-copy"') == len(data["setups"]) >= 2
    assert "written for llama.cpp v0.9.0" in html
    missing = launch_setups(catalog, "tgi")
    assert "No launch template for" in render("launch-engine.html", "engines/tgi/", **missing)


def test_engine_page_setup_text_is_escaped(catalog):
    from macros.templating import render
    from macros.views.engines import launch_setups
    raw = copy.deepcopy(catalog.raw)
    raw["launch"]["vllm"]["setups"][0]["name"] = "<img src=x onerror=alert(1)>"
    raw["models"]["qwen3-8b"]["checkpoints"] = [{"repo": "a<b>&'c", "quantization": "bf16", "source": "config"}]
    html = render("launch-engine.html", "engines/vllm/", **launch_setups(Catalog(raw), "vllm"))
    assert "<img" not in html and "&lt;img src=x" in html
    assert "a&lt;b&gt;&amp;" in html


def test_browser_catalog_writes_the_same_commands(catalog):
    """The trimmed catalog the browser loads (no maintainers' notes, no setups) gives every case the same launch."""
    from selector.catalog import trim_for_selector
    trimmed = Catalog(trim_for_selector(catalog.raw))
    for case in CASES:
        assert case_launch(trimmed, case)[1] == case_launch(catalog, case)[1], case["id"]


def test_every_engine_page_setup_gets_a_command(catalog):
    """Each setup a launch template lists for its engine page gets a command from the generator (validation does
    not run the selector; this test does, once)."""
    from selector.launch import setup_launch
    checked = 0
    for launch_id, doc in catalog.launch.items():
        for i, setup in enumerate(doc.get("setups", [])):
            _, launch = setup_launch(catalog, launch_id, setup["answers"])
            assert launch["command"], (launch_id, i, launch.get("why"))
            checked += 1
    assert checked >= 9


@pytest.mark.parametrize("repo", HOSTILE)
@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_hostile_draft_ids_stay_one_word(catalog, repo, engine, tmp_path):
    """A published draft's repository reaches the shell as one word: inside vLLM's JSON or as SGLang's draft path."""
    raw = copy.deepcopy(catalog.raw)
    raw["models"]["llama-3.1-8b"]["drafts"] = [{"method": "eagle3", "repo": repo, "engines": [engine], "source": "config"}]
    cat = Catalog(raw)
    answers = {"scale": "service", "hardware": "nvidia-hopper", "model": "llama-3.1-8b", "gpu": "h100-sxm", "priority": "latency"}
    cand = next(c for c in answer(cat, "recommend", answers)["result"]["candidates"] if c["engine"] == engine)
    command = cand["launch"]["command"]
    read = read_command(cat, engine, command)
    if repo.startswith("-"):  # the program would take it for one of its flags: no draft, and the note says so
        assert read["speculative"] is None and "no draft" in cand["launch"]["notes"][-1]
        return
    assert (read["speculative"], read["draft"]) == ("eagle3", repo)
    marker = tmp_path / "pwned"
    script = "f() { printf '%s\\0' \"$@\"; }; f " + command.replace("/tmp/iem-pwned", str(marker))
    proc = subprocess.run(["sh", "-c", script], capture_output=True, timeout=10)
    assert proc.returncode == 0
    assert proc.stdout.decode().split("\0")[:-1] == shlex.split(command.replace("/tmp/iem-pwned", str(marker)))
    assert not marker.exists() and not Path("/tmp/iem-pwned").exists()
