// Compare view (markup from macros/templates/compare.html). The table holds every system; the reader's
// picks (up to data-max) show in the reader's order, added with the select and removed with the button in
// each column head. "Only differences" hides rows whose shown cells carry the same comparison key (the
// build writes it as data-key). Names in the address that match no system are reported.
// State lives in the address: ?engines=a,b,c and &all=1 when every row is shown.

// Put a row's shown cells in the wanted order with as few moves as possible: the longest run already in
// order stays put and only the others move (three picks out of alphabetical order: one move per row, not
// three). Every move restyles, so on a first load this is most of the arranging work.
function arrange(row, wanted) {
  const at = wanted.map((cell) => cell.cellIndex);
  const best = at.map(() => 1);
  const prev = at.map(() => -1);
  for (let i = 0; i < at.length; i += 1) {
    for (let j = 0; j < i; j += 1) {
      if (at[j] < at[i] && best[j] + 1 > best[i]) {
        best[i] = best[j] + 1;
        prev[i] = j;
      }
    }
  }
  const stay = new Set();
  for (let i = best.indexOf(Math.max(...best)); i >= 0; i = prev[i]) stay.add(wanted[i]);
  for (let i = wanted.length - 1; i >= 0; i -= 1) {
    const cell = wanted[i];
    if (stay.has(cell)) continue;
    if (i + 1 < wanted.length) wanted[i + 1].before(cell);
    else row.append(cell);
  }
}

// after the browser has drawn a frame: rows added in two tasks between frames would be laid out together
const nextFrame = (fn) => requestAnimationFrame(() => setTimeout(fn, 0));
const mounting = new WeakSet();  // forms being mounted or mounted; data-mounted is set once the table is drawn
// rows drawn at once, then in each frame after (8 then 6: other sizes measured no different)
const FIRST_ROWS = 8;
const ROWS_PER_TASK = 6;

export function mountCompare() {
  const form = document.getElementById("compare-form");
  const table = document.getElementById("compare-table");
  if (!form || !table || mounting.has(form)) return;
  mounting.add(form);
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

  // The columns of one row: the picks' cells in the reader's order. Head cells carry `hidden`; body cells
  // are hidden by the stylesheet while the table has data-picked, unless marked data-on, so a change
  // touches only the cells whose state changes. A row is arranged when it is drawn: rows hidden as equal,
  // or not drawn yet on a first load, wait until they show. (Every mark and move restyles; arranging all
  // 70 rows for three picks on a first load was 1,190 moves and 980 hidden flags, 180 ms of script under
  // Lighthouse's tracing.)
  let shown = known;
  let picked = new Set(known);
  let arrangedFor = "";
  const arranged = new WeakMap();  // row -> the arrangement it has
  const arrangeRow = (row) => {
    if (arranged.get(row) === arrangedFor) return;
    arranged.set(row, arrangedFor);
    const cells = [];
    for (const cell of row.cells) {
      const id = cell.dataset.col;
      if (!id) continue;
      const on = picked.has(id);
      if (cell.tagName === "TH") {
        if (cell.hidden === on) cell.hidden = !on;
      } else if (order.length) cell.toggleAttribute("data-on", on);
      if (on) cells.push(cell);
    }
    if (cells.length) arrange(row, cells.sort((x, y) => shown.indexOf(x.dataset.col) - shown.indexOf(y.dataset.col)));
  };
  const drawn = (row) => !row.hidden && !row.hasAttribute("data-later") && !row.parentElement.hidden;

  let later = [];  // rows not drawn yet on a first load, in order
  const apply = (firstDraw = false) => {
    shown = order.length ? order : known;
    picked = new Set(shown);
    arrangedFor = shown.join(",");
    table.toggleAttribute("data-picked", order.length > 0);
    for (const b of table.querySelectorAll("[data-remove]")) if (b.hidden !== !order.length) b.hidden = !order.length;
    // rows: with two or more systems shown, only the ones where they differ (unless the reader wants all)
    const filtering = diff.checked && shown.length >= 2;
    let same = 0;
    for (const row of rows) {
      const keys = new Set();
      for (const cell of row.cells) if (picked.has(cell.dataset.col)) keys.add(cell.dataset.key);
      const equal = keys.size <= 1;
      if (row.hidden !== (filtering && equal)) row.hidden = filtering && equal;
      row.toggleAttribute("data-same", equal);
      if (filtering && equal) same += 1;
    }
    for (const group of table.tBodies) {
      const empty = ![...group.rows].some((r) => r.hasAttribute("data-row") && !r.hidden);
      if (group.hidden !== empty) group.hidden = empty;
    }
    if (firstDraw) {
      later = [...table.tBodies].filter((group) => !group.hidden).flatMap((group) => [...group.rows])
        .filter((row) => !row.hidden).slice(FIRST_ROWS);
      for (const row of later) row.setAttribute("data-later", "");
    }
    for (const row of table.rows) if (drawn(row)) arrangeRow(row);
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
  // The table is drawn a few rows per task: laying out fifty rows of notes at once is one long task (about
  // 160 ms on a desktop CPU when Lighthouse traces it), during which the page cannot answer the reader.
  // The first rows show at once; the rest follow within a few frames, each row hidden meanwhile by
  // data-later. The form gets data-mounted once every row is drawn.
  apply(true);
  table.removeAttribute("data-pending");
  const drawMore = () => {
    for (const row of later.splice(0, ROWS_PER_TASK)) {
      row.removeAttribute("data-later");
      if (drawn(row)) arrangeRow(row);
    }
    if (later.length) nextFrame(drawMore);
    else form.dataset.mounted = "1";
  };
  nextFrame(drawMore);
}
