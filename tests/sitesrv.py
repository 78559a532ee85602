"""A loopback static server for the built site (tests and the benchmark).

Serves with correct types for .mjs/.wasm, optional Cache-Control, the site's CSP as an HTTP header
(so it also covers the worker), and precompressed ``.gz`` siblings when the client accepts gzip.
"""

import functools
import http.server
import socketserver
import threading
from pathlib import Path

TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip"}


def make_handler(root, csp=None, cache=False, fault=None):
    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

        def log_message(self, *args):
            pass

        def end_headers(self):
            if csp:
                self.send_header("Content-Security-Policy", csp)
            if cache:
                self.send_header("Cache-Control", "public, max-age=31536000, immutable" if "/assets/" in self.path else "no-cache")
            super().end_headers()

        def do_GET(self):
            if fault and fault(self):
                return
            super().do_GET()

    return functools.partial(Handler, directory=str(root))


class Server:
    def __init__(self, root, port=0, **kw):
        socketserver.TCPServer.allow_reuse_address = True
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), make_handler(Path(root), **kw))
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
