"""MkDocs hook: precompressed ``.gz`` siblings for hosts that serve them.

After the build, every compressible file of the site (HTML, CSS, JS, JSON, XML, SVG, the Pyodide wasm)
gets ``<name>.gz`` next to it when gzip saves at least 10 %. Hosts that look for precompressed files
(nginx ``gzip_static on``, Caddy ``file_server { precompressed gzip }``, many CDNs, the benchmark's
server) send those with ``Content-Encoding: gzip`` at the best compression level without compressing
on every request; other hosts ignore them. Output is reproducible (no timestamp in the gzip header).

Large files (the Pyodide runtime, Mermaid) rarely change, so their compressed form is cached under
``node_modules/.cache/iem-gzip/`` by content hash: a rebuild costs a hash, not a recompression.
"""

import gzip
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

EXTENSIONS = {".html", ".css", ".js", ".mjs", ".json", ".xml", ".svg", ".txt", ".wasm"}
MIN_BYTES = 1024
MAX_RATIO = 0.9
CACHE_FROM_BYTES = 512 * 1024
LEVEL = 9
ROOT = Path(__file__).resolve().parent.parent


def _cache_dir():
    base = Path(os.environ.get("IEM_NODE_MODULES", ROOT / "node_modules"))
    path = base / ".cache" / "iem-gzip"
    try:
        path.mkdir(parents=True, exist_ok=True)
        return path
    except OSError:
        return None


def _compress(data, cache):
    if cache is None or len(data) < CACHE_FROM_BYTES:
        return gzip.compress(data, compresslevel=LEVEL, mtime=0)
    key = cache / (hashlib.sha256(data).hexdigest() + f".l{LEVEL}.gz")
    if key.is_file():
        return key.read_bytes()
    out = gzip.compress(data, compresslevel=LEVEL, mtime=0)
    tmp = key.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(out)
    tmp.replace(key)
    return out


def precompress(site_dir, cache=None):
    """Write ``.gz`` siblings under ``site_dir``; return (files written, bytes before, bytes after)."""
    site_dir = Path(site_dir)
    paths = [p for p in site_dir.rglob("*") if p.suffix in EXTENSIONS and p.is_file()]

    def one(path):
        data = path.read_bytes()
        if len(data) < MIN_BYTES:
            return None
        packed = _compress(data, cache)
        if len(packed) > MAX_RATIO * len(data):
            return None
        path.with_name(path.name + ".gz").write_bytes(packed)
        return len(data), len(packed)

    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:  # zlib releases the GIL
        done = [r for r in pool.map(one, paths) if r]
    return len(done), sum(r[0] for r in done), sum(r[1] for r in done)


def on_post_build(config):
    precompress(config["site_dir"], _cache_dir())
