// Measured-results explorer: the build renders every row (tables and SVG charts, costs included) and the
// filter controls; this hides the rows and chart points that do not match the reader's picks, keeps the
// picks in the address (?engine=vllm,sglang&gpu=h200&set=...), recounts each option under the other
// picks and, when nothing matches, names the picks that would. No data and no rule live here: matching
// and counting compare the data-* attributes the build wrote. Without JavaScript every row shows.

const KEYS = ["engine", "gpu", "model", "weights", "set", "concurrency"];
const INSTEAD = { engine: "another engine", gpu: "another GPU", model: "another model", weights: "another precision",
  set: "another comparable set", concurrency: "another concurrency" };

function matches(node, picked) {
  return KEYS.every((k) => !picked[k].length || picked[k].includes(node.dataset[k]));
}

// Hides a chart's points and legend entries outside the picks; returns how many points stay.
function filterChart(figure, picked) {
  let points = 0;
  for (const node of figure.querySelectorAll("svg [data-row]")) {
    const ok = matches(node, picked);
    node.toggleAttribute("hidden", !ok);
    if (ok) points += 1;
  }
  for (const item of figure.querySelectorAll(".iem-legend [data-engine]")) {
    item.hidden = picked.engine.length > 0 && !picked.engine.includes(item.dataset.engine);
  }
  return points;
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

// The load control: a slider over the loads the build listed shows that load's row of the table and
// names it; without JavaScript (or before the first move) every load shows.
function mountLoad() {
  for (const form of document.querySelectorAll("form.iem-load")) {
    if (form.dataset.mounted) continue;
    form.dataset.mounted = "1";
    const range = form.querySelector("input[type=range]");
    const output = form.querySelector("output");
    const rows = [...form.querySelectorAll("tr[data-level]")];
    const show = () => {
      for (const tr of rows) tr.hidden = tr.dataset.level !== range.value;
      const row = rows.find((tr) => tr.dataset.level === range.value);
      output.textContent = row ? `${row.querySelector("th").textContent} concurrent requests` : "";
    };
    range.addEventListener("input", show);
    form.addEventListener("submit", (event) => event.preventDefault());
  }
}

// A GPU-hour price the reader types: the selector's Python (selector.costs in its worker, started only now) prices
// every row again, and the numbers it returns go into the tables' cost column. The charts keep the cited prices.
const WORKER = new URL("../selector-worker.js", import.meta.url);
const COST_HEAD = "Cost per million tokens (USD, derived)";

function costCells() {
  const cells = new Map();
  for (const table of document.querySelectorAll("section.iem-rset table")) {
    const col = [...table.querySelectorAll("thead th")].findIndex((th) => th.textContent.trim() === COST_HEAD);
    if (col < 0) continue;
    for (const tr of table.querySelectorAll("tbody tr[data-row]")) cells.set(tr.dataset.row, tr.children[col]);
  }
  return cells;
}

function writeCost(cell, value, title) {
  let mark = cell.querySelector(".iem-mark");
  if (value === null) {
    cell.replaceChildren();
    return;
  }
  if (!mark) {
    mark = document.createElement("span");
    mark.className = "iem-mark iem-mark-derived";
    mark.textContent = "derived";
  }
  mark.title = title;
  cell.replaceChildren(`${value.toLocaleString("en-US", { maximumFractionDigits: 20 })} `, mark);
}

function mountPrice() {
  const row = document.getElementById("results-price-row");
  if (!row || row.dataset.mounted) return;
  row.dataset.mounted = "1";
  row.hidden = false;
  const input = document.getElementById("results-price");
  const note = document.getElementById("results-price-note");
  let asked = 0;
  input.addEventListener("change", async () => {
    const ticket = ++asked;
    const text = input.value.trim();
    row.setAttribute("aria-busy", "true");
    note.classList.remove("iem-error");
    note.textContent = "Pricing every row in Python…";
    let response;
    try {
      const runtime = await import("./runtime.js");
      response = await runtime.ask("costs", {}, WORKER, text ? { gpu_hour_usd: text } : {});
    } catch (err) {
      response = { ok: false, error: { label: "GPU-hour price (USD)", detail: `the prices could not be worked out (${err.message})` } };
    }
    if (ticket !== asked) return;
    row.setAttribute("aria-busy", "false");
    row.__costs = response;
    if (!response.ok) {
      note.classList.add("iem-error");
      note.textContent = `${response.error.label || response.error.key}: ${response.error.detail || response.error.message}`;
      return;
    }
    const cells = costCells();
    for (const r of response.result.rows) {
      const cell = cells.get(r.row);
      if (cell) writeCost(cell, r.usd_per_million_tokens, `Derived, not measured: ${response.result.formula}. ${response.result.note}`);
    }
    note.textContent = response.result.note;
  });
}

export function mountResults() {
  mountLoad();
  mountPrice();
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
  const near = document.getElementById("results-near");
  const figures = [...document.querySelectorAll("section.iem-roverview figure.iem-chart")];
  // every table row once, as the values the build wrote on it
  const all = sections.flatMap((s) => [...s.querySelectorAll("tr[data-row]")].map((tr) => tr.dataset));

  // rows per option of each filter, under the picks of the other filters
  const tally = (p) => {
    const counts = Object.fromEntries(KEYS.map((k) => [k, new Map()]));
    for (const row of all) {
      const misses = KEYS.filter((k) => p[k].length && !p[k].includes(row[k]));
      if (misses.length > 1) continue;
      for (const k of KEYS) {
        if (misses.length && misses[0] !== k) continue;
        counts[k].set(row[k], (counts[k].get(row[k]) || 0) + 1);
      }
    }
    return counts;
  };

  const recount = (counts) => {
    for (const b of boxes) {
      const n = counts[b.name].get(b.value) || 0;
      const span = b.parentElement.querySelector(".iem-count");
      const shown = `(${n})`;
      if (span.textContent !== shown) span.textContent = shown;
      const none = n === 0 && !b.checked;
      if (b.parentElement.classList.contains("iem-none") !== none) b.parentElement.classList.toggle("iem-none", none);
    }
  };

  const pick = (key, value) => {
    for (const b of boxes) if (b.name === key) b.checked = b.value === value;
    form.dispatchEvent(new Event("change"));
  };

  // With nothing left, each pick in turn is changed to the values that would give rows.
  const pointNear = (p, counts) => {
    const list = near.querySelector("ul");
    list.replaceChildren();
    for (const k of KEYS.filter((key) => p[key].length)) {
      const options = [...counts[k]].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).slice(0, 6);
      if (!options.length) continue;
      const item = document.createElement("li");
      const others = KEYS.filter((o) => o !== k && p[o].length).map((o) => boxes.filter((b) => b.name === o && b.checked)
        .map((b) => b.dataset.label).join(" or "));
      item.append(`${others.length ? others.join(", ") : "These picks"} with ${INSTEAD[k]}: `);
      options.forEach(([value, n], i) => {
        const box = boxes.find((b) => b.name === k && b.value === value);
        const button = document.createElement("button");
        button.type = "button";
        button.className = "iem-near";
        button.dataset.key = k;
        button.dataset.value = value;
        button.textContent = `${box ? box.dataset.label : value} (${n})`;
        button.addEventListener("click", () => pick(k, value));
        if (i) item.append(" ");
        item.append(button);
      });
      list.append(item);
    }
    near.hidden = !list.children.length;
  };

  // keep = the fragment stays (first load); a change of picks drops it, since the set it named may now
  // be hidden (Material's scroll tracking writes the heading it passed, hidden or not)
  const query = (p, keep = false) => {
    const parts = KEYS.filter((k) => p[k].length).map((k) => `${k}=${p[k].map(encodeURIComponent).join(",")}`);
    return (parts.length ? `?${parts.join("&")}` : location.pathname) + (keep ? location.hash : "");
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
        const points = filterChart(figure, p);
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
    for (const figure of figures) figure.parentElement.hidden = filterChart(figure, p) === 0;
    const counts = tally(p);
    recount(counts);
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
    if (filtered && !rows) pointNear(p, counts);
    else if (!near.hidden) near.hidden = true;
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
  if (unknown.length || extra.length) history.replaceState(history.state, "", query(initial, true));
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
