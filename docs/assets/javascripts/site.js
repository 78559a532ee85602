// Page glue for Inference Engine Map. Loaded as a module on every page; mounts widgets through
// Material's document$ so instant navigation works. No selector rule lives here: the answers go to
// the Python `selector` package running in a Pyodide module worker, and come back as JSON.

const ASSETS = new URL("../", import.meta.url);
const SITE = new URL("../", ASSETS);
const TIMEOUT_MS = 15000;

// ---------------------------------------------------------------------------------------------
// One worker per tab: created on the first selector page, kept across instant navigations.
let worker = null;
let workerState = { status: "idle", error: null, readyMs: null };
const waiting = new Map();
const readyListeners = new Set();
let seq = 0;

function startWorker() {
  if (worker) return worker;
  workerState = { status: "loading", error: null, readyMs: null };
  // On /selector/ and /fit/ the page head (docs/overrides/main.html) already started the worker and
  // kept whatever it sent meanwhile; adopt it and replay those events below.
  const boot = window.__iemWorker;
  window.__iemWorker = null;
  try {
    worker = boot ? boot.worker : new Worker(new URL("selector-worker.js", import.meta.url), { type: "module" });
  } catch (err) {
    fail(`the worker could not start: ${err.message || err}`);
    return null;
  }
  worker.onmessage = (event) => {
    const msg = event.data;
    if (msg.type === "ready") {
      workerState = { status: "ready", error: null, readyMs: msg.ms };
      readyListeners.forEach((fn) => fn());
    } else if (msg.type === "failed") {
      fail(msg.error);
    } else if (msg.type === "answer") {
      const entry = waiting.get(msg.id);
      if (!entry) return;
      waiting.delete(msg.id);
      if (msg.error) entry.reject(new Error(msg.error));
      else entry.resolve(JSON.parse(msg.response));
    }
  };
  worker.onerror = (event) => {
    event.preventDefault();
    // a module that fails to load gives a bare Event without a message
    fail(event.message ? `the worker crashed: ${event.message}` : "the worker script or the Pyodide module did not load");
  };
  if (boot) {
    const w = worker;
    for (const event of boot.queue.splice(0)) {
      if (worker !== w) break; // a replayed error already failed it
      (event.type === "error" ? w.onerror : w.onmessage)(event);
    }
  }
  return worker;
}

function fail(message) {
  workerState = { status: "failed", error: message, readyMs: null };
  if (worker) worker.terminate();
  worker = null;
  waiting.forEach((entry) => entry.reject(new Error(message)));
  waiting.clear();
  readyListeners.forEach((fn) => fn());
}

function ask(op, answers) {
  const w = startWorker();
  if (!w) return Promise.reject(new Error(workerState.error || "worker unavailable"));
  const id = ++seq;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, request: JSON.stringify({ op, answers }) });
  });
}

function whenReady(timeoutMs) {
  if (workerState.status === "ready") return Promise.resolve();
  if (workerState.status === "failed") return Promise.reject(new Error(workerState.error));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      readyListeners.delete(check);
      reject(new Error(`the Python runtime took longer than ${timeoutMs / 1000} s to load`));
    }, timeoutMs);
    const check = () => {
      if (workerState.status === "idle" || workerState.status === "loading") return;
      clearTimeout(timer);
      readyListeners.delete(check);
      workerState.status === "ready" ? resolve() : reject(new Error(workerState.error));
    };
    readyListeners.add(check);
  });
}

// ---------------------------------------------------------------------------------------------
// DOM helpers: text always goes through textContent, never innerHTML.
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

const siteUrl = (path) => new URL(path, SITE).href;

// ---------------------------------------------------------------------------------------------
// Form <-> answers <-> URL query.
function fieldKind(form, key) {
  const field = form.elements.namedItem(key);
  if (!field) return null;
  if (field instanceof RadioNodeList || (field.type === "checkbox")) return "multi";
  return field.type === "number" ? "number" : "choice";
}

function answersFromForm(form) {
  const answers = {};
  const seen = new Set();
  for (const field of form.elements) {
    if (!field.name || seen.has(field.name)) continue;
    seen.add(field.name);
    const kind = fieldKind(form, field.name);
    if (kind === "multi") {
      const picked = [...form.querySelectorAll(`input[name="${field.name}"]:checked`)].map((b) => b.value);
      if (picked.length) answers[field.name] = picked;
    } else if (field.value !== "") {
      answers[field.name] = kind === "number" ? Number(field.value) : field.value;
    }
  }
  return answers;
}

function answersFromQuery(form, search) {
  const params = new URLSearchParams(search);
  const answers = {};
  for (const [key, raw] of params) {
    const kind = fieldKind(form, key);
    if (kind === "multi") answers[key] = raw.split(",").filter(Boolean);
    else if (kind === "number" && raw.trim() !== "" && !Number.isNaN(Number(raw))) answers[key] = Number(raw);
    else answers[key] = raw;
  }
  return answers;
}

function queryFromAnswers(answers) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(answers)) params.set(key, Array.isArray(value) ? value.join(",") : String(value));
  const text = params.toString();
  return text ? `?${text}` : location.pathname;
}

function fillForm(form, answers) {
  for (const field of form.elements) {
    if (!field.name) continue;
    const value = answers[field.name];
    if (field.type === "checkbox") field.checked = Array.isArray(value) && value.includes(field.value);
    else if (field.tagName === "SELECT") {
      if (value === undefined) continue;
      if ([...field.options].some((o) => o.value === String(value))) field.value = String(value);
    } else if (value !== undefined) field.value = String(value);
  }
}

function syncNeed(form) {
  const scale = form.elements.namedItem("scale");
  const need = form.elements.namedItem("need");
  if (!scale || !need) return;
  for (const option of need.options) {
    if (!option.dataset.scale) continue;
    const show = option.dataset.scale === scale.value;
    option.hidden = !show;
    option.disabled = !show;
  }
  const current = need.selectedOptions[0];
  if (current && current.disabled) need.value = "";
}

// ---------------------------------------------------------------------------------------------
// Rendering answers.
function list(items, cls) {
  const ul = el("ul", { class: cls });
  for (const item of items) ul.append(el("li", { text: item }));
  return ul;
}

function renderRecommend(out, result) {
  const box = document.createDocumentFragment();
  if (result.warnings.length) {
    const warn = el("div", { class: "admonition warning", role: "note" }, el("p", { class: "admonition-title", text: "Warnings" }));
    warn.append(list(result.warnings));
    box.append(warn);
  }
  const cands = el("div", { class: "iem-cards", id: "selector-candidates" });
  if (!result.candidates.length) cands.append(el("p", { class: "iem-warn", text: "No engine passes every constraint." }));
  result.candidates.forEach((c, i) => {
    const title = el("h3", {}, el("a", { href: siteUrl(`engines/${c.engine}/`), text: c.name }));
    const card = el("article", { class: "iem-card", "data-engine": c.engine, "data-rank": String(i + 1) },
      el("p", { class: "iem-rank", text: i === 0 ? "Best match" : `Alternative ${i}` }), title,
      el("p", { class: "iem-score", text: `Score ${c.score}` }), list(c.reasons, "iem-reasons"));
    cands.append(card);
  });
  box.append(el("h2", { text: "Candidates" }), cands);

  const path = el("ol", { class: "iem-path" });
  for (const step of result.path) {
    path.append(el("li", { "data-node": step.id }, el("a", { href: siteUrl(`tree/#tree-${step.id}`), text: step.label })));
  }
  box.append(el("h2", { text: "Decision-tree branch" }), path);

  if (result.fit) box.append(el("h2", { text: "Memory fit" }), renderFitSummary(result.fit));

  if (result.excluded.length) {
    const details = el("details", { class: "iem-excluded" }, el("summary", { text: `Ruled out (${result.excluded.length})` }));
    const ul = el("ul");
    for (const x of result.excluded) {
      const li = el("li", { "data-excluded": x.engine }, el("a", { href: siteUrl(`engines/${x.engine}/`), text: x.name }));
      li.append(list(x.reasons));
      ul.append(li);
    }
    details.append(ul);
    box.append(details);
  }
  out.replaceChildren(box);
}

function renderFitSummary(fit) {
  const fmt = (v) => (v === null || v === undefined ? "not given" : `${v.toFixed(1)} GB`);
  const rows = [
    ["Weights", fmt(fit.weights_gb)], ["KV cache", fmt(fit.kv_cache_gb)], ["Runtime overhead", fmt(fit.overhead_gb)],
    ["Required", fmt(fit.required_gb)], ["Available on the GPUs", fmt(fit.available_gb)],
    ["Fits in GPU memory", fit.fits_gpu ? "yes" : "no"], ["Fits with CPU offload", fit.fits_with_offload ? "yes" : "no"],
  ];
  const table = el("table", { class: "iem-table iem-fit", "data-fits": fit.fits_gpu ? "gpu" : fit.fits_with_offload ? "offload" : "no" });
  const body = el("tbody");
  for (const [k, v] of rows) body.append(el("tr", {}, el("th", { scope: "row", text: k }), el("td", { text: v })));
  table.append(body);
  const wrap = el("div");
  wrap.append(table, list(fit.notes, "iem-notes"));
  return wrap;
}

function renderError(out, message, kind) {
  out.replaceChildren(
    el("p", { class: "iem-error", role: "alert", text: message }),
    kind === "runtime"
      ? el("p", {}, document.createTextNode("The static "), el("a", { href: siteUrl("tree/"), text: "decision tree" }),
        document.createTextNode(" gives the same first answer without the runtime."))
      : el("p", { text: "Change the highlighted answer and try again." }),
  );
}

// ---------------------------------------------------------------------------------------------
async function mountSelector() {
  const form = document.getElementById("selector-form");
  const out = document.getElementById("selector-result");
  if (!form || !out || form.dataset.mounted) return;
  form.dataset.mounted = "1";
  const op = form.dataset.op;
  startWorker();
  let rendered = 0;

  const run = async (answers, { updateUrl }) => {
    if (updateUrl) history.replaceState(history.state, "", queryFromAnswers(answers));
    const t0 = performance.now();
    try {
      await whenReady(TIMEOUT_MS);
    } catch (err) {
      out.dataset.state = "error";
      out.setAttribute("aria-busy", "false");
      renderError(out, `The selector could not start: ${err.message}.`, "runtime");
      return;
    }
    let response;
    try {
      response = await ask(op, answers);
    } catch (err) {
      out.dataset.state = "error";
      renderError(out, `The selector could not answer: ${err.message}.`, "runtime");
      return;
    }
    if (!document.body.contains(out)) return;
    if (response.ok) {
      op === "fit" ? out.replaceChildren(renderFitSummary(response.result)) : renderRecommend(out, response.result);
      out.dataset.state = "ready";
    } else {
      renderError(out, response.error.message, "input");
      out.dataset.state = "error";
      out.dataset.errorKey = response.error.key;
    }
    out.setAttribute("aria-busy", "false");
    out.dataset.seq = String(++rendered);
    out.dataset.ms = String(Math.round(performance.now() - t0));
    out.__result = response;
  };

  const fromQuery = location.search.length > 1;
  const initial = fromQuery ? answersFromQuery(form, location.search) : answersFromForm(form);
  fillForm(form, initial);
  syncNeed(form);
  form.addEventListener("change", (event) => {
    if (event.target.name === "scale") syncNeed(form);
    run(answersFromForm(form), { updateUrl: true });
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(answersFromForm(form), { updateUrl: true });
  });
  form.addEventListener("reset", () => setTimeout(() => {
    syncNeed(form);
    run(answersFromForm(form), { updateUrl: true });
  }));
  await run(initial, { updateUrl: false });
}

// ---------------------------------------------------------------------------------------------
// Decision-tree diagram: Mermaid, self-hosted, loaded only on the page that has one.
let mermaidLoading = null;
function loadMermaid() {
  if (window.mermaid) return Promise.resolve(window.mermaid);
  if (!mermaidLoading) {
    mermaidLoading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL("vendor/mermaid.min.js", ASSETS).href;
      script.onload = () => resolve(window.mermaid);
      script.onerror = () => reject(new Error("mermaid failed to load"));
      document.head.append(script);
    });
  }
  return mermaidLoading;
}

async function mountDiagrams() {
  const boxes = document.querySelectorAll('[data-diagram="mermaid"]:not([data-rendered])');
  if (!boxes.length) return;
  try {
    const mermaid = await loadMermaid();
    const dark = document.body.getAttribute("data-md-color-scheme") === "slate";
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default" });
    let n = 0;
    for (const box of boxes) {
      const src = box.querySelector("pre").textContent;
      const { svg } = await mermaid.render(`iem-diagram-${Date.now()}-${n++}`, src);
      const figure = el("div", { class: "iem-diagram-svg", role: "img", "aria-label": "Decision tree diagram" });
      figure.innerHTML = svg; // produced by Mermaid from our own escaped source with securityLevel strict
      box.append(figure);
      box.querySelector("pre").hidden = true;
      box.dataset.rendered = "1";
    }
  } catch (err) {
    for (const box of boxes) box.dataset.rendered = "error";
  }
}

function highlightTree() {
  if (!location.hash.startsWith("#tree-")) return;
  const node = document.getElementById(location.hash.slice(1));
  if (node) node.classList.add("iem-highlight");
}

// Material's search overlay has role="dialog" but no accessible name (axe aria-dialog-name).
function nameSearchDialog() {
  for (const dialog of document.querySelectorAll('.md-search[role="dialog"]:not([aria-label])')) dialog.setAttribute("aria-label", "Search");
}

// Compare view: the table holds every system; the picker hides the columns not chosen.
function mountCompare() {
  const form = document.getElementById("compare-form");
  const table = document.getElementById("compare-table");
  if (!form || !table || form.dataset.mounted) return;
  form.dataset.mounted = "1";
  const boxes = [...form.querySelectorAll('input[name="engines"]')];
  const apply = () => {
    const picked = boxes.filter((b) => b.checked).map((b) => b.value);
    for (const cell of table.querySelectorAll("[data-col]")) cell.hidden = picked.length > 0 && !picked.includes(cell.dataset.col);
    table.dataset.shown = String(picked.length || boxes.length);
    return picked;
  };
  const wanted = (new URLSearchParams(location.search).get("engines") || "").split(",").filter(Boolean);
  for (const b of boxes) b.checked = wanted.includes(b.value);
  apply();
  form.addEventListener("change", () => {
    const picked = apply();
    history.replaceState(history.state, "", picked.length ? `?engines=${picked.join(",")}` : location.pathname);
  });
}

function mountAll() {
  nameSearchDialog();
  mountCompare();
  mountSelector();
  mountDiagrams();
  highlightTree();
}

window.iem = { ask, whenReady, state: () => ({ ...workerState }) };
// On a selector page the worker starts now, as the module runs (parsing is done, Material's bundle has
// run), not after Material's DOMContentLoaded work: measured by `make bench`, starting it any earlier
// only made Pyodide's compile compete with Material's start-up for the CPU.
if (document.getElementById("selector-form")) startWorker();
if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(mountAll);
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
else mountAll();
