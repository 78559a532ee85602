"""Will it fit? A capacity planner from the catalog's model, quantization, GPU and engine facts.

Weights are priced by tensor group (:mod:`selector.weights`): a quantization scheme converts only the
groups it names, the rest keep the checkpoint's stored precision.

The KV cache is priced per layer kind:
- full attention layers grow with the context: GQA/MHA ``2 x kv_heads x head_dim`` values per token,
  MLA ``kv_lora_rank + qk_rope_head_dim`` values per token (plus a sparse-attention indexer's keys);
- sliding-window and chunked layers stop growing at their window;
- linear-attention layers keep a constant state per sequence.

Memory is what the vendors sell: GPU, HBM, unified memory and RAM sizes are binary (an "80 GB" H100
has 80 GiB), so inputs in "GB" are read as GiB; checkpoint and weight sizes are decimal GB, as the
hubs list them. Keys ending in ``_gb`` are decimal GB; the ``memory`` block is in GiB.

The answer is a capacity, not a gate: "fits" means the weights, the runtime reserve and one sequence
of the asked context fit; then it says how many tokens of KV cache fit, how many sequences of that
context, and the longest context at the asked concurrency. Decode speed is an upper bound from memory
bandwidth: every generated token reads the active weights and the sequence's KV cache once.
"""

from .measured import rows_for
from .weights import weight_bytes

GIB = 2 ** 30
GB = 1e9
MODES = ("discrete", "unified", "cpu")


# -- per-token and per-sequence KV ------------------------------------------------------------------

def _layer_bytes(att, kv_bits):
    per_el = kv_bits / 8
    if kv_bits == 8 and att.get("fp8_bytes_per_token"):  # the model's own FP8 recipe (scales, parts kept in BF16)
        return att["fp8_bytes_per_token"]
    if att["type"] == "mla":
        return (att["kv_lora_rank"] + att["qk_rope_head_dim"]) * per_el
    return 2 * att["kv_heads"] * att["head_dim"] * per_el


def kv_shape(model, kv_bits=16):
    """``{"per_token", "windowed_per_token", "window", "per_sequence"}``: bytes per token of the layers that grow
    with the whole context, bytes per token of the windowed layers (up to ``window`` tokens), and constant bytes
    per sequence (linear-attention state)."""
    att = model["attention"]
    layers = model["layers"]
    kinds = att.get("layers") or {"full": layers}
    one = _layer_bytes(att, kv_bits)
    full = kinds.get("full", 0)
    windowed = kinds.get("sliding", 0) + kinds.get("chunked", 0)
    return {
        "per_token": full * (one + att.get("index_bytes_per_token", 0)),
        "windowed_per_token": windowed * one,
        "window": att.get("window", 0),
        "per_sequence": kinds.get("linear", 0) * att.get("linear_state_kib", 0) * 1024,
    }


def kv_bytes_per_token(model, kv_bits=16):
    """Bytes per token of cache while the context is shorter than every window."""
    shape = kv_shape(model, kv_bits)
    return shape["per_token"] + shape["windowed_per_token"]


def sequence_bytes(shape, context):
    return shape["per_token"] * context + shape["windowed_per_token"] * min(context, shape["window"]) + shape["per_sequence"]


def longest_context(shape, budget, limit):
    """The longest context (tokens) whose sequence fits in ``budget`` bytes, capped at ``limit``."""
    if budget < sequence_bytes(shape, 1):
        return 0
    if sequence_bytes(shape, limit) <= budget:
        return limit
    lo, hi = 1, limit
    while lo < hi:  # sequence_bytes is increasing: the largest context that fits
        mid = (lo + hi + 1) // 2
        if sequence_bytes(shape, mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def kv_shards(model, gpus, dp_attention=False):
    """How many ways the KV cache of one sequence splits over ``gpus`` under tensor parallelism.

    GQA/MHA split by KV head (heads are replicated once there are more GPUs than heads); an MLA latent is
    one vector per token, replicated on every GPU under tensor parallelism, unless attention runs data
    parallel, where each GPU keeps its own sequences (``dp_attention``)."""
    att = model["attention"]
    if dp_attention:
        return gpus
    if att["type"] == "mla":
        return 1
    return max(1, min(gpus, att["kv_heads"]))


def _layout_sizes(model, gpus):
    """Tensor-parallel group sizes worth trying when ``gpus`` exceed the KV heads (one group would replicate heads):
    powers of two up to the KV heads that divide the GPU count and the query and KV heads. MLA has its own layouts."""
    att = model["attention"]
    kv = att.get("kv_heads") or 0
    if att["type"] == "mla" or not kv or gpus <= kv:
        return []
    q = att.get("q_heads") or kv
    sizes, tp = [], 1
    while tp <= kv:
        if gpus % tp == 0 and kv % tp == 0 and q % tp == 0:
            sizes.append(tp)
        tp *= 2
    return sizes


# -- weights and speed ---------------------------------------------------------------------------------

def active_bytes(catalog, model, per_group, sequences=1):
    """Weight bytes one decode step reads for ``sequences`` sequences: every group but the embeddings (a
    lookup of one row each), and the share of routed experts that the tokens of the step touch."""
    read = {g: b for g, b in per_group.items() if g != "embeddings"}
    experts = model.get("experts")
    if experts and read.get("routed_experts"):
        share = experts["active"] / experts["routed"]
        touched = 1 - (1 - share) ** max(1, sequences)
        read["routed_experts"] *= touched
    return read


# -- the estimate ---------------------------------------------------------------------------------------------

FIT_ARGS = ("gpu", "gpus", "gpu_memory_gb", "bandwidth_gbs", "memory", "ram_gb", "ram_bandwidth_gbs", "context_tokens",
            "concurrency", "engine", "memory_fraction")
SWITCHES = ("dp_attention", "experts_on_host")


def fit_arguments(answers):
    """The keyword arguments of :func:`estimate` from cleaned answers."""
    args = {k: answers.get(k) for k in FIT_ARGS}
    args["kv_quantization"] = answers.get("kv_cache")
    for key in SWITCHES:
        args[key] = answers.get(key) == "yes"
    return args


def _fact(defaults, key):
    value = defaults[key]
    return value["value"] if isinstance(value, dict) else value


def machine(catalog, gpu=None, gpu_memory_gb=None, gpus=1, memory=None, ram_gb=None, bandwidth_gbs=None,
            ram_bandwidth_gbs=None):
    """The memory the answer plans with: mode, accelerator memory and bandwidth, host memory, as plain numbers."""
    defaults = catalog.questions["fit_defaults"]
    entry = catalog.gpus.get(gpu) if gpu else None
    mode = memory
    if entry is not None and mode is None:
        mode = {"unified": "unified", "host": "cpu"}.get(entry["memory_mode"], "discrete")
    mode = mode or ("cpu" if gpu_memory_gb is None and entry is None and ram_gb is not None else "discrete")
    out = {"mode": mode, "gpu": gpu, "gpu_name": entry["name"] if entry else None, "gpus": gpus,
           "gpu_gib": None, "bandwidth_gbs": None, "ram_gib": ram_gb, "ram_bandwidth_gbs": ram_bandwidth_gbs,
           "gpu_usable_fraction": None, "notes": []}
    size = entry["memory_gib"] if entry else gpu_memory_gb
    reported = (entry or {}).get("memory_reported")
    if reported and (memory or entry["memory_mode"]) not in ("unified", "host", "cpu"):
        size = reported["gib"]
        out["notes"].append(f"{entry['name']}: {entry['memory_gib']:g} GiB on the box, {size:g} GiB as the driver reports it "
                            "(the figure engines size from).")
    out["memory_reported_gib"] = size if reported else None
    out["bandwidth_gbs"] = entry["bandwidth_gbs"] if entry else bandwidth_gbs
    if mode == "discrete":
        out["gpu_gib"] = size
    elif mode == "unified":
        pool = size if size is not None else ram_gb
        share = (entry or {}).get("gpu_usable", {}).get("fraction") or _fact(defaults, "unified_gpu_fraction")
        out.update(pool_gib=pool, gpu_gib=pool * share if pool else None, gpu_usable_fraction=share, ram_gib=None, gpus=1)
        if pool:
            text = f"Unified memory is one pool of {pool:g} GiB, counted once"
            if ram_gb is not None and size is not None:
                text += f" (the host RAM given, {ram_gb:g} GiB, is the same memory, not extra)"
            out["notes"].append(text + f"; the GPU may use {share:.0%} of it by default ({pool * share:.1f} GiB), the rest stays "
                                       "with the system.")
    else:  # cpu
        pool = ram_gb if ram_gb is not None else size
        out.update(gpu_gib=None, ram_gib=pool, gpus=0,
                   ram_bandwidth_gbs=ram_bandwidth_gbs or (entry["bandwidth_gbs"] if entry else None))
    return out


def _engine_fraction(catalog, engine_id, mode, profile=None):
    """(fraction, of, reserve GiB, words) for the engine named, or for the profile (``server`` or ``local``)."""
    defaults = catalog.questions["fit_defaults"]
    engine = catalog.engines.get(engine_id) if engine_id else None
    frac = ((engine or {}).get("memory") or {}).get("fraction")
    server_reserve, local_reserve = _fact(defaults, "runtime_reserve_gib"), _fact(defaults, "local_reserve_gib")
    if frac:
        return (frac["value"], frac["of"], server_reserve,
                f"{engine['name']}'s {frac['option']} default ({frac['value']:g} of {frac['of'].replace('-', ' ')} memory)")
    if engine is not None and engine["tier"] in ("L1", "L1.5"):
        profile = "local"
    if profile == "local" or mode != "discrete":
        who = f"{engine['name']} allocates" if engine else "desktop runtimes allocate"
        return 1.0, "total", local_reserve, f"all of it ({who} the KV cache for the context asked)"
    value = _fact(defaults, "gpu_fraction")
    who = f"{engine['name']} documents no memory share, so" if engine else "no engine named, so"
    return value, "total", server_reserve, f"{who} a {value:g} share, vLLM's default"


# -- engine memory profiles ------------------------------------------------------------------------------
# One formula for every engine; the parameters are the ``memory.profile`` block of the engine's data file.
# Per GPU: memory M (as the driver reports it), weights W, reserve R (the profile's terms), share f:
#   sizing "fraction", of "total":              KV = f x M - W - R             (vLLM, SGLang)
#   sizing "fraction", of "free-after-weights": KV = f x (M - W - R)           (TensorRT-LLM, LMDeploy)
#   sizing "context":                           KV = n_ctx x slots, fits if W + KV + R <= M (llama.cpp family)

def engine_profile(catalog, engine_id):
    """``(engine id whose profile answers, its entry, the profile, the engine asked when it hands over)``.
    Orchestration layers and desktop apps name a ``backend`` engine whose profile answers for them."""
    engine = catalog.engines.get(engine_id) if engine_id else None
    prof = ((engine or {}).get("memory") or {}).get("profile")
    via, seen = None, set()
    while prof and prof.get("backend") and engine_id not in seen:
        seen.add(engine_id)
        via = via or engine_id
        engine_id = prof["backend"]["engine"]
        engine = catalog.engines.get(engine_id)
        prof = ((engine or {}).get("memory") or {}).get("profile")
    return engine_id, engine, prof, via


def engine_kv_default(catalog, engine_id, quant_id, model_id=None, hardware=None):
    """``(KV quantization id, note)`` the engine picks itself for these weights (and this model and hardware, where
    the rule names them) when no KV precision is asked."""
    _, engine, prof, _ = engine_profile(catalog, engine_id)
    for rule in (prof or {}).get("kv_default", ()):
        if rule["quantization"] == quant_id and model_id in rule.get("models", [model_id]) \
                and hardware in rule.get("hardware", [hardware]):
            return rule["kv"], f"{engine['name']} keeps the checkpoint's KV precision by default: {rule.get('note', rule['kv'])}."
    return None, None


def _tier(tiers, gib, gpu=None):
    for tier in tiers:
        if tier.get("below_gib") is None or gib is None or gib < tier["below_gib"] or gpu in tier.get("gpus", ()):
            return tier
    return tiers[-1]


def auto_fraction(rule, device_gib, gpus, dp_attention=False):
    """The share an engine picks itself from the GPU's memory (SGLang's mem_fraction_static rule)."""
    tier = _tier(rule["tiers"], device_gib)
    graph = tier.get("graph_batch_tp4", tier["graph_batch"]) if gpus >= 4 else tier["graph_batch"]
    mib = rule["base_mib"] + max(tier["batched_tokens"], rule.get("min_batched_tokens", 0)) * rule.get("per_batched_token_mib", 0)
    mib += graph * rule.get("per_graph_batch_mib", 0) + gpus * rule.get("per_rank_mib", 0)
    if dp_attention:
        mib += graph * gpus * rule.get("dp_attention_per_graph_batch_mib", 0)
        if graph > rule.get("dp_attention_large_graph_batch", graph):
            mib += graph * gpus * rule.get("dp_attention_large_graph_mib", 0)
    if rule.get("floor_above_gib") is not None and device_gib > rule["floor_above_gib"]:
        mib = max(mib, rule.get("floor_mib", 0))
    total = device_gib * 1024
    return round((total - mib) / total, 3), mib / 1024, tier["batched_tokens"]


def model_dims(model):
    """``(hidden size, vocabulary)`` from the parameter groups: GQA/MHA attention holds hidden x head_dim x
    (2 query + 2 KV heads) per layer, the embeddings vocabulary x hidden. None when the layout does not say."""
    att = model["attention"]
    attention = model["params"].get("attention", 0) * 1e9
    if att["type"] == "mla" or not attention or not att.get("q_heads"):
        return None, None
    hidden = attention / (model["layers"] * att["head_dim"] * 2 * (att["q_heads"] + att["kv_heads"]))
    hidden = round(hidden / 32) * 32 or hidden  # hidden sizes are multiples of 32; the groups are rounded to 0.1M
    vocab = model["params"].get("embeddings", 0) * 1e9 / hidden if hidden else None
    return round(hidden), round(vocab) if vocab else None


def mlp_width(model):
    """MLP width a token passes through (dense intermediate size, or the active experts' together), from the parameter
    groups: a SwiGLU MLP holds 3 x hidden x width per layer."""
    hidden = model_dims(model)[0]
    if not hidden:
        return 0
    params = model["params"]
    active = params.get("dense_mlp", 0) + params.get("shared_experts", 0)
    experts = model.get("experts") or {}
    if experts.get("routed"):
        active += params.get("routed_experts", 0) * experts["active"] / experts["routed"]
    return active * 1e9 / (3 * hidden * model["layers"])


def default_context(catalog, engine_id, device_gib, model):
    """The context an engine opens with when none is asked: its profile's default for this much memory (Ollama),
    capped at the model's; else the model's own (vLLM and SGLang take config.json's max_position_embeddings)."""
    _, _, prof, _ = engine_profile(catalog, engine_id)
    tiers = ((prof or {}).get("context") or {}).get("tiers")
    if tiers:
        return min(_tier(tiers, device_gib)["tokens"], model["context_tokens"])
    return model.get("config_context_tokens") or model["context_tokens"]


def memory_plan(catalog, engine_id, mode, profile=None, device_gib=None, gpus=1, context=0, memory_fraction=None,
                dp_attention=False, model=None, batched_tokens=None, gpu=None, max_seqs=None):
    """How the engine sizes memory for this setup: share, what it holds besides weights and KV, and how it counts."""
    defaults = catalog.questions["fit_defaults"]
    answer_id, engine, prof, via = engine_profile(catalog, engine_id)
    plan = {"engine": answer_id if prof else engine_id, "via": via, "sizing": "fraction", "fraction_from": "default",
            "terms": [], "block_tokens": None, "windowed_as_full": False, "kv_label": None, "batched_tokens": None,
            "max_seqs": None, "dp_attention": bool(dp_attention)}
    if not prof:  # no profile: the site's generic planning figures (the selector's ranking uses these)
        fraction, of, reserve, text = _engine_fraction(catalog, engine_id, mode, profile)
        if memory_fraction is not None:
            fraction, text = memory_fraction, f"a {memory_fraction:g} share as asked"
            plan["fraction_from"] = "given"
        plan.update(fraction=fraction, of=of, reserve_gib=reserve, text=text, sizing="fraction" if fraction < 1 else "context",
                    terms=[{"name": "runtime reserve (site planning figure)", "gib": reserve}])
        return plan
    name = engine["name"]
    frac = (engine.get("memory") or {}).get("fraction")
    plan.update(kv_label=prof.get("kv_label"), sizing=prof.get("sizing", "fraction"),
                block_tokens=(prof.get("block_tokens") or {}).get("value"),
                windowed_as_full=bool((prof.get("windowed_as_full") or {}).get("value")))
    for key in ("batched_tokens", "max_seqs"):
        fact = prof.get(key)
        plan[key] = (_tier(fact["tiers"], device_gib, gpu)["tokens"] if fact.get("tiers") else fact["value"]) if fact else None
    if batched_tokens:
        plan["batched_tokens"] = batched_tokens
    if max_seqs:
        plan["max_seqs"] = max_seqs
    if plan["sizing"] == "context" or not frac:
        plan.update(fraction=1.0, of="total", sizing="context")
        text = f"all of it ({name} allocates the KV cache for the context asked, with no memory share)"
    else:
        plan.update(fraction=frac["value"], of=frac["of"])
        text = f"{name}'s {frac['option']} default ({frac['value']:g} of {frac['of'].replace('-', ' ')} memory)"
        rule = prof.get("auto_fraction")
        if rule and device_gib and memory_fraction is None:
            share, reserve_gib, tokens = auto_fraction(rule, device_gib, gpus, dp_attention)
            plan.update(fraction=share, fraction_from="auto", batched_tokens=batched_tokens or tokens)
            text = (f"{name} picks {frac['option']} {share:g} itself for {device_gib:g} GiB per GPU "
                    f"({reserve_gib:.1f} GiB kept for activations and CUDA graphs)")
    if memory_fraction is not None and plan["sizing"] == "fraction":
        plan.update(fraction=memory_fraction, fraction_from="given")
        text = f"{name}'s {frac['option']} {memory_fraction:g} as asked (of {frac['of'].replace('-', ' ')} memory)"
    if "terms" in prof:
        tokens = plan["batched_tokens"] or 0
        vocab = ((model or {}).get("vocab_size") or (model_dims(model)[1] if model else None)) or 0
        for term in prof["terms"]:
            when = term.get("when", "always")
            if when == "tensor-parallel" and gpus < 2 or when == "dp-attention" and not dp_attention:
                continue
            if gpus < term.get("min_gpus", 1) or "gpus" in term and gpu not in term["gpus"]:
                continue
            gib = term["gib"] + term.get("per_1k_batched_tokens_gib", 0) * tokens / 1000 + term.get("per_1k_context_gib", 0) * context / 1000
            gib += term.get("per_gpu_gib", 0) * gpus
            gib += term.get("bytes_per_seq_vocab", 0) * (plan["max_seqs"] or 0) * vocab / GIB
            gib += term.get("bytes_per_batched_token_mlp", 0) * tokens * (mlp_width(model) if model else 0) / GIB
            plan["terms"].append({"name": term["name"], "gib": round(gib, 3), "counted": term.get("counted", True),
                                  "peak": bool(term.get("peak"))})
        peaks = [t for t in plan["terms"] if t["peak"]]
        for t in peaks:  # one after another in the profiling run: only the largest is held at once
            t["counted"] = t["counted"] and t is max(peaks, key=lambda x: x["gib"])
    else:
        key = "local_reserve_gib" if plan["sizing"] == "context" else "runtime_reserve_gib"
        plan["terms"].append({"name": "runtime reserve (site planning figure)", "gib": _fact(defaults, key), "counted": True})
    plan["reserve_gib"] = round(sum(t["gib"] for t in plan["terms"] if t.get("counted", True)), 3)
    plan["text"] = text + (f" (the profile of {name}, which {catalog.engines[via]['name']} runs)" if via else "")
    return plan


def estimate(catalog, model_id, quantization=None, gpus=1, gpu_memory_gb=None, ram_gb=None, context_tokens=None,
             concurrency=None, kv_quantization=None, gpu=None, memory=None, engine=None, bandwidth_gbs=None,
             ram_bandwidth_gbs=None, dp_attention=False, with_table=False, profile=None, memory_fraction=None,
             batched_tokens=None, max_seqs=None, experts_on_host=False, typical=True, tensor_parallel=None, kv_chosen=False):
    """The fit answer as a dict; ids must already be valid (see :func:`selector.inputs.clean_answers`).
    ``experts_on_host``: the routed experts live in host RAM and run on the CPU whatever fits (KTransformers' rule).
    ``tensor_parallel``: the size of each tensor-parallel group (the GPUs form ``gpus // tensor_parallel`` replicas);
    unset, the planner picks it (:func:`_layout_sizes`).
    ``kv_chosen``: ``kv_quantization`` is the planner's pick for the reader, not the reader's answer."""
    args = dict(locals())
    defaults = catalog.questions["fit_defaults"]
    model = catalog.models[model_id]
    quant_id = quantization or model["native_precision"]
    quant = catalog.quantization[quant_id]
    context = min(context_tokens or defaults["context_tokens"], 10**8)
    sequences = concurrency or defaults["concurrency"]
    kv_from = ("chosen" if kv_chosen else "asked") if kv_quantization else "16-bit"
    kv_note = None
    if not kv_quantization:
        hardware = (catalog.gpus.get(gpu) or {}).get("hardware") if gpu else None
        kv_quantization, kv_note = engine_kv_default(catalog, engine, quant_id, model_id, hardware)
        kv_from = "engine default" if kv_quantization else kv_from
    kv_bits = catalog.quantization[kv_quantization]["bits_per_weight"] if kv_quantization else 16
    box = machine(catalog, gpu, gpu_memory_gb, gpus or 1, memory, ram_gb, bandwidth_gbs, ram_bandwidth_gbs)
    mode = box["mode"]
    g = box["gpus"] if mode != "cpu" else 1
    notes = list(box["notes"]) + ([kv_note] if kv_note else [])
    g_all, layout_note = g, None
    sizes = _layout_sizes(model, g) if mode == "discrete" and not dp_attention and tensor_parallel is None else []
    if sizes and not box["gpu_gib"]:  # memory unknown: the largest group that keeps the KV heads apart needs the least per GPU
        tensor_parallel = sizes[-1]
        layout_note = (f"{g // sizes[-1]} copies of a tensor-parallel group of {sizes[-1]} GPUs, as many as the "
                       f"{model['attention']['kv_heads']} KV heads: one group of {g} would replicate them.")
    elif sizes:
        best = None
        for tp in sizes:  # ascending: the smallest group that carries the load (fewest GPUs per all-reduce), else the most held
            r = g // tp
            est = estimate(**{**args, "gpus": tp, "tensor_parallel": tp, "concurrency": -(-sequences // r), "typical": False,
                              "with_table": False})
            held = est["capacity"]["max_sequences"] * r if est["fits"] and est["capacity"] else -1
            if held >= 0 and (best is None or held > best[1]):
                best = (tp, held)
            if held >= sequences:
                break
        kv_heads = model["attention"]["kv_heads"]
        if best:
            tensor_parallel = best[0]
            each = "on one GPU each" if best[0] == 1 else f"each a tensor-parallel group of {best[0]} GPUs"
            layout_note = (f"Tensor parallelism over all {g} GPUs would replicate the {kv_heads} KV heads ({g} GPUs for {kv_heads} "
                           f"heads); {g // best[0]} copies of the model, {each}, hold each KV head once per copy: "
                           + ("the smallest group that holds the asked load." if best[1] >= sequences else
                              f"the group size that holds the most sequences ({', '.join(str(t) for t in sizes)} tried)."))
        else:
            layout_note = (f"No tensor-parallel group of at most {kv_heads} GPUs holds the weights and one sequence, so all {g} GPUs "
                           f"form one group and each of the {kv_heads} KV heads is replicated on several GPUs.")
    replicas = 1
    if tensor_parallel and mode == "discrete" and 0 < tensor_parallel < g:
        replicas, g = g // tensor_parallel, tensor_parallel
    rbox = dict(box, gpus=g)  # what one replica sees
    per_replica = -(-sequences // replicas)

    loads = _loads_as(catalog, engine, quant_id, gpu)
    total_w, per_group = weight_bytes(catalog, model, loads or quant_id)
    if loads:
        notes.append(f"{catalog.engines[engine]['name']} unpacks {quant['name']} to {catalog.quantization[loads]['name']} when it "
                     f"loads the model: the weights take {total_w / 1e9:.2f} GB in memory.")
    repacked = _repack(catalog, engine, model, quant_id, per_group)
    if repacked:
        total_w = sum(per_group.values())
    shape = kv_shape(model, kv_bits)
    one_seq = sequence_bytes(shape, context)
    want_kv = one_seq * sequences
    plan = memory_plan(catalog, engine, mode, profile, box["gpu_gib"] if mode != "cpu" else box["ram_gib"], g, context,
                       memory_fraction, dp_attention and g > 1, model, batched_tokens, gpu, max_seqs)
    fraction, of, fraction_text = plan["fraction"], plan["of"], plan["text"]
    reserve = plan["reserve_gib"] * GIB
    shards = kv_shards(model, g, dp_attention) if mode != "cpu" else 1
    if plan["sizing"] == "context" and plan["windowed_as_full"] and shape["windowed_per_token"]:
        # the engine allocates every layer for the whole context, windowed layers too
        one_seq = (shape["per_token"] + shape["windowed_per_token"]) * context + shape["per_sequence"]
        want_kv = one_seq * sequences
        notes.append(f"{catalog.engines[plan['engine']]['name']} allocates the sliding-window layers for the whole context too: "
                     f"{one_seq / GIB:.2f} GiB per sequence.")

    # memory of one device (GPU, GPU-usable share of a unified pool, or the host's RAM for CPU-only)
    if mode == "cpu":
        device = (box["ram_gib"] - _fact(defaults, "host_reserve_gib")) * GIB if box["ram_gib"] else None
    else:
        device = box["gpu_gib"] * GIB if box["gpu_gib"] else None
    # weights per GPU: split evenly, but with data-parallel attention every GPU keeps its own attention weights
    replicated = per_group.get("attention", 0) if dp_attention and g > 1 else 0
    host_experts = per_group.get("routed_experts", 0) if experts_on_host and model.get("experts") and mode == "discrete" else 0
    w_dev = (total_w - replicated - host_experts) / g + replicated

    def budget_for(weights_on_device):
        if device is None:
            return None
        if of == "total":
            return fraction * device - weights_on_device - reserve
        return fraction * max(0.0, device - weights_on_device - reserve)

    budget = budget_for(w_dev)
    # one sequence must fit: split over the GPUs under tensor parallelism, whole on one GPU under data-parallel attention
    seq_shards = 1 if dp_attention and g > 1 else shards
    fits = budget is not None and budget >= one_seq / seq_shards
    capacity = _capacity(shape, budget, shards, context, per_replica, model["context_tokens"], seq_shards) if budget is not None else None
    if capacity is not None:
        _engine_count(capacity, plan, shape, budget, shards, context, per_replica, fits)
        if replicas > 1:  # every replica holds its own cache: capacity adds up, the longest context is one replica's
            capacity["per_replica"] = {k: capacity[k] for k in ("kv_tokens", "max_sequences", "kv_budget_gib")}
            for key in ("kv_tokens", "kv_tokens_memory", "max_sequences"):
                capacity[key] *= replicas
            capacity["kv_budget_gib"] = round(capacity["kv_budget_gib"] * replicas, 2)

    offload = None
    if host_experts:
        offload = _experts_on_host(catalog, box, total_w, host_experts, fits, notes)
        fits = fits and offload["fits"] is not False
    elif device is not None and not fits and mode == "discrete":
        offload = _offload(catalog, model, per_group, shape, rbox, fraction, of, reserve, shards, context, sequences, engine)
        notes.extend(offload.pop("notes"))
        if offload["fits"]:
            capacity = offload.pop("capacity")
        else:
            offload.pop("capacity")
    fits_with_offload = bool(fits or (offload and offload["fits"]))

    if fits or (offload and offload["fits"]):
        speed = _speed(catalog, model, per_group, shape, rbox, context, per_replica, offload if not fits or host_experts else None,
                       shards if mode != "cpu" else 1, bool(dp_attention and g > 1))
        if replicas > 1 and speed["decode_tokens_per_s"]:
            speed["aggregate_tokens_per_s"] = round(speed["decode_tokens_per_s"] * sequences, 1)
            speed["basis"] += f"; each of the {replicas} replicas serves its own {per_replica} sequence(s)"
        if typical and speed["decode_tokens_per_s"]:
            speed["typical"] = typical_speed(catalog, plan["engine"] or engine, g, speed["decode_tokens_per_s"],
                                             model.get("architecture"))
            speed["measured"] = measured_check(catalog, model_id, gpu, g, speed["decode_tokens_per_s"])
            for key in ("communication", "typical", "measured"):
                if speed.get(key) and (key != "measured" or speed[key]["above_every_measured"]):
                    notes.append(speed[key]["text"])
    else:
        speed = dict(NO_SPEED)

    # notes: the arithmetic, in words
    groups = ", ".join(f"{k.replace('_', ' ')} {v / GB:.2f}" for k, v in per_group.items() if v)
    notes.insert(0, f"Weights in {quant['name']}: {total_w / GB:.2f} GB ({groups} GB); groups a scheme does not convert "
                    "keep the checkpoint's precision." + (" Every expert counts, not only the active ones." if model["architecture"] == "moe" else ""))
    if repacked:
        notes.insert(1, f"{catalog.engines[plan['engine']]['name']} stores the weights larger than the checkpoint: "
                        + "; ".join(repacked) + ".")
    kv_name = catalog.quantization[kv_quantization]["name"] if kv_quantization else "16-bit KV cache"
    kv_text = f"KV cache ({kv_name}): {shape['per_token'] / 1024:.1f} KiB per token for the layers that grow with the context"
    if shape["windowed_per_token"]:
        kv_text += f", plus {shape['windowed_per_token'] / 1024:.1f} KiB per token up to the {shape['window']}-token window"
    if shape["per_sequence"]:
        kv_text += f", plus {shape['per_sequence'] / GIB:.3f} GiB of linear-attention state per sequence"
    notes.insert(1, kv_text + f"; one sequence of {context} tokens holds {one_seq / GIB:.2f} GiB.")
    if model["attention"]["type"] == "mla" and g > 1 and mode != "cpu":
        notes.append("MLA under tensor parallelism keeps the whole latent cache on every GPU; with data-parallel attention "
                     f"(SGLang --enable-dp-attention) each GPU keeps its own sequences, so about {g}x the sequences fit.")
    elif replicas > 1:
        each = ("on one GPU" if g == 1 else f"a tensor-parallel group of {g} GPUs that splits the weights and the "
                f"{model['attention']['kv_heads']} KV heads {shards}-way")
        notes.append(f"{replicas} copies of the model, each {each}; a load balancer spreads the {sequences} sequences over "
                     f"them ({per_replica} each) and the capacity is the sum of the copies.")
    elif g > 1 and mode != "cpu":
        notes.append(f"Tensor parallelism over {g} GPUs splits the weights and the KV heads ({shards}-way) between them.")
    if layout_note:
        notes.append(layout_note)
    if quant_id != model["native_precision"] and quant["bits_per_weight"] < catalog.quantization[model["native_precision"]]["bits_per_weight"]:
        notes.append(f"The model ships in {catalog.quantization[model['native_precision']]['name']}; {quant['name']} needs a "
                     "quantized checkpoint or on-the-fly quantization.")
    if device is None:
        notes.append("Give the GPU (or its memory) to compare the estimate with your hardware.")
    else:
        held = "; ".join(f"{t['name']} {t['gib']:.2f} GiB" + ("" if t.get("counted", True) else " (allocated after the KV cache)")
                         for t in plan["terms"])
        notes.append(f"Memory per {'GPU' if mode == 'discrete' else 'machine' if mode == 'cpu' else 'GPU share'}: {fraction_text}, "
                     f"less {reserve / GIB:.2f} GiB the engine holds besides weights and KV cache ({held}) and the weights; the rest "
                     "holds KV cache.")
        if replicated:
            notes.append(f"Data-parallel attention: every GPU keeps all {replicated / GB:.2f} GB of attention weights and its own "
                         "sequences' cache.")
        if capacity and capacity.get("kv_count_note"):
            notes.append(capacity["kv_count_note"])
        if fits and capacity:
            met = capacity["max_sequences"] >= sequences
            notes.append(f"Fits: {capacity['kv_tokens']:,} tokens of KV cache, {capacity['max_sequences']:,} sequences of {context} tokens; "
                         + ("the asked concurrency fits." if met else
                            f"{sequences} at once do not: at {sequences} sequences the longest context is {capacity['max_context_tokens']:,} tokens."))

    used = total_w * replicas + want_kv + reserve * max(1, g_all)
    available = None
    if mode == "cpu" and box["ram_gib"]:
        available = box["ram_gib"] * GIB
    elif box["gpu_gib"]:
        available = box["gpu_gib"] * GIB * g_all
    out = {
        "model": model_id,
        "quantization": quant_id,
        "kv_cache": kv_quantization,
        "context_tokens": context,
        "concurrency": sequences,
        "weights_gb": round(total_w / GB, 2),
        "kv_cache_gb": round(want_kv / GB, 2),
        "overhead_gb": round(reserve * max(1, g_all) / GB, 2),
        "weights_gib": round(total_w / GIB, 2),
        "kv_cache_gib": round(want_kv / GIB, 2),
        "overhead_gib": round(reserve * max(1, g_all) / GIB, 2),
        "required_gb": round(used / GB, 2),
        "available_gb": round(available / GB, 2) if available else None,
        "fits_gpu": bool(fits and mode != "cpu"),
        "fits": bool(fits),
        "fits_with_offload": fits_with_offload,
        "concurrency_met": bool(capacity and capacity["max_sequences"] >= sequences),
        "offload": offload,
        "kv_bytes_per_token": round(kv_bytes_per_token(model, kv_bits)),
        "capacity": capacity,
        "layout": {"tensor_parallel": g, "replicas": replicas} if mode != "cpu" else None,
        "speed": speed,
        "memory": _memory_block(box, w_dev if fits or not offload else offload["gpu_gb"] * GB / g, reserve,
                                (min(budget, want_kv / shards) if plan["sizing"] == "context" else budget) if fits else None,
                                one_seq, shards, capacity, offload),
        "machine": {k: box[k] for k in ("mode", "gpu", "gpu_name", "gpus", "gpu_gib", "bandwidth_gbs", "ram_gib", "ram_bandwidth_gbs",
                                        "gpu_usable_fraction")},
        "assumptions": {"gpu_fraction": fraction, "fraction_of": of, "runtime_reserve_gib": round(reserve / GIB, 3),
                        "host_reserve_gib": _fact(defaults, "host_reserve_gib"), "engine": engine,
                        "engine_profile": plan["engine"], "engine_via": plan["via"], "memory_fraction": fraction,
                        "fraction_from": plan["fraction_from"], "sizing": plan["sizing"], "reserve_terms": plan["terms"],
                        "batched_tokens": plan["batched_tokens"], "kv_cache_from": kv_from, "device_gib": box["gpu_gib"] if mode != "cpu" else box["ram_gib"],
                        "memory_reported_gib": box.get("memory_reported_gib"), "dp_attention": bool(dp_attention and g > 1)},
        "notes": notes,
    }
    out["measured"] = rows_for(catalog, engine=engine, gpu=gpu, model=model_id, weights=quant_id, gpus=g_all, concurrency=sequences,
                               hardware=(catalog.gpus.get(gpu) or {}).get("hardware") if gpu else None) if gpu else []
    out["verdict"], out["headline"] = headline(out)
    if with_table:
        out["table"] = fit_table(catalog, model_id, keep=(quant_id,), gpus=gpus, gpu_memory_gb=gpu_memory_gb, ram_gb=ram_gb, context_tokens=context,
                                 concurrency=sequences, gpu=gpu, memory=memory, engine=engine, bandwidth_gbs=bandwidth_gbs,
                                 ram_bandwidth_gbs=ram_bandwidth_gbs, profile=profile, memory_fraction=memory_fraction,
                                 dp_attention=dp_attention)
    return out


def _int(n):
    return "–" if n is None else f"{n:,}"


def headline(fit):
    """``(verdict, sentence)``: gpu, offload, needs-ram or no, and the answer in one line."""
    cap, m, off = fit["capacity"] or {}, fit["machine"], fit.get("offload") or {}
    where = ("this machine's RAM" if m["mode"] == "cpu" else f"{m['gpus']} × {m['gpu_name']}" if m["gpu_name"]
             else f"{m['gpus'] or 1} GPU(s) of {m['gpu_gib']:g} GiB" if m["gpu_gib"] else "the memory given")
    lay = fit.get("layout") or {}
    if lay.get("replicas", 1) > 1:
        tp = lay["tensor_parallel"]
        where += (f" as {lay['replicas']} copies on one GPU each" if tp == 1 else
                  f" as {lay['replicas']} copies of {tp} × {m['gpu_name'] or 'GPU'} (tensor parallel {tp})")
    n = cap.get("max_sequences")
    seqs = f"{_int(n)} sequence{'' if n == 1 else 's'} of {_int(fit['context_tokens'])} tokens"
    if fit["fits"]:
        text = f"Fits on {where}: {seqs} at once ({_int(cap.get('kv_tokens'))} tokens of KV cache)."
        if not fit["concurrency_met"]:
            text += (f" {fit['concurrency']} at once do not fit: at {fit['concurrency']} the longest context is "
                     f"{_int(cap.get('max_context_tokens'))} tokens.")
        if off.get("chosen"):
            text += (f" The routed experts stay in host RAM ({off['host_gib']:.1f} GiB"
                     + ("; give the host RAM to check it holds them)." if off["fits"] is None else ")."))
        return "gpu", text
    part = "the routed experts" if off.get("method") == "experts" else "some layers"
    if fit["fits_with_offload"]:
        return "offload", f"Does not fit {where} alone; fits with {part} in host RAM ({off['host_gib']:.1f} GiB there): {seqs}."
    if off and fit["machine"]["ram_gib"] is None and off.get("ram_needed_gib") is not None:
        return "needs-ram", (f"Does not fit {where} alone; with {part} in host RAM it would, given at least "
                             f"{off['ram_needed_gib']:g} GiB of host RAM (enter it to check).")
    if off and fit["machine"]["ram_gib"] is not None:
        return "no", f"Does not fit {where}, even with offload to the {fit['machine']['ram_gib']:g} GiB of host RAM given."
    return "no", f"Does not fit {where}."
def _loads_as(catalog, engine_id, quant_id, gpu):
    """The precision an engine holds these weights in after loading, when its data says it unpacks them."""
    hardware = (catalog.gpus.get(gpu) or {}).get("hardware") if gpu else None
    for row in (catalog.engines.get(engine_id) or {}).get("quantization", []) if engine_id else []:
        if row["id"] == quant_id and row.get("loads_as") and (hardware is None or hardware in row["hardware"]):
            return row["loads_as"]
    return None


def _repack(catalog, engine_id, model, quant_id, per_group):
    """Groups the engine stores larger than the checkpoint (padded to a multiple of the hidden size); changes
    ``per_group`` in place and returns the notes."""
    _, _, prof, _ = engine_profile(catalog, engine_id)
    hidden = model_dims(model)[0]
    notes = []
    for rule in (prof or {}).get("repack", []):
        if rule["quantization"] != quant_id or not hidden or not per_group.get(rule["group"]):
            continue
        padded = -(-hidden // rule["align"]) * rule["align"]
        if padded != hidden:
            per_group[rule["group"]] *= padded / hidden
            notes.append(f"{rule['group'].replace('_', ' ')} padded from hidden size {hidden:,} to {padded:,}")
    return notes


def _engine_count(capacity, plan, shape, budget, shards, context, sequences, fits):
    """``capacity["kv_tokens"]`` becomes the count the engine prints; the memory truth stays in ``kv_tokens_memory``."""
    truth = capacity["kv_tokens"]
    capacity["kv_tokens_memory"] = truth
    capacity["kv_label"] = plan.get("kv_label")
    capacity["kv_count_note"] = None
    if plan["sizing"] == "context" and plan.get("kv_label"):
        cells = context * sequences if fits else 0
        capacity["kv_tokens"] = cells
        capacity["kv_count_note"] = (f"The engine allocates the cache for the context asked: {cells:,} cells ({context:,} tokens x "
                                     f"{sequences} sequence(s)); the memory left would hold {truth:,} tokens.")
        return
    per_token = shape["per_token"] + shape["windowed_per_token"]
    usable = max(0.0, budget) if budget is not None else 0.0
    if plan.get("windowed_as_full") and shape["windowed_per_token"] and per_token:
        count = int(usable * shards // per_token)
        why = ("counts sliding-window layers as full attention, so it prints fewer tokens than the memory holds "
               f"(each windowed layer keeps at most {shape['window']:,} tokens)")
    else:
        count, why = truth, None
    if plan.get("dp_attention") and shards > 1 and plan.get("kv_label"):
        count //= shards  # each data-parallel rank has its own pool and prints its own count
        why = why or f"has one pool per data-parallel rank and prints the count of one of the {shards}"
    block = plan.get("block_tokens")
    if block:
        count = int(count // block) * block
    capacity["kv_tokens"] = count
    if why and count != truth:
        capacity["kv_count_note"] = (f"{plan.get('kv_label') or 'The engine count'}: {count:,} tokens; the engine {why}; by memory "
                                     f"{truth:,} tokens of {context:,}-token sequences fit.")


def _capacity(shape, budget, shards, context, sequences, model_limit, seq_shards=None):
    if budget is None:
        return None
    usable = max(0.0, budget) * shards
    seq = sequence_bytes(shape, context)
    max_seq = int(usable // seq) if seq else 0
    # the longest context at this concurrency; under data-parallel attention a sequence cannot span GPUs
    per_seq_budget = min(usable / max(1, sequences), max(0.0, budget) * (shards if seq_shards is None else seq_shards))
    return {
        "kv_tokens": int(usable * context // seq) if seq else 0,
        "max_sequences": max_seq,
        "max_context_tokens": longest_context(shape, per_seq_budget, model_limit),
        "kv_budget_gib": round(usable / GIB, 2),
    }


def _offload(catalog, model, per_group, shape, box, fraction, of, reserve, shards, context, sequences, engine_id):
    """Weights that do not fit stay in host RAM; the KV cache always stays on the GPU."""
    defaults = catalog.questions["fit_defaults"]
    g = box["gpus"]
    device = box["gpu_gib"] * GIB
    one_seq = sequence_bytes(shape, context)
    total = sum(per_group.values())
    engine = catalog.engines.get(engine_id) if engine_id else None
    methods = set(((engine or {}).get("features", {}).get("cpu_offload") or {}).get("methods", []))
    experts = per_group.get("routed_experts", 0)
    if model.get("experts") and experts and (not engine or "experts" in methods):
        method = "experts"
        host = experts
        gpu_part = total - experts
        how = "routed experts in host RAM and computed on the CPU; attention, shared and dense layers on the GPU"
    else:
        method = "layers" if not engine or "layers" in methods or not methods else sorted(methods)[0]
        # the most weights a GPU can keep and still hold one sequence's KV cache under the engine's share
        # (one byte of slack so the budget below is not a hair short through rounding)
        if of == "total":
            room = fraction * device - reserve - one_seq / shards - 1
        else:  # a share of what is free after the weights: the free part must be one sequence / fraction
            room = device - reserve - one_seq / shards / fraction - 1
        gpu_part = min(total, max(0.0, room) * g)
        host = total - gpu_part
        how = ("the layers that do not fit stay in host RAM" +
               (" and are copied to the GPU for each step" if method == "weights-streaming" else ", computed on the CPU"))
    host_reserve = _fact(defaults, "host_reserve_gib") * GIB
    w_dev = gpu_part / g
    budget = (fraction * device - w_dev - reserve) if of == "total" else fraction * max(0.0, device - w_dev - reserve)
    gpu_ok = budget >= one_seq / shards
    ram = box["ram_gib"] * GIB if box["ram_gib"] else None
    host_need = host
    host_ok = ram is not None and host_need <= ram - host_reserve
    fits = gpu_ok and host_ok
    notes = []
    if ram is None and not gpu_ok:
        notes.append(f"Does not fit in GPU memory, and offload ({how}) does not help: the part left on the GPU "
                     f"({w_dev / GIB:.1f} GiB per GPU) leaves no room for one {context}-token sequence.")
    elif ram is None:
        notes.append(f"Does not fit in GPU memory. With offload ({how}) it would need about {host_need / GIB:.0f} GiB of host RAM "
                     f"(plus {host_reserve / GIB:g} GiB left to the system); give the host RAM to check.")
    elif fits:
        notes.append(f"Does not fit in GPU memory, but fits with offload ({how}): {gpu_part / GIB:.1f} GiB of weights on the GPU(s), "
                     f"{host_need / GIB:.0f} GiB in host RAM of {ram / GIB:g} GiB. The KV cache stays on the GPU.")
    else:
        short = []
        if not gpu_ok:
            short.append(f"the GPU part ({w_dev / GIB:.1f} GiB per GPU) leaves no room for one {context}-token sequence")
        if not host_ok:
            short.append(f"host RAM needs {host_need / GIB:.0f} GiB of the {(ram - host_reserve) / GIB:.0f} GiB usable "
                         f"({ram / GIB:g} GiB less {host_reserve / GIB:g} GiB for the system)")
        notes.append("Does not fit even with offload: " + "; ".join(short) + ".")
    return {
        "method": method,
        "fits": bool(fits),
        "gpu_part_fits": bool(gpu_ok),
        "ram_needed_gib": round((host_need + host_reserve) / GIB, 1) if gpu_ok else None,
        "gpu_gb": round(gpu_part / GB, 2),
        "gpu_gib": round(gpu_part / GIB, 2),
        "host_gb": round(host_need / GB, 2),
        "host_gib": round(host_need / GIB, 2),
        "capacity": _capacity(shape, budget, shards, context, sequences, model["context_tokens"]),
        "notes": notes,
    }


def _experts_on_host(catalog, box, total_w, host, gpu_fits, notes):
    """The routed experts in host RAM by choice: the GPU holds the rest; RAM is checked when given."""
    host_reserve = _fact(catalog.questions["fit_defaults"], "host_reserve_gib") * GIB
    ram = box["ram_gib"] * GIB if box["ram_gib"] else None
    host_ok = None if ram is None else host <= ram - host_reserve
    notes.append(f"Routed experts in host RAM, computed on the CPU ({host / GIB:.1f} GiB there); attention, shared and dense layers "
                 f"on the GPU ({(total_w - host) / GIB:.1f} GiB)." + (" Give the host RAM to check it holds them." if ram is None else
                                                                     "" if host_ok else f" {ram / GIB:g} GiB of host RAM is not enough."))
    return {"method": "experts", "chosen": True, "fits": bool(gpu_fits and host_ok) if host_ok is not None else None,
            "gpu_part_fits": bool(gpu_fits), "ram_needed_gib": round((host + host_reserve) / GIB, 1),
            "gpu_gb": round((total_w - host) / GB, 2), "gpu_gib": round((total_w - host) / GIB, 2),
            "host_gb": round(host / GB, 2), "host_gib": round(host / GIB, 2)}


NO_SPEED = {"decode_tokens_per_s": None, "aggregate_tokens_per_s": None, "label": "estimate, upper bound", "per_gpu_gb": None,
            "communication": None, "typical": None, "measured": None, "basis": "no speed: the model does not fit this memory"}


def _speed(catalog, model, per_group, shape, box, context, sequences, offload, shards=1, dp_attention=False):
    """Decode tokens per second per sequence, an upper bound from memory bandwidth: the bytes each GPU reads per step
    over its own bandwidth (the groups split over the GPUs, attention replicated under data-parallel attention, the KV
    cache split ``shards`` ways)."""
    mode = box["mode"]
    read = active_bytes(catalog, model, per_group, sequences)
    weights_step = sum(read.values())
    kv_step = sequence_bytes(shape, context) * sequences
    host_bw = (box.get("ram_bandwidth_gbs") or 0) * GB
    out = dict(NO_SPEED, basis=None)
    if mode == "cpu":
        bw = host_bw
        if not bw:
            return {**out, "basis": "give the host memory bandwidth for a speed estimate"}
        seconds = (weights_step + kv_step) / bw
        basis = f"{(weights_step + kv_step) / GB:.2f} GB read per step from host RAM at {bw / GB:g} GB/s"
    else:
        if not box.get("bandwidth_gbs"):
            return {**out, "basis": "give the GPU (or its memory bandwidth) for a speed estimate"}
        g = max(1, box["gpus"])
        bw = box["bandwidth_gbs"] * GB
        host_step = 0.0
        if offload and (offload["fits"] or offload.get("chosen")):
            if offload["method"] == "experts":
                host_step = read.get("routed_experts", 0)
            else:
                host_step = weights_step * (offload["host_gb"] / max(1e-9, offload["host_gb"] + offload["gpu_gb"]))
        if host_step and not host_bw:
            return {**out, "basis": "give the host memory bandwidth for a speed estimate: the offloaded weights are read from host RAM"}
        attention = read.get("attention", 0) * (1 - host_step / weights_step if weights_step else 0)
        gpu_weights = weights_step - host_step
        per_gpu = (gpu_weights - attention) / g + (attention if dp_attention else attention / g) + kv_step / max(1, shards)
        seconds = per_gpu / bw + (host_step / host_bw if host_step else 0.0)
        basis = (f"{per_gpu / GB:.2f} GB read per step by each of {g} GPUs at {bw / GB:g} GB/s" if g > 1 else
                 f"{per_gpu / GB:.2f} GB per step at {bw / GB:g} GB/s GPU bandwidth")
        if host_step:
            basis += f" and {host_step / GB:.2f} GB at {host_bw / GB:g} GB/s host bandwidth"
        out["per_gpu_gb"] = round(per_gpu / GB, 3)
        if g > 1:
            steps = 2 * model["layers"]
            out["communication"] = {"all_reduces_per_token": steps, "gpus": g, "counted": False,
                                    "text": f"Each generated token also waits on {steps} all-reduces across the {g} GPUs (two per "
                                            "layer under tensor parallelism, or the expert dispatch and combine under expert "
                                            "parallelism); this bound counts memory reads only, so it does not include them."}
            out["label"] = "estimate, upper bound from memory reads only (communication not counted)"
    per_seq = 1 / seconds if seconds else None
    return {**out,
            "decode_tokens_per_s": round(per_seq, 1) if per_seq else None,
            "aggregate_tokens_per_s": round(per_seq * sequences, 1) if per_seq else None,
            "basis": basis + f" ({sequences} sequence(s) of {context} tokens; active weights plus KV cache)"}


# -- the typical figure: measured over bound, per engine family and parallelism ---------------------------------

_RATIOS = {}  # id(catalog) -> (catalog, rows): worked out once per catalog
ARCHITECTURE_WORDS = {"dense": "dense models", "moe": "mixture-of-experts models"}


def _speed_rows(catalog):
    """Every measured decode speed of one sequence (or per user at up to 8 at once) with the bound for its setup."""
    hit = _RATIOS.get(id(catalog))
    if hit and hit[0] is catalog:
        return hit[1]
    rows = []
    for rs in sorted((getattr(catalog, "results", None) or {}).values(), key=lambda r: r["id"]):
        for row in rs["rows"]:
            conc = row.get("concurrency", rs["method"].get("concurrency", 1)) or 1
            metric = "decode_tps" if "decode_tps" in row["metrics"] and conc == 1 else "output_tps_per_user"
            if metric not in row["metrics"] or conc > 8 or row["gpu"] not in catalog.gpus or row["model"] not in catalog.models \
                    or row["weights"] not in catalog.quantization:
                continue
            context = (rs["method"].get("input_tokens") or 0) // 2 + (rs["method"].get("output_tokens") or 128) // 2 + 1
            est = estimate(catalog, row["model"], row["weights"], gpu=row["gpu"], gpus=row["gpus"], context_tokens=context,
                           concurrency=conc, typical=False)
            bound = (est["speed"] or {}).get("decode_tokens_per_s")
            if not est["fits"] or not bound:
                continue
            family = speed_family(catalog, row["engine"]) if row["engine"] in catalog.engines else row["engine"]
            rows.append({"set": rs["id"], "engine": row["engine"], "family": family, "model": row["model"], "gpu": row["gpu"],
                         "architecture": catalog.models[row["model"]].get("architecture"),
                         "gpus": row["gpus"], "weights": row["weights"], "concurrency": conc, "measured": row["metrics"][metric],
                         "bound": bound, "ratio": round(row["metrics"][metric] / bound, 3)})
    _RATIOS[id(catalog)] = (catalog, rows)
    return rows


def speed_family(catalog, engine_id):
    """The engine whose measured speeds stand for this one: the engine whose memory profile answers, or the one it is
    built on (Ollama and LM Studio run llama.cpp)."""
    answer_id = engine_profile(catalog, engine_id)[0]
    entry = catalog.engines.get(answer_id) or {}
    return next((r["engine"] for r in entry.get("relations", []) if r["type"] == "built-on"), answer_id)


def typical_speed(catalog, engine_id, gpus, bound, architecture=None):
    """The bound times the median measured / bound ratio of the engine family at this parallelism (one GPU or several)
    and, where that family has such rows, for models of the same architecture (dense or MoE), with the rows it came
    from; None where no row was measured."""
    if not bound or not engine_id:
        return None
    family = speed_family(catalog, engine_id)
    several = gpus > 1
    rows = [r for r in _speed_rows(catalog) if r["family"] == family and (r["gpus"] > 1) == several]
    # a large MoE's ratio (expert routing, all-to-all) says little about a dense model's, and the other way round
    same = [r for r in rows if r["architecture"] == architecture]
    kind = ARCHITECTURE_WORDS.get(architecture) if same else None
    rows = same or rows
    if not rows:
        return None
    ratios = sorted(r["ratio"] for r in rows)
    n = len(ratios)
    mid = ratios[n // 2] if n % 2 else (ratios[n // 2 - 1] + ratios[n // 2]) / 2
    name = catalog.engines[family]["name"] if family in catalog.engines else family
    return {"decode_tokens_per_s": round(bound * mid, 1), "ratio": round(mid, 3), "low": ratios[0], "high": ratios[-1],
            "family": family, "gpus": "several" if several else "one",
            "text": (f"Typical: about {bound * mid:,.1f} tokens/s per sequence, the bound times {mid:.2f}, the median of measured over "
                     f"bound for {name} on {'several GPUs' if several else 'one GPU'}{f' with {kind}' if kind else ''} ({n} measured "
                     f"row(s), from {ratios[0]:.2f} to "
                     f"{ratios[-1]:.2f}; derived by this site)."),
            "rows": [{k: r[k] for k in ("set", "model", "gpu", "gpus", "weights", "concurrency", "measured", "bound", "ratio")}
                     for r in rows]}


def measured_check(catalog, model_id, gpu, gpus, bound):
    """Whether the bound lies above every measured speed per sequence for this model on this GPU (any engine)."""
    if not bound or not gpu:
        return None
    seen = []
    for rs in (getattr(catalog, "results", None) or {}).values():
        for row in rs["rows"]:
            if row["model"] != model_id or row["gpu"] != gpu:
                continue
            conc = row.get("concurrency", rs["method"].get("concurrency", 1)) or 1
            value = row["metrics"].get("decode_tps") if conc == 1 else None
            value = value or row["metrics"].get("output_tps_per_user")
            if value:
                seen.append((value, rs["id"], row["gpus"], conc))
    if not seen:
        return None
    best = max(seen)
    above = bound > best[0]
    return {"above_every_measured": above, "max_measured": best[0], "rows": len(seen), "set": best[1],
            "text": (f"This bound ({bound:,.1f} tokens/s) lies above every one of the {len(seen)} measured speeds per sequence for this "
                     f"model on this GPU; the fastest is {best[0]:,.1f} tokens/s ({best[2]} GPU(s), {best[3]} at once, {best[1]})."
                     if above else f"The fastest measured speed per sequence for this model on this GPU is {best[0]:,.1f} tokens/s "
                                   f"({best[1]})" + (", under the bound." if best[0] <= bound else
                                                     f", above this bound at {bound:,.1f}: measured at another context or precision."))}


def _memory_block(box, weights_dev, reserve, budget, one_seq, shards, capacity, offload):
    """Per device and host memory in GiB for the page's bars."""
    if box["mode"] == "cpu":
        total = box["ram_gib"]
        if not total:
            return None
        kv = (capacity or {}).get("kv_budget_gib", 0) if capacity else 0
        return {"unit": "GiB", "device": None, "device_count": 0, "host": {"total": total, "weights": round(weights_dev / GIB, 2),
                                                     "reserve": round(reserve / GIB, 2), "kv": kv,
                                                     "free": round(max(0.0, total - weights_dev / GIB - reserve / GIB - kv), 2)}}
    if not box["gpu_gib"]:
        return None
    total = box["gpu_gib"]
    kv = min(max(0.0, budget) / GIB, total) if budget is not None else 0.0
    dev = {"total": round(total, 2), "weights": round(min(weights_dev / GIB, total), 2), "reserve": round(reserve / GIB, 2),
           "kv": round(kv, 2)}
    dev["free"] = round(max(0.0, total - dev["weights"] - dev["reserve"] - dev["kv"]), 2)
    host = None
    if box.get("ram_gib"):
        held = offload["host_gib"] if offload and offload.get("fits") else 0.0
        host = {"total": box["ram_gib"], "weights": round(held, 2), "free": round(max(0.0, box["ram_gib"] - held), 2)}
    return {"unit": "GiB", "device": dev, "device_count": box["gpus"], "host": host, "pool_gib": box.get("pool_gib")}


def documents(catalog, engine, quant_id, hardware=None):
    """True when the engine's support grid says "yes" for the scheme on the hardware (on any hardware if None)."""
    rows = [r for r in engine.get("quantization", []) if r["id"] == quant_id and (hardware is None or hardware in r.get("hardware", ()))]
    if hardware:
        return bool(rows) and rows[0]["support"] == "yes"
    return any(r["support"] == "yes" for r in rows)


def scheme_engines(catalog, quant_id, kv_id=None, hardware=None):
    """Active engines (tier order) that document the weight scheme, and the KV scheme if one is named, on the hardware."""
    return [e["id"] for e in catalog.engines_in(kinds=("engine",)) if e["status"]["value"] == "active"
            and documents(catalog, e, quant_id, hardware) and (kv_id is None or documents(catalog, e, kv_id, hardware))]


def machine_hardware(catalog, gpu=None, memory=None):
    """The hardware family the support grids are read for: the GPU's, "cpu" for a CPU-only machine, else None."""
    if gpu and catalog.gpus.get(gpu):
        return catalog.gpus[gpu]["hardware"]
    return "cpu" if memory == "cpu" else None


def fit_table(catalog, model_id, ranked=None, keep=(), **kw):
    """Every weight quantization x KV precision that some engine documents on this hardware (the model as shipped and
    the ``keep`` schemes always): fits, capacity and speed. Without an engine named each row is priced for the first
    engine of ``ranked`` (the selector's order) that documents both schemes, else the first that does."""
    rows = []
    model = catalog.models[model_id]
    hardware = machine_hardware(catalog, kw.get("gpu"), kw.get("memory"))
    named = kw.pop("engine", None)
    weights = [q for q in catalog.quantization.values() if q["applies_to"] == "weights"]
    kv = [None] + [q["id"] for q in catalog.quantization.values() if q["applies_to"] == "kv-cache"]
    seen = set()
    for q in sorted(weights, key=lambda q: (-q["bits_per_weight"], q["id"] != model["native_precision"], q["id"])):
        for k in kv:
            able = scheme_engines(catalog, q["id"], k, hardware)
            if not able and not (k is None and (q["id"] == model["native_precision"] or q["id"] in keep)):
                continue
            engine = named or next((e for e in ranked or () if e in able), able[0] if able and ranked is not None else None)
            est = estimate(catalog, model_id, q["id"], kv_quantization=k, engine=engine, typical=False, **kw)
            k_used = est["kv_cache"]  # the engine's own default when none is asked
            if (q["id"], k_used) in seen:
                continue
            seen.add((q["id"], k_used))
            rows.append({
                "quantization": q["id"], "name": q["name"], "kv_cache": k_used,
                "kv_name": catalog.quantization[k_used]["name"] if k_used else "16-bit (default)", "weights_gb": est["weights_gb"],
                "weights_gib": est["weights_gib"], "fits": est["fits"],
                "fits_with_offload": est["fits_with_offload"],
                "max_sequences": (est["capacity"] or {}).get("max_sequences"),
                "max_context_tokens": (est["capacity"] or {}).get("max_context_tokens"),
                "kv_tokens": (est["capacity"] or {}).get("kv_tokens"),
                "decode_tokens_per_s": (est["speed"] or {}).get("decode_tokens_per_s"),
                "engine": engine, "engine_name": catalog.engines[engine]["name"] if engine else None,
                "kv_asked": k is not None, "documented": engine in able if engine else bool(able), "documented_by": able,
                "bits_per_weight": q["bits_per_weight"],
            })
    return rows


def best_row(rows, kv_asked=None, native=None, ranked=()):
    """The row a reader with no quantization preference wants: the model as shipped if it fits, else the highest
    precision that fits on the GPU (then with offload) on a documented engine: the schemes of the selector's first engine
    for this hardware first, then those more of its engines run (an INT4 checkpoint on a server, a GGUF file on a
    desktop), then whole bits, then bits; the engine's own KV precision first, or the one asked."""
    first = ranked[0] if ranked else None
    shipped = next((r for r in rows if r["quantization"] == native), None)
    # a step down from the checkpoint is a whole bit or more (GPTQ is no step from an MXFP4 release), unless no engine runs it here
    below = int(shipped["bits_per_weight"]) if shipped and shipped["documented_by"] else 99
    usable = [r for r in rows if r["documented"] and (r["kv_cache"] == kv_asked if kv_asked else True)
              and (r["quantization"] == native or int(r["bits_per_weight"]) < below)]

    def key(r):
        return (r["engine"] == first, len(set(r["documented_by"]) & set(ranked)), int(r["bits_per_weight"]), r["bits_per_weight"])

    for test in (lambda r: r["fits"], lambda r: r["fits_with_offload"]):
        for own_kv in ((False, True) if not kv_asked else (None,)):
            hits = [r for r in usable if test(r) and (own_kv is None or r["kv_asked"] is own_kv)]
            shipped = next((r for r in hits if r["quantization"] == native), None)
            if shipped or hits:
                return shipped or max(hits, key=key)
    return None
