"""Replies that change nothing, to registered players, through the real daemon (issue 10
item 7): HELP, STATUS and rejections are answered with a burst, then a slower pace, and the
reply that spends the last one says so.

Real Dovecot + aiosmtpd, ``pbem serve`` with the fake engine (a mail without a ``CMD`` line is
answered ``error: no command``, as a rejection or a STATUS is: no event).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    wait_for,
    write_config,
)
from tests.support.mailstack import MODERATOR, MailStack


def replies(stack: MailStack, user: str) -> list[str]:
    return [
        str(m.get_body(("plain",)).get_content())
        for m in stack.messages(user)
        if str(m["Subject"]).startswith("Re:")
    ]


def test_registered_player_gets_a_burst_of_replies_then_the_limit_said(
    stack: MailStack, tmp_path: Path
) -> None:
    """Four mails that change nothing from alice with a burst of 3: three answers, the third
    saying it is the last one for now; the fourth is not answered. Before: the one-per-hour
    error limit answered the first only, and silently."""
    cfg = write_config(
        stack,
        tmp_path,
        extra_daemon="reply_burst = 3\nreplies_per_hour = 1",
        extra_smtp="coalesce_replies = false",
    )
    new_fake_game(cfg, "g1", ["alice", "bob"])
    d = Daemon(cfg).start()
    try:
        for n in range(4):
            stack.inject(mail("alice@example.test", f"STATUS {n} please\n").as_bytes(), MODERATOR)
        stack.inject(mail("bob@example.test", "CMD sentinel\n").as_bytes(), MODERATOR)
        data = tmp_path / "data"
        wait_for(
            lambda: any(e.get("word") == "sentinel" for e in game_state(data, "g1")[0]), log=d.log
        )
        wait_for(lambda: replies(stack, "bob@example.test"), what="bob's receipt", log=d.log)
        got = wait_for(
            lambda: (
                len(replies(stack, "alice@example.test")) >= 3
                and replies(stack, "alice@example.test")
            ),
            what="alice's replies",
            log=d.log,
        )
        assert len(got) == 3, got
        # the fake engine's players read French
        assert sum("dernière réponse automatique" in r for r in got) == 1, got
    finally:
        d.stop()


def test_forged_mail_does_not_spend_the_real_players_replies(
    stack: MailStack, tmp_path: Path
) -> None:
    """With secret codes, three forged mails in alice's name (no code) get their notices to
    her registered address, and her own next mail that changes nothing is still answered.
    Before: the first notice spent the one error reply of the hour; her mail got silence."""
    cfg = write_config(
        stack,
        tmp_path,
        auth='[auth]\nmethods = ["registered", "secret"]',
        extra_smtp="coalesce_replies = false",
    )
    setup = {
        "game": "fake",
        "game_id": "g1",
        "players": [{"name": p, "email": f"{p}@example.test"} for p in ("alice", "bob")],
    }
    (tmp_path / "s.json").write_text(json.dumps(setup))
    r = pbem_in_process(
        cfg, "new-game", "--setup", str(tmp_path / "s.json"), "--id", "g1", "--secrets"
    )
    assert r.returncode == 0, r.stderr
    codes = dict(re.findall(r"secret code for (\w+): (\w+)", r.stdout))
    d = Daemon(cfg).start()
    try:
        for n in range(3):
            forged = mail("alice@example.test", f"CMD forged{n}\n", subject=f"forged {n}")
            stack.inject(forged.as_bytes(), MODERATOR, sender="mallory@evil.test")
        own = mail("alice@example.test", f"SECRET {codes['alice']}\nSTATUS\n", subject="mine")
        stack.inject(own.as_bytes(), MODERATOR)
        wait_for(
            lambda: [m for m in stack.messages("alice@example.test") if m["Subject"] == "Re: mine"],
            what="the answer to her own mail",
            log=d.log,
        )
        events, _ = game_state(tmp_path / "data", "g1")
        assert not [e for e in events if e.get("type") == "cmd"]
    finally:
        d.stop()
