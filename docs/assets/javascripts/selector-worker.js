// Module worker: loads Pyodide once, installs the selector wheel, answers JSON requests.
// Only strings cross the boundary: {id, request: "<json>"} in, {id, response: "<json>"} out.
import { loadPyodide } from "../pyodide/pyodide.mjs";

const assets = new URL("../", import.meta.url);

async function fetchOk(url, kind) {
  const res = await fetch(url);
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
const ready = (async () => {
  // Pyodide starts at once; the manifest, the wheel and the catalog download while it loads.
  const pyodideP = Promise.race([loadPyodide({ indexURL: new URL("pyodide/", assets).href, fullStdLib: false }), wasmFailed]);
  pyodideP.catch(() => {}); // awaited below; an earlier error (manifest) is the one reported
  const manifest = await (await fetchOk(new URL("selector/manifest.json", assets), "manifest")).json();
  const wheelP = fetchOk(new URL(`selector/${manifest.wheel}`, assets), "selector wheel").then((r) => r.arrayBuffer());
  const catalogP = fetchOk(new URL(`selector/${manifest.catalog}`, assets), "catalog").then((r) => r.text());
  const py = await pyodideP;
  try {
    py.unpackArchive(new Uint8Array(await wheelP), "wheel");
  } catch (err) {
    throw new Error(`selector wheel is corrupt (${lastLine(err)})`);
  }
  const api = py.pyimport("selector.api");
  const loaded = JSON.parse(api.load(await catalogP));
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
