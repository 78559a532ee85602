// Decision-tree diagram: Mermaid, self-hosted, loaded only on the page that has one, drawn again when
// the reader switches between the light and dark palettes.

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
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default" });
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
  }
}

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
