"""The selector and fit forms as data, from ``data/questions.yaml`` (``templates/form.html`` draws them).

The page works as a plain form; ``site.js`` reads it, keeps the URL query in step and asks the Pyodide
worker for the answer. No option is typed in JavaScript.
"""

from selector.inputs import options


def option_label(catalog, source, value):
    if source == "tree-scales":
        return next(b["label"] for b in catalog.tree["branches"] if b["scale"] == value)
    if source == "hardware":
        return catalog.hardware[value]["name"]
    if source == "formats":
        return catalog.formats[value]["name"]
    if source in ("weight-quantization", "kv-quantization"):
        q = catalog.quantization[value]
        return f"{q['name']} ({q['bits_per_weight']:g} bits)"
    if source == "models":
        m = catalog.models[value]
        return f"{m['name']} ({m['total_params_b']:g}B)"
    if source == "gpus":
        g = catalog.gpus[value]
        return f"{g['name']} ({g['memory_gib']:g} GiB)"
    if source == "workloads":
        return catalog.questions["workloads"][value]["label"]
    if source == "priorities":
        return catalog.questions["priorities"][value]["label"]
    if source == "memory-modes":
        return catalog.questions.get("memory_modes", {}).get(value, value)
    if source == "engines":
        return catalog.engines[value]["name"]
    if source == "switch":
        return {"yes": "Yes", "no": "No"}[value]
    return value


def field(catalog, q):
    out = {"key": q["key"], "label": q["label"], "help": q.get("help"), "type": q["type"], "required": bool(q.get("required")),
           "none_label": q.get("none_label", "No preference"),
           "minimum": q.get("minimum"), "maximum": q.get("maximum"), "default": q.get("default"), "options": []}
    if q["type"] in ("choice", "multi"):
        if q["options_from"] == "tree-needs":
            for b in catalog.tree["branches"]:
                for leaf in b["leaves"]:
                    out["options"].append({"value": leaf["need"], "label": leaf["label"], "scale": b["scale"],
                                           "default": bool(leaf.get("default")), "selected": False, "data": {}})
        else:
            for value in options(catalog, q["options_from"]):
                option = {"value": value, "label": option_label(catalog, q["options_from"], value), "scale": None,
                          "default": False, "selected": q.get("default") == value, "data": {}}
                if q["options_from"] == "gpus":
                    g = catalog.gpus[value]
                    option["data"] = {"memory": f"{g['memory_gib']:g}", "bandwidth": f"{g['bandwidth_gbs']:g}",
                                      "mode": {"unified": "unified", "host": "cpu"}.get(g["memory_mode"], "discrete")}
                out["options"].append(option)
    return out


def tree_previews(catalog):
    """Every leaf of the decision tree, for the answer shown while the rules load (a lookup by scale and need)."""
    out = []
    for b in catalog.tree["branches"]:
        for leaf in b["leaves"]:
            out.append({"scale": b["scale"], "need": leaf["need"], "default": bool(leaf.get("default")),
                        "branch": b["label"], "label": leaf["label"], "note": leaf.get("note"),
                        "engines": [{"href": f"engines/{e}/", "text": catalog.name_of("engines", e)} for e in leaf["engines"]],
                        "with": [{"href": f"engines/{e}/", "text": catalog.name_of("engines", e)} for e in leaf.get("with", [])]})
    return out


def form(catalog, op):
    page = "selector" if op == "recommend" else "fit"
    return {"op": op, "fields": [field(catalog, q) for q in catalog.questions["questions"] if q.get("page", "both") in (page, "both")],
            "previews": tree_previews(catalog) if op == "recommend" else []}
