"""Weight memory by tensor group.

A model file lists its parameters by group (embeddings, lm_head, attention, dense_mlp,
routed_experts, shared_experts, other) and the precision its published checkpoint stores each
group in (``native_precision``, with per-group exceptions in ``stored``). A quantization scheme
converts only the groups it names in ``quantizes`` (every group when it names none), at
``bits_per_weight`` or at a per-group figure in ``group_bits``; the other groups keep their stored
precision. So an AWQ checkpoint keeps its embeddings and output head in 16 bits, and gpt-oss keeps
everything but the routed experts in BF16.
"""

GROUPS = ("embeddings", "lm_head", "attention", "dense_mlp", "routed_experts", "shared_experts", "other", "mtp")


def _scheme_bits(scheme, group):
    return (scheme.get("group_bits") or {}).get(group, scheme["bits_per_weight"])


def stored_scheme(catalog, model, group):
    return (model.get("stored") or {}).get(group, model["native_precision"])


def group_bits(catalog, model, quant_id=None):
    """Bits per weight of every group for the model in ``quant_id`` (None: as published)."""
    out = {}
    for group in GROUPS:
        stored = catalog.quantization[stored_scheme(catalog, model, group)]
        if quant_id is None or quant_id == model["native_precision"] and group not in (model.get("stored") or {}):
            out[group] = _scheme_bits(stored, group)
            continue
        scheme = catalog.quantization[quant_id]
        applies = scheme.get("quantizes")
        if applies is None or group in applies:
            out[group] = _scheme_bits(scheme, group)
        else:
            out[group] = _scheme_bits(stored, group)
    return out


def params_by_group(model, include_mtp=False):
    """Parameters (billions) per group. A multi-token-prediction module is left out unless asked for: engines
    load it only for MTP speculative decoding, and GGUF conversions drop it."""
    return {g: float(model["params"].get(g, 0.0)) for g in GROUPS if include_mtp or g != "mtp"}


def weight_bytes(catalog, model, quant_id=None, include_mtp=False):
    """``(total bytes, {group: bytes})`` of the weights in ``quant_id``."""
    bits = group_bits(catalog, model, quant_id)
    per = {g: n * 1e9 * bits[g] / 8 for g, n in params_by_group(model, include_mtp).items()}
    return sum(per.values()), per


def checkpoint_bytes(catalog, model, quant_id):
    """Size of a published checkpoint: safetensors uploads keep an MTP module, GGUF conversions drop it."""
    family = catalog.quantization[quant_id].get("family")
    return weight_bytes(catalog, model, quant_id, include_mtp=family != "gguf")[0]
