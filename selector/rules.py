"""The selector: rank engines the way a practitioner would, from catalog facts.

No engine is named in this module. The decision tree (``data/tree.yaml``) gives a prior that explains the
order (larger when the reader states the need); every other point comes from facts in the engine files, the
decision matrix, the measured results, the model and each engine's own fit estimate, and a stated fact that one
candidate supports fully outweighs the prior of a candidate that supports it only partly.

- Only a documented "no" (hardware, weight format, quantization on the hardware, a gated workload
  feature), a retired status or an impossible fit rules an engine out. Support nobody has documented is
  shown as "not documented" and costs points, never the engine's place.
- Scores: the tree's pick; the matrix dimensions the answers touch (the stated priority weighs most, with
  the features that decide it; a large mixture-of-experts model weighs the large-MoE dimension when it is
  served across GPUs); partial or undocumented support; workload features; measured rows of one result set;
  memory offload where the model needs it, expert-aware before whole-layer. Ties are broken by the touched matrix
  dimensions, then every dimension, then how many serving features are documented: never by name.
- When the branch has nothing to offer, or its engines handle the hardware, format or quantization only
  partly while a neighbouring tier handles them fully, the neighbouring tier's best engines are offered
  with a warning about what changes.
- When the model does not fit, the answer says what would make it work, with numbers, and answers for
  that setup: the highest-precision quantization that fits and the engines run, or the GPUs it needs.
"""

from . import fit as fit_mod
from .fit import best_row, documents, estimate, fit_arguments, fit_table, machine_hardware
from .inputs import InputError, clean_answers
from .measured import METRICS, phrase, rows_for

MAX_CANDIDATES = 3
# the tree's leaf for a need the reader stated (or that their model and machine imply); a default leaf is a
# prior that explains the order, smaller than what a stated fact the pick handles only partly costs
TREE_PRIOR = (20, 15, 12)
ALSO_PRIOR = 8
DEFAULT_PRIOR = (10, 8, 6)
DEFAULT_ALSO = 5
PENALTY = {"partial": -6, "unknown": -8}
# a stated hardware, format or quantization another candidate supports fully; the machine weighs most, since a
# partial hardware path (a community plugin, a source build) also voids what the engine's matrix scores rest on
OUTRANKED = {"hardware": -16, "format": -10, "quantization": -10, "kv_cache": -10}
DISTRIBUTED = ("large-moe",)  # matrix dimensions about serving across GPUs and nodes
PRIORITY_WEIGHT = 12
RULES = (
    "tree-leaf", "tree-default-need", "tree-inferred-need", "status", "hardware", "hardware-partial", "hardware-unknown",
    "layer-defers", "format", "format-partial", "format-unknown", "quantization", "quantization-partial",
    "quantization-unknown", "quantization-not-native", "fit-gpu", "fit-offload", "fit-offload-no", "fit-none",
    "fit-adjusted", "quantization-chosen", "workload-gate", "workload-bonus", "workload-undocumented", "matrix",
    "priority", "fallback", "nothing-left", "companions", "outranked", "measured", "priority-fact", "fit-engine-tighter",
)
FIT_TIGHTER = -8
MEASURED_POINTS = (4, 3, 1)  # ahead of another candidate in one result set: same model, same family and size, other size


class Trace:
    """Which rules fired, so tests can check that every rule is exercised."""

    def __init__(self):
        self.fired = set()

    def __call__(self, rule):
        assert rule in RULES, rule
        self.fired.add(rule)


def _source(catalog, entry, key):
    src = catalog.cite(entry, key) if key else None
    return {"title": src["title"], "url": src["url"]} if src else None


def reason(text, points=0, kind="fact", source=None, short=None, about=None):
    """One reason: the sentence shown, the points it adds to the score, its kind (and what it is about: hardware,
    format, quantization, offload), its citation, and a few words for the "why this order" line."""
    return {"text": text, "points": points, "kind": kind, "about": about, "source": source, "short": short or text}


# -- the tree ---------------------------------------------------------------------------------------------

def _infer_matches(catalog, leaf, answers, fit, branch=None):
    rule = leaf.get("infer")
    if not rule:
        return None
    model = catalog.models.get(answers.get("model") or "")
    hardware = answers.get("_hardware")
    why = []
    if model and model["architecture"] == "moe" and "moe_min_total_params_b" in rule \
            and model["total_params_b"] >= rule["moe_min_total_params_b"] \
            and (branch is None or branch["scale"] == "local" or _distributed(catalog, answers, branch)):
        if not rule.get("needs_offload") or (fit and not fit["fits"] and fit["fits_with_offload"]):
            why.append(f"{model['name']} is a {model['total_params_b']:g}B mixture of experts"
                       + (" that fits only with its experts in host RAM" if rule.get("needs_offload") else ""))
    if answers.get("memory") in rule.get("memory", []):
        why.append("the machine has no GPU")
    if hardware and hardware in rule.get("hardware", []):
        why.append(f"the hardware is {catalog.name_of('hardware', hardware)}")
    for item in answers.get("workload", []):
        if item in rule.get("workload", []):
            why.append(catalog.questions["workloads"][item]["label"].lower())
    if answers.get("kv_cache") in rule.get("kv_cache", []):
        why.append(f"the KV cache is {catalog.name_of('quantization', answers['kv_cache'])}")
    if answers.get("weights") in rule.get("weights", []):
        why.append(f"the weights are {catalog.name_of('formats', answers['weights'])}")
    return why or None


def walk_tree(catalog, answers, trace, fit=None):
    tree = catalog.tree
    branch = next(b for b in tree["branches"] if b["scale"] == answers["scale"])
    need = answers.get("need")
    inferred = None
    if need is None:
        for leaf in branch["leaves"]:
            why = _infer_matches(catalog, leaf, answers, fit, branch)
            if why:
                inferred = (leaf, why)
                break
        if inferred:
            leaf = inferred[0]
            trace("tree-inferred-need")
        else:
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
    if inferred:
        path[-1]["inferred"] = "; ".join(inferred[1])
    return branch, leaf, path


# -- support facts -----------------------------------------------------------------------------------------

def _support(catalog, engine, list_name, item_id, collection, what, trace, rule):
    """Returns (excluded reason or None, reason or None) for hardware or weight format."""
    entries = engine.get(list_name, [])
    label = catalog.name_of(collection, item_id)
    if not entries and engine["kind"] != "engine":
        trace("layer-defers")
        return None, reason(f"{label}: {engine['name']} has no {what} of its own; it depends on the engine underneath")
    entry = catalog.support(engine, list_name, item_id)
    if entry is None:
        trace(f"{rule}-unknown")
        return None, reason(f"{label}: {what} not documented", PENALTY["unknown"], "gap", about=rule)
    src = _source(catalog, engine, entry.get("source"))
    note = f" ({entry['note']})" if entry.get("note") else ""
    if entry["support"] == "no":
        trace(rule)
        listed = ", ".join(catalog.name_of(collection, e["id"]) for e in entries if e["support"] != "no")
        return reason(f"No {what} for {label}{note}; documented: {listed or 'none'}", 0, "no", src, about=rule), None
    if entry["support"] == "partial":
        trace(f"{rule}-partial")
        return None, reason(f"{label}: {what} is partial{note}", PENALTY["partial"], "partial", src, about=rule)
    return None, reason(f"{what.capitalize()} for {label}{note}", 0, "support", src, about=rule)


def quantization_support(catalog, engine, quant_id, hardware):
    """``(state, row)``: yes / partial / no / unknown for a scheme on the hardware (any hardware if None)."""
    rows = catalog.support_all(engine, "quantization", quant_id)
    if hardware:
        rows = [r for r in rows if hardware in r["hardware"]]
        if not rows:
            return "unknown", None
        row = rows[0]
        return row["support"], row
    if not rows:
        return "unknown", None
    for state in ("yes", "partial", "no"):
        row = next((r for r in rows if r["support"] == state), None)
        if row:
            return state, row
    return "unknown", None


def _quantization(catalog, engine, quant_id, hardware, trace, about="quantization"):
    quant = catalog.quantization[quant_id]
    if not engine.get("quantization") and engine["kind"] != "engine":
        trace("layer-defers")
        return None, reason(f"{quant['name']}: handled by the engine underneath {engine['name']}")
    state, row = quantization_support(catalog, engine, quant_id, hardware)
    where = f" on {catalog.name_of('hardware', hardware)}" if hardware else ""
    src = _source(catalog, engine, (row or {}).get("source"))
    note = f" ({row['note']})" if row and row.get("note") else ""
    if state == "no":
        trace("quantization")
        return reason(f"No {quant['name']}{where}{note}", 0, "no", src), None
    if state == "unknown":
        trace("quantization-unknown")
        return None, reason(f"{quant['name']}{where}: not documented", PENALTY["unknown"], "gap", about=about)
    if state == "partial":
        trace("quantization-partial")
        return None, reason(f"{quant['name']}{where} is partial{note}", PENALTY["partial"], "partial", src, about=about)
    return None, reason(f"Runs {quant['name']}{where}{note}", 0, "support", src, about=about)


def _feature(catalog, engine, key):
    fact = (engine.get("features") or {}).get(key) or {"value": "unknown"}
    return fact, _source(catalog, engine, fact.get("source"))


# -- scoring ----------------------------------------------------------------------------------------------

def dimension_weights(catalog, answers, branch):
    """Weight of each matrix dimension for these answers, with the reason it counts."""
    weights = {}

    def add(dim, w, why):
        if dim in catalog.matrix:
            old = weights.get(dim, (0, []))
            weights[dim] = (old[0] + w, old[1] + [why])

    base = {"service": {"throughput": 2, "model-coverage": 2, "latency": 1, "ease-of-use": 1, "hardware-breadth": 1, "ecosystem": 1},
            "local": {"ease-of-use": 3, "hardware-breadth": 2, "model-coverage": 1, "quantization": 1},
            "cluster": {"throughput": 2, "large-moe": 2, "prefix-reuse": 1}}.get(branch["scale"], {})
    scale = 0.5 if answers.get("priority") else 1.0
    hardware = answers.get("_hardware")
    for dim, w in base.items():
        # breadth of hardware matters while the hardware is open; once stated, support for it is what counts
        if (dim not in DISTRIBUTED or _distributed(catalog, answers, branch)) and not (dim == "hardware-breadth" and hardware):
            add(dim, w * scale, f"{branch['scale']} scale")
    if answers.get("need") == "one-command":
        add("ease-of-use", 3, "a single command")
    model = catalog.models.get(answers.get("model") or "")
    if model and model["architecture"] == "moe" and model["total_params_b"] >= 100 and _distributed(catalog, answers, branch):
        add("large-moe", 4, f"{model['name']} is a {model['total_params_b']:g}B mixture of experts served across GPUs")
    if "shared-prefix" in answers.get("workload", []):
        add("prefix-reuse", 3, "shared prefixes")
    if answers.get("quantization") or answers.get("kv_cache"):
        add("quantization", 2, "a quantized model or cache")
    if answers.get("priority"):
        dim = catalog.questions["priorities"][answers["priority"]]["dimension"]
        add(dim, PRIORITY_WEIGHT, f"your priority, {catalog.questions['priorities'][answers['priority']]['label'].lower()}")
    return weights


def _distributed(catalog, answers, branch):
    """Serving across GPUs or nodes is in question: a cluster, or a service that is not one machine of one GPU
    (a unified-memory machine is one device however many users it serves)."""
    if branch["scale"] == "local":
        return False
    if branch["scale"] == "cluster":
        return True
    gpu = catalog.gpus.get(answers.get("gpu") or "")
    one = (answers.get("gpus") or 1) == 1
    return not (answers.get("memory") in ("unified", "cpu") or (gpu and gpu["memory_mode"] != "discrete")
                or (one and (gpu or answers.get("gpu_memory_gb"))))


def _matrix_reasons(catalog, engine, weights, trace):
    out = []
    for dim_id, (w, why) in sorted(weights.items(), key=lambda kv: -kv[1][0]):
        dim = catalog.matrix[dim_id]
        score = dim["scores"].get(engine["id"])
        if not score:
            continue
        trace("priority" if any(w.startswith("your priority") for w in why) else "matrix")
        points = round((score["score"] - 3) * w, 1)
        out.append(reason(f"{dim['name']}: {score['score']}/5 in the site's decision matrix ({score['rationale']})"
                          f", weighed for {', '.join(why)}", points, "matrix", _source(catalog, dim, score.get("source")),
                          short=f"{dim['name'].lower()} {score['score']}/5"))
    return out


def evaluate(catalog, engine, answers, fit, weights, scale, trace, planned=None):
    """Rule one engine in or out and score it. Returns (excluded reasons, reasons)."""
    excluded, reasons = [], []
    status = engine["status"]
    if status["value"] != "active":
        trace("status")
        instead = ", ".join(catalog.name_of("engines", s) for s in status.get("successors", []))
        excluded.append(reason(f"Status: {status['value']} since {status['since']}; use {instead} instead", 0, "status",
                               _source(catalog, engine, status.get("source"))))
    hardware = answers.get("_hardware")
    if hardware:
        why, ok = _support(catalog, engine, "hardware", hardware, "hardware", "support", trace, "hardware")
        excluded += [why] if why else []
        reasons += [ok] if ok else []
    if answers.get("weights"):
        why, ok = _support(catalog, engine, "formats", answers["weights"], "formats", "loader", trace, "format")
        excluded += [why] if why else []
        reasons += [ok] if ok else []
    for key in ("quantization", "kv_cache"):
        if answers.get(key):
            why, ok = _quantization(catalog, engine, answers[key], hardware, trace, key)
            excluded += [why] if why else []
            reasons += [ok] if ok else []
    if fit is not None:
        why, ok = _fit_reason(catalog, engine, fit, scale, trace, planned)
        excluded += [why] if why else []
        reasons += [ok] if ok else []
    for item in answers.get("workload", []):
        spec = catalog.questions["workloads"][item]
        fact, src = _feature(catalog, engine, spec["feature"])
        note = f" ({fact['note']})" if fact.get("note") else ""
        value = fact["value"]
        if value == "no" and spec["gate"]:
            trace("workload-gate")
            excluded.append(reason(f"{spec['label']}: no{note}", 0, "no", src))
        elif value == "unknown":
            trace("workload-undocumented")
            reasons.append(reason(f"{spec['label']}: not documented", -8 if spec["gate"] else -2, "workload-gap"))
        else:
            trace("workload-bonus")
            reasons.append(reason(f"{spec['label']}: {value}{note}", {"yes": 6, "partial": 3, "no": -6}[value], "workload", src,
                                  short=f"{spec['label'].lower()}: {value}"))
    if scale == "service" and engine["kind"] == "engine":
        # many users of one endpoint need requests batched as they come; the serving tier does it by design,
        # a desktop runtime offered as a fallback may not
        fact, src = _feature(catalog, engine, "continuous_batching")
        points = {"yes": 0, "partial": -4, "no": -8, "unknown": -6}[fact["value"]]
        if points:
            reasons.append(reason(f"Continuous batching for many users: {fact['value']}"
                                  + (f" ({fact['note']})" if fact.get("note") else ""), points, "workload", src,
                                  short=f"continuous batching: {fact['value']}"))
    if answers.get("priority") and engine["kind"] == "engine":
        reasons += _priority_reasons(catalog, engine, answers, trace)
    reasons += _matrix_reasons(catalog, engine, weights, trace)
    return excluded, reasons


PRIORITY_FACT = {"yes": 3, "partial": 1, "no": -3, "unknown": -1}


def _priority_reasons(catalog, engine, answers, trace):
    """What decides the stated priority besides the matrix: the engine's features for it (speculative decoding for
    latency, batching for throughput), and for latency the time to first token and per output token it was measured at."""
    spec = catalog.questions["priorities"][answers["priority"]]
    out = []
    for key in spec.get("features", []):
        fact, src = _feature(catalog, engine, key)
        label = key.replace("_", " ").capitalize().replace("Paged kv", "Paged KV cache")
        methods = ", ".join(fact.get("methods", []))
        note = f" ({fact['note']})" if fact.get("note") else ""
        trace("priority-fact")
        out.append(reason(f"{label} for {spec['label'].lower()}: {fact['value']}" + (f", methods {methods}" if methods else "") + note,
                          PRIORITY_FACT[fact["value"]], "priority-fact", src, short=f"{label.lower()}: {fact['value']}"))
    if answers["priority"] == "latency":
        said = _latency_row(catalog, engine, answers)
        if said:
            out.append(reason(said["text"], 0, "measured", said["source"], short="measured TTFT and TPOT"))
    return out


def _latency_row(catalog, engine, answers):
    """The engine's measured row with the lowest median time per output token for the stated model (or its family)
    on the stated GPU (or its family), with its time to first token."""
    model = catalog.models.get(answers.get("model") or "")
    gpu, hardware = answers.get("gpu"), answers.get("_hardware")
    found = []
    for rs in (getattr(catalog, "results", None) or {}).values():
        for row in rs["rows"]:
            m = row["metrics"]
            if row["engine"] != engine["id"] or "median" not in m.get("ttft_ms", {}) or "median" not in m.get("tpot_ms", {}):
                continue
            row_model = catalog.models.get(row["model"])
            near = _closeness(catalog, model, row_model) if model and row_model else None
            on = row["gpu"] == gpu if gpu else (catalog.gpus.get(row["gpu"]) or {}).get("hardware") == hardware if hardware else True
            if (model and (near is None or near > 1)) or not on:  # another size says little about latency
                continue
            found.append(((near or 0, m["tpot_ms"]["median"]), rs, row))
    if not found:
        return None
    (near, _), rs, row = min(found, key=lambda f: (f[0], f[1]["id"]))
    m = row["metrics"]
    said = phrase(catalog, rs, row)
    return {"text": f"Measured latency: median time to first token {m['ttft_ms']['median']:,.0f} ms and per output token "
                    f"{m['tpot_ms']['median']:,.1f} ms; " + said["text"][len("Measured: "):]
                    + (f" ({CLOSENESS[near]} as yours)" if model else ""), "source": said["source"]}


def _fit_reason(catalog, engine, fit, scale, trace, planned=None):
    cap = fit.get("capacity") or {}
    if fit["fits"]:
        trace("fit-gpu")
        text = (f"The model fits: {cap.get('max_sequences', 0):,} sequences of {fit['context_tokens']:,} tokens "
                f"({cap.get('kv_tokens', 0):,} tokens of KV cache)")
        return None, reason(text, 0, "fit")
    if fit["fits_with_offload"] and scale == "local":
        fact, src = _feature(catalog, engine, "cpu_offload")
        methods = set(fact.get("methods", []))
        method = fit["offload"]["method"]
        if fact["value"] == "no":
            trace("fit-offload-no")
            return reason(f"The model does not fit GPU memory and {engine['name']} keeps no weights in host RAM", 0, "no", src), None
        trace("fit-offload")
        if fact["value"] == "unknown":
            return None, reason("The model needs weights in host RAM; CPU offload is not documented", PENALTY["unknown"], "gap")
        if method == "experts" and "experts" in methods:
            return None, reason("Fits with the routed experts in host RAM, computed on the CPU: this engine does exactly that"
                                + (f" ({fact['note']})" if fact.get("note") else ""), 12, "fit", src,
                                short="keeps the experts in host RAM")
        if method == "experts" and methods & {"layers"}:
            return None, reason("Fits with weights in host RAM; this engine offloads whole layers, slower than keeping only "
                                "the experts there", 2, "fit", src, short="offloads whole layers")
        return None, reason(f"Fits with weights in host RAM (CPU offload: {fact['value']})", 0 if fact["value"] == "yes" else -4, "fit", src)
    if planned is not None and planned is not fit and _fits(planned, scale) and fit["weights_gb"] > planned["weights_gb"]:
        trace("fit-none")
        return reason(f"{engine['name']} holds the weights in {fit['weights_gb']:,.0f} GB after loading, not "
                      f"{planned['weights_gb']:,.0f} GB: the model does not fit the memory given", 0, "fit"), None
    if planned is not None and planned is not fit and _fits(planned, scale):
        # the setup was planned on the site's generic figures; this engine's own memory plan is tighter
        trace("fit-engine-tighter")
        return None, reason(f"With {engine['name']}'s own memory plan the model does not fit this setup "
                            f"(the site's generic plan fits it): give it more memory or a narrower format", FIT_TIGHTER, "fit",
                            short="its own memory plan does not fit")
    trace("fit-none")
    return reason("The model does not fit the memory given" + (" (offload from host RAM does not count at service scale)"
                                                               if fit["fits_with_offload"] else ""), 0, "fit"), None


def _total(reasons):
    return round(sum(r["points"] for r in reasons), 1)


def _tie_key(catalog, engine, weights):
    touched = sum((catalog.matrix[d]["scores"].get(engine["id"], {}).get("score", 3)) for d in weights)
    every = sum(d["scores"].get(engine["id"], {}).get("score", 3) for d in catalog.matrix.values())
    documented = sum(1 for f in (engine.get("features") or {}).values() if f.get("value") == "yes")
    return (touched, every, documented)


# -- fit, quantization choice and suggestions --------------------------------------------------------------

def _fit_kwargs(answers):
    kw = fit_mod.fit_arguments(answers)
    kw["profile"] = "local" if answers["scale"] == "local" else "server"
    kw.pop("engine", None)
    return kw


def planner_answers(catalog, answers, work):
    """The answers "Will it fit?" takes for this selector answer: the shared questions, with the quantization and
    the GPU count or host RAM the engines were ranked for. None when there is nothing to size."""
    if not _can_fit(work):
        return None
    keys = [q["key"] for q in catalog.questions["questions"] if q.get("page") in ("both", "fit")]
    out = {k: answers[k] for k in keys if answers.get(k) not in (None, "", [])}
    # the weights the engines were ranked on: the quantization chosen, else the model as shipped (left out, the
    # planner would pick a scheme per engine and candidates would be priced on different weights)
    out["quantization"] = work.get("quantization") or catalog.models[work["model"]]["native_precision"]
    out.update(work.get("_ranked_change") or {})
    return out


def planner_fit(catalog, fit_answers, engine_id, with_table=True):
    """Exactly what ``fit --engine ENGINE`` answers for these planner answers; without its what-fits table when
    ``with_table`` is false."""
    answers = clean_answers(catalog, {**fit_answers, "engine": engine_id}, page="fit")
    out = fit_answer(catalog, answers, with_table)
    out["renamed"] = []
    out["selector_answers"] = selector_answers(catalog, answers)
    return out


def fit_answer(catalog, answers, with_table=True):
    """The planner's answer for cleaned answers: the engine given, or the one the selector puts first, and each
    other engine's own fit; ``fit --engine`` and every selector candidate come through here. Without ``with_table``
    the what-fits table is left out (and not computed when the quantization is given)."""
    args = fit_arguments(answers)
    chosen = None
    if not args.get("engine"):
        chosen = default_engines(catalog, answers)
        args["engine"] = chosen["engines"][0] if chosen["engines"] else None
    quant = answers.get("quantization")
    table_args = {k: v for k, v in args.items() if k != "kv_quantization"}
    if chosen is not None:
        table_args["engine"] = None
    table = None
    if with_table or not quant:  # the table prices every scheme: needed to choose one, or to show it
        table = fit_table(catalog, answers["model"], ranked=chosen["engines"] if chosen else None, keep=(quant,) if quant else (),
                          **table_args)
    choice = None
    if not quant:
        choice = _quantization_choice(catalog, answers, args, table, chosen["engines"] if chosen else [args["engine"]])
        if choice["chosen_by"] == "best-fit":
            picked_kv = not args.get("kv_quantization") and choice["kv_asked"]
            args = {**args, "engine": choice["engine"] if chosen is not None else args["engine"],
                    "kv_quantization": choice["kv_cache"] if picked_kv else args.get("kv_quantization"),
                    **({"kv_chosen": True} if picked_kv else {})}
            quant = choice["quantization"]
    out = estimate(catalog, answers["model"], quant, **args)
    if with_table:
        out["table"] = table
    out["quantization_choice"] = choice
    if chosen is not None:
        out["assumptions"]["engine_chosen_by"] = "selector" if args["engine"] else None
        out["assumptions"]["scale"] = chosen["scale"]
        hardware = machine_hardware(catalog, answers.get("gpu"), answers.get("memory"))
        others = [e for e in chosen["engines"] if e != args["engine"]
                  and (quant == answers.get("quantization") or documents(catalog, catalog.engines[e], quant, hardware))]
        out["engines"] = [_engine_row(catalog, answers, args, e, out, quant) for e in others]
    else:
        out["assumptions"]["engine_chosen_by"] = "given"
        out["engines"] = []
    out["assumptions"]["quantization_chosen_by"] = choice["chosen_by"] if choice else "given"
    return out


def _quantization_choice(catalog, answers, args, table, ranked):
    """No quantization asked: the highest-precision scheme that fits (see :func:`selector.fit.best_row`), and why."""
    model = catalog.models[answers["model"]]
    native = catalog.quantization[model["native_precision"]]
    shipped = next((r for r in table if r["quantization"] == native["id"] and not r["kv_asked"]), None)
    best = best_row(table, answers.get("kv_cache"), native["id"], ranked)
    out = {"chosen_by": "native", "quantization": native["id"], "name": native["name"], "kv_cache": None, "kv_asked": False,
           "engine": args.get("engine"), "native": native["id"], "native_name": native["name"],
           "native_weights_gib": shipped["weights_gib"] if shipped else None, "native_fits": bool(shipped and shipped["fits"])}
    if best is None:
        out["text"] = (f"No quantization asked, and none that an engine documents here fits; the answer prices {model['name']} as "
                       f"shipped ({native['name']}).")
        return out
    if best["quantization"] == native["id"] and not best["kv_asked"]:
        out["text"] = f"No quantization asked: {model['name']} as shipped ({native['name']}) " + ("fits." if best["fits"] else "fits with offload.")
        return out
    engine = best["engine"] if best["engine"] else args.get("engine")
    how = "fits" if best["fits"] else "fits with offload"
    kv = f" with the {best['kv_name']}" if best["kv_asked"] else ""
    text = (f"No quantization asked: {best['name']}{kv} is the highest precision that {how}"
            + (f" among the schemes {catalog.engines[engine]['name']} runs" if engine and engine == args.get("engine") else "")
            + (f" (priced with {catalog.engines[engine]['name']}, which runs it here)" if engine and engine != args.get("engine") else "")
            + "; ")
    text += (f"as shipped ({native['name']}, {shipped['weights_gib']:.1f} GiB of weights) it does not fit." if shipped
             else f"as shipped ({native['name']}) no engine documents it here.")
    out.update(chosen_by="best-fit", quantization=best["quantization"], name=best["name"], kv_cache=best["kv_cache"],
               kv_asked=best["kv_asked"], engine=engine, text=text)
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


def _engine_row(catalog, answers, args, engine_id, first, quant=None):
    other = estimate(catalog, answers["model"], quant or answers.get("quantization"), **{**args, "engine": engine_id})
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


def selector_answers(catalog, answers, scale=None):
    """The selector's answers for a planner answer (its shared questions, and the scale when the planner chose one),
    so /fit/ can link to the ranking of the same setup."""
    keys = [q["key"] for q in catalog.questions["questions"] if q.get("page") in ("both", "selector")]
    out = {k: answers[k] for k in keys if answers.get(k) not in (None, "", [])}
    if scale:
        out["scale"] = scale
    return out


def fit_line(catalog, fit):
    """The candidate's fit in one line: fits or not, KV tokens, and why its engine's figure is what it is."""
    cap, a = fit["capacity"] or {}, fit["assumptions"]
    name = catalog.name_of("engines", a["engine_profile"] or a["engine"])
    state = "Fits" if fit["fits"] else "Fits with weights in host RAM" if fit["fits_with_offload"] else "Does not fit"
    seqs = cap.get("max_sequences", 0)
    text = state + (f": {cap['kv_tokens']:,} tokens of KV cache, {seqs:,} sequence{'' if seqs == 1 else 's'} of "
                    f"{fit['context_tokens']:,} tokens" if cap.get("kv_tokens") is not None else "")
    if a["sizing"] == "context":
        why = f"{name} allocates the KV cache for the context asked, with no memory share"
    else:
        why = (f"{name} sizes the KV cache from a {a['memory_fraction']:g} share of {a['fraction_of'].replace('-', ' ')} "
               f"memory, less {a['runtime_reserve_gib']:.2f} GiB it holds besides weights and KV cache")
    via = f" ({catalog.name_of('engines', a['engine'])} runs {name})" if a["engine_profile"] and a["engine_profile"] != a["engine"] else ""
    return f"{text}; {why}{via}."


def _engine_fits(catalog, fit_answers):
    """Each engine's own fit, computed once per answer (without the planner's table), for the ranking."""
    cache = {}

    def get(engine_id):
        if fit_answers is None:
            return None
        if engine_id not in cache:
            try:
                cache[engine_id] = planner_fit(catalog, fit_answers, engine_id, with_table=False)
            except InputError:  # an engine the planner does not offer: the generic estimate stands
                cache[engine_id] = None
        return cache[engine_id]
    return get


def _can_fit(answers):
    return bool(answers.get("model") and (answers.get("gpu") or answers.get("gpu_memory_gb")
                                          or (answers.get("memory") in ("cpu", "unified") and answers.get("ram_gb"))))


def _fits(fit, scale):
    return fit["fits"] or (scale == "local" and fit["fits_with_offload"])


def _choose_quantization(catalog, answers, pool, leaf, trace):
    """When no quantization is given: the model's own precision if it fits, else the highest-precision scheme
    that fits and that the branch's engines run (the tree's pick first)."""
    model = catalog.models[answers["model"]]
    native = fit_mod.estimate(catalog, model["id"], None, **_fit_kwargs(answers))
    if _fits(native, answers["scale"]):
        return None, native
    hardware = answers.get("_hardware")
    picks = [e for e in (catalog.engines.get(x) for x in leaf["engines"]) if e] + pool
    best = None
    for q in catalog.quantization.values():
        if q["applies_to"] != "weights" or q["bits_per_weight"] >= catalog.quantization[model["native_precision"]]["bits_per_weight"]:
            continue
        est = fit_mod.estimate(catalog, model["id"], q["id"], **_fit_kwargs(answers))
        if not _fits(est, answers["scale"]):
            continue
        states = [quantization_support(catalog, e, q["id"], hardware)[0] for e in picks if e["kind"] == "engine"]
        if not any(s in ("yes", "partial") for s in states):
            continue
        top = states[0] if states else "unknown"
        key = ({"yes": 2, "partial": 1}.get(top, 0), sum(s == "yes" for s in states), q["bits_per_weight"], -len(q["id"]))
        if best is None or key > best[0]:
            best = (key, q, est)
    if best is None:
        return None, native
    trace("quantization-chosen")
    return best[1]["id"], best[2]


def _supported(catalog, engines, quant_id, hardware):
    """True when an engine of the answer's tier documents full support for the scheme on the hardware."""
    return any(quantization_support(catalog, e, quant_id, hardware)[0] == "yes"
               for e in engines if e["kind"] == "engine" and e["status"]["value"] == "active")


def _gpus_needed(catalog, model_id, quant_id, kw, start):
    for n in (2, 4, 8, 16, 32, 64, 128):
        if n <= start:
            continue
        if fit_mod.estimate(catalog, model_id, quant_id, **{**kw, "gpus": n})["fits"]:
            return n
    return None


def suggestions(catalog, answers, fit, engines):
    """What would make the model fit, or fit the asked load, computed from the fit estimate: quantizations the
    tier's engines run, GPUs, host RAM, KV-cache precision and context, each with numbers."""
    out = []
    if not fit:
        return out
    model = catalog.models[answers["model"]]
    kw = _fit_kwargs(answers)
    scale = answers["scale"]
    hardware = answers.get("_hardware")
    quant_id = fit["quantization"]
    name = lambda q: catalog.name_of("quantization", q)  # noqa: E731
    machine = fit["machine"]
    if not _fits(fit, scale):
        fitting = []
        top = engines[:1]
        for q in sorted((q for q in catalog.quantization.values() if q["applies_to"] == "weights"),
                        key=lambda q: (not _supported(catalog, top, q["id"], hardware), _practice(q, hardware, scale),
                                       -q["bits_per_weight"], q["id"])):
            if not _supported(catalog, engines, q["id"], hardware):
                continue
            est = fit_mod.estimate(catalog, model["id"], q["id"], **kw)
            if _fits(est, scale):
                fitting.append(f"{q['name']} ({est['weights_gb']:g} GB of weights" + (", experts in host RAM" if not est["fits"] else "") + ")")
        if fitting:
            out.append({"kind": "quantization", "text": "Quantizations that fit this memory and that these engines run: "
                        + "; ".join(fitting[:3]) + "."})
        if machine["mode"] == "cpu" and machine["ram_gib"]:
            need = (fit["weights_gb"] + fit["kv_cache_gb"]) * 1e9 / fit_mod.GIB + fit["assumptions"]["runtime_reserve_gib"] \
                + catalog.questions["fit_defaults"]["host_reserve_gib"]["value"]
            out.append({"kind": "memory", "text": f"A CPU-only machine needs about {need:.0f} GiB of RAM for it."})
        if machine["mode"] == "discrete" and machine["gpu_gib"] and scale != "local":
            options = [quant_id]
            if not answers.get("quantization_given"):
                options += [q["id"] for q in catalog.quantization.values()
                            if q["applies_to"] == "weights" and hardware in q["native_hardware"] and q["id"] != quant_id
                            and q["bits_per_weight"] >= 8 and _supported(catalog, engines, q["id"], hardware)]
            seen = set()
            for q in sorted(options, key=lambda q: (q != quant_id, -catalog.quantization[q]["bits_per_weight"], q)):
                n = _gpus_needed(catalog, model["id"], q, kw, kw.get("gpus") or 1)
                if n and n not in seen:
                    seen.add(n)
                    nodes = f" ({n // 8} nodes of 8)" if n >= 16 else ""
                    out.append({"kind": "gpus", "gpus": n, "quantization": q,
                                "text": f"In {name(q)} it needs {n} GPUs of {machine['gpu_gib']:g} GiB{nodes}."})
        if fit.get("offload") and not fit["offload"]["fits"] and scale == "local":
            need = fit["offload"]["host_gib"] + catalog.questions["fit_defaults"]["host_reserve_gib"]["value"]
            out.append({"kind": "ram", "ram_gib": int(need) + 1,
                        "text": f"With the experts or layers in host RAM it needs about {need:.0f} GiB of host RAM."})
    elif not fit["concurrency_met"] and fit.get("capacity"):
        cap = fit["capacity"]
        out.append({"kind": "context", "text": f"At {fit['concurrency']} sequences the longest context that fits is "
                    f"{cap['max_context_tokens']:,} tokens; at {fit['context_tokens']:,} tokens {cap['max_sequences']:,} sequences fit."})
        if not answers.get("kv_cache"):
            kv = sorted((q for q in catalog.quantization.values() if q["applies_to"] == "kv-cache"
                         and _supported(catalog, engines, q["id"], hardware)), key=lambda q: (-q["bits_per_weight"], q["id"]))
            if kv:
                est = fit_mod.estimate(catalog, model["id"], quant_id, **{**kw, "kv_quantization": kv[0]["id"]})
                out.append({"kind": "kv", "text": f"With the {kv[0]['name']}: {est['capacity']['max_sequences']:,} sequences of "
                            f"{fit['context_tokens']:,} tokens ({est['capacity']['kv_tokens']:,} tokens of KV cache)."})
        out += _native_weights(catalog, model, fit, kw, engines, hardware)
        if machine["mode"] == "discrete" and machine["gpu_gib"]:
            out += _gpus_for_load(catalog, model, fit, kw)
    return out


def _practice(q, hardware, scale):
    """Where a scheme stands in what people deploy: at service scale the hardware's native format (FP8 on Hopper,
    NVFP4 on Blackwell, MXFP4 where native) first, then the other checkpoint formats (AWQ, GPTQ), file formats
    of the desktop runtimes (GGUF, MLX) last; on one machine only the bits count."""
    if scale == "local":
        return 0
    if hardware and hardware in q["native_hardware"]:
        return 0
    return 2 if q.get("family") else 1


def _native_weights(catalog, model, fit, kw, engines, hardware):
    """A narrower weight format the hardware computes natively frees memory for the KV cache: how many sequences."""
    now = catalog.quantization[fit["quantization"]]
    out = []
    for q in sorted((q for q in catalog.quantization.values() if q["applies_to"] == "weights" and hardware in q["native_hardware"]
                     and q["bits_per_weight"] < now["bits_per_weight"] and _supported(catalog, engines, q["id"], hardware)),
                    key=lambda q: (-q["bits_per_weight"], q["id"]))[:1]:
        est = fit_mod.estimate(catalog, model["id"], q["id"], **kw)
        if est["capacity"]:
            out.append({"kind": "weights", "quantization": q["id"],
                        "text": f"{q['name']} weights ({est['weights_gb']:g} GB instead of {fit['weights_gb']:g} GB), which "
                                f"{catalog.name_of('hardware', hardware)} computes natively, leave room for "
                                f"{est['capacity']['max_sequences']:,} sequences of {fit['context_tokens']:,} tokens on the same GPUs."})
    return out


def _gpus_for_load(catalog, model, fit, kw):
    """GPUs that hold every asked sequence, with the arithmetic: copies of this setup, or a wider tensor-parallel group."""
    cap, g, want = fit["capacity"], kw.get("gpus") or 1, fit["concurrency"]
    if not cap["max_sequences"]:
        return []
    lay = fit.get("layout") or {"tensor_parallel": g, "replicas": 1}
    tp, reps = lay["tensor_parallel"], lay["replicas"]
    per_seq = cap["kv_budget_gib"] / cap["max_sequences"]
    per_copy = (cap.get("per_replica") or cap)["max_sequences"]
    text = (f"Each sequence of {fit['context_tokens']:,} tokens takes about {per_seq:.2f} GiB of KV cache, so {want:,} take "
            f"{per_seq * want:,.0f} GiB; {g} GPU{'s leave' if g > 1 else ' leaves'} {cap['kv_budget_gib']:,.0f} GiB of KV cache after "
            f"the weights, {cap['max_sequences']:,} sequences. ")
    if reps > 1:  # the plan already runs copies of the largest group that keeps the KV heads apart: add whole copies
        copies = -(-want // per_copy)
        text += (f"{copies * tp} GPUs as {copies} copies of the {tp}-GPU tensor-parallel group behind a load balancer hold all "
                 f"{want:,} ({copies * per_copy:,} sequences).")
        return [{"kind": "gpus-load", "gpus": copies * tp, "text": text}]
    copies = -(-want // cap["max_sequences"])
    wider = None
    for n in (2, 4, 8, 16, 32, 64):
        if g < n < copies * g:
            est = fit_mod.estimate(catalog, model["id"], fit["quantization"], **{**kw, "gpus": n})
            if est["concurrency_met"]:
                wider = (n, est["capacity"], est.get("layout") or {"tensor_parallel": n, "replicas": 1})
                break
    if wider:
        n, c, split = wider
        how = (f"as {split['replicas']} copies of a {split['tensor_parallel']}-GPU tensor-parallel group" if split["replicas"] > 1
               else "in one tensor-parallel group")
        text += f"{n} GPUs {how} hold all {want:,} ({c['kv_budget_gib']:,.0f} GiB of KV cache, {c['max_sequences']:,} sequences)."
        return [{"kind": "gpus-load", "gpus": n, "text": text}]
    text += (f"{copies * g} GPUs as {copies} copies of this {g}-GPU setup behind a load balancer hold all {want:,} "
             f"({copies * cap['max_sequences']:,} sequences).")
    return [{"kind": "gpus-load", "gpus": copies * g, "text": text}]


def checkpoint_advice(catalog, work, candidates):
    """The stated weights are a file the serving engine loads only partly: name the safetensors checkpoints it loads
    fully (from the model's list of published checkpoints)."""
    fmt = work.get("weights")
    tier = next((c for c in candidates if not c["fallback"]), None)
    if not fmt or fmt == "safetensors" or not tier or "safetensors" not in catalog.formats:
        return []
    weak = next((r for r in tier["reasons"] if r["about"] == "format" and r["kind"] in ("partial", "gap")), None)
    if not weak:
        return []
    engine = catalog.engines[tier["engine"]]
    model = catalog.models.get(work.get("model") or "")
    hardware = work.get("_hardware")
    found = []
    for ck in (model or {}).get("checkpoints", []):
        q = catalog.quantization.get(ck["quantization"]) or {}
        if q and not q.get("family") and quantization_support(catalog, engine, q["id"], hardware)[0] == "yes":
            found.append(f"{q['name']} ({ck['repo']})")
    text = (f"{engine['name']} loads {catalog.name_of('formats', fmt)} only partly; serve the model's "
            f"{catalog.name_of('formats', 'safetensors')} checkpoint instead")
    text += (f": {', '.join(found[:3])} {'load' if len(found) > 1 else 'loads'} fully." if found else
             ", in FP8 or a 4-bit checkpoint format (AWQ, GPTQ) it runs fully.")
    return [{"kind": "checkpoint", "text": text}]


# -- the answer ---------------------------------------------------------------------------------------------------

def _resolve(catalog, answers):
    """The answers with what they imply: the hardware family and memory layout of a GPU from the list."""
    work = dict(answers)
    gpu = catalog.gpus.get(answers.get("gpu") or "")
    work["_hardware"] = answers.get("hardware") or (gpu["hardware"] if gpu else None)
    quant = catalog.quantization.get(answers.get("quantization") or "")
    if quant and not answers.get("weights") and quant.get("family") in catalog.formats:
        # a GGUF or MLX quantization is a file in that format: its loader support counts too
        work["weights"] = quant["family"]
    if gpu and not answers.get("memory"):
        work["memory"] = {"unified": "unified", "host": "cpu"}.get(gpu["memory_mode"], "discrete")
    if answers.get("memory") == "cpu" and not work["_hardware"]:
        work["_hardware"] = "cpu"
    return work


def _plan(catalog, answers, work, trace, warnings):
    """Walk the tree and size the model: choose a quantization when none is given and the model's own does not
    fit, compute what would make it work, and when nothing fits rank for the smallest setup that does.
    Returns (branch, leaf, path, pool, fit shown to the reader, fit the engines are ranked for, suggestions)."""
    fit = fit_mod.estimate(catalog, work["model"], work.get("quantization"), **_fit_kwargs(work)) if _can_fit(work) else None
    branch, leaf, path = walk_tree(catalog, work, trace, fit)
    pool = catalog.engines_in(branch["tiers"], branch["kinds"])
    if fit is None:
        return branch, leaf, path, pool, None, None, []
    name = lambda q: catalog.name_of("quantization", q)  # noqa: E731
    model = catalog.models[work["model"]]
    if not work.get("quantization"):
        chosen, est = _choose_quantization(catalog, work, pool, leaf, trace)
        if chosen:
            warnings.append(f"{model['name']} in its own {name(model['native_precision'])} ({fit['weights_gb']:g} GB of weights) "
                            f"does not fit this memory; the answer assumes {name(chosen)} ({est['weights_gb']:g} GB), the "
                            "highest-precision quantization that fits and that these engines run.")
            work["quantization"], fit = chosen, est
            branch, leaf, path = walk_tree(catalog, work, Trace(), fit)
            pool = catalog.engines_in(branch["tiers"], branch["kinds"])
    ranked_for = fit
    leaf_engines = [e for e in (catalog.engines.get(x) for x in leaf["engines"]) if e]
    advice = suggestions(catalog, {**work, "quantization_given": bool(answers.get("quantization"))}, fit, leaf_engines + pool)
    own = _own_plan_fits(catalog, answers, work, leaf_engines + pool) if not _fits(fit, work["scale"]) else None
    if own:
        warnings.append(f"{model['name']} in {name(fit['quantization'])} does not fit by the site's generic figures, but it does "
                        f"with {own['name']}'s own memory plan ({own['line']}); engines whose own plan does not fit are ruled out.")
    elif not _fits(fit, work["scale"]):
        options = sorted((s for s in advice if s["kind"] == "gpus"),
                         key=lambda s: (s["gpus"], -catalog.quantization[s["quantization"]]["bits_per_weight"]))
        adjusted = options[0] if options else next((s for s in advice if s["kind"] == "ram"), None)
        text = f"{model['name']} in {name(fit['quantization'])} ({fit['weights_gb']:g} GB of weights) does not fit the memory given"
        if adjusted:
            trace("fit-adjusted")
            change = {"gpus": adjusted["gpus"]} if adjusted["kind"] == "gpus" else {"ram_gb": adjusted["ram_gib"]}
            quant_for = adjusted.get("quantization") or fit["quantization"]
            ranked_for = fit_mod.estimate(catalog, work["model"], quant_for, **{**_fit_kwargs(work), **change})
            work["quantization"] = quant_for
            work["_ranked_change"] = change
            text += "; the engines below are ranked for " + (
                f"{adjusted['gpus']} GPUs in {name(quant_for)}, the smallest count that holds it." if adjusted["kind"] == "gpus"
                else f"{adjusted['ram_gib']} GiB of host RAM, the least that holds it.")
            if not answers.get("need"):
                branch, leaf, path = walk_tree(catalog, work, Trace(), ranked_for)
                pool = catalog.engines_in(branch["tiers"], branch["kinds"])
        else:
            text += "; " + (advice[0]["text"][0].lower() + advice[0]["text"][1:] if advice else "nothing in this catalog makes it fit.")
        warnings.append(text)
    return branch, leaf, path, pool, fit, ranked_for, advice


def _own_plan_fits(catalog, answers, work, engines):
    """The first engine of the branch whose own memory plan holds the setup the generic figures reject, if any."""
    fit_answers = planner_answers(catalog, answers, work)
    for engine in engines:
        if engine["kind"] != "engine":
            continue
        try:
            own = planner_fit(catalog, fit_answers, engine["id"], with_table=False)
        except InputError:
            continue
        if _fits(own, work["scale"]):
            return {"name": engine["name"], "line": fit_line(catalog, own)[:-1]}
    return None


def _precision_warning(catalog, work, trace):
    hardware = work.get("_hardware")
    quant_id = work.get("quantization") or (catalog.models[work["model"]]["native_precision"] if work.get("model") else None)
    if not (quant_id and hardware):
        return None
    quant = catalog.quantization[quant_id]
    if not quant["native_hardware"] or hardware in quant["native_hardware"]:
        return None
    trace("quantization-not-native")
    native = ", ".join(catalog.name_of("hardware", h) for h in quant["native_hardware"])
    return (f"{quant['name']} computes natively on {native}; on {catalog.name_of('hardware', hardware)} engines run it "
            "weight-only. Kept: the memory saving, and most of the decode speed gain, since decoding mostly reads weights. "
            "Lost: the low-precision tensor-core compute, so prefill and large batches run at the speed of the wider format.")


def _rank(catalog, work, branch, leaf, pool, fit, weights, trace, fits=None):
    """Every engine of the branch, ruled out with its reasons or scored with them; best first. ``fits`` gives each
    engine's own fit (its memory profile) where the planner has one, else the generic ``fit`` counts."""
    fits = fits or (lambda e: None)
    scored, excluded = [], []
    default = not work.get("need") and leaf.get("default") and not _infer_matches(catalog, leaf, work, fit, branch)
    for engine in pool:
        why, reasons = evaluate(catalog, engine, work, fits(engine["id"]) or fit, weights, branch["scale"], trace, fit)
        if why:
            excluded.append({"engine": engine["id"], "name": engine["name"], "tier": engine["tier"], "reasons": why,
                             "_would_score": _total(reasons)})
            continue
        if engine["id"] in leaf["engines"]:
            i = leaf["engines"].index(engine["id"])
            prior = DEFAULT_PRIOR if default else TREE_PRIOR
            reasons.insert(0, reason(f"Decision tree: '{branch['label']}' then '{leaf['label']}' leads to {engine['name']}"
                                     + (" (the default need: a prior, not a stated fact)" if default else ""),
                                     prior[min(i, len(prior) - 1)], "tree", short="the decision tree's pick"))
        elif engine["id"] in leaf.get("also", []):
            reasons.insert(0, reason(f"Decision tree: also suits '{leaf['label']}'", DEFAULT_ALSO if default else ALSO_PRIOR, "tree",
                                     short="the decision tree's alternative"))
        else:
            reasons.insert(0, reason(f"Same tier ({engine['tier']}): {engine['positioning']}", 0, "tier"))
        scored.append(_candidate(engine, reasons, weights, catalog, fallback=False))
    scored.sort(key=_order)
    return scored, excluded


def _order(c):
    return (-c["score"], [-x for x in c["_tie"]])


def _outranked(catalog, work, scored, trace):
    """Evidence over the prior: a stated hardware, format or quantization that one engine supports fully costs
    every engine that supports it only partly (or leaves it undocumented) OUTRANKED points, once per engine
    (a GGUF file is one fact whether it is named as format or as quantization). Sorted."""
    found = {}
    for about in OUTRANKED:
        full = [c for c in scored if any(r["kind"] == "support" and r["about"] == about for r in c["reasons"])]
        for c in scored if full else []:
            weak = next((r for r in c["reasons"] if r["kind"] in ("partial", "gap") and r["about"] == about), None)
            if weak and c not in full and OUTRANKED[about] < found.get(id(c), (0,))[0]:
                found[id(c)] = (OUTRANKED[about], about, weak, full[0])
    for c in scored:
        if id(c) in found:
            trace("outranked")
            points, about, weak, other = found[id(c)]
            c["reasons"].append(reason(f"{other['name']} supports what you stated fully ({weak['text'].split(':')[0]}); "
                                       f"{c['name']} only partly or without documentation", points, "evidence",
                                       short=f"{about.replace('_', ' ')} supported better elsewhere"))
            c["score"] = _total(c["reasons"])
    return sorted(scored, key=_order)


def _closeness(catalog, asked, row_model):
    """0 the same model, 1 the same family and size, 2 the same family in another size, None otherwise."""
    if row_model["id"] == asked["id"]:
        return 0
    if row_model["vendor"] != asked["vendor"] or row_model["architecture"] != asked["architecture"]:
        return None
    return 1 if abs(row_model["total_params_b"] - asked["total_params_b"]) <= 0.1 * asked["total_params_b"] else 2


def _figure(value):
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


CLOSENESS = ("the same model", "the same family and size", "the same family, another size")


def _measured(catalog, work, ranked, trace):
    """Measured rows argue: in one result set, on the stated GPU (or its family), for the stated model or its family,
    the best row of each ranked engine on the set's first metric. Quoted engine against engine where the set holds
    several; the engine ahead gains MEASURED_POINTS by how close the model is. Sorted again."""
    model = catalog.models.get(work.get("model") or "")
    gpu, hardware = work.get("gpu"), work.get("_hardware")
    results = getattr(catalog, "results", None) or {}
    if not model or not (gpu or hardware) or not results:
        return ranked
    engines = {c["engine"]: c for c in ranked}
    best = {}  # engine -> (closeness, set id, row, metric, value, engine -> value in that set)
    for rs in results.values():
        groups = {}
        for row in rs["rows"]:
            row_model = catalog.models.get(row["model"])
            near = _closeness(catalog, model, row_model) if row_model else None
            on = row["gpu"] == gpu if gpu else (catalog.gpus.get(row["gpu"]) or {}).get("hardware") == hardware
            if near is None or not on or row["engine"] not in engines:
                continue
            metric = next((k for k, _ in METRICS if k in row["metrics"]), None)
            if metric:
                groups.setdefault((near, row["model"], row["gpu"], metric), []).append(row)
        for (near, _, _, metric), rows in groups.items():
            top = {}
            for row in rows:
                if row["metrics"][metric] > top.get(row["engine"], (0,))[0]:
                    top[row["engine"]] = (row["metrics"][metric], row)
            for engine, (value, row) in top.items():
                key = (near, -len(top), rs["id"])
                if engine not in best or key < best[engine][0]:
                    best[engine] = (key, rs, row, metric, top)
    nearest = min((b[0][0] for b in best.values()), default=None)
    for engine, (key, rs, row, metric, top) in best.items():
        if key[0] != nearest:  # another engine was measured on a closer model: only like is quoted with like
            continue
        c = engines[engine]
        near = key[0]
        said = phrase(catalog, rs, row)
        text = f"{said['text']} ({CLOSENESS[near]} as yours)"
        points = 0
        others = [e for e in top if e != engine]
        if others:
            ahead = all(top[engine][0] >= top[e][0] for e in others)
            versus = "; ".join(f"{catalog.name_of('engines', e)}'s best row in that set: {_figure(top[e][0])}" for e in others)
            text += f"; {versus}"
            points = MEASURED_POINTS[near] if ahead else 0
        trace("measured")
        c["reasons"].append(reason(text, points, "measured", said["source"],
                                   short=f"measured ahead on {catalog.name_of('models', row['model'])}" if points else
                                   f"measured on {catalog.name_of('models', row['model'])}"))
        c["score"] = _total(c["reasons"])
    return sorted(ranked, key=_order)


def recommend(catalog, answers, trace=None):
    """Answer a selector query. Raises :class:`selector.inputs.InputError` on bad input."""
    trace = trace or Trace()
    renamed = []
    answers = clean_answers(catalog, answers, page="selector", renamed=renamed)
    work = _resolve(catalog, answers)
    warnings = []
    branch, leaf, path, pool, fit, ranked_for, advice = _plan(catalog, answers, work, trace, warnings)
    precision = _precision_warning(catalog, work, trace)
    if precision:
        warnings.append(precision)

    weights = dimension_weights(catalog, work, branch)
    fit_answers = planner_answers(catalog, answers, work)
    fits = _engine_fits(catalog, fit_answers)
    scored, excluded = _rank(catalog, work, branch, leaf, pool, ranked_for, weights, trace, fits)
    fallback = _fallback(catalog, work, branch, ranked_for, weights, scored, trace, fits)
    # the neighbouring tier competes on score with the tier's own engines
    ranked = _measured(catalog, work, _outranked(catalog, work, scored + fallback, trace), trace)
    candidates = ranked[:MAX_CANDIDATES]
    warnings += [f"{c['name']} {branch['fallback_note']}" for c in candidates if c["fallback"]]

    for pick in leaf["engines"]:
        gone = next((x for x in excluded if x["engine"] == pick), None)
        if gone and candidates:
            warnings.append(f"The decision tree's pick, {gone['name']}, is ruled out: {gone['reasons'][0]['text']}.")
    third = candidates[-1]["score"] if len(candidates) >= MAX_CANDIDATES else float("-inf")
    for warn in catalog.tree["warnings"]:
        gone = next((x for x in excluded if x["engine"] == warn["engine"]), None)
        if gone and all(r["kind"] == "status" for r in gone["reasons"]) and (
                warn["engine"] in leaf["engines"] or gone["_would_score"] >= third):
            warnings.append(warn["text"])
    advice = advice + checkpoint_advice(catalog, work, candidates)
    if candidates and leaf.get("with"):
        trace("companions")
        candidates[0]["reasons"].append(_companions(catalog, leaf, work, ranked_for, branch))
    if not candidates:
        trace("nothing-left")
        warnings.append(_nothing_left(excluded, branch))
    if leaf.get("note"):
        path[-1]["note"] = leaf["note"]
    for c in candidates:
        # KV-cache layers and the engines underneath come with a cluster answer, not as alternatives to it
        c["companions"] = companions_of(catalog, catalog.engines[c["engine"]], work, branch["scale"]) \
            if branch["scale"] == "cluster" else []
        c["why"] = _why(c, candidates)
        c.pop("_tie", None)
        # the planner's answer for this engine, the one it was ranked on (its what-fits table stays on /fit/)
        c["fit"] = fits(c["engine"])
        c["fit_line"] = fit_line(catalog, c["fit"]) if c["fit"] else None
        c["measured"] = rows_for(catalog, engine=c["engine"], gpu=work.get("gpu"), hardware=work.get("_hardware"),
                                 model=work.get("model"), weights=work.get("quantization"), gpus=work.get("gpus"),
                                 concurrency=work.get("concurrency"))
    for x in excluded:
        x.pop("_would_score", None)
    return {
        "answers": answers,
        "assumed": {k: work[k] for k in ("quantization",) if work.get(k) != answers.get(k)},
        "candidates": candidates,
        "excluded": excluded,
        "warnings": warnings,
        "suggestions": advice,
        "path": path,
        "fit": fit,
        "fit_answers": fit_answers,
        "renamed": renamed,
    }


def companions_of(catalog, engine, work, scale):
    """What runs with this candidate, from the relations of the engine files (either side): the engines underneath
    an orchestration layer, and the KV-cache layers that plug into it. Those the answers rule out are left out."""
    out = []

    def add(other, role, rel, holder):
        if any(x["engine"] == other["id"] for x in out):
            return
        why, _ = evaluate(catalog, other, work, None, {}, scale, Trace())
        if not why:
            out.append({"engine": other["id"], "name": other["name"], "role": role, "note": rel.get("note"),
                        "source": _source(catalog, holder, rel.get("source"))})

    for rel in engine.get("relations", []):
        other = catalog.engines.get(rel["engine"])
        if other and rel["type"] == "backend":
            add(other, "engine underneath", rel, engine)
    for rel in engine.get("relations", []):
        other = catalog.engines.get(rel["engine"])
        if other and other["kind"] == "kv-cache" and rel["type"] == "integrates-with":
            add(other, "KV-cache layer", rel, engine)
    for other in catalog.engines.values():
        if other["kind"] == "kv-cache":
            for rel in other.get("relations", []):
                if rel["engine"] == engine["id"] and rel["type"] == "integrates-with":
                    add(other, "KV-cache layer", rel, other)
    return out


def _companions(catalog, leaf, work, fit, branch):
    fine, out = [], []
    for companion in leaf["with"]:
        engine = catalog.engines.get(companion)
        if not engine:
            continue
        why, _ = evaluate(catalog, engine, work, fit, {}, branch["scale"], Trace())
        (out if why else fine).append(engine["name"])
    text = f"Runs with: {', '.join(fine) or 'none of the usual companions'}"
    if out:
        text += f" (ruled out by your answers: {', '.join(out)})"
    return reason(text, 0, "companions")


def _candidate(engine, reasons, weights, catalog, fallback):
    return {"engine": engine["id"], "name": engine["name"], "tier": engine["tier"], "score": _total(reasons),
            "fallback": fallback, "reasons": reasons, "_tie": _tie_key(catalog, engine, weights)}


def _clean(c):
    """Hardware, format, quantization and offload all documented as full support."""
    return not any(r["kind"] in ("partial", "gap") for r in c["reasons"])


def _fallback(catalog, work, branch, fit, weights, scored, trace, fits=None):
    tiers = branch.get("fallback_tiers") or []
    if not tiers:
        return []
    if sum(1 for c in scored[:MAX_CANDIDATES] if _clean(c)) >= 2:
        return []
    others = []
    fits = fits or (lambda e: None)
    for engine in catalog.engines_in(tiers, ("engine",)):
        why, reasons = evaluate(catalog, engine, work, fits(engine["id"]) or fit, weights, branch["scale"], Trace(), fit)
        if why:
            continue
        reasons.insert(0, reason(f"From tier {engine['tier']}: {engine['positioning']}", 0, "fallback"))
        others.append(_candidate(engine, reasons, weights, catalog, fallback=True))
    others = [c for c in others if _clean(c)] or ([] if scored else others)
    if not others:
        return []
    trace("fallback")
    others.sort(key=_order)
    return others[:2]


def _why(c, candidates):
    """The few score components that decided this candidate's place, in words."""
    parts = sorted((r for r in c["reasons"] if r["points"]), key=lambda r: -abs(r["points"]))[:3]
    return [{"points": r["points"], "text": r["short"]} for r in parts]


def _nothing_left(excluded, branch):
    counts = {}
    for row in excluded:
        head = row["reasons"][0]["text"]
        counts[head] = counts.get(head, 0) + 1
    if not counts:
        return "No engine in this tier matches these answers."
    main = max(counts, key=counts.get)
    return (f"No engine in this tier passes every constraint. The most common blocker ({counts[main]} of {len(excluded)}): "
            f"{main}. Change that answer, or see what would make it work below.")
