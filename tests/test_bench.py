"""`make bench` end to end in its quickest configuration (`tests/perf/bench.py --quick`).

Checks that the benchmark runs and that its JSON report carries every metric (build, bytes per page,
selector timings, Lighthouse on one page, budgets). The budgets themselves are not asserted: they
depend on the machine, and `make bench` reports them.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("home", "l2", "matrix", "selector", "fit", "results", "compare")
BUDGETS = {"cold_ratio", "longest_task", "answer_change", "answer_revisit", "build", "wire_home", "wire_l2", "wire_matrix",
           "wire_results", "wire_compare"}


def number(stat):
    """A stats entry {median, min, max, n} with real numbers in it."""
    assert isinstance(stat, dict), stat
    assert stat["n"] >= 1 and stat["min"] <= stat["median"] <= stat["max"], stat
    return stat["median"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "perf" / "bench.py"), "--quick", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=480)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert (ROOT / "README.md").read_text(encoding="utf-8") == readme, "--quick must not touch README.md"
    assert "Budget" in (out / "bench.md").read_text(encoding="utf-8")
    return json.loads((out / "bench.json").read_text(encoding="utf-8"))


@pytest.mark.browser
def test_build_times(report):
    mk = report["build"]["mkdocs"]
    assert 0 < number(mk["wall_s"]) < 120
    assert number(mk["reported_s"]) <= number(mk["wall_s"])
    assert mk["pages"] > 20
    z = report["build"]["zensical"]
    assert z.get("skipped") or z.get("error") or number(z["wall_s"]) > 0  # skipped in --quick, with the reason


@pytest.mark.browser
def test_bytes_on_the_wire_for_every_page(report):
    assert set(report["wire"]) == set(PAGES)
    for key, row in report["wire"].items():
        assert 0 < row["gzip_bytes"] <= row["raw_bytes"], (key, row)
        assert row["requests"] >= 3, (key, row)
    # the selector pages carry the Python runtime, the content pages do not
    assert report["wire"]["selector"]["raw_bytes"] > 5_000_000
    assert report["wire"]["home"]["raw_bytes"] < 5_000_000


@pytest.mark.browser
def test_selector_timings(report):
    s = report["selector"]
    for key in ("cold_ms", "bare_cold_ms", "worker_ready_ms", "warm_ms", "bare_warm_ms"):
        assert number(s[key]) > 50, key  # a Python runtime does not start in 50 ms
    assert 0.2 < number(s["cold_ratio"]) < 10
    for key in ("longest_task_ms", "total_blocking_ms", "change_ms", "change_event_to_dom_ms", "revisit_ms",
                "warm_wire_bytes", "worker_start_ms", "bare_worker_start_ms"):
        assert number(s[key]) >= 0, key
    assert s["instant_nav_all"] is True, "the revisit was a full page load, not Material's instant navigation"
    assert s["longtask_supported"] is True
    run = s["runs"][0]
    assert run["revisit_state"] == "ready" and run["warm_state"] == "ready"
    assert not run["errors"], run["errors"]


@pytest.mark.browser
def test_lighthouse_on_one_page(report):
    lh = report["lighthouse"]
    assert lh["version"] == "12.2.3"
    page = lh["pages"]["home"]
    assert not page["errors"], page["errors"]
    for category in ("performance", "accessibility", "best-practices", "seo"):
        assert 0 <= number(page["scores"][category]) <= 100, category
    for metric in ("fcp_ms", "lcp_ms", "tbt_ms"):
        assert number(page["metrics"][metric]) >= 0, metric
    # the host's speed and the CPU slowdown used travel with the scores; a calibrated run keeps its 4x twin
    assert number(page["benchmark_index"]) > 0
    slowdown = number(page["cpu_slowdown"])
    assert 1 <= slowdown <= 4
    assert 0 <= number(page["default_slowdown_performance"]) <= 100
    if slowdown == 4:
        assert page["default_slowdown_performance"] == page["scores"]["performance"]


def test_cpu_slowdown_follows_the_host_benchmark_index():
    """Lighthouse's docs/throttling.md: 4x is meant for a high-end desktop (index 1500 and up); slower hosts
    get a proportionally smaller multiplier, never below 1x."""
    sys.path.insert(0, str(ROOT / "tests" / "perf"))
    try:
        from bench import calibrated_slowdown
    finally:
        sys.path.remove(str(ROOT / "tests" / "perf"))
    assert calibrated_slowdown(None) is None and calibrated_slowdown(0) is None
    assert calibrated_slowdown(1500) is None and calibrated_slowdown(2008.5) is None
    assert calibrated_slowdown(1499) == 4.0
    assert calibrated_slowdown(1052.5) == 2.8
    assert calibrated_slowdown(750) == 2.0
    assert calibrated_slowdown(200) == 1.0


@pytest.mark.browser
def test_every_budget_is_reported(report):
    """Each budget row carries the report's own measurement (not a copy of another figure), and its verdict is that
    measurement compared with the limit; the numbers are not judged here (they depend on the machine)."""
    rows = {b["key"]: b for b in report["budgets"]}
    assert BUDGETS <= set(rows)
    s, lh = report["selector"], report["lighthouse"]["pages"]["home"]["scores"]
    own = {
        "cold_ratio": number(s["cold_ratio"]), "longest_task": number(s["longest_task_ms"]),
        "answer_change": number(s["change_ms"]), "answer_revisit": number(s["revisit_ms"]),
        "build": number(report["build"]["mkdocs"]["wall_s"]),
        **{f"wire_{k}": report["wire"][k]["gzip_bytes"] / 1000 for k in ("home", "l2", "matrix", "results", "compare")},
        **{f"lh_home_{c}": number(lh[c]) for c in ("performance", "accessibility", "best-practices", "seo")},
    }
    for key, value in own.items():
        row = rows[key]
        assert row["measured"] == pytest.approx(value), (key, row)
        assert row["op"] in ("<=", ">=") and isinstance(row["limit"], (int, float)), row
        assert row["met"] is (value <= row["limit"] if row["op"] == "<=" else value >= row["limit"]), row
