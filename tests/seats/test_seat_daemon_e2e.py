"""Issue 13, substitutes, end to end: the real daemon, Dovecot and SMTP. A seat changes hands
mid-game from the shell (``pbem seat replace``) and another by the game master's mail
(``REPLACE``); each newcomer gets the seat's file and a new secret code, his command is
applied, and the old address is refused. A stranger's ``SUBSTITUTE`` puts him on the bench,
the game master is told, and the shell gives him a seat by his bench name."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.adapters.store import GameStore
from pbem.table import Table
from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import Daemon, mail, pbem, send, wait_for, write_config
from tests.support.mailstack import ADMIN, DOMAIN, LIST, MODERATOR, PLAYERS, ListConfig, MailStack

ZOE, YANN, VIC = f"zoe@{DOMAIN}", f"yann@{DOMAIN}", f"vic@{DOMAIN}"
ROLES = ["werewolf", "werewolf", "seer", "villager", "villager", "villager", "villager", "villager"]
ADMIN_CODE = "desk-code-0123456789"


@pytest.fixture
def seats_stack() -> Iterator[MailStack]:
    """The daemon tests' stack, with two newcomers' mailboxes (the external list's members
    are the game master's business: he subscribes them)."""
    players = [f"{p}@{DOMAIN}" for p in PLAYERS]
    s = MailStack(
        [MODERATOR, ADMIN, *players, ZOE, YANN, VIC],
        [ListConfig(LIST, [*players, ZOE, YANN, VIC, MODERATOR])],
    ).start()
    try:
        yield s
    finally:
        s.close()


def _table(data: Path) -> Table:
    gs = GameStore(data / "games" / "lupus1", readonly=True)
    return Table.load(gs.setup, gs.events())


def _bodies(stack: MailStack, who: str, subject: str) -> list[str]:
    return [
        m.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        for m in stack.messages(who)
        if subject in str(m["Subject"])
    ]


def _code(stack: MailStack, who: str) -> str | None:
    for body in _bodies(stack, who, ""):  # the outbox may send it in a digest
        found = re.search(r"secret code in .*?: (\S+)", body)
        if found:
            return found.group(1)
    return None


def test_substitutes_by_pbem_seat_replace_and_by_the_admins_mail(
    seats_stack: MailStack, tmp_path: Path
) -> None:
    stack = seats_stack
    (tmp_path / "admin.code").write_text(ADMIN_CODE + "\n")
    cfg = write_config(
        stack,
        tmp_path,
        engine="pbem.table:Table",
        auth='[auth]\nmethods = ["registered", "secret"]\nadmin_secret_file = "admin.code"',
    )
    setup = {
        "game": "lupus-in-tabula",
        "seed": 3,
        "lang": "en",
        "players": [{"name": p, "email": f"{p}@{DOMAIN}"} for p in PLAYERS],
        "roles": dict(zip(PLAYERS, ROLES, strict=True)),
        "list": LIST,
    }
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    r = pbem_in_process(
        cfg, "new-game", "--setup", str(tmp_path / "setup.json"), "--id", "lupus1", "--secrets"
    )
    assert r.returncode == 0, r.stderr
    data = tmp_path / "data"
    d = Daemon(cfg).start()
    try:
        wait_for(  # the role card (its Subject may be its phase's thread's)
            lambda: any("carol, you are" in b for b in _bodies(stack, "carol@example.test", "")),
            what="roles",
            log=d.log,
        )

        # from the shell: the seer's seat goes to Zoe
        r = pbem(cfg, "seat", "replace", "lupus1", "carol", ZOE, "--name", "Zoe")
        assert r.returncode == 0 and "queued for lupus1: REPLACE carol WITH" in r.stdout, r.stderr
        wait_for(lambda: _code(stack, ZOE), what="Zoe's new secret code", log=d.log)
        (packet,) = [b for b in _bodies(stack, ZOE, "") if "You take carol's place" in b]
        assert "Your role" in packet and "Seer" in packet and "SCAN" in packet
        assert _table(data).player_emails["carol"] == ZOE
        send(stack, mail(ZOE, f"SECRET {_code(stack, ZOE)}\nSCAN alice", subject="[lupus1]"))
        wait_for(
            lambda: any("✓ SCAN alice" in b for b in _bodies(stack, ZOE, "")),
            what="Zoe's probe accepted",
            log=d.log,
        )
        # no game tag: the daemon routes a replaced player's mail to his game all the same
        send(stack, mail("carol@example.test", "SCAN bob"))
        wait_for(
            lambda: any(
                "no longer plays in this game" in b
                for b in _bodies(stack, "carol@example.test", "")
            ),
            what="the old address refused",
            log=d.log,
        )

        # by the game master's mail: a wolf's seat goes to Yann
        send(
            stack,
            mail(
                ADMIN,
                f"SECRET {ADMIN_CODE}\nREPLACE alice WITH {YANN} Yann he",
                subject="[lupus1] desk",
            ),
        )
        wait_for(lambda: _code(stack, YANN), what="Yann's new secret code", log=d.log)
        (packet,) = [b for b in _bodies(stack, YANN, "") if "You take alice's place" in b]
        assert "Your role" in packet and "Werewolf" in packet
        send(stack, mail(YANN, f"SECRET {_code(stack, YANN)}\nKILL dave", subject="[lupus1]"))
        wait_for(
            lambda: any("✓ KILL dave" in b for b in _bodies(stack, YANN, "")),
            what="Yann's kill accepted",
            log=d.log,
        )
        send(stack, mail("alice@example.test", "KILL erin", subject="[lupus1]"))
        wait_for(
            lambda: any(
                "no longer plays in this game" in b
                for b in _bodies(stack, "alice@example.test", "")
            ),
            what="the old wolf refused",
            log=d.log,
        )
        table = _table(data)
        assert table.roster.shown("alice") == "Yann" and table.player_emails["alice"] == YANN

        # a stranger volunteers for the bench; the game master gives him a seat from the shell
        send(stack, mail(VIC, "SUBSTITUTE Vic", subject="[lupus1]"))
        wait_for(
            lambda: any("REPLACE name WITH Vic" in b for b in _bodies(stack, ADMIN, "")),
            what="the bench offer to the game master",
            log=d.log,
        )
        r = pbem_in_process(cfg, "seat", "replace", "lupus1", "dave", "Vic")
        assert r.returncode == 0, r.stderr
        wait_for(
            lambda: any("You take dave's place" in b for b in _bodies(stack, VIC, "")),
            what="Vic's packet",
            log=d.log,
        )
        assert _table(data).player_emails["dave"] == VIC
        assert d.stop() == 0
    finally:
        d.kill()
