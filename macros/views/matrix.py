"""The decision matrix page (``templates/matrix.html``): scores, the rubric, and why each score."""

from .common import cite, engine_link, fact, parts, table, text


def matrix(catalog):
    dims = catalog.dimensions()
    engines = catalog.matrix_engines()
    rows, notes = [], []
    n = 0
    for d in dims:
        row = [[{"span": d["name"], "title": d["question"]}]]
        for e in engines:
            s = d["scores"].get(e)
            if not s:
                row.append(fact(catalog, d, None))
                continue
            n += 1
            row.append([{"score": {"n": s["score"], "rationale": s["rationale"], "note": n}}])
            notes.append([[{"backref": n}], text(d["name"]), engine_link(catalog, e), text(s["score"]),
                          parts(text(s["rationale"]), cite(catalog, d, s["source"]))])
        rows.append(row)
    return {"scores": table(["Dimension"] + [[engine_link(catalog, e)] for e in engines], rows, cls="iem-table iem-matrix",
                            cols=engines),
            "notes": table(["#", "Dimension", "Engine", "Score", "Rationale and source"], notes, cls="iem-table iem-notes",
                           stack=True)}


RUBRIC_LEVELS = (("five", "5 means"), ("three", "3 means"), ("one", "1 means"))


def matrix_rubric(catalog):
    """What a 5, a 3 and a 1 mean on each dimension of the matrix (4 and 2 sit between)."""
    rows = []
    for d in catalog.dimensions():
        rubric = d.get("rubric") or {}
        row = [[{"anchor": f"rubric-{d['id']}", "text": d["name"]}, {"br": True}, {"small": d["question"]}]]
        row += [[text(rubric[key])] if rubric.get(key) else [{"unknown": "not defined"}] for key, _ in RUBRIC_LEVELS]
        rows.append(row)
    return table(["Dimension"] + [label for _, label in RUBRIC_LEVELS], rows, cls="iem-table iem-rubric")
