"""A reminder joins the player's private thread of the phase in play, beside the prompt it
reminds him of (issue 15), in process with the real engine."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from pbem.cli.newgame import create_game
from pbem.table import Table
from tests.support.inproc_daemon import World
from tests.support.mailstack import LIST, MODERATOR, PLAYERS


def _parsed(row: dict[str, Any]) -> EmailMessage:
    msg = email.message_from_bytes(str(row["raw"]).encode("latin-1"), policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def _text(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    return str(body.get_content()) if body is not None else ""


def test_a_reminder_is_filed_in_the_players_thread_beside_its_prompt(tmp_path: Path) -> None:
    world = World(tmp_path, engine=Table)
    names = [p.capitalize() for p in PLAYERS]
    roles = {n: "villager" for n in names} | {
        "Alice": "seer",
        "Bob": "werewolf",
        "Carol": "werewolf",
    }
    setup = {
        "game": "lupus-in-tabula",
        "game_id": "village1",
        "lang": "en",
        "players": [{"name": n, "email": f"{n.lower()}@example.test"} for n in names],
        "roles": roles,
        "list": LIST,
        "moderator": MODERATOR,
    }
    create_game(world.cfg, setup, world.engine, world.now)
    svc = world.start()
    try:
        game = svc.games["village1"]
        (key,) = game.table.deadlines()
        assert svc.deadlines.send_reminders("village1", key, 1.0) >= 1
        rows = game.store.outbox()
        prompt = next(
            _parsed(r)
            for r in rows
            if r["rcpts"] == ["alice@example.test"] and "your vision" in _text(_parsed(r))
        )
        reminder = next(
            _parsed(r)
            for r in rows
            if r["kind"] == "reminder" and r["rcpts"] == ["alice@example.test"]
        )
        assert str(reminder["Subject"]) == str(prompt["Subject"])
        assert str(prompt["Subject"]) == "[village1] Night 1 and day 1 (private)"
        root = str(prompt["References"]).split()[0]
        assert str(reminder["References"]).split() == [root]
        assert str(reminder["From"]) == f"MJ village1 <{MODERATOR}>"
        assert reminder["Reply-To"] == "moderator+village1@example.test"
        # its own title opens its text, where its Subject used to carry it
        title, rule = _text(reminder).splitlines()[:2]
        assert title == "Reminder: 18.0 h left" and rule == "=" * len(title)
    finally:
        world.close()
