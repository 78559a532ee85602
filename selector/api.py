"""JSON-in, JSON-out entry points shared by the CLI and the browser worker.

The Pyodide worker calls :func:`load` once with the text of ``catalog.json`` and
then :func:`handle` with a JSON request string; only strings cross the JS/Python
boundary.  Errors come back as ``{"ok": false, "error": {...}}``, never as a
Python traceback.
"""

import json

from .catalog import Catalog
from .fit import estimate, fit_arguments
from .inputs import InputError, show_value, clean_answers
from .launch import add_launches, launch_command
from .rules import recommend

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
    args = fit_arguments(answers)
    chosen = None
    if not args.get("engine"):
        chosen = default_engines(catalog, answers)
        args["engine"] = chosen["engines"][0] if chosen["engines"] else None
    out = estimate(catalog, answers["model"], answers.get("quantization"), with_table=True, **args)
    if chosen is not None:
        out["assumptions"]["engine_chosen_by"] = "selector" if args["engine"] else None
        out["assumptions"]["scale"] = chosen["scale"]
        out["engines"] = [_engine_row(catalog, answers, args, e, out) for e in chosen["engines"][1:]]
    else:
        out["assumptions"]["engine_chosen_by"] = "given"
        out["engines"] = []
    out["renamed"] = renamed
    out["launch"] = launch_command(catalog, out)
    return out


def default_engines(catalog, answers):
    """The engines the selector would rank for this hardware, format and scale (first is the answer's engine).
    The planner has no scale question: one GPU of up to 48 GiB, a unified-memory or CPU machine, or a GGUF/MLX
    file is a local setup; anything else a service."""
    gpu = catalog.gpus.get(answers.get("gpu")) if answers.get("gpu") else None
    quant = catalog.quantization.get(answers.get("quantization")) if answers.get("quantization") else None
    size = gpu["memory_gib"] if gpu else answers.get("gpu_memory_gb")
    mode = answers.get("memory") or ({"unified": "unified", "host": "cpu"}.get(gpu["memory_mode"], "discrete") if gpu else "discrete")
    local = (mode != "discrete" or (quant or {}).get("family") in ("gguf", "mlx")
             or (answers.get("gpus") or 1) == 1 and size is not None and size <= 48)
    scale = "local" if local else "service"
    keys = ("model", "quantization", "gpu", "gpus", "gpu_memory_gb", "memory", "ram_gb", "kv_cache", "context_tokens", "concurrency")
    ask = {"scale": scale, **{k: answers[k] for k in keys if answers.get(k) is not None}}
    if mode == "cpu" and not gpu:
        ask["need"] = "edge-cpu"
    try:
        result = recommend(catalog, ask)
    except InputError:
        return {"scale": scale, "engines": []}
    engines = [c["engine"] for c in result["candidates"] if catalog.engines[c["engine"]]["kind"] == "engine"]
    return {"scale": scale, "engines": engines}


def _engine_row(catalog, answers, args, engine_id, first):
    other = estimate(catalog, answers["model"], answers.get("quantization"), **{**args, "engine": engine_id})
    cap = other["capacity"] or {}
    a, b = first["assumptions"], other["assumptions"]
    name = catalog.engines[engine_id]["name"]
    if b["sizing"] != a["sizing"]:
        why = (f"{name} allocates the cache for the context asked, with no memory share" if b["sizing"] == "context" else
               f"{name} sizes the cache from a {b['memory_fraction']:g} share of {b['fraction_of'].replace('-', ' ')} memory")
    elif b["memory_fraction"] != a["memory_fraction"] or b["fraction_of"] != a["fraction_of"]:
        why = f"{name} takes a {b['memory_fraction']:g} share of {b['fraction_of'].replace('-', ' ')} memory"
    else:
        why = f"{name} holds {b['runtime_reserve_gib']:.2f} GiB per GPU besides weights and KV cache"
    return {"engine": engine_id, "name": name, "fits": other["fits"], "kv_tokens": cap.get("kv_tokens"),
            "kv_tokens_memory": cap.get("kv_tokens_memory"), "why": why + "."}


def answer(catalog, op, answers):
    """Return the response dict for one request (used by :func:`handle` and the CLI)."""
    try:
        if op == "recommend":
            return {"ok": True, "result": add_launches(catalog, recommend(catalog, answers))}
        if op == "fit":
            return {"ok": True, "result": run_fit(catalog, answers)}
        raise InputError("op", op, f"{show_value(op)} is not known; use 'recommend' or 'fit'", ["recommend", "fit"])
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
    response = answer(_catalog, request.get("op"), request.get("answers", {}))
    try:
        return json.dumps(response, sort_keys=True, allow_nan=False)
    except ValueError:  # a non-finite number slipped into an answer: strict JSON or nothing
        return json.dumps({"ok": False, "error": {"key": "answers", "value": None, "label": "answers", "allowed": [],
                                                  "detail": "the answer held a number JSON cannot carry",
                                                  "message": "answers: the answer held a number JSON cannot carry"}})
