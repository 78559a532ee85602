"""Measured results quoted by the selector and the fit estimate.

A row is quoted only when it matches what the reader asked: the engine (for the selector), the GPU (or
at least its hardware family) when one is given, and the model when one is given. The sentence keeps
the method's words (throughput per GPU at a concurrency, or one sequence's decode speed), who measured
it, whether the vendor reported it, and its date, with a link to the source.
"""

import math

from .costs import TOKENS_SHORT, view

METRICS = (  # (key, words): the first the row has is quoted
    ("throughput_per_gpu", "{v} tokens/s per GPU"),
    ("output_tps_per_user", "{v} output tokens/s per user"),
    ("decode_tps", "{v} tokens/s decoding one sequence"),
    ("prompt_tps", "{v} prompt tokens/s"),
)


def _number(value):
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def _source(rs):
    src = (rs.get("sources") or {}).get(rs.get("source"))
    return {"title": src["title"], "url": src["url"]} if src else None


def _date(rs, row):
    """(date, what it is): the row's own date, the source's publication date, or the date the site checked it."""
    if row.get("date"):
        return row["date"], "measured"
    src = (rs.get("sources") or {}).get(rs.get("source")) or {}
    if src.get("published"):
        return src["published"], "published"
    return rs.get("verified"), "checked"


def phrase(catalog, rs, row):
    """One measured row as a sentence."""
    key, words = next(((k, w) for k, w in METRICS if k in row["metrics"]), (None, None))
    if key is None:
        return None
    text = words.format(v=_number(row["metrics"][key]))
    conc = row.get("concurrency", rs["method"].get("concurrency"))
    if key in ("throughput_per_gpu", "output_tps_per_user") and conc:
        text += f" at concurrency {conc:,}"
    extra = []
    if key == "throughput_per_gpu" and "output_tps_per_user" in row["metrics"]:
        extra.append(f"{_number(row['metrics']['output_tps_per_user'])} tokens/s per user")
    gpu = catalog.name_of("gpus", row["gpu"])
    model = catalog.name_of("models", row["model"])
    weights = catalog.name_of("quantization", row["weights"])
    lengths = [rs["method"].get("input_tokens"), rs["method"].get("output_tokens")]
    if all(lengths):
        extra.append(f"{lengths[0]:,} tokens in, {lengths[1]:,} out")
    text += (f" ({', '.join(extra)})" if extra else "") + f" on {row['gpus']}× {gpu}, {model} in {weights}"
    who = rs["title"]
    marks = []
    if rs.get("vendor_reported"):
        marks.append("vendor-reported")
    if rs.get("derived"):
        marks.append("per-GPU figure derived by this site")
    if rs.get("kind") == "community":
        marks.append("community measurement")
    date, what = _date(rs, row)
    said = f"Measured: {text}; {who}" + (f" ({'; '.join(marks)})" if marks else "") + (f", {what} {date}" if date else "")
    cost = view(catalog, rs, row)  # derived from cited list prices, never part of the measurement
    if cost["usd_per_million_tokens"] is not None:
        said += (f". Derived cost: about ${_money(cost['usd_per_million_tokens'])} per million "
                 f"{TOKENS_SHORT[cost['tokens_counted']]} at "
                 f"${_money(cost['price']['value'])} per GPU-hour ({cost['price']['source']})")
    return {"text": said, "metric": key, "value": row["metrics"][key], "set": rs["id"], "source": _source(rs),
            "usd_per_million_tokens": cost["usd_per_million_tokens"], "price": cost["price"],
            "tokens_counted": cost["tokens_counted"]}


def _money(value):
    return f"{value:,.2f}" if value >= 0.1 else f"{value:.3g}"


def rows_for(catalog, engine=None, gpu=None, hardware=None, model=None, weights=None, gpus=None, concurrency=None, limit=2):
    """Quotable rows for these answers, best match first: the same precision, the nearest GPU count and
    concurrency, the most recent; one row per result set."""
    results = getattr(catalog, "results", None) or {}
    if not (gpu or hardware or model):
        return []
    found = []
    for rs in results.values():
        for row in rs["rows"]:
            if engine and row["engine"] != engine:
                continue
            if model and row["model"] != model:
                continue
            row_family = (catalog.gpus.get(row["gpu"]) or {}).get("hardware")
            if gpu and row["gpu"] != gpu:
                continue
            if hardware and not gpu and row_family != hardware:
                continue
            said = phrase(catalog, rs, row)
            if said:
                conc = row.get("concurrency", rs["method"].get("concurrency")) or 1
                rank = ((weights == row["weights"]) if weights else 0,
                        -abs(math.log2(row["gpus"] / gpus)) if gpus else 0,
                        -abs(math.log2(conc / concurrency)) if concurrency else 0,
                        _date(rs, row)[0] or "")
                found.append((rank, said))
    found.sort(key=lambda x: x[0], reverse=True)
    seen, out = set(), []
    for _, said in found:
        if said["set"] in seen:
            continue  # one row per source keeps the quotes varied
        seen.add(said["set"])
        out.append(said)
        if len(out) == limit:
            break
    return out
