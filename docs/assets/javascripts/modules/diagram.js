// Decision-tree diagram: Mermaid, self-hosted, loaded only on the page that has one, drawn again when
// the reader switches between the light and dark palettes, kept at a legible size on narrow screens.

import { ASSETS, el } from "./dom.js";

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

let counter = 0;
let watching = false;

async function draw(boxes) {
  const mermaid = await loadMermaid();
  const dark = document.body.getAttribute("data-md-color-scheme") === "slate";
  // Mermaid's dark theme puts edge labels on #585858, where its #ccc text reaches only 4.4:1; a darker
  // label background keeps every label above WCAG's 4.5:1 (axe found a node label drawn over one)
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default",
    themeVariables: dark ? { edgeLabelBackground: "#333333" } : {} });
  for (const box of boxes) {
    const src = box.querySelector("pre").textContent;
    const { svg } = await mermaid.render(`iem-diagram-${++counter}`, src);
    const old = box.querySelector(".iem-diagram-svg");
    const figure = el("div", { class: "iem-diagram-svg", role: "img", "aria-label": "Decision tree diagram" });
    figure.innerHTML = svg; // produced by Mermaid from our own escaped source with securityLevel strict
    if (old) old.replaceWith(figure);
    else box.append(figure);
    box.querySelector("pre").hidden = true;
    box.dataset.rendered = "1";
    box.dataset.theme = dark ? "dark" : "default";
    fit(box);
  }
}

// Mermaid scales the drawing down to the column; on a phone that leaves 6 px text. In a column narrower
// than FIT_MIN of its own size the drawing is drawn at PAN_SCALE instead (text about 14 px) and the
// reader pans it sideways (hint shown, arrow keys scroll it once focused).
const FIT_MIN = 0.7;
const PAN_SCALE = 0.85;
function fit(box) {
  const figure = box.querySelector(".iem-diagram-svg");
  const svg = figure && figure.querySelector("svg");
  if (!svg || !svg.viewBox || !svg.viewBox.baseVal) return;
  const natural = svg.viewBox.baseVal.width;
  const pan = natural > 0 && figure.clientWidth < natural * FIT_MIN;
  svg.style.width = pan ? `${Math.round(natural * PAN_SCALE)}px` : "";
  svg.style.maxWidth = pan ? "none" : `${Math.round(natural)}px`;
  box.toggleAttribute("data-pan", pan);
  if (pan) figure.setAttribute("tabindex", "0");
  else figure.removeAttribute("tabindex");
  const hint = box.querySelector(".iem-diagram-hint");
  if (hint) hint.hidden = !pan;
}

let refit = null;
addEventListener("resize", () => {
  clearTimeout(refit);
  refit = setTimeout(() => { for (const box of document.querySelectorAll('[data-diagram="mermaid"][data-rendered="1"]')) fit(box); }, 150);
});

export async function mountDiagrams() {
  const boxes = [...document.querySelectorAll('[data-diagram="mermaid"]:not([data-rendered])')];
  if (!watching) {
    watching = true;
    new MutationObserver(() => {
      const drawn = [...document.querySelectorAll('[data-diagram="mermaid"][data-rendered="1"]')];
      const dark = document.body.getAttribute("data-md-color-scheme") === "slate";
      const stale = drawn.filter((b) => b.dataset.theme !== (dark ? "dark" : "default"));
      if (stale.length) draw(stale).catch(() => {});
    }).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  }
  if (!boxes.length) return;
  try {
    await draw(boxes);
  } catch (err) {
    for (const box of boxes) box.dataset.rendered = "error";
  }
}
