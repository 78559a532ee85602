// The launch command of an answer (the `launch` JSON of selector.launch): the command as Python wrote it, a copy
// button, the engine version it was written for, what the reader must still choose, and its citations. Nothing
// about the command is decided here; without a command the block says why.

import { el, list, sourceLink } from "./dom.js";

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // http:// pages have no clipboard API: copy a selection instead
  const area = el("textarea", { class: "iem-copy-buffer", readonly: true, "aria-hidden": "true" });
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("copy refused");
}

function onCopy(event) {
  const button = event.target instanceof Element ? event.target.closest("button.iem-copy") : null;
  if (!button) return;
  const code = button.closest(".iem-launch-code")?.querySelector("code");
  if (!code) return;
  const status = button.closest(".iem-launch").querySelector(".iem-copy-status");
  copyText(code.textContent).then(
    () => { button.dataset.copied = "1"; if (status) status.textContent = "Copied to the clipboard."; },
    () => { button.dataset.copied = "0"; if (status) status.textContent = "Copying failed; select the command and copy it."; });
}

// One listener for every copy button, those built here and those the engine pages have from the build.
let listening = false;
export function mountLaunch() {
  if (listening) return;
  listening = true;
  document.addEventListener("click", onCopy);
}

export function launchBlock(launch, name) {
  if (!launch) return null;
  mountLaunch();
  const box = el("div", { class: "iem-launch", "data-command": launch.command ? "1" : "0" });
  if (!launch.command) {
    box.append(el("p", { class: "iem-launch-why" }, el("strong", { text: "No launch command: " }), launch.why));
    return box;
  }
  box.append(
    el("p", { class: "iem-launch-title" }, el("strong", { text: "Launch command" }),
      el("span", { class: "iem-launch-version", text: ` written for ${name || "the engine"} ${launch.engine_version}` })),
    el("div", { class: "iem-launch-code" },
      el("pre", {}, el("code", { class: "iem-launch-command", text: launch.command })),
      el("button", { type: "button", class: "iem-copy", "aria-label": "Copy the launch command", text: "Copy" })),
    el("p", { class: "iem-copy-status", role: "status" }));
  if (launch.notes.length) box.append(list(launch.notes, "iem-launch-notes"));
  if (launch.sources.length) {
    const cites = el("p", { class: "iem-launch-sources" }, "Flags from: ");
    launch.sources.forEach((s, i) => {
      const link = sourceLink(s);
      if (!link) return;
      link.textContent = s.title;
      if (i) cites.append("; ");
      cites.append(link);
    });
    box.append(cites);
  }
  return box;
}
