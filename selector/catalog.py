"""The catalog: every data file, validated, behind one object.

``Catalog(raw)`` wraps plain dicts (as read from YAML on the build side by :mod:`datatools.files`, or from
``catalog.json`` in the browser); validation is build side (:mod:`datatools.validate`).
"""

# collection folder -> schema file.  Order matters: references point backwards.
COLLECTIONS = {
    "hardware": "hardware.schema.json",
    "gpus": "gpu.schema.json",
    "formats": "format.schema.json",
    "quantization": "quantization.schema.json",
    "models": "model.schema.json",
    "engines": "engine.schema.json",
    "launch": "launch.schema.json",
    "tiers": "tier.schema.json",
    "trends": "trend.schema.json",
    "matrix": "dimension.schema.json",
    "scenarios": "scenario.schema.json",
    "results": "result-set.schema.json",
    "prices": "price-list.schema.json",
}
# single files at the top of data/
SINGLETONS = {
    "tree": "tree.schema.json",
    "questions": "questions.schema.json",
    "glossary": "glossary.schema.json",
    "aliases": "aliases.schema.json",
    "others": "others.schema.json",
}


class Catalog:
    """Read-only view of the validated data with the look-ups every consumer needs."""

    def __init__(self, raw):
        self.raw = raw
        for name in COLLECTIONS:
            setattr(self, name, raw.get(name, {}))
        for name in SINGLETONS:  # tree, questions, glossary, aliases, others
            setattr(self, name, raw.get(name, {}))
        for rs in self.results.values():  # the browser's catalog writes what every row of a set shares once
            if "row_defaults" in rs:
                rs["rows"] = [{**rs["row_defaults"], **row} for row in rs["rows"]]
                del rs["row_defaults"]
        self._renamed = {(a["collection"], a["id"]): a for a in self.aliases.get("aliases", [])}

    def alias(self, collection, old_id):
        """The row of data/aliases.yaml for an id that was published in ``collection`` and is gone, or None."""
        return self._renamed.get((collection, old_id))

    # -- sources -------------------------------------------------------------
    def cite(self, entry, key):
        """The source dict an entry's fact points at (``None`` when absent)."""
        if not key:
            return None
        return (entry.get("sources") or {}).get(key)

    def all_sources(self):
        """Every citation as ``(collection, entry_id, key, source)``, sorted by URL."""
        rows = []
        for name in COLLECTIONS:
            for entry_id, entry in getattr(self, name).items():
                for key, src in (entry.get("sources") or {}).items():
                    rows.append((name, entry_id, key, src))
        for name in SINGLETONS:
            for key, src in (getattr(self, name).get("sources") or {}).items():
                rows.append((name, None, key, src))
        return sorted(rows, key=lambda r: (r[3]["url"], r[0], r[1] or "", r[2]))

    # -- engines -------------------------------------------------------------
    def engines_in(self, tiers=None, kinds=None):
        out = [e for e in self.engines.values()
               if (tiers is None or e["tier"] in tiers) and (kinds is None or e["kind"] in kinds)]
        return sorted(out, key=lambda e: (e["tier"], e["name"].lower()))

    def support(self, engine, list_name, item_id):
        """An engine's entry for ``item_id`` in ``hardware``/``formats``/``quantization``, or None."""
        return next((x for x in engine.get(list_name, []) if x["id"] == item_id), None)

    def support_all(self, engine, list_name, item_id):
        """Every entry for ``item_id`` (quantization may list one id per hardware group)."""
        return [x for x in engine.get(list_name, []) if x["id"] == item_id]

    def name_of(self, collection, item_id):
        entry = getattr(self, collection).get(item_id)
        return (entry or {}).get("name", item_id)

    def dimensions(self):
        return sorted(self.matrix.values(), key=lambda d: (d["order"], d["id"]))

    def matrix_engines(self):
        ids = []
        for dim in self.dimensions():
            for engine_id in dim["scores"]:
                if engine_id not in ids:
                    ids.append(engine_id)
        return ids


SELECTOR_ENGINE_FIELDS = ("id", "name", "kind", "tier", "positioning", "status", "hardware", "formats",
                          "quantization", "features", "memory", "relations")


def trim_launch(template):
    """The part of a launch template the generator reads: no notes for maintainers, no engine-page setups."""
    out = {k: template[k] for k in ("id", "engine", "version", "backend", "notes") if k in template}
    out["steps"] = [{k: s[k] for k in ("program", "separate", "file", "source") if k in s} for s in template["steps"]]
    out["flags"] = [{k: v for k, v in f.items() if k not in ("note", "earlier_defaults")} for f in template["flags"]]
    for f, full in zip(out["flags"], template["flags"]):
        if full.get("earlier_defaults"):
            f["earlier_defaults"] = [{"default": e["default"], "source": e["source"]} for e in full["earlier_defaults"]]
    if template.get("dp_attention"):
        out["dp_attention"] = {k: template["dp_attention"][k] for k in ("tensor_parallel", "source")}
    out["sources"] = {s: {"title": c["title"], "url": c["url"]} for s, c in (template.get("sources") or {}).items()}
    return out


ROW_FIELDS = ("engine", "gpu", "gpus", "model", "weights", "concurrency", "date")


def _shared(rows):
    """The row fields every row of a result set holds with one value (Catalog puts them back into each row)."""
    first = rows[0] if rows else {}
    return {f: first[f] for f in ROW_FIELDS if f in first and all(f in row and row[f] == first[f] for row in rows)}


def trim_for_selector(raw):
    """The part of the catalog the selector reads (the browser downloads this).

    Engine prose, figures and milestones are dropped; each entry keeps only the
    citations its remaining facts point at, with title and URL.
    """
    def keep_sources(entry, kept):
        used = set()
        stack = [kept]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if isinstance(node.get("source"), str):
                    used.add(node["source"])
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
        return {k: {"title": v["title"], "url": v["url"]} for k, v in (entry.get("sources") or {}).items() if k in used}

    out = {}
    engines = {}
    kinds = {eid: e.get("kind") for eid, e in raw.get("engines", {}).items()}
    for eid, e in raw.get("engines", {}).items():
        kept = {k: e[k] for k in SELECTOR_ENGINE_FIELDS if k in e}
        if "status" in kept:  # the rules read the state, its date, successors and source, not the release notes
            kept["status"] = {k: v for k, v in kept["status"].items() if k in ("value", "since", "successors", "source")}
        # the selector reads the relations that make companions: engines underneath and KV-cache layers
        # companions (engines underneath and KV-cache layers), and the engine a runtime is built on, whose measured
        # speeds stand in for the runtime's (selector.fit.speed_family)
        kept["relations"] = [r for r in e.get("relations", []) if r["type"] in ("backend", "built-on")
                             or "kv-cache" in (e.get("kind"), kinds.get(r["engine"]))]
        kept["sources"] = keep_sources(e, kept)
        engines[eid] = kept
    out["engines"] = engines
    out["hardware"] = {k: {"id": v["id"], "name": v["name"]} for k, v in raw.get("hardware", {}).items()}
    out["formats"] = {k: {"id": v["id"], "name": v["name"]} for k, v in raw.get("formats", {}).items()}
    out["gpus"] = {k: {f: v[f] for f in ("id", "name", "hardware", "memory_gib", "memory_mode", "bandwidth_gbs", "gpu_usable", "memory_reported") if f in v}
                   for k, v in raw.get("gpus", {}).items()}
    out["quantization"] = {k: {f: v[f] for f in ("id", "name", "applies_to", "bits_per_weight", "quantizes", "group_bits",
                                                 "family", "native_hardware") if f in v}
                           for k, v in raw.get("quantization", {}).items()}
    out["models"] = {k: {f: v[f] for f in ("id", "name", "architecture", "total_params_b", "active_params_b", "params",
                                           "experts", "layers", "attention", "native_precision", "stored", "context_tokens",
                                           "config_context_tokens", "vocab_size", "vendor", "checkpoints", "drafts")
                         if f in v}
                     for k, v in raw.get("models", {}).items()}
    matrix = {}
    for did, d in raw.get("matrix", {}).items():
        kept = {f: d[f] for f in ("id", "name", "order", "scores")}
        kept["sources"] = keep_sources(d, kept)
        matrix[did] = kept
    out["matrix"] = matrix
    out["launch"] = {k: trim_launch(v) for k, v in raw.get("launch", {}).items()}
    for model in out["models"].values():  # the launch command reads a checkpoint's repository and its note
        if "checkpoints" in model:
            model["checkpoints"] = [{f: c[f] for f in ("repo", "quantization", "note") if f in c} for c in model["checkpoints"]]
        if "drafts" in model:  # and a published draft's method, repository and engines
            model["drafts"] = [{f: d[f] for f in ("method", "repo", "engines")} for d in model["drafts"]]
    results = {}
    for set_id, rs in raw.get("results", {}).items():
        src = (rs.get("sources") or {}).get(rs.get("source")) or {}
        kept = {f: rs[f] for f in ("id", "title", "kind", "vendor_reported", "derived", "comparable_set", "source", "verified") if f in rs}
        kept["method"] = {f: rs["method"][f] for f in ("concurrency", "input_tokens", "output_tokens", "tokens_counted", "power_boundary")
                          if f in rs["method"]}
        kept["sources"] = {rs["source"]: {k: src[k] for k in ("title", "url", "published") if k in src}} if src else {}
        shared = _shared(rs["rows"])
        if shared:
            kept["row_defaults"] = shared
        kept["rows"] = [{**{f: row[f] for f in ROW_FIELDS if f in row and f not in shared},
                         "metrics": {**{k: row["metrics"][k] for k in ("throughput_per_gpu", "output_tps_per_user", "decode_tps", "prompt_tps",
                                                                       "energy_j_per_token", "power_w")
                                        if k in row["metrics"]},
                                     # the selector quotes the median latencies only
                                     **{k: {"median": row["metrics"][k]["median"]} for k in ("ttft_ms", "tpot_ms")
                                        if "median" in row["metrics"].get(k, {})}}} for row in rs["rows"]]
        results[set_id] = kept
    out["results"] = results
    out["prices"] = {k: {"id": v["id"], "name": v["name"], "source": v["source"], "prices": v["prices"],
                         "sources": {s: {"title": src["title"], "url": src["url"]} for s, src in v["sources"].items()}}
                     for k, v in raw.get("prices", {}).items()}
    out["tree"] = raw.get("tree", {})
    questions = dict(raw.get("questions", {}))
    if "questions" in questions:  # the help lines are for the form the build renders, not for the rules
        questions["questions"] = [{k: v for k, v in q.items() if k != "help"} for q in questions["questions"]]
    out["questions"] = questions
    out["aliases"] = raw.get("aliases", {})
    return out
