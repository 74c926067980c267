"""The real daemon process against real servers: routing, replies, deadlines, hygiene, SIGTERM."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    send,
    wait_for,
    write_config,
)
from tests.support.mailparts import text_of
from tests.support.mailstack import MODERATOR, MailStack

A, B = "alice@example.test", "bob@example.test"


def _cmds(data: Path, gid: str) -> list[tuple[str, str]]:
    return [(e["player"], e["word"]) for e in game_state(data, gid)[0] if e["type"] == "cmd"]


def test_commands_replies_deadline_and_sigterm(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path)
    # one phase: its result is the last list post, so no new echo reaches the INBOX after the
    # one waited for below (a phase every 3 s left one arriving after the stop on a busy machine)
    new_fake_game(cfg, "g1", ["alice", "bob"], phase_minutes=0.05, phases=1)
    d = Daemon(cfg).start()
    try:
        send(
            stack,
            mail(A, "CMD one\nCMD two"),
            mail(B, "CMD three", to="moderator+g1@example.test"),
            mail(A, "bonjour", subject="nothing"),
        )
        data = tmp_path / "data"
        wait_for(lambda: len(_cmds(data, "g1")) == 3, what="3 commands", log=d.log)

        def private() -> list[EmailMessage]:
            return [m for m in stack.messages(A) if m["List-Id"] is None]

        def both() -> list[EmailMessage]:
            text = "".join(text_of(m) for m in private())
            done = "accepted: one two" in text and "error: no command" in text
            return private() if done else []

        # two replies, or one digest of both when they were queued together (coalescing)
        replies = wait_for(both, log=d.log)
        assert all(m["Auto-Submitted"] == "auto-replied" for m in replies)
        assert all(m["In-Reply-To"] for m in replies)
        # the phase deadline (3 s) resolves and the result goes to the list
        wait_for(
            lambda: any("phase 1 result" in str(m["Subject"]) for m in stack.messages(A)),
            what="phase result on the list",
            log=d.log,
        )
        # our own list echo came back to the moderator and was not parsed
        wait_for(
            lambda: (
                any(
                    "phase 1 result" in str(m["Subject"])
                    for m in stack.messages(MODERATOR, "Processed")
                )
                and not stack.messages(MODERATOR)
            ),
            what="the list echo moved to Processed",
            log=d.log,
        )
        assert d.stop() == 0
    finally:
        d.kill()
    assert len(_cmds(data, "g1")) == 3
    assert stack.messages(MODERATOR) == []  # everything moved out of INBOX
    st = pbem_in_process(cfg, "status", "--json")
    assert st.returncode == 2 and '"g1"' in st.stdout  # 2: the daemon is stopped (issue 21)


@pytest.mark.slow(28)
def test_reminders_go_to_players_who_have_not_acted(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path)
    with cfg.open("a") as f:
        f.write("\n[phases]\nreminders_hours = [0.01]\n")  # 36 s before the deadline
    # deadline in 60 s, its reminder 24 s after the creation: a reminder whose time passed
    # before the daemon armed it is never sent, and a busy machine may take many seconds to
    # start the daemon (7.8 s was not always enough); the next phase's reminder comes 84 s
    # after the creation, long after the restart below
    new_fake_game(cfg, "g1", ["alice", "bob"], phase_minutes=1)
    # alice's order waits in the mailbox: the start-up drain applies it before the reminders
    # are armed, however long the start takes on a busy machine
    send(stack, mail(A, "CMD acted"))
    d = Daemon(cfg).start()
    try:

        def reminders(user: str) -> list[EmailMessage]:
            return [m for m in stack.messages(user) if "Rappel" in str(m["Subject"])]  # fr

        wait_for(lambda: reminders(B), what="bob's reminder", log=d.log)
        assert not reminders(A), "alice acted: no reminder"
        assert d.stop() == 0
        d.start()  # a restart does not send it again
        d.wait_ready()
        assert d.stop() == 0  # graceful: its outbox was drained
        assert len(reminders(B)) == 1
    finally:
        d.kill()


def test_sigterm_mid_burst_is_graceful_and_loses_nothing(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path, extra_daemon="group_commit = 5")
    new_fake_game(cfg, "g1", ["alice", "bob"])
    data = tmp_path / "data"
    burst = [mail(A if i % 2 else B, f"CMD s{i}") for i in range(80)]
    for m in burst:
        stack.inject(bytes(m), MODERATOR, sender=str(m["From"]))
    d = Daemon(cfg).start()
    try:
        wait_for(lambda: _cmds(data, "g1"), what="processing started", log=d.log)
        assert d.stop() == 0, d.log()  # SIGTERM: the item in hand is finished, then exit 0
        done = len(_cmds(data, "g1"))
        d.start()
        wait_for(lambda: len(_cmds(data, "g1")) == 80, what="the rest", log=d.log)
        # (the first run may have finished the burst: wait for this one to be up)
        second = cfg.parent / f"{cfg.stem}-daemon-{d.runs}.log"
        wait_for(lambda: "ready" in second.read_text(), what="second run ready", log=d.log)
        words = [w for _p, w in _cmds(data, "g1")]
        assert sorted(words) == sorted(f"s{i}" for i in range(80)), "0 lost, 0 twice"
        assert d.stop() == 0
    finally:
        d.kill()
    print(f"SIGTERM after {done} of 80 commands")


def test_a_game_created_while_the_daemon_idles_opens_within_seconds(
    stack: MailStack, tmp_path: Path
) -> None:
    """``pbem new-game`` while the IMAP loop sits in a long IDLE: the request ticker loads the
    game and mails its opening at once, not at the next IDLE renewal (10 min here)."""
    from pbem.daemon import heartbeat

    cfg = write_config(stack, tmp_path, extra_imap="idle_renew = 600")
    data = tmp_path / "data"
    d = Daemon(cfg).start()
    try:
        wait_for(
            lambda: (heartbeat.read(data) or {}).get("mailbox_ok"),
            what="the mailbox reached (the loop then idles)",
            log=d.log,
        )
        new_fake_game(cfg, "late", ["alice", "bob"])
        wait_for(
            lambda: any("phase 1 begins" in str(m["Subject"]) for m in stack.messages(A)),
            timeout=20,
            what="the new game's opening mail",
            log=d.log,
        )
    finally:
        d.stop()
