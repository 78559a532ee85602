"""`make mutation`: mutmut on selector/rules.py, fit.py and inputs.py, then a score per module.

mutmut (pinned in requirements-mutation.txt, configured in pyproject.toml [tool.mutmut]) works on a copy of
the tree in build/mutation (selector/, datatools/, data/, tests/, README.md, pyproject.toml), so the worktree never gets
a mutants/ folder. Results are kept there: a second run only checks what changed.

    python tests/mutation/mutmut_run.py [--module selector.rules] [--sample N] [--seed S] [--max-children 2] [--min-score 90]

--module M (repeatable) mutates and scores only that module (mutmut's only_mutate narrowed in the copy).
--sample N checks N mutants per module drawn at random (seeded: the same N and seed give the same mutants)
instead of all of them (about 6,000; a full run takes hours on two shared cores). Mutants already killed
are not run again; every other one is (tests may have been added since). The score is killed / checked:
"no tests" and "survived" both count against it, "timeout" counts as killed.
Exit status 1 when a module is under --min-score.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "build" / "mutation"
MODULES = ("selector.rules", "selector.fit", "selector.inputs")
COPY = ("selector", "datatools", "data", "tests", "README.md", "pyproject.toml")
KILLED = {"killed", "timeout", "caught by type check"}


def prepare(modules=MODULES):
    WORK.mkdir(parents=True, exist_ok=True)
    for name in COPY:
        src, dst = ROOT / name, WORK / name
        if dst.is_dir():
            shutil.rmtree(dst)
        elif dst.exists():
            dst.unlink()
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "mutation"))
        else:
            shutil.copy2(src, dst)
    # only the chosen modules are mutated: generating the others' mutants costs minutes and their trampolines
    # slow every test run
    files = ", ".join(f'"{m.replace(".", "/")}.py"' for m in modules)
    conf = WORK / "pyproject.toml"
    text, n = re.subn(r"(?m)^only_mutate = \[.*\]$", f"only_mutate = [{files}]", conf.read_text())
    if n != 1:
        sys.exit("pyproject.toml: [tool.mutmut] only_mutate not found on one line")
    conf.write_text(text)


def mutmut(*args, check=True):
    env = {**os.environ, "IEM_FUZZ_SCALE": os.environ.get("IEM_FUZZ_SCALE", "0.02"), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=WORK, env=env, check=check,
                          stdout=subprocess.PIPE if args[0] == "results" else None, text=True)


def results():
    out = mutmut("results", "--all", "true").stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+): (.+)$", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


def module_of(name):
    return next((m for m in MODULES if name.startswith(m + ".")), None)


def choose(known, sample, seed, modules=MODULES):
    """Every mutant of `modules`, or `sample` of each drawn with `seed` (the same draw every time)."""
    names = sorted(n for n in known if module_of(n) in modules)
    if not sample:
        return names
    out = []
    for module in modules:
        # a seed per module (seed + its place in MODULES): its sample is the same whether it runs alone or not
        rng = random.Random(seed + MODULES.index(module))
        mine = [n for n in names if module_of(n) == module]
        out += rng.sample(mine, min(sample, len(mine)))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", choices=MODULES, help="only this module (repeatable; default: all three)")
    parser.add_argument("--sample", type=int, help="mutants per module, drawn at random (default: all)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--min-score", type=float, default=90.0)
    parser.add_argument("--no-run", action="store_true", help="only print the scores of the last run")
    args = parser.parse_args(argv)
    modules = tuple(m for m in MODULES if m in (args.module or MODULES))
    if not args.no_run:
        prepare(modules)
        # generate the mutants (and the map of which tests reach which function) without checking any
        mutmut("run", "--max-children", str(args.max_children), f"{modules[0]}.x__no_such_mutant*", check=False)
    known = results()
    names = choose(known, args.sample, args.seed, modules)
    if not args.no_run:
        # a mutant once killed stays killed when tests are added; the others (survived, no tests, not checked) are
        # checked (again): mutmut alone would keep a survivor's old verdict after the tests changed
        again = [n for n in names if known.get(n) not in KILLED]
        if again:
            mutmut("run", "--max-children", str(args.max_children), *again, check=False)
    chosen = set(names)
    found = results()
    if chosen:
        found = {k: v for k, v in found.items() if k in chosen}
    found = {k: v for k, v in found.items() if v != "not checked"}
    failed = False
    report = {}
    print("\nmutation score (killed / checked), per module:")
    for module in modules:
        statuses = Counter(v for k, v in found.items() if module_of(k) == module)
        checked = sum(statuses.values())
        killed = sum(n for s, n in statuses.items() if s in KILLED)
        score = 100.0 * killed / checked if checked else 0.0
        failed |= score < args.min_score
        report[module] = {"checked": checked, "killed": killed, "score": round(score, 1), "statuses": dict(statuses)}
        rest = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()) if s not in KILLED)
        print(f"  {module:18} {score:5.1f}%  ({killed} of {checked}{'; ' + rest if rest else ''})")
    survivors = sorted(k for k, v in found.items() if v not in KILLED)
    (WORK / "scores.json").write_text(json.dumps({"sample": args.sample, "seed": args.seed, "modules": report,
                                                  "survivors": {k: found[k] for k in survivors}}, indent=1))
    print(f"survivors: `cd build/mutation && python -m mutmut show NAME`; list in {WORK / 'scores.json'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
