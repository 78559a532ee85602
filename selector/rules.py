"""The selector: the decision tree as a baseline, then gates and scores from catalog facts.

No engine is named in this module.  The tree (``data/tree.yaml``) picks the
preferred engines for a scale and need; every other rule reads facts from the
engine files (status, hardware, formats, quantization, features, cpu offload),
the question mappings (``data/questions.yaml``) and the decision matrix.
Every candidate and every exclusion carries reasons that cite those facts.
"""

from . import fit as fit_mod
from .inputs import clean_answers

MAX_CANDIDATES = 3
TREE_BASE, OTHER_BASE = 100, 50
RULES = (
    "tree-leaf", "tree-default-need", "status", "hardware", "hardware-partial", "layer-defers",
    "format", "format-partial", "quantization", "quantization-hardware", "quantization-partial",
    "quantization-not-native", "fit-gpu", "fit-offload", "fit-none", "workload-gate", "workload-bonus",
    "workload-undocumented", "priority", "nothing-left", "companions",
)


class Trace:
    """Which rules fired, so tests can check that every rule is exercised."""

    def __init__(self):
        self.fired = set()

    def __call__(self, rule):
        assert rule in RULES, rule
        self.fired.add(rule)


def _src(catalog, engine, fact):
    source = catalog.cite(engine, (fact or {}).get("source"))
    return f" [{source['title']}]" if source else ""


def walk_tree(catalog, answers, trace):
    tree = catalog.tree
    branch = next(b for b in tree["branches"] if b["scale"] == answers["scale"])
    need = answers.get("need")
    if need is None:
        leaf = next(leaf for leaf in branch["leaves"] if leaf.get("default"))
        trace("tree-default-need")
    else:
        leaf = next(leaf for leaf in branch["leaves"] if leaf["need"] == need)
    trace("tree-leaf")
    path = [
        {"id": tree["id"], "label": tree["question"]},
        {"id": branch["id"], "label": branch["label"]},
        {"id": leaf["id"], "label": leaf["label"]},
    ]
    return branch, leaf, path


def _gate_list(catalog, engine, list_name, item_id, collection, what, trace, rule):
    """Hardware / format gate. Returns (excluded_reason or None, score delta, reason or None)."""
    entries = engine.get(list_name, [])
    label = catalog.name_of(collection, item_id)
    if not entries and engine["kind"] != "engine":
        trace("layer-defers")
        return None, 0, f"{label}: {engine['name']} documents no {what} of its own; it depends on the engine underneath"
    entry = catalog.support(engine, list_name, item_id)
    if entry is None or entry["support"] == "no":
        trace(rule)
        detail = f" ({entry['note']})" if entry and entry.get("note") else ""
        listed = ", ".join(catalog.name_of(collection, e["id"]) for e in entries if e["support"] != "no")
        return (f"No {what} for {label}{detail}{_src(catalog, engine, entry)}; documented: {listed or 'none'}", 0, None)
    if entry["support"] == "partial":
        trace(f"{rule}-partial")
        note = f": {entry['note']}" if entry.get("note") else ""
        return None, -10, f"{label} is only partly supported{note}{_src(catalog, engine, entry)}"
    note = f" ({entry['note']})" if entry.get("note") else ""
    return None, 0, f"{what.capitalize()} for {label}{note}{_src(catalog, engine, entry)}"


def _gate_quantization(catalog, engine, answers, trace):
    quant_id = answers["quantization"]
    quant = catalog.quantization[quant_id]
    hardware = answers.get("hardware")
    entries = engine.get("quantization", [])
    if not entries and engine["kind"] != "engine":
        trace("layer-defers")
        return None, 0, f"{quant['name']}: handled by the engine underneath {engine['name']}"
    matches = [e for e in catalog.support_all(engine, "quantization", quant_id) if e["support"] != "no"]
    if not matches:
        trace("quantization")
        entry = catalog.support(engine, "quantization", quant_id)
        return f"{quant['name']} is not among its documented quantization schemes{_src(catalog, engine, entry)}", 0, None
    entry = next((e for e in matches if hardware in e["hardware"]), None) if hardware else matches[0]
    if entry is None:
        trace("quantization-hardware")
        where = ", ".join(catalog.name_of("hardware", h) for e in matches for h in e["hardware"])
        return (f"Runs {quant['name']} only on {where}, not on {catalog.name_of('hardware', hardware)}"
                f"{_src(catalog, engine, matches[0])}", 0, None)
    if entry["support"] == "partial":
        trace("quantization-partial")
        note = f": {entry['note']}" if entry.get("note") else ""
        return None, -10, f"{quant['name']} is only partly supported{note}{_src(catalog, engine, entry)}"
    return None, 0, f"Runs {quant['name']}{' on ' + catalog.name_of('hardware', hardware) if hardware else ''}{_src(catalog, engine, entry)}"


def _feature_reason(catalog, engine, feature_key, label):
    fact = engine["features"][feature_key]
    note = f" ({fact['note']})" if fact.get("note") else ""
    return fact["value"], f"{label}: {fact['value']}{note}{_src(catalog, engine, fact)}"


def evaluate(catalog, engine, answers, fit, trace):
    """Gate and score one engine. Returns (excluded_reasons, score_delta, reasons)."""
    excluded, reasons, delta = [], [], 0
    status = engine["status"]
    if status["value"] != "active":
        trace("status")
        instead = ", ".join(catalog.name_of("engines", s) for s in status.get("successors", []))
        excluded.append(f"Status: {status['value']} since {status['since']}{_src(catalog, engine, status)}; use {instead} instead")

    checks = []
    if answers.get("hardware"):
        checks.append(_gate_list(catalog, engine, "hardware", answers["hardware"], "hardware", "support", trace, "hardware"))
    if answers.get("weights"):
        checks.append(_gate_list(catalog, engine, "formats", answers["weights"], "formats", "loader", trace, "format"))
    if answers.get("quantization"):
        checks.append(_gate_quantization(catalog, engine, answers, trace))
    for why, d, reason in checks:
        if why:
            excluded.append(why)
        delta += d
        if reason:
            reasons.append(reason)

    if fit is not None and not fit["fits_gpu"]:
        offload = engine["features"]["cpu_offload"]
        if not fit["fits_with_offload"]:
            trace("fit-none")
            excluded.append(f"The model needs about {fit['required_gb']:.0f} GB and does not fit the memory given, even with offload")
        elif offload["value"] in ("yes", "partial"):
            trace("fit-offload")
            delta += 10
            reasons.append(f"Does not fit in GPU memory alone, and keeps weights in host RAM: {_feature_reason(catalog, engine, 'cpu_offload', 'CPU offload')[1]}")
        else:
            trace("fit-offload")
            excluded.append(f"The model needs about {fit['required_gb']:.0f} GB of {fit['available_gb']:g} GB GPU memory, and CPU offload is "
                            f"{offload['value']}{_src(catalog, engine, offload)}")
    elif fit is not None:
        trace("fit-gpu")
        reasons.append(f"The model fits in GPU memory ({fit['required_gb']:.0f} of {fit['available_gb']:g} GB)")

    workloads = catalog.questions["workloads"]
    for item in answers.get("workload", []):
        spec = workloads[item]
        value, reason = _feature_reason(catalog, engine, spec["feature"], spec["label"])
        if value == "no" and spec["gate"]:
            trace("workload-gate")
            excluded.append(reason)
        elif value == "unknown":
            trace("workload-undocumented")
            delta -= 8 if spec["gate"] else 2
            reasons.append(f"{spec['label']}: not documented")
        else:
            trace("workload-bonus")
            delta += {"yes": 6, "partial": 3, "no": -6}[value]
            reasons.append(reason)

    if answers.get("priority"):
        trace("priority")
        spec = catalog.questions["priorities"][answers["priority"]]
        dim = catalog.matrix[spec["dimension"]]
        score = dim["scores"].get(engine["id"])
        if score:
            delta += (score["score"] - 3) * 8
            reasons.append(f"{dim['name']}: {score['score']}/5, {score['rationale']}{_src(catalog, dim, score)}")
        else:
            reasons.append(f"{dim['name']}: not scored in the decision matrix")
    return excluded, delta, reasons


def _fit_for(catalog, answers):
    if not answers.get("model") or not (answers.get("gpu") or answers.get("gpu_memory_gb") or answers.get("memory") in ("cpu", "unified") and answers.get("ram_gb")):
        return None
    return fit_mod.estimate(catalog, answers["model"], answers.get("quantization"), **fit_mod.fit_arguments(answers))


def recommend(catalog, answers, trace=None):
    """Answer a selector query. Raises :class:`selector.inputs.InputError` on bad input."""
    trace = trace or Trace()
    answers = clean_answers(catalog, answers, page="selector")
    branch, leaf, path = walk_tree(catalog, answers, trace)
    fit = _fit_for(catalog, answers)
    warnings = []

    quant_id, hardware = answers.get("quantization"), answers.get("hardware")
    if quant_id and hardware:
        quant = catalog.quantization[quant_id]
        if quant["native_hardware"] and hardware not in quant["native_hardware"]:
            trace("quantization-not-native")
            native = ", ".join(catalog.name_of("hardware", h) for h in quant["native_hardware"])
            warnings.append(f"{quant['name']} computes natively on {native}; on {catalog.name_of('hardware', hardware)} "
                            "an engine can at best store it and compute in a wider format.")

    pool = catalog.engines_in(branch["tiers"], branch["kinds"])
    scored, excluded = [], []
    for engine in pool:
        why, delta, reasons = evaluate(catalog, engine, answers, fit, trace)
        if why:
            excluded.append({"engine": engine["id"], "name": engine["name"], "reasons": why})
            continue
        if engine["id"] in leaf["engines"]:
            base = TREE_BASE - 5 * leaf["engines"].index(engine["id"])
            reasons.insert(0, f"Decision tree: '{branch['label']}' then '{leaf['label']}' leads to {engine['name']}")
        else:
            base = OTHER_BASE
            reasons.insert(0, f"Same tier ({engine['tier']}): {engine['positioning']}")
        scored.append({"engine": engine["id"], "name": engine["name"], "score": base + delta, "reasons": reasons})

    scored.sort(key=lambda c: (-c["score"], c["name"].lower()))
    candidates = scored[:MAX_CANDIDATES]
    for pick in leaf["engines"] if candidates else []:
        if any(e["engine"] == pick for e in excluded):
            name = catalog.name_of("engines", pick)
            warnings.append(f"The decision tree's pick, {name}, is ruled out by your constraints; the candidates are the next best.")
    for warn in catalog.tree["warnings"]:
        if any(e["engine"] == warn["engine"] for e in excluded):
            warnings.append(warn["text"])
    if candidates and leaf.get("with"):
        trace("companions")
        fine, out = [], []
        for companion in leaf["with"]:
            why, _, _ = evaluate(catalog, catalog.engines[companion], answers, fit, Trace())
            (out if why else fine).append(catalog.name_of("engines", companion))
        text = f"Runs with: {', '.join(fine) or 'none of the usual companions'}"
        if out:
            text += f" (ruled out by your constraints: {', '.join(out)})"
        candidates[0]["reasons"].append(text)
    if not candidates:
        trace("nothing-left")
        warnings.append(_nothing_left(excluded))
    if leaf.get("note"):
        path[-1]["note"] = leaf["note"]
    return {
        "answers": answers,
        "candidates": candidates,
        "excluded": excluded,
        "warnings": warnings,
        "path": path,
        "fit": fit,
    }


def _nothing_left(excluded):
    counts = {}
    for row in excluded:
        head = row["reasons"][0].split(":")[0].split(" for ")[0][:60]
        counts[head] = counts.get(head, 0) + 1
    main = max(counts, key=counts.get) if counts else "your answers"
    return (f"No engine in this tier passes every constraint. The most common blocker: {main}. "
            "Relax the hardware, format, quantization or memory answers and try again.")
