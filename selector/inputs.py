"""Checking answers: every bad key or value becomes one :class:`InputError`.

Allowed values come from the catalog (tree, questions, hardware, formats, quantization, models, GPUs,
engines), so the CLI, the tests and the browser form share them. An error keeps the question's key
(the page highlights that field), the value, and a detail sentence; the CLI prefixes the option name,
the page the question's label.
"""

import math
import re

from .suggest import allowed_list, did_you_mean

DECIMAL = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)")
INTEGER = re.compile(r"-?\d+")
KEY = re.compile(r"[a-z][a-z0-9_]{0,40}")


class InputError(ValueError):
    """An answer that is out of range; ``str()`` is the one-line message ``key: detail``."""

    def __init__(self, key, value, detail, allowed=None, label=None):
        self.key, self.value, self.detail, self.allowed, self.label = key, value, detail, list(allowed or []), label
        shown = key if isinstance(key, str) and KEY.fullmatch(key) else show_value(key)
        super().__init__(f"{shown}: {detail}")

    def to_dict(self):
        key = self.key if isinstance(self.key, str) else show_value(self.key)
        return {"key": key, "value": _jsonable(self.value), "message": str(self), "detail": self.detail,
                "label": self.label or key, "allowed": self.allowed}


def _jsonable(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
            return show_value(value)
        return value if not isinstance(value, str) else value[:200]
    return show_value(value)[:80]


def show_value(value):
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        # repr() of a huge int raises ValueError (int max str digits) and is unreadable anyway
        return f"a {len(format(value, 'x')) * 4}-bit integer"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def options(catalog, source, scale=None):
    """Allowed option ids for a question's ``options_from``."""
    tree = catalog.tree
    if source == "tree-scales":
        return [b["scale"] for b in tree["branches"]]
    if source == "tree-needs":
        branches = [b for b in tree["branches"] if scale is None or b["scale"] == scale]
        return [leaf["need"] for b in branches for leaf in b["leaves"]]
    if source == "hardware":
        return sorted(catalog.hardware)
    if source == "formats":
        return sorted(catalog.formats)
    if source == "weight-quantization":
        return sorted(q for q, v in catalog.quantization.items() if v["applies_to"] == "weights")
    if source == "kv-quantization":
        return sorted(q for q, v in catalog.quantization.items() if v["applies_to"] == "kv-cache")
    if source == "gpus":
        return sorted(catalog.gpus, key=lambda g: (catalog.gpus[g]["hardware"], -catalog.gpus[g]["memory_gib"], g))
    if source == "memory-modes":
        return list(catalog.questions.get("memory_modes") or ("discrete", "unified", "cpu"))
    if source == "engines":
        return sorted(e for e, v in catalog.engines.items() if v["kind"] == "engine")
    if source == "models":
        return sorted(catalog.models)
    if source == "switch":
        return ["yes", "no"]
    if source == "workloads":
        return list(catalog.questions["workloads"])
    if source == "priorities":
        return list(catalog.questions["priorities"])
    raise KeyError(source)


# which folder of data/ a question's options come from: an id renamed there keeps answering (data/aliases.yaml)
OPTION_COLLECTIONS = {"hardware": "hardware", "formats": "formats", "weight-quantization": "quantization",
                      "kv-quantization": "quantization", "gpus": "gpus", "engines": "engines", "models": "models"}


def _successor(catalog, key, q, value, allowed, renamed):
    """``value``, or the id that answers for it now when it is a published id that was renamed (noted in ``renamed``)."""
    if not isinstance(value, str) or value in allowed:
        return value
    row = catalog.alias(OPTION_COLLECTIONS.get(q.get("options_from")), value)
    if row is None or row["successor"] not in allowed:
        return value
    if renamed is not None:
        renamed.append({"key": key, "given": value, "answered_as": row["successor"],
                        "note": f"{value!r} is an old id, answered as {row['successor']!r}: {row['note']}"})
    return row["successor"]


def _choice(key, value, allowed, context="", label=None):
    if not isinstance(value, str) or value not in allowed:
        raise InputError(key, value, f"{show_value(value)} is not allowed{context}; use one of "
                                     f"{allowed_list(allowed, 40)}{did_you_mean(value, allowed)}", allowed, label)
    return value


def _number(key, value, q, integer):
    """A number from JSON (int or float) or from a URL or form (decimal text only: no hex, exponent, Infinity)."""
    kind = "a whole number" if integer else "a number"
    low, high = q.get("minimum"), q.get("maximum")
    span = f" from {low:g} to {high:g}" if low is not None and high is not None else ""
    label = q.get("label")
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 40 or not (INTEGER if integer else DECIMAL).fullmatch(text):
            how = "digits only" if integer else "digits with an optional decimal point"
            raise InputError(key, value, f"{show_value(value)} is not {kind}; write {how}{span}", label=label)
        value = int(text) if integer else float(text)
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(key, value, f"{show_value(value)} is not {kind}{span}", label=label)
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(key, value, f"{show_value(value)} is not a finite number{span}", label=label)
    if integer and isinstance(value, float):
        if not value.is_integer():
            raise InputError(key, value, f"{show_value(value)} is not {kind}{span}", label=label)
        value = int(value)
    if low is not None and value < low or high is not None and value > high:
        raise InputError(key, value, f"{show_value(value)} is out of range; use {kind}{span}", label=label)
    return value


def questions_for(catalog, page):
    return {q["key"]: q for q in catalog.questions["questions"] if q.get("page", "both") in (page, "both")}


def clean_answers(catalog, answers, page="selector", renamed=None):
    """Validate raw answers; return a new dict with defaults applied. Raises InputError.

    An old id (data/aliases.yaml) is answered as its successor; each such answer is appended to ``renamed``."""
    if not isinstance(answers, dict):
        raise InputError("answers", answers, "answers must be a JSON object such as {\"scale\": \"service\"}")
    questions = questions_for(catalog, page)
    for key in answers:
        if key not in questions:
            raise InputError(key, answers[key], f"is not a question here; use one of "
                                                f"{allowed_list(list(questions), 40)}{did_you_mean(key, questions)}", list(questions))
    out = {}
    scale = None
    if "scale" in questions:
        scale = answers.get("scale")
        if scale is None or scale == "" or scale == []:  # the loop below treats "" and [] as "not answered"
            raise InputError("scale", None, f"is required; use one of {allowed_list(options(catalog, 'tree-scales'))}",
                             options(catalog, "tree-scales"), questions["scale"]["label"])
    for key, q in questions.items():
        value = answers.get(key)
        if value is None or value == "" or value == []:
            if "default" in q and q["type"] != "choice":
                out[key] = q["default"]
            elif q.get("required") and key != "scale":
                raise InputError(key, None, "is required", label=q["label"])
            continue
        if q["type"] == "choice":
            allowed = options(catalog, q["options_from"], scale if key == "need" else None)
            context = f" for scale {scale!r}" if key == "need" else ""
            value = _successor(catalog, key, q, value, allowed, renamed)
            out[key] = _choice(key, value, allowed, context, q["label"])
            if key == "scale":
                scale = value
        elif q["type"] == "multi":
            allowed = options(catalog, q["options_from"])
            items = value if isinstance(value, list) else [value]
            picked = []
            for item in items:
                item = _successor(catalog, key, q, item, allowed, renamed)
                _choice(key, item, allowed, label=q["label"])
                if item not in picked:
                    picked.append(item)
            out[key] = picked
        else:
            out[key] = _number(key, value, q, q["type"] == "integer")
    _cross_check(catalog, out, questions)
    return out


def _cross_check(catalog, out, questions):
    """Answers that contradict each other: one line naming the field to change."""
    label = lambda k: questions.get(k, {}).get("label", k)  # noqa: E731
    gpu = catalog.gpus.get(out.get("gpu")) if out.get("gpu") else None
    if gpu and out.get("gpu_memory_gb") is not None:
        raise InputError("gpu_memory_gb", out["gpu_memory_gb"], f"give either a GPU from the list ({gpu['name']}) or the memory "
                                                                "per GPU, not both", label=label("gpu_memory_gb"))
    if gpu and out.get("bandwidth_gbs") is not None:
        raise InputError("bandwidth_gbs", out["bandwidth_gbs"], f"comes from the GPU ({gpu['name']}: {gpu['bandwidth_gbs']:g} GB/s); "
                                                               "leave it empty or choose no GPU", label=label("bandwidth_gbs"))
    if gpu and out.get("hardware") and out["hardware"] != gpu["hardware"]:
        raise InputError("hardware", out["hardware"], f"{catalog.name_of('hardware', out['hardware'])} does not match the GPU "
                                                      f"{gpu['name']} ({catalog.name_of('hardware', gpu['hardware'])})",
                         [gpu["hardware"]], label("hardware"))
    mode = out.get("memory")
    if gpu and mode:
        natural = {"unified": "unified", "host": "cpu"}.get(gpu["memory_mode"], "discrete")
        if natural != mode:
            raise InputError("memory", mode, f"{gpu['name']} has {gpu['memory_mode']} memory; choose "
                                             f"{natural!r} or another GPU", [natural], label("memory"))
    if mode == "cpu" and out.get("gpu_memory_gb") is not None:
        raise InputError("gpu_memory_gb", out["gpu_memory_gb"], "a CPU-only machine has no GPU memory; give the host RAM instead",
                         label=label("gpu_memory_gb"))
    kv, engine_id = out.get("kv_cache"), out.get("engine")
    if kv and engine_id:
        engine = catalog.engines[engine_id]
        hardware = gpu["hardware"] if gpu else out.get("hardware")
        rows = [r for r in engine.get("quantization", []) if r["id"] == kv and (hardware is None or hardware in r["hardware"])]
        if rows and all(r["support"] == "no" for r in rows):
            ok = sorted({r["id"] for r in engine.get("quantization", []) if r["support"] != "no"
                         and catalog.quantization[r["id"]]["applies_to"] == "kv-cache"
                         and (hardware is None or hardware in r["hardware"])})
            where = f" on {catalog.name_of('hardware', hardware)}" if hardware else ""
            raise InputError("kv_cache", kv, f"{engine['name']} documents no {catalog.name_of('quantization', kv)}{where}; "
                                             f"use {', '.join(ok) if ok else 'the 16-bit default'}", ok, label("kv_cache"))
