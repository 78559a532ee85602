// Measured-results explorer: the build renders every row (tables and SVG charts) and the filter controls;
// this hides the rows and chart points that do not match the reader's picks and keeps the picks in the
// address (?engine=vllm,sglang&gpu=h200&set=...). No data and no rule live here: matching compares the
// data-* attributes the build wrote. Without JavaScript every row shows.

const KEYS = ["engine", "gpu", "model", "weights", "set", "concurrency"];

function matches(node, picked) {
  return KEYS.every((k) => !picked[k].length || picked[k].includes(node.dataset[k]));
}

// Bars of a bar chart close up over the hidden ones; the drawing's height follows.
function relayout(svg) {
  const rowHeight = Number(svg.dataset.rowHeight);
  const top = Number(svg.dataset.top);
  const bottom = Number(svg.dataset.bottom);
  const width = svg.viewBox.baseVal.width;
  let shown = 0;
  for (const bar of svg.querySelectorAll(".iem-rbar")) {
    if (bar.hasAttribute("hidden")) continue;
    const dy = (shown - Number(bar.dataset.slot)) * rowHeight;
    if (dy) setIfChanged(bar, "transform", `translate(0 ${dy})`);
    else bar.removeAttribute("transform");
    shown += 1;
  }
  const height = top + shown * rowHeight + bottom;
  setIfChanged(svg, "viewBox", `0 0 ${width} ${height}`);
  for (const line of svg.querySelectorAll("[data-grid]")) setIfChanged(line, "y2", String(height - bottom));
}

// Writing an attribute restyles even when the value is the same, so unchanged values are left alone.
function setIfChanged(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

export function mountResults() {
  const form = document.getElementById("results-filter");
  if (!form || form.dataset.mounted) return;
  form.dataset.mounted = "1";
  const boxes = [...form.querySelectorAll("input[type=checkbox]")];
  const known = Object.fromEntries(KEYS.map((k) => [k, new Set(boxes.filter((b) => b.name === k).map((b) => b.value))]));
  const sections = [...document.querySelectorAll("section.iem-rset")];
  const status = document.getElementById("results-status");
  const note = document.getElementById("results-unknown");
  const total = Number(status.dataset.total);

  const picked = () => Object.fromEntries(KEYS.map((k) => [k, boxes.filter((b) => b.name === k && b.checked).map((b) => b.value)]));

  const query = (p) => {
    const parts = KEYS.filter((k) => p[k].length).map((k) => `${k}=${p[k].map(encodeURIComponent).join(",")}`);
    return (parts.length ? `?${parts.join("&")}` : location.pathname) + location.hash;
  };

  const apply = () => {
    const p = picked();
    let rows = 0;
    let sets = 0;
    for (const section of sections) {
      let shown = 0;
      for (const tr of section.querySelectorAll("tr[data-row]")) {
        const ok = matches(tr, p);
        tr.hidden = !ok;
        if (ok) shown += 1;
      }
      for (const figure of section.querySelectorAll("figure.iem-chart")) {
        let points = 0;
        for (const node of figure.querySelectorAll("svg [data-row]")) {
          const ok = matches(node, p);
          node.toggleAttribute("hidden", !ok);
          if (ok) points += 1;
        }
        for (const item of figure.querySelectorAll(".iem-legend [data-engine]")) {
          item.hidden = p.engine.length > 0 && !p.engine.includes(item.dataset.engine);
        }
        const svg = figure.querySelector("svg.iem-barchart");
        if (svg) relayout(svg);
        figure.hidden = points === 0;
      }
      section.hidden = shown === 0;
      const heading = section.previousElementSibling;
      if (heading && /^H[1-6]$/.test(heading.tagName)) heading.hidden = shown === 0;
      rows += shown;
      if (shown) sets += 1;
    }
    for (const span of form.querySelectorAll("[data-picked-for]")) {
      const names = boxes.filter((b) => b.name === span.dataset.pickedFor && b.checked).map((b) => b.dataset.label);
      span.textContent = names.length ? names.join(", ") : "all";
    }
    const filtered = KEYS.some((k) => p[k].length);
    status.textContent = !filtered
      ? `Showing all ${total} rows in ${sets} comparable sets.`
      : rows
        ? `Showing ${rows} of ${total} rows, in ${sets} comparable set${sets === 1 ? "" : "s"}.`
        : `No row matches every pick (0 of ${total}); untick a value or use "Show all rows".`;
    status.dataset.shown = String(rows);
    return p;
  };

  // the address: known values tick their boxes; anything else is reported and dropped from the address
  const params = new URLSearchParams(location.search);
  const unknown = [];
  for (const k of KEYS) {
    const wanted = (params.get(k) || "").split(",").map((s) => s.trim()).filter(Boolean);
    for (const v of wanted) if (!known[k].has(v)) unknown.push(`${k}=${v}`);
    for (const b of boxes) if (b.name === k) b.checked = wanted.includes(b.value);
  }
  const extra = [...params.keys()].filter((k) => !KEYS.includes(k));
  if (unknown.length) {
    note.textContent = `Not recognised, so not used: ${unknown.join(", ")}. Pick from the lists instead.`;
    note.hidden = false;
  }
  // The page as built shows every row, every chart point and the "all" status; an address that picks
  // nothing asks for exactly that, so the first pass is skipped. (It walked every row, chart mark and
  // grid line and rewrote every drawing's size: 72 ms of script under Lighthouse's tracing, 5 ms without
  // it, for no change. tests/test_browser_results.py checks that the pass would change nothing.)
  const initial = picked();
  if (KEYS.some((k) => initial[k].length)) apply();
  else status.dataset.shown = String(total);
  if (unknown.length || extra.length) history.replaceState(history.state, "", query(initial));
  for (const d of form.querySelectorAll("details")) if (d.querySelector("input:checked")) d.open = true;

  form.addEventListener("change", () => {
    const p = apply();
    note.hidden = true;
    history.replaceState(history.state, "", query(p));
  });
  form.addEventListener("reset", () => setTimeout(() => {
    const p = apply();
    note.hidden = true;
    history.replaceState(history.state, "", query(p));
  }));
  form.addEventListener("submit", (event) => event.preventDefault());
}
