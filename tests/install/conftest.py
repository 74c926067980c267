"""Fixtures for the real install: pbem built as a packager builds it (sdist, then the wheel from
the sdist), installed into a fresh venv outside the checkout, once per session.

Everything lives under one world-traversable directory in /tmp, and the venv is made from an
interpreter every uid can run, because tests/install/test_operator_uids.py runs the installed
pbem as other uids (a pyenv Python under /root is out of their reach: the system's python3 of
the same version is used then).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.fixtures import stack  # noqa: F401  (the real Dovecot + aiosmtpd fixture)
from tests.support.mailstack import cleanup_stale
from tests.support.once_per_run import once_per_run, run_dir

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534
SKIP = (
    ".git",
    ".venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    ".pytest-tmp",
)


def pytest_sessionstart(session: pytest.Session) -> None:
    cleanup_stale()


@dataclass
class Installed:
    """The built artefacts and the venv pbem was installed into."""

    root: Path  # world-traversable: other uids use the venv and the files put here
    sdist: Path
    wheel: Path
    venv: Path
    build_log: str
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def pbem(self) -> Path:
        return self.venv / "bin" / "pbem"

    def env(self, **extra: str) -> dict[str, str]:
        """A clean environment: nothing pointing back at the checkout."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("PYTHON", "PBEM_", "VIRTUAL_ENV", "CREDENTIALS_DIRECTORY"))
            and k not in ("STATE_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC")
        }
        env["PATH"] = f"{self.venv / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin"
        env.update(extra)
        return env


def _runs_as_nobody(python: str) -> bool:
    want = f"{sys.version_info[0]}.{sys.version_info[1]}"
    try:
        r = subprocess.run(
            [
                "setpriv",
                f"--reuid={NOBODY}",
                f"--regid={NOBODY}",
                "--clear-groups",
                "--",
                "sh",  # as the tests run it (setpriv's own exec may reach what a shell's cannot)
                "-c",
                'exec "$@"',
                "sh",
                python,
                "-c",
                "import sys, venv; print('%d.%d' % sys.version_info[:2])",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except OSError:
        return False
    return r.returncode == 0 and r.stdout.strip() == want


def shared_python() -> str:
    """An interpreter of this Python version that other uids can run."""
    major, minor = sys.version_info[:2]
    base = getattr(sys, "_base_executable", sys.executable)
    for candidate in (
        base,
        f"/usr/bin/python{major}.{minor}",
        f"/usr/local/bin/python{major}.{minor}",
    ):
        if os.path.exists(candidate) and _runs_as_nobody(candidate):
            return candidate
    raise AssertionError(
        f"no Python {major}.{minor} that another uid can run (this one, {base}, is in a private "
        "directory): install the system's python3"
    )


def _run(cmd: list[str]) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{cmd}\n{r.stdout}\n{r.stderr}"
    return str(r.stdout + r.stderr)


def _build(root: Path) -> Installed:
    """Build the sdist, the wheel from it and a venv with it installed, under ``root``."""
    python = shared_python()  # first: each test that asks again then fails as the first did
    root.mkdir(exist_ok=True)
    root.chmod(0o755)
    seconds: dict[str, float] = {}
    t = time.monotonic()
    src = root / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*SKIP))
    dist = root / "dist"
    # the sdist, then the wheel built from the unpacked sdist: what a packager does, as Debian's
    # pybuild does it (`--no-isolation --skip-dependency-check`): with the dev venv's
    # setuptools, which meets [build-system] (no download, 3x faster), and without the two
    # extra hook processes that only compare it with [build-system] (~0.9 s of CPU): a
    # setuptools too old for the SPDX licence fails the build itself
    build_log = _run(
        [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            "--skip-dependency-check",
            "--outdir",
            str(dist),
            str(src),
        ]
    )
    seconds["build"] = time.monotonic() - t
    (sdist,) = dist.glob("pbem-*.tar.gz")
    (wheel,) = dist.glob("pbem-*.whl")
    t = time.monotonic()
    venv = root / "venv"
    _run([python, "-m", "venv", "--without-pip", str(venv)])
    # one pip run resolves and installs the dependencies, rather than a `pip wheel` into a
    # wheelhouse then an install from it (a second resolution, ~0.5 s of CPU); one published
    # as an sdist only, like dkimpy, is built once and then taken from pip's wheel cache.
    # Bytecode is compiled (pip's default): the other uids cannot write it into the venv, and
    # every pbem they start would compile its imports again. No version check: it asks the
    # index for advice.
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--disable-pip-version-check",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            f"{wheel}[demo]",
        ]
    )
    seconds["install"] = time.monotonic() - t
    shutil.rmtree(src)
    return Installed(root, sdist, wheel, venv, build_log, seconds)


@pytest.fixture(scope="session")
def installed() -> Iterator[Installed]:
    shared = run_dir()
    if shared is not None:
        # under pytest-xdist: built once, by the first worker that needs it, in the run's
        # directory (world-traversable; the controller removes it), used by every worker
        yield once_per_run("installed", lambda: _build(shared / "install"))
        return
    root = Path(tempfile.mkdtemp(prefix="pbem-install-"))
    try:
        yield _build(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
