"""Inference Engine Map: the catalog loader, its checks and the selector rules.

Standard library only, so the same package runs under CPython (tests, CLI, the
site build) and in the browser under Pyodide.  YAML is read on the build side
(:mod:`selector.files`, which imports PyYAML lazily); everything else takes
plain dicts.
"""

__version__ = "0.1.0"
