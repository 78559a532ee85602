// Tables (markup from macros/templates/_lib.html `table`): whether each one fits its column (data-fits:
// the header row then sticks below the page header; otherwise the table scrolls in its own box), a cue on
// the edge that has more columns to scroll to, keyboard scrolling while a table overflows, and the engine
// picker above a table with many engine columns. The picker's checkboxes come from the build; the choice is kept in ?engines=a,b and
// applies to every picker on the page. No data lives here.

const watched = new WeakSet();
let resizer = null;

// Reads and writes are kept apart: measuring every block first and then setting attributes costs one
// layout, where measuring and writing in turn would lay the page out again for each table.
function measure(block) {
  const box = block.querySelector(".iem-scroll");
  if (!box) return null;
  const max = box.scrollWidth - box.clientWidth;
  return { box, max, left: box.scrollLeft };
}

function mark(block, m) {
  if (!m) return;
  const { box, max, left } = m;
  const overflow = max > 1;
  block.toggleAttribute("data-fits", !overflow);
  block.toggleAttribute("data-overflow", overflow);
  block.toggleAttribute("data-more-left", overflow && left > 1);
  block.toggleAttribute("data-more-right", overflow && left < max - 1);
  // a region that scrolls must be reachable from the keyboard (arrow keys scroll it once focused)
  if (overflow && !box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
  else if (!overflow && box.getAttribute("tabindex") === "0") box.removeAttribute("tabindex");
}

function edges(block) {
  mark(block, measure(block));
}

function watch(block) {
  const box = block.querySelector(".iem-scroll");
  if (!box) return;
  if (!watched.has(block)) {
    watched.add(block);
    let queued = false;
    box.addEventListener("scroll", () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; edges(block); });
    }, { passive: true });
  }
  // no measurement here: a table out of view is not laid out (content-visibility), and reading its width
  // would lay out every table on the page at once. The observer reports each box once it has a size,
  // which is when it comes near the view, and again whenever it changes.
  resizer.observe(box);
  const table = box.querySelector("table");
  if (table) resizer.observe(table);
}

// ---------------------------------------------------------------------------------------------
const readEngines = () => (new URLSearchParams(location.search).get("engines") || "").split(",").map((s) => s.trim()).filter(Boolean);

function writeEngines(ids) {
  const params = new URLSearchParams(location.search);
  params.delete("engines");
  const rest = params.toString();
  const query = [ids.length ? `engines=${ids.join(",")}` : "", rest].filter(Boolean).join("&");
  history.replaceState(history.state, "", (query ? `?${query}` : location.pathname) + location.hash);
}

function applyPicker(picker, wanted) {
  const block = picker.nextElementSibling;
  if (!block || !block.classList.contains("iem-table-block")) return;
  const boxes = [...picker.querySelectorAll('input[name="col"]')];
  const known = boxes.map((b) => b.value);
  // a choice that names none of this table's columns shows them all (the page may hold other tables)
  const shown = wanted.filter((id) => known.includes(id));
  const all = shown.length === 0;
  for (const b of boxes) b.checked = all || shown.includes(b.value);
  for (const cell of block.querySelectorAll("table [data-col]")) cell.hidden = !all && !shown.includes(cell.dataset.col);
  const count = picker.querySelector(".iem-colpick-count");
  if (count) count.textContent = all ? `all ${known.length} shown` : `${shown.length} of ${known.length} shown`;
  block.dataset.cols = all ? "all" : shown.join(",");
  // the table's new width reaches the resize observer, which updates the cue
}

function mountPickers(pickers) {
  const fresh = pickers.filter((p) => !p.dataset.mounted);
  if (!fresh.length) return;
  const applyAll = (wanted) => { for (const p of pickers) applyPicker(p, wanted); };
  for (const picker of fresh) {
    picker.dataset.mounted = "1";
    picker.addEventListener("change", (event) => {
      const boxes = [...picker.querySelectorAll('input[name="col"]')];
      let checked = boxes.filter((b) => b.checked).map((b) => b.value);
      if (!checked.length && event.target.name === "col") {
        // an empty table helps no one: the last box stays ticked
        event.target.checked = true;
        checked = [event.target.value];
      }
      const wanted = checked.length === boxes.length ? [] : checked; // every box ticked: no choice
      applyAll(wanted);
      writeEngines(wanted);
    });
    picker.querySelector('[data-colpick="all"]')?.addEventListener("click", () => {
      applyAll([]);
      writeEngines([]);
    });
  }
  applyAll(readEngines());
}

export function mountTables() {
  // after instant navigation the old page's tables are gone: observe the current ones only
  if (resizer) resizer.disconnect();
  resizer = new ResizeObserver((entries) => {
    const blocks = new Set(entries.map((e) => e.target.closest(".iem-table-block")).filter(Boolean));
    const sizes = [...blocks].map((block) => [block, measure(block)]);
    for (const [block, m] of sizes) mark(block, m);
  });
  for (const block of document.querySelectorAll(".iem-table-block")) watch(block);
  mountPickers([...document.querySelectorAll(".iem-colpick")]);
}
