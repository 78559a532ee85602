"""JSON-in, JSON-out entry points shared by the CLI and the browser worker.

The Pyodide worker calls :func:`load` once with the text of ``catalog.json`` and
then :func:`handle` with a JSON request string; only strings cross the JS/Python
boundary.  Errors come back as ``{"ok": false, "error": {...}}``, never as a
Python traceback.
"""

import json

from . import costs
from .catalog import Catalog
from .inputs import InputError, show_value, clean_answers
from .launch import add_launches, launch_command
from .load import load_answer
from .rules import fit_answer, recommend, selector_answers

_catalog = None


def load(catalog_json):
    global _catalog
    _catalog = Catalog(json.loads(catalog_json))
    return json.dumps({"ok": True, "engines": len(_catalog.engines)})


def run_fit(catalog, answers):
    renamed = []
    answers = clean_answers(catalog, answers, page="fit", renamed=renamed)
    label = lambda k: next((q["label"] for q in catalog.questions["questions"] if q["key"] == k), k)  # noqa: E731
    if not answers.get("model"):
        raise InputError("model", None, "choose a model for the estimate", sorted(catalog.models), label("model"))
    mode = answers.get("memory")
    if mode == "cpu":
        if not answers.get("ram_gb"):
            raise InputError("ram_gb", None, "a CPU-only machine needs its RAM size (GiB)", label=label("ram_gb"))
    elif not answers.get("gpu") and not answers.get("gpu_memory_gb") and not (mode == "unified" and answers.get("ram_gb")):
        raise InputError("gpu", None, "choose a GPU or machine, or give the memory per GPU (GiB)", label=label("gpu"))
    out = fit_answer(catalog, answers)
    out["renamed"] = renamed
    out["selector_answers"] = selector_answers(catalog, answers, out["assumptions"].get("scale"))
    out["launch"] = launch_command(catalog, out)
    return out


def answer(catalog, op, answers, gpu_hour_usd=None):
    """Return the response dict for one request (used by :func:`handle` and the CLI); ``gpu_hour_usd`` is the
    reader's price for the load answer."""
    try:
        if op == "recommend":
            return {"ok": True, "result": add_launches(catalog, recommend(catalog, answers))}
        if op == "fit":
            return {"ok": True, "result": run_fit(catalog, answers)}
        if op == "load":
            return {"ok": True, "result": load_answer(catalog, answers, gpu_hour_usd)}
        if op == "costs":
            try:
                return {"ok": True, "result": costs.page_costs(catalog, gpu_hour_usd)}
            except costs.CostError as exc:
                raise InputError("gpu_hour_usd", exc.value, f"{show_value(exc.value)} is not a price; {exc.allowed}",
                                 label="GPU-hour price (USD)") from None
        raise InputError("op", op, f"{show_value(op)} is not known; use 'recommend', 'fit', 'load' or 'costs'",
                         ["recommend", "fit", "load", "costs"])
    except InputError as exc:
        return {"ok": False, "error": exc.to_dict()}
    except RecursionError:
        return {"ok": False, "error": InputError("answers", None, "answers are nested too deeply").to_dict()}
    except Exception as exc:  # a broken catalog must not show a traceback to the reader
        return {"ok": False, "error": {"key": "catalog", "value": None, "label": "catalog", "allowed": [],
                                       "detail": f"the selector could not answer ({type(exc).__name__}); the catalog may be incomplete",
                                       "message": f"catalog: the selector could not answer ({type(exc).__name__}); the catalog may be incomplete"}}


def handle(request_json):
    if _catalog is None:
        return json.dumps({"ok": False, "error": {"key": "catalog", "value": None, "message": "catalog not loaded", "allowed": []}})
    try:
        request = json.loads(request_json)
    except (ValueError, TypeError, RecursionError):
        return json.dumps({"ok": False, "error": {"key": "request", "value": None, "message": "request is not JSON", "allowed": []}})
    if not isinstance(request, dict):
        request = {}
    response = answer(_catalog, request.get("op"), request.get("answers", {}), request.get("gpu_hour_usd"))
    try:
        return json.dumps(response, sort_keys=True, allow_nan=False)
    except ValueError:  # a non-finite number slipped into an answer: strict JSON or nothing
        return json.dumps({"ok": False, "error": {"key": "answers", "value": None, "label": "answers", "allowed": [],
                                                  "detail": "the answer held a number JSON cannot carry",
                                                  "message": "answers: the answer held a number JSON cannot carry"}})
