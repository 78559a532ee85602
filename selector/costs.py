"""What a measured row costs and what energy it used per token: figures derived from a row, never measured.

``usd_per_million_tokens = price per GPU-hour / (tokens/s per GPU x 3600) x 10^6``.  The price is the
reader's (``given``) or the median of the cited on-demand list prices for that GPU (``data/prices``; an
instance price is divided by its GPUs first).  Which tokens a row counts comes from its set's method
(``tokens_counted``).  Energy per token is only ever a source's measurement, with its power boundary.
"""

import math

PRICE_RULE = "median"  # of the cited on-demand list prices per GPU-hour for the row's GPU
MAX_GPU_HOUR_USD = 10000
TOKENS_COUNTED = {  # method.tokens_counted -> words
    "input+output": "input and output tokens",
    "output": "output (generated) tokens only",
    "input": "input (prompt) tokens only",
}


TOKENS_SHORT = {"input+output": "input and output tokens", "output": "output tokens", "input": "input tokens"}


class CostError(ValueError):
    """A bad option: ``str()`` is one line naming the option, the value and what is allowed."""

    def __init__(self, option, value, allowed):
        self.option, self.value, self.allowed = option, value, allowed
        super().__init__(f"--{option}: {value!r} is not allowed; {allowed}")


def per_gpu(price):
    """US dollars per GPU-hour of one listed offer (an instance price divided by its GPUs)."""
    n = price.get("gpus_per_instance", 1) if price["per"] == "instance" else 1
    return round(price["usd_per_hour"] / n, 4)


def offers(catalog, gpu):
    """Every cited on-demand offer for this GPU, cheapest first, each with its per-GPU price and source."""
    out = []
    for pid, pl in sorted((getattr(catalog, "prices", None) or {}).items()):
        for p in pl["prices"]:
            if p["gpu"] != gpu:
                continue
            src = (pl.get("sources") or {}).get(p.get("source") or pl["source"]) or {}
            out.append({"provider": pid, "provider_name": pl["name"], "offer": p["offer"], "usd_per_gpu_hour": per_gpu(p),
                        "listed_usd_per_hour": p["usd_per_hour"], "per": p["per"],
                        "gpus_per_instance": p.get("gpus_per_instance", 1) if p["per"] == "instance" else 1,
                        "divided": p["per"] == "instance" and p.get("gpus_per_instance", 1) > 1,
                        "region": p["region"], "as_of": p["as_of"],
                        "source": {"title": src.get("title"), "url": src.get("url")}})
    out.sort(key=lambda o: (o["usd_per_gpu_hour"], o["provider"], o["offer"]))
    return out


def _median(values):
    values = sorted(values)
    n = len(values)
    mid = n // 2
    return values[mid] if n % 2 else round((values[mid - 1] + values[mid]) / 2, 4)


def gpu_price(catalog, gpu, given=None):
    """The price a row's cost uses: ``{"value" (USD per GPU-hour), "source", "rule", "offers", "list_price"}`` or None."""
    if given is not None:
        return {"value": given, "unit": "USD per GPU-hour", "source": "given", "rule": "given", "offers": 0, "list_price": False}
    found = offers(catalog, gpu)
    if not found:
        return None
    providers = sorted({o["provider"] for o in found})
    value = _median([o["usd_per_gpu_hour"] for o in found])
    return {"value": value, "unit": "USD per GPU-hour", "rule": PRICE_RULE, "offers": len(found), "list_price": True,
            "source": (f"median of {len(found)} cited on-demand list price{'s' if len(found) > 1 else ''} "
                       f"per GPU-hour ({', '.join(providers)})")}


def usd_per_million_tokens(usd_per_gpu_hour, tokens_per_s_per_gpu):
    """Dollars per million tokens at this price and per-GPU throughput (rounded to 4 significant figures)."""
    if not usd_per_gpu_hour or not tokens_per_s_per_gpu:
        return None
    value = usd_per_gpu_hour / (tokens_per_s_per_gpu * 3600) * 1e6
    return float(f"{value:.4g}")


def parse_gpu_hour_usd(text):
    """``--gpu-hour-usd`` as a float, or CostError."""
    allowed = f"give a price in US dollars per GPU-hour, a number above 0 and at most {MAX_GPU_HOUR_USD:,}"
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise CostError("gpu-hour-usd", text, allowed) from None
    if not math.isfinite(value) or value <= 0 or value > MAX_GPU_HOUR_USD:
        raise CostError("gpu-hour-usd", text, allowed)
    return value


def energy(rs, row):
    """A measured energy per token with its power boundary, or None (never estimated)."""
    m = row["metrics"]
    if "energy_j_per_token" not in m:
        return None
    method = rs["method"]
    return {"value": m["energy_j_per_token"], "boundary": method.get("power_boundary"),
            "tokens": method.get("tokens_counted"), "power_w": m.get("power_w")}


def view(catalog, rs, row, given=None):
    """One measured row as the results command and the explorer give it: the row, then the derived cost."""
    src = (rs.get("sources") or {}).get(rs.get("source")) or {}
    out = {k: row[k] for k in ("engine", "gpu", "gpus", "model", "weights") if k in row}
    out["concurrency"] = row.get("concurrency", rs["method"].get("concurrency"))
    out["input_tokens"] = row.get("input_tokens", rs["method"].get("input_tokens"))
    out["output_tokens"] = row.get("output_tokens", rs["method"].get("output_tokens"))
    out["metrics"] = row["metrics"]
    out["set"] = rs["id"]
    out["comparable_set"] = rs.get("comparable_set", rs["id"])
    out["source"] = {"title": src.get("title"), "url": src.get("url")}
    tps = row["metrics"].get("throughput_per_gpu")
    counted = rs["method"].get("tokens_counted") if tps else None
    price = gpu_price(catalog, row["gpu"], given) if tps and counted else None
    out["tokens_counted"] = counted
    out["price"] = price
    out["usd_per_million_tokens"] = usd_per_million_tokens(price["value"], tps) if price else None
    out["cost_marked"] = "derived" if price else None
    out["joules_per_token"] = energy(rs, row)
    return out


def _check_id(catalog, option, collection, value):
    known = getattr(catalog, collection, None) or {}
    if value is not None and value not in known:
        shown = ", ".join(sorted(known)[:12]) + (", ..." if len(known) > 12 else "")
        raise CostError(option, value, f"give an id from data/{collection}: {shown}")


def results(catalog, model=None, gpu=None, engine=None, gpu_hour_usd=None):
    """``{"rows": [...]}``: every measured row matching the filters, each with its derived cost."""
    _check_id(catalog, "model", "models", model)
    _check_id(catalog, "gpu", "gpus", gpu)
    _check_id(catalog, "engine", "engines", engine)
    given = parse_gpu_hour_usd(gpu_hour_usd) if gpu_hour_usd is not None else None
    rows = []
    for set_id in sorted(getattr(catalog, "results", None) or {}):
        rs = catalog.results[set_id]
        for row in rs["rows"]:
            if (model and row["model"] != model) or (gpu and row["gpu"] != gpu) or (engine and row["engine"] != engine):
                continue
            rows.append(view(catalog, rs, row, given))
    return {"rows": rows, "price_rule": ("the price given" if given is not None else
                                         "the median of the cited on-demand list prices per GPU-hour for the row's GPU "
                                         "(an instance price divided by its GPUs)"),
            "formula": "usd_per_million_tokens = price per GPU-hour / (tokens/s per GPU x 3600) x 10^6"}


def page_costs(catalog, gpu_hour_usd=None):
    """The explorer's cost column at the reader's price: ``{"rows": [{"row", "usd_per_million_tokens"}], "note"}``, the
    rows in the order the build numbers them (``r0``, ``r1``, ... over the sets sorted by id); the cited median when
    no price is given."""
    given = gpu_hour_usd if gpu_hour_usd not in (None, "") else None
    out = results(catalog, gpu_hour_usd=given)
    rows = [{"row": f"r{i}", "usd_per_million_tokens": r["usd_per_million_tokens"]} for i, r in enumerate(out["rows"])]
    if given is None:
        note = "Costs use the median of the cited on-demand list prices for each row's GPU."
    else:
        value = parse_gpu_hour_usd(given)
        note = (f"Costs in the tables use ${value:,.2f} per GPU-hour, the price you typed, for every GPU; the charts and the "
                "load tables keep the cited prices.")
    return {"rows": rows, "note": note, "formula": out["formula"]}
