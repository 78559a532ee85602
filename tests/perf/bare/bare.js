// Reference for the selector's cold start: the same Pyodide files, loaded the same way (module
// worker, fullStdLib false), with nothing of the site around them.
const worker = new Worker(new URL("bare-worker.js", import.meta.url), { type: "module" });
worker.onmessage = (event) => {
  window.__bareReady = performance.now();
  window.__bareWorkerMs = event.data.ms;
  document.body.dataset.state = event.data.type;
  if (event.data.error) document.body.dataset.error = event.data.error;
};
