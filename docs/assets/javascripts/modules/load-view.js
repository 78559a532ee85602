// The load answer under the selector's answer (the JSON of selector.load.load_answer): a slider over the loads
// Python answered for, the figures at the chosen load, the loads where the answer changes, and a GPU-hour price
// the reader may type. Every number and sentence comes from that JSON; nothing is worked out here.

import { el, fmt, sourceLink } from "./dom.js";

export function loadSection() {
  return el("section", { class: "iem-uload", id: "selector-load", "aria-busy": "true", "aria-labelledby": "selector-load-title" },
    el("h2", { id: "selector-load-title", text: "At more users" }),
    el("p", { class: "iem-uload-wait", text: "Working out the answer at 1 to 512 users at once…" }));
}

function figure(label, value, unit, digits = 1) {
  return [el("dt", { text: label }), el("dd", { text: value === null || value === undefined ? "–" : `${fmt.num(value, digits)}${unit}` })];
}

function showPoint(box, load, i) {
  const p = load.points[i];
  box.querySelector("output").textContent = p.label;
  const counted = p.counted_words;
  const dl = el("dl", { class: "iem-uload-figures" },
    el("dt", { text: "Recommendation" }), el("dd", { class: "iem-uload-engine", "data-load-engine": p.engine, text: p.setup }),
    ...figure("Per user", p.per_user_tps, " output tokens/s"),
    ...figure("In all", p.total_tps, ` ${counted}/s`),
    ...figure("Cost", p.usd_per_million_tokens, ` USD per million ${counted}`, 3));
  const basis = el("p", { class: "iem-uload-basis", "data-basis": p.basis.kind },
    el("strong", { text: p.basis.kind === "measured" ? "Measured: " : "Estimate: " }), p.text);
  const link = sourceLink(p.basis.source);
  if (link) basis.append(" ", link);
  box.querySelector(".iem-uload-point").replaceChildren(dl, basis);
  box.querySelector(".iem-uload-point").dataset.users = String(p.users);
  for (const li of box.querySelectorAll(".iem-flips li")) li.toggleAttribute("data-here", Number(li.dataset.users) === p.users);
}

// `onPrice(text)` asks Python again with the price typed; the page calls renderLoad with its answer.
export function renderLoad(box, response, price, onPrice) {
  box.setAttribute("aria-busy", "false");
  const title = box.querySelector("h2");
  const parts = [title];
  const priceInput = el("input", { type: "text", inputmode: "decimal", id: "load-price", name: "gpu_hour_usd", autocomplete: "off",
    placeholder: "cited median", value: price || "", "aria-describedby": "load-price-note" });
  const priceRow = el("p", { class: "iem-uload-price" },
    el("label", { for: "load-price", text: "GPU-hour price (USD) " }), priceInput);
  priceInput.addEventListener("change", () => onPrice(priceInput.value.trim()));
  if (!response.ok) {
    const e = response.error;
    parts.push(priceRow, el("p", { class: "iem-error", role: "alert", id: "load-price-note", "data-key": e.key, text: `${e.label || e.key}: ${e.detail || e.message}` }));
    box.replaceChildren(...parts);
    box.__load = response;
    return;
  }
  const load = response.result;
  if (!load.points.length) {
    parts.push(el("p", { class: "iem-prompt", text: load.why }));
    box.replaceChildren(...parts);
    box.__load = response;
    return;
  }
  const slider = el("input", { type: "range", id: "load-users", min: "0", max: String(load.points.length - 1), step: "1",
    value: String(load.start), "aria-describedby": "load-users-out" });
  const out = el("output", { for: "load-users", id: "load-users-out", "aria-live": "polite" });
  const flips = el("ul", { class: "iem-flips" });
  for (const f of load.flips) flips.append(el("li", { "data-users": String(f.users), "data-reason": f.reason, text: f.text }));
  parts.push(
    el("p", { class: "iem-uload-summary", text: load.summary }),
    el("p", { class: "iem-uload-control" }, el("label", { for: "load-users", text: "Users at once " }), slider, " ", out),
    el("div", { class: "iem-uload-point", "aria-live": "polite" }),
    priceRow,
    el("p", { class: "iem-help", id: "load-price-note", text: load.price_note }),
  );
  if (load.flips.length) parts.push(el("h3", { text: "Where the answer changes" }), flips);
  box.replaceChildren(...parts);
  slider.addEventListener("input", () => showPoint(box, load, Number(slider.value)));
  showPoint(box, load, load.start);
  box.__load = response;
}
