"""How long `python -m selector validate` takes on the real data plus N extra engine files.

    .venv/bin/python tests/perf/validate_many.py [--extra 2000] [--runs 3] [--like vllm]

The extra files are copies of one engine file (``--like``, default data/engines/vllm.yaml, the
largest) under new ids and names (so every check still passes), written to a temporary copy of
data/.  Time grows with the bytes read, so the report gives the size of the copied file too.  Each run is a fresh `python -m selector validate`
process, timed wall-clock; the median is printed with the machine's load average.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def make_data(dest, extra, like="vllm"):
    data = dest / "data"
    shutil.copytree(ROOT / "data", data)
    text = (ROOT / "data" / "engines" / f"{like}.yaml").read_text(encoding="utf-8")
    name = re.search(r"^name: (.*)$", text, re.M).group(1)
    for i in range(extra):
        new = text.replace(f"\nid: {like}\n", f"\nid: {like}-copy-{i}\n", 1).replace(f"\nname: {name}\n", f"\nname: {name} copy {i}\n", 1)
        assert new.count("copy") >= text.count("copy") + 2
        (data / "engines" / f"{like}-copy-{i}.yaml").write_text(new, encoding="utf-8")
    return data, len(text.encode("utf-8"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extra", type=int, default=2000, help="extra engine files (default 2000)")
    parser.add_argument("--runs", type=int, default=3, help="runs; the median is reported (default 3)")
    parser.add_argument("--like", default="vllm", help="the engine file to copy (default vllm, the largest)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        data, size = make_data(Path(tmp), args.extra, args.like)
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "selector", "validate", str(data)], cwd=ROOT,
                                  capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if proc.returncode != 0:
                print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
                return 1
        print(proc.stdout.strip().splitlines()[-1])
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"{args.extra} extra engine files ({args.like}.yaml, {size / 1000:.1f} kB each, "
              f"{args.extra * size / 1e6:.0f} MB): median {statistics.median(times):.2f} s over {args.runs} run(s) "
              f"({', '.join(f'{t:.2f}' for t in times)}); load average {load:.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
