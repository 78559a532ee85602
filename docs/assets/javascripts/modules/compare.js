// Compare view: the table holds every system; the reader's picks show in the reader's order, the others
// hide, and names in the address that match no system are reported. State lives in ?engines=a,b,c.

import { el } from "./dom.js";

export function mountCompare() {
  const form = document.getElementById("compare-form");
  const table = document.getElementById("compare-table");
  if (!form || !table || form.dataset.mounted) return;
  form.dataset.mounted = "1";
  const boxes = [...form.querySelectorAll('input[name="engines"]')];
  const known = new Set(boxes.map((b) => b.value));
  let order = [];
  const note = el("p", { class: "iem-warn", id: "compare-unknown", role: "status" });
  note.hidden = true;
  form.after(note);

  const apply = () => {
    const picked = order.filter((id) => boxes.some((b) => b.value === id && b.checked));
    for (const cell of table.querySelectorAll("[data-col]")) cell.hidden = picked.length > 0 && !picked.includes(cell.dataset.col);
    // columns in the reader's order
    for (const row of table.querySelectorAll("tr")) {
      const cells = [...row.querySelectorAll("[data-col]")];
      const byId = new Map(cells.map((c) => [c.dataset.col, c]));
      for (const id of picked) if (byId.has(id)) row.append(byId.get(id));
      for (const c of cells) if (!picked.includes(c.dataset.col)) row.append(c);
    }
    table.dataset.shown = String(picked.length || boxes.length);
    table.dataset.order = picked.join(",");
    return picked;
  };
  const wanted = (new URLSearchParams(location.search).get("engines") || "").split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = wanted.filter((id) => !known.has(id));
  order = wanted.filter((id) => known.has(id));
  for (const b of boxes) b.checked = order.includes(b.value);
  if (unknown.length) {
    note.textContent = `Not recognised, so not shown: ${unknown.join(", ")}. Pick systems from the list.`;
    note.hidden = false;
  }
  apply();
  form.addEventListener("change", (event) => {
    const id = event.target.value;
    if (event.target.checked) order = order.filter((x) => x !== id).concat(id);
    else order = order.filter((x) => x !== id);
    const picked = apply();
    history.replaceState(history.state, "", picked.length ? `?engines=${picked.join(",")}` : location.pathname);
  });
}
