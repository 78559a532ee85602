"""Hand-made mutations of the page scripts, run against the browser tests (`make mutation-js`).

The site is built once (build/mutation-js/site); each mutation below changes one thing in a built file,
the browser tests that should notice run against that site (tests/conftest.py takes IEM_BUILT_SITE and
IEM_SITE_PORT), and the file is put back. A mutation is killed when a test fails. Each is a realistic
slip, not a syntax error: the page still loads and answers, only wrongly.

    python tests/mutation/js_mutations.py [--only ID ...] [--keep-site]

Exit status 0 when every mutation is killed (and the unmutated site passes the same tests), 1 otherwise.
"""

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
OUT = ROOT / "build" / "mutation-js"
JS = "assets/javascripts/"

ANSWER = "tests/test_browser_answer.py"
SELECTOR = "tests/test_browser_selector.py"

# id, file in the built site, text to replace, replacement, (count of occurrences to replace: all by
# default), the tests that must notice, and what a reader would have lost.
MUTATIONS = [
    dict(id="excluded-reasons-dropped", file=JS + "modules/answer-view.js",
         old="li.append(reasonList(x.reasons));", new="",
         tests=[ANSWER + "::test_whole_answer_rendered"],
         why="the engines ruled out are listed without the reason they were ruled out"),
    dict(id="url-numbers-as-text", file=JS + "modules/form.js",
         old='else if (kind === "number" && raw.trim() !== "") answers[key] = parseNumber(raw);',
         new='else if (kind === "number" && raw.trim() !== "") answers[key] = raw;',
         tests=[ANSWER + "::test_numbers_reach_python_as_numbers"],
         why="numbers from a shared link reach Python as strings"),
    dict(id="form-numbers-as-text", file=JS + "modules/form.js",
         old='answers[field.name] = kind === "number" ? parseNumber(field.value) : field.value;',
         new="answers[field.name] = field.value;",
         tests=[ANSWER + "::test_numbers_reach_python_as_numbers"],
         why="numbers typed in the form reach Python as strings"),
    dict(id="decimal-unanchored", file=JS + "modules/form.js",
         old=r"const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)$/;", new=r"const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)/;",
         tests=[ANSWER + "::test_numbers_reach_python_as_numbers"],
         why="'8x' or '1e400' in a link would be read as a number instead of being named as not one"),
    dict(id="integer-step-loosened", file="selector/index.html", old='step="1"', new='step="any"',
         tests=[ANSWER + "::test_number_fields_step_by_their_type"],
         why="the GPU count and the context length accept fractions in the form"),
    dict(id="single-warning-hidden", file=JS + "modules/answer-view.js",
         old="if (result.warnings.length) {", new="if (result.warnings.length > 1) {",
         tests=[ANSWER + "::test_whole_answer_rendered"],
         why="an answer with exactly one warning shows none"),
    dict(id="fallback-badge-dropped", file=JS + "modules/answer-view.js",
         old='"data-fallback": c.fallback ? "1" : null', new='"data-fallback": null',
         tests=[ANSWER + "::test_whole_answer_rendered"],
         why="a candidate from another tier looks like one from the tier asked"),
    dict(id="why-line-dropped", file=JS + "modules/answer-view.js",
         old="whyLine(c),", new="null,",
         tests=[ANSWER + "::test_whole_answer_rendered"],
         why="the answer no longer explains its order"),
    dict(id="fit-summary-dropped", file=JS + "modules/answer-view.js",
         old='if (result.fit) box.append(el("h2", { text: "Memory fit" }), renderFitSummary(result.fit));', new="",
         tests=[ANSWER + "::test_whole_answer_rendered"],
         why="the selector's answer loses its memory-fit numbers"),
    dict(id="citations-dropped", file=JS + "modules/dom.js",
         old='if (!source || typeof source.url !== "string" || !source.url.startsWith("https://")) return null;',
         new="return null;",
         tests=[ANSWER + "::test_whole_answer_rendered"],
         why="no reason links to its source"),
    dict(id="fit-lead-dropped", file=JS + "modules/answer-view.js",
         old='if (choice) box.append(el("p", { class: "iem-lead", "data-chosen-by": choice.chosen_by, text: choice.text }));',
         new="",
         tests=["tests/test_browser_fit.py::test_no_preference_leads_with_the_4_bit_answer"],
         why="with no quantization preference the fit page no longer says which scheme it chose, and why"),
    dict(id="need-of-other-scale-kept", file=JS + "modules/form.js",
         old="option.disabled = !show;", new="",
         tests=[ANSWER + "::test_changing_scale_drops_a_need_of_the_other_scale"],
         why="switching the scale keeps a need the new scale does not have, and the answer turns into an error"),
]


def port():
    from conftest import free_port
    return free_port()


def build(dest, site_port):
    from conftest import build_site
    if dest.exists():
        shutil.rmtree(dest)
    t0 = time.monotonic()
    build_site(dest, f"http://127.0.0.1:{site_port}/")
    return time.monotonic() - t0


def write(path, text):
    path.write_text(text, encoding="utf-8")
    gz = path.with_name(path.name + ".gz")
    if gz.exists():  # tests/sitesrv.py serves the precompressed sibling: keep it in step
        gz.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))


def run_tests(site, site_port, tests):
    env = {**os.environ, "IEM_BUILT_SITE": str(site), "IEM_SITE_PORT": str(site_port)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--tb=line", *tests],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    tail = [line for line in proc.stdout.splitlines() if line.strip()][-3:]
    return proc.returncode, tail


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="mutation ids to run (default: all)")
    parser.add_argument("--site", type=Path, help="use this built site (built for --port) instead of building one")
    parser.add_argument("--port", type=int)
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.only or m["id"] in args.only]
    if args.only and len(chosen) != len(args.only):
        parser.error(f"unknown id in {args.only}; ids: {', '.join(m['id'] for m in MUTATIONS)}")
    site_port = args.port or port()
    site = args.site or OUT / "site"
    if not args.site:
        print(f"building the site once ({site}) ...", flush=True)
        print(f"  built in {build(site, site_port):.0f} s", flush=True)

    tests = sorted({t for m in chosen for t in m["tests"]})
    code, tail = run_tests(site, site_port, tests)
    if code != 0:
        print("the unmutated site fails its own tests, so no mutation can be judged:\n  " + "\n  ".join(tail))
        return 1
    results = []
    for m in chosen:
        path = site / m["file"]
        original = path.read_text(encoding="utf-8")
        count = original.count(m["old"])
        if not count:
            print(f"{m['id']}: the text to mutate is no longer in {m['file']}; update tests/mutation/js_mutations.py")
            results.append((m, "stale", []))
            continue
        write(path, original.replace(m["old"], m["new"]))
        t0 = time.monotonic()
        try:
            code, tail = run_tests(site, site_port, m["tests"])
        finally:
            write(path, original)
        status = "killed" if code == 1 else "survived" if code == 0 else f"error (pytest exit {code})"
        results.append((m, status, tail))
        print(f"{m['id']}: {status} in {time.monotonic() - t0:.0f} s ({m['why']})", flush=True)
        if status != "killed":
            print("  " + "\n  ".join(tail))
    killed = sum(1 for _, s, _ in results if s == "killed")
    print(f"\npage-script mutations: {killed} of {len(results)} killed")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.json").write_text(json.dumps([{"id": m["id"], "file": m["file"], "status": s, "why": m["why"],
                                                   "tests": m["tests"]} for m, s, _ in results], indent=1))
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
