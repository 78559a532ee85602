"""JSON-in, JSON-out entry points shared by the CLI and the browser worker.

The Pyodide worker calls :func:`load` once with the text of ``catalog.json`` and
then :func:`handle` with a JSON request string; only strings cross the JS/Python
boundary.  Errors come back as ``{"ok": false, "error": {...}}``, never as a
Python traceback.
"""

import json

from .catalog import Catalog
from .fit import estimate
from .inputs import InputError, _shown, clean_answers
from .rules import recommend

_catalog = None


def load(catalog_json):
    global _catalog
    _catalog = Catalog(json.loads(catalog_json))
    return json.dumps({"ok": True, "engines": len(_catalog.engines)})


def run_fit(catalog, answers):
    answers = clean_answers(catalog, answers, page="fit")
    if not answers.get("model"):
        raise InputError("model", None, "model is required for a fit estimate", sorted(catalog.models))
    if not answers.get("gpu_memory_gb"):
        raise InputError("gpu_memory_gb", None, "gpu_memory_gb is required for a fit estimate (memory of one GPU, in GB)")
    return estimate(catalog, answers["model"], answers.get("quantization"), answers.get("gpus", 1),
                    answers["gpu_memory_gb"], answers.get("ram_gb"), answers.get("context_tokens"),
                    answers.get("concurrency"))


def answer(catalog, op, answers):
    """Return the response dict for one request (used by :func:`handle` and the CLI)."""
    try:
        if op == "recommend":
            return {"ok": True, "result": recommend(catalog, answers)}
        if op == "fit":
            return {"ok": True, "result": run_fit(catalog, answers)}
        raise InputError("op", op, f"op: {_shown(op)} is not known; use 'recommend' or 'fit'", ["recommend", "fit"])
    except InputError as exc:
        return {"ok": False, "error": exc.to_dict()}


def handle(request_json):
    if _catalog is None:
        return json.dumps({"ok": False, "error": {"key": "catalog", "value": None, "message": "catalog not loaded", "allowed": []}})
    try:
        request = json.loads(request_json)
    except (ValueError, TypeError, RecursionError):
        return json.dumps({"ok": False, "error": {"key": "request", "value": None, "message": "request is not JSON", "allowed": []}})
    if not isinstance(request, dict):
        request = {}
    return json.dumps(answer(_catalog, request.get("op"), request.get("answers", {})), sort_keys=True)
