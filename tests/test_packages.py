"""Where code runs is checked, not a convention: ``selector`` (what the browser imports) is standard library only
and acyclic, the wheel holds exactly its modules, and no module reaches into another's private names."""

import ast
import io
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT

RUNTIME = ROOT / "selector"
PACKAGES = ("selector", "datatools", "macros")
ENTRY = "__main__.py"  # `python -m selector`: calls datatools.cli, never shipped


def _modules(package):
    return sorted(p for p in (ROOT / package).glob("*.py"))


def _imports(path):
    """``(module imported, names, line, inside a function)`` for every import of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.parent.name
    nested = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              for n in ast.walk(f) if n is not f}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno, id(node) in nested
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package + ("." + node.module if node.module else "")
            else:
                base = node.module
            names = [a.name for a in node.names]
            if node.level and not node.module:  # from . import fit
                for name in names:
                    yield f"{package}.{name}", [], node.lineno, id(node) in nested
            else:
                yield base, names, node.lineno, id(node) in nested


def _runtime_graph():
    graph = {}
    for path in _modules("selector"):
        if path.name == ENTRY:
            continue
        name = "selector." + path.stem if path.stem != "__init__" else "selector"
        graph[name] = {m for m, *_ in _imports(path) if m.split(".")[0] == "selector"}
    return graph


def test_runtime_imports_only_the_standard_library():
    bad = []
    for path in _modules("selector"):
        if path.name == ENTRY:
            continue
        for module, _names, line, _nested in _imports(path):
            top = module.split(".")[0]
            if top != "selector" and top not in sys.stdlib_module_names:
                bad.append(f"selector/{path.name}:{line} imports {module}")
    assert bad == []


def test_runtime_import_graph_is_acyclic():
    graph = _runtime_graph()
    state = {}

    def visit(node, trail):
        if state.get(node) == "done":
            return
        assert state.get(node) != "open", " -> ".join(trail + [node])
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            visit(dep, trail + [node])
        state[node] = "done"

    for node in sorted(graph):
        visit(node, [])


@pytest.mark.parametrize("package", PACKAGES)
def test_no_lazy_imports_of_project_modules(package):
    """A cycle is not to be broken by importing inside a function."""
    lazy = [f"{package}/{p.name}:{line} imports {m}" for p in _modules(package) for m, _n, line, nested in _imports(p)
            if nested and m.split(".")[0] in PACKAGES]
    assert lazy == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_private_names(package):
    found = [f"{package}/{p.name}:{line} imports {n} from {m}" for p in _modules(package)
             for m, names, line, _ in _imports(p) if m.split(".")[0] in PACKAGES for n in names if n.startswith("_") and not n.endswith("__")]
    assert found == []


def test_wheel_holds_exactly_the_runtime_modules():
    from macros.site import build_wheel
    with zipfile.ZipFile(io.BytesIO(build_wheel())) as zf:
        shipped = {n for n in zf.namelist() if not n.split("/")[0].endswith(".dist-info")}
    expected = {f"selector/{p.name}" for p in _modules("selector") if p.name != ENTRY}
    assert shipped == expected
    assert "selector/rules.py" in shipped and not any(n.startswith("datatools/") for n in shipped)


def test_the_checks_catch_a_bad_import(tmp_path, monkeypatch):
    """The graph checks above would pass vacuously if the parser missed imports."""
    path = tmp_path / "selector" / "bad.py"
    path.parent.mkdir()
    path.write_text("import yaml\ndef f():\n    from . import rules\nfrom .inputs import _private\n")
    found = list(_imports(path))
    assert ("yaml", [], 1, False) in found
    assert ("selector.rules", [], 3, True) in found
    assert ("selector.inputs", ["_private"], 4, False) in found
