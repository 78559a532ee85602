"""Shared fixtures: the real catalog, a strict build of the site, a loopback server and Chromium."""

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(TESTS))

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    # every host but the loopback fails: proves the site needs no other origin
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


@pytest.fixture(scope="session")
def catalog():
    from datatools.files import load_data_dir
    cat, problems = load_data_dir(ROOT / "data")
    errors = [p for p in problems if p.severity == "error"]
    assert not errors, "\n".join(map(str, errors))
    return cat


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_site(dest, site_url, extra_env=None, check=True):
    env = {**os.environ, "SITE_URL": site_url, "NO_MKDOCS_2_WARNING": "1", **(extra_env or {})}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture(scope="session")
def site_port():
    return int(os.environ.get("IEM_SITE_PORT") or 0) or free_port()


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, site_port):
    if os.environ.get("IEM_BUILT_SITE"):  # `make mutation`: a site built once (for IEM_SITE_PORT), then mutated
        return Path(os.environ["IEM_BUILT_SITE"])
    dest = tmp_path_factory.mktemp("site") / "site"
    proc = build_site(dest, f"http://127.0.0.1:{site_port}/")
    dest.joinpath(".build-log").write_text(proc.stdout + proc.stderr)
    return dest


@pytest.fixture(scope="session")
def site_server(built_site, site_port):
    from sitesrv import Server
    with Server(built_site, port=site_port) as server:
        yield server


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}; run `make chromium` (apt-get install chromium)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser, site_server):
    """A fresh page that records every request, dialog and page error."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.requests = []
    pg.dialogs = []
    pg.errors = []
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.base = site_server.url
    yield pg
    context.close()
