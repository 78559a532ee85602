// Module worker: loads Pyodide once, installs the selector wheel, answers JSON requests.
// Only strings cross the boundary: {id, request: "<json>"} in, {id, response: "<json>"} out.
import { loadPyodide } from "../pyodide/pyodide.mjs";

const assets = new URL("../", import.meta.url);

async function fetchOk(url, kind) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${kind} could not be loaded (HTTP ${res.status})`);
  return res;
}

const started = performance.now();
const ready = (async () => {
  const manifest = await (await fetchOk(new URL("selector/manifest.json", assets), "manifest")).json();
  const wheelP = fetchOk(new URL(`selector/${manifest.wheel}`, assets), "selector wheel").then((r) => r.arrayBuffer());
  const catalogP = fetchOk(new URL(`selector/${manifest.catalog}`, assets), "catalog").then((r) => r.text());
  const py = await loadPyodide({ indexURL: new URL("pyodide/", assets).href, fullStdLib: false });
  try {
    py.unpackArchive(new Uint8Array(await wheelP), "wheel");
  } catch (err) {
    throw new Error(`selector wheel is corrupt: ${err.message || err}`);
  }
  const api = py.pyimport("selector.api");
  const loaded = JSON.parse(api.load(await catalogP));
  if (!loaded.ok) throw new Error("catalog did not load");
  return api;
})();

ready.then(
  () => postMessage({ type: "ready", ms: performance.now() - started }),
  (err) => postMessage({ type: "failed", error: String(err && err.message ? err.message : err) }),
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
