"""Fixtures of the tests against real servers: a fresh mail stack per test, and a daemon
started on it with a game (import them into a folder's conftest.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemon_process import Daemon, new_fake_game, write_config
from tests.support.mailstack import ADMIN, LIST, MODERATOR, PLAYERS, ListConfig, MailStack


@pytest.fixture
def stack() -> Iterator[MailStack]:
    """A real Dovecot (IMAP + LMTP) and aiosmtpd relay of its own, with the moderator, the
    admin and the players' mailboxes and the game's list (Dovecot starts in a tenth of a
    second: a test never sees another one's mail)."""
    users = [MODERATOR, ADMIN, *(f"{p}@example.test" for p in PLAYERS)]
    members = [f"{p}@example.test" for p in PLAYERS] + [MODERATOR]
    s = MailStack(users, [ListConfig(LIST, members)]).start()
    try:
        yield s
    finally:
        s.close()


@dataclass
class RunningDaemon:
    """``pbem serve`` running on the test's mail stack, with its config and data directory."""

    daemon: Daemon
    cfg: Path
    data: Path
    stack: MailStack

    def log(self) -> str:
        return self.daemon.log()


StartDaemon = Callable[..., RunningDaemon]
"""The type of the :func:`start_daemon` fixture, for the tests' signatures."""


@pytest.fixture
def start_daemon(stack: MailStack, tmp_path: Path) -> Iterator[StartDaemon]:
    """``start_daemon(players, game_id="g1", config={...}, env={...}, crash_at=None,
    **options)``: writes the
    config (``config``: the keyword arguments of :func:`write_config`), creates a fake game
    with ``options``, starts ``pbem serve``; the daemon is killed after the test if it is still
    running (a test that checks a clean stop calls ``daemon.stop()`` itself); ``crash_at``: see
    :meth:`Daemon.start`."""
    started: list[Daemon] = []

    def start(
        players: list[str],
        game_id: str = "g1",
        *,
        config: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        crash_at: str | None = None,
        **options: Any,
    ) -> RunningDaemon:
        cfg = write_config(stack, tmp_path, **(config or {}))
        new_fake_game(cfg, game_id, players, **options)
        d = Daemon(cfg).start(crash_at=crash_at, **(env or {}))
        started.append(d)
        return RunningDaemon(d, cfg, tmp_path / "data", stack)

    try:
        yield start
    finally:
        for d in started:
            d.kill()
