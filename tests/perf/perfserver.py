"""The benchmark's view of tests/sitesrv.Server: same handler (CSP header, Cache-Control), plus

- a byte counter on the socket: every byte the server writes (status line, headers, body) per path,
  so "bytes on the wire" includes whatever the page fetched, its workers included; for a response
  sent from a ``.gz`` sibling it also notes how many bytes the uncompressed file would have taken;
- ``gzip`` mode: serve a precompressed ``<file>.gz`` sibling with ``Content-Encoding: gzip`` when the
  client accepts gzip (what nginx ``gzip_static`` or a CDN with precompressed assets does). Files without
  a ``.gz`` sibling are sent as they are, so the gzip figure shows what the build ships, not what a host
  could compress on the fly.

Both switches live on ``server.options`` and can be flipped between measurements.
"""

import email.utils
import functools
import mimetypes
import os
import threading
import urllib.parse
from pathlib import Path

import sitesrv


class _Counting:
    def __init__(self, raw, sink):
        self._raw = raw
        self._sink = sink

    def write(self, data):
        n = self._raw.write(data)
        self._sink(len(data) if n is None else n)
        return n

    def __getattr__(self, name):
        return getattr(self._raw, name)


class Traffic:
    """Thread-safe tally of bytes written per request path."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with self.lock:
            self.requests = []  # [path, bytes, encoding]

    def open(self, path):
        entry = [path, 0, 0]  # path, bytes written, bytes saved by a .gz sibling
        with self.lock:
            self.requests.append(entry)
        return entry

    def add(self, entry, n):
        with self.lock:
            entry[1] += n

    def snapshot(self):
        with self.lock:
            return [tuple(e) for e in self.requests]

    def saved(self, entry, n):
        with self.lock:
            entry[2] += n

    def total(self):
        with self.lock:
            return sum(e[1] for e in self.requests)

    def total_raw(self):
        """What the same visit would have cost without the .gz siblings."""
        with self.lock:
            return sum(e[1] + e[2] for e in self.requests)


def _wrap(handler_partial, options, traffic):
    base = handler_partial.func if isinstance(handler_partial, functools.partial) else handler_partial
    kwargs = handler_partial.keywords if isinstance(handler_partial, functools.partial) else {}

    class Handler(base):
        def setup(self):
            super().setup()
            self._entry = None
            outer = self

            def sink(n):
                if outer._entry is None:
                    outer._entry = traffic.open(getattr(outer, "path", "?"))
                traffic.add(outer._entry, n)

            self.wfile = _Counting(self.wfile, sink)

        def handle_one_request(self):
            self._entry = None
            super().handle_one_request()

        def _gz_path(self):
            if not options.get("gzip"):
                return None
            if "gzip" not in (self.headers.get("Accept-Encoding") or ""):
                return None
            fs = self.translate_path(self.path)
            if os.path.isdir(fs):
                if not urllib.parse.urlsplit(self.path).path.endswith("/"):
                    return None  # let the base class redirect
                fs = os.path.join(fs, "index.html")
            if os.path.isfile(fs) and os.path.isfile(fs + ".gz"):
                return fs
            return None

        def do_GET(self):
            fs = self._gz_path()
            if fs is None:
                return super().do_GET()
            ctype = self.extensions_map.get(Path(fs).suffix) or mimetypes.guess_type(fs)[0] or "application/octet-stream"
            if ctype.startswith("text/") and "charset" not in ctype:
                ctype += "; charset=utf-8"
            with open(fs + ".gz", "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Last-Modified", email.utils.formatdate(os.stat(fs).st_mtime, usegmt=True))
            self.end_headers()
            self.wfile.write(body)
            if self._entry is not None:
                traffic.saved(self._entry, os.stat(fs).st_size - len(body))

    return functools.partial(Handler, **kwargs)


class BenchServer(sitesrv.Server):
    def __init__(self, root, port=0, gzip=False, **kw):
        super().__init__(root, port=port, **kw)
        self.options = {"gzip": gzip}
        self.traffic = Traffic()
        self.httpd.RequestHandlerClass = _wrap(self.httpd.RequestHandlerClass, self.options, self.traffic)
