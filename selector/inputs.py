"""Checking selector answers: every bad key or value becomes one :class:`InputError`.

Allowed values come from the catalog (tree, questions, hardware, formats,
quantization, models), so the CLI, the tests and the browser form share them.
"""

import math

from .suggest import allowed_list, did_you_mean


class InputError(ValueError):
    """A selector answer that is out of range; ``str()`` is the one-line message."""

    def __init__(self, key, value, message, allowed=None):
        self.key, self.value, self.allowed = key, value, list(allowed or [])
        super().__init__(message)

    def to_dict(self):
        return {"key": self.key, "value": _jsonable(self.value), "message": str(self), "allowed": self.allowed}


def _jsonable(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
            return _shown(value)
        return value
    return _shown(value)[:80]


def _shown(value):
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
    if source == "models":
        return sorted(catalog.models)
    if source == "workloads":
        return list(catalog.questions["workloads"])
    if source == "priorities":
        return list(catalog.questions["priorities"])
    raise KeyError(source)


def _choice(key, value, allowed, context=""):
    if not isinstance(value, str) or value not in allowed:
        raise InputError(key, value, f"{key}: {_shown(value)} is not allowed{context}; use one of "
                                     f"{allowed_list(allowed, 40)}{did_you_mean(value, allowed)}", allowed)
    return value


def _number(key, value, q, integer):
    kind = "a whole number" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, str):
            try:
                value = float(value) if not integer else int(value, 10)
            except ValueError:
                raise InputError(key, value, f"{key}: {_shown(value)} is not {kind}") from None
        else:
            raise InputError(key, value, f"{key}: {_shown(value)} is not {kind}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(key, value, f"{key}: {_shown(value)} is not a finite number")
    if integer and isinstance(value, float):
        if not value.is_integer():
            raise InputError(key, value, f"{key}: {_shown(value)} is not {kind}")
        value = int(value)
    low, high = q.get("minimum"), q.get("maximum")
    if low is not None and value < low or high is not None and value > high:
        raise InputError(key, value, f"{key}: {_shown(value)} is out of range; use {kind} from {low} to {high}")
    return value


def clean_answers(catalog, answers, page="selector"):
    """Validate raw answers; return a new dict with defaults applied. Raises InputError."""
    if not isinstance(answers, dict):
        raise InputError("answers", answers, "answers must be a JSON object such as {\"scale\": \"service\"}")
    questions = {q["key"]: q for q in catalog.questions["questions"] if q.get("page", "both") in (page, "both")}
    for key in answers:
        if key not in questions:
            raise InputError(key, answers[key], f"{_shown(key)} is not a question here; use one of "
                                                f"{allowed_list(list(questions), 40)}{did_you_mean(key, questions)}", list(questions))
    out = {}
    scale = None
    if "scale" in questions:
        scale = answers.get("scale")
        if scale is None or scale == "" or scale == []:  # the loop below treats "" and [] as "not answered"
            raise InputError("scale", None, f"scale is required; use one of {allowed_list(options(catalog, 'tree-scales'))}",
                             options(catalog, "tree-scales"))
    for key, q in questions.items():
        value = answers.get(key)
        if value is None or value == "" or value == []:
            if "default" in q and q["type"] != "choice":
                out[key] = q["default"]
            elif q.get("required") and key != "scale":
                raise InputError(key, None, f"{key} is required")
            continue
        if q["type"] == "choice":
            allowed = options(catalog, q["options_from"], scale if key == "need" else None)
            context = f" for scale {scale!r}" if key == "need" else ""
            out[key] = _choice(key, value, allowed, context)
            if key == "scale":
                scale = value
        elif q["type"] == "multi":
            allowed = options(catalog, q["options_from"])
            items = value if isinstance(value, list) else [value]
            picked = []
            for item in items:
                _choice(key, item, allowed)
                if item not in picked:
                    picked.append(item)
            out[key] = picked
        else:
            out[key] = _number(key, value, q, q["type"] == "integer")
    return out
