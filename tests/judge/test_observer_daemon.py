"""Observers and the graveyard end to end (issue 25, item 5): the real daemon relaying the list,
real Dovecot and SMTP. A stranger's SPECTATE waits for the game master, ``pbem admin GAME
OBSERVERS ACCEPT`` lets him in; he then gets the public results, his own list post is refused;
a player killed at night is welcomed to the graveyard, and his post there reaches the dead, the
observer and the game master but no living player (LUP-005), whose own post there is refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import Daemon, close_phase, mail, send, wait_for, write_config
from tests.support.mailparts import text_of
from tests.support.mailstack import ADMIN, DOMAIN, LIST, MODERATOR, PLAYERS, MailStack

ZOE = f"zoe@{DOMAIN}"
GRAVE = LIST.replace("@", "+cimetiere@")
ROLES = ["werewolf", "werewolf", "seer", "villager", "villager", "villager", "villager", "villager"]


@pytest.fixture
def grave_stack() -> Iterator[MailStack]:
    """No list server: the list and its graveyard land in the moderator's INBOX."""
    users = [MODERATOR, ADMIN, ZOE, *(f"{p}@{DOMAIN}" for p in PLAYERS)]
    s = MailStack(users, aliases={LIST: MODERATOR, GRAVE: MODERATOR}).start()
    try:
        yield s
    finally:
        s.close()


def _texts(stack: MailStack, who: str) -> list[tuple[EmailMessage, str]]:
    return [(m, str(text_of(m))) for m in stack.messages(who)]


def _has(stack: MailStack, who: str, words: str) -> bool:
    return any(words in t for _m, t in _texts(stack, who))


@pytest.mark.slow(15)
def test_an_observer_reads_the_list_and_the_graveyard_keeps_the_living_out(
    grave_stack: MailStack, tmp_path: Path
) -> None:
    stack = grave_stack
    cfg = write_config(stack, tmp_path, engine="pbem.table:Table", list_mode="relay")
    text = cfg.read_text().replace('mode = "relay"', 'mode = "relay"\ngraveyard = true', 1)
    cfg.write_text(text)
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
        send(stack, mail(ZOE, "SPECTATE", subject="[g1]"))
        wait_for(
            lambda: _has(stack, ADMIN, "OBSERVERS ACCEPT zoe@example.test"),
            what="the request to the game master",
            log=d.log,
        )
        r = pbem_in_process(cfg, "admin", "g1", f"OBSERVERS ACCEPT {ZOE}")
        assert r.returncode == 0, r.stderr
        wait_for(lambda: _has(stack, ZOE, "accepts your request"), what="accepted", log=d.log)
        wait_for(lambda: _has(stack, ZOE, GRAVE), what="the graveyard's welcome", log=d.log)
        # night 1: the wolves kill dave; the dawn's result reaches the observer as the list
        send(
            stack,
            mail(f"alice@{DOMAIN}", "KILL dave", subject="[g1]"),
            mail(f"bob@{DOMAIN}", "KILL dave", subject="[g1]"),
        )
        wait_for(lambda: _has(stack, f"bob@{DOMAIN}", "✓ KILL dave"), what="kills", log=d.log)
        close_phase(cfg, "g1")
        wait_for(
            lambda: any(m["List-Id"] and "dave" in t for m, t in _texts(stack, ZOE)),
            what="the dawn's result to the observer",
            log=d.log,
        )
        wait_for(lambda: _has(stack, f"dave@{DOMAIN}", GRAVE), what="dave welcomed", log=d.log)
        send(
            stack,
            mail(ZOE, "I bet carol is the seer", to=LIST, subject="[g1] chat"),
            mail(f"carol@{DOMAIN}", "Hello dead people", to=GRAVE, subject="[g1] chat"),
            mail(f"dave@{DOMAIN}", "Erin, they got me: alice is a wolf", to=GRAVE, subject="[g1]"),
        )
        wait_for(
            lambda: _has(stack, ZOE, "alice is a wolf") and _has(stack, ADMIN, "alice is a wolf"),
            what="the graveyard post relayed to the observer and the game master",
            log=d.log,
        )
        wait_for(lambda: _has(stack, ZOE, "never writes to it"), what="zoe refused", log=d.log)
        wait_for(
            lambda: _has(stack, f"carol@{DOMAIN}", "a living player cannot write there"),
            what="carol refused",
            log=d.log,
        )
        assert _has(stack, f"dave@{DOMAIN}", "alice is a wolf")
        copy = next(m for m, t in _texts(stack, ZOE) if "alice is a wolf" in t)
        assert str(copy["From"]).startswith("dave via g1") and GRAVE in str(copy["From"])
        for p in PLAYERS:  # the living never see the graveyard, nor the observer's post
            if p != "dave":
                assert not _has(stack, f"{p}@{DOMAIN}", "alice is a wolf"), p
            assert not _has(stack, f"{p}@{DOMAIN}", "carol is the seer"), p
            assert not _has(stack, f"{p}@{DOMAIN}", "Hello dead people") or p == "carol", p
        assert d.stop() == 0
    finally:
        d.kill()
