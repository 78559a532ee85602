"""Renderers: the catalog in, plain data out, one module per page family.

Every function here is pure: it reads the catalog and returns dicts, lists and strings for a template
in ``macros/templates/`` to turn into markup; each module names the templates it feeds. The shared
parts (cells, tables, links, the site's engine order) are in :mod:`macros.views.common`. The tests
call these functions on small catalogs and check the data.
"""

from . import (
    common, compare, engines, glossary, grids, matrix, others, results, scenarios, sources, tables, tiers, tree, trends)

__all__ = ["common", "compare", "engines", "glossary", "grids", "matrix", "others", "results", "scenarios", "sources", "tables",
           "tiers", "tree", "trends"]
