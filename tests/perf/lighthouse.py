"""Lighthouse 12.2.3 (npm devDependency) against a page, with Debian's Chromium."""

import json
import os
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROME_FLAGS = ("--headless=new --no-sandbox --disable-gpu --disable-background-networking "
                "--disable-component-update --disable-sync --no-first-run")
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
METRICS = {
    "first-contentful-paint": "fcp_ms", "largest-contentful-paint": "lcp_ms", "total-blocking-time": "tbt_ms",
    "cumulative-layout-shift": "cls", "speed-index": "si_ms", "interactive": "tti_ms",
}


def version():
    proc = subprocess.run(["npx", "--no-install", "lighthouse", "--version"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    return proc.stdout.strip() if proc.returncode == 0 else None


def run(url, chrome_path="/usr/bin/chromium", timeout=180, cpu_slowdown=None):
    """One Lighthouse run: category scores (0-100), key metrics, the audits that lost points, and the
    host's benchmark index.  ``cpu_slowdown`` replaces Lighthouse's default 4x CPU multiplier."""
    with tempfile.TemporaryDirectory(prefix="iem-lh-") as tmp:
        out = Path(tmp) / "lh.json"
        cmd = ["npx", "--no-install", "lighthouse", url, f"--chrome-flags={CHROME_FLAGS}",
               "--only-categories=" + ",".join(CATEGORIES), "--output=json", f"--output-path={out}", "--quiet"]
        if cpu_slowdown is not None:
            cmd.append(f"--throttling.cpuSlowdownMultiplier={cpu_slowdown:g}")
        env = {**os.environ, "CHROME_PATH": chrome_path, "TMPDIR": tmp}
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        if not out.exists():
            raise RuntimeError(f"lighthouse exited {proc.returncode}: {proc.stderr[-800:]}")
        report = json.loads(out.read_text())
    scores = {c: (None if report["categories"][c]["score"] is None else round(report["categories"][c]["score"] * 100))
              for c in CATEGORIES if c in report["categories"]}
    audits = report["audits"]
    metrics = {name: audits[key].get("numericValue") for key, name in METRICS.items() if key in audits}
    failing = {}
    for cat in CATEGORIES:
        for ref in report["categories"].get(cat, {}).get("auditRefs", []):
            a = audits.get(ref["id"], {})
            if ref.get("weight", 0) > 0 and a.get("score") is not None and a["score"] < 1:
                failing.setdefault(cat, []).append(ref["id"])
    errored = sorted(k for k, a in audits.items() if a.get("scoreDisplayMode") == "error")
    return {"scores": scores, "metrics": metrics, "failing": failing, "errored_audits": errored,
            "benchmark_index": (report.get("environment") or {}).get("benchmarkIndex"),
            "cpu_slowdown": (report.get("configSettings") or {}).get("throttling", {}).get("cpuSlowdownMultiplier"),
            "lighthouse_version": report.get("lighthouseVersion"), "runtime_error": report.get("runtimeError")}
