// The selector's Python runtime: one Pyodide module worker per tab, kept across instant navigations.
// Only strings cross the boundary. A slow load is never a dead end: after SLOW_MS the page is told the
// runtime is still loading and keeps waiting; only a real failure (a file that does not load, a worker
// that crashes) ends in "failed", and retry() starts over.

export const SLOW_MS = 15000;

let worker = null;
let state = { status: "idle", error: null, readyMs: null };
const waiting = new Map();
const listeners = new Set();
let seq = 0;
let slowTimer = null;

function set(next) {
  state = { ...state, ...next };
  listeners.forEach((fn) => fn(state));
}

export function onState(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function current() {
  return { ...state };
}

export function start(workerUrl) {
  if (worker) return worker;
  set({ status: "loading", error: null, readyMs: null });
  clearTimeout(slowTimer);
  slowTimer = setTimeout(() => {
    if (state.status === "loading") set({ status: "slow" });
  }, SLOW_MS);
  try {
    worker = new Worker(workerUrl, { type: "module" });
  } catch (err) {
    fail(`the worker could not start: ${err.message || err}`);
    return null;
  }
  worker.onmessage = (event) => {
    const msg = event.data;
    if (msg.type === "ready") {
      clearTimeout(slowTimer);
      set({ status: "ready", error: null, readyMs: msg.ms });
    } else if (msg.type === "failed") {
      fail(msg.error);
    } else if (msg.type === "answer") {
      const entry = waiting.get(msg.id);
      if (!entry) return;
      waiting.delete(msg.id);
      if (msg.error) entry.reject(new Error(msg.error));
      else entry.resolve(JSON.parse(msg.response));
    }
  };
  worker.onerror = (event) => {
    event.preventDefault();
    // a module that fails to load gives a bare Event without a message
    fail(event.message ? `the worker crashed: ${event.message}` : "the worker script or the Pyodide module did not load");
  };
  return worker;
}

function fail(message) {
  clearTimeout(slowTimer);
  if (worker) worker.terminate();
  worker = null;
  waiting.forEach((entry) => entry.reject(new Error(message)));
  waiting.clear();
  set({ status: "failed", error: message, readyMs: null });
}

export function retry(workerUrl) {
  if (worker) return;
  start(workerUrl);
}

// `extra`: more request fields beside the answers (the load answer's gpu_hour_usd)
export function ask(op, answers, workerUrl, extra = {}) {
  const w = start(workerUrl);
  if (!w) return Promise.reject(new Error(state.error || "worker unavailable"));
  const id = ++seq;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, request: JSON.stringify({ ...extra, op, answers }) });
  });
}

// Resolves once the runtime is ready, rejects only on a real failure: slowness is reported through onState.
export function whenReady() {
  if (state.status === "ready") return Promise.resolve();
  if (state.status === "failed") return Promise.reject(new Error(state.error));
  return new Promise((resolve, reject) => {
    const off = onState((s) => {
      if (s.status === "ready") {
        off();
        resolve();
      } else if (s.status === "failed") {
        off();
        reject(new Error(s.error));
      }
    });
  });
}
