"""A game master's mail is authenticated, through the real daemon (issue 10 item 9).

Real Dovecot + aiosmtpd, ``pbem serve`` with the fake engine (each ``ADMIN <word>`` line of a
game master's private mail is one ``admin`` event; his list posts are relayed). The game is
made by ``pbem new-game --admin-secret``, which prints the game masters' code once. Before the
fix any mail merely claiming the admin's From ran admin commands (a forged APPROVE released a
held Dracula telepathy) and, in relay mode, was distributed to every player as the MJ's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import Daemon, game_state, mail, wait_for, write_config
from tests.support.mailstack import ADMIN, DOMAIN, LIST, MODERATOR, PLAYERS, MailStack

ATTACKER = "mallory@evil.test"


def new_game(cfg: Path, tmp_path: Path) -> str:
    setup = {
        "game": "fake",
        "game_id": "g1",
        "players": [{"name": p, "email": f"{p}@{DOMAIN}"} for p in ("alice", "bob")],
        "list": LIST,
        "admins": [ADMIN],
    }
    (tmp_path / "s.json").write_text(json.dumps(setup))
    r = pbem_in_process(
        cfg, "new-game", "--setup", str(tmp_path / "s.json"), "--id", "g1", "--admin-secret"
    )
    assert r.returncode == 0, r.stderr
    (code,) = re.findall(r"admin code for the game masters.*: (\w+)", r.stdout)
    return str(code)


def admin_words(data: Path) -> list[str]:
    return [e["word"] for e in game_state(data, "g1")[0] if e.get("type") == "admin"]


def refusals(stack: MailStack) -> list[str]:
    return [str(m["Subject"]) for m in stack.messages(ADMIN) if "refus" in str(m["Subject"])]


def test_forged_admin_mail_is_refused_and_the_real_admins_alerted(
    stack: MailStack, tmp_path: Path
) -> None:
    """A mail with the admin's From but without the admin code runs nothing and the real
    game masters are alerted; the same order with the code is applied, its code never echoed."""
    cfg = write_config(stack, tmp_path, extra_smtp="coalesce_replies = false")
    code = new_game(cfg, tmp_path)
    data = tmp_path / "data"
    d = Daemon(cfg).start()
    try:
        forged = mail(ADMIN, "ADMIN approve\n", subject="[g1] approve")
        stack.inject(forged.as_bytes(), MODERATOR, sender=ATTACKER)
        wrong = mail(ADMIN, "SECRET 0123456789abcdef\nADMIN wrongcode\n", subject="[g1] approve")
        stack.inject(wrong.as_bytes(), MODERATOR, sender=ATTACKER)
        real = mail(ADMIN, f"SECRET {code}\nADMIN release\n", subject="[g1] release")
        stack.inject(real.as_bytes(), MODERATOR, sender=ADMIN)
        wait_for(lambda: admin_words(data), what="the real order", log=d.log)
        assert admin_words(data) == ["release"]
        wait_for(lambda: len(refusals(stack)) == 2, what="the two alerts", log=d.log)
        replies = [m for m in stack.messages(ADMIN) if str(m["Subject"]).startswith("Re:")]
        wait_for(
            lambda: [m for m in stack.messages(ADMIN) if str(m["Subject"]) == "Re: [g1] release"],
            what="the reply to the real order",
            log=d.log,
        )
        replies = [m for m in stack.messages(ADMIN) if str(m["Subject"]).startswith("Re:")]
        assert [str(m["Subject"]) for m in replies] == ["Re: [g1] release"]  # none to forgeries
        assert all(code not in m.as_string() for m in stack.messages(ADMIN))
    finally:
        d.stop()


@pytest.fixture
def relay_stack() -> Iterator[MailStack]:
    """No list server: mail to the list address lands in the moderator's INBOX."""
    users = [MODERATOR, ADMIN, *(f"{p}@{DOMAIN}" for p in PLAYERS)]
    s = MailStack(users, aliases={LIST: MODERATOR}).start()
    try:
        yield s
    finally:
        s.close()


def test_forged_admin_post_is_not_relayed_as_the_game_masters(
    relay_stack: MailStack, tmp_path: Path
) -> None:
    """Relay mode: a forged post in the admin's name reaches no player; the real one, with
    the code, is relayed without its SECRET line."""
    stack = relay_stack
    cfg = write_config(stack, tmp_path, list_mode="relay")
    code = new_game(cfg, tmp_path)
    d = Daemon(cfg).start()
    try:
        forged = mail(ADMIN, "Forged announcement: bob is the wolf.\n", to=LIST)
        stack.inject(forged.as_bytes(), MODERATOR, sender=ATTACKER)
        real = mail(ADMIN, f"SECRET {code}\nReal announcement.\n", to=LIST)
        stack.inject(real.as_bytes(), MODERATOR, sender=ADMIN)

        def copies() -> list[str]:
            return [
                m.as_string() for m in stack.messages(f"alice@{DOMAIN}") if LIST in str(m["From"])
            ]

        wait_for(lambda: any("Real announcement" in c for c in copies()), log=d.log)
        wait_for(lambda: refusals(stack), what="the alert", log=d.log)
        assert not any("Forged" in c for c in copies())
        assert not any(code in c for c in copies())
    finally:
        d.stop()
