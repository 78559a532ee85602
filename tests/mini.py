"""A tiny hand-made catalog for renderer tests (every collection, two engines)."""

import json
from pathlib import Path

from selector.catalog import Catalog

SRC = {"d": {"url": "https://example.org/docs", "title": "Docs <b>", "kind": "official-docs", "as_of": "2026-01-02"}}


def fact(v, note=None):
    f = {"value": v}
    if v != "unknown":
        f["source"] = "d"
    if note:
        f["note"] = note
    return f


# every serving feature of the engine schema, in its order (the schema is the one list of them)
FEATURES = list(json.loads((Path(__file__).resolve().parents[1] / "data" / "schema" / "engine.schema.json")
                           .read_text(encoding="utf-8"))["properties"]["features"]["properties"])


def engine(eid, name, tier="L2", status="active", **kw):
    e = {
        "id": eid, "name": name, "kind": "engine", "tier": tier, "homepage": "https://example.org/", "verified": "2026-01-02",
        "maintainer": {"value": "Team & Co", "source": "d"}, "license": {"value": "MIT", "source": "d"},
        "language": {"value": "C++", "source": "d"},
        "status": {"value": status, "since": "2025-01-01", "latest_version": "1.0", "released": "2026-01-01", "release_source": "d",
                   "source": "d"},
        "positioning": f"{name} positioning", "pick_when": ["when A"], "avoid_when": ["when B"],
        "hardware": [{"id": "gpu-x", "support": "yes", "source": "d"}],
        "formats": [{"id": "fmt", "support": "partial", "note": "beta", "source": "d"}],
        "quantization": [{"id": "q8", "support": "yes", "hardware": ["gpu-x"], "source": "d"}],
        "features": {k: fact("yes") for k in FEATURES},
        "figures": [{"id": "f1", "display": "2x faster", "claim": "claim text", "vendor_reported": True, "source": "d"}],
        "milestones": [{"date": "2025-02-03", "version": "v1", "event": "released", "source": "d"}],
        "sources": SRC,
    }
    e.update(kw)
    return e


def result_set(sid, comparable, kind, rows, vendor=False, derived=None, **method):
    rs = {"id": sid, "title": f"Set {sid} <i>", "kind": kind, "measured_by": "Bench & Co", "vendor_reported": vendor,
          "method": {"tool": f"benchtool {sid}", "throughput_counts": "output tokens per second", **method},
          "comparable_set": comparable, "source": "d", "sources": SRC, "verified": "2026-01-02", "rows": rows}
    if derived is not None:
        rs["derived"] = derived
    return rs


def row(engine, **kw):
    r = {"engine": engine, "gpu": "x80", "gpus": 1, "model": "m", "weights": "q8", "metrics": {}}
    r.update(kw)
    return r


# three comparable sets: a serving sweep (scatter), an audited Server round (one row with a per-user speed derived
# from TPOT, one without: a scatter and a bar chart), and a single-sequence bench filled by two sources (bars)
RESULTS = {
    "serve-a": result_set("serve-a", "serve-1k", "benchmark-suite", [
        row("alpha", engine_version="1.0", gpus=8, parallelism="TP8", concurrency=8, date="2025-12-01",
            metrics={"throughput_per_gpu": 1000, "output_tps_per_user": 50, "ttft_ms": {"median": 120.5, "p99": 400}}),
        row("beta", gpus=8, concurrency=64, metrics={"throughput_per_gpu": 3000, "output_tps_per_user": 20})],
        input_tokens=1024, output_tokens=1024, scenario="online"),
    "audit-server": result_set("audit-server", "audit-server", "audited-benchmark", [
        row("alpha", system="Sub, Sys 1", gpus=8, metrics={"throughput_per_gpu": 2000, "throughput_total": 16000,
                                                           "tpot_ms": {"median": 25, "p99": 40}}),
        row("beta", system="Other, Sys 2", gpus=4, kv="q8", metrics={"throughput_per_gpu": 2500, "throughput_total": 10000})],
        derived=True, dataset="D set", scenario="Server"),
    "bench-c": result_set("bench-c", "bench-512", "community", [
        row("alpha", concurrency=1, metrics={"prompt_tps": 900, "decode_tps": 40}, note="a <b>note</b>"),
        row("beta", concurrency=1, backend="Metal", metrics={"prompt_tps": 700, "decode_tps": 55})],
        input_tokens=512, output_tokens=128, concurrency=1),
    "bench-v": result_set("bench-v", "bench-512", "engine-project", [
        row("alpha", concurrency=1, metrics={"decode_tps": 60})], vendor=True, input_tokens=512, output_tokens=128, concurrency=1),
}


def mini_catalog(results=True):
    raw = {
        "hardware": {"gpu-x": {"id": "gpu-x", "name": "GPU X", "vendor": "V", "summary": "s", "source": "d", "sources": SRC, "verified": "2026-01-02"}},
        "gpus": {"x80": {"id": "x80", "name": "X 80GB", "hardware": "gpu-x", "memory_gib": 80, "memory_mode": "discrete", "bandwidth_gbs": 3350, "source": "d", "sources": SRC, "verified": "2026-01-02"}},
        "formats": {"fmt": {"id": "fmt", "name": "Fmt", "summary": "a format", "source": "d", "sources": SRC, "verified": "2026-01-02"}},
        "quantization": {"q8": {"id": "q8", "name": "Q8", "applies_to": "weights", "bits_per_weight": 8, "native_hardware": ["gpu-x"],
                                "summary": "eight bits", "source": "d", "sources": SRC, "verified": "2026-01-02"},
                         "bf": {"id": "bf", "name": "BF", "applies_to": "weights", "bits_per_weight": 16, "native_hardware": [],
                                "summary": "sixteen", "source": "d", "sources": SRC, "verified": "2026-01-02"}},
        "models": {"m": {"id": "m", "name": "M 8B", "vendor": "V", "architecture": "dense", "total_params_b": 8, "active_params_b": 8,
                         "params": {"embeddings": 0.5, "lm_head": 0.5, "attention": 1.3, "dense_mlp": 5.7}, "layers": 32, "attention": {"type": "gqa", "kv_heads": 8, "head_dim": 128},
                         "native_precision": "bf", "context_tokens": 8192, "source": "d", "sources": SRC, "verified": "2026-01-02"}},
        "engines": {"alpha": engine("alpha", "Alpha"), "beta": engine("beta", "Beta", status="maintenance")},
        "tiers": {"L2": {"id": "L2", "name": "Serving", "order": 1, "scale": "service", "audience": "teams", "summary": "sum",
                         "what_matters": ["speed"], "pick_within": "Alpha first", "mistake": "Beta", "verified": "2026-01-02"}},
        "trends": {"t": {"id": "t", "title": "Trend T", "order": 1, "summary": "trend summary", "points": [{"text": "point one", "source": "d"}],
                         "engines": ["alpha"], "sources": SRC, "verified": "2026-01-02"}},
        "matrix": {"speed": {"id": "speed", "name": "Speed", "order": 1, "question": "how fast",
                             "scores": {"alpha": {"score": 4, "rationale": "fast kernels", "source": "d"},
                                        "beta": {"score": 2, "rationale": "older", "source": "d"}},
                             "sources": SRC, "verified": "2026-01-02"}},
        "scenarios": {"s": {"id": "s", "order": 1, "situation": "a team", "answer": "use Alpha",
                            "answers": {"scale": "service", "workload": ["w"]}, "verified": "2026-01-02"}},
        "tree": {"id": "tree", "question": "Scale?", "verified": "2026-01-02",
                 "branches": [{"id": "svc", "scale": "service", "label": "Service", "tiers": ["L2"], "kinds": ["engine"], "question": "Need?",
                               "leaves": [{"id": "svc-d", "need": "default", "label": "Default", "default": True, "engines": ["alpha"]}]}],
                 "warnings": [{"engine": "beta", "text": "Beta is retired"}]},
        "questions": {"questions": [], "workloads": {}, "priorities": {}, "verified": "2026-01-02",
                      "fit_defaults": {"context_tokens": 8192, "concurrency": 1, "runtime_reserve_gib": {"value": 2, "note": "n"}, "local_reserve_gib": {"value": 1, "note": "n"},
                                       "gpu_fraction": {"value": 0.9, "note": "n"}, "host_reserve_gib": {"value": 8, "note": "n"},
                                       "unified_gpu_fraction": {"value": 0.75, "note": "n"}},
                      "memory_modes": {"discrete": "Discrete", "unified": "Unified", "cpu": "CPU"}, "sources": SRC},
    }
    raw["engines"]["beta"]["status"]["successors"] = ["alpha"]
    if results:
        import copy
        raw["results"] = copy.deepcopy(RESULTS)
    return Catalog(raw)
