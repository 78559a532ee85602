"""`make bench` end to end in its quickest configuration (`tests/perf/bench.py --quick`: one run, the home
page against its stock twin, the selector's cold start against a bare Pyodide load; no Lighthouse).

Checks that the benchmark runs and that its JSON report carries every metric (build, bytes on the wire,
the side-by-side ratios, selector timings, budgets). The budgets themselves are not asserted: they depend
on the machine, and `make bench` reports them.
"""

import gzip

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PERF = ROOT / "tests" / "perf"
BUDGETS = {"cold_ratio", "longest_task", "answer_change", "answer_revisit", "build", "wire_home", "ratio_tbt_home",
           "ratio_lcp_home"}


def bench_module():
    sys.path.insert(0, str(PERF))
    try:
        import bench
    finally:
        sys.path.remove(str(PERF))
    return bench


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
def test_bytes_on_the_wire(report):
    assert set(report["wire"]) == {"home"}
    row = report["wire"]["home"]
    assert 0 < row["gzip_bytes"] <= row["raw_bytes"] < 5_000_000, row  # no Python runtime on a content page
    assert row["requests"] >= 3, row


@pytest.mark.browser
def test_the_page_against_its_stock_twin(report):
    page = report["ratios"]["pages"]["home"]
    assert page["path"] == "/" and not page["errors"], page["errors"]
    (run,) = page["runs"]
    for which in ("ours", "stock"):
        assert run[which]["lcp_ms"] > 0 and run[which]["fcp_ms"] > 0 and run[which]["tbt_ms"] >= 0, run
    assert run["tbt_ratio"] == pytest.approx(run["ours"]["tbt_ms"] / max(run["stock"]["tbt_ms"], 1.0)) or \
        run["ours"]["tbt_ms"] == run["stock"]["tbt_ms"]
    assert run["lcp_ratio"] == pytest.approx(run["ours"]["lcp_ms"] / run["stock"]["lcp_ms"])
    assert number(page["tbt_ratio"]) == run["tbt_ratio"] and number(page["lcp_ratio"]) == run["lcp_ratio"]
    assert "skipped" in report["lighthouse"]  # Lighthouse runs in `make bench`, not in this smoke


def test_stock_twin_lacks_only_the_projects_scripts_and_styles(tmp_path):
    bench = bench_module()
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    page = ('<head><link rel="stylesheet" href="../assets/stylesheets/main.1234abcd.min.css">'
            '<link rel="stylesheet" href="../assets/stylesheets/site.css">'
            '<link rel="modulepreload" href="../assets/javascripts/site.js"></head><body>'
            '<script src="../assets/javascripts/theme/palette.js"></script><p>text</p>'
            '<script src="../assets/javascripts/bundle.1234abcd.min.js"></script>'
            '<script src="../assets/javascripts/site.js" type="module"></script></body>')
    (site / "a" / "index.html").write_text(page)
    (site / "a" / "index.html.gz").write_bytes(gzip.compress(page.encode()))
    (site / "b.html").write_text("<p>no project tags</p>")
    bench.stock_site(site, tmp_path / "stock")
    stock = (tmp_path / "stock" / "a" / "index.html").read_text()
    assert stock == ('<head><link rel="stylesheet" href="../assets/stylesheets/main.1234abcd.min.css"></head><body>'
                     '<script src="../assets/javascripts/theme/palette.js"></script><p>text</p>'
                     '<script src="../assets/javascripts/bundle.1234abcd.min.js"></script></body>')
    assert gzip.decompress((tmp_path / "stock" / "a" / "index.html.gz").read_bytes()).decode() == stock
    assert (site / "a" / "index.html").read_text() == page  # the measured site is untouched
    assert (tmp_path / "stock" / "b.html").read_text() == "<p>no project tags</p>"
    (site / "a" / "index.html").write_text(page.replace('type="module"', 'defer'))  # a form the bench does not know
    with pytest.raises(RuntimeError, match="still there"):
        bench.stock_site(site, tmp_path / "stock2")


def test_ratio():
    ratio = bench_module().ratio
    assert ratio(120, 100) == pytest.approx(1.2) and ratio(0, 0) == 1.0 and ratio(30, 0) == 30.0
    assert ratio(None, 5) is None


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


def test_cpu_slowdown_follows_the_host_benchmark_index():
    """Lighthouse's docs/throttling.md: 4x is meant for a high-end desktop (index 1500 and up); slower hosts
    get a proportionally smaller multiplier, never below 1x."""
    calibrated_slowdown = bench_module().calibrated_slowdown
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
    s, home = report["selector"], report["ratios"]["pages"]["home"]
    own = {
        "cold_ratio": number(s["cold_ratio"]), "longest_task": number(s["longest_task_ms"]),
        "answer_change": number(s["change_ms"]), "answer_revisit": number(s["revisit_ms"]),
        "build": number(report["build"]["mkdocs"]["wall_s"]),
        "wire_home": report["wire"]["home"]["gzip_bytes"] / 1000,
        "ratio_tbt_home": number(home["tbt_ratio"]), "ratio_lcp_home": number(home["lcp_ratio"]),
    }
    assert set(rows) == BUDGETS  # no row for what a quick run does not measure
    for key, value in own.items():
        row = rows[key]
        assert row["measured"] == pytest.approx(value), (key, row)
        assert row["op"] in ("<=", ">=") and isinstance(row["limit"], (int, float)), row
        assert row["met"] is (value <= row["limit"] if row["op"] == "<=" else value >= row["limit"]), row
