// Module worker: loads Pyodide once, installs the selector wheel, answers JSON requests.
// Only strings cross the boundary: {id, request: "<json>"} in, {id, response: "<json>"} out.
// assets/selector/manifest.json (revalidated on every load) names the wheel, the catalog and Pyodide, each
// under a folder named by its content hash that browsers may cache for good (see _headers).

const assets = new URL("../", import.meta.url);
const selectorDir = new URL("selector/", assets);

async function fetchOk(url, kind, options) {
  const res = await fetch(url, options);
  if (!res.ok) throw new Error(`${kind} could not be loaded (HTTP ${res.status})`);
  return res;
}

// Python exceptions arrive with the whole traceback; the last line is the message a reader needs.
const lastLine = (err) => String(err && err.message ? err.message : err).trim().split("\n").pop();

// Pyodide only logs a failed WebAssembly load ("wasm instantiation failed!") and then never settles;
// turn that log line into an error so the page can say so at once instead of waiting for its timeout.
const wasmFailed = new Promise((_, reject) => {
  const warn = console.warn.bind(console);
  console.warn = (...args) => {
    warn(...args);
    if (/^wasm instantiation failed/.test(String(args[0]))) {
      reject(new Error("the Python runtime (pyodide.asm.wasm) did not load or compile"));
    }
  };
});

const started = performance.now();
async function startPyodide(indexURL) {
  let mod;
  try {
    mod = await import(new URL("pyodide.mjs", indexURL).href);
  } catch (err) {
    throw new Error(`the Pyodide module (pyodide.mjs) did not load (${lastLine(err)})`);
  }
  return Promise.race([mod.loadPyodide({ indexURL, fullStdLib: false }), wasmFailed]);
}

const ready = (async () => {
  // "no-cache": asked again on every start even where a host caches it (GitHub Pages: 10 minutes), since
  // the folders it names are replaced by each deploy. Pyodide, the wheel and the catalog then load at once.
  const manifest = await (await fetchOk(new URL("manifest.json", selectorDir), "manifest", { cache: "no-cache" })).json();
  // The first failure is reported at once: a missing catalog need not wait for Pyodide to finish loading.
  const [py, wheel, catalog] = await Promise.all([
    startPyodide(new URL(manifest.pyodide, selectorDir).href),
    fetchOk(new URL(manifest.wheel, selectorDir), "selector wheel").then((r) => r.arrayBuffer()),
    fetchOk(new URL(manifest.catalog, selectorDir), "catalog").then((r) => r.text()),
  ]);
  try {
    py.unpackArchive(new Uint8Array(wheel), "wheel");
  } catch (err) {
    throw new Error(`selector wheel is corrupt (${lastLine(err)})`);
  }
  const api = py.pyimport("selector.api");
  const loaded = JSON.parse(api.load(catalog));
  if (!loaded.ok) throw new Error("catalog did not load");
  return api;
})();

ready.then(
  () => postMessage({ type: "ready", ms: performance.now() - started }),
  (err) => postMessage({ type: "failed", error: lastLine(err) }),
);

self.onmessage = async (event) => {
  const { id, request } = event.data;
  try {
    const api = await ready;
    const t0 = performance.now();
    const response = api.handle(request);
    postMessage({ type: "answer", id, response, ms: performance.now() - t0 });
  } catch (err) {
    postMessage({ type: "answer", id, error: String(err && err.message ? err.message : err) });
  }
};
