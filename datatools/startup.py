"""The memory planner against real engine start-up logs (``tests/calibration/logs``).

Each log gives a setup (model, quantization, GPU, parallelism, context, the engine's options) and what
the engine printed at start-up (weights and KV cache per GPU, KV tokens). :func:`compare` runs
:func:`selector.fit.estimate` with ``engine`` set for the log's setup and lines the two up;
``python -m selector calibration --startup`` prints the table the README carries. Logs are plain dicts
here (the CLI and the tests read the YAML), so this module stays standard library only.
"""

from selector.fit import GIB, default_context, estimate


def _observed(obs, key):
    """A figure in GiB, from ``key_gib`` or from ``key_mib`` (llama.cpp and Ollama print MiB)."""
    if obs.get(f"{key}_gib") is not None:
        return obs[f"{key}_gib"]
    if obs.get(f"{key}_mib") is not None:
        return obs[f"{key}_mib"] / 1024
    return None


def setup_arguments(catalog, log):
    """The keyword arguments of :func:`estimate` for a log's setup: the memory the engine saw (the total it
    printed, else the GPU asked) and the options it was started with."""
    setup, obs = log["setup"], log["observed"]
    total = _observed(obs, "total_memory")
    gpus = setup.get("gpus") or 1
    kw = {"engine": log["engine"] if log["engine"] in catalog.engines else None, "gpus": gpus,
          "dp_attention": bool(setup.get("data_parallel_attention")), "memory_fraction": setup.get("memory_fraction"),
          "experts_on_host": bool(setup.get("experts_on_host")),
          "batched_tokens": setup.get("max_num_batched_tokens"), "max_seqs": setup.get("max_num_seqs"), "kv_quantization": setup.get("kv_quantization"),
          "concurrency": setup.get("parallel_slots") or 1}
    if not setup.get("data_parallel_attention"):  # the log's own tensor-parallel size, not the planner's pick of one
        kw["tensor_parallel"] = setup.get("tensor_parallel") or gpus
    model = catalog.models[setup["model"]]
    gpu = catalog.gpus.get(setup.get("gpu")) if setup.get("gpu") else None
    seen = total if total is not None else setup.get("gpu_memory_gib") or (gpu or {}).get("memory_gib")
    kw["context_tokens"] = setup.get("max_model_len") or default_context(catalog, kw["engine"], seen, model)
    if total is not None or setup.get("gpu_memory_gib") is not None or not setup.get("gpu"):
        kw["gpu_memory_gb"] = total if total is not None else setup.get("gpu_memory_gib")
        gpu = catalog.gpus.get(setup.get("gpu")) if setup.get("gpu") else None
        if gpu is not None:
            kw["bandwidth_gbs"] = gpu["bandwidth_gbs"]
            kw["memory"] = {"unified": "unified", "host": "cpu"}.get(gpu["memory_mode"], "discrete")
    else:
        kw["gpu"] = setup["gpu"]
    return kw


def compare(catalog, log):
    """One row: planner against engine, for weights per GPU (GiB), KV memory per GPU (GiB) and KV tokens."""
    setup, obs = log["setup"], log["observed"]
    kw = setup_arguments(catalog, log)
    if kw.get("gpu_memory_gb") is None and not kw.get("gpu"):
        return None
    est = estimate(catalog, setup["model"], setup.get("quantization"), **kw)
    dev = (est["memory"] or {}).get("device") or {}
    cap = est["capacity"] or {}
    row = {"log": log.get("id"), "engine": log["engine"], "model": setup["model"], "quantization": setup.get("quantization"),
           "gpus": kw["gpus"], "fits": est["fits"], "kv_tokens": cap.get("kv_tokens"), "kv_tokens_memory": cap.get("kv_tokens_memory"),
           "weights_gib": dev.get("weights") if est["fits"] else round(est["weights_gb"] * 1e9 / GIB / kw["gpus"], 2),
           "kv_gib": dev.get("kv") if est["fits"] else None,
           "observed_kv_tokens": obs.get("kv_tokens"), "observed_weights_gib": _observed(obs, "weights"),
           "observed_kv_gib": _observed(obs, "kv"), "started": None}
    kv_obs = row["observed_kv_gib"]
    row["started"] = started(log)
    row["kv_tokens_error"] = _error(row["kv_tokens"], obs.get("kv_tokens")) if est["fits"] else None
    row["weights_error"] = _error(row["weights_gib"], row["observed_weights_gib"])
    row["kv_gib_error"] = _error(row["kv_gib"], kv_obs) if kv_obs and kv_obs > 0 and est["fits"] else None
    return row


FAILED = ("valueerror", "engine failed", "failed to start", "out of memory", "outofmemory", "insufficient", "cannot allocate", "no available memory")


def started(log):
    """Whether the engine came up: False when the quoted lines hold an error or the KV memory is not positive,
    None when the log shows neither a KV figure nor an error."""
    quoted = log.get("quoted", "").lower()
    obs = log["observed"]
    kv = _observed(obs, "kv")
    if any(word in quoted for word in FAILED) or kv is not None and kv <= 0:
        return False
    if kv is None and obs.get("kv_tokens") is None:
        return None
    return True


def _error(estimated, observed):
    if estimated is None or not observed:
        return None
    return round((estimated - observed) / observed, 4)


def rows(catalog, logs):
    out = []
    for log in logs:
        row = compare(catalog, log)
        if row is not None:
            out.append(row)
    return out


def summary(table):
    """Median and worst absolute errors, and the setups the planner says fit where the engine could not start."""
    # KV memory stands in for KV tokens where a log prints only GiB
    kv = [dict(r, kv_any=r["kv_tokens_error"] if r["kv_tokens_error"] is not None else r["kv_gib_error"]) for r in table]
    return {"kv_tokens": _stats(table, "kv_tokens_error"), "kv": _stats(kv, "kv_any"), "weights": _stats(table, "weights_error"),
            "false_fits": [r["log"] for r in table if r["started"] is False and r["fits"]],
            "missed_fits": [r["log"] for r in table if r["started"] is True and not r["fits"]]}


def _stats(table, key):
    errors = sorted(abs(r[key]) for r in table if r[key] is not None)
    if not errors:
        return {"n": 0, "median": None, "worst": None}
    n = len(errors)
    mid = errors[n // 2] if n % 2 else (errors[n // 2 - 1] + errors[n // 2]) / 2
    return {"n": n, "median": round(mid, 4), "worst": round(errors[-1], 4)}


def _pct(value):
    return "" if value is None else f"{value * 100:+.1f}%"


def _num(value, fmt="{:,}"):
    return "" if value is None else fmt.format(value)


def markdown(catalog, logs):
    table = rows(catalog, logs)
    lines = ["| Log | Engine | Model | GPUs | Weights GiB (log / plan) | KV GiB (log / plan) | KV tokens (log / plan) | "
             "Started / fits |", "|---|---|---|---|---|---|---|---|"]
    for r in table:
        started = {None: "?", True: "yes", False: "no"}[r["started"]]
        lines.append(f"| {r['log']} | {catalog.name_of('engines', r['engine'])} | {catalog.name_of('models', r['model'])} | {r['gpus']} | "
                     f"{_num(r['observed_weights_gib'], '{:.2f}')} / {_num(r['weights_gib'], '{:.2f}')} {_pct(r['weights_error'])} | "
                     f"{_num(r['observed_kv_gib'], '{:.2f}')} / {_num(r['kv_gib'], '{:.2f}')} {_pct(r['kv_gib_error'])} | "
                     f"{_num(r['observed_kv_tokens'])} / {_num(r['kv_tokens'] if r['fits'] else None)} {_pct(r['kv_tokens_error'])} | "
                     f"{started} / {'yes' if r['fits'] else 'no'} |")
    s = summary(table)
    lines.append("")
    lines.append(f"{len(table)} logs. KV cache (tokens, or GiB where the log prints no tokens): median error "
                 f"{_pct(s['kv']['median']) or 'n/a'}, worst {_pct(s['kv']['worst']) or 'n/a'} over {s['kv']['n']}; weights per GPU: "
                 f"median {_pct(s['weights']['median']) or 'n/a'}, worst {_pct(s['weights']['worst']) or 'n/a'} over {s['weights']['n']}; "
                 f"'fits' where the engine could not start: {len(s['false_fits'])}.")
    return "\n".join(lines)
