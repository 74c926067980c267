"""Outage policy (requirement 11, F14): drain the mailbox first, counting mail by INTERNALDATE,
then resolve; or, after a long outage, extend the passed deadlines and tell the players."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.adapters.store import DaemonStore, GameStore
from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    wait_for,
    write_config,
)
from tests.support.mailstack import MODERATOR, MailStack


@pytest.mark.slow(15)
def test_mail_before_a_missed_deadline_counts_for_that_phase(
    stack: MailStack, tmp_path: Path
) -> None:
    cfg = write_config(stack, tmp_path)
    new_fake_game(cfg, "g1", ["alice", "bob"], phase_minutes=0.15)  # deadline in 9 s
    data = tmp_path / "data"
    deadline = datetime.fromisoformat(game_state(data, "g1")[0][0]["deadline"])
    time.sleep(1.5)  # INTERNALDATE has whole seconds: well inside the phase
    early = mail("alice@example.test", "CMD early")
    stack.inject(bytes(early), MODERATOR, sender="alice@example.test")
    assert datetime.now(UTC) < deadline - timedelta(seconds=1), "delivered too late"
    # the daemon is down across the deadline: the event waited for is that time
    time.sleep((deadline - datetime.now(UTC)).total_seconds() + 1.5)
    late = mail("bob@example.test", "CMD late")
    stack.inject(bytes(late), MODERATOR, sender="bob@example.test")
    d = Daemon(cfg).start()
    try:
        wait_for(
            lambda: len([e for e in game_state(data, "g1")[0] if e["type"] == "cmd"]) == 2,
            what="both commands",
            log=d.log,
        )
        events = game_state(data, "g1")[0]
        kinds = [(e["type"], e.get("word"), e.get("phase"), e.get("n")) for e in events]
        assert kinds[:4] == [
            ("phase", None, None, 1),
            ("cmd", "early", 1, None),
            ("phase", None, None, 2),
            ("cmd", "late", 2, None),
        ], kinds
        assert d.stop() == 0
    finally:
        d.kill()


def test_long_outage_extends_and_tells_players(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path, extra_daemon="outage_threshold_hours = 6")
    new_fake_game(cfg, "g1", ["alice", "bob"], phase_minutes=0.01)
    data = tmp_path / "data"
    DaemonStore(data).set_meta("last_seen", (datetime.now(UTC) - timedelta(hours=10)).isoformat())
    time.sleep(1.5)  # the deadline has passed during the "outage"
    d = Daemon(cfg).start()
    try:
        wait_for(
            lambda: any(
                "deadline extended" in str(m["Subject"]).lower()
                for m in stack.messages("alice@example.test")
            ),
            what="the extension notice",
            log=d.log,
        )
        events = game_state(data, "g1")[0]
        assert [e["type"] for e in events] == ["phase"], "not resolved"
        (rec,) = GameStore(data / "games" / "g1", readonly=True).deadline_states().values()
        ext = datetime.fromisoformat(rec["extended_to"])
        assert ext > datetime.now(UTC) + timedelta(hours=23)
        assert d.stop() == 0
    finally:
        d.kill()
