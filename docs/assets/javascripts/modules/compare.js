// Compare view (markup from macros/templates/compare.html). The table holds every system; the reader's
// picks (up to data-max) show in the reader's order, added with the select and removed with the button in
// each column head. "Only differences" hides rows whose shown cells carry the same comparison key (the
// build writes it as data-key). Names in the address that match no system are reported.
// State lives in the address: ?engines=a,b,c and &all=1 when every row is shown.

export function mountCompare() {
  const form = document.getElementById("compare-form");
  const table = document.getElementById("compare-table");
  if (!form || !table || form.dataset.mounted) return;
  form.dataset.mounted = "1";
  const max = Number(form.dataset.max) || 6;
  const select = form.querySelector("#compare-add");
  const diff = form.querySelector("#compare-diff");
  const status = form.querySelector("#compare-status");
  const heads = [...table.querySelectorAll("thead th[data-col]")];
  const known = heads.map((th) => th.dataset.col);
  const nameOf = (id) => (heads.find((th) => th.dataset.col === id)?.querySelector("a")?.textContent || id);
  const rows = [...table.querySelectorAll("tbody tr[data-row]")];

  const params = new URLSearchParams(location.search);
  const wanted = (params.get("engines") || "").split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = wanted.filter((id) => !known.includes(id));
  let order = [...new Set(wanted.filter((id) => known.includes(id)))];
  const dropped = order.slice(max);
  order = order.slice(0, max);
  diff.checked = params.get("all") !== "1";
  const notes = [];
  if (unknown.length) notes.push(`Not recognised, so not shown: ${unknown.join(", ")}. Pick systems from the list.`);
  if (dropped.length) notes.push(`Only ${max} systems fit side by side; not shown: ${dropped.map(nameOf).join(", ")}.`);
  if (notes.length) {
    const note = document.createElement("p");
    note.className = "iem-warn";
    note.id = "compare-unknown";
    note.setAttribute("role", "status");
    note.textContent = notes.join(" ");
    form.after(note);
  }

  const writeUrl = () => {
    const query = [order.length ? `engines=${order.join(",")}` : "", diff.checked ? "" : "all=1"].filter(Boolean).join("&");
    history.replaceState(history.state, "", (query ? `?${query}` : location.pathname) + location.hash);
  };

  const apply = () => {
    const shown = order.length ? order : known;
    // columns: the picks in the reader's order, the rest hidden after them
    for (const row of table.querySelectorAll("tr")) {
      const cells = [...row.querySelectorAll("[data-col]")];
      if (!cells.length) continue;
      const byId = new Map(cells.map((c) => [c.dataset.col, c]));
      for (const id of shown) if (byId.has(id)) row.append(byId.get(id));
      for (const c of cells) {
        c.hidden = !shown.includes(c.dataset.col);
        if (c.hidden) row.append(c);
      }
    }
    for (const b of table.querySelectorAll("[data-remove]")) b.hidden = !order.length;
    // rows: with two or more systems shown, only the ones where they differ (unless the reader wants all)
    const filtering = diff.checked && shown.length >= 2;
    let same = 0;
    for (const row of rows) {
      const keys = new Set(shown.map((id) => row.querySelector(`td[data-col="${CSS.escape(id)}"]`)?.dataset.key));
      const equal = keys.size <= 1;
      row.hidden = filtering && equal;
      row.toggleAttribute("data-same", equal);
      if (filtering && equal) same += 1;
    }
    for (const group of table.querySelectorAll("tbody")) group.hidden = ![...group.querySelectorAll("tr[data-row]")].some((r) => !r.hidden);
    diff.disabled = shown.length < 2;
    for (const option of select.options) option.disabled = option.value !== "" && (order.includes(option.value) || order.length >= max);
    select.disabled = order.length >= max;
    let text;
    if (!order.length) text = `Showing all ${known.length} systems. Add the ones you are weighing (up to ${max}) to compare them side by side.`;
    else if (order.length === 1) text = `Showing ${nameOf(order[0])}. Add another system to see where they differ.`;
    else text = `Showing ${order.length} systems in the order you added them.`;
    if (filtering) text += ` ${same} rows that are the same for all of them are hidden.`;
    else if (shown.length >= 2 && !diff.checked) text += " Every row is shown.";
    status.textContent = text;
    table.dataset.shown = String(shown.length);
    table.dataset.order = order.join(",");
    table.dataset.hiddenRows = String(same);
    // no measuring here: the table's new size reaches tables.js's resize observer, which updates the scroll
    // cue once the browser has laid the table out (measuring now would lay out all of it at once, 0.8 s of
    // main-thread work at 4x CPU on a first load)
    table.removeAttribute("data-pending");
  };

  select.addEventListener("change", () => {
    const id = select.value;
    select.value = "";
    if (!id || order.includes(id) || order.length >= max) return;
    order.push(id);
    apply();
    writeUrl();
    // keep the focus where the reader is working: the select, ready for the next one
    if (!select.disabled) select.focus();
  });
  table.addEventListener("click", (event) => {
    const button = event.target.closest("[data-remove]");
    if (!button) return;
    order = order.filter((id) => id !== button.dataset.remove);
    apply();
    writeUrl();
    select.disabled = false;
    select.focus();
  });
  diff.addEventListener("change", () => {
    apply();
    writeUrl();
  });
  form.addEventListener("submit", (event) => event.preventDefault());
  apply();
}
