"""Statistics, budgets and the Markdown forms of the benchmark report."""

import re
import statistics

KB = 1000  # "KB" in this report is 1000 bytes


def stats(values):
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def med(s):
    return None if s is None else s["median"]


CONTENT_PAGES = ("home", "l2", "matrix")
SELECTOR_PAGES = ("selector", "fit")
# Pages that are tools over the data, like the selector: the results explorer (every measured row, its
# charts and filters) and the compare view. They get the page-weight budget of every page and the
# selector's Lighthouse budget (90), not the 95 of a page of prose and tables.
DATA_TOOL_PAGES = ("results", "compare")


def budgets(r):
    """Every budget of issue 5: (name, measured median, limit, unit, met or None when not measured)."""
    out = []

    def add(key, name, value, op, limit, unit, note=""):
        met = None if value is None else (value <= limit if op == "<=" else value >= limit)
        shown = f"{limit:.2f}" if unit == "x" else f"{limit:g}"
        out.append({"key": key, "budget": f"{name} {op} {shown}{unit}", "measured": value, "unit": unit,
                    "op": op, "limit": limit, "met": met, "note": note})

    sel = r.get("selector", {})
    add("cold_ratio", "Cold first answer / bare Pyodide load", med(sel.get("cold_ratio")), "<=", 1.10, "x")
    add("longest_task", "Longest main-thread task on /selector/", med(sel.get("longest_task_ms")), "<=", 100, " ms")
    add("answer_change", "Answer after an input change", med(sel.get("change_ms")), "<=", 10, " ms")
    add("answer_revisit", "Answer after instant-nav revisit", med(sel.get("revisit_ms")), "<=", 100, " ms")
    add("build", "Strict build (wall clock)", med(r.get("build", {}).get("mkdocs", {}).get("wall_s")), "<=", 3, " s")
    for key, page in r.get("ratios", {}).get("pages", {}).items():
        for metric, name in (("tbt", "total blocking time"), ("lcp", "largest contentful paint")):
            add(f"ratio_{metric}_{key}", f"{page['path']} {name} / stock Material", med(page.get(f"{metric}_ratio")),
                "<=", 1.10, "x")
    wire = r.get("wire", {})
    for key in CONTENT_PAGES + DATA_TOOL_PAGES:  # the pages a run weighed
        page = wire.get(key)
        if page:
            add(f"wire_{key}", f"{page['path']} on the wire (gzip)", page["gzip_bytes"] / KB, "<=", 500, " KB")
    lh = r.get("lighthouse", {}).get("pages", {})
    for key in CONTENT_PAGES + SELECTOR_PAGES + DATA_TOOL_PAGES:  # the pages Lighthouse ran on
        page = lh.get(key)
        if not page:
            continue
        scores = page.get("scores", {})
        path = page["path"]
        if key in CONTENT_PAGES:
            add(f"lh_{key}_performance", f"Lighthouse performance {path}", med(scores.get("performance")), ">=", 95, "")
        else:
            add(f"lh_{key}_performance", f"Lighthouse performance {path}", med(scores.get("performance")), ">=", 90, "")
        add(f"lh_{key}_accessibility", f"Lighthouse accessibility {path}", med(scores.get("accessibility")), ">=", 100, "")
        add(f"lh_{key}_best-practices", f"Lighthouse best practices {path}", med(scores.get("best-practices")), ">=", 100, "")
        add(f"lh_{key}_seo", f"Lighthouse SEO {path}", med(scores.get("seo")), ">=", 95, "")
    return out


def fmt(v, unit=""):
    if v is None:
        return "not measured"
    if isinstance(v, float):
        if unit == "x":
            v = f"{v:.3f}"  # ratios sit next to a 1.10 limit: two decimals would round across it
        else:
            v = f"{v:.2f}" if abs(v) < 10 else f"{v:.0f}"
    return f"{v}{unit}"


def fmt_stats(s, unit="", scale=1.0):
    if not s:
        return "not measured"
    f = lambda x: fmt(float(x * scale), unit).removesuffix(unit) if unit else fmt(float(x * scale))  # noqa: E731
    return f"{f(s['median'])}{unit} ({f(s['min'])}–{f(s['max'])}, n={s['n']})"


def met_word(m):
    return "not measured" if m is None else ("met" if m else "**missed**")


def budget_table(rows, date):
    lines = [f"Budgets, measured {date} (medians):", "",
             "| Budget | Measured (median) | Met |", "|---|---|---|"]
    for b in rows:
        lines.append(f"| {b['budget']} | {fmt(b['measured'], b['unit'])} | {met_word(b['met'])} |")
    return "\n".join(lines)


def busy_summary(r):
    vals = [v for run in r.get("selector", {}).get("runs", []) for k, v in run.items()
            if k.startswith("cpu_busy_before") and v is not None]
    if not vals:
        return "not sampled"
    return f"median {statistics.median(vals):.0%} (max {max(vals):.0%})"


def markdown(r):
    rows = r["budgets"]
    cfg = r["config"]
    out = [f"# Inference Engine Map benchmark, {r['date']}", "",
           f"Runs: {cfg['runs']} (medians, with min–max). Machine: {r['machine']}; niceness {r.get('niceness')}; "
           f"CPUs busy with other work just before the timed visits: {busy_summary(r)}. "
           f"Chromium {r.get('chromium', '?')}, Lighthouse {r.get('lighthouse', {}).get('version') or 'not run'}.", "",
           budget_table(rows, r["date"]), ""]
    b = r.get("build", {})
    out += ["## Build", "",
            f"- MkDocs strict build, wall clock: {fmt_stats(b.get('mkdocs', {}).get('wall_s'), ' s')}; "
            f"as MkDocs reports it: {fmt_stats(b.get('mkdocs', {}).get('reported_s'), ' s')}."]
    z = b.get("zensical", {})
    if z.get("wall_s"):
        out.append(f"- Zensical {z.get('version')}: {fmt_stats(z['wall_s'], ' s')}; Zensical / MkDocs ratio "
                   f"{fmt_stats(z.get('ratio'), 'x')}. {z.get('note', '')}")
    else:
        out.append(f"- Zensical: {z.get('skipped') or z.get('error') or 'not run'}")
    out += ["", "## Bytes on the wire (fresh visit, every subresource and worker fetch)", "",
            "| Page | Raw | gzip (precompressed .gz) | Requests |", "|---|---|---|---|"]
    for key, w in r.get("wire", {}).items():
        out.append(f"| {w['path']} | {w['raw_bytes'] / KB:.1f} KB | {w['gzip_bytes'] / KB:.1f} KB | {w['requests']} |")
    ratios = r.get("ratios", {})
    if ratios.get("pages"):
        out += ["", f"## Against stock Material (same pages without the project's scripts and styles, CPU x{ratios['cpu_rate']:g})", "",
                "| Page | TBT | TBT stock | TBT ratio | LCP | LCP stock | LCP ratio |", "|---|---|---|---|---|---|---|"]
        for p in ratios["pages"].values():
            out.append(f"| {p['path']} | {fmt_stats(p['ours_tbt_ms'], ' ms')} | {fmt_stats(p['stock_tbt_ms'], ' ms')} | "
                       f"{fmt_stats(p['tbt_ratio'], 'x')} | {fmt_stats(p['ours_lcp_ms'], ' ms')} | "
                       f"{fmt_stats(p['stock_lcp_ms'], ' ms')} | {fmt_stats(p['lcp_ratio'], 'x')} |")
    s = r.get("selector", {})
    out += ["", "## Selector", "",
            f"- Cold first answer (navigation start to `#selector-result[data-state=ready]`): {fmt_stats(s.get('cold_ms'), ' ms')}",
            f"- Bare Pyodide load in a module worker, same files, same run: {fmt_stats(s.get('bare_cold_ms'), ' ms')}",
            f"- Ratio (per run): {fmt_stats(s.get('cold_ratio'), 'x')}",
            f"- Where the selector's time goes: its worker starts {fmt_stats(s.get('worker_start_ms'), ' ms')} after "
            f"navigation (the bare page's: {fmt_stats(s.get('bare_worker_start_ms'), ' ms')}), is ready "
            f"{fmt_stats(s.get('worker_ready_ms'), ' ms')} later (Pyodide, wheel, import, catalog), and the first "
            f"answer is on screen {fmt_stats(s.get('ready_to_answer_ms'), ' ms')} after that",
            f"- Longest main-thread task during load: {fmt_stats(s.get('longest_task_ms'), ' ms')}; "
            f"total blocking time: {fmt_stats(s.get('total_blocking_ms'), ' ms')}",
            f"- Answer after an input change (`data-ms`): {fmt_stats(s.get('change_ms'), ' ms')}; "
            f"change event to DOM: {fmt_stats(s.get('change_event_to_dom_ms'), ' ms')}",
            f"- Answer after instant navigation away and back (click to answer): {fmt_stats(s.get('revisit_ms'), ' ms')}"
            f" (instant navigation in every run: {s.get('instant_nav_all')})",
            f"- Repeat visit, warm HTTP cache: {fmt_stats(s.get('warm_ms'), ' ms')}, "
            f"{fmt_stats(s.get('warm_wire_bytes'), ' KB', 1 / KB)} on the wire; bare Pyodide warm "
            f"{fmt_stats(s.get('bare_warm_ms'), ' ms')}", ""]
    lh = r.get("lighthouse", {})
    out += ["## Lighthouse", ""]
    if lh.get("pages"):
        out += ["Lighthouse's CPU slowdown is 4x on a host whose benchmark index is at least "
                f"{lh.get('reference_index', 1500)} (the high-end desktop it assumes); a run on a slower host is "
                "repeated with the slowdown scaled to the index (docs/throttling.md, \"Calibrating the CPU "
                "slowdown\"), and the last column keeps the performance score at 4x.", "",
                "| Page | Performance | Accessibility | Best practices | SEO | LCP | TBT | Host index | CPU slowdown "
                "| Performance at 4x | Audits losing points |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for key, p in lh["pages"].items():
            sc = p.get("scores", {})
            m = p.get("metrics", {})
            lost = "; ".join(f"{c}: {', '.join(v)}" for c, v in (p.get("failing") or {}).items()) or "none"
            out.append(f"| {p['path']} | {fmt(med(sc.get('performance')))} | {fmt(med(sc.get('accessibility')))} | "
                       f"{fmt(med(sc.get('best-practices')))} | {fmt(med(sc.get('seo')))} | "
                       f"{fmt(med(m.get('lcp_ms')), ' ms')} | {fmt(med(m.get('tbt_ms')), ' ms')} | "
                       f"{fmt_stats(p.get('benchmark_index'))} | {fmt_stats(p.get('cpu_slowdown'), 'x')} | "
                       f"{fmt_stats(p.get('default_slowdown_performance'))} | {lost} |")
    else:
        out.append(lh.get("skipped") or lh.get("error") or "not run")
    if r.get("notes"):
        out += ["", "## Notes", ""] + [f"- {n}" for n in r["notes"]]
    return "\n".join(out) + "\n"


# What was changed to meet the budgets, with the effect measured before and after (medians, 2026-11-29).
CHANGES = """Changes measured for issue 5 (before → after, medians on the machine above):

- Precompressed `.gz` siblings written after the build (`macros/precompress.py`, listed under `hooks:`;
  large files cached in `node_modules/.cache/iem-gzip/`): content pages 621-649 → 158-166 KB on the wire,
  /selector/ 14.3 → 6.6 MB; Lighthouse FCP 2.7 → 1.5 s; build time +0.08 s.
- `content.tooltips` off: Lighthouse total blocking time on /tiers/l2/ 510-560 → 110 ms and on /matrix/
  360-520 → 160 ms (performance 85-91 → 97-99).
- The selector worker starts when site.js runs instead of after Material's DOMContentLoaded work, and the
  worker fetches the manifest while Pyodide loads: cold first answer unchanged (x1.00), longest task
  117 → 97 ms in the paired comparison. site.js is modulepreloaded from the head: no effect on loopback.
- Tried and left off (`extra: {early_runtime: true}` turns them on): starting the worker from the page head
  (cold x0.98-1.02; longest task 98 → 158 ms and 137 → 155 ms in two paired comparisons) and preloading
  the Pyodide files (no gain on loopback; Lighthouse LCP on /selector/ 1.5 → 2.5-34 s, performance
  97 → 53-95). A Pyodide memory snapshot made in Node after loading the selector restored in Chromium in
  1.1 s instead of about 3 s, but it adds 31 MB (6.3 MB gzip) to the selector pages, needs Node in the
  build and private (`_loadSnapshot`) Pyodide options: not shipped.
- Meta descriptions for every page (front matter; engine pages from their positioning line);
  `macros/site.py` hashes the data folder with `os.walk` (build 0.1 s faster).

Changes measured for issues 10 and 11 (Lighthouse performance at 4x CPU; single runs unless "median"):

- Tables measured by a resize observer as they come near the view, not all at mount: /matrix/ total
  blocking time 1.5 → 0.5-0.6 s.
- Results explorer: each comparable set drawn only near the view (content-visibility) and columns the same
  in every row of a set given once above its table: total blocking time 5.7 → 0.6-0.9 s, performance
  69 → 79-84, 15,809 → about 13,000 elements.
- Compare view: the table's box skipped (not only invisible) until the reader's columns are arranged:
  total blocking time 2.9-3.3 → 1.0-1.5 s, performance 70-71 → 74-78.
- Compare view: compare.js marks only the picks' cells, moves each row's cells by the fewest moves and
  only when the row is drawn, and draws the table a few rows per frame. Its script under Lighthouse's
  trace 206 → 21 ms (the trace records every restyle a DOM change causes, with its stack); medians of 4
  side by side: total blocking time 1.0 → 0.5 s, performance 77 → 84.5.
- Results explorer: no first pass over every row and chart mark when the address picks nothing (the page
  as built is that state; a test runs the pass and finds nothing changed): its script under Lighthouse's
  trace 72 → 5 ms.
- Compare view: while its table waits to be arranged, the skipped box keeps the drawn box's height, so
  the footer no longer appears in view and is then pushed away: Lighthouse layout shift 0.057 → 0.0008.
- Two `make bench --runs 3` runs 40 minutes apart; the only change between them is the compare box's
  height above (one CSS rule): /matrix/ 95 then 90, /tiers/l2/ 90 then 96, /results/ 84 then 86,
  /compare/ 92 then 89. On this shared machine a median of 3 moves by up to 6 points between runs.

Issue 28 took back what fought Material (its bundle held until the first interaction, a head script
setting its classes and stylesheet links, a palette component of the project's own, site.css under a
hashed folder): Material's start-up cost is accepted, and the budgets compare each page with the same
page without the project's scripts and styles, in the same run."""


def update_readme(path, r):
    text = path.read_text(encoding="utf-8")
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    if start not in text or end not in text:
        return False
    body = ("`make bench` (`tests/perf/bench.py`; `--runs N`, `--quick`, `--help`) builds the site with "
            "`SITE_URL` set to a loopback port, serves it with `Cache-Control` and the precompressed `.gz` files, "
            "and measures it in headless Chromium (Playwright) and Lighthouse 12.2.3 (mobile, simulated "
            "throttling). Each page is compared, visit by visit in the same run, with the same page without the "
            "project's own scripts and styles (stock Material), and the selector's cold start with a bare page "
            "that only loads the same Pyodide files in a module worker. Results go to `bench-results/bench.md` and "
            "`bench-results/bench.json`; `tests/perf/ab.py` compares builds visit by visit.\n\n"
            + budget_table(r["budgets"], r["date"]) + "\n\n"
            f"Medians of {r['config']['runs']} runs on {r['machine']}; KB = 1000 bytes. "
            "Timings depend on the machine and its load: on this 2-CPU machine the cold ratio ranged "
            "0.9-1.5 and the longest task 70-170 ms from one visit to the next. The results explorer and "
            "the compare view (three systems picked) are tools over the data, like the selector: they have its "
            "Lighthouse budget (90) and every page's weight budget.\n\n"
            + CHANGES)
    new = re.sub(re.escape(start) + r".*?" + re.escape(end), lambda m: f"{start}\n{body}\n{end}", text, flags=re.S)
    path.write_text(new, encoding="utf-8")
    return True
