"""Measured results: the explorer (``templates/results-filters.html``, ``results-group.html``,
``_results.html``), an engine page's short table (``results-engine.html``) and the counts other pages link.

``data/results`` holds published sets of measurements; sets that share a method share a ``comparable_set``.
The explorer groups rows by comparable set and never draws two sets in one chart."""

from urllib.parse import urlencode

from selector import costs as cost_rules

from .. import charts
from .common import engine_link, engines_ordered, enum_labels, link, parts, source, table, text


RESULT_FILTERS = [("engine", "Engine"), ("gpu", "GPU"), ("model", "Model"), ("weights", "Weight precision"),
                  ("set", "Comparable set (method and lengths)"), ("concurrency", "Concurrency")]
NO_CONCURRENCY = "none"  # filter value of rows whose method fixes no concurrency (MLPerf Offline, Server ...)
# metric key -> (column heading, unit)
RESULT_METRICS = {
    "throughput_per_gpu": ("Throughput per GPU", "tokens/s"),
    "throughput_total": ("System throughput", "tokens/s"),
    "output_tps_per_user": ("Output speed per user", "tokens/s"),
    "prompt_tps": ("Prompt processing", "tokens/s"),
    "decode_tps": ("Decode, one sequence", "tokens/s"),
    "requests_per_s": ("Requests", "per s"),
    "ttft_ms": ("Time to first token", "ms"),
    "tpot_ms": ("Time per output token", "ms"),
    "itl_ms": ("Inter-token latency", "ms"),
    "energy_j_per_token": ("Energy", "J per token"),
    "power_w": ("Power", "W"),
}
LATENCY_STATS = (("median", "p50"), ("p99", "p99"), ("mean", "mean"), ("p90", "p90"), ("p95", "p95"))
# the figure a set is summed up by, best first: bars use it, engine pages quote it
HEADLINE_METRICS = ("throughput_per_gpu", "decode_tps", "throughput_total", "prompt_tps", "output_tps_per_user", "requests_per_s")
RESULT_KIND_RANK = {"benchmark-suite": 0, "audited-benchmark": 1, "engine-project": 2, "vendor": 3, "paper": 4, "community": 5}
RESULT_KIND_LABEL = enum_labels("result-set.schema.json", "/properties/kind")
POWER_BOUNDARY_LABEL = enum_labels("result-set.schema.json", "/properties/method/properties/power_boundary")
SCATTER = {"width": 480, "height": 340, "left": 70, "right": 14, "top": 12, "bottom": 58}
BARS = {"width": 480, "row": 30, "top": 38, "bottom": 8, "pad": 6}


def result_url(**query):
    """The explorer's address filtered by ``query`` (``engine="vllm"`` -> ``results/?engine=vllm``)."""
    return "results/" + ("?" + urlencode(query, safe=",") if query else "")


def _result_date(rs, row):
    if row.get("date"):
        return row["date"], "run"
    src = rs["sources"].get(rs["source"]) or {}
    if src.get("published"):
        return src["published"], "published"
    return src.get("as_of", rs["verified"]), "as of"


def _result_marks(rs):
    marks = []
    if rs["vendor_reported"]:
        marks.append({"mark": "vendor-reported", "cls": "vendor",
                      "title": "Measured by whoever sells the hardware or builds the engine measured"})
    if rs["kind"] == "community":
        marks.append({"mark": "community", "cls": "community", "title": "Measured and shared by users, not audited"})
    if rs.get("derived"):
        marks.append({"mark": "derived, unofficial", "cls": "derived",
                      "title": "Some values were computed on this site from the published figures"})
    return marks


def result_rows(catalog):
    """Every row of every set, flattened, with what the pages need worked out once: its comparable set,
    per-user speed (measured, or derived as 1000 / median TPOT), concurrency, date and the filter values."""
    out = []
    for set_id in sorted(catalog.results):
        rs = catalog.results[set_id]
        group = rs.get("comparable_set") or set_id
        for i, row in enumerate(rs["rows"]):
            m = row["metrics"]
            per_user, derived_user = m.get("output_tps_per_user"), False
            tpot = (m.get("tpot_ms") or {}).get("median")
            if per_user is None and tpot:
                per_user, derived_user = round(1000 / tpot, 1), True
            conc = row.get("concurrency", rs["method"].get("concurrency"))
            date, basis = _result_date(rs, row)
            derived = cost_rules.view(catalog, rs, row)
            out.append({"id": f"r{len(out)}", "set_id": set_id, "set": rs, "group": group, "row": row, "index": i,
                        "per_user": per_user, "derived_user": derived_user, "concurrency": conc,
                        "date": date, "date_basis": basis, "cost": derived["usd_per_million_tokens"], "price": derived["price"],
                        "tokens_counted": derived["tokens_counted"], "energy": derived["joules_per_token"],
                        "filters": {"engine": row["engine"], "gpu": row["gpu"], "model": row["model"], "weights": row["weights"],
                                    "set": group, "concurrency": str(conc) if conc else NO_CONCURRENCY}})
    return out


def _headline(members):
    """The metric a group of rows is summed up by: the first of HEADLINE_METRICS that any row has."""
    for key in HEADLINE_METRICS:
        if any(key in r["row"]["metrics"] for r in members):
            return key
    return None


def _common_words(texts):
    words = [t.split() for t in texts]
    common = []
    for column in zip(*words):
        if len(set(column)) != 1:
            break
        common.append(column[0])
    return " ".join(common).rstrip(" ,;:(")


def _names(catalog, collection, ids, limit=3):
    names = [catalog.name_of(collection, i) for i in ids]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _lengths_text(method):
    i, o = method.get("input_tokens"), method.get("output_tokens")
    if i and o:
        return f"{i:,} input / {o:,} output tokens"
    if i:
        return f"{i:,} input tokens"
    if o:
        return f"{o:,} output tokens"
    return None


def _group_title(catalog, sets, members):
    if len(sets) == 1:
        return sets[0]["title"]
    models = _names(catalog, "models", sorted({r["row"]["model"] for r in members}, key=lambda m: catalog.name_of("models", m).lower()))
    bits = [_common_words([s["method"]["tool"] for s in sets]) or "one method"]
    method = sets[0]["method"]
    if _lengths_text(method):
        bits.append(_lengths_text(method))
    if method.get("concurrency"):
        bits.append(f"concurrency {method['concurrency']}")
    return f"{models}: " + ", ".join(bits)


def _distinct(values):
    out = []
    for v in values:
        if v and v not in out:
            out.append(v)
    return out


def _group_method(sets, members):
    """The method of a comparable set in words, as (label, [texts]) pairs."""
    first = sets[0]["method"]
    tools = _distinct(s["method"]["tool"] for s in sets)
    if len(tools) > 1:
        tools = [f"{s['method']['tool']} ({s['title']})" for s in sets]
    lengths = _lengths_text(first)
    if any(r["row"].get("input_tokens") or r["row"].get("output_tokens") for r in members):
        lengths = ((lengths + "; ") if lengths else "") + "some rows set their own lengths (see the table)"
    datasets = _distinct(s["method"].get("dataset") for s in sets)
    if not lengths:
        lengths = "set by the dataset" if datasets else "not stated by the source"
    if first.get("concurrency"):
        conc = f"{first['concurrency']} (every row)"
    elif any(r["row"].get("concurrency") for r in members):
        conc = "per row (see the table)"
    else:
        conc = "no fixed number: the load generator sets the load"
    items = [("Tool", tools), ("Scenario", _distinct(s["method"].get("scenario") for s in sets)),
             ("Lengths", [lengths]), ("Concurrency", [conc]), ("Dataset", datasets),
             ("What throughput counts", _distinct(s["method"]["throughput_counts"] for s in sets)),
             ("What the measured power covers", _distinct(POWER_BOUNDARY_LABEL.get(s["method"].get("power_boundary")) for s in sets))]
    return [{"label": label, "texts": texts} for label, texts in items if texts]


def _metric_cell(key, value, derived=False):
    if value is None:
        return [text("")]
    if key in ("ttft_ms", "tpot_ms", "itl_ms"):
        shown = [(short, value[stat]) for stat, short in LATENCY_STATS if stat in value]
        if "median" in value or "p99" in value:
            shown = [(s, v) for s, v in shown if s in ("p50", "p99")]
        return [text(" · ".join(f"{s} {charts.number(v)}" for s, v in shown))]
    cell = [text(charts.number(value))]
    if derived:
        cell.append({"mark": "derived", "cls": "derived", "title": "1000 / median time per output token, computed on this site"})
    return cell


TOKENS_SHORT = cost_rules.TOKENS_SHORT


def _cost_words(r):
    """How a row's cost was derived, in one sentence (a cell's title, a point's tooltip)."""
    price = r["price"]
    return (f"Derived, not measured: ${charts.number(price['value'])} per GPU-hour ({price['source']}) / "
            f"({charts.number(r['row']['metrics']['throughput_per_gpu'])} tokens/s per GPU x 3600) x 10^6, "
            f"counting {TOKENS_SHORT[r['tokens_counted']]}")


def _cost_cell(r):
    if r["cost"] is None:
        return [text("")]
    return [text(charts.number(r["cost"])), {"mark": "derived", "cls": "derived", "title": _cost_words(r)}]


def _row_identity(catalog, r, with_engine=True, with_model=True):
    """What tells a row from the others of its chart, most telling first (a bar's label)."""
    row = r["row"]
    bits = [catalog.name_of("engines", row["engine"])] if with_engine else []
    gpu = catalog.name_of("gpus", row["gpu"])
    bits.append(gpu if row["gpus"] == 1 else f"{row['gpus']}× {gpu}")
    if with_model:
        bits.append(catalog.name_of("models", row["model"]))
    bits.append(catalog.name_of("quantization", row["weights"]))
    if row.get("backend"):
        bits.append(row["backend"])
    if row.get("system"):
        bits.append(row["system"].split(",")[0])
    if row.get("variant"):
        bits.append(row["variant"])
    return bits


def _row_title(catalog, r, figures):
    row = r["row"]
    who = [catalog.name_of("engines", row["engine"]) + (f" {row['engine_version']}" if row.get("engine_version") else ""),
           f"{row['gpus']}× {catalog.name_of('gpus', row['gpu'])}", catalog.name_of("models", row["model"]),
           catalog.name_of("quantization", row["weights"])]
    for key in ("backend", "parallelism", "system", "variant"):
        if row.get(key):
            who.append(row[key])
    if r["concurrency"]:
        who.append(f"concurrency {r['concurrency']}")
    return " · ".join(who) + ": " + "; ".join(figures) + f" ({r['date']}, {r['date_basis']})"


def _styles(catalog, rows):
    """Colour slot and marker shape of each engine with rows, in the site's engine order."""
    present = {r["row"]["engine"] for r in rows}
    ids = [e["id"] for e in engines_ordered(catalog) if e["id"] in present] + sorted(present - set(catalog.engines))
    return {eid: {"slot": i % charts.PALETTE_SIZE, "shape": charts.SHAPES[i % len(charts.SHAPES)]} for i, eid in enumerate(ids)}


def _legend(catalog, members, styles):
    engines = [eid for eid in styles if any(r["row"]["engine"] == eid for r in members)]
    return [{"id": eid, "name": catalog.name_of("engines", eid), **styles[eid]} for eid in engines]


def _scatter(catalog, gid, members, styles):
    g = SCATTER
    x = charts.Axis([r["per_user"] for r in members], g["left"], g["width"] - g["right"])
    y = charts.Axis([r["row"]["metrics"]["throughput_per_gpu"] for r in members], g["height"] - g["bottom"], g["top"])
    points = []
    for r in sorted(members, key=lambda r: (r["per_user"], r["id"])):
        tput = r["row"]["metrics"]["throughput_per_gpu"]
        figures = [f"{charts.number(tput)} tokens/s per GPU",
                   f"{charts.number(r['per_user'])} output tokens/s per user" + (" (derived from median TPOT)" if r["derived_user"] else "")]
        points.append({"row": r["id"], "attrs": r["filters"], "x": x(r["per_user"]), "y": y(tput), "derived": r["derived_user"],
                       "title": _row_title(catalog, r, figures), **styles[r["row"]["engine"]]})
    derived = any(p["derived"] for p in points)
    scale = [name for name, axis in (("per-user speed", x), ("throughput", y)) if axis.log]
    return {"kind": "scatter", "id": f"chart-{gid}-xy", "set": gid, "width": g["width"], "height": g["height"],
            "plot": {"left": g["left"], "right": g["width"] - g["right"], "top": g["top"], "bottom": g["height"] - g["bottom"]},
            "title": f"Throughput per GPU against output speed per user, {len(points)} rows",
            "scale_note": ("logarithmic scale on " + " and ".join(scale)) if scale else None,
            "x": {"label": "Output tokens/s per user" + (" (log scale)" if x.log else ""), "ticks": x.tick_marks()},
            "y": {"label": "Tokens/s per GPU" + (" (log scale)" if y.log else ""), "ticks": y.tick_marks()},
            "points": points, "legend": _legend(catalog, members, styles), "derived": derived, "derived_shape": charts.SHAPES[0]}


def _cost_scatter(catalog, cid, gid, members, styles, title=None):
    """Cost per million tokens (log scale when it spans a wide range) against output speed per user."""
    g = SCATTER
    x = charts.Axis([r["per_user"] for r in members], g["left"], g["width"] - g["right"])
    y = charts.Axis([r["cost"] for r in members], g["height"] - g["bottom"], g["top"])
    points = []
    for r in sorted(members, key=lambda r: (r["per_user"], r["id"])):
        figures = [f"${charts.number(r['cost'])} per million {TOKENS_SHORT[r['tokens_counted']]} (derived from "
                   f"${charts.number(r['price']['value'])} per GPU-hour)",
                   f"{charts.number(r['per_user'])} output tokens/s per user" + (" (derived from median TPOT)" if r["derived_user"] else "")]
        points.append({"row": r["id"], "attrs": r["filters"], "x": x(r["per_user"]), "y": y(r["cost"]), "derived": r["derived_user"],
                       "title": _row_title(catalog, r, figures), **styles[r["row"]["engine"]]})
    scale = [name for name, axis in (("per-user speed", x), ("cost", y)) if axis.log]
    counted = sorted({TOKENS_SHORT[r["tokens_counted"]] for r in members})
    return {"kind": "scatter", "id": cid, "set": gid, "width": g["width"], "height": g["height"], "extra": True,
            "plot": {"left": g["left"], "right": g["width"] - g["right"], "top": g["top"], "bottom": g["height"] - g["bottom"]},
            "title": (title or f"Cost per million tokens against output speed per user, {len(points)} rows")
                     + f" (tokens counted: {' / '.join(counted)})",
            "scale_note": ("logarithmic scale on " + " and ".join(scale)) if scale else None,
            "x": {"label": "Output tokens/s per user" + (" (log scale)" if x.log else ""), "ticks": x.tick_marks()},
            "y": {"label": "USD per million tokens" + (" (log scale)" if y.log else ""), "ticks": y.tick_marks()},
            "points": points, "legend": _legend(catalog, members, styles), "derived": any(p["derived"] for p in points),
            "derived_shape": charts.SHAPES[0], "cost": True}


def _bars(catalog, gid, members, styles, key):
    g = BARS
    label, unit = RESULT_METRICS[key]
    axis = charts.Axis([r["row"]["metrics"][key] for r in members], g["pad"], g["width"] - g["pad"], log=False, target=4)
    several_models = len({r["row"]["model"] for r in members}) > 1
    several_engines = len({r["row"]["engine"] for r in members}) > 1
    bars = []
    for i, r in enumerate(sorted(members, key=lambda r: (-r["row"]["metrics"][key], r["id"]))):
        value = r["row"]["metrics"][key]
        top = g["top"] + i * g["row"]
        bars.append({"row": r["id"], "attrs": r["filters"], "slot_index": i, "top": top, "text_y": top + 13, "bar_y": top + 18,
                     "width": max(round(axis(value) - g["pad"], 1), 1), "value": charts.number(value),
                     "label": charts.truncate(" · ".join(_row_identity(catalog, r, several_engines, several_models)), 50),
                     "title": _row_title(catalog, r, [f"{charts.number(value)} {unit} ({label.lower()})"]),
                     **styles[r["row"]["engine"]]})
    height = g["top"] + len(bars) * g["row"] + g["bottom"]
    return {"kind": "bars", "id": f"chart-{gid}-{key}", "set": gid, "width": g["width"], "height": height, "row": g["row"],
            "top": g["top"], "bottom": g["bottom"], "pad": g["pad"], "metric": key,
            "title": f"{label} ({unit}), {len(bars)} rows, largest first",
            "axis": {"label": f"{label} ({unit})", "ticks": axis.tick_marks()}, "bars": bars,
            "legend": _legend(catalog, members, styles), "derived": False, "derived_shape": None, "scale_note": None}


def _group_charts(catalog, gid, members, styles):
    """A scatter of the rows with both throughput per GPU and per-user speed; a bar chart of the set's
    headline figure for the others; rows with neither are named, never dropped silently."""
    xy = [r for r in members if r["per_user"] is not None and "throughput_per_gpu" in r["row"]["metrics"]]
    rest = [r for r in members if r not in xy]
    out = []
    if xy:
        out.append(_scatter(catalog, gid, xy, styles))
    key = _headline(rest)
    barred = [r for r in rest if key and key in r["row"]["metrics"]]
    if barred:
        out.append(_bars(catalog, gid, barred, styles, key))
    missing = len(rest) - len(barred)
    costed = [r for r in members if r["cost"] is not None and r["per_user"] is not None]
    if costed:  # drawn besides the charts above: the same rows, priced
        out.append(_cost_scatter(catalog, f"chart-{gid}-cost", gid, costed, styles))
    return out, missing


def _group_table(catalog, title, method, members):
    """The set's table: the engine, then the figures people come for (the set's headline figure, its
    cost, per-user speed, energy) so they show without scrolling sideways, then what sets rows apart."""
    headline = _headline(members)
    metrics = [k for k in RESULT_METRICS if any(k in r["row"]["metrics"] for r in members)
               or (k == "output_tps_per_user" and any(r["derived_user"] for r in members))]
    first = [k for k in (headline, "output_tps_per_user", "energy_j_per_token") if k in metrics]
    metrics = first + [k for k in metrics if k not in first]
    costed = any(r["cost"] is not None for r in members)
    figures = [(k, f"{RESULT_METRICS[k][0]} ({RESULT_METRICS[k][1]})") for k in metrics]
    if costed:
        figures.insert(1 if headline in metrics else 0, ("cost", "Cost per million tokens (USD, derived)"))
    own_lengths = any(r["row"].get("input_tokens") or r["row"].get("output_tokens") for r in members)
    headers = ["Engine"] + [h for _, h in figures] + ["GPU × count", "Model", "Weights", "Concurrency", "Version",
                                                      "System or submitter", "KV cache", "Parallelism"]
    headers += (["Input / output tokens"] if own_lengths else []) + ["Date", "Marks and notes", "Source"]
    rows = []
    for r in members:
        row, rs = r["row"], r["set"]
        gpu = f"{row['gpus']} × {catalog.name_of('gpus', row['gpu'])}" + (f" ({row['backend']})" if row.get("backend") else "")
        cells = [[engine_link(catalog, row["engine"])]]
        for k, _ in figures:
            if k == "cost":
                cells.append(_cost_cell(r))
            elif k == "output_tps_per_user":
                cells.append(_metric_cell(k, r["per_user"], r["derived_user"]))
            else:
                cells.append(_metric_cell(k, row["metrics"].get(k)))
        cells += [[text(gpu)], [text(catalog.name_of("models", row["model"]))], [text(catalog.name_of("quantization", row["weights"]))],
                  [text(r["concurrency"] or "not fixed")], [text(row.get("engine_version", ""))],
                  [text(row.get("system") or rs["measured_by"])],
                  [text(catalog.name_of("quantization", row["kv"]) if row.get("kv") else "16-bit (default)")],
                  [text(row.get("parallelism", ""))]]
        if own_lengths:
            i = row.get("input_tokens", rs["method"].get("input_tokens"))
            o = row.get("output_tokens", rs["method"].get("output_tokens"))
            cells.append([text(f"{i or '?'} / {o or '?'}")])
        cells.append([text(r["date"]), {"small": r["date_basis"]}])
        notes = [dict(m) for m in _result_marks(rs)]
        if row.get("variant"):
            notes.append(text(row["variant"]))
        if row.get("note"):
            notes.append({"small": row["note"]})
        cells.append(notes)
        src = source(rs["sources"].get(rs["source"]))
        cells.append([{"cite": src}] if src else [text("")])
        rows.append({"id": r["id"], "attrs": r["filters"], "cells": cells})
    said = {m["label"]: m["texts"] for m in method}
    told = "; ".join(f"{label.lower()}: {said[label][0]}" for label in ("Tool", "Lengths", "Concurrency")
                     if label in said and len(said[label]) == 1)
    caption = f"{title}. {told[:1].upper()}{told[1:]}"
    headers, rows, common = _lift_common_columns(headers, rows, figures=range(1, 1 + len(figures)))
    if common:
        names = [c["label"] if c["label"].startswith("GPU") else c["label"].lower() for c in common]
        caption += ". The same in every row, given above the table: " + "; ".join(names)
    return {"caption": caption, "headers": [[text(h)] for h in headers], "rows": rows, "common": common}


def _lift_common_columns(headers, rows, figures):
    """Columns that say the same in every row of a set (the model of an MLPerf set, its source and date,
    "not fixed" concurrency...) leave the table for one line above it, and columns empty in every row
    leave it altogether: the table keeps what tells its rows apart, and the page has a quarter fewer
    cells. The figures always stay, and so does every column of a set with a single row."""
    if len(rows) < 2:
        return headers, rows, []
    same = [i for i in range(len(headers)) if i not in figures
            and all(r["cells"][i] == rows[0]["cells"][i] for r in rows[1:])]
    if not same:
        return headers, rows, []
    blank = lambda cells: all(set(p) == {"text"} and not p["text"].strip() for p in cells)  # noqa: E731
    common = [{"label": headers[i], "cells": rows[0]["cells"][i]} for i in same if not blank(rows[0]["cells"][i])]
    kept = [i for i in range(len(headers)) if i not in same]
    return ([headers[i] for i in kept], [dict(r, cells=[r["cells"][i] for i in kept]) for r in rows], common)


def result_groups(catalog, rows=None):
    """Rows grouped by comparable set, best-known kinds of source first: each group has its title, method
    in words, sources, charts and table."""
    rows = result_rows(catalog) if rows is None else rows
    styles = _styles(catalog, rows)
    by_group = {}
    for r in rows:
        by_group.setdefault(r["group"], []).append(r)
    groups = []
    for gid, members in by_group.items():
        sets = []
        for r in members:
            if r["set"] not in sets:
                sets.append(r["set"])
        title = _group_title(catalog, sets, members)
        method = _group_method(sets, members)
        sources = []
        for s in sets:
            src = source(s["sources"].get(s["source"]))
            sources.append({"title": s["title"], "measured_by": s["measured_by"], "kind": RESULT_KIND_LABEL.get(s["kind"], s["kind"]),
                            "marks": _result_marks(s), "rows": len(s["rows"]), "cite": src, "summary": s.get("summary"),
                            "license": (s["sources"].get(s["source"]) or {}).get("license"), "notes": s["method"].get("notes"),
                            "verified": s["verified"]})
        chart_list, missing = _group_charts(catalog, gid, members, styles)
        groups.append({"id": gid, "anchor": f"set-{gid}", "title": title, "method": method, "sources": sources,
                       "charts": chart_list, "not_charted": missing, "count": len(members),
                       "models": sorted({r["row"]["model"] for r in members}),
                       "rank": min(RESULT_KIND_RANK.get(s["kind"], 9) for s in sets),
                       "headline": _headline(members), "members": members,
                       "table": _group_table(catalog, title, method, members)})
    groups.sort(key=lambda g: (g["rank"], _names(catalog, "models", g["models"]).lower(), g["title"].lower()))
    return groups


def price_table(catalog):
    """Every cited on-demand list price: as listed, per GPU (an instance price divided, said so), where and when."""
    body = []
    for pid, pl in sorted((getattr(catalog, "prices", None) or {}).items()):
        for i, p in enumerate(pl["prices"]):
            src = source((pl.get("sources") or {}).get(p.get("source") or pl["source"]))
            listed = f"${charts.number(p['usd_per_hour'])} per " + ("GPU" if p["per"] == "gpu" else f"instance of {p['gpus_per_instance']} GPUs")
            per_gpu = [text(f"${charts.number(cost_rules.per_gpu(p))}")]
            if p["per"] == "instance" and p.get("gpus_per_instance", 1) > 1:
                per_gpu.append({"mark": "derived", "cls": "derived", "title": "The instance price divided by its GPUs, on this site"})
            body.append({"id": f"price-{pid}-{i}", "attrs": {}, "cells": [
                [text(pl["name"])], [text(catalog.name_of("gpus", p["gpu"]))], [text(p["offer"])], [text(listed)], per_gpu,
                [text(p["region"])], [text(p["as_of"])], [text(p.get("note", ""))], [{"cite": src}] if src else [text("")]]})
    return {"caption": "On-demand list prices as the sources give them; the cost uses the per-GPU column",
            "headers": [[text(h)] for h in ("Provider", "GPU", "Offer", "Listed price per hour", "Per GPU-hour (USD)",
                                              "Region", "Read on", "Note", "Source")],
            "rows": body, "common": []}


def cost_overview(catalog, rows, groups, limit=10):
    """The default view: for each model, cost per million tokens against per-user speed in the comparable
    set that prices it on the most GPU types (one set per chart, as everywhere); the models compared on
    the most GPU types come first."""
    styles = _styles(catalog, rows)
    picks = []
    for model in sorted({r["row"]["model"] for r in rows}):
        best = None
        for g in groups:
            members = [r for r in g["members"] if r["row"]["model"] == model and r["cost"] is not None and r["per_user"] is not None]
            if not members:
                continue
            rank = (len({r["row"]["gpu"] for r in members}), len(members), g["id"])
            if best is None or rank > best[0]:
                best = (rank, g, members)
        if best:
            picks.append(best)
    picks.sort(key=lambda p: (-p[0][0], -p[0][1], catalog.name_of("models", p[2][0]["row"]["model"]).lower()))
    out = []
    for (gpus, n, _), g, members in picks[:limit]:
        name = catalog.name_of("models", members[0]["row"]["model"])
        out.append({"model": name, "group": g["id"], "anchor": g["anchor"], "group_title": g["title"], "gpus": gpus,
                    "chart": _cost_scatter(catalog, f"chart-overview-{members[0]['row']['model']}", g["id"], members, styles,
                                           title=f"{name}: cost per million tokens against output speed per user, {n} rows on "
                                                 f"{gpus} GPU type{'s' if gpus != 1 else ''}")})
    prices = sorted({r["row"]["gpu"] for r in rows if r["price"]})
    return {"charts": out, "rule": cost_rules.PRICE_RULE, "offers": price_table(catalog),
            "providers": [{"name": pl["name"], "summary": pl.get("summary")} for _, pl in sorted((getattr(catalog, "prices", None) or {}).items())],
            "prices": [{"gpu": catalog.name_of("gpus", gpu), "price": cost_rules.gpu_price(catalog, gpu)} for gpu in prices]}


def _filter_options(catalog, rows, groups):
    counts = {}
    for r in rows:
        for key, value in r["filters"].items():
            counts.setdefault(key, {}).setdefault(value, 0)
            counts[key][value] += 1
    order = {
        "engine": [e["id"] for e in engines_ordered(catalog)],
        "set": [g["id"] for g in groups],
    }

    def label(key, value):
        if key == "set":
            return next(g["title"] for g in groups if g["id"] == value)
        if key == "concurrency":
            return "not fixed" if value == NO_CONCURRENCY else value
        collection = {"engine": "engines", "gpu": "gpus", "model": "models", "weights": "quantization"}[key]
        return catalog.name_of(collection, value)

    def sort_key(key, value):
        if key in order:
            return (order[key].index(value) if value in order[key] else len(order[key]), value)
        if key == "concurrency":
            return (value == NO_CONCURRENCY, int(value) if value.isdigit() else 0, value)
        return (label(key, value).lower(), value)

    out = []
    for key, name in RESULT_FILTERS:
        values = sorted(counts.get(key, {}), key=lambda v: sort_key(key, v))
        out.append({"key": key, "label": name,
                    "options": [{"value": v, "label": label(key, v), "count": counts[key][v]} for v in values]})
    return out


def results_explorer(catalog):
    """The explorer page: filters from the values present, then one section per comparable set."""
    rows = result_rows(catalog)
    groups = result_groups(catalog, rows)
    return {"filters": _filter_options(catalog, rows, groups), "total": len(rows), "sets": len(catalog.results),
            "overview": cost_overview(catalog, rows, groups), "load": load_curves(catalog, rows),
            "groups": [{k: v for k, v in g.items() if k not in ("members", "models", "rank")} for g in groups]}


def result_counts(catalog, key):
    """Rows per filter value (``engine``, ``gpu``, ``model`` ...) and comparable sets per value."""
    rows, sets = {}, {}
    for r in result_rows(catalog):
        value = r["filters"][key]
        rows[value] = rows.get(value, 0) + 1
        sets.setdefault(value, set()).add(r["group"])
    return {v: {"rows": n, "sets": len(sets[v])} for v, n in rows.items()}


def results_link_cell(counts, key, value):
    """A table cell linking to the explorer filtered to ``value``, or a quiet "none yet"."""
    c = counts.get(value)
    if not c:
        return [{"unknown": "none yet"}]
    return [link(result_url(**{key: value}), f"{c['rows']} row{'s' if c['rows'] != 1 else ''}")]


def engine_results(catalog, engine_id, limit=10):
    """An engine page's short table: its best row in each comparable set (best-known sets first), then
    its next best, up to ``limit`` rows; and a link to all its rows in the explorer."""
    rows = [r for r in result_rows(catalog) if r["row"]["engine"] == engine_id]
    name = catalog.name_of("engines", engine_id)
    if not rows:
        return {"name": name, "total": 0, "sets": 0, "table": None, "link": None,
                "contribute": link("contributing/", "how to contribute results")}
    groups = result_groups(catalog, rows)
    queues = []
    for g in groups:
        key = g["headline"]
        ranked = sorted(g["members"], key=lambda r: (-(r["row"]["metrics"].get(key) or 0), r["id"]))
        queues.append((g, key, ranked))
    picked = []
    depth = 0
    while len(picked) < limit and any(depth < len(q[2]) for q in queues):
        for g, key, ranked in queues:
            if depth < len(ranked) and len(picked) < limit:
                picked.append((g, key, ranked[depth]))
        depth += 1
    order = {g["id"]: i for i, g in enumerate(groups)}
    picked.sort(key=lambda p: (order[p[0]["id"]], -(p[2]["row"]["metrics"].get(p[1]) or 0)))
    out = []
    for g, key, r in picked:
        row, rs = r["row"], r["set"]
        label, unit = RESULT_METRICS[key]
        figure = [text(f"{charts.number(row['metrics'][key])} {unit}"), {"br": True}, {"small": label}]
        if r["per_user"] is not None and key != "output_tps_per_user":
            figure += [{"br": True}, {"small": f"at {charts.number(r['per_user'])} tokens/s per user"
                                               + (" (derived)" if r["derived_user"] else "")}]
        marks = _result_marks(rs)
        src = source(rs["sources"].get(rs["source"]))
        setup = " · ".join([f"{row['gpus']} × {catalog.name_of('gpus', row['gpu'])}", catalog.name_of("models", row["model"]),
                            catalog.name_of("quantization", row["weights"])])
        out.append([[link(result_url(engine=engine_id, set=g["id"]), g["title"])], [text(setup)],
                    [text(r["concurrency"] or "not fixed")], figure, [text(r["date"]), {"br": True}, {"small": r["date_basis"]}],
                    parts(*marks, {"cite": src} if src else None)])
    t = table(["Comparable set", "GPU × count · model · weights", "Concurrency", "Figure", "Date", "Marks and source"], out,
              cls="iem-table iem-results-short")
    return {"name": name, "total": len(rows), "sets": len(groups), "shown": len(out), "table": t,
            "link": link(result_url(engine=engine_id), f"All {len(rows)} rows of {name} in the explorer"), "contribute": None}


def results_compare_cell(counts, engine_id):
    """The compare view's cell: rows and comparable sets of the engine, linked to the filtered explorer."""
    c = counts.get(engine_id)
    if not c:
        return [{"unknown": "none yet"}]
    return [link(result_url(engine=engine_id),
                 f"{c['rows']} row{'s' if c['rows'] != 1 else ''} in {c['sets']} comparable set{'s' if c['sets'] != 1 else ''}")]


def compare_costs(catalog, engine_ids, limit=4):
    """The compare view's cost rows: for each (model, comparable set) that prices rows of two or more
    engines, the engines compared on most first, each engine's cheapest priced row with its GPU and
    per-user speed; an engine without a priced row there says so."""
    rows = [r for r in result_rows(catalog) if r["cost"] is not None]
    pairs = {}
    for r in rows:
        pairs.setdefault((r["row"]["model"], r["group"]), []).append(r)
    ranked = sorted(pairs.items(), key=lambda kv: (-len({r["row"]["engine"] for r in kv[1]}), -len(kv[1]), kv[0]))
    out = []
    for (model, gid), members in ranked[:limit]:
        if len({r["row"]["engine"] for r in members}) < 2:
            break
        title = members[0]["set"]["title"] if len({r["set_id"] for r in members}) == 1 else gid
        cells = []
        for eid in engine_ids:
            own = [r for r in members if r["row"]["engine"] == eid]
            if not own:
                cells.append([{"unknown": "no priced row"}])
                continue
            best = min(own, key=lambda r: (r["cost"], r["id"]))
            where = f"{best['row']['gpus']}× {catalog.name_of('gpus', best['row']['gpu'])}"
            speed = f", {charts.number(best['per_user'])} tokens/s per user" if best["per_user"] is not None else ""
            cells.append([text(f"${charts.number(best['cost'])}"), {"span": "(derived)", "title": _cost_words(best)},
                          {"br": True}, {"small": f"{where}{speed}"}, {"br": True},
                          link(result_url(engine=eid, model=model, set=gid), f"{len(own)} priced row{'s' if len(own) != 1 else ''}")])
        label = [text(f"Lowest cost per million {TOKENS_SHORT[members[0]['tokens_counted']]}, "
                      f"{catalog.name_of('models', model)}"), {"br": True}, {"small": title}]
        out.append((label, cells))
    return out


def load_curves(catalog, rows=None, pairs=4, width=6):
    """The load control: for the (model, comparable set) pairs measured at the most loads, each setup's
    per-user speed, total throughput and cost at every concurrency it was measured at (measured curves,
    one set only), and where the cheapest measured setup changes as the load grows."""
    rows = result_rows(catalog) if rows is None else rows
    by_pair = {}
    for r in rows:
        if r["concurrency"] and r["per_user"] is not None and "throughput_per_gpu" in r["row"]["metrics"]:
            row = r["row"]
            key = (row["engine"], row["gpu"], row["gpus"], row["weights"], row.get("parallelism"), row.get("variant"), row.get("system"))
            by_pair.setdefault((row["model"], r["group"]), {}).setdefault(key, {})
            by_pair[(row["model"], r["group"])][key].setdefault(r["concurrency"], r)  # first row at a load stands
    out = []
    ranked = []
    for (model, gid), series in by_pair.items():
        curves = {k: v for k, v in series.items() if len(v) >= 3}
        if len(curves) >= 2:
            ranked.append((-len(curves), -sum(len(v) for v in curves.values()), model, gid, curves))
    ranked.sort(key=lambda x: x[:4])
    for _, _, model, gid, curves in ranked[:pairs]:
        chosen = sorted(curves.items(), key=lambda kv: (-len(kv[1]), kv[0][0], kv[0][1], kv[0][2]))[:width]
        names = []
        for key, points in chosen:
            r = next(iter(points.values()))
            names.append(" · ".join([catalog.name_of("engines", key[0]), f"{key[2]}× {catalog.name_of('gpus', key[1])}",
                                     catalog.name_of("quantization", key[3])] + [k for k in key[4:6] if k]))
        # loads at which two or more of these setups were measured: only there is "cheapest" a comparison
        levels = sorted(c for c in {c for _, points in chosen for c in points} if sum(c in points for _, points in chosen) >= 2)
        table, cheapest, changes = [], [], []
        for level in levels:
            cells = []
            best = None
            for i, (key, points) in enumerate(chosen):
                r = points.get(level)
                if not r:
                    cells.append(None)
                    continue
                total = round(r["row"]["metrics"]["throughput_per_gpu"] * r["row"]["gpus"], 1)
                cells.append({"row": r["id"], "per_user": charts.number(r["per_user"]), "total": charts.number(total),
                              "cost": charts.number(r["cost"]) if r["cost"] is not None else None,
                              "derived_user": r["derived_user"]})
                if r["cost"] is not None and (best is None or r["cost"] < best[1]):
                    best = (i, r["cost"])
            winner = names[best[0]] if best else None
            last = next((w for w in reversed(cheapest) if w), None)
            if winner and last and winner != last:
                changes.append({"at": level, "from": last, "to": winner})
            cheapest.append(winner)
            table.append({"level": level, "cells": cells, "cheapest": winner})
        g_title = next(r["set"]["title"] for r in rows if r["group"] == gid)
        pid = f"load-{model}-{gid}"
        body = []
        for i, level in enumerate(table):
            cells = [[text(f"{level['level']:,}")]]
            for c in level["cells"]:
                if c is None:
                    cells.append([{"unknown": "not measured at this load"}])
                    continue
                cells.append([text(f"{c['per_user']} tokens/s per user" + (" (derived)" if c["derived_user"] else "")), {"br": True},
                              {"small": f"{c['total']} tokens/s in all"}]
                             + ([{"br": True}, text(f"${c['cost']} per million"), {"mark": "derived", "cls": "derived",
                                                                                     "title": "Derived from cited list prices"}]
                                if c["cost"] else []))
            cells.append([text(level["cheapest"] or "no priced setup")])
            body.append({"id": f"{pid}-{i}", "attrs": {"level": str(i)}, "cells": cells})
        said = ("; ".join(f"at {c['at']:,} concurrent requests the cheapest priced setup becomes {c['to']}" for c in changes)
                if changes else "the same priced setup stays cheapest at every load measured here")
        out.append({"id": pid, "model": catalog.name_of("models", model), "set": gid, "set_title": g_title,
                    "anchor": f"set-{gid}", "series": names, "levels": table, "changes": changes, "said": said,
                    "table": {"caption": f"{catalog.name_of('models', model)}, {g_title}: per-user speed, total throughput and "
                                         f"derived cost at each load, from measured rows of this set only",
                              "headers": [[text("Concurrent requests")]] + [[text(n)] for n in names]
                                         + [[text("Cheapest measured here")]],
                              "rows": body, "common": []}})
    return out
