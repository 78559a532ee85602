"""The glossary page (``templates/glossary.html``) and the abbreviations every page marks up."""

from .common import source


def term_anchor(term):
    """The glossary page's anchor for a term (terms are unique ignoring case, see checks.check_glossary)."""
    return "term-" + term.lower()


def glossary(catalog):
    """Every term, alphabetically, with its expansion, definition and citation."""
    g = catalog.glossary or {}
    terms = sorted(g.get("terms", []), key=lambda t: (t["term"].lower(), t["term"]))
    return {"terms": [{"term": t["term"], "anchor": term_anchor(t["term"]), "expansion": t["expansion"],
                       "definition": t["definition"], "cite": source(catalog.cite(g, t["source"]))} for t in terms]}


def abbreviations(catalog):
    """``{term: expansion}`` for the Markdown ``abbr`` extension's glossary: every term the data does not
    mark ``abbr: false``. The extension sets the expansion as an element attribute (escaped by the
    serializer), so data text never becomes Markdown source."""
    return {t["term"]: t["expansion"] for t in (catalog.glossary or {}).get("terms", []) if t.get("abbr", True)}
