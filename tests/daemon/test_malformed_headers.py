"""Issue 10, item 8: mail the email library cannot parse (``Message-ID: <>``, ``From: frank@``)
is data, not a poison mail: the daemon answers what can be answered, shunts nothing.

Before, reading those headers raised IndexError inside the table: the mail was shunted, then
quarantined after three tries, and the player was never answered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.adapters.imap import Fetched
from pbem.adapters.store import GameStore
from pbem.cli.newgame import create_game
from pbem.table import Table
from tests.support.inproc_daemon import World
from tests.support.mailstack import LIST, MODERATOR

PLAYERS = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hugo"]
ROLES = {"alice": "werewolf", "bob": "werewolf", "carol": "seer"}


def lupus_world(tmp_path: Path) -> World:
    world = World(tmp_path, engine=Table)
    setup: dict[str, Any] = {
        "game": "lupus-in-tabula",
        "game_id": "g1",
        "lang": "en",
        "players": [{"name": p, "email": f"{p}@example.test"} for p in PLAYERS],
        "roles": {p: ROLES.get(p, "villager") for p in PLAYERS},
        "list": LIST,
        "moderator": MODERATOR,
    }
    create_game(world.cfg, setup, Table, world.now)
    return world


def raw(sender: str, message_id: str, body: str) -> bytes:
    return (
        f"From: {sender}\r\nTo: moderator+g1@example.test\r\nSubject: orders\r\n"
        f"Message-ID: {message_id}\r\nDate: Sun, 29 Nov 2026 12:00:00 +0000\r\n\r\n{body}\r\n"
    ).encode()


def test_malformed_headers_are_answered_never_shunted(tmp_path: Path) -> None:
    world = lupus_world(tmp_path)
    try:
        svc = world.start()
        mails = [
            raw("alice@example.test", "<>", "KILL dave"),  # empty Message-ID: answered
            raw("frank@", "<frank-1@example.test>", "KILL dave"),  # no domain: nobody's
            raw("", "<<>>", "KILL dave"),  # no From at all, a nested Message-ID
        ]
        fetched = [Fetched(i, 1, len(m), world.now, m) for i, m in enumerate(mails, 1)]
        assert [svc.intake.handle_fetched(f) for f in fetched] == ["processed"] * 3
        assert not world.daemon_store().shunt_rows()
        game = GameStore(world.cfg.data_dir / "games" / "g1", readonly=True)
        kills = [e for e in game.events() if e.get("verb") == "kill"]
        assert [e["actor"] for e in kills] == ["alice"]  # only the registered player's
        rcpts = [r for row in game.outbox() for r in row["rcpts"]]
        assert "alice@example.test" in rcpts
        assert not [r for r in rcpts if "@" not in r or r.endswith("@")]
        reply = next(row for row in game.outbox() if row["rcpts"] == ["alice@example.test"])
        assert b"In-Reply-To: <>" not in str(reply["raw"]).encode("latin-1")
    finally:
        world.close()
