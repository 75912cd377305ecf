"""python_pkg.py -- the Python package's pytest suite (client/python/tests), for make test.

Runs Debian's python3-pytest on client/python/tests (the package's own tests,
against a real server: see their conftest.py) and prints each test's outcome
as "ok - <its docstring's first line>" / "not ok - ...", the lines tests/run.sh
counts; pytest's own output follows only when something failed. Exits 1 on any
failure, or when pytest did not run (not installed: `make test` installs it).
"""

import os
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main():
    tests = os.path.join(TOP, "client", "python", "tests")
    with tempfile.NamedTemporaryFile("r", prefix="sp-pytest-", suffix=".txt") as report:
        env = dict(os.environ, SP_PYTEST_REPORT=report.name, PYTHONDONTWRITEBYTECODE="1")
        out = subprocess.run(["/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", tests],
                             cwd=tests, env=env, capture_output=True, text=True, timeout=280)
        lines = report.read()
    sys.stdout.write(lines)
    if out.returncode != 0:
        sys.stdout.write("# pytest exited with status %d:\n" % out.returncode)
        sys.stdout.write("".join("# " + ln + "\n" for ln in (out.stdout + out.stderr).splitlines()[-60:]))
        if "not ok - " not in lines:
            print("not ok - pytest ran the package's tests (status %d)" % out.returncode)
        sys.exit(1)


if __name__ == "__main__":
    main()
