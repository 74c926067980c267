"""Issue 10 item 4: orders already in the mailbox at a deadline count for the phase they were
sent in. A scheduler-fired deadline first has the IMAP loop fetch, and applies the mail that
reached the server (INTERNALDATE) at or before it, then resolves, then applies the rest.

Measured before the fix: two orders delivered 6 s before the deadline, in polling mode, were
applied after it (refused as "only possible at night" by a real game).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    wait_for,
    write_config,
)
from tests.support.mailparts import text_of
from tests.support.mailstack import MODERATOR, MailStack

A = "alice@example.test"


@pytest.mark.slow(10)
def test_orders_in_the_mailbox_at_a_deadline_count_before_it(
    stack: MailStack, tmp_path: Path
) -> None:
    cfg = write_config(stack, tmp_path)
    # polling with a long interval: the next regular fetch is long after the deadline
    cfg.write_text(
        cfg.read_text().replace("poll_interval = 1", "poll_interval = 120\nidle = false")
    )
    data = tmp_path / "data"
    d = Daemon(cfg).start()
    try:
        wait_for(lambda: "watching the mailbox" in d.log(), what="the drain done", log=d.log)
        # the orders reach the mailbox past the start-up drain and before the game exists, so
        # before its deadline however long a busy machine takes to load the game (a game made
        # first needed a half-minute phase for that: the test's whole length); nothing reads
        # the mailbox until the deadline does (a new game is loaded by the request ticker,
        # which does not fetch)
        for who in ("alice", "bob"):
            m = mail(f"{who}@example.test", f"CMD kill-{who}")
            stack.inject(bytes(m), MODERATOR, sender=f"{who}@example.test")
        delivered = datetime.now(UTC)
        new_fake_game(cfg, "g1", ["alice", "bob"], phase_minutes=0.1)  # deadline in 6 s
        deadline = datetime.fromisoformat(game_state(data, "g1")[0][0]["deadline"])
        assert delivered < deadline
        wait_for(
            lambda: any("phase 1 begins" in str(m["Subject"]) for m in stack.messages(A)),
            what="the game loaded (its opening mail)",
            log=d.log,
        )
        wait_for(
            lambda: any(e.get("n") == 2 for e in game_state(data, "g1")[0]),
            what="the deadline resolved",
            log=d.log,
        )
        kinds = [(e["type"], e.get("word"), e.get("phase")) for e in game_state(data, "g1")[0]]
        assert sorted(kinds[1:3]) == [("cmd", "kill-alice", 1), ("cmd", "kill-bob", 1)], kinds
        assert kinds[3] == ("phase", None, None), kinds
        # the result mail counted them too
        wait_for(
            lambda: any(
                "closed with 2 commands" in str(text_of(m))
                for m in stack.messages("alice@example.test")
                if "phase 1 result" in str(m["Subject"])
            ),
            what="the phase 1 result with both orders",
            log=d.log,
        )
        assert d.stop() == 0
    finally:
        d.kill()


def test_a_deadline_is_resolved_without_the_mailbox_when_the_server_is_down(
    stack: MailStack, tmp_path: Path
) -> None:
    """The wait for the mailbox is bounded (``deadline_fetch_wait_seconds``): a game does not
    stop at a deadline because the IMAP server is down."""
    cfg = write_config(stack, tmp_path, extra_daemon="deadline_fetch_wait_seconds = 2")
    new_fake_game(cfg, "g1", ["alice", "bob"], phase_minutes=0.1)  # deadline in 6 s
    data = tmp_path / "data"
    d = Daemon(cfg).start()
    try:
        # the main loop's case: the server goes down after the start-up drain
        wait_for(lambda: "watching the mailbox" in d.log(), what="the drain done", log=d.log)
        stack.dovecot.stop()
        wait_for(
            lambda: any(e.get("n") == 2 for e in game_state(data, "g1")[0]),
            what="the deadline resolved without the mailbox",
            log=d.log,
        )
        assert "mailbox not read in time" in d.log()
        stack.dovecot.start()
        assert d.stop() == 0
    finally:
        d.kill()


def test_a_deadline_is_resolved_when_the_server_is_down_from_the_start(
    stack: MailStack, tmp_path: Path
) -> None:
    """The start-up drain is bounded too: with the IMAP server down when the daemon starts
    (or dropping during the drain), deadlines are armed after ``deadline_fetch_wait_seconds``
    and resolved without the mailbox. Before the fix they were armed only once the drain
    finished, so a game stood still for as long as the server was down (a CI failure)."""
    cfg = write_config(stack, tmp_path, extra_daemon="deadline_fetch_wait_seconds = 2")
    new_fake_game(cfg, "g1", ["alice", "bob"], phase_minutes=0.1)  # deadline in 6 s
    data = tmp_path / "data"
    stack.dovecot.stop()
    d = Daemon(cfg).start()
    try:
        wait_for(
            lambda: any(e.get("n") == 2 for e in game_state(data, "g1")[0]),
            what="the deadline resolved without the mailbox",
            log=d.log,
        )
        assert "deadlines armed without" in d.log()
        stack.dovecot.start()
        wait_for(lambda: "watching the mailbox" in d.log(), what="the drain done", log=d.log)
        assert d.stop() == 0
    finally:
        d.kill()
