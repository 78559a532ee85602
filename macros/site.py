"""Build-side glue shared by the mkdocs hook and the macros: one cached catalog per build."""

import hashlib
import io
import json
import os
import zipfile
from pathlib import Path

from selector import __version__
from selector.files import load_data_dir

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("IEM_DATA_DIR", ROOT / "data"))  # tests build from a modified copy
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
WHEEL_NAME = f"selector-{__version__}-py3-none-any.whl"

_cache = {}


class DataError(Exception):
    pass


def _signature(folder):
    # called once per page by the macros: os.walk + os.stat is 4-5x faster than Path.rglob here
    entries = []
    for dirpath, _dirs, names in os.walk(folder, followlinks=True):
        for name in names:
            path = os.path.join(dirpath, name)
            st = os.stat(path)
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
    cat, problems = load_data_dir(data_dir)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise DataError("data validation failed:\n" + "\n".join(str(p) for p in errors[:50]))
    _cache[str(data_dir)] = (sig, cat)
    return cat


def catalog_json(cat, trimmed=False):
    from selector.catalog import trim_for_selector
    data = trim_for_selector(cat.raw) if trimmed else cat.raw
    # key order is kept: option order in questions.yaml is meaningful
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def build_wheel(package_dir=ROOT / "selector"):
    """A pure-Python wheel of the selector package, byte-for-byte reproducible."""
    files = sorted(p for p in package_dir.glob("*.py"))
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


def node_modules():
    return Path(os.environ.get("IEM_NODE_MODULES", ROOT / "node_modules"))
