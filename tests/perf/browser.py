"""Browser measurements with Playwright (Python) in Debian's Chromium.

Everything is timed inside the page, against ``performance.now()`` (zero = navigation start), by an
init script that records long tasks, every answer of the selector (``#selector-result`` gets
``data-seq`` incremented and ``data-ms`` on each answer) and every click.
"""

import os
import re
import time

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
VIEWPORT = {"width": 1280, "height": 900}
READY_TIMEOUT_MS = 60_000

INIT_SCRIPT = r"""
(() => {
  if (window.__bench) return;
  const b = window.__bench = { longtasks: [], answers: [], clicks: [], ltSupported: true };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) b.longtasks.push({ start: e.startTime, dur: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch (err) { b.ltSupported = false; }
  new MutationObserver((muts) => {
    for (const m of muts) {
      const t = m.target;
      if (t.id !== "selector-result") continue;
      b.answers.push({ t: performance.now(), seq: Number(t.dataset.seq), ms: Number(t.dataset.ms),
                       state: t.dataset.state, path: location.pathname });
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-seq"] });
  document.addEventListener("click", (ev) => {
    b.clicks.push({ t: performance.now(), text: (ev.target.textContent || "").trim().slice(0, 40) });
  }, true);
})();
"""


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def new_context(browser):
    """An incognito context (memory cache only: the 9.6 MB wasm is not kept)."""
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.add_init_script(INIT_SCRIPT)
    return ctx


def persistent_context(playwright, user_data_dir):
    """A fresh profile with a disk cache, so a second visit can be served from the HTTP cache."""
    ctx = playwright.chromium.launch_persistent_context(
        str(user_data_dir), executable_path=CHROMIUM, args=CHROMIUM_ARGS, viewport=VIEWPORT)
    ctx.add_init_script(INIT_SCRIPT)
    for pg in ctx.pages:
        pg.close()
    return ctx


def _errors(page):
    errs = []
    page.on("pageerror", lambda e: errs.append(str(e)))
    return errs


def wait_answer(page, after_t=0.0, path=None, timeout=READY_TIMEOUT_MS):
    """Wait for an answer recorded after ``after_t`` (page clock) and return it."""
    cond = "(a) => a.t > %f%s" % (after_t, f" && a.path === {path!r}" if path else "")
    page.wait_for_function(f"() => (window.__bench && window.__bench.answers.some({cond}))", timeout=timeout)
    return page.evaluate(f"() => window.__bench.answers.find({cond})")


WORKER_START = """(suffix) => {
  const e = performance.getEntriesByType('resource').find((r) => r.name.endsWith(suffix));
  return e ? e.startTime : null;
}"""


def blocking(longtasks, until):
    tasks = [t for t in longtasks if t["start"] < until]
    return {
        "longest_task_ms": max((t["dur"] for t in tasks), default=0.0),
        "total_blocking_ms": sum(max(0.0, t["dur"] - 50.0) for t in tasks),
        "long_tasks": len(tasks),
    }


def page_weight(browser, server, url, wait_ready=False):
    """Bytes the server wrote for one fresh visit (empty cache), the page's workers included, and what
    the same visit costs without the precompressed .gz files."""
    ctx = new_context(browser)
    page = ctx.new_page()
    errs = _errors(page)
    server.traffic.reset()
    page.goto(url, wait_until="load")
    if wait_ready:
        wait_answer(page)
    page.wait_for_load_state("networkidle")
    time.sleep(0.3)
    reqs = server.traffic.snapshot()
    tasks = page.evaluate("() => window.__bench.longtasks")
    ctx.close()
    return {"gzip_bytes": sum(r[1] for r in reqs), "raw_bytes": sum(r[1] + r[2] for r in reqs), "requests": len(reqs),
            "longest_task_ms": max((t["dur"] for t in tasks), default=0.0),
            "by_path": sorted(([p, n, n + saved] for p, n, saved in reqs), key=lambda r: -r[2]), "errors": errs}


def bare_cold(ctx, base):
    page = ctx.new_page()
    errs = _errors(page)
    page.goto(base + "__bench/bare/", wait_until="load")
    page.wait_for_function("() => document.body.dataset.state !== 'loading'", timeout=READY_TIMEOUT_MS)
    state = page.evaluate("() => document.body.dataset.state")
    if state != "ready":
        raise RuntimeError(f"bare Pyodide page failed: {page.evaluate('() => document.body.dataset.error')} {errs}")
    out = page.evaluate("() => ({ready_ms: window.__bareReady, worker_ms: window.__bareWorkerMs})")
    out["worker_start_ms"] = page.evaluate(WORKER_START, "/bare-worker.js")
    page.close()
    return out


def _nav_link(page, text):
    return page.locator(".md-sidebar--primary a.md-nav__link").filter(
        has_text=re.compile(r"^\s*" + re.escape(text) + r"\s*$")).first


def _pick_changes(page, n):
    """n (select id, value) pairs that each change the form: cycle through one select's options."""
    return page.evaluate("""(n) => {
      const form = document.getElementById('selector-form');
      const sel = form.querySelector('#q-hardware') ||
        [...form.querySelectorAll('select')].find((s) => s.options.length > 2);
      const values = [...sel.options].filter((o) => !o.disabled && o.value).map((o) => o.value);
      const out = [];
      let cur = sel.value;
      for (let i = 0; out.length < n && i < values.length * 2; i++) {
        const v = values[i % values.length];
        if (v !== cur) { out.push([sel.id, v]); cur = v; }
      }
      return out;
    }""", n)


def selector_visit(ctx, base, changes=5, nav_away="Decision matrix", nav_back="Selector"):
    """Cold visit: first answer, long tasks, answers after input changes, and after instant navigation."""
    page = ctx.new_page()
    errs = _errors(page)
    page.goto(base + "selector/", wait_until="load")
    first = wait_answer(page)
    if first["state"] != "ready":
        raise RuntimeError(f"selector's first answer is {first['state']!r}: {errs}")
    info = page.evaluate("() => ({longtasks: window.__bench.longtasks, lt: window.__bench.ltSupported,"
                         " worker: window.iem ? window.iem.state().readyMs : null})")
    out = {"cold_ms": first["t"], "cold_data_ms": first["ms"], "worker_ready_ms": info["worker"],
           "worker_start_ms": page.evaluate(WORKER_START, "/selector-worker.js"),
           "longtask_supported": info["lt"], **blocking(info["longtasks"], first["t"])}

    page.wait_for_load_state("networkidle")
    change_ms, change_dom_ms = [], []
    for sel_id, value in _pick_changes(page, changes):
        t0 = page.evaluate("""([id, v]) => {
          const s = document.getElementById(id);
          const t = performance.now();
          s.value = v;
          s.dispatchEvent(new Event('change', { bubbles: true }));
          return t;
        }""", [sel_id, value])
        ans = wait_answer(page, after_t=t0, timeout=10_000)
        change_ms.append(ans["ms"])
        change_dom_ms.append(ans["t"] - t0)
    out["change_ms"] = change_ms
    out["change_event_to_dom_ms"] = change_dom_ms

    # instant navigation away and back, by the nav link text
    page.evaluate("() => { window.__benchMarker = 1; }")
    _nav_link(page, nav_away).click()
    page.wait_for_function("(p) => location.pathname.endsWith(p)", arg="/matrix/", timeout=15_000)
    page.wait_for_load_state("networkidle")
    time.sleep(0.2)
    n_clicks = page.evaluate("() => window.__bench.clicks.length")
    _nav_link(page, nav_back).click()
    page.wait_for_function("(n) => window.__bench && window.__bench.clicks.length > n", arg=n_clicks, timeout=10_000)
    click_t = page.evaluate("() => window.__bench.clicks.at(-1).t")
    ans = wait_answer(page, after_t=click_t, path=urlpath(base) + "selector/", timeout=15_000)
    out["instant_nav"] = page.evaluate("() => window.__benchMarker === 1")
    out["revisit_ms"] = ans["t"] - click_t
    out["revisit_data_ms"] = ans["ms"]
    out["revisit_state"] = ans["state"]
    out["errors"] = errs
    page.close()
    return out


def warm_visit(ctx, base, server):
    """A full navigation to the selector in a context whose HTTP cache holds the earlier visit."""
    page = ctx.new_page()
    errs = _errors(page)
    server.traffic.reset()
    page.goto(base + "selector/", wait_until="load")
    ans = wait_answer(page)
    info = page.evaluate("() => window.__bench.longtasks")
    page.wait_for_load_state("networkidle")
    out = {"warm_ms": ans["t"], "warm_state": ans["state"], "warm_wire_bytes": server.traffic.total(),
           **{"warm_" + k: v for k, v in blocking(info, ans["t"]).items()}, "errors": errs}
    page.close()
    return out


def urlpath(base):
    from urllib.parse import urlsplit
    return urlsplit(base).path


LOAD_METRICS = r"""
(() => {
  const m = window.__load = { lcp: null, fcp: null, tasks: [] };
  const watch = (type, fn) => new PerformanceObserver((list) => list.getEntries().forEach(fn)).observe({ type, buffered: true });
  watch("largest-contentful-paint", (e) => { m.lcp = e.renderTime || e.loadTime || e.startTime; });
  watch("paint", (e) => { if (e.name === "first-contentful-paint") m.fcp = e.startTime; });
  watch("longtask", (e) => { m.tasks.push([e.startTime, e.duration]); });
})();
"""


def load_metrics(browser, url, cpu_rate=4, settle_ms=2500):
    """One cold visit (empty cache) with the CPU slowed ``cpu_rate`` times (Lighthouse's mobile default):
    largest contentful paint, and total blocking time (each long task's time beyond 50 ms, from the first
    contentful paint to ``settle_ms`` after the load event)."""
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.add_init_script(LOAD_METRICS)
    try:
        page = ctx.new_page()
        errs = _errors(page)
        ctx.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": cpu_rate})
        page.goto(url, wait_until="load", timeout=READY_TIMEOUT_MS)
        page.wait_for_timeout(settle_ms)
        m = page.evaluate("() => window.__load")
    finally:
        ctx.close()
    fcp = m["fcp"] or 0.0
    tbt = sum(max(0.0, min(dur, start + dur - fcp) - 50.0) for start, dur in m["tasks"] if start + dur > fcp)
    return {"lcp_ms": m["lcp"], "tbt_ms": tbt, "fcp_ms": m["fcp"], "errors": errs}
