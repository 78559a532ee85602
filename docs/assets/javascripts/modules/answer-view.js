// Drawing the selector's answer (the JSON of selector.rules.recommend) and the fit estimate
// (selector.fit.estimate). Everything shown comes from that JSON; nothing is decided here.

import { el, fmt, list, siteUrl, sourceLink } from "./dom.js";
import { launchBlock } from "./launch-view.js";

function reasonItem(r) {
  const li = el("li", { "data-kind": r.kind, "data-points": String(r.points) });
  if (r.points) li.append(el("span", { class: `iem-points ${r.points > 0 ? "iem-plus" : "iem-minus"}`, text: fmt.points(r.points) }), " ");
  li.append(el("span", { class: "iem-reason-text", text: r.text }));
  const link = sourceLink(r.source);
  if (link) li.append(" ", link);
  return li;
}

function reasonList(reasons, cls) {
  const ul = el("ul", { class: cls });
  for (const r of reasons) ul.append(reasonItem(r));
  return ul;
}

function whyLine(c) {
  if (!c.why || !c.why.length) return null;
  const p = el("p", { class: "iem-why" }, el("strong", { text: "Why this place: " }));
  c.why.forEach((w, i) => {
    if (i) p.append("; ");
    p.append(`${w.text} (${fmt.points(w.points)})`);
  });
  return p;
}

function measuredList(rows) {
  if (!rows || !rows.length) return null;
  const ul = el("ul", { class: "iem-measured" });
  for (const m of rows) {
    const li = el("li", { "data-set": m.set }, el("span", { class: "iem-measured-text", text: m.text }));
    const link = sourceLink(m.source);
    if (link) li.append(" ", link);
    ul.append(li);
  }
  return ul;
}

// An old id from a saved link was answered as its successor (data/aliases.yaml): say so above the answer.
export function renamedNote(result) {
  if (!result.renamed || !result.renamed.length) return null;
  return el("div", { class: "admonition note", role: "note", id: "selector-renamed" },
    el("p", { class: "admonition-title", text: "Renamed since this link was made" }), list(result.renamed.map((r) => r.note)));
}

function card(c, i) {
  const title = el("h3", {}, el("a", { href: siteUrl(`engines/${c.engine}/`), text: c.name }));
  const rank = i === 0 ? "Best match" : `Alternative ${i}`;
  const head = el("p", { class: "iem-rank" }, rank, c.fallback ? el("span", { class: "iem-badge", text: `from tier ${c.tier}` }) : null);
  return el("article", { class: "iem-card", "data-engine": c.engine, "data-rank": String(i + 1), "data-fallback": c.fallback ? "1" : null },
    head, title,
    el("p", { class: "iem-score", text: `${fmt.num(c.score)} points` }),
    whyLine(c),
    launchBlock(c.launch, c.name),
    measuredList(c.measured),
    reasonList(c.reasons, "iem-reasons"));
}

export function renderRecommend(result) {
  const box = document.createDocumentFragment();
  const cands = el("div", { class: "iem-cards", id: "selector-candidates" });
  if (!result.candidates.length) cands.append(el("p", { class: "iem-warn", text: "No engine passes every constraint." }));
  result.candidates.forEach((c, i) => cands.append(card(c, i)));
  const renamed = renamedNote(result);
  if (renamed) box.append(renamed);
  box.append(el("h2", { class: "iem-answer-title", text: "Candidates" }), cands,
    el("p", { class: "iem-help", text: "Points: the decision tree's pick, the decision-matrix scores your answers weigh, and "
      + "documented support (partial or undocumented support costs points; a documented no rules an engine out)." }));
  if (result.warnings.length) {
    const warn = el("div", { class: "admonition warning", role: "note", id: "selector-warnings" },
      el("p", { class: "admonition-title", text: "Worth knowing" }));
    warn.append(list(result.warnings));
    box.append(warn);
  }
  if (result.suggestions && result.suggestions.length) {
    box.append(el("h2", { text: "What would make it work" }),
      list(result.suggestions.map((s) => s.text), "iem-suggestions"));
  }
  if (result.fit) box.append(el("h2", { text: "Memory fit" }), renderFitSummary(result.fit));

  const path = el("ol", { class: "iem-path" });
  for (const step of result.path) {
    const li = el("li", { "data-node": step.id }, el("a", { href: siteUrl(`tree/#tree-${step.id}`), text: step.label }));
    if (step.inferred) li.append(el("small", { text: ` (chosen because ${step.inferred})` }));
    path.append(li);
  }
  box.append(el("h2", { text: "Decision-tree branch" }), path);

  if (result.excluded.length) {
    const details = el("details", { class: "iem-excluded" }, el("summary", { text: `Ruled out (${result.excluded.length})` }));
    const ul = el("ul");
    for (const x of result.excluded) {
      const li = el("li", { "data-excluded": x.engine }, el("a", { href: siteUrl(`engines/${x.engine}/`), text: x.name }));
      li.append(reasonList(x.reasons));
      ul.append(li);
    }
    details.append(ul);
    box.append(details);
  }
  return box;
}

// -- fit -------------------------------------------------------------------------------------------------

export function headline(fit) {
  const cap = fit.capacity || {};
  const m = fit.machine || {};
  const where = m.mode === "cpu" ? "this machine's RAM" : m.gpu_name ? `${m.gpus} × ${m.gpu_name}` : `${m.gpus || 1} GPU(s) of ${fmt.num(m.gpu_gib)} GiB`;
  if (fit.fits) {
    let text = `Fits on ${where}: ${fmt.int(cap.max_sequences)} sequences of ${fmt.int(fit.context_tokens)} tokens at once (${fmt.int(cap.kv_tokens)} tokens of KV cache).`;
    if (!fit.concurrency_met) text += ` ${fit.concurrency} at once do not fit: at ${fit.concurrency} the longest context is ${fmt.int(cap.max_context_tokens)} tokens.`;
    return text;
  }
  if (fit.fits_with_offload) {
    return `Does not fit ${where} alone; fits with ${fit.offload.method === "experts" ? "the routed experts" : "some layers"} in host RAM `
      + `(${fmt.num(fit.offload.host_gib)} GiB there): ${fmt.int(cap.max_sequences)} sequences of ${fmt.int(fit.context_tokens)} tokens.`;
  }
  return `Does not fit ${where}${fit.offload ? ", even with offload" : ""}.`;
}

function bar(label, parts, total) {
  const wrap = el("div", { class: "iem-bar-row" });
  wrap.append(el("span", { class: "iem-bar-label", text: label }));
  const barEl = el("div", { class: "iem-bar", role: "img", "aria-label": `${label}: ${parts.map(([n, v]) => `${n} ${fmt.num(v)} GiB`).join(", ")} of ${fmt.num(total)} GiB` });
  for (const [name, value, cls] of parts) {
    if (!value || value <= 0) continue;
    const share = Math.max(0, Math.min(100, (value / total) * 100));
    barEl.append(el("span", { class: `iem-bar-part ${cls}`, "data-share": share.toFixed(1), title: `${name}: ${fmt.num(value)} GiB` }));
  }
  wrap.append(barEl, el("span", { class: "iem-bar-legend", text: parts.map(([n, v]) => `${n} ${fmt.num(v)}`).join(" · ") + ` of ${fmt.num(total)} GiB` }));
  return wrap;
}

export function memoryBars(fit) {
  const mem = fit.memory;
  if (!mem) return null;
  const box = el("div", { class: "iem-bars" });
  if (mem.device) {
    const d = mem.device;
    const label = mem.device_count > 1 ? `Each of ${mem.device_count} GPUs` : fit.machine.mode === "unified" ? "GPU share" : "GPU";
    box.append(bar(label, [["weights", d.weights, "w"], ["reserve", d.reserve, "r"], ["KV cache", d.kv, "k"], ["free", d.free, "f"]], d.total));
  }
  if (mem.host) {
    const h = mem.host;
    const parts = [["weights", h.weights, "w"]];
    if (h.reserve !== undefined) parts.push(["reserve", h.reserve, "r"]);
    if (h.kv !== undefined) parts.push(["KV cache", h.kv, "k"]);
    parts.push(["free", h.free, "f"]);
    box.append(bar(fit.machine.mode === "cpu" ? "RAM" : "Host RAM", parts, h.total));
  }
  // widths come from data-share: set as CSSOM properties (allowed under the style-src policy)
  for (const part of box.querySelectorAll(".iem-bar-part")) part.style.width = `${part.dataset.share}%`;
  return box;
}

export function renderFitSummary(fit) {
  const rows = [
    ["Weights", `${fmt.num(fit.weights_gb, 2)} GB`],
    ["KV cache for the load asked", `${fmt.num(fit.kv_cache_gb, 2)} GB`],
    ["Runtime reserve", `${fmt.num(fit.overhead_gb, 2)} GB`],
    ["Fits (weights + one sequence)", fit.fits ? "yes" : fit.fits_with_offload ? "with offload" : "no"],
  ];
  if (fit.capacity) {
    rows.push(["KV-cache capacity", `${fmt.int(fit.capacity.kv_tokens)} tokens`]);
    rows.push(["Sequences at this context", fmt.int(fit.capacity.max_sequences)]);
    rows.push(["Longest context at this concurrency", `${fmt.int(fit.capacity.max_context_tokens)} tokens`]);
  }
  if (fit.speed) {
    rows.push(["Decode speed per sequence", fit.speed.decode_tokens_per_s === null ? fit.speed.basis
      : `${fmt.num(fit.speed.decode_tokens_per_s)} tokens/s (${fit.speed.label})`]);
  }
  const table = el("table", { class: "iem-table iem-fit", "data-fits": fit.fits ? "gpu" : fit.fits_with_offload ? "offload" : "no" });
  const body = el("tbody");
  for (const [k, v] of rows) body.append(el("tr", {}, el("th", { scope: "row", text: k }), el("td", { text: v })));
  table.append(body);
  return el("div", { class: "iem-fit-summary" }, el("p", { class: "iem-headline", text: headline(fit) }), table);
}

export function renderFit(fit) {
  const box = document.createDocumentFragment();
  const renamed = renamedNote(fit);
  if (renamed) box.append(renamed);
  box.append(el("p", { class: "iem-headline", "data-fits": fit.fits ? "gpu" : fit.fits_with_offload ? "offload" : "no", text: headline(fit) }));
  if (fit.launch) box.append(launchBlock(fit.launch, fit.launch.engine_name));
  if (fit.speed) {
    const s = fit.speed;
    box.append(el("p", { class: "iem-speed" }, el("strong", { text: "Decode speed: " }),
      s.decode_tokens_per_s === null ? s.basis : `up to ${fmt.num(s.decode_tokens_per_s)} tokens/s per sequence`
        + (fit.concurrency > 1 ? `, ${fmt.num(s.aggregate_tokens_per_s)} in total` : "") + ` (${s.label}: ${s.basis}).`));
  }
  const measured = measuredList(fit.measured);
  if (measured) box.append(el("p", { class: "iem-measured-title", text: "Measured on this GPU and model (published results):" }), measured);
  const bars = memoryBars(fit);
  if (bars) box.append(el("h2", { text: "Memory, in GiB" }), bars);
  box.append(renderFitSummary(fit).querySelector("table"));
  if (fit.table && fit.table.length) box.append(el("h2", { text: "What fits" }), fitTable(fit));
  box.append(el("h2", { text: "How this was worked out" }), list(fit.notes, "iem-notes"));
  return box;
}

function fitTable(fit) {
  const table = el("table", { class: "iem-table iem-what-fits", id: "fit-table" });
  const head = el("tr", {}, ...["Weights", "KV cache", "Weights (GB)", "Fits", "Sequences", "Longest context", "Decode tokens/s"].map((h) => el("th", { scope: "col", text: h })));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const r of fit.table) {
    const current = r.quantization === fit.quantization && (r.kv_cache || null) === (fit.kv_cache || null);
    body.append(el("tr", { "data-current": current ? "1" : null, "data-fits": r.fits ? "1" : r.fits_with_offload ? "offload" : "0" },
      el("th", { scope: "row", text: r.name }), el("td", { text: r.kv_name }), el("td", { text: fmt.num(r.weights_gb, 1) }),
      el("td", { text: r.fits ? "yes" : r.fits_with_offload ? "offload" : "no" }), el("td", { text: fmt.int(r.max_sequences) }),
      el("td", { text: fmt.int(r.max_context_tokens) }), el("td", { text: r.decode_tokens_per_s === null ? "–" : fmt.num(r.decode_tokens_per_s) })));
  }
  table.append(body);
  return el("div", { class: "iem-scroll" }, table);
}
