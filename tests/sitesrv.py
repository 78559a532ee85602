"""A loopback static server for the built site (tests and the benchmark).

Serves with correct types for .mjs/.wasm and precompressed ``.gz`` siblings when the client accepts gzip.
``headers=True`` sends what the site's ``_headers`` file says for each path (Content-Security-Policy,
Cache-Control, ...), the way Netlify or Cloudflare Pages would; ``cache=True`` sends only its
Cache-Control (``no-cache`` where no rule matches, as those hosts' default); ``csp`` sends one given policy
on every response instead of the file's.
"""

import functools
import http.server
import re
import socketserver
import threading
import urllib.parse
from pathlib import Path

TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip"}


def parse_headers(text):
    """The rules of a ``_headers`` file: [(path pattern, [(name, value), ...]), ...] in file order."""
    rules = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            if not rules:
                raise ValueError(f"_headers: header line before any path: {line!r}")
            name, sep, value = line.strip().partition(":")
            if not sep:
                raise ValueError(f"_headers: not 'Name: value': {line!r}")
            rules[-1][1].append((name.strip(), value.strip()))
        else:
            rules.append((line.strip(), []))
    return rules


def pattern_regex(pattern):
    """A ``_headers`` path pattern as a regular expression: ``*`` (a splat) matches anything, slashes too."""
    return re.compile("".join(".*" if part == "*" else re.escape(part) for part in re.split(r"(\*)", pattern)))


def matching_rules(rules, path):
    return [(pattern, headers) for pattern, headers in rules if pattern_regex(pattern).fullmatch(path)]


def headers_for(rules, path):
    """The headers a host sends for ``path``: every matching rule applies, and a header set by more than one
    rule gets their values joined with ", " (what Cloudflare Pages does)."""
    out = {}
    for _pattern, headers in matching_rules(rules, urllib.parse.urlsplit(path).path):
        for name, value in headers:
            key = name.lower()
            out[key] = (out[key][0], out[key][1] + ", " + value) if key in out else (name, value)
    return dict(out.values())


def make_handler(root, csp=None, cache=False, fault=None, headers=False):
    rules = []
    if (cache or headers) and (Path(root) / "_headers").is_file():
        rules = parse_headers((Path(root) / "_headers").read_text(encoding="utf-8"))

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

        def log_message(self, *args):
            pass

        def end_headers(self):
            from_file = headers_for(rules, self.path)
            cache_control = next((v for k, v in from_file.items() if k.lower() == "cache-control"), "no-cache")
            if headers:
                for name, value in from_file.items():
                    if name.lower() != "cache-control" and not (csp and name.lower() == "content-security-policy"):
                        self.send_header(name, value)
            if headers or cache:
                self.send_header("Cache-Control", cache_control)
            if csp:
                self.send_header("Content-Security-Policy", csp)
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


def serve_while(root, port, pid):
    """Serve ``root`` on ``port`` for as long as process ``pid`` lives (a test session's controller)."""
    import os
    import time
    with Server(root, port=port):
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.5)


if __name__ == "__main__":  # tests/conftest.py: one server for every pytest-xdist worker of a session
    import sys
    serve_while(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
