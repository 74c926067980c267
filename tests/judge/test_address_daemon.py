"""Issue 25 item 4, a new address end to end: the real daemon, Dovecot and SMTP, the list
relayed by the daemon. A seat asks ``ADDRESS`` from its registered address, the code reaches the
new mailbox, a plain Reply confirms it; then a command from the new address is applied, the old
address is refused, the game master is told, and the relayed list writes to the new address
(the dawn's result post), never to the old one."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.adapters.store import GameStore
from pbem.table import Table
from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import Daemon, mail, send, wait_for, write_config
from tests.support.mailparts import text_of
from tests.support.mailstack import ADMIN, DOMAIN, LIST, MODERATOR, PLAYERS, MailStack

CAROL, NEW = f"carol@{DOMAIN}", f"carol.new@{DOMAIN}"
ROLES = ["werewolf", "werewolf", "seer", "villager", "villager", "villager", "villager", "villager"]


@pytest.fixture
def relay_stack() -> Iterator[MailStack]:
    """No list server (the daemon is the list: its address lands in the moderator's INBOX),
    and a mailbox for carol's new address."""
    users = [MODERATOR, ADMIN, *(f"{p}@{DOMAIN}" for p in PLAYERS), NEW]
    s = MailStack(users, aliases={LIST: MODERATOR}).start()
    try:
        yield s
    finally:
        s.close()


def _texts(stack: MailStack, who: str) -> list[tuple[EmailMessage, str]]:
    return [(m, f"{m['Subject']}\n{text_of(m)}") for m in stack.messages(who)]


def _has(stack: MailStack, who: str, words: str) -> bool:
    return any(words in text for _m, text in _texts(stack, who))


def _public(stack: MailStack, who: str) -> list[EmailMessage]:
    """The game's public posts ``who`` received (the relayed list's: To the list)."""
    return [m for m in stack.messages(who) if LIST in str(m["To"])]


@pytest.mark.slow(16)
def test_a_confirmed_new_address_plays_the_old_is_refused_and_the_relayed_list_follows(
    relay_stack: MailStack, tmp_path: Path
) -> None:
    stack = relay_stack
    cfg = write_config(stack, tmp_path, engine="pbem.table:Table", list_mode="relay")
    setup = {
        "game": "lupus-in-tabula",
        "seed": 3,
        "lang": "en",
        "players": [{"name": p, "email": f"{p}@{DOMAIN}"} for p in PLAYERS],
        "roles": dict(zip(PLAYERS, ROLES, strict=True)),
        "list": LIST,
        "admins": [ADMIN],
    }
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    r = pbem_in_process(cfg, "new-game", "--setup", str(tmp_path / "setup.json"), "--id", "g1")
    assert r.returncode == 0, r.stderr
    d = Daemon(cfg).start()
    try:
        wait_for(
            lambda: (
                _has(stack, CAROL, "carol, you are")
                and all(_public(stack, who) for who in (CAROL, f"dave@{DOMAIN}"))
            ),
            what="carol's card and the opening post",
            log=d.log,
        )
        send(stack, mail(CAROL, f"ADDRESS {NEW}", subject="[g1]"))
        code_mail = wait_for(
            lambda: next((m for m, t in _texts(stack, NEW) if "ADDRESS " in t), None),
            what="the code at the new address",
            log=d.log,
        )
        subject = str(code_mail["Subject"])
        assert re.search(r"ADDRESS [0-9a-f]{32}: confirm your new address", subject)
        assert str(code_mail["Reply-To"]) == f"moderator+g1@{DOMAIN}"
        # a plain Reply from the new mailbox: to the Reply-To, Subject "Re: ...", a thank-you
        reply = mail(NEW, "Thanks!", to=str(code_mail["Reply-To"]), subject=f"Re: {subject}")
        reply["In-Reply-To"] = str(code_mail["Message-ID"])
        send(stack, reply)
        wait_for(lambda: _has(stack, NEW, "Done: in"), what="the confirmation", log=d.log)
        wait_for(
            lambda: _has(stack, CAROL, "is played from another address"),
            what="the old address told",
            log=d.log,
        )
        wait_for(lambda: _has(stack, ADMIN, "moves to a new address"), what="GM told", log=d.log)

        # the new address plays (no game tag: the daemon finds its game by its sender)
        send(stack, mail(NEW, "SCAN alice"))
        wait_for(lambda: _has(stack, NEW, "✓ SCAN alice"), what="the new address's scan", log=d.log)
        send(stack, mail(CAROL, "SCAN bob"))
        wait_for(
            lambda: _has(stack, CAROL, "no longer plays in this game"),
            what="the old address refused",
            log=d.log,
        )
        gs = GameStore(tmp_path / "data" / "games" / "g1", readonly=True)
        table = Table.load(gs.setup, gs.events())
        assert table.player_emails["carol"] == NEW

        # the relayed list: the night's result post reaches the new address, not the old
        before = {who: len(_public(stack, who)) for who in (CAROL, NEW, f"dave@{DOMAIN}")}
        assert before[NEW] == 0 and before[CAROL] == before[f"dave@{DOMAIN}"] > 0
        r = pbem_in_process(cfg, "admin", "g1", "CLOSE")
        assert r.returncode == 0, r.stderr
        wait_for(
            lambda: (
                len(_public(stack, f"dave@{DOMAIN}")) > before[f"dave@{DOMAIN}"]
                and _public(stack, NEW)
            ),
            what="the dawn post relayed to the members",
            log=d.log,
        )
        assert len(_public(stack, CAROL)) == before[CAROL]
        # the game master's ADDRESS from the shell is checked at once, as `pbem seat replace`
        r = pbem_in_process(cfg, "admin", "g1", "ADDRESS", "dave", NEW)
        assert r.returncode != 0 and "already plays in this game (carol's seat)" in r.stderr
        assert d.stop() == 0
    finally:
        d.kill()
