"""Command line: ``python -m selector validate|recommend|load|fit|coverage|fix|new|fields`` (``selector/__main__.py`` calls :func:`main`)."""

import argparse
import json
import os
import sys
from pathlib import Path

import yaml

from selector.api import answer
from selector import costs
from selector.catalog import COLLECTIONS, SINGLETONS

from . import calibration, freshness, guide, startup
from .coverage import GRIDS, coverage
from .files import Refused, load_data_dir, read_bytes, read_schemas, refusal
from .fixer import fix_dir
from .skeleton import NewError, new_entry, resolve_kind

DEFAULT_DATA = Path(__file__).resolve().parent.parent / "data"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"error: {message} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(2)


def _load_or_exit(data_dir):
    catalog, problems = load_data_dir(data_dir)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        for p in errors:
            print(p, file=sys.stderr)
        print(f"{len(errors)} problem(s) in {data_dir}; run `python -m selector validate` for details", file=sys.stderr)
        raise SystemExit(1)
    return catalog


LABELS = {"hardware": ("hardware family", "hardware families"), "gpus": ("GPU", "GPUs"),
          "formats": ("format", "formats"), "quantization": ("quantization scheme", "quantization schemes"),
          "models": ("model", "models"), "engines": ("engine", "engines"), "tiers": ("tier", "tiers"),
          "trends": ("trend", "trends"), "matrix": ("matrix dimension", "matrix dimensions"),
          "scenarios": ("scenario", "scenarios"), "results": ("result set", "result sets"),
          "prices": ("price list", "price lists"), "launch": ("launch template", "launch templates")}


def summary(catalog):
    """``15 engines, 25 GPUs, ...`` for every collection, then the single files read."""
    parts = []
    first = [n for n in ("engines", "models", "quantization", "hardware", "gpus", "formats") if n in COLLECTIONS]
    for name in first + [n for n in COLLECTIONS if n not in first]:
        n = len(getattr(catalog, name))
        one, many = LABELS.get(name, (name, name))
        parts.append(f"{n} {one if n == 1 else many}")
    parts.extend(f"{name}.yaml" for name in SINGLETONS if getattr(catalog, name, None))
    return ", ".join(parts)


def _order(problem):
    """Problems by file, then line numbers in numeric order, then field path."""
    line = problem.path.removeprefix("line ")
    return (problem.file, 0 if line.isdigit() else 1, int(line) if line.isdigit() else 0, problem.path, problem.message)


def cmd_validate(args):
    strict = args.strict or os.environ.get("CI", "").lower() in ("true", "1", "yes")
    catalog, problems = load_data_dir(args.data_dir, strict=strict)
    errors = [p for p in problems if p.severity == "error"]
    warnings = [p for p in problems if p.severity == "warning"]
    notes = [p for p in problems if p.severity == "info"]
    for p in sorted(errors, key=_order):
        print(p)
    if args.warnings or not errors:
        for p in sorted(warnings, key=_order):
            print(p)
    if args.warnings:
        for p in sorted(notes, key=_order):
            print(p)
    if errors:
        print(f"{len(errors)} error(s), {len(warnings)} warning(s)", file=sys.stderr)
        return 1
    print(f"ok: {summary(catalog)}; {len(warnings)} warning(s), {len(notes)} note(s) (--warnings lists them)")
    return 0


def cmd_coverage(args):
    catalog = _load_or_exit(args.data_dir)
    per_engine, totals = coverage(catalog.raw)
    if args.engine:
        per_engine = {k: v for k, v in per_engine.items() if k == args.engine}
        if not per_engine:
            print(f"error: --engine: {args.engine!r} is not an engine id; use one of {', '.join(sorted(catalog.engines))}", file=sys.stderr)
            return 2
    width = max((len(e) for e in per_engine), default=6)
    print(f"{'engine':<{width}}  " + "  ".join(f"{g:>14}" for g in GRIDS))
    for engine_id, grids in per_engine.items():
        print(f"{engine_id:<{width}}  " + "  ".join(f"{grids[g]['unknown']:>5} of {grids[g]['cells']:<5}" for g in GRIDS))
    print(f"{'all':<{width}}  " + "  ".join(f"{totals[g]['share']:>13.0%} " for g in GRIDS) + " undocumented")
    if args.list:
        for engine_id, grids in per_engine.items():
            for g in GRIDS:
                for cell in grids[g]["missing"]:
                    print(f"{engine_id}\t{g}\t{cell}")
    return 0


DEFAULT_LOGS = DEFAULT_DATA.parent / "tests" / "calibration" / "logs"


def read_logs(folder):
    """The start-up logs of ``folder`` (one YAML file each), with their file stem as ``id``."""
    logs = []
    for path in sorted(Path(folder).glob("*.yaml")):
        try:  # the data files' reader: a named pipe or a link to /dev/zero must not hang the command
            log = yaml.safe_load(read_bytes(path, folder=f"{folder}/", what="start-up logs").decode("utf-8"))
        except (Refused, ValueError, yaml.YAMLError, RecursionError) as exc:
            raise Refused(f"{path}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
        if not isinstance(log, dict):
            raise Refused(f"{path}: a start-up log is one YAML mapping")
        log["id"] = path.stem
        logs.append(log)
    return logs


def cmd_calibration(args):
    catalog = _load_or_exit(args.data_dir)
    if args.startup:
        if not Path(args.logs).is_dir():
            print(f"error: --logs: {args.logs} is not a folder of start-up logs", file=sys.stderr)
            return 2
        try:
            logs = read_logs(args.logs)
        except Refused as exc:
            print(f"error: --logs: {exc}", file=sys.stderr)
            return 2
        print(startup.markdown(catalog, logs))
        return 0
    print(calibration.markdown(catalog))
    return 0


def _emit(response):
    if response["ok"]:
        print(json.dumps(response["result"], indent=2, sort_keys=True))
        return 0
    print(f"error: {response['error']['message']}", file=sys.stderr)
    return 2


def _answers_json(text):
    """--answers as a JSON value, or None after one line on stderr."""
    try:  # what selector.api.handle refuses as "not JSON": syntax, too deep (RecursionError), a >4300-digit number
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        why = (f"{exc.msg} at character {exc.pos}" if isinstance(exc, json.JSONDecodeError)
               else "nested too deeply" if isinstance(exc, RecursionError) else str(exc).split(";")[0])
        print(f"error: --answers is not valid JSON ({why}); example: "
              "--answers '{\"scale\": \"service\", \"hardware\": \"nvidia-hopper\"}'", file=sys.stderr)
        return None


def cmd_recommend(args):
    answers = _answers_json(args.answers)
    if answers is None:
        return 2
    return _emit(answer(_load_or_exit(args.data_dir), "recommend", answers))


def cmd_load(args):
    answers = _answers_json(args.answers)
    if answers is None:
        return 2
    response = answer(_load_or_exit(args.data_dir), "load", answers, gpu_hour_usd=args.gpu_hour_usd)
    if not response["ok"] and response["error"]["key"] == "gpu_hour_usd":
        print(f"error: --gpu-hour-usd: {response['error']['detail']}", file=sys.stderr)
        return 2
    return _emit(response)


FIT_OPTIONS = ("model", "quantization", "gpu", "gpus", "gpu_memory_gb", "bandwidth_gbs", "memory", "ram_gb", "ram_bandwidth_gbs",
               "kv_cache", "engine", "context_tokens", "concurrency", "memory_fraction", "dp_attention", "experts_on_host")


def cmd_fit(args):
    if args.gpu is None and args.gpu_memory_gb is None and args.memory != "cpu" and not (args.memory == "unified" and args.ram_gb):
        print("error: --gpu or --gpu-memory-gb: give a GPU id from data/gpus or the memory of one GPU in GiB "
              "(or --memory cpu with --ram-gb)", file=sys.stderr)
        return 2
    answers = {k: getattr(args, k) for k in FIT_OPTIONS if getattr(args, k) is not None}
    for key in ("dp_attention", "experts_on_host"):
        if answers.get(key) is not None:
            answers[key] = "yes" if answers[key] else None
    answers = {k: v for k, v in answers.items() if v is not None}
    response = answer(_load_or_exit(args.data_dir), "fit", answers)
    if not response["ok"]:
        err = response["error"]
        print(f"error: --{err['key'].replace('_', '-')}: {err['detail']}", file=sys.stderr)
        return 2
    if not args.table:
        response["result"].pop("table", None)
    return _emit(response)


def cmd_results(args):
    try:
        out = costs.results(_load_or_exit(args.data_dir), model=args.model, gpu=args.gpu, engine=args.engine,
                            gpu_hour_usd=args.gpu_hour_usd)
    except costs.CostError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(out, indent=2, sort_keys=True))
    return 0


def cmd_fix(args):
    result = fix_dir(args.data_dir, check=args.check)
    for path in result.changed:
        print(("would reformat " if args.check else "reformatted ") + str(path))
    for problem in result.problems:
        print(problem, file=sys.stderr)
    if result.problems:
        print(f"{len(result.problems)} problem(s); {'nothing was checked past them' if args.check else 'those files were left unchanged'}. "
              "Fix them and run it again", file=sys.stderr)
        return 1
    if args.check and result.changed:
        print(f"{len(result.changed)} file(s) need formatting; run `make fix` (python -m selector fix)")
        return 1
    print(f"{len(result.changed)} file(s) {'need formatting' if args.check else 'reformatted'}")
    return 0


def cmd_new(args):
    try:
        path = new_entry(args.kind, args.id, args.data_dir)
    except NewError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    print("next: replace every TODO (facts you cannot source stay `unknown`), then run "
          "`make fix` and `make validate`; validate warns about each TODO left, the build and CI refuse them")
    return 0


def _rewrite(path, data):
    """Write ``data`` over the regular file ``path``: a link or a pipe put there since it was read is refused."""
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if why := refusal(os.fstat(fd).st_mode, "the repository", "files to update"):
            raise Refused(why)
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def cmd_fields(args):
    schemas, problems = read_schemas(args.data_dir)
    if problems:
        print(f"error: {problems[0]}", file=sys.stderr)
        return 1
    only = None
    if args.kind:
        try:
            only = resolve_kind(args.kind)
        except NewError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    new_guide = guide.markdown(schemas, only)
    if args.update is None:
        print(new_guide, end="")
        return 0
    try:  # the data files' reader: a regular file only (never a pipe, a device or a link), size-limited
        text = read_bytes(args.update, folder="the repository", what="files to update").decode("utf-8")
        new = guide.update(text, new_guide)
        if new != text:
            _rewrite(args.update, new.encode("utf-8"))
    except (Refused, OSError, ValueError) as exc:
        print(f"error: --update {args.update}: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return 2
    if new != text:
        print(f"updated the field guide in {args.update}")
    else:
        print(f"the field guide in {args.update} is up to date")
    return 0


def cmd_freshness(args):
    try:
        if args.open_issues and args.offline:
            raise freshness.InputError("--open-issues: reads the live feeds; leave out --offline")
        settings = freshness.issue_settings() if args.open_issues else None
        fetch = (freshness.recorded_fetch(freshness.load_recording(args.offline)) if args.offline
                 else lambda url: freshness.live_fetch(url, token=(settings or (None, None))[1]))
    except freshness.InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return freshness.EXIT_BAD_INPUT
    catalog = _load_or_exit(args.data_dir)
    unknown = [e for e in args.engine or [] if e not in catalog.engines]
    if unknown:
        print(f"error: --engine: {unknown[0]!r} is not an engine id; use one of {', '.join(sorted(catalog.engines))}",
              file=sys.stderr)
        return freshness.EXIT_BAD_INPUT
    result = freshness.report(catalog, fetch, args.engine)
    for row in result["engines"]:
        print(row["line"], file=sys.stderr)
    if settings:
        try:
            result["issues"] = [{"engine": e, "action": a, "number": n}
                                for e, a, n in freshness.sync_issues(result["engines"], settings[0], freshness.github_api(settings[1]))]
        except freshness.FeedError as exc:
            print(f"error: --open-issues: {exc}", file=sys.stderr)
            result["issues_error"] = str(exc)
            result["exit"] = max(result["exit"], freshness.EXIT_UNREADABLE)
        for item in result.get("issues", []):
            print(f"{item['engine']}: issue #{item['number']} {item['action']}", file=sys.stderr)
    print(json.dumps(result, indent=2, sort_keys=True))
    return result["exit"]


def main(argv=None):
    parser = _Parser(prog="python -m selector", description="Inference Engine Map: validate data and choose an engine.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("validate", help="check every data file (schemas, then semantic checks)")
    p.add_argument("data_dir", nargs="?", default=DEFAULT_DATA, type=Path)
    p.add_argument("--warnings", action="store_true", help="also print notes (e.g. unused citations), and warnings when there are errors")
    p.add_argument("--strict", action="store_true", help="placeholders (TODO) are errors, as in the build and in CI "
                                                         "(the default when the environment sets CI=true)")
    p.set_defaults(func=cmd_validate)
    p = sub.add_parser("recommend", help="print the selector's answer as JSON")
    p.add_argument("--answers", required=True, help="JSON object of answers, e.g. '{\"scale\": \"local\"}'")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_recommend)
    p = sub.add_parser("load", help="print the answer at 1 to 512 users at once, and where it changes, as JSON")
    p.add_argument("--answers", required=True, help="JSON object of selector answers with a model and a GPU, "
                                                    "e.g. '{\"scale\": \"local\", \"model\": \"qwen3-8b\", \"gpu\": \"rtx-4090\"}'")
    p.add_argument("--gpu-hour-usd", help="price per GPU-hour in US dollars (default: the median of the cited list prices)")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_load)
    p = sub.add_parser("fit", help="print a memory-fit and capacity estimate as JSON",
                       description="Memory sizes are the vendors' figures: GPU, unified and host memory in GiB (an '80 GB' H100 "
                                   "has 80 GiB); bandwidths in decimal GB/s.")
    p.add_argument("--model", required=True, help="model id from data/models")
    p.add_argument("--quantization", help="weight quantization id (default: the model's own precision)")
    p.add_argument("--gpu", help="GPU or machine id from data/gpus (memory, bandwidth and memory mode)")
    p.add_argument("--gpus", help="number of GPUs (tensor parallel)")
    p.add_argument("--gpu-memory-gb", help="memory of one GPU in GiB, when it is not in data/gpus")
    p.add_argument("--bandwidth-gbs", help="memory bandwidth of that GPU in GB/s (for the speed estimate)")
    p.add_argument("--memory", help="discrete, unified or cpu (Apple GPU ids imply unified)")
    p.add_argument("--ram-gb", help="host RAM in GiB (offload; all memory on a CPU-only machine)")
    p.add_argument("--ram-bandwidth-gbs", help="host memory bandwidth in GB/s")
    p.add_argument("--kv-cache", help="KV-cache quantization id (default: 16-bit)")
    p.add_argument("--engine", help="engine id: its memory share and the KV precisions it supports")
    p.add_argument("--memory-fraction", help="the engine's memory share (vLLM gpu_memory_utilization, SGLang mem_fraction_static, "
                                             "TensorRT-LLM free_gpu_memory_fraction); default: the engine's own")
    p.add_argument("--dp-attention", action="store_true", default=None,
                   help="data-parallel attention: attention weights on every GPU, each GPU caches its own sequences")
    p.add_argument("--experts-on-host", action="store_true", default=None,
                   help="routed experts in host RAM, computed on the CPU; attention, shared and dense layers on the GPU (KTransformers)")
    p.add_argument("--context-tokens", help="context length per sequence")
    p.add_argument("--concurrency", help="concurrent sequences")
    p.add_argument("--table", action="store_true", help="also print every weight x KV precision (what fits)")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_fit)
    p = sub.add_parser("calibration", help="compare the decode-speed estimate with published single-sequence measurements "
                                           "(--startup: the memory plan with real engine start-up logs)")
    p.add_argument("--startup", action="store_true", help="compare fit --engine with the start-up logs of --logs instead")
    p.add_argument("--logs", default=DEFAULT_LOGS, type=Path, help="folder of start-up logs (default: tests/calibration/logs)")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_calibration)
    p = sub.add_parser("coverage", help="count the undocumented cells of each engine's support grids")
    p.add_argument("--engine", help="only this engine")
    p.add_argument("--list", action="store_true", help="also list every undocumented cell")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_coverage)
    p = sub.add_parser("results", help="print measured rows with their cost per million tokens and energy per token as JSON",
                       description="Each row as in data/results plus usd_per_million_tokens = price per GPU-hour / (tokens/s per "
                                   "GPU x 3600) x 10^6, the price used (the median of the cited on-demand list prices for the "
                                   "GPU, or --gpu-hour-usd), the tokens the row counts, and a measured energy per token with "
                                   "its power boundary.")
    p.add_argument("--model", help="only rows of this model id (data/models)")
    p.add_argument("--gpu", help="only rows on this GPU id (data/gpus)")
    p.add_argument("--engine", help="only rows of this engine id (data/engines)")
    p.add_argument("--gpu-hour-usd", help="price per GPU-hour in US dollars, instead of the cited list prices")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_results)
    p = sub.add_parser("fix", help="rewrite data files in the canonical layout (key order, quoting), keeping comments",
                       description="Rewrite data files in the canonical layout: schema key order, one-line flow style "
                                   "for short mappings, quoting only where YAML needs it; comments are kept. "
                                   "Exits 1 naming the file and line when a file is not valid YAML.")
    p.add_argument("data_dir", nargs="?", default=DEFAULT_DATA, type=Path)
    p.add_argument("--check", action="store_true",
                   help="write nothing; list the files that would change and exit 1 if there are any (CI: make check-format)")
    p.set_defaults(func=cmd_fix)
    p = sub.add_parser("new", help="write a skeleton data file with every required field",
                       description="Write data/<collection>/ID.yaml with every required field, `unknown` for facts, "
                                   "TODO where you must write a value, and a `sources` entry to fill in.")
    p.add_argument("kind", metavar="KIND", help="engine, gpu, model, quantization, hardware, format, scenario, results, "
                                                "tier, trend or dimension (a decision-matrix dimension)")
    p.add_argument("id", metavar="ID", help="the new entry's id, also its file name: lower-case letters, digits, '-' and '.'")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_new)
    p = sub.add_parser("fields", help="print the field guide (every field of a kind of data file, from the schemas)")
    p.add_argument("kind", metavar="KIND", nargs="?", help="only this kind (engine, gpu, model, ...)")
    p.add_argument("--update", metavar="FILE", type=Path,
                   help="rewrite the guide between the fields:start and fields:end markers of FILE (CONTRIBUTING.md)")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_fields)
    p = sub.add_parser("freshness", help="compare each engine's latest release in the data with its upstream feed (JSON report)",
                       description="Reads each engine's status.release_feed (GitHub releases or PyPI JSON) and compares the "
                                   "newest stable release with status.latest_version; pre-releases and yanked versions are "
                                   "skipped and named. Exit 0: every feed read agrees; 1: an engine is behind; 3: none behind "
                                   "but a feed could not be read; 2: bad input. Never edits data.")
    p.add_argument("--offline", metavar="FILE", type=Path, help="read recorded upstream answers from FILE instead of the network")
    p.add_argument("--engine", action="append", metavar="ID", help="only this engine (repeatable)")
    p.add_argument("--open-issues", action="store_true",
                   help="open or update one GitHub issue per engine that is behind (needs GITHUB_TOKEN and GITHUB_REPOSITORY)")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_freshness)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `validate | head`
        sys.stderr.close()
        return 1


if __name__ == "__main__":
    sys.exit(main())
