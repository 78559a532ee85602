"""The load answer: the recommendation at each number of users at once, and the loads where it changes.

At each load the ranking runs again with that concurrency. The scale follows the load: a local answer stays
local up to the users a desktop runtime is planned for (``fit_defaults.local_users``), then moves to the
serving tier; GPUs are added (doubled, as tensor parallelism grows) while the sequences do not fit or the
per-user speed falls under ``fit_defaults.min_user_tps``; past one node (``gpus_per_node``) the answer is a
cluster layer over replicas of the node's plan. Figures come from one measured result set where it holds a row
for the engine, GPU, GPU count, precision and that exact concurrency (one set per answer, never mixed), else
from the planner's capacity and decode-speed estimate, labelled as such and naming the engine assumed.
"""

import math

from . import costs
from .inputs import InputError, show_value
from .rules import recommend

LEVELS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
MAX_GPUS = 4096  # the most the questions accept
REASONS = ("batching", "memory", "per-user speed", "ranking")


def _figure(catalog, key):
    fact = catalog.questions["fit_defaults"][key]
    src = catalog.cite(catalog.questions, fact.get("source")) if fact.get("source") else None
    return fact["value"], ({"title": src["title"], "url": src["url"]} if src else None)


def _price(catalog, gpu, gpu_hour_usd):
    if gpu_hour_usd is None or gpu_hour_usd == "":
        return costs.gpu_price(catalog, gpu, None) if gpu else None
    try:
        given = costs.parse_gpu_hour_usd(gpu_hour_usd)
    except costs.CostError as exc:
        raise InputError("gpu_hour_usd", gpu_hour_usd, f"{show_value(gpu_hour_usd)} is not a price; {exc.allowed}",
                         label="GPU-hour price (USD)") from None
    return costs.gpu_price(catalog, gpu, given)


def _speed(fit):
    """(tokens/s per user, which figure) from the planner: the typical figure where measured rows give one, else the bound."""
    speed = (fit or {}).get("speed") or {}
    typical = speed.get("typical") or {}
    if typical.get("decode_tokens_per_s"):
        return typical["decode_tokens_per_s"], "typical"
    if speed.get("decode_tokens_per_s"):
        return speed["decode_tokens_per_s"], "bound"
    return None, None


def _plans(g0, node, start, cap):
    """Setups from the smallest: total GPUs doubling from ``start`` (total, tensor-parallel size); at each total the
    widest tensor parallelism within a node first (more KV room per GPU), then replicas of narrower ones."""
    total = start[0] * start[1]
    while total <= cap:
        tp = min(total, node)
        while tp >= max(g0, start[0]):
            yield tp, total // tp
            tp //= 2
        total *= 2


class _Prober:
    """The ranking at a load and tensor-parallel size, memoized: (top candidate, its fit) or (None, None)."""

    def __init__(self, catalog, answers, ctx):
        self.catalog, self.answers, self.ctx, self.seen = catalog, answers, ctx, {}

    def top(self, scale, users, tp):
        key = (scale, users, tp)
        if key not in self.seen:
            r = recommend(self.catalog, {**self.answers, "scale": scale, "concurrency": users, "gpus": tp})
            top = r["candidates"][0] if r["candidates"] else None
            self.seen[key] = (top, (top.get("fit") or r["fit"]) if top else None)
        return self.seen[key]

    def measured(self, engine, tp, users):
        return _measured_row(self.ctx["set"], engine, self.ctx["gpu"], tp, self.ctx["quant"], users) if self.ctx["gpu"] else None

    def user_speed(self, top, fit, tp, users):
        """Per-user output speed for the checks: the measured row at this load, else the planner's estimate, raised to
        the set's measured speed at the nearest higher load where there is one (fewer users never get slower)."""
        row = self.measured(top["engine"], tp, users)
        if row and row["metrics"].get("output_tps_per_user"):
            return row["metrics"]["output_tps_per_user"]
        above = [(c, v) for c, v in self.measured_speeds(top["engine"], tp) if c >= users]
        floor = min(above)[1] if above else 0
        return max(_speed(fit)[0] or 0, floor) or None

    def single(self, scale, tp):
        """What one user gets on this setup."""
        top, fit = self.top(scale, 1, tp)
        return self.user_speed(top, fit, tp, 1) if top else None

    def short(self, scale, users, tp, need_speed):
        """Why this setup does not serve ``users`` at once: "memory", "per-user speed" (only with ``need_speed``: the
        setup before gave one user the floor, so adding GPUs must not take it away), or None."""
        top, fit = self.top(scale, users, tp)
        if top is None:
            return "memory"
        if not self.measured(top["engine"], tp, users) and (not fit["fits"] or not fit["concurrency_met"]):
            return "memory"
        tps = self.user_speed(top, fit, tp, users)
        if need_speed and tps is not None and tps < self.ctx["floor"]:
            return "per-user speed"
        return None

    def measured_speeds(self, engine, tp):
        """(concurrency, per-user speed) of the set's rows for this engine on ``tp`` GPUs of the reader's kind."""
        rs, ctx = self.ctx["set"], self.ctx
        if rs is None:
            return []
        return [(r.get("concurrency", rs["method"].get("concurrency")), r["metrics"]["output_tps_per_user"]) for r in rs["rows"]
                if r["engine"] == engine and r["gpu"] == ctx["gpu"] and r["gpus"] == tp and r["weights"] == ctx["quant"]
                and "output_tps_per_user" in r["metrics"]]


def _set_for(catalog, model, gpu, quant, context):
    """The one result set the measured points come from: rows for this model, GPU and precision at several
    concurrencies, with input and output lengths whose sum is within a factor of two of the context; the nearest
    length, then the most rows."""
    best = None
    for rs in (getattr(catalog, "results", None) or {}).values():
        rows = [r for r in rs["rows"] if r["model"] == model and r["gpu"] == gpu and r["weights"] == quant
                and "throughput_per_gpu" in r["metrics"] and r.get("concurrency", rs["method"].get("concurrency"))]
        if len({r.get("concurrency", rs["method"].get("concurrency")) for r in rows}) < 2:
            continue
        length = (rs["method"].get("input_tokens") or 0) + (rs["method"].get("output_tokens") or 0)
        if not (rs["method"].get("input_tokens") and rs["method"].get("output_tokens")) or not context / 2 <= length <= context * 2:
            continue  # the memory a row's users held must be near the reader's: stated lengths within a factor of two
        key = (abs(math.log2(length / context)), -len(rows), rs["id"])
        if best is None or key < best[0]:
            best = (key, rs)
    return best[1] if best else None


def _measured_row(rs, engine, gpu, gpus, quant, users):
    if rs is None:
        return None
    found = [r for r in rs["rows"] if r["engine"] == engine and r["gpu"] == gpu and r["gpus"] == gpus
             and r["weights"] == quant and r.get("concurrency", rs["method"].get("concurrency")) == users
             and "throughput_per_gpu" in r["metrics"]]
    return max(found, key=lambda r: (r["metrics"]["throughput_per_gpu"], r.get("date") or ""), default=None)


def _number(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def _money(v):
    return f"{v:,.2f}" if v >= 0.1 else f"{v:.3g}"


def _point(catalog, ctx, users, scale, tp, replicas, top, fit, under, grew_for):
    """One load level: the recommendation and its figures, with where they come from."""
    gpu = ctx["gpu"]
    engine = top["engine"]
    name = top["name"]
    quant = ctx["quant"]
    gpu_name = catalog.name_of("gpus", gpu) if gpu else "GPU"
    gpus = tp * replicas
    nodes = math.ceil(gpus / ctx["node"])
    share = math.ceil(users / replicas)
    # a measured row is one deployment at one concurrency: replicas each serve their share of the users
    row = _measured_row(ctx["set"], under, gpu, tp, quant, share) if gpu else None
    if row:
        rs = ctx["set"]
        tpg = row["metrics"]["throughput_per_gpu"]
        per_user = row["metrics"].get("output_tps_per_user")
        total = round(tpg * row["gpus"] * replicas, 1)
        counted = rs["method"].get("tokens_counted")
        src = (rs.get("sources") or {}).get(rs.get("source")) or {}
        basis = {"kind": "measured", "set": rs["id"], "title": rs["title"], "engine": under, "concurrency": share,
                 "replicas": replicas,
                 "date": row.get("date"),
                 "source": {"title": src.get("title"), "url": src.get("url")},
                 "vendor_reported": bool(rs.get("vendor_reported"))}
        fits_all, sequences = True, None
    else:
        tps, which = _speed(fit)
        cap = (fit or {}).get("capacity") or {}
        sequences = cap.get("max_sequences")
        batch = min(share, sequences) if sequences else share
        fits_all = bool(fit and fit["fits"] and fit["concurrency_met"])
        per_user = round(tps * batch / share, 1) if tps else None
        total = round(tps * batch * replicas, 1) if tps else None
        tpg = round(total / gpus, 1) if total else None
        counted = "output"
        assumed = (fit or {}).get("assumptions", {}).get("engine_profile") or under
        basis = {"kind": "estimate", "engine": assumed, "engine_name": catalog.name_of("engines", assumed) if assumed else None,
                 "speed": which, "sequences_fit": sequences, "context_tokens": ctx["context"],
                 "label": ("estimate: the planner's decode speed " + ("(the memory-bandwidth bound times the measured ratio of "
                           "the engine family)" if which == "typical" else "(an upper bound from memory bandwidth)")
                           if which else "estimate: no speed without the GPU's bandwidth")}
    price = ctx["price"]
    usd = costs.usd_per_million_tokens(price["value"], tpg) if price and tpg else None
    setup = f"{name} on {gpus}× {gpu_name}"
    if replicas > 1:
        setup += (f" ({replicas} replicas of {tp} GPU{'s' if tp > 1 else ''}" + (f" on {nodes} nodes" if nodes > 1 else "")
                  + (f", {catalog.name_of('engines', under)} underneath" if under != engine else "") + ")")
    figures = []
    if per_user:
        figures.append(f"{_number(per_user)} output tokens/s per user")
    if total:
        figures.append(f"{_number(total)} {costs.TOKENS_SHORT.get(counted, 'tokens')}/s in all")
    if usd is not None:
        figures.append(f"${_money(usd)} per million {costs.TOKENS_SHORT.get(counted, 'tokens')}")
    if row:
        said = f"measured, {basis['title']}, at concurrency {share}" + (
            f" per replica; the total is that row times {replicas} replicas, derived by this site" if replicas > 1 else "")
    else:
        said = f"{basis['label']}, with {basis['engine_name'] or 'the engine'}'s memory plan"
        if sequences is not None:
            said += f"; {sequences:,} sequence{'' if sequences == 1 else 's'} of {ctx['context']:,} tokens fit" + ("" if replicas == 1 else " per replica")
        if not fits_all:
            said += f"; only {sequences or 0:,} of {share:,} fit at once, the rest wait"
    text = f"{users:,} user{'s' if users > 1 else ''} at once: {setup}" + (f", {', '.join(figures)}" if figures else "") + f" ({said})."
    return {"users": users, "scale": scale, "gpus": gpus, "tp": tp, "replicas": replicas, "nodes": nodes, "engine": engine, "name": name,
            "under": under, "quantization": quant, "per_user_tps": per_user, "total_tps": total, "tokens_per_s_per_gpu": tpg,
            "tokens_counted": counted, "usd_per_million_tokens": usd, "price": price if usd is not None else None,
            "fits_all": fits_all, "basis": basis, "grew_for": grew_for, "text": text,
            # the page shows these as written
            "label": f"{users:,} user{'s' if users > 1 else ''} at once", "counted_words": costs.TOKENS_SHORT.get(counted, "tokens"),
            "setup": _setup({"name": name, "gpus": gpus, "replicas": replicas, "tp": tp})}


def _setup(p):
    return f"{p['name']} on {p['gpus']} GPU{'s' if p['gpus'] > 1 else ''}" + (
        f" ({p['replicas']} replicas of {p['tp']})" if p["replicas"] > 1 else "")


def _flip(catalog, prev, cur, ctx):
    """Why the recommendation changed between two loads, in a sentence."""
    at = cur["users"]
    before, after = _setup(prev), _setup(cur)
    if prev["scale"] == "local" and cur["scale"] != "local":
        reason = "batching"
        fact = ctx["batching"].get(prev["engine"]) or {}
        other = ctx["batching"].get(cur["engine"]) or {}
        why = (f"past {ctx['local_users']} users at once a desktop runtime serves requests in a few parallel slots "
               f"({prev['name']}'s continuous batching: {fact.get('value', 'not documented')}"
               + (f", {fact['note']}" if fact.get("note") else "") + f"), while {cur['name']} batches every request as it "
               f"arrives (continuous batching: {other.get('value', 'not documented')})")
    elif cur["grew_for"] in ("memory", "per-user speed"):
        reason = cur["grew_for"]
        if reason == "memory":
            why = (f"the KV cache of {at:,} sequences of {ctx['context']:,} tokens no longer fits on {prev['gpus']} GPU"
                   f"{'s' if prev['gpus'] > 1 else ''}" + (f" ({prev['replicas']} replicas)" if prev["replicas"] > 1 else ""))
        else:
            why = (f"on {prev['gpus']} GPU{'s' if prev['gpus'] > 1 else ''} each user would get under "
                   f"{ctx['floor']:g} output tokens/s")
        if cur["scale"] == "cluster" and prev["scale"] != "cluster":
            why += (f"; one node of {ctx['node']} GPUs no longer holds the load, so it runs on {cur['nodes']} nodes of "
                    f"{catalog.name_of('engines', cur['under'])} under {cur['name']}, the cluster layer that routes between "
                    "them and can split prefill from decode (disaggregation)")
        else:
            why += (f"; {cur['gpus']} GPUs serve it" + (f" as {cur['replicas']} replicas of {cur['tp']} (data parallel)"
                                                       if cur["replicas"] > 1 else f" under {cur['tp']}-way tensor parallelism"))
    else:
        reason = "ranking"
        why = f"at this load the ranking puts {cur['name']} first"
    text = f"At {at:,} users the answer changes from {before} to {after}: {why}."
    return {"users": at, "reason": reason, "text": text,
            "from": {k: prev[k] for k in ("engine", "name", "scale", "gpus", "tp", "replicas", "nodes")},
            "to": {k: cur[k] for k in ("engine", "name", "scale", "gpus", "tp", "replicas", "nodes")}}


def load_answer(catalog, answers, gpu_hour_usd=None, levels=LEVELS):
    """The recommendation, per-user speed, total throughput and cost at each load, and the flips between them."""
    base = recommend(catalog, answers)  # refuses bad answers before anything else
    clean = dict(base["answers"])
    clean.pop("concurrency", None)
    fa = base["fit_answers"]
    gpu = clean.get("gpu")
    price = _price(catalog, gpu, gpu_hour_usd)
    floor, floor_src = _figure(catalog, "min_user_tps")
    local_users, local_src = _figure(catalog, "local_users")
    node, _ = _figure(catalog, "gpus_per_node")
    out = {"levels": list(levels), "points": [], "flips": [], "summary": "", "why": None,
           "floor": {"min_user_tps": floor, "source": floor_src}, "local_users": {"value": local_users, "source": local_src},
           "gpus_per_node": node, "price": price, "set": None, "price_note": None, "start": 0}
    if fa is None or base["fit"] is None:
        out["why"] = "Choose a model and a GPU (or the memory per GPU) to see the answer at each load."
        return out
    quant = fa.get("quantization")
    g0 = fa.get("gpus") or 1
    context = base["fit"]["context_tokens"]
    grows = base["fit"]["machine"]["mode"] == "discrete"
    rs = _set_for(catalog, clean["model"], gpu, quant, context) if gpu else None
    ctx = {"gpu": gpu, "quant": quant, "context": context, "set": rs, "price": price, "floor": floor,
           "local_users": local_users, "node": max(node, g0),
           "batching": {e["id"]: (e.get("features") or {}).get("continuous_batching") or {} for e in catalog.engines.values()}}
    # what the answer assumed (a quantization that fits, the host RAM it needs) holds at every load
    clean.update({k: v for k, v in base["assumed"].items() if k == "quantization"})
    clean.update({k: v for k, v in fa.items() if k == "ram_gb"})
    start = clean["scale"]
    probe = _Prober(catalog, clean, ctx)
    plan = (g0, 1)  # (tensor-parallel size, replicas): never smaller than at the load before
    for users in levels:
        scale = "service" if start == "local" and users > local_users else start
        ranked = "service" if scale == "cluster" else scale
        grew_for, chosen, last = None, None, None
        total_now, good = None, []
        need_speed = (probe.single(ranked, plan[0]) or 0) >= floor
        for tp, replicas in (_plans(g0, ctx["node"], plan, MAX_GPUS) if grows else [plan]):
            if good and tp * replicas != total_now:
                break  # the smallest total that serves the load: the fastest per user of its setups
            total_now = tp * replicas
            share = math.ceil(users / replicas)
            short = probe.short(ranked, share, tp, need_speed)
            last = (tp, replicas, short)
            if short is None:
                top, fit = probe.top(ranked, share, tp)
                good.append((probe.user_speed(top, fit, tp, share) or 0, -replicas, (tp, replicas)))
        if good:
            chosen = max(good)[2]
        if chosen is None:
            chosen = last[:2] if last else plan
        if chosen != plan:
            grew_for = probe.short(ranked, math.ceil(users / plan[1]), plan[0], need_speed)
        plan = chosen
        tp, replicas = chosen
        share = math.ceil(users / replicas)
        top, fit = probe.top(ranked, share, tp)
        if not top:
            break
        under = top["engine"]
        total = tp * replicas
        if total > ctx["node"] or scale == "cluster":
            scale = "cluster"
            top2, _ = probe.top("cluster", users, total)
            top = top2 or top
        out["points"].append(_point(catalog, ctx, users, scale, tp, replicas, top, fit, under, grew_for))
    points = out["points"]
    if not points:
        out["why"] = "No engine serves this model on this machine at any load; see the selector's answer for what would."
        return out
    for prev, cur in zip(points, points[1:]):
        if (prev["engine"], prev["scale"], prev["tp"], prev["replicas"]) != (cur["engine"], cur["scale"], cur["tp"], cur["replicas"]):
            out["flips"].append(_flip(catalog, prev, cur, ctx))
    measured = [p for p in points if p["basis"]["kind"] == "measured"]
    out["set"] = ({"id": rs["id"], "title": rs["title"], "loads": [p["users"] for p in measured]} if measured else None)
    if price is None:
        out["price_note"] = (f"No cited GPU-hour price for {catalog.name_of('gpus', gpu)}; type one to see the cost."
                             if gpu else "Type a GPU-hour price to see the cost.")
    else:
        out["price_note"] = (f"Costs use ${_money(price['value'])} per GPU-hour: "
                             + ("the price you typed." if price["rule"] == "given" else f"the {price['source']}."))
    asked = base["answers"].get("concurrency") or 1
    # where the page's slider starts: the load nearest the concurrency asked
    out["start"] = min(range(len(points)), key=lambda i: (abs(math.log2(points[i]["users"] / asked)), i))
    first = points[0]
    if out["flips"]:
        out["summary"] = (f"From {first['users']:,} to {points[-1]['users']:,} users at once the answer changes "
                          f"{len(out['flips'])} time{'s' if len(out['flips']) > 1 else ''}: "
                          + "; ".join(f"at {f['users']:,} ({f['reason']}) to {_setup(f['to'])}" for f in out["flips"]) + ".")
    else:
        out["summary"] = (f"From {first['users']:,} to {points[-1]['users']:,} users at once the answer stays "
                          f"{_setup(first)}.")
    return out
