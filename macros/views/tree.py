"""The decision tree page: the tree as nested lists (``templates/tree-list.html``) and as an SVG diagram
laid out at build time (``templates/tree-diagram.html``)."""

import textwrap

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


# The diagram is laid out here, in SVG units, and drawn by templates/tree-diagram.html: three columns (the
# question, the branches, the leaves' engines) with each leaf's label on its edge. Text is wrapped by an
# estimate of its width (CHAR_W per character at the font size the stylesheet gives the drawing).
CHAR_W = 7.6
LINE_H = 18
PAD = 8
GAP = 10
ROOT_W, BRANCH_W, LABEL_W, LEAF_W = 120, 130, 170, 140
COL_GAP = 28
ROOT_X = 0
BRANCH_X = ROOT_X + ROOT_W + COL_GAP
LABEL_X = BRANCH_X + BRANCH_W + COL_GAP
LEAF_X = LABEL_X + LABEL_W + COL_GAP
WIDTH = LEAF_X + LEAF_W


def _lines(text, width):
    return textwrap.wrap(" ".join(str(text).split()), max(8, int((width - 2 * PAD) / CHAR_W)), break_on_hyphens=False,
                         break_long_words=False) or [""]


def _box(x, middle, width, lines, kind):
    """A box of ``lines`` whose left edge is at ``x`` and vertical centre at ``middle``."""
    height = len(lines) * LINE_H + 2 * PAD
    top = middle - height / 2
    return {"x": x, "y": top, "w": width, "h": height, "kind": kind, "cx": x + width / 2, "cy": middle,
            "lines": [{"text": t, "y": top + PAD + (i + 0.75) * LINE_H} for i, t in enumerate(lines)]}


def _edge(start, end, arrow=True):
    """An S-curve from ``start`` to ``end``; ``arrow``: ends in an arrowhead (into a box, not into a label)."""
    (x1, y1), (x2, y2) = start, end
    mid = (x1 + x2) / 2
    return {"d": f"M{x1:g} {y1:g}C{mid:g} {y1:g} {mid:g} {y2:g} {x2:g} {y2:g}", "arrow": arrow}


def tree_diagram(catalog):
    """Boxes, edges and edge labels of the decision tree, positioned (top to bottom, one row per leaf)."""
    tree = catalog.tree
    nodes, edges, labels = [], [], []
    top, branch_boxes = 0, []
    for b in tree["branches"]:
        first = top
        leaves = []
        for leaf in b["leaves"]:
            names = ", ".join(catalog.name_of("engines", x) for x in leaf["engines"])
            label, node = _lines(leaf["label"], LABEL_W), _lines(names, LEAF_W)
            height = max(len(label), len(node)) * LINE_H + 2 * PAD
            leaves.append((_box(LEAF_X, top + height / 2, LEAF_W, node, "leaf"),
                           _box(LABEL_X, top + height / 2, LABEL_W, label, "label")))
            top += height + GAP
        span = top - GAP - first
        branch = _box(BRANCH_X, first + span / 2, BRANCH_W, _lines(b["label"], BRANCH_W), "branch")
        branch_boxes.append(branch)
        nodes.append(branch)
        for box, tag in leaves:  # a leaf and its label share a row
            nodes.append(box)
            labels.append(tag)
            edges.append(_edge((BRANCH_X + BRANCH_W, branch["cy"]), (LABEL_X, tag["cy"]), arrow=False))
            edges.append(_edge((LABEL_X + LABEL_W, tag["cy"]), (LEAF_X, box["cy"])))
        top += GAP * 2
    height = top - GAP * 3
    root = _box(ROOT_X, height / 2, ROOT_W, _lines(tree["question"], ROOT_W), "root")
    nodes.insert(0, root)
    for branch in branch_boxes:
        edges.insert(0, _edge((ROOT_X + ROOT_W, root["cy"]), (BRANCH_X, branch["cy"])))
    return {"width": WIDTH, "height": height, "nodes": nodes, "edges": edges, "labels": labels}
