"""Compare builds of the site on the selector metrics, visit by visit (A/B, alternating order).

Used to measure one change at a time on a machine whose load varies: each run waits for a quiet
moment, then loads the bare Pyodide page and /selector/ from every build, in alternating order, so
the paired ratios are taken under the same conditions.

    # build each variant with SITE_URL=http://127.0.0.1:<port>/ into its own folder, then
    .venv/bin/python tests/perf/ab.py before=/tmp/a/site:8801 after=/tmp/b/site:8802 --runs 7
"""

import argparse
import contextlib
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import bench  # noqa: E402
import browser as bw  # noqa: E402
from perfserver import BenchServer  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sites", nargs="+",
                   help="NAME=FOLDER:PORT[:csp], two or more (the first is the reference); ':csp' sends every "
                        "header the site's _headers file gives a path (Content-Security-Policy too), as bench.py does; "
                        "without it only its Cache-Control")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--max-busy", type=float, default=0.3)
    p.add_argument("--quiet-timeout", type=float, default=30)
    p.add_argument("--json", help="write the raw runs here")
    args = p.parse_args(argv)
    from playwright.sync_api import sync_playwright

    sites, all_headers = [], {}
    for spec in args.sites:
        name, rest = spec.split("=", 1)
        if rest.endswith(":csp"):  # send every header of the site's _headers file, as bench.py does
            rest = rest[:-4]
            all_headers[name] = True
        folder, port = rest.rsplit(":", 1)
        sites.append((name, folder, int(port)))
        if not (Path(folder) / "__bench" / "bare").exists():
            if (Path(folder) / "assets" / "selector" / "manifest.json").is_file() and \
                    "pyodide" in json.loads((Path(folder) / "assets" / "selector" / "manifest.json").read_text()):
                bench.copy_bare(Path(folder))
            else:  # a build from before the content-hashed folders
                shutil.copytree(HERE / "bare", Path(folder) / "__bench" / "bare")
    rows = []
    with tempfile.TemporaryDirectory(prefix="iem-ab-") as tmp, contextlib.ExitStack() as stack, sync_playwright() as pw:
        servers = {name: stack.enter_context(BenchServer(folder, port=port, cache=True, gzip=True,
                                                         headers=all_headers.get(name, False)))
                   for name, folder, port in sites}
        for i in range(args.runs):
            order = [("bare", servers[sites[0][0]])] + [(name, servers[name]) for name, _, _ in sites]
            if i % 2:
                order = order[::-1]
            row = {}
            for name, server in order:
                row[f"busy_{name}"] = bench.wait_quiet(args.max_busy, args.quiet_timeout)
                ctx = bw.persistent_context(pw, tempfile.mkdtemp(dir=tmp))
                try:
                    if name == "bare":
                        row["bare"] = bw.bare_cold(ctx, server.url)["ready_ms"]
                    else:
                        r = bw.selector_visit(ctx, server.url, changes=3)
                        row[name] = r["cold_ms"]
                        row[f"{name}_task"] = r["longest_task_ms"]
                        row[f"{name}_tbt"] = r["total_blocking_ms"]
                        row[f"{name}_change"] = statistics.median(r["change_ms"])
                        row[f"{name}_revisit"] = r["revisit_ms"]
                finally:
                    ctx.close()
            rows.append(row)
            print(f"run {i + 1}: bare {row['bare']:.0f}  " + "  ".join(
                f"{n} {row[n]:.0f} (x{row[n] / row['bare']:.2f}, task {row[n + '_task']:.0f})" for n, _, _ in sites),
                flush=True)
    med = statistics.median
    ref = sites[0][0]
    for name, _, _ in sites:
        print(f"{name}: cold/bare x{med([r[name] / r['bare'] for r in rows]):.3f}, vs {ref} "
              f"x{med([r[name] / r[ref] for r in rows]):.3f}, cold {med([r[name] for r in rows]):.0f} ms, "
              f"longest task {med([r[name + '_task'] for r in rows]):.0f} ms, TBT {med([r[name + '_tbt'] for r in rows]):.0f} ms, "
              f"change {med([r[name + '_change'] for r in rows]):.1f} ms, revisit {med([r[name + '_revisit'] for r in rows]):.0f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
