"""The decode-speed estimate against published measurements.

Every single-sequence decode measurement in data/results (llama-bench tg and similar) whose model fits
the GPU is compared with :func:`selector.fit.estimate`'s bandwidth bound at the measurement's own
context. The bound must stay above every measurement; the ratio says how much of the memory bandwidth
the engine turns into tokens. ``python -m selector calibration`` prints the table the README carries.
"""

from selector.fit import estimate


def calibration_rows(catalog):
    out = []
    for rs in sorted(catalog.results.values(), key=lambda r: r["id"]):
        for row in rs["rows"]:
            conc = row.get("concurrency", rs["method"].get("concurrency", 1))
            if "decode_tps" not in row["metrics"] or row["gpus"] != 1 or conc != 1:
                continue
            context = (rs["method"].get("input_tokens") or 0) // 2 + (rs["method"].get("output_tokens") or 128) // 2 + 1
            est = estimate(catalog, row["model"], row["weights"], gpu=row["gpu"], context_tokens=context)
            bound = (est["speed"] or {}).get("decode_tokens_per_s")
            if not est["fits"] or not bound:
                continue
            out.append({"set": rs["id"], "engine": row["engine"], "gpu": row["gpu"], "model": row["model"], "weights": row["weights"],
                        "backend": row.get("backend"), "measured": row["metrics"]["decode_tps"], "bound": bound,
                        "ratio": round(row["metrics"]["decode_tps"] / bound, 2)})
    return out


def markdown(catalog):
    rows = calibration_rows(catalog)
    lines = ["| GPU | Model | Weights | Measured tok/s | Bound tok/s | Ratio | Source set |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {catalog.name_of('gpus', r['gpu'])}{' (' + r['backend'] + ')' if r['backend'] else ''} | "
                     f"{catalog.name_of('models', r['model'])} | {catalog.name_of('quantization', r['weights'])} | {r['measured']:g} | "
                     f"{r['bound']:g} | {r['ratio']:.2f} | {r['set']} |")
    ratios = sorted(r["ratio"] for r in rows)
    if ratios:
        mid = ratios[len(ratios) // 2]
        over = sum(1 for r in ratios if r > 1)
        held = "the bound holds for every one" if not over else f"the bound is exceeded for {over} of them"
        lines.append("")
        lines.append(f"{len(rows)} measurements; measured / bound from {ratios[0]:.2f} to {ratios[-1]:.2f}, median {mid:.2f}: {held}.")
    return "\n".join(lines)
