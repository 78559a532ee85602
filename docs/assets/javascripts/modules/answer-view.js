// Drawing the selector's answer (the JSON of selector.rules.recommend) and the fit estimate
// (selector.fit.estimate). Everything shown comes from that JSON; nothing is decided here.

import { el, fmt, list, siteUrl, sourceLink } from "./dom.js";
import { queryFromAnswers } from "./form.js";
import { launchBlock } from "./launch-view.js";
import { loadSection } from "./load-view.js";

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

// The candidate's own memory fit (the planner's answer for that engine) and a link to it on /fit/.
function candidateFit(c, fitAnswers) {
  if (!c.fit_line) return null;
  const p = el("p", { class: "iem-cand-fit", "data-fits": c.fit.fits ? "gpu" : c.fit.fits_with_offload ? "offload" : "no" },
    el("strong", { text: "Memory fit: " }), el("span", { class: "iem-cand-fit-text", text: c.fit_line }), " ");
  if (fitAnswers) p.append(el("a", { href: siteUrl("fit/") + queryFromAnswers({ ...fitAnswers, engine: c.engine }), text: "details in Will it fit?" }));
  return p;
}

// Engines underneath an orchestration layer and the KV-cache layers that plug in: part of the answer, not alternatives.
function companionList(c) {
  if (!c.companions || !c.companions.length) return null;
  const ul = el("ul", { class: "iem-companions" });
  for (const x of c.companions) {
    const li = el("li", { "data-companion": x.engine }, el("a", { href: siteUrl(`engines/${x.engine}/`), text: x.name }), ` (${x.role})`);
    if (x.note) li.append(`: ${x.note}`);
    const link = sourceLink(x.source);
    if (link) li.append(" ", link);
    ul.append(li);
  }
  return el("div", { class: "iem-companions-box" }, el("p", { class: "iem-companions-title", text: "Runs with:" }), ul);
}

function card(c, i, fitAnswers) {
  const title = el("h3", {}, el("a", { href: siteUrl(`engines/${c.engine}/`), text: c.name }));
  const rank = i === 0 ? "Best match" : `Alternative ${i}`;
  const head = el("p", { class: "iem-rank" }, rank, c.fallback ? el("span", { class: "iem-badge", text: `from tier ${c.tier}` }) : null);
  return el("article", { class: "iem-card", "data-engine": c.engine, "data-rank": String(i + 1), "data-fallback": c.fallback ? "1" : null },
    head, title,
    el("p", { class: "iem-score", text: `${fmt.num(c.score)} points` }),
    whyLine(c),
    candidateFit(c, fitAnswers),
    companionList(c),
    launchBlock(c.launch, c.name),
    measuredList(c.measured),
    reasonList(c.reasons, "iem-reasons"));
}

export function renderRecommend(result) {
  const box = document.createDocumentFragment();
  const cands = el("div", { class: "iem-cards", id: "selector-candidates" });
  if (!result.candidates.length) cands.append(el("p", { class: "iem-warn", text: "No engine passes every constraint." }));
  result.candidates.forEach((c, i) => cands.append(card(c, i, result.fit_answers)));
  const renamed = renamedNote(result);
  if (renamed) box.append(renamed);
  box.append(el("h2", { class: "iem-answer-title", text: "Candidates" }), cands,
    el("p", { class: "iem-help", text: "Points: the decision-matrix scores your answers weigh; documented support (partial or "
      + "undocumented support costs points, more when another candidate supports what you stated fully; a documented no rules an "
      + "engine out); measured results compared within one set; the engine's own memory fit; and the decision tree's pick, a "
      + "prior that counts more when you state the need." }));
  if (result.warnings.length) {
    const warn = el("div", { class: "admonition warning", role: "note", id: "selector-warnings" },
      el("p", { class: "admonition-title", text: "Worth knowing" }));
    warn.append(list(result.warnings));
    box.append(warn);
  }
  // filled by the page with the load answer once the answer above is on screen
  if (result.fit_answers) box.append(loadSection());
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

// The one-line answer and its verdict (gpu, offload, needs-ram, no) are written by selector.fit.headline.
export function headline(fit) {
  return fit.headline;
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
    ["Weights", `${fmt.num(fit.weights_gib, 2)} GiB (checkpoint ${fmt.num(fit.weights_gb, 2)} GB)`],
    ["KV cache for the load asked", `${fmt.num(fit.kv_cache_gib, 2)} GiB`],
    ["Runtime reserve", `${fmt.num(fit.overhead_gib, 2)} GiB`],
    ["Fits (weights + one sequence)", fit.fits ? "yes" : fit.fits_with_offload ? "with offload" : "no"],
  ];
  const layout = fit.layout;
  if (layout && (layout.tensor_parallel > 1 || layout.replicas > 1)) {
    rows.push(["GPU layout", layout.replicas === 1 ? `one tensor-parallel group of ${layout.tensor_parallel} GPUs`
      : layout.tensor_parallel === 1 ? `${layout.replicas} copies, one GPU each`
        : `${layout.replicas} copies of a tensor-parallel group of ${layout.tensor_parallel} GPUs`]);
  }
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
  return el("div", { class: "iem-fit-summary" }, el("p", { class: "iem-headline", "data-fits": fit.verdict, text: headline(fit) }), table);
}

function otherEngines(fit) {
  if (!fit.engines || !fit.engines.length) return null;
  const ul = el("ul", { class: "iem-notes iem-other-engines" });
  for (const e of fit.engines) {
    ul.append(el("li", { "data-other-engine": e.engine }, el("a", { href: siteUrl(`engines/${e.engine}/`), text: e.name }),
      `: ${e.fits ? "fits" : "does not fit"}, ${fmt.int(e.kv_tokens)} tokens of KV cache. ${e.why}`));
  }
  return ul;
}

export function renderFit(fit) {
  const box = document.createDocumentFragment();
  const renamed = renamedNote(fit);
  if (renamed) box.append(renamed);
  const choice = fit.quantization_choice;
  if (choice) box.append(el("p", { class: "iem-lead", "data-chosen-by": choice.chosen_by, text: choice.text }));
  box.append(el("p", { class: "iem-headline", "data-fits": fit.verdict, text: headline(fit) }));
  if (fit.launch) box.append(launchBlock(fit.launch, fit.launch.engine_name));
  if (fit.speed) {
    const s = fit.speed;
    box.append(el("p", { class: "iem-speed" }, el("strong", { text: "Decode speed: " }),
      s.decode_tokens_per_s === null ? s.basis : `up to ${fmt.num(s.decode_tokens_per_s)} tokens/s per sequence`
        + (fit.concurrency > 1 ? `, ${fmt.num(s.aggregate_tokens_per_s)} in total` : "") + ` (${s.label}: ${s.basis}).`));
    // the sentences selector.fit writes about the bound: a typical figure, what it leaves out, measurements above or below
    const said = [s.typical, s.communication, s.measured].filter((x) => x && x.text).map((x) => x.text);
    if (said.length) box.append(list(said, "iem-notes iem-speed-notes"));
  }
  const measured = measuredList(fit.measured);
  if (measured) box.append(el("p", { class: "iem-measured-title", text: "Measured on this GPU and model (published results):" }), measured);
  if (fit.selector_answers) {
    box.append(el("p", { class: "iem-to-selector" }, el("a", { id: "fit-to-selector", href: siteUrl("selector/") + queryFromAnswers(fit.selector_answers),
      text: "Rank the engines for this setup in the selector" })));
  }
  const bars = memoryBars(fit);
  if (bars) box.append(el("h2", { text: "Memory, in GiB" }), bars);
  box.append(renderFitSummary(fit).querySelector("table"));
  const others = otherEngines(fit);
  if (others) box.append(el("h2", { text: "Other engines for this setup" }), others);
  if (fit.table && fit.table.length) box.append(el("h2", { text: "What fits" }), fitTable(fit));
  box.append(el("h2", { text: "How this was worked out" }), list(fit.notes, "iem-notes"));
  return box;
}

// One table in the page's own flow (no scroll box of its own), so its sticky header follows the answer's scroll.
function fitTable(fit) {
  const table = el("table", { class: "iem-table iem-what-fits", id: "fit-table" });
  const head = el("tr", {}, ...["Weights, KV cache, engine", "GiB of weights", "Fits", "Sequences", "Longest context", "Decode tok/s"]
    .map((h) => el("th", { scope: "col", text: h })));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const r of fit.table) {
    const current = r.quantization === fit.quantization && (r.kv_cache || null) === (fit.kv_cache || null);
    body.append(el("tr", { "data-current": current ? "1" : null, "data-fits": r.fits ? "1" : r.fits_with_offload ? "offload" : "0" },
      el("th", { scope: "row" }, el("span", { class: "iem-scheme", text: r.name }), el("span", { class: "iem-kv", text: r.kv_name }),
        el("span", { class: "iem-kv", text: r.engine_name || "–" })),
      el("td", { text: fmt.num(r.weights_gib, 1) }),
      el("td", { text: r.fits ? "yes" : r.fits_with_offload ? "offload" : "no" }), el("td", { text: fmt.int(r.max_sequences) }),
      el("td", { text: fmt.int(r.max_context_tokens) }), el("td", { text: r.decode_tokens_per_s === null ? "–" : fmt.num(r.decode_tokens_per_s) })));
  }
  table.append(body);
  return table;
}
