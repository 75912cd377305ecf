"""conftest.py -- fixtures for the package's tests, and their report for make test.

Fixtures: srv (a scratchpad-server of the tree's build on a free port in a
temporary directory, one per module: tests/lib/spserver.py), c (redis-py on
it), sp (a Scratchpad in the namespace "py-agent"). The package is imported
from this folder's parent, so the tests run without installing it:
`python3 -m pytest client/python/tests` (BUILD=build-asan for another build).

When $SP_PYTEST_REPORT names a file, every test's outcome is written to it
as lines "ok - <first docstring line>" / "not ok - ..." (with the failure
indented), which tests/integration/python_pkg.py prints for tests/run.sh.
"""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "lib"))
sys.path.insert(0, os.path.join(HERE, ".."))

import redis  # noqa: E402
from spserver import Server  # noqa: E402

from scratchpad import Scratchpad  # noqa: E402


@pytest.fixture(scope="module")
def srv():
    with Server() as s:
        yield s


@pytest.fixture(scope="module")
def c(srv):
    client = redis.Redis(port=srv.port)
    yield client
    client.close()


@pytest.fixture(scope="module")
def sp(c):
    return Scratchpad(c, "py-agent")


def _sentence(item):
    doc = (getattr(item, "function", None) and item.function.__doc__) or item.nodeid
    return " ".join(doc.strip().split("\n\n")[0].split())


def pytest_runtest_makereport(item, call):
    """One line per test: its outcome on the setup (a fixture failing), call or teardown."""
    path = os.environ.get("SP_PYTEST_REPORT")
    if not path:
        return
    failed = call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception)
    if call.when != "call" and not failed:
        return
    with open(path, "a") as f:
        if failed:
            f.write("not ok - %s%s\n" % (_sentence(item), "" if call.when == "call" else " (%s)" % call.when))
            for line in str(item.repr_failure(call.excinfo)).splitlines()[-40:]:
                f.write("    %s\n" % line)
        elif call.when == "call":
            f.write("ok - %s\n" % _sentence(item))
