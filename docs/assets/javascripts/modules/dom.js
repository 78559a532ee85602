// DOM helpers: text always goes through textContent, never innerHTML.

export const ASSETS = new URL("../../", import.meta.url);
export const SITE = new URL("../", ASSETS);
export const siteUrl = (path) => new URL(path, SITE).href;

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

export function list(items, cls) {
  const ul = el("ul", { class: cls });
  for (const item of items) ul.append(item instanceof Node ? el("li", {}, item) : el("li", { text: item }));
  return ul;
}

// A citation as a link (only https URLs from the catalog; the schema allows nothing else).
export function sourceLink(source) {
  if (!source || typeof source.url !== "string" || !source.url.startsWith("https://")) return null;
  return el("a", { class: "iem-cite", href: source.url, rel: "noopener", title: source.title, text: "source" });
}

export const fmt = {
  int: (n) => (n === null || n === undefined ? "–" : Math.round(n).toLocaleString("en-US")),
  num: (n, digits = 1) => (n === null || n === undefined ? "–" : Number(n).toLocaleString("en-US", { maximumFractionDigits: digits })),
  points: (p) => (p > 0 ? `+${p}` : `${p}`),
};
