"""Build-side glue shared by the mkdocs hook and the macros: one cached catalog per build."""

import hashlib
import io
import json
import os
import re
import zipfile
from pathlib import Path

from selector import __version__
from selector.catalog import trim_for_selector
from datatools.files import load_data_dir

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("IEM_DATA_DIR", ROOT / "data"))  # tests build from a modified copy
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
WHEEL_NAME = f"selector-{__version__}-py3-none-any.whl"
HASH_LEN = 16  # hex digits of SHA-256 in a content-addressed folder name

_cache = {}
_stash = {}
ID_RE = re.compile(r"[a-z0-9][a-z0-9.-]{0,63}")
PLACEHOLDER = re.compile(r"<!--(iem[0-9a-f]{24})-->")
# '.', '-', '+' and '!' only mean something at the start of a line or before '[' (escaped), never inside a
# heading line; left alone they keep terms such as L1.5 whole, so the abbr extension can mark them up
MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#|~])")


class DataError(Exception):
    pass


def _signature(folder):
    # called once per page by the macros: os.walk + os.stat is 4-5x faster than Path.rglob here
    entries = []
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)  # a dangling link is validate's to report, not a traceback here
            entries.append(f"{path}:{st.st_mtime_ns}:{st.st_size}")
    h = hashlib.sha256()
    for entry in sorted(entries):
        h.update(entry.encode())
    return h.hexdigest()


def catalog(data_dir=DATA):
    """Load and validate once per change of the data folder; raise DataError on any error."""
    data_dir = Path(data_dir)
    sig = _signature(data_dir)
    hit = _cache.get(str(data_dir))
    if hit and hit[0] == sig:
        return hit[1]
    cat, problems = load_data_dir(data_dir, strict=True)  # placeholders never publish
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise DataError("data validation failed:\n" + "\n".join(str(p) for p in errors[:50]))
    _cache[str(data_dir)] = (sig, cat)
    return cat


def catalog_json(cat, trimmed=False):
    data = trim_for_selector(cat.raw) if trimmed else cat.raw
    # key order is kept: option order in questions.yaml is meaningful
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def build_wheel(package_dir=ROOT / "selector"):
    """A pure-Python wheel of the selector package, byte-for-byte reproducible."""
    files = sorted(p for p in package_dir.glob("*.py") if p.name != "__main__.py")  # the CLI entry is build side
    dist = f"selector-{__version__}.dist-info"
    entries = [(f"selector/{p.name}", p.read_bytes()) for p in files]
    entries.append((f"{dist}/METADATA", (f"Metadata-Version: 2.1\nName: selector\nVersion: {__version__}\n"
                                          "Summary: Inference Engine Map selector rules (stdlib only)\n").encode()))
    entries.append((f"{dist}/WHEEL", b"Wheel-Version: 1.0\nGenerator: inference-engine-map\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    import base64
    record = []
    for name, data in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{dist}/RECORD,,")
    entries.append((f"{dist}/RECORD", ("\n".join(record) + "\n").encode()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return buf.getvalue()


def content_hash(entries):
    """The name of a content-addressed folder holding ``entries`` ((file name, bytes or Path) pairs):
    SHA-256 over every file's name and SHA-256, sorted by name, cut to HASH_LEN hex digits. The same
    bytes give the same name on every build; one changed byte gives a new name, so a host may let
    browsers keep whatever sits under such a folder for a year (``immutable`` in ``_headers``)."""
    h = hashlib.sha256()
    for name, data in sorted(entries, key=lambda e: e[0]):
        if isinstance(data, Path):
            with open(data, "rb") as f:
                digest = hashlib.file_digest(f, "sha256").hexdigest()
        else:
            digest = hashlib.sha256(data).hexdigest()
        h.update(f"{name}\0{digest}\n".encode())
    return h.hexdigest()[:HASH_LEN]


def runtime_files(cat, pyodide_dir):
    """What the selector worker loads, each group under a folder named by its content hash.

    Returns ``(files, manifest)``: ``files`` are (site path, bytes or source Path) pairs under
    ``assets/selector/<hash>/`` (the wheel; the trimmed catalog) and ``assets/pyodide/<hash>/`` (the
    Pyodide runtime); ``manifest`` is what ``assets/selector/manifest.json`` says, paths relative to it.
    Only these folders may be cached for good; the manifest and the worker keep fixed names and are
    revalidated on every load."""
    groups = {
        "wheel": ("assets/selector", [(WHEEL_NAME, build_wheel())]),
        "catalog": ("assets/selector", [("catalog.json", catalog_json(cat, trimmed=True).encode("utf-8"))]),
        "pyodide": ("assets/pyodide", [(name, Path(pyodide_dir) / name) for name in PYODIDE_FILES]),
    }
    files, manifest = [], {}
    for key, (parent, entries) in groups.items():
        folder = f"{parent}/{content_hash(entries)}"
        files += [(f"{folder}/{name}", data) for name, data in entries]
        rel = os.path.relpath(folder, "assets/selector").replace(os.sep, "/") + "/"
        manifest[key] = rel if key == "pyodide" else rel + entries[0][0]
    return files, manifest


def node_modules():
    return Path(os.environ.get("IEM_NODE_MODULES", ROOT / "node_modules"))


# -- markup placeholders ---------------------------------------------------------------------------
# Macros run before Markdown. They hand Markdown an HTML comment naming the rendered markup, and
# hooks.on_page_content puts the markup in after Markdown has run, so no text from the data (a fence,
# an attribute list, a reference definition, raw HTML) is ever parsed as Markdown.

def clear_stash():
    _stash.clear()


def stash(html):
    """Keep ``html`` for :func:`unstash` and return the Markdown placeholder that stands for it."""
    key = "iem" + hashlib.sha256(html.encode("utf-8")).hexdigest()[:24]
    _stash[key] = html
    return f"\n\n<!--{key}-->\n\n"


def unstash(html):
    """Replace every placeholder in a page's HTML with the markup it stands for."""
    def sub(match):
        try:
            return _stash[match.group(1)]
        except KeyError:
            raise DataError(f"internal: no markup for placeholder {match.group(1)}") from None
    return PLACEHOLDER.sub(sub, html)


def md_heading(text):
    """Data text as the text of a Markdown heading: one line, HTML specials as entities, Markdown
    specials backslashed (so ``{: onclick=...}`` or ``[x](javascript:)`` stay literal)."""
    line = " ".join(str(text).split())
    line = line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return MD_SPECIAL.sub(r"\\\1", line)


def engine_id_of(page):
    """The engine id of a generated engine page, from its file name (``engines/<id>.md``)."""
    src = page.file.src_uri if page is not None else ""
    folder, _, name = src.rpartition("/")
    engine_id = name[:-3] if name.endswith(".md") else ""
    if folder != "engines" or not ID_RE.fullmatch(engine_id) or engine_id not in catalog().engines:
        raise DataError(f"{src!r} is not a generated engine page")
    return engine_id
