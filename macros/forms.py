"""The selector and fit forms, rendered at build time from ``data/questions.yaml``.

The page works as a plain form; ``selector.js`` reads it, keeps the URL query in
step and asks the Pyodide worker for the answer.  No option is typed in JS.
"""

from selector.inputs import options

from .html import esc, rel


def _option_label(catalog, source, value):
    if source == "tree-scales":
        return next(b["label"] for b in catalog.tree["branches"] if b["scale"] == value)
    if source == "hardware":
        return catalog.hardware[value]["name"]
    if source == "formats":
        return catalog.formats[value]["name"]
    if source == "weight-quantization":
        q = catalog.quantization[value]
        return f'{q["name"]} ({q["bits_per_weight"]:g} bits)'
    if source == "models":
        m = catalog.models[value]
        return f'{m["name"]} ({m["total_params_b"]:g}B)'
    if source == "workloads":
        return catalog.questions["workloads"][value]["label"]
    if source == "priorities":
        return catalog.questions["priorities"][value]["label"]
    return value


def _field(catalog, q):
    key = q["key"]
    fid = f"q-{key}"
    help_html = f'<small id="{fid}-help" class="iem-help">{esc(q["help"])}</small>' if q.get("help") else ""
    described = f' aria-describedby="{fid}-help"' if q.get("help") else ""
    if q["type"] == "choice":
        opts = []
        if not q.get("required"):
            opts.append('<option value="">No preference</option>')
        if q["options_from"] == "tree-needs":
            for b in catalog.tree["branches"]:
                for leaf in b["leaves"]:
                    opts.append(f'<option value="{esc(leaf["need"])}" data-scale="{esc(b["scale"])}"'
                                f'{" data-default" if leaf.get("default") else ""}>{esc(leaf["label"])}</option>')
        else:
            for value in options(catalog, q["options_from"]):
                sel = " selected" if q.get("default") == value else ""
                opts.append(f'<option value="{esc(value)}"{sel}>{esc(_option_label(catalog, q["options_from"], value))}</option>')
        return (f'<div class="iem-field"><label for="{fid}">{esc(q["label"])}</label>'
                f'<select id="{fid}" name="{esc(key)}"{described}>{"".join(opts)}</select>{help_html}</div>')
    if q["type"] == "multi":
        boxes = "".join(
            f'<label class="iem-check"><input type="checkbox" name="{esc(key)}" value="{esc(v)}"> '
            f'{esc(_option_label(catalog, q["options_from"], v))}</label>'
            for v in options(catalog, q["options_from"]))
        return f'<fieldset class="iem-field iem-multi"><legend>{esc(q["label"])}</legend>{boxes}{help_html}</fieldset>'
    step = "1" if q["type"] == "integer" else "any"
    attrs = "".join(f' {a}="{esc(q[a])}"' for a in ("minimum", "maximum") if a in q).replace("minimum", "min").replace("maximum", "max")
    placeholder = f' placeholder="{esc(q["default"])}"' if "default" in q else ""
    return (f'<div class="iem-field"><label for="{fid}">{esc(q["label"])}</label>'
            f'<input id="{fid}" name="{esc(key)}" type="number" inputmode="numeric" step="{step}"{attrs}{placeholder}{described}>{help_html}</div>')


def form(catalog, page_url, op):
    page = "selector" if op == "recommend" else "fit"
    fields = [_field(catalog, q) for q in catalog.questions["questions"] if q.get("page", "both") in (page, "both")]
    tree = esc(rel(page_url, "tree/"))
    base = esc(rel(page_url, "assets/"))
    return f"""

<form id="selector-form" class="iem-form" data-op="{esc(op)}" data-assets="{base}" novalidate>
{"".join(fields)}
<div class="iem-actions"><button type="submit" class="md-button md-button--primary">Show the answer</button> <button type="reset" class="md-button">Reset</button></div>
</form>
<div id="selector-result" data-state="loading" aria-live="polite" aria-busy="true"><p class="iem-loading">Loading the selector's Python runtime in the background… <progress aria-label="Loading"></progress></p><noscript><p class="iem-warn">The selector runs its rules in your browser and needs JavaScript. Use the <a href="{tree}">decision tree</a> instead.</p></noscript></div>

"""
