"""The daemon tests run against a real Dovecot: refuse to start without one, and clean the
instances a killed test session left behind (tests/support/mailstack.py)."""

from __future__ import annotations

import shutil

import pytest

from tests.support.fixtures import stack, start_daemon
from tests.support.mailstack import cleanup_stale

__all__ = ["stack", "start_daemon"]


def pytest_sessionstart(session: pytest.Session) -> None:
    if shutil.which("dovecot") is None:
        raise pytest.UsageError(
            "dovecot is not installed: the daemon tests run against a real Dovecot. "
            "Run scripts/install-mailstack.sh (make test does it)."
        )
    cleanup_stale()
