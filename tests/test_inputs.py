"""Checking answers (selector.inputs): numbers as JSON or as text, choices, required keys, contradictions."""

import pytest

from selector.inputs import InputError, clean_answers


def error(catalog, answers, page="selector"):
    with pytest.raises(InputError) as info:
        clean_answers(catalog, answers, page)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{info.value.key}: ")
    return info.value


def test_shown_values_are_short_and_readable():
    from selector.inputs import show_value
    assert show_value("x" * 58) == repr("x" * 58)  # 60 characters with the quotes: shown whole
    assert len(repr("x" * 58)) == 60
    assert show_value("x" * 59) == repr("x" * 59)[:57] + "..."  # 61: cut to 60
    assert len(show_value("y" * 500)) == 60
    assert show_value(2**300) == "a 304-bit integer"  # 76 hex digits
    assert show_value(2**256) == "a 260-bit integer" and show_value(2**255) != "a 256-bit integer"
    assert show_value(True) == "True" and show_value(None) == "None"


def test_error_dict_is_json_ready_and_names_the_key():
    import json
    from selector.inputs import _jsonable
    err = InputError("gpus", float("nan"), "is not a finite number", ["1"], "Number of GPUs")
    d = err.to_dict()
    assert d == {"key": "gpus", "value": "nan", "message": "gpus: is not a finite number", "detail": "is not a finite number",
                 "label": "Number of GPUs", "allowed": ["1"]}
    json.dumps(d, allow_nan=False)
    assert InputError("gpus", 1, "bad").to_dict()["label"] == "gpus"  # no label: the key stands for it
    odd = InputError(["a"], 1, "bad").to_dict()
    assert odd["key"] == "['a']" and odd["message"] == "['a']: bad"
    assert InputError("Bad Key", 1, "bad").to_dict()["message"] == "'Bad Key': bad"  # not a key shape: quoted
    assert _jsonable("z" * 300) == "z" * 200
    assert _jsonable(float("inf")) == "inf" and _jsonable(2.5) == 2.5 and _jsonable(7) == 7 and _jsonable(None) is None
    assert _jsonable(2**300) == "a 304-bit integer" and _jsonable(2**200) == 2**200
    assert _jsonable(["q" * 100]) == repr(["q" * 100])[:57] + "..."
    assert _jsonable({"k": 1}) == "{'k': 1}"


@pytest.mark.parametrize("value,expected", [("8", 8), (" 8 ", 8), ("08", 8), (8.0, 8), (8, 8), ("4096", 4096), (1, 1)])
def test_whole_numbers_from_json_or_text(catalog, value, expected):
    out = clean_answers(catalog, {"scale": "service", "gpus": value})
    assert out["gpus"] == expected and type(out["gpus"]) is int


@pytest.mark.parametrize("value,fragment", [
    ("8.5", "'8.5' is not a whole number; write digits only from 1 to 4096"),
    ("0x10", "'0x10' is not a whole number; write digits only"),
    (8.5, "8.5 is not a whole number from 1 to 4096"),
    (True, "True is not a whole number from 1 to 4096"),
    (0, "0 is out of range; use a whole number from 1 to 4096"),
    (4097, "4097 is out of range"),
    ("9" * 41, "is not a whole number"),
    ([8], "[8] is not a whole number"),
])
def test_bad_whole_numbers_name_the_value_and_the_range(catalog, value, fragment):
    err = error(catalog, {"scale": "service", "gpus": value})
    assert err.key == "gpus" and fragment in str(err), str(err)
    assert err.label == "Number of GPUs"


def test_decimals_accept_text_and_bounds_are_inclusive(catalog):
    q = next(q for q in catalog.questions["questions"] if q["key"] == "gpu_memory_gb")
    low, high = q["minimum"], q["maximum"]
    for value in (low, high, str(high), f" {low} ", ".5" if low <= 0.5 else str(low)):
        out = clean_answers(catalog, {"model": "qwen3-8b", "gpu_memory_gb": value}, "fit")
        assert out["gpu_memory_gb"] == float(str(value).strip()), value
    for value in ("1e3", "inf", "nan", float("inf"), float("nan"), "", "-"):
        if value == "":
            continue
        err = error(catalog, {"model": "qwen3-8b", "gpu_memory_gb": value}, "fit")
        assert err.key == "gpu_memory_gb"
    assert "is not a finite number" in str(error(catalog, {"model": "qwen3-8b", "gpu_memory_gb": float("inf")}, "fit"))
    assert "digits with an optional decimal point" in str(error(catalog, {"model": "qwen3-8b", "gpu_memory_gb": "1e3"}, "fit"))
    assert "out of range" in str(error(catalog, {"model": "qwen3-8b", "gpu_memory_gb": high * 2}, "fit"))


def test_choices_need_and_scale(catalog):
    err = error(catalog, {"scale": "service", "need": "edge-cpu"})
    assert err.key == "need" and "for scale 'service'" in str(err) and "edge-cpu" not in err.allowed
    assert err.label
    err = error(catalog, {})
    assert err.key == "scale" and "is required" in str(err) and err.allowed == ["local", "service", "cluster"]
    for empty in ("", []):
        assert error(catalog, {"scale": empty}).key == "scale"
    err = error(catalog, {"scale": "servce"})
    assert "did you mean 'service'" in str(err)
    err = error(catalog, {"scale": "service", "hw": "x"})
    assert err.key == "hw" and "is not a question here" in str(err) and "hardware" in err.allowed


def test_multi_answers_keep_order_and_drop_repeats(catalog):
    workloads = list(catalog.questions["workloads"])
    out = clean_answers(catalog, {"scale": "service", "workload": [workloads[1], workloads[0], workloads[1]]})
    assert out["workload"] == [workloads[1], workloads[0]]
    assert clean_answers(catalog, {"scale": "service", "workload": workloads[0]})["workload"] == [workloads[0]]
    err = error(catalog, {"scale": "service", "workload": [workloads[0], "telepathy"]})
    assert err.key == "workload" and "'telepathy' is not allowed" in str(err)


def test_defaults_fill_unanswered_numbers(catalog):
    out = clean_answers(catalog, {"scale": "service"})
    defaults = {q["key"]: q["default"] for q in catalog.questions["questions"] if "default" in q and q["type"] != "choice"
                and q.get("page", "both") in ("selector", "both")}
    assert defaults and {k: out[k] for k in defaults} == defaults
    assert "need" not in out


def test_contradictions_name_the_field_to_change(catalog):
    gpu = catalog.gpus["h100-sxm"]
    err = error(catalog, {"model": "qwen3-8b", "gpu": "h100-sxm", "gpu_memory_gb": 80}, "fit")
    assert err.key == "gpu_memory_gb" and f"({gpu['name']})" in str(err) and "not both" in str(err)
    err = error(catalog, {"model": "qwen3-8b", "gpu": "h100-sxm", "bandwidth_gbs": 100}, "fit")
    assert err.key == "bandwidth_gbs" and f"{gpu['bandwidth_gbs']:g} GB/s" in str(err) and err.value == 100
    labels = {q["key"]: q["label"] for q in catalog.questions["questions"]}
    assert err.label == labels["bandwidth_gbs"] != "bandwidth_gbs"
    err = error(catalog, {"scale": "service", "gpu": "h100-sxm", "hardware": "amd-instinct-cdna3"})
    assert err.key == "hardware" and err.allowed == [gpu["hardware"]] and gpu["name"] in str(err)
    err = error(catalog, {"model": "qwen3-8b", "gpu": "h100-sxm", "memory": "unified"}, "fit")
    assert err.key == "memory" and err.allowed == ["discrete"] and "'discrete'" in str(err) and err.label == labels["memory"]
    err = error(catalog, {"model": "qwen3-8b", "memory": "cpu", "gpu_memory_gb": 8, "ram_gb": 64}, "fit")
    assert err.key == "gpu_memory_gb" and "CPU-only" in str(err)
    assert clean_answers(catalog, {"model": "qwen3-8b", "gpu": "h100-sxm", "memory": "discrete"}, "fit")["memory"] == "discrete"


@pytest.mark.parametrize("value", ["8.5", "0x10", 8.5, True, 0, 4097, [8], float("nan"), float("-inf")])
def test_a_number_error_keeps_the_value_and_the_question_label(catalog, value):
    err = error(catalog, {"scale": "service", "gpus": value})
    assert err.key == "gpus" and err.label == "Number of GPUs"
    assert err.value is value or err.value == value
    assert " from 1 to 4096" in str(err)  # every number question states its range


def test_every_number_question_has_a_range(catalog):
    """So the range is always part of a number's error message (the message without one is never used)."""
    for q in catalog.questions["questions"]:
        if q["type"] in ("integer", "number"):
            assert q.get("minimum") is not None and q.get("maximum") is not None, q["key"]


def test_decimal_error_says_how_to_write_one(catalog):
    err = error(catalog, {"model": "qwen3-8b", "gpu_memory_gb": "eighty"}, "fit")
    assert "'eighty' is not a number; write digits with an optional decimal point from " in str(err)
    assert err.value == "eighty" and err.label


def test_more_contradictions_keep_value_label_and_allowed(catalog):
    labels = {q["key"]: q["label"] for q in catalog.questions["questions"]}
    err = error(catalog, {"scale": "service", "gpu": "h100-sxm", "hardware": "amd-instinct-cdna3"})
    assert err.value == "amd-instinct-cdna3" and err.label == labels["hardware"]
    assert str(err).startswith(f"hardware: {catalog.name_of('hardware', 'amd-instinct-cdna3')} does not match the GPU ")
    err = error(catalog, {"model": "qwen3-8b", "memory": "cpu", "gpu_memory_gb": 8, "ram_gb": 64}, "fit")
    assert str(err) == "gpu_memory_gb: a CPU-only machine has no GPU memory; give the host RAM instead"
    assert err.value == 8 and err.label == labels["gpu_memory_gb"]
    host = next(g for g in catalog.gpus.values() if g["memory_mode"] == "host")
    err = error(catalog, {"model": "qwen3-8b", "gpu": host["id"], "memory": "discrete"}, "fit")
    assert err.allowed == ["cpu"] and err.label == labels["memory"] and f"{host['name']} has host memory; choose 'cpu'" in str(err)


def test_kv_cache_an_engine_documents_as_no(catalog):
    """TensorRT-LLM on Hopper: the KV precisions it does document are offered instead."""
    engine = catalog.engines["tensorrt-llm"]
    err = error(catalog, {"model": "qwen3-8b", "gpu": "h100-sxm", "kv_cache": "kv-int4", "engine": "tensorrt-llm"}, "fit")
    ok = sorted({r["id"] for r in engine["quantization"] if r["support"] != "no" and "nvidia-hopper" in r["hardware"]
                 and catalog.quantization[r["id"]]["applies_to"] == "kv-cache"})
    label = next(q["label"] for q in catalog.questions["questions"] if q["key"] == "kv_cache")
    assert ok and err.key == "kv_cache" and err.allowed == ok and err.label == label != "kv_cache"
    assert str(err).endswith(f"use {', '.join(ok)}") and f"on {catalog.name_of('hardware', 'nvidia-hopper')}" in str(err)


def test_only_scale_is_required(catalog):
    """So clean_answers' "is required" branch for other questions is never taken with today's questions."""
    assert [q["key"] for q in catalog.questions["questions"] if q.get("required")] == ["scale"]


def test_option_lists(catalog):
    from selector.inputs import options
    gpus = options(catalog, "gpus")
    order = [(catalog.gpus[g]["hardware"], -catalog.gpus[g]["memory_gib"], g) for g in gpus]
    assert order == sorted(order) and len(gpus) == len(catalog.gpus)
    h100 = [g for g in gpus if catalog.gpus[g]["hardware"] == "nvidia-hopper"]
    assert [catalog.gpus[g]["memory_gib"] for g in h100] == sorted((catalog.gpus[g]["memory_gib"] for g in h100), reverse=True)
    assert options(catalog, "memory-modes") == list(catalog.questions["memory_modes"])
    assert options(catalog, "tree-needs", "local") == [leaf["need"] for b in catalog.tree["branches"] if b["scale"] == "local"
                                                        for leaf in b["leaves"]]
    assert set(options(catalog, "tree-needs")) >= set(options(catalog, "tree-needs", "service"))
    assert options(catalog, "kv-quantization") and all(catalog.quantization[q]["applies_to"] == "kv-cache"
                                                       for q in options(catalog, "kv-quantization"))
    assert options(catalog, "engines") == sorted(e for e, v in catalog.engines.items() if v["kind"] == "engine")
    with pytest.raises(KeyError):
        options(catalog, "colours")


def test_choice_errors_carry_the_label(catalog):
    err = error(catalog, {"scale": "service", "hardware": "nvidia-hoper"})
    assert err.label == "Hardware" and "nvidia-hopper" in err.allowed


def test_an_unknown_question_lists_every_question_of_the_page(catalog):
    """The selector page has more questions than a short list shows: the message names all of them."""
    from selector.inputs import questions_for
    keys = list(questions_for(catalog, "selector"))
    assert len(keys) > 12
    err = error(catalog, {"scale": "service", "colour": "red"})
    assert err.key == "colour" and err.allowed == keys
    assert all(repr(k) in str(err) for k in keys) and "more" not in str(err)


def test_gpu_and_memory_both_given_names_the_memory_field(catalog):
    label = next(q["label"] for q in catalog.questions["questions"] if q["key"] == "gpu_memory_gb")
    err = error(catalog, {"model": "llama-3.1-8b", "gpu": "h100-sxm", "gpu_memory_gb": 80}, page="fit")
    assert err.key == "gpu_memory_gb" and err.label == label and err.to_dict()["label"] == label
    assert "give either a GPU from the list (NVIDIA H100 SXM) or the memory per GPU, not both" in str(err)
