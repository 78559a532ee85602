"""A launch command for a memory plan: the engine's own command line, written from ``data/launch`` and the dict
:func:`selector.fit.estimate` returns, so the command carries the context, memory share, KV precision and GPUs the
plan assumed.

Every value that comes from data or from the reader passes through :func:`shlex.quote`: data is text and never
becomes shell syntax. A plan the data cannot back gets no command and one line of why.
"""

import json
import math
import re
import shlex

from .fit import estimate, fit_arguments
from .inputs import clean_answers
from .weights import weight_bytes

# fit's offload methods -> the template parameter that carries them
OFFLOAD_PARAMS = {"experts": "cpu_moe", "layers": "gpu_layers", "weights-streaming": "offload_gb"}
# speculative-decoding methods the data can back, best first: the model's own MTP layers, a published EAGLE-3 draft
SPEC_METHODS = ("mtp", "eagle3")


def version_key(text):
    """``"v0.9.0"`` -> ``(0, 9, 0)``: release numbers compare part by part."""
    return tuple(int(part) for part in re.findall(r"[0-9]+", text or ""))


def flags_at(template, version=None):
    """``{param: [flag entries]}`` of the entries a release has (``since`` <= version < ``until``)."""
    at = version_key(version or template["version"])
    out = {}
    for entry in template["flags"]:
        if entry.get("since") and at < version_key(entry["since"]):
            continue
        if entry.get("until") and at >= version_key(entry["until"]):
            continue
        out.setdefault(entry["param"], []).append(entry)
    return out


def resolved_template(catalog, engine_id):
    """The template of ``engine_id``; an orchestration layer's (``backend``) gains the backend's flags for every
    parameter it does not set itself, with their citations (keys prefixed by the backend's id)."""
    launch = getattr(catalog, "launch", None) or {}
    template = launch.get(engine_id)
    if template is None or not template.get("backend"):
        return template
    base = launch.get(template["backend"])
    if base is None:
        return None
    own = {e["param"] for e in template["flags"]}
    borrowed = [{**e, "source": f"{base['id']}:{e['source']}"} for e in base["flags"] if e["param"] not in own]
    sources = {**{f"{base['id']}:{k}": v for k, v in (base.get("sources") or {}).items()}, **(template.get("sources") or {})}
    out = {**template, "flags": template["flags"] + borrowed, "sources": sources}
    if "dp_attention" not in template and base.get("dp_attention"):
        out["dp_attention"] = {**base["dp_attention"], "source": f"{base['id']}:{base['dp_attention']['source']}"}
    return out


def gguf_tag(quant_id):
    """The quantization tag GGUF file names and ``repo:TAG`` references use: gguf-q4-k-m -> Q4_K_M."""
    return quant_id.removeprefix("gguf-").upper().replace("-", "_")


def _refuse(why, template=None, name=None):
    return {"command": None, "why": why, "engine_version": template["version"] if template else None, "engine_name": name,
            "notes": [], "sources": []}


class _Command:
    """Collects the words of each step; values are quoted when the command is joined."""

    def __init__(self, template):
        self.template = template
        self.steps = [{"env": [], "args": []} for _ in template["steps"]]
        self.used = []  # flag entries and steps whose citations the answer lists
        self.cited = []  # further citation keys (the data-parallel attention recipe)

    def add(self, entry, value=None):
        step = self.steps[entry.get("step", 0)]
        form = entry["form"]
        if form == "env":
            step["env"].append(f"{entry['flag']}={shlex.quote(str(value))}")
        elif form == "positional":
            step["args"].append(shlex.quote(str(value)))
        elif form == "switch":
            step["args"].append(shlex.quote(entry["flag"]))
        else:
            for flag in [entry["flag"], *entry.get("also", [])]:
                step["args"].extend([shlex.quote(flag), shlex.quote(str(value))])
        for name, setting in sorted((entry.get("with") or {}).items()):
            text = f"{name}={shlex.quote(setting)}"
            if text not in step["env"]:
                step["env"].append(text)
        self.used.append(entry)

    def line(self, i):
        program = " ".join(shlex.quote(w) for w in self.template["steps"][i]["program"])
        return " ".join([*self.steps[i]["env"], program, *self.steps[i]["args"]])

    def text(self):
        """The command: the steps run one after another; a `separate` step (see :meth:`then`) and a step written
        into a recipe's file (see :meth:`in_files`) are not part of it."""
        return " && ".join(self.line(i) for i, s in enumerate(self.template["steps"])
                           if not s.get("separate") and not s.get("file"))

    def in_files(self):
        """``(file, line)`` of each step a recipe takes from one of its files (an orchestration layer's model-server
        container), not from the shell."""
        return [(s["file"], self.line(i)) for i, s in enumerate(self.template["steps"]) if s.get("file")]

    def then(self):
        return [self.line(i) for i, s in enumerate(self.template["steps"]) if s.get("separate")]

    def sources(self):
        keys = [s["source"] for s in self.template["steps"]] + [e["source"] for e in self.used] + self.cited
        cited = self.template.get("sources") or {}
        out, seen = [], set()
        for key in keys:
            src = cited.get(key)
            if src and src["url"] not in seen:
                seen.add(src["url"])
                out.append({"title": src["title"], "url": src["url"]})
        return out


def _one(flags, param):
    found = flags.get(param) or []
    return found[0] if found else None


def _checkpoint(catalog, model, quant_id):
    return next((c for c in model.get("checkpoints", []) if c["quantization"] == quant_id), None)


def weight_format(catalog, quant_id):
    """gguf, mlx or safetensors: the kind of file a checkpoint in this quantization is (MLX conversions are
    named mlx-*; every other scheme ships as hub safetensors)."""
    if (catalog.quantization.get(quant_id) or {}).get("family") == "gguf":
        return "gguf"
    return "mlx" if quant_id.startswith("mlx") else "safetensors"


FORMAT_NAMES = {"gguf": "GGUF", "mlx": "MLX", "safetensors": "safetensors (hub checkpoint)"}


def _model_value(catalog, entry, model, quant_id, ck):
    """The model argument in the form the template names, or ``(None, why)``."""
    allowed = entry.get("formats") or ["safetensors", "gguf", "mlx"]
    if weight_format(catalog, quant_id) not in allowed:
        return None, " or ".join(FORMAT_NAMES[f] for f in allowed)
    how = entry.get("value", "repo")
    if how in ("gguf-repo-tag", "ollama-hf"):
        ref = f"{ck['repo']}:{gguf_tag(quant_id)}"
        return (f"hf.co/{ref}" if how == "ollama-hf" else ref), None
    return ck["repo"], None


def launch_command(catalog, fit, engine_id=None, speculative=False):
    """``{command, engine_version, notes, sources}`` for a fit answer, or ``{command: None, why}``. ``speculative``:
    the answer recommends speculative decoding (low latency asked), so the command turns it on where the data backs
    a draft."""
    a = fit.get("assumptions") or {}
    engine_id = engine_id or a.get("engine")
    engine = catalog.engines.get(engine_id) if engine_id else None
    if engine is None:
        return _refuse("No engine is named, so there is no command to write.")
    name = engine["name"]
    template = resolved_template(catalog, engine_id)
    if template is None:
        return _refuse(f"{name} has no launch template in the data yet (data/launch), so no command is given.", None, name)
    flags = flags_at(template)
    model = catalog.models[fit["model"]]
    quant_id = fit["quantization"]
    quant_name = catalog.quantization[quant_id]["name"]
    box = fit.get("machine") or {}
    if not fit.get("fits") and not (fit.get("offload") or {}).get("fits"):
        return _refuse(f"The plan does not fit this memory with {name}, so there is no command to run.", template, name)
    notes = list(template.get("notes", []))
    cmd = _Command(template)

    # the model: a checkpoint of the chosen weights, or the 16-bit one quantized while loading
    ck = _checkpoint(catalog, model, quant_id)
    quantize = _one(flags, "quantize")
    on_the_fly = None
    if ck is None and quantize and quant_id in quantize.get("values", {}):
        ck = _checkpoint(catalog, model, model["native_precision"])
        on_the_fly = quantize if ck else None
    if ck is None:
        return _refuse(f"No {quant_name} checkpoint of {model['name']} is in the data; pick one on the hub (or convert the "
                       f"weights) and give it to {name} as the model.", template, name)
    model_entry = _one(flags, "model")
    value, wrong = _model_value(catalog, model_entry, model, quant_id, ck)
    if value is not None and value.startswith("-"):  # a program would read it as one of its own flags
        return _refuse(f"The checkpoint id {value!r} starts with '-', so {name} would read it as a flag; fix the model data.", template, name)
    if value is None:
        return _refuse(f"{name} loads {wrong} weights; {quant_name} is not one, so convert the weights or pick "
                       "another quantization.", template, name)

    # what the plan assumed, flag by flag
    gpus = box.get("gpus") or 1
    context = fit["context_tokens"]
    sequences = fit["concurrency"]
    kv = fit.get("kv_cache")
    plan = []  # (entry, value), in the order of the template's flags
    plan.append((model_entry, value))
    if on_the_fly:
        plan.append((on_the_fly, on_the_fly["values"][quant_id]))
        notes.append(f"{name} quantizes the {catalog.quantization[model['native_precision']]['name']} checkpoint to "
                     f"{quant_name} while loading it.")
    if ck.get("note") and model_entry.get("value") != "repo":
        notes.append(f"Checkpoint {ck['repo']}: {ck['note']}")
    dp = a.get("dp_attention") and gpus > 1
    if dp:
        recipe = template.get("dp_attention")
        if not recipe:
            return _refuse(f"The plan runs attention data parallel; the data has no way to set that for {name}.", template, name)
        tp_entry, dp_entry = _one(flags, "tensor_parallel"), _one(flags, "data_parallel")
        switch = _one(flags, "dp_attention") or _one(flags, "expert_parallel")
        if not (tp_entry and dp_entry and switch):
            return _refuse(f"The plan runs attention data parallel; the data lacks {name}'s flags for it.", template, name)
        plan += [(tp_entry, gpus if recipe["tensor_parallel"] == "gpus" else 1), (dp_entry, gpus), (switch, None)]
        cmd.cited.append(recipe["source"])
        if recipe["tensor_parallel"] == "one" and _one(flags, "expert_parallel") and switch is not _one(flags, "expert_parallel"):
            plan.append((_one(flags, "expert_parallel"), None))
    else:
        layout = fit.get("layout") or {}
        replicas = layout.get("replicas") or 1
        group = layout.get("tensor_parallel") or gpus
        tp_entry = _one(flags, "tensor_parallel")
        # an orchestration layer runs replicas as its own workers or pods, not through the backend's data-parallel flag
        dp_entry = _one(flags, "data_parallel") if replicas > 1 and not template.get("backend") else None
        shared = None
        if dp_entry and model.get("experts") and (dp_entry.get("experts") or {}).get("shared"):
            shared, dp_entry = dp_entry, None  # its ranks would split the experts: not the separate copies the plan priced
            cmd.cited.append(shared["experts"]["source"])
        if tp_entry:
            plan.append((tp_entry, group))
        elif group > 1 and not _one(flags, "gpu_layers"):
            return _refuse(f"The plan splits the model over {group} GPUs; the data has no tensor-parallel flag for {name}.", template, name)
        elif group > 1:
            notes.append(f"{name} splits the layers over every visible GPU by default ({group} here).")
        if dp_entry:
            plan.append((dp_entry, replicas))
            notes.append(f"The plan is {replicas} replicas of a tensor-parallel group of {group} GPUs; {name} runs them behind one "
                         f"endpoint ({dp_entry['flag']} {replicas}).")
        elif replicas > 1 and any(step.get("file") for step in template["steps"]):
            notes.append(f"The plan is {replicas} replicas of a tensor-parallel group of {group} GPUs: set the model server's replica "
                         f"count to {replicas}, each with {group} GPUs.")
        elif replicas > 1:
            notes.append(f"The plan is {replicas} replicas: run {replicas} copies of this command, "
                         + ("one per GPU" if group == 1 else f"one per tensor-parallel group of {group} GPUs") + ", behind a load balancer."
                         + (f" Not {shared['flag']}: {name} splits a MoE model's experts over all the ranks it starts, so they are "
                            "not separate copies." if shared else ""))
    ctx_entry = _one(flags, "context")
    if ctx_entry is None:
        notes.append(f"{name} has no context-length option in the data; the cache grows with each prompt, so the "
                     f"{context:,}-token plan is not enforced by the command.")
    else:
        plan.append((ctx_entry, context * sequences if ctx_entry.get("value") == "all-sequences" else context))
    slots = _one(flags, "parallel")
    if slots:
        plan.append((slots, sequences))
    if a.get("fraction_from") == "given":
        frac = _one(flags, "memory_fraction")
        if frac is None:
            return _refuse(f"The plan uses a memory share of {a['memory_fraction']:g}; the data has no flag for it in {name}.",
                           template, name)
        plan.append((frac, f"{a['memory_fraction']:g}"))
    elif a.get("fraction_from") == "auto":
        notes.append(f"{name} picks its memory share itself ({a['memory_fraction']:g} here), so the command leaves it out.")
    if kv and a.get("kv_cache_from") in ("asked", "chosen"):
        kv_entry = _one(flags, "kv_cache")
        if kv_entry is None or kv not in kv_entry.get("values", {}):
            return _refuse(f"The plan keeps the KV cache in {catalog.quantization[kv]['name']}; the data has no {name} "
                           "flag value for it.", template, name)
        plan.append((kv_entry, kv_entry["values"][kv]))
    elif kv:
        notes.append(f"{name} keeps the KV cache in {catalog.quantization[kv]['name']} by itself for these weights.")

    # where the weights live
    offload = fit.get("offload") if not fit.get("fits") else None
    layers = _one(flags, "gpu_layers")
    if offload:
        param = OFFLOAD_PARAMS.get(offload["method"])
        entry = _one(flags, param) if param else None
        if entry is None:
            return _refuse(f"The plan keeps weights in host RAM ({offload['method']}); the data has no {name} flag for it.", template, name)
        if param == "cpu_moe":
            plan.append((entry, entry.get("values", {}).get("all")))
            if layers:
                plan.append((layers, layers["values"]["all"]))
        elif param == "gpu_layers":
            share = offload["gpu_gb"] / max(1e-9, offload["gpu_gb"] + offload["host_gb"])
            part = (f"{math.floor(share * 100) / 100:g}" if entry.get("value") == "fraction"
                    else math.floor(share * model["layers"]))
            plan.append((entry, part))
            notes.append(f"About {share:.0%} of the weights fit on the GPU; the rest stays in host RAM.")
        else:
            plan.append((entry, math.ceil(offload["host_gb"] / max(1, gpus))))
    elif layers:
        plan.append((layers, layers["values"].get("all") if box.get("mode") != "cpu" else layers["values"].get("none", "0")))

    if speculative:
        entries, said = _speculation(catalog, engine_id, model, quant_id, flags, name)
        plan += entries
        notes += said

    port = _one(flags, "port")
    if port is None:
        return _refuse(f"The data has no port option for {name}.", template, name)
    plan.append((port, f"127.0.0.1:{port['default']}" if port.get("value") == "host-port" else port["default"]))
    for earlier in port.get("earlier_defaults", []):
        if earlier["default"] != port["default"]:
            notes.append(f"Port {port['default']} is {name}'s default in {template['version']}; earlier releases listened on "
                         f"{earlier['default']}, so the command names it.")
            break
    for entry in flags.get("fixed", []):
        if entry["flag"] not in [w for s in template["steps"] for w in s["program"]]:
            plan.append((entry, entry.get("values", {}).get("fixed")))

    order = {id(e): i for i, e in enumerate(template["flags"])}
    for entry, val in sorted(plan, key=lambda p: order[id(p[0])]):
        if val is None and entry["form"] != "switch":  # a template without the value this plan needs
            return _refuse(f"The data gives {name}'s {entry.get('flag') or entry['param']} no value for this plan.", template, name)
        cmd.add(entry, val)
    notes += [f"Before the command, in {path} set the model server container's command and args to: {line}"
              for path, line in cmd.in_files()]
    notes += [f"Then, from another terminal: {line}" for line in cmd.then()]
    return {"command": cmd.text(), "engine_version": template["version"], "engine_name": name, "notes": notes,
            "sources": cmd.sources()}


def spec_drafts(model, engine_id):
    """``[(method, draft repo or None)]`` the model data backs for ``engine_id``, best first: its own MTP layers
    (config.json's num_nextn_predict_layers, counted in ``params.mtp``), then each published EAGLE-3 draft the data
    names for this engine."""
    out = [("mtp", None)] if float((model.get("params") or {}).get("mtp") or 0) > 0 else []
    out += [(d["method"], d["repo"]) for d in model.get("drafts", []) if engine_id in d.get("engines", [])]
    return out


def _speculation(catalog, engine_id, model, quant_id, flags, name):
    """``(plan entries, notes)`` turning on speculative decoding with the first method both the model data and
    the engine's flags back; no entries and a note saying what is missing otherwise."""
    entry = _one(flags, "speculative")
    fact = ((catalog.engines[engine_id].get("features") or {}).get("speculative_decoding") or {}).get("value")
    if entry is None or fact == "no":
        return [], [f"Low latency was asked; the data has no speculative-decoding flag for {name}, so the command runs without it."]
    draft_entry = _one(flags, "draft_model")
    for method, draft in spec_drafts(model, engine_id):
        if method not in entry.get("values", {}) or (draft and entry.get("value") != "json" and draft_entry is None):
            continue
        if draft and draft.startswith("-"):  # a program would read it as one of its own flags
            continue
        if entry.get("value") == "json":
            body = {"method": entry["values"][method], **({"model": draft} if draft else {}), **(entry.get("settings") or {}).get(method, {})}
            out = [(entry, json.dumps(body, separators=(",", ":")))]
        else:
            out = [(entry, entry["values"][method])] + ([(draft_entry, draft)] if draft else [])
            out += [(e, e["values"][method]) for p in ("spec_steps", "spec_topk", "spec_draft_tokens")
                    for e in flags.get(p, [])[:1] if method in e.get("values", {})]
        if method == "mtp":
            extra = weight_bytes(catalog, model, quant_id, include_mtp=True)[0] - weight_bytes(catalog, model, quant_id)[0]
            said = (f"Speculative decoding drafts with {model['name']}'s own MTP layer, which loads about {extra / 1e9:,.1f} GB "
                    "more weights than the plan above counts; keep that headroom.")
        else:
            said = (f"Speculative decoding drafts with the published EAGLE-3 draft {draft}, a separate download whose weights "
                    "the plan above does not count.")
        return out, [said]
    return [], [f"Low latency was asked, but the data has no draft for {model['name']} with {name} (no MTP layers, no "
                f"published EAGLE-3 draft for {name}), so the command runs without speculative decoding."]


def read_command(catalog, engine_id, command):
    """The plan a command sets, read back through the template's flags (the inverse of :func:`launch_command`):
    ``{model, context, sequences, memory_fraction, kv_cache, gpus, tensor_parallel, replicas, dp_attention, port,
    speculative, draft}`` for what it names (``replicas``: the data-parallel copies of the tensor-parallel group, 1
    under data-parallel attention)."""
    template = resolved_template(catalog, engine_id)
    flags = flags_at(template)
    by_flag = {}
    for entry in template["flags"]:
        if entry.get("flag") and entry["form"] != "positional":
            for flag in [entry["flag"], *entry.get("also", [])]:
                by_flag[flag] = entry
    programs = {w for s in template["steps"] for w in s["program"]}
    words = shlex.split(command)
    seen = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word == "&&" or word in programs:
            i += 1
            continue
        name, eq, value = word.partition("=")
        if eq and name in by_flag and by_flag[name]["form"] == "env":
            seen[by_flag[name]["param"]] = value
        elif word in by_flag:
            entry = by_flag[word]
            if entry["form"] == "switch":
                seen[entry["param"]] = True
            else:
                seen[entry["param"]] = words[i + 1]
                i += 1
        elif eq and name.isupper():
            pass  # a setting another flag needs (its `with`)
        elif _one(flags, "model") and _one(flags, "model")["form"] == "positional" and "model" not in seen:
            seen["model"] = word
        else:
            raise ValueError(f"{word!r} is not a flag of the {engine_id} template")
        i += 1
    out = {"port": int(str(seen["port"]).rpartition(":")[2]) if "port" in seen else None, "model": seen.get("model")}
    sequences = int(seen["parallel"]) if "parallel" in seen else None
    ctx = _one(flags, "context")
    context = int(seen["context"]) if "context" in seen else None
    if context is not None and ctx.get("value") == "all-sequences":
        context //= sequences or 1
    out.update(context=context, sequences=sequences,
               memory_fraction=float(seen["memory_fraction"]) if "memory_fraction" in seen else None)
    kv_entry = _one(flags, "kv_cache")
    out["kv_cache"] = next((k for k, v in (kv_entry or {}).get("values", {}).items() if v == seen.get("kv_cache")), None)
    tp = int(seen.get("tensor_parallel", 1))
    dp = int(seen.get("data_parallel", 1))
    out["dp_attention"] = bool(seen.get("dp_attention") or (seen.get("expert_parallel") and dp > 1))
    recipe = template.get("dp_attention") or {}
    out["gpus"] = tp if out["dp_attention"] and recipe.get("tensor_parallel") == "gpus" else tp * dp
    out["tensor_parallel"], out["replicas"] = (tp, 1) if out["dp_attention"] else (tp, dp)
    out["speculative"], out["draft"] = None, seen.get("draft_model")
    spec = _one(flags, "speculative")
    if "speculative" in seen:
        said = seen["speculative"]
        if spec.get("value") == "json":
            body = json.loads(said)
            said, out["draft"] = body.get("method"), body.get("model")
        out["speculative"] = next((m for m, v in spec.get("values", {}).items() if v == said), None)
    return out


def _for_answers(catalog, result, engine_id):
    """The launch of one candidate when it carries no fit of its own: the plan ``fit --engine`` makes from the
    same answers (and the quantization the answer assumed)."""
    answers = result["answers"]
    quant = (result.get("assumed") or {}).get("quantization") or answers.get("quantization")
    if not answers.get("model"):
        return _refuse("Choose a model (and the GPU) to get a launch command.")
    if not (answers.get("gpu") or answers.get("gpu_memory_gb") or (answers.get("memory") in ("cpu", "unified") and answers.get("ram_gb"))):
        return _refuse("Give the GPU (or its memory) to get a launch command sized for it.")
    kw = fit_arguments(answers)
    kw.update(engine=engine_id, profile="local" if answers.get("scale") == "local" else "server")
    return launch_command(catalog, estimate(catalog, answers["model"], quant, **kw), engine_id,
                          speculative=answers.get("priority") == "latency")


def add_launches(catalog, result):
    """Each candidate of a recommend answer gains ``launch``, from its own ``fit`` where it has one."""
    fast = result["answers"].get("priority") == "latency"  # the answer weighs speculative decoding for it
    for cand in result["candidates"]:
        fit = cand.get("fit")
        cand["launch"] = (launch_command(catalog, fit, cand["engine"], speculative=fast) if fit
                          else _for_answers(catalog, result, cand["engine"]))
    return result


def setup_launch(catalog, engine_id, answers):
    """``(fit, launch)`` for the planner's answers with ``engine_id`` named: what ``fit --engine`` answers (an
    orchestration layer, which the planner does not take as an engine, gets the same estimate with it named).
    Raises :class:`selector.inputs.InputError` on answers the planner refuses."""
    ask = clean_answers(catalog, {k: v for k, v in answers.items() if k != "engine"}, page="fit")
    kw = fit_arguments(ask)
    kw["engine"] = engine_id
    fit = estimate(catalog, ask["model"], ask.get("quantization"), **kw)
    return fit, launch_command(catalog, fit, engine_id)
