"""The site is built once per test session, however many pytest-xdist workers ask for it, and every worker
serves that one build on the session's one port."""

import socket
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import TESTS

pytestmark = pytest.mark.build  # the site build's machinery (a stand-in build here); make check leaves it out

CONFTEST = textwrap.dedent('''
    import importlib.util, sys, time
    sys.path.insert(0, {tests!r})
    spec = importlib.util.spec_from_file_location("project_conftest", {conftest!r})
    real = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(real)

    def fake_build(dest, site_url, extra_env=None, check=True):
        with open({count!r}, "a") as handle:
            handle.write(site_url + "\\n")
        time.sleep(2)  # long enough for the other worker to ask meanwhile
        dest.mkdir(parents=True)
        (dest / "index.html").write_text("<p>built</p>")
        class Done: returncode, stdout, stderr = 0, "", ""
        return Done()

    real.build_site = fake_build
    built_site, site_port, site_server = real.built_site, real.site_port, real.site_server
    if hasattr(real, "pytest_collection_modifyitems"):
        pytest_collection_modifyitems = real.pytest_collection_modifyitems
''')
TEST = textwrap.dedent('''
    import time, urllib.request

    def test_{n}(built_site, site_server, site_port):
        assert (built_site / "index.html").read_text() == "<p>built</p>"
        assert site_server.port == site_port
        time.sleep({pause})  # the other worker may have finished by now: the server must still answer
        with urllib.request.urlopen(site_server.url) as response:
            assert response.read() == b"<p>built</p>"
''')


def test_one_build_for_all_workers(tmp_path):
    count = tmp_path / "builds.txt"
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(CONFTEST.format(tests=str(TESTS), conftest=str(TESTS / "conftest.py"), count=str(count)))
    for n, pause in (("a", 0), ("b", 0), ("c", 0), ("d", 3)):
        (suite / f"test_{n}.py").write_text(TEST.format(n=n, pause=pause))
    (suite / "pytest.ini").write_text("[pytest]\nmarkers =\n  build: x\n  browser: x\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "2",
                           "--dist", "loadfile", "--basetemp", str(tmp_path / "base"), str(suite)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0 and "4 passed" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    builds = count.read_text().splitlines()
    assert len(builds) == 1, builds
    port = int(builds[0].rsplit(":", 1)[1].strip("/"))
    for _ in range(100):  # the server ends with the session
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"the site server still answers on port {port} after the session")
