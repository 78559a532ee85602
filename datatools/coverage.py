"""How much of each engine's support grid is documented.

Four grids per engine (kind ``engine``): hardware (every hardware family), weight formats (every
format), quantization (every scheme on every hardware family the engine runs on, yes or partial)
and serving features. A cell is *documented* when the data says yes, partial or no with a source;
a missing row or ``value: unknown`` is *undocumented*, which the selector shows as "not documented"
and never treats as "no".
"""

GRIDS = ("hardware", "formats", "quantization", "features")


def engine_cells(data, engine):
    """``{grid: (documented, [undocumented cell labels])}`` for one engine."""
    hardware_ids = sorted(data.get("hardware", {}))
    out = {}
    listed = {x["id"]: x for x in engine.get("hardware", [])}
    out["hardware"] = [h for h in hardware_ids if h not in listed]
    total = {"hardware": len(hardware_ids)}
    formats = {x["id"] for x in engine.get("formats", [])}
    out["formats"] = [f for f in sorted(data.get("formats", {})) if f not in formats]
    total["formats"] = len(data.get("formats", {}))
    runs_on = [h for h in hardware_ids if listed.get(h, {}).get("support") in ("yes", "partial")]
    covered = {(q["id"], h) for q in engine.get("quantization", []) for h in q.get("hardware", [])}
    cells = [(q, h) for q in sorted(data.get("quantization", {})) for h in runs_on]
    out["quantization"] = [f"{q}@{h}" for q, h in cells if (q, h) not in covered]
    total["quantization"] = len(cells)
    feats = engine.get("features", {})
    out["features"] = sorted(k for k, v in feats.items() if (v or {}).get("value", "unknown") == "unknown")
    total["features"] = len(feats)
    return {g: (total[g] - len(out[g]), out[g]) for g in GRIDS}, total


def coverage(data):
    """Per engine and per grid: ``{engine_id: {grid: {"cells", "unknown", "missing"}}}`` plus totals."""
    per_engine, totals = {}, {g: [0, 0] for g in GRIDS}
    for engine_id, engine in sorted(data.get("engines", {}).items()):
        if engine.get("kind") != "engine":
            continue
        cells, total = engine_cells(data, engine)
        per_engine[engine_id] = {}
        for g in GRIDS:
            missing = cells[g][1]
            per_engine[engine_id][g] = {"cells": total[g], "unknown": len(missing), "missing": missing}
            totals[g][0] += total[g]
            totals[g][1] += len(missing)
    return per_engine, {g: {"cells": c, "unknown": u, "share": (u / c if c else 0.0)} for g, (c, u) in totals.items()}
