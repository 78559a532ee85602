"""Rows of ``data/results/inferencex-deepseek-r1-*.yaml`` from the InferenceX API snapshot, re-derivable.

The snapshot is ``packages/app/cypress/fixtures/api/benchmarks.json`` of SemiAnalysisAI/InferenceX-app at the
commit named in each file's source URL. Every point with the file's input and output lengths becomes one row
(its run link, attempt and image in the note), except AMD ATOM points (not an engine this site lists) and
disaggregated points without worker counts (their GPU count is unclear). Values are copied and rounded, never
computed. Energy per token is InferenceX's ``joules_per_total_token`` (mean per-GPU board power x GPUs x window /
input+output tokens) on single-node points; a point whose mean power over its per-GPU throughput misses that
figure by more than 2% (a power monitor that saw other GPUs) stops the conversion.

    python -m datatools.inferencex --git-dir CLONE_OF_InferenceX-app [--check]
    python -m datatools.inferencex --benchmarks benchmarks.json [--check]

``--check`` writes nothing and exits 1 when a file's rows differ from the snapshot's.
"""

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from .files import parse_yaml_text, read_schemas
from .fixer import comments_of, format_document, write_file

FIXTURE = "packages/app/cypress/fixtures/api/benchmarks.json"
FILES = {"inferencex-deepseek-r1-1k1k": (1024, 1024), "inferencex-deepseek-r1-1k8k": (1024, 8192),
         "inferencex-deepseek-r1-8k1k": (8192, 1024)}
SCHEMA_REF = "../schema/result-set.schema.json"
GPUS = {"h100": "h100-sxm", "h200": "h200", "b200": "b200", "b300": "b300", "gb200": "gb200-nvl72",
        "gb300": "gb300-nvl72", "mi300x": "mi300x", "mi325x": "mi325x", "mi355x": "mi355x"}
AMD = {"mi300x", "mi325x", "mi355x"}
# framework -> (engine id, what the note says about the serving stack); ATOM is not an engine here
FRAMEWORKS = {"sglang": ("sglang", "single node; GPU count is the TP size"),
              "trt": ("tensorrt-llm", "single node; GPU count is the TP size"),
              "dynamo-sglang": ("dynamo", "Dynamo serving SGLang workers"),
              "dynamo-trt": ("dynamo", "Dynamo serving TensorRT-LLM workers"),
              "mori-sglang": ("sglang", "SGLang prefill/decode disaggregation over AMD MoRI")}
# image repository -> engine whose release the tag names
VERSIONED_IMAGES = {"lmsysorg/sglang": "sglang", "nvcr.io/nvidia/tensorrt-llm/release": "tensorrt-llm",
                    "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime": "dynamo"}
RUN_URL = re.compile(r"^https://github\.com/SemiAnalysisAI/InferenceX/actions/runs/(\d+)/attempts/(\d+)$")
COMMIT_URL = re.compile(r"/SemiAnalysisAI/InferenceX-app/(?:tree|blob)/([0-9a-f]{40})/")


class SnapshotError(Exception):
    """A point the conversion does not understand; the message is one line."""


def _topology(tp, ep, dp):
    return f"TP{tp} EP{ep}" + (" with DP attention" if dp else "")


def _gpus_and_parallelism(p):
    if not p["disagg"]:
        if p["prefill_tp"] != p["decode_tp"]:
            raise SnapshotError(f"single-node point with prefill TP {p['prefill_tp']} and decode TP {p['decode_tp']}")
        return p["decode_tp"], _topology(p["decode_tp"], p["decode_ep"], p["decode_dp_attention"])
    pw, dw = p["prefill_num_workers"], p["decode_num_workers"]
    gpus = p["num_prefill_gpu"] + p["num_decode_gpu"]  # a worker may span more GPUs than its TP size
    text = (f"disaggregated: {pw}x prefill ({_topology(p['prefill_tp'], p['prefill_ep'], p['prefill_dp_attention'])})"
            f" + {dw}x decode ({_topology(p['decode_tp'], p['decode_ep'], p['decode_dp_attention'])})")
    return gpus, text


def _energy(p):
    """InferenceX's measured energy per token of a single-node point, or {} (see the module docstring)."""
    m = p["metrics"]
    if p["disagg"] or "joules_per_total_token" not in m:
        return {}  # multinode joules before InferenceX's power_metric_schema_version 2 may be role-local
    expect = m["avg_power_w"] / m["tput_per_gpu"]
    if abs(expect - m["joules_per_total_token"]) > 0.02 * expect:
        raise SnapshotError(f"run {p['run_url']} conc {p['conc']}: {m['joules_per_total_token']} J per token, but "
                            f"{m['avg_power_w']} W per GPU / {m['tput_per_gpu']:.1f} tokens/s per GPU = {expect:.4g}")
    return {"energy_j_per_token": round(m["joules_per_total_token"], 4)}


def row(p):
    """The catalog row of one snapshot point, or None when the point is left out."""
    if p["framework"] not in FRAMEWORKS or (p["disagg"] and not (p["prefill_num_workers"] and p["decode_num_workers"])):
        return None
    engine, stack = FRAMEWORKS[p["framework"]]
    run = RUN_URL.match(p["run_url"])
    if p["model"] != "dsr1" or p["hardware"] not in GPUS or p["precision"] not in ("fp4", "fp8") or not run:
        raise SnapshotError(f"unexpected point: {p['model']} {p['hardware']} {p['precision']} {p['run_url']}")
    gpus, parallelism = _gpus_and_parallelism(p)
    image = p.get("image")
    out = {"engine": engine}
    repo, _, tag = (image or "").partition(":")
    if VERSIONED_IMAGES.get(repo) == engine:
        out["engine_version"] = tag
    m = p["metrics"]
    out.update({
        "gpu": GPUS[p["hardware"]], "gpus": gpus, "model": "deepseek-r1",
        "weights": p["precision"] if p["precision"] == "fp8" else ("mxfp4" if p["hardware"] in AMD else "nvfp4"),
        "parallelism": parallelism, "concurrency": p["conc"]})
    if p["spec_method"] == "mtp":
        out["variant"] = "MTP speculative decoding"
    elif p["spec_method"] != "none":
        raise SnapshotError(f"unknown spec_method {p['spec_method']!r} in run {run.group(1)}")
    out["date"] = p["date"]
    out["metrics"] = {
        "throughput_per_gpu": round(m["tput_per_gpu"], 1), "output_tps_per_user": round(m["median_intvty"], 1),
        "ttft_ms": {"median": round(m["median_ttft"] * 1000, 1), "p99": round(m["p99_ttft"] * 1000, 1)},
        "tpot_ms": {"median": round(m["median_tpot"] * 1000, 2)}, **_energy(p)}
    shown = f"image {image}" if image else "container image not recorded for this point in the snapshot"
    out["note"] = f"InferenceX GitHub Actions run {run.group(1)} (attempt {run.group(2)}); {shown}; {stack}"
    if p["disagg"] and "joules_per_total_token" in m:
        out["note"] += "; InferenceX's energy figure left out (multinode joules of this date may cover one role only)"
    return out


def _order(r):
    return (r["engine"], r["note"].split("; ")[2], r["gpu"], r["weights"], "variant" not in r, r["gpus"],
            r["concurrency"], r["parallelism"], r["date"])


def rows(points, isl, osl):
    """The rows for one pair of lengths, in a stable order (engine, stack, GPU, weights, variant, size, load)."""
    out = [r for p in points if p["isl"] == isl and p["osl"] == osl for r in [row(p)] if r]
    return sorted(out, key=_order)


def _commit(doc, name):
    url = doc["sources"][doc["source"]]["url"]
    found = COMMIT_URL.search(url)
    if not found:
        raise SnapshotError(f"{name}: source url {url} names no 40-hex InferenceX-app commit")
    return found.group(1)


def _points(args, commit, cache):
    if commit not in cache:
        if args.benchmarks:
            text = Path(args.benchmarks).read_text(encoding="utf-8")
        else:
            text = subprocess.run(["git", "--git-dir", args.git_dir, "show", f"{commit}:{FIXTURE}"],
                                  check=True, capture_output=True, text=True).stdout
        cache[commit] = json.loads(text)
    return cache[commit]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m datatools.inferencex", description=__doc__.splitlines()[0])
    given = parser.add_mutually_exclusive_group(required=True)
    given.add_argument("--git-dir", help="a clone of InferenceX-app holding the commit each file cites")
    given.add_argument("--benchmarks", help="benchmarks.json downloaded at the commit each file cites")
    parser.add_argument("--data-dir", default=str(Path(__file__).resolve().parent.parent / "data"))
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when rows differ")
    args = parser.parse_args(argv)
    data_dir = Path(args.data_dir)
    schemas, problems = read_schemas(data_dir)
    if problems:
        print(problems[0], file=sys.stderr)
        return 2
    cache, differ = {}, []
    try:
        for name, (isl, osl) in FILES.items():
            path = data_dir / "results" / f"{name}.yaml"
            text = path.read_text(encoding="utf-8")
            doc = parse_yaml_text(text)
            new = rows(_points(args, _commit(doc, name), cache), isl, osl)
            energy = sum(1 for r in new if "energy_j_per_token" in r["metrics"])
            print(f"{name}: {len(doc['rows'])} rows -> {len(new)} ({energy} with energy)", file=sys.stderr)
            if new == doc["rows"]:
                continue
            differ.append(name)
            if not args.check:
                doc["rows"] = new
                write_file(path, format_document(doc, "result-set", schemas, SCHEMA_REF, comments_of(text)))
    except (SnapshotError, OSError, subprocess.CalledProcessError, json.JSONDecodeError) as exc:
        print(f"inferencex: {exc}", file=sys.stderr)
        return 2
    if differ and args.check:
        print(f"inferencex: rows differ from the snapshot in {', '.join(differ)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
