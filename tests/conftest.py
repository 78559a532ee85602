"""Shared fixtures: the real catalog, a strict build of the site, a loopback server and Chromium."""

import contextlib
import fcntl
import os
import shutil
import socket
import subprocess
import sys
import time
import types
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


def session_dir(tmp_path_factory):
    """A folder of this test session that every pytest-xdist worker shares: the controller's base temp
    folder (each worker's own is a sub-folder of it), or the base temp folder without xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def session_lock(tmp_path_factory, name):
    """Held by one worker at a time: what the first one makes under it, the others find made."""
    folder = session_dir(tmp_path_factory)
    with open(folder / f"{name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield folder
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def site_port(tmp_path_factory):
    """One port for the whole session: the site is built once for it and served on it to every worker, so
    every absolute address in the site (sitemap, canonical links) is right."""
    if os.environ.get("IEM_SITE_PORT"):
        return int(os.environ["IEM_SITE_PORT"])
    with session_lock(tmp_path_factory, "site-port") as folder:
        record = folder / "site-port"
        if not record.exists():
            record.write_text(str(free_port()))
        return int(record.read_text())


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, site_port):
    """The strict build of the site, made once per test session whatever the number of workers."""
    if os.environ.get("IEM_BUILT_SITE"):  # `make mutation`: a site built once (for IEM_SITE_PORT), then mutated
        return Path(os.environ["IEM_BUILT_SITE"])
    with session_lock(tmp_path_factory, "site") as folder:
        dest, failed = folder / "site", folder / "site-build-failed"
        if failed.exists():  # another worker tried: the same failure here, without a second build
            pytest.fail(failed.read_text(), pytrace=False)
        if not (dest / ".build-log").exists():
            shutil.rmtree(dest, ignore_errors=True)
            proc = build_site(dest, f"http://127.0.0.1:{site_port}/", check=False)
            if proc.returncode != 0:
                failed.write_text(proc.stdout + proc.stderr)
                pytest.fail(proc.stdout + proc.stderr, pytrace=False)
            dest.joinpath(".build-log").write_text(proc.stdout + proc.stderr)  # written last: the build is whole
    return dest


@pytest.fixture(scope="session")
def site_server(tmp_path_factory, built_site, site_port):
    """The built site on the session's port. Under pytest-xdist one server process serves every worker
    and lives as long as the session's controller (workers end at different times)."""
    from sitesrv import Server
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        with Server(built_site, port=site_port) as server:
            yield server
        return
    with session_lock(tmp_path_factory, "site-server") as folder:
        if not (folder / "site-server").exists():
            subprocess.Popen([sys.executable, str(TESTS / "sitesrv.py"), str(built_site), str(site_port), str(os.getppid())],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
            for _ in range(200):
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", site_port), timeout=1):
                    break
                time.sleep(0.05)
            else:
                pytest.fail(f"the site server did not start on port {site_port}", pytrace=False)
            (folder / "site-server").write_text(str(site_port))
    yield types.SimpleNamespace(port=site_port, url=f"http://127.0.0.1:{site_port}/")


# Markers from what a test uses, so `make check` can leave out the site build and the browser
BUILD_FIXTURES = {"built_site", "hostile"}  # hostile: test_xss builds a site from hostile data
BROWSER_FIXTURES = {"browser", "page"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        calls = getattr(getattr(item, "function", None), "__code__", None)
        if names & BUILD_FIXTURES or (calls and "build_site" in calls.co_names):
            item.add_marker(pytest.mark.build)
        if names & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)


# the sizes and colour schemes every layout check runs at: a desktop and a phone, light and dark
SIZES = {"desktop": (1440, 900), "phone": (390, 844)}
VIEWS = [(size, scheme) for size in SIZES for scheme in ("light", "dark")]


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


@pytest.fixture(scope="module", params=VIEWS, ids=[f"{s}-{c}" for s, c in VIEWS])
def view(request, browser, site_server):
    size, scheme = request.param
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.base = site_server.url
    pg.size, pg.scheme, pg.width, pg.height = size, scheme, width, height
    yield pg
    context.close()
