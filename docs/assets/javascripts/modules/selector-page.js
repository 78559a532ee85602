// The selector and "Will it fit?" pages: the form, the URL state and the answer. Imported by site.js
// only on a page with #selector-form. No selector rule lives here: the answers come from the Python
// `selector` package running in a Pyodide module worker, as JSON.

import { el, siteUrl } from "./dom.js";
import * as runtime from "./runtime.js";
import { answersFromForm, answersFromQuery, fillForm, markError, queryFromAnswers, syncGpu, syncNeed } from "./form.js";
import { renderFit, renderRecommend } from "./answer-view.js";
import { renderLoad } from "./load-view.js";

const WORKER = new URL("../selector-worker.js", import.meta.url);
export const ask = (op, answers, extra) => runtime.ask(op, answers, WORKER, extra);
export const { whenReady, current: state } = runtime;

// Started as soon as this module runs on /selector/ or /fit/ (site.js imports it only there; the page
// head modulepreloads it): measured by `make bench`, starting the worker any earlier only made
// Pyodide's compile compete with Material's start-up for the CPU.
export function startRuntime() {
  runtime.start(WORKER);
}

// ---------------------------------------------------------------------------------------------
// While Python loads: the decision tree's answer for the scale and need in the form (rendered by the
// build from data/tree.yaml: a lookup, not a rule).
function showTreePreview(form, out) {
  const previews = out.querySelectorAll("[data-preview-scale]");
  if (!previews.length) return;
  const scale = (form.elements.namedItem("scale") || {}).value;
  const need = (form.elements.namedItem("need") || {}).value;
  let shown = null;
  for (const p of previews) {
    const match = p.dataset.previewScale === scale && (need ? p.dataset.previewNeed === need : p.hasAttribute("data-preview-default"));
    p.hidden = !match;
    if (match) shown = p;
  }
  const box = out.querySelector(".iem-preview");
  if (box) box.hidden = !shown;
}

function setStatus(out, status, error) {
  const line = out.querySelector(".iem-loading");
  if (!line) return;
  const text = line.querySelector(".iem-loading-text");
  if (status === "slow") text.textContent = "The selector's Python runtime is still loading (a slow connection?); "
    + "the decision tree's answer stays here until the full answer replaces it.";
}

function renderRuntimeError(out, message, onRetry) {
  const retry = el("button", { type: "button", class: "md-button", text: "Try again" });
  retry.addEventListener("click", onRetry);
  out.replaceChildren(
    el("p", { class: "iem-error", role: "alert", text: `The selector could not start: ${message}.` }),
    el("p", {}, "The static ", el("a", { href: siteUrl("tree/"), text: "decision tree" }),
      " gives the same first answer without the runtime. ", retry),
  );
}

function renderInputError(out, form, error) {
  const field = markError(form, error.key);
  const label = error.label || error.key;
  out.replaceChildren(
    el("p", { class: "iem-error", role: "alert", text: `${label}: ${error.detail || error.message}` }),
    el("p", { text: field ? "The field is highlighted in the form; change it and the answer updates." : "Change that answer and try again." }),
  );
  if (field && form.dataset.interacted) field.focus({ preventScroll: false });
}

function renderPrompt(out, text) {
  out.replaceChildren(el("p", { class: "iem-prompt", text }));
}

// "Show the answer": on a phone the answer sits above the form, out of view once the form is filled in.
function revealAnswer(out) {
  const top = out.getBoundingClientRect().top;
  if (top < 0 || top > window.innerHeight - 48) out.scrollIntoView({ block: "start" });
  out.focus({ preventScroll: true });
}

// ---------------------------------------------------------------------------------------------
export async function mountSelector() {
  const form = document.getElementById("selector-form");
  const out = document.getElementById("selector-result");
  if (!form || !out || form.dataset.mounted) return;
  form.dataset.mounted = "1";
  const op = form.dataset.op;
  const initialContent = [...out.childNodes].map((n) => n.cloneNode(true));
  runtime.start(WORKER);
  let rendered = 0;
  let latest = 0;

  const run = async (answers, { updateUrl }) => {
    const ticket = ++latest;
    if (updateUrl) history.replaceState(history.state, "", queryFromAnswers(answers));
    const t0 = performance.now();
    if (op === "fit" && !answers.model && !form.dataset.interacted) {
      markError(form, null);
      renderPrompt(out, "Choose a model and a GPU (or type the memory) to see what fits, how many sequences and how fast.");
      out.dataset.state = "prompt";
      out.setAttribute("aria-busy", "false");
      return;
    }
    try {
      await runtime.whenReady();
    } catch (err) {
      if (ticket !== latest) return;
      out.dataset.state = "error";
      out.setAttribute("aria-busy", "false");
      renderRuntimeError(out, err.message, () => {
        out.replaceChildren(...initialContent.map((n) => n.cloneNode(true)));
        out.dataset.state = "loading";
        showTreePreview(form, out);
        runtime.retry(WORKER);
        run(answersFromForm(form), { updateUrl: false });
      });
      return;
    }
    let response;
    try {
      response = await ask(op, answers);
    } catch (err) {
      if (ticket !== latest) return;
      out.dataset.state = "error";
      renderRuntimeError(out, err.message, () => run(answersFromForm(form), { updateUrl: false }));
      return;
    }
    if (ticket !== latest || !document.body.contains(out)) return;
    if (response.ok) {
      markError(form, null);
      const renamed = response.result.renamed || [];
      if (renamed.length) {
        // the form and the address take the ids Python answered with, so the next change keeps them
        const current = { ...answers };
        for (const r of renamed) {
          const v = current[r.key];
          current[r.key] = Array.isArray(v) ? v.map((x) => (x === r.given ? r.answered_as : x)) : r.answered_as;
        }
        fillForm(form, current);
        history.replaceState(history.state, "", queryFromAnswers(current));
      }
      out.replaceChildren(op === "fit" ? renderFit(response.result) : renderRecommend(response.result));
      out.dataset.state = "ready";
      delete out.dataset.errorKey;
    } else {
      renderInputError(out, form, response.error);
      out.dataset.state = "error";
      out.dataset.errorKey = response.error.key;
    }
    out.setAttribute("aria-busy", "false");
    out.dataset.seq = String(++rendered);
    out.dataset.ms = String(Math.round(performance.now() - t0));
    out.__result = response;
    const box = response.ok ? out.querySelector("#selector-load") : null;
    if (box) fillLoad(box, answers, ticket, "");
  };

  // The load answer comes second, so the answer above never waits for it; a price typed asks again.
  const fillLoad = async (box, answers, ticket, price) => {
    box.setAttribute("aria-busy", "true");
    let response;
    try {
      response = await ask("load", answers, price ? { gpu_hour_usd: price } : {});
    } catch (err) {
      if (ticket !== latest) return;
      box.setAttribute("aria-busy", "false");
      box.replaceChildren(el("p", { class: "iem-error", role: "alert", text: `The load answer could not be worked out: ${err.message}.` }));
      return;
    }
    if (ticket !== latest || !document.body.contains(box)) return;
    renderLoad(box, response, price, (typed) => fillLoad(box, answers, ticket, typed));
  };

  const fromQuery = location.search.length > 1;
  const { answers: queried, ignored } = fromQuery ? answersFromQuery(form, location.search) : { answers: null, ignored: [] };
  const initial = queried || answersFromForm(form);
  if (ignored.length) {
    // a shared link with tracking parameters: answer it, and keep the address clean
    history.replaceState(history.state, "", queryFromAnswers(initial));
  }
  fillForm(form, initial);
  syncNeed(form);
  syncGpu(form);
  if (fromQuery && Object.keys(initial).length) form.dataset.interacted = "1";
  showTreePreview(form, out);
  const offState = runtime.onState((s) => {
    if (!document.body.contains(out)) return offState();
    if (out.dataset.state === "loading") setStatus(out, s.status);
  });
  const changed = (event) => {
    form.dataset.interacted = "1";
    syncNeed(form);
    syncGpu(form);
    if (out.dataset.state === "loading") showTreePreview(form, out);
    return run(answersFromForm(form), { updateUrl: true });
  };
  form.addEventListener("change", changed);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await changed(event);
    revealAnswer(out);
  });
  form.addEventListener("reset", () => setTimeout(() => {
    syncNeed(form);
    syncGpu(form);
    markError(form, null);
    run(answersFromForm(form), { updateUrl: true });
  }));
  await run(initial, { updateUrl: false });
}
