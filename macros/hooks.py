"""MkDocs hooks: validate data, add one page per engine, and ship runtime files.

- on_config: the build fails (with file, field and fix) if ``data/`` is invalid;
  each engine gets a nav entry under "Engines".
- on_files: generated pages ``engines/<id>.md``; ``api/catalog.json`` (everything),
  ``assets/selector/catalog.json`` (what the selector reads); the selector wheel;
  the JSON Schemas under ``schema/``; Pyodide and Mermaid from ``node_modules``.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # hooks load by file path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from macros import site


def on_config(config):
    try:
        cat = site.catalog()
    except site.DataError as exc:
        raise PluginError(str(exc)) from None
    nav = config.get("nav") or []
    for item in nav:
        if isinstance(item, dict) and "Engines" in item:
            pages = [{"All systems": "engines/index.md"}]
            order = {"L1": 1, "L1.5": 2, "L2": 3, "L3": 4}
            for e in sorted(cat.engines.values(), key=lambda e: (order[e["tier"]], e["name"].lower())):
                pages.append({e["name"]: f"engines/{e['id']}.md"})
            item["Engines"] = pages
    return config


def _generated(config, path, content):
    return File.generated(config, path, content=content)


def on_files(files, config):
    cat = site.catalog()
    for engine_id in sorted(cat.engines):
        files.append(_generated(config, f"engines/{engine_id}.md",
                                f"# {{{{ engine_name('{engine_id}') }}}}\n\n{{{{ engine_page('{engine_id}') }}}}\n"))
    files.append(_generated(config, "api/catalog.json", site.catalog_json(cat)))
    files.append(_generated(config, "assets/selector/catalog.json", site.catalog_json(cat, trimmed=True)))
    files.append(_generated(config, f"assets/selector/{site.WHEEL_NAME}", site.build_wheel()))
    files.append(_generated(config, "assets/selector/manifest.json", json.dumps({
        "wheel": site.WHEEL_NAME, "catalog": "catalog.json", "pyodide": "../pyodide/"})))
    for schema in sorted((site.DATA / "schema").glob("*.schema.json")):
        files.append(File.generated(config, f"schema/{schema.name}", abs_src_path=str(schema)))
    nm = site.node_modules()
    missing = []
    for name in site.PYODIDE_FILES:
        src = nm / "pyodide" / name
        if not src.is_file():
            missing.append(str(src))
            continue
        files.append(File.generated(config, f"assets/pyodide/{name}", abs_src_path=str(src)))
    mermaid = nm / "mermaid" / "dist" / "mermaid.min.js"
    if mermaid.is_file():
        files.append(File.generated(config, "assets/vendor/mermaid.min.js", abs_src_path=str(mermaid)))
    else:
        missing.append(str(mermaid))
    if missing:
        raise PluginError("runtime files missing (run `npm ci`): " + ", ".join(missing))
    return files
