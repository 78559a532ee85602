// Page glue for Inference Engine Map. Loaded as a module on every page; mounts widgets through
// Material's document$ so instant navigation works. Each widget's code is imported only on a page that
// has the widget (most pages have none), so a prose page runs this file alone. No selector rule lives
// here: the answers go to the Python `selector` package running in a Pyodide module worker (see
// modules/selector-page.js), and come back as JSON.

const SELECTOR_PAGE = "./modules/selector-page.js";
const WIDGETS = [
  // [module, the element that needs it, its mount function]; once loaded, a module's mount runs on every
  // page (tables let go of the previous page's elements there)
  ["./modules/tables.js", ".iem-table-block, .iem-colpick", "mountTables"],
  ["./modules/compare.js", "#compare-form", "mountCompare"],
  [SELECTOR_PAGE, "#selector-form", "mountSelector"],
  ["./modules/results.js", "#results-filter", "mountResults"],
  ["./modules/launch-view.js", ".iem-launch", "mountLaunch"],
];
const loaded = new Map();  // module path -> promise of the module
const modules = new Map();  // module path -> the module, once it has loaded

function load(path) {
  if (!loaded.has(path)) loaded.set(path, import(path).then((m) => { modules.set(path, m); return m; }));
  return loaded.get(path);
}

function highlightTree() {
  if (!location.hash.startsWith("#tree-")) return;
  const node = document.getElementById(location.hash.slice(1));
  if (node) node.classList.add("iem-highlight");
}

// Material's search overlay has role="dialog" but no accessible name (axe aria-dialog-name).
function nameSearchDialog() {
  for (const dialog of document.querySelectorAll('.md-search[role="dialog"]:not([aria-label])')) dialog.setAttribute("aria-label", "Search");
}

function mountAll() {
  nameSearchDialog();
  for (const [path, needs, mount] of WIDGETS) {
    if (loaded.has(path) || document.querySelector(needs)) {
      load(path).then((m) => m[mount]()).catch((err) => console.error(`Inference Engine Map: ${path}: ${err}`));
    }
  }
  highlightTree();
}

// The selector's runtime for scripts and tests: window.iem.ask(op, answers) resolves to the worker's JSON.
window.iem = {
  ask: async (op, answers) => (await load(SELECTOR_PAGE)).ask(op, answers),
  whenReady: async () => (await load(SELECTOR_PAGE)).whenReady(),
  state: () => (modules.has(SELECTOR_PAGE) ? modules.get(SELECTOR_PAGE).state() : { status: "idle", error: null, readyMs: null }),
};
// On /selector/ and /fit/ the worker starts as this module runs, before the form is mounted.
if (document.getElementById("selector-form")) load(SELECTOR_PAGE).then((m) => m.startRuntime());
// On a page's first load, widgets mount in a task of their own: document$ first emits inside Material's
// DOMContentLoaded handler, which mounts all of Material's components and is already the page's longest
// task after its bundle. After an instant navigation they mount at once: the reader has clicked and is
// waiting, and a deferred mount would queue behind Material's own work on the new page.
let firstLoad = true;
const mountSoon = () => {
  if (!firstLoad) return mountAll();
  firstLoad = false;
  setTimeout(mountAll, 0);
};

// Without Material's bundle (it failed to load) the widgets still mount.
if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(mountSoon);
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountSoon, { once: true });
else mountSoon();
