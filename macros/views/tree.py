"""The decision tree page: the tree as nested lists (``templates/tree-list.html``) and as a Mermaid
diagram (``templates/tree-diagram.html``)."""

from .common import engine_link


def tree_list(catalog):
    tree = catalog.tree
    branches = []
    for b in tree["branches"]:
        leaves = []
        for leaf in b["leaves"]:
            leaves.append({"id": leaf["id"], "label": leaf["label"], "default": bool(leaf.get("default")),
                           "engines": [engine_link(catalog, x) for x in leaf["engines"]],
                           "also": [engine_link(catalog, x) for x in leaf.get("also", [])],
                           "with": [engine_link(catalog, x) for x in leaf.get("with", [])], "note": leaf.get("note")})
        branches.append({"id": b["id"], "label": b["label"], "question": b["question"], "leaves": leaves})
    return {"id": tree["id"], "question": tree["question"], "branches": branches, "warnings": [w["text"] for w in tree["warnings"]]}


# Mermaid decodes its own entity codes (#quot;, #60;), treats `...` as Markdown and %% as a directive,
# then inserts labels as sanitized HTML: spell every special character as a Mermaid code so any text
# comes out literally.
MERMAID_CODES = {"#": "#35;", "&": "#amp;", "<": "#lt;", ">": "#gt;", '"': "#quot;", "'": "#39;", "`": "#96;", "%": "#37;",
                 "\n": " ", "\r": " "}


def mermaid_label(value):
    return '"' + "".join(MERMAID_CODES.get(ch, ch) for ch in str(value)) + '"'


def tree_mermaid_source(catalog):
    tree = catalog.tree
    lines = ["flowchart LR", f"  root[{mermaid_label(tree['question'])}]"]
    for i, b in enumerate(tree["branches"]):
        bid = f"b{i}"
        lines.append(f"  root --> {bid}[{mermaid_label(b['label'])}]")
        for j, leaf in enumerate(b["leaves"]):
            names = ", ".join(catalog.name_of("engines", x) for x in leaf["engines"])
            lines.append(f"  {bid} -->|{mermaid_label(leaf['label'])}| {bid}l{j}([{mermaid_label(names)}])")
    return "\n".join(lines)


def tree_diagram(catalog):
    return {"source": tree_mermaid_source(catalog)}
