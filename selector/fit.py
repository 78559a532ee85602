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
    if att["type"] == "mla":
        return gpus if dp_attention else 1
    return max(1, min(gpus, att["kv_heads"]))


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
            "concurrency", "engine")


def fit_arguments(answers):
    """The keyword arguments of :func:`estimate` from cleaned answers."""
    args = {k: answers.get(k) for k in FIT_ARGS}
    args["kv_quantization"] = answers.get("kv_cache")
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


def estimate(catalog, model_id, quantization=None, gpus=1, gpu_memory_gb=None, ram_gb=None, context_tokens=None,
             concurrency=None, kv_quantization=None, gpu=None, memory=None, engine=None, bandwidth_gbs=None,
             ram_bandwidth_gbs=None, dp_attention=False, with_table=False, profile=None):
    """The fit answer as a dict; ids must already be valid (see :func:`selector.inputs.clean_answers`)."""
    defaults = catalog.questions["fit_defaults"]
    model = catalog.models[model_id]
    quant_id = quantization or model["native_precision"]
    quant = catalog.quantization[quant_id]
    context = min(context_tokens or defaults["context_tokens"], 10**8)
    sequences = concurrency or defaults["concurrency"]
    kv_bits = catalog.quantization[kv_quantization]["bits_per_weight"] if kv_quantization else 16
    box = machine(catalog, gpu, gpu_memory_gb, gpus or 1, memory, ram_gb, bandwidth_gbs, ram_bandwidth_gbs)
    mode = box["mode"]
    g = box["gpus"] if mode != "cpu" else 1
    notes = list(box["notes"])

    total_w, per_group = weight_bytes(catalog, model, quant_id)
    shape = kv_shape(model, kv_bits)
    one_seq = sequence_bytes(shape, context)
    want_kv = one_seq * sequences
    fraction, of, reserve_gib, fraction_text = _engine_fraction(catalog, engine, mode, profile)
    reserve = reserve_gib * GIB
    shards = kv_shards(model, g, dp_attention) if mode != "cpu" else 1

    # memory of one device (GPU, GPU-usable share of a unified pool, or the host's RAM for CPU-only)
    if mode == "cpu":
        device = (box["ram_gib"] - _fact(defaults, "host_reserve_gib")) * GIB if box["ram_gib"] else None
    else:
        device = box["gpu_gib"] * GIB if box["gpu_gib"] else None
    w_dev = total_w / g

    def budget_for(weights_on_device):
        if device is None:
            return None
        if of == "total":
            return fraction * device - weights_on_device - reserve
        return fraction * max(0.0, device - weights_on_device - reserve)

    budget = budget_for(w_dev)
    fits = budget is not None and budget >= one_seq / shards
    capacity = _capacity(shape, budget, shards, context, sequences, model["context_tokens"]) if budget is not None else None

    offload = None
    if device is not None and not fits and mode == "discrete":
        offload = _offload(catalog, model, per_group, shape, box, fraction, of, reserve, shards, context, sequences, engine)
        notes.extend(offload.pop("notes"))
        if offload["fits"]:
            capacity = offload.pop("capacity")
        else:
            offload.pop("capacity")
    fits_with_offload = bool(fits or (offload and offload["fits"]))

    if fits or (offload and offload["fits"]):
        speed = _speed(catalog, model, per_group, shape, box, context, sequences, offload if not fits else None)
    else:
        speed = {"decode_tokens_per_s": None, "aggregate_tokens_per_s": None, "label": "estimate, upper bound",
                 "basis": "no speed: the model does not fit this memory"}

    # notes: the arithmetic, in words
    groups = ", ".join(f"{k.replace('_', ' ')} {v / GB:.2f}" for k, v in per_group.items() if v)
    notes.insert(0, f"Weights in {quant['name']}: {total_w / GB:.2f} GB ({groups} GB); groups a scheme does not convert "
                    "keep the checkpoint's precision." + (" Every expert counts, not only the active ones." if model["architecture"] == "moe" else ""))
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
    elif g > 1 and mode != "cpu":
        notes.append(f"Tensor parallelism over {g} GPUs splits the weights and the KV heads ({shards}-way) between them.")
    if quant_id != model["native_precision"] and quant["bits_per_weight"] < catalog.quantization[model["native_precision"]]["bits_per_weight"]:
        notes.append(f"The model ships in {catalog.quantization[model['native_precision']]['name']}; {quant['name']} needs a "
                     "quantized checkpoint or on-the-fly quantization.")
    if device is None:
        notes.append("Give the GPU (or its memory) to compare the estimate with your hardware.")
    else:
        notes.append(f"Memory per {'GPU' if mode == 'discrete' else 'machine' if mode == 'cpu' else 'GPU share'}: {fraction_text}, "
                     f"less {reserve / GIB:g} GiB runtime reserve (CUDA context, activations, graphs) and the weights; the rest holds "
                     "KV cache.")
        if fits and capacity:
            met = capacity["max_sequences"] >= sequences
            notes.append(f"Fits: {capacity['kv_tokens']:,} tokens of KV cache, {capacity['max_sequences']:,} sequences of {context} tokens; "
                         + ("the asked concurrency fits." if met else
                            f"{sequences} at once do not: at {sequences} sequences the longest context is {capacity['max_context_tokens']:,} tokens."))

    used = total_w + want_kv + reserve * max(1, g)
    available = None
    if mode == "cpu" and box["ram_gib"]:
        available = box["ram_gib"] * GIB
    elif box["gpu_gib"]:
        available = box["gpu_gib"] * GIB * g
    out = {
        "model": model_id,
        "quantization": quant_id,
        "kv_cache": kv_quantization,
        "context_tokens": context,
        "concurrency": sequences,
        "weights_gb": round(total_w / GB, 2),
        "kv_cache_gb": round(want_kv / GB, 2),
        "overhead_gb": round(reserve * max(1, g) / GB, 2),
        "required_gb": round(used / GB, 2),
        "available_gb": round(available / GB, 2) if available else None,
        "fits_gpu": bool(fits and mode != "cpu"),
        "fits": bool(fits),
        "fits_with_offload": fits_with_offload,
        "concurrency_met": bool(capacity and capacity["max_sequences"] >= sequences),
        "offload": offload,
        "kv_bytes_per_token": round(kv_bytes_per_token(model, kv_bits)),
        "capacity": capacity,
        "speed": speed,
        "memory": _memory_block(box, w_dev if fits or not offload else offload["gpu_gb"] * GB / g, reserve, budget if fits else None,
                                one_seq, shards, capacity, offload),
        "machine": {k: box[k] for k in ("mode", "gpu", "gpu_name", "gpus", "gpu_gib", "bandwidth_gbs", "ram_gib", "ram_bandwidth_gbs",
                                        "gpu_usable_fraction")},
        "assumptions": {"gpu_fraction": fraction, "fraction_of": of, "runtime_reserve_gib": reserve / GIB,
                        "host_reserve_gib": _fact(defaults, "host_reserve_gib"), "engine": engine},
        "notes": notes,
    }
    out["measured"] = rows_for(catalog, engine=engine, gpu=gpu, model=model_id, weights=quant_id, gpus=g, concurrency=sequences,
                               hardware=(catalog.gpus.get(gpu) or {}).get("hardware") if gpu else None) if gpu else []
    if with_table:
        out["table"] = fit_table(catalog, model_id, gpus=gpus, gpu_memory_gb=gpu_memory_gb, ram_gb=ram_gb, context_tokens=context,
                                 concurrency=sequences, gpu=gpu, memory=memory, engine=engine, bandwidth_gbs=bandwidth_gbs,
                                 ram_bandwidth_gbs=ram_bandwidth_gbs, profile=profile)
    return out


def _capacity(shape, budget, shards, context, sequences, model_limit):
    if budget is None:
        return None
    usable = max(0.0, budget) * shards
    seq = sequence_bytes(shape, context)
    max_seq = int(usable // seq) if seq else 0
    per_seq_budget = usable / max(1, sequences)
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
    if ram is None:
        notes.append(f"Does not fit in GPU memory. With offload ({how}) it would need about {host_need / GIB:.0f} GiB of host RAM "
                     f"(plus {host_reserve / GIB:g} GiB left to the system); give the host RAM to check.")
    elif fits:
        notes.append(f"Does not fit in GPU memory, but fits with offload ({how}): {gpu_part / GB:.1f} GB of weights on the GPU(s), "
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
        "gpu_gb": round(gpu_part / GB, 2),
        "host_gb": round(host_need / GB, 2),
        "host_gib": round(host_need / GIB, 2),
        "capacity": _capacity(shape, budget, shards, context, sequences, model["context_tokens"]),
        "notes": notes,
    }


def _speed(catalog, model, per_group, shape, box, context, sequences, offload):
    """Decode tokens per second per sequence, an upper bound from memory bandwidth."""
    mode = box["mode"]
    read = active_bytes(catalog, model, per_group, sequences)
    weights_step = sum(read.values())
    kv_step = sequence_bytes(shape, context) * sequences
    host_bw = (box.get("ram_bandwidth_gbs") or 0) * GB
    if mode == "cpu":
        bw = host_bw
        if not bw:
            return {"decode_tokens_per_s": None, "aggregate_tokens_per_s": None, "label": "estimate, upper bound",
                    "basis": "give the host memory bandwidth for a speed estimate"}
        seconds = (weights_step + kv_step) / bw
        basis = f"{(weights_step + kv_step) / GB:.2f} GB read per step from host RAM at {bw / GB:g} GB/s"
    else:
        if not box.get("bandwidth_gbs"):
            return {"decode_tokens_per_s": None, "aggregate_tokens_per_s": None,
                    "basis": "give the GPU (or its memory bandwidth) for a speed estimate", "label": "estimate, upper bound"}
        bw = box["bandwidth_gbs"] * GB * box["gpus"]
        host_step = 0.0
        if offload and offload["fits"]:
            if offload["method"] == "experts":
                host_step = read.get("routed_experts", 0)
            else:
                host_step = weights_step * (offload["host_gb"] / max(1e-9, offload["host_gb"] + offload["gpu_gb"]))
        gpu_step = weights_step - host_step + kv_step
        if host_step and not host_bw:
            return {"decode_tokens_per_s": None, "aggregate_tokens_per_s": None, "label": "estimate, upper bound",
                    "basis": "give the host memory bandwidth for a speed estimate: the offloaded weights are read from host RAM"}
        seconds = gpu_step / bw + (host_step / host_bw if host_step else 0.0)
        basis = f"{gpu_step / GB:.2f} GB per step at {bw / GB:g} GB/s GPU bandwidth"
        if host_step:
            basis += f" and {host_step / GB:.2f} GB at {host_bw / GB:g} GB/s host bandwidth"
    per_seq = 1 / seconds if seconds else None
    return {
        "decode_tokens_per_s": round(per_seq, 1) if per_seq else None,
        "aggregate_tokens_per_s": round(per_seq * sequences, 1) if per_seq else None,
        "basis": basis + f" ({sequences} sequence(s) of {context} tokens; active weights plus KV cache)",
        "label": "estimate, upper bound",
    }


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


def fit_table(catalog, model_id, **kw):
    """Every weight quantization x KV precision for this model and hardware: fits, capacity and speed."""
    rows = []
    weights = [q for q in catalog.quantization.values() if q["applies_to"] == "weights"]
    kv = [None] + [q["id"] for q in catalog.quantization.values() if q["applies_to"] == "kv-cache"]
    for q in sorted(weights, key=lambda q: (-q["bits_per_weight"], q["id"])):
        for k in kv:
            est = estimate(catalog, model_id, q["id"], kv_quantization=k, **kw)
            rows.append({
                "quantization": q["id"], "name": q["name"], "kv_cache": k,
                "kv_name": catalog.quantization[k]["name"] if k else "16-bit (default)", "weights_gb": est["weights_gb"], "fits": est["fits"],
                "fits_with_offload": est["fits_with_offload"],
                "max_sequences": (est["capacity"] or {}).get("max_sequences"),
                "max_context_tokens": (est["capacity"] or {}).get("max_context_tokens"),
                "kv_tokens": (est["capacity"] or {}).get("kv_tokens"),
                "decode_tokens_per_s": (est["speed"] or {}).get("decode_tokens_per_s"),
            })
    return rows

