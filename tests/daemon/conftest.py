"""Fixtures: a real Dovecot + aiosmtpd per test, stale instances cleaned at session start."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.daemon.mailstack import DOMAIN, ListConfig, MailStack, cleanup_stale

PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")
MODERATOR = f"moderator@{DOMAIN}"
LIST = f"game@lists.{DOMAIN}"
ADMIN = f"admin@{DOMAIN}"


def pytest_sessionstart(session: pytest.Session) -> None:
    if shutil.which("dovecot") is None:
        raise pytest.UsageError(
            "dovecot is not installed: the daemon tests run against a real Dovecot. "
            "Run scripts/install-mailstack.sh (make test does it)."
        )
    cleanup_stale()


@pytest.fixture
def stack() -> Iterator[MailStack]:
    users = [MODERATOR, ADMIN, *(f"{p}@{DOMAIN}" for p in PLAYERS)]
    members = [f"{p}@{DOMAIN}" for p in PLAYERS] + [MODERATOR]
    s = MailStack(users, [ListConfig(LIST, members)]).start()
    try:
        yield s
    finally:
        s.close()
