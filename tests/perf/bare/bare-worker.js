import { loadPyodide } from "../../assets/pyodide/pyodide.mjs";

const started = performance.now();
loadPyodide({ indexURL: new URL("../../assets/pyodide/", import.meta.url).href, fullStdLib: false }).then(
  (py) => {
    py.runPython("1 + 1");
    postMessage({ type: "ready", ms: performance.now() - started });
  },
  (err) => postMessage({ type: "failed", error: String(err) }),
);
