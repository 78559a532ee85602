"""Will it fit?  A memory estimate from the catalog's model and quantization facts.

weights  = total parameters x bits per weight / 8 (a MoE counts every expert)
KV cache = bytes per token x context x concurrent sequences, where bytes per token is
           GQA/MHA: 2 (K and V) x layers x kv_heads x head_dim x bytes per element
           MLA:     layers x (kv_lora_rank + qk_rope_head_dim) x bytes per element
overhead = a fixed reserve per GPU (CUDA context, activations) + a fraction of the weights
Offload (the KTransformers path): routed experts in host RAM, everything else on the GPUs.
Sizes are decimal gigabytes (1 GB = 10^9 bytes), as GPU and RAM sizes are quoted.
"""

GB = 1e9


def kv_bytes_per_token(model, kv_bits=16):
    att = model["attention"]
    per_element = kv_bits / 8
    if att["type"] == "mla":
        return model["layers"] * (att["kv_lora_rank"] + att["qk_rope_head_dim"]) * per_element
    return 2 * model["layers"] * att["kv_heads"] * att["head_dim"] * per_element


def estimate(catalog, model_id, quantization=None, gpus=1, gpu_memory_gb=None, ram_gb=None,
             context_tokens=None, concurrency=None, kv_quantization=None):
    """Return the fit dict; ids must already be valid (see :func:`selector.inputs.clean_answers`)."""
    defaults = catalog.questions["fit_defaults"]
    model = catalog.models[model_id]
    quant_id = quantization or model["native_precision"]
    quant = catalog.quantization[quant_id]
    context = context_tokens or defaults["context_tokens"]
    sequences = concurrency or defaults["concurrency"]
    kv_bits = catalog.quantization[kv_quantization]["bits_per_weight"] if kv_quantization else 16
    bits = quant["bits_per_weight"]
    notes = []

    weights = model["total_params_b"] * 1e9 * bits / 8 / GB
    per_token = kv_bytes_per_token(model, kv_bits)
    kv = per_token * context * sequences / GB
    overhead = defaults["overhead_gb_per_gpu"] * gpus + defaults["overhead_fraction"] * weights
    required = weights + kv + overhead
    available = gpus * gpu_memory_gb if gpu_memory_gb else None
    fits_gpu = available is not None and required <= available

    notes.append(f"Weights: {model['total_params_b']:g}B parameters x {bits:g} bits ({quant['name']}) = {weights:.1f} GB"
                 + (" (every expert counts, not only the active ones)" if model["architecture"] == "moe" else "") + ".")
    notes.append(f"KV cache: {per_token / 1024:.1f} KiB per token ({model['attention']['type'].upper()}) x {context} tokens"
                 f" x {sequences} sequence(s) = {kv:.2f} GB.")
    if model["attention"].get("sliding_window"):
        notes.append("Sliding-window layers are counted at full context, so the KV figure is an upper bound.")
    if quant_id != model["native_precision"] and bits < catalog.quantization[model["native_precision"]]["bits_per_weight"]:
        notes.append(f"The model ships in {catalog.quantization[model['native_precision']]['name']}; "
                     f"{quant['name']} needs a quantized checkpoint or on-the-fly quantization.")

    offload = None
    if available is not None and not fits_gpu:
        offload = _offload(model, bits, kv, defaults, gpus, available, ram_gb)
        notes.extend(offload["notes"])
    if available is None:
        notes.append("Give the memory per GPU to compare the estimate with your hardware.")
    elif fits_gpu:
        notes.append(f"Fits in GPU memory with {available - required:.1f} GB to spare.")

    return {
        "model": model_id,
        "quantization": quant_id,
        "weights_gb": round(weights, 2),
        "kv_cache_gb": round(kv, 2),
        "overhead_gb": round(overhead, 2),
        "required_gb": round(required, 2),
        "available_gb": round(available, 2) if available is not None else None,
        "fits_gpu": bool(fits_gpu),
        "fits_with_offload": bool(fits_gpu or (offload and offload["fits"])),
        "offload": {k: v for k, v in offload.items() if k != "notes"} if offload else None,
        "kv_bytes_per_token": round(per_token),
        "notes": notes,
    }


def _offload(model, bits, kv, defaults, gpus, available, ram_gb):
    """Split weights between GPU and host RAM; MoE keeps routed experts on the CPU side."""
    notes = []
    overhead_gpu = defaults["overhead_gb_per_gpu"] * gpus
    if model["architecture"] == "moe":
        host_weights = model["params"]["routed_experts"] * bits / 8
        gpu_weights = (model["total_params_b"] - model["params"]["routed_experts"]) * bits / 8
        how = "routed experts in host RAM, attention and shared layers on the GPU"
    else:
        gpu_room = max(0.0, available - kv - overhead_gpu)
        total = model["total_params_b"] * bits / 8
        gpu_weights = min(total, gpu_room)
        host_weights = total - gpu_weights
        how = "the layers that do not fit stay in host RAM (partial offload)"
    gpu_need = gpu_weights + kv + overhead_gpu
    host_need = host_weights * (1 + defaults["host_reserve_fraction"])
    fits = gpu_need <= available and ram_gb is not None and host_need <= ram_gb
    if ram_gb is None:
        notes.append(f"Does not fit in GPU memory. With offload ({how}) it would need about {host_need:.0f} GB of host RAM; give ram_gb to check.")
    elif fits:
        notes.append(f"Does not fit in GPU memory, but fits with offload ({how}): {gpu_need:.1f} GB on the GPU(s), {host_need:.0f} GB of host RAM.")
    else:
        short = []
        if gpu_need > available:
            short.append(f"the GPU part alone needs {gpu_need:.1f} GB of {available:g} GB")
        if host_need > ram_gb:
            short.append(f"host RAM needs {host_need:.0f} GB of {ram_gb:g} GB")
        notes.append("Does not fit even with offload: " + "; ".join(short) + ".")
    return {"fits": fits, "gpu_gb": round(gpu_need, 2), "host_gb": round(host_need, 2), "notes": notes}
