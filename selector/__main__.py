"""Command line: ``python -m selector validate|recommend|fit|fix``."""

import argparse
import json
import sys
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parent.parent / "data"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _load_or_exit(data_dir):
    from .files import load_data_dir
    catalog, problems = load_data_dir(data_dir)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        for p in errors:
            print(p, file=sys.stderr)
        print(f"{len(errors)} problem(s) in {data_dir}; run `python -m selector validate` for details", file=sys.stderr)
        raise SystemExit(1)
    return catalog


def cmd_validate(args):
    from .files import load_data_dir
    catalog, problems = load_data_dir(args.data_dir)
    errors = [p for p in problems if p.severity == "error"]
    warnings = [p for p in problems if p.severity == "warning"]
    notes = [p for p in problems if p.severity == "info"]
    for p in sorted(errors):
        print(p)
    if args.warnings or not errors:
        for p in sorted(warnings):
            print(p)
    if args.warnings:
        for p in sorted(notes):
            print(p)
    if errors:
        print(f"{len(errors)} error(s), {len(warnings)} warning(s)", file=sys.stderr)
        return 1
    counts = ", ".join(f"{len(getattr(catalog, n))} {n}" for n in ("engines", "models", "quantization", "hardware", "matrix", "scenarios"))
    print(f"ok: {counts}; {len(warnings)} warning(s), {len(notes)} note(s) (--warnings lists them)")
    return 0


def cmd_coverage(args):
    from .coverage import GRIDS, coverage
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


def _emit(response):
    if response["ok"]:
        print(json.dumps(response["result"], indent=2, sort_keys=True))
        return 0
    print(f"error: {response['error']['message']}", file=sys.stderr)
    return 2


def cmd_recommend(args):
    from .api import answer
    try:
        answers = json.loads(args.answers)
    except ValueError as exc:
        print(f"error: --answers is not valid JSON ({exc.msg} at character {exc.pos}); example: "
              "--answers '{\"scale\": \"service\", \"hardware\": \"nvidia-hopper\"}'", file=sys.stderr)
        return 2
    return _emit(answer(_load_or_exit(args.data_dir), "recommend", answers))


def cmd_fit(args):
    from .api import answer
    answers = {k: v for k, v in {
        "model": args.model, "quantization": args.quantization, "gpus": args.gpus,
        "gpu_memory_gb": args.gpu_memory_gb, "ram_gb": args.ram_gb,
        "context_tokens": args.context_tokens, "concurrency": args.concurrency}.items() if v is not None}
    return _emit(answer(_load_or_exit(args.data_dir), "fit", answers))


def cmd_fix(args):
    from .fixer import fix_dir
    changed = fix_dir(args.data_dir, check=args.check)
    for path in changed:
        print(("would reformat " if args.check else "reformatted ") + str(path))
    if args.check and changed:
        return 1
    print(f"{len(changed)} file(s) {'need formatting' if args.check else 'reformatted'}")
    return 0


def main(argv=None):
    parser = _Parser(prog="python -m selector", description="Inference Engine Map: validate data and choose an engine.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("validate", help="check every data file (schemas, then semantic checks)")
    p.add_argument("data_dir", nargs="?", default=DEFAULT_DATA, type=Path)
    p.add_argument("--warnings", action="store_true", help="also print notes (e.g. unused citations), and warnings when there are errors")
    p.set_defaults(func=cmd_validate)
    p = sub.add_parser("recommend", help="print the selector's answer as JSON")
    p.add_argument("--answers", required=True, help="JSON object of answers, e.g. '{\"scale\": \"local\"}'")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_recommend)
    p = sub.add_parser("fit", help="print a memory-fit estimate as JSON")
    p.add_argument("--model", required=True)
    p.add_argument("--quantization")
    p.add_argument("--gpus", type=int)
    p.add_argument("--gpu-memory-gb", type=float, required=True)
    p.add_argument("--ram-gb", type=float)
    p.add_argument("--context-tokens", type=int)
    p.add_argument("--concurrency", type=int)
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_fit)
    p = sub.add_parser("coverage", help="count the undocumented cells of each engine's support grids")
    p.add_argument("--engine", help="only this engine")
    p.add_argument("--list", action="store_true", help="also list every undocumented cell")
    p.add_argument("--data-dir", default=DEFAULT_DATA, type=Path)
    p.set_defaults(func=cmd_coverage)
    p = sub.add_parser("fix", help="normalise formatting and key order of data files")
    p.add_argument("data_dir", nargs="?", default=DEFAULT_DATA, type=Path)
    p.add_argument("--check", action="store_true", help="only list files that would change")
    p.set_defaults(func=cmd_fix)
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
