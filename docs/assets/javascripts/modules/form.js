// Form <-> answers <-> URL query. No rule lives here: answers go to the Python rules as typed, numbers
// only when they are plain decimals (anything else is passed as text so Python names the problem).

const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)$/;
// Parameters that link shorteners, newsletters and ad networks append to shared links.
const TRACKING = /^(utm_[a-z_]+|fbclid|gclid|dclid|gbraid|wbraid|msclkid|mc_cid|mc_eid|_ga|_gl|igshid|yclid|twclid|li_fat_id|ref_src)$/i;

export function isTracking(key) {
  return TRACKING.test(key);
}

function fieldKind(form, key) {
  const field = form.elements.namedItem(key);
  if (!field) return null;
  if (field instanceof RadioNodeList || field.type === "checkbox") return "multi";
  return field.type === "number" ? "number" : "choice";
}

function parseNumber(raw) {
  const text = String(raw).trim();
  return DECIMAL.test(text) && text.length <= 40 ? Number(text) : raw;
}

export function answersFromForm(form) {
  const answers = {};
  const seen = new Set();
  for (const field of form.elements) {
    if (!field.name || seen.has(field.name) || field.disabled) continue;
    seen.add(field.name);
    const kind = fieldKind(form, field.name);
    if (kind === "multi") {
      const picked = [...form.querySelectorAll(`input[name="${field.name}"]:checked`)].map((b) => b.value);
      if (picked.length) answers[field.name] = picked;
    } else if (field.value !== "") {
      answers[field.name] = kind === "number" ? parseNumber(field.value) : field.value;
    }
  }
  return answers;
}

// Returns the answers in the query, and the names of tracking parameters that were left out.
export function answersFromQuery(form, search) {
  const params = new URLSearchParams(search);
  const answers = {};
  const ignored = [];
  for (const [key, raw] of params) {
    if (isTracking(key)) {
      ignored.push(key);
      continue;
    }
    const kind = fieldKind(form, key);
    if (kind === "multi") answers[key] = raw.split(",").filter(Boolean);
    else if (kind === "number" && raw.trim() !== "") answers[key] = parseNumber(raw);
    else answers[key] = raw;
  }
  return { answers, ignored };
}

export function queryFromAnswers(answers) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(answers)) params.set(key, Array.isArray(value) ? value.join(",") : String(value));
  const text = params.toString();
  return text ? `?${text}` : location.pathname;
}

export function fillForm(form, answers) {
  for (const field of form.elements) {
    if (!field.name) continue;
    const value = answers[field.name];
    if (field.type === "checkbox") field.checked = Array.isArray(value) && value.includes(field.value);
    else if (field.tagName === "SELECT") {
      if (value === undefined) continue;
      if ([...field.options].some((o) => o.value === String(value))) field.value = String(value);
    } else if (value !== undefined) field.value = String(value);
  }
}

// The "need" options belong to a scale (data-scale, rendered from the tree).
export function syncNeed(form) {
  const scale = form.elements.namedItem("scale");
  const need = form.elements.namedItem("need");
  if (!scale || !need) return;
  for (const option of need.options) {
    if (!option.dataset.scale) continue;
    const show = option.dataset.scale === scale.value;
    option.hidden = !show;
    option.disabled = !show;
  }
  const current = need.selectedOptions[0];
  if (current && current.disabled) need.value = "";
}

// A GPU picked from the list brings its memory, bandwidth and memory layout (data-* attributes rendered
// from data/gpus): the hand-typed fields are switched off and show the GPU's figures.
export function syncGpu(form) {
  const gpu = form.elements.namedItem("gpu");
  if (!gpu) return;
  const option = gpu.selectedOptions[0];
  const picked = option && option.value ? option.dataset : null;
  const pairs = [["gpu_memory_gb", "memory"], ["bandwidth_gbs", "bandwidth"]];
  for (const [name, key] of pairs) {
    const field = form.elements.namedItem(name);
    if (!field) continue;
    if (!field.dataset.placeholder) field.dataset.placeholder = field.placeholder || "";
    field.disabled = Boolean(picked);
    field.placeholder = picked ? picked[key] || "" : field.dataset.placeholder;
  }
  const memory = form.elements.namedItem("memory");
  if (memory && picked && picked.mode) memory.value = "";
  if (memory) {
    memory.disabled = Boolean(picked);
    if (picked && picked.mode) memory.dataset.implied = picked.mode;
  }
}

export function markError(form, key) {
  for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
  for (const box of form.querySelectorAll(".iem-field-error")) box.classList.remove("iem-field-error");
  if (!key) return null;
  const field = form.elements.namedItem(key);
  const node = field instanceof RadioNodeList ? field[0] : field;
  if (!node) return null;
  node.setAttribute("aria-invalid", "true");
  const box = node.closest(".iem-field");
  if (box) box.classList.add("iem-field-error");
  return node;
}
