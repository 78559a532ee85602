// Page glue for Inference Engine Map. Loaded as a module on every page; mounts widgets through
// Material's document$ so instant navigation works. Each widget's code is imported only on a page that
// has the widget (most pages have none), so a prose page runs this file alone. No selector rule lives
// here: the answers go to the Python `selector` package running in a Pyodide module worker (see
// modules/selector-page.js), and come back as JSON.

const SELECTOR_PAGE = "./modules/selector-page.js";
const WIDGETS = [
  // [module, the element that needs it, its mount function]; once loaded, a module's mount runs on every
  // page (tables and diagrams let go of the previous page's elements there)
  ["./modules/tables.js", ".iem-table-block, .iem-colpick", "mountTables"],
  ["./modules/compare.js", "#compare-form", "mountCompare"],
  [SELECTOR_PAGE, "#selector-form", "mountSelector"],
  ["./modules/diagram.js", '[data-diagram="mermaid"]', "mountDiagrams"],
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

// Material's bundle, on the pages that load it on the first interaction (see docs/overrides/main.html).
// Its document$ first emits on DOMContentLoaded, which this page has had by then, so the event is sent
// again once the bundle has run: Material mounts its components on this document, and this file, which
// has already mounted the page's widgets, subscribes for the pages that instant navigation brings next.
// A key that woke the bundle is sent to it again, so a first "/" or "s" still opens search.
const WAKE = ["pointerdown", "keydown", "touchstart", "wheel", "focusin"];
function themeOnInteraction(src) {
  let started = false;
  const start = (ev) => {
    if (started) return;
    started = true;
    for (const type of WAKE) removeEventListener(type, start, true);
    const script = document.createElement("script");
    script.src = src;
    script.onload = () => {
      if (!window.document$) return;  // not the bundle this file knows: the page stays as it is
      let current = true;
      window.document$.subscribe(() => { if (current) current = false; else mountSoon(); });
      document.dispatchEvent(new Event("DOMContentLoaded"));
      // a tap on the search button opened the search box without the bundle: give its field the focus
      // the bundle gives it on that tap
      const search = document.getElementById("__search"), query = document.querySelector("[data-md-component=search-query]");
      if (search && search.checked && query && !query.contains(document.activeElement)) query.focus();
      if (ev && ev.type === "keydown") {
        const { key, code, altKey, ctrlKey, metaKey, shiftKey } = ev;
        window.dispatchEvent(new KeyboardEvent("keydown", { key, code, altKey, ctrlKey, metaKey, shiftKey, bubbles: true }));
      }
    };
    script.onerror = () => {  // a failed fetch is tried again on the next interaction
      script.remove();
      started = false;
      for (const type of WAKE) addEventListener(type, start, { capture: true, passive: true });
    };
    document.body.append(script);
  };
  const params = new URLSearchParams(location.search);
  if (location.hash.length > 1 || params.has("q") || params.has("h")) start(null);
  else for (const type of WAKE) addEventListener(type, start, { capture: true, passive: true });
}

const themeScript = document.getElementById("iem-theme-script");
if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(mountSoon);
else {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountSoon, { once: true });
  else mountSoon();
  if (themeScript) themeOnInteraction(new URL(themeScript.dataset.src, document.baseURI).href);
}
