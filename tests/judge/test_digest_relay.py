"""The digest when the daemon is the list (issue 25 item 6, ``[list] mode = relay``): a post
it relays is kept for the digest's readers instead of copied to them, then told in their
digest, with the game's own posts; in process, on a real game store, no mail server."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from pbem.adapters.store import GameStore
from pbem.cli.newgame import create_game
from pbem.table import Table
from tests.support.daemon_process import mail
from tests.support.inproc_daemon import World
from tests.support.mailparts import text_of
from tests.support.mailstack import LIST

PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")


def _rows(world: World, kind: str) -> list[dict[str, Any]]:
    store = GameStore(world.cfg.data_dir / "games" / "g1", readonly=True)
    return [r for r in store.outbox() if r.get("kind") == kind]


def _text(row: dict[str, Any]) -> str:
    msg = email.message_from_bytes(row["raw"].encode("latin-1"), policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return str(msg["Subject"]) + "\n" + str(text_of(msg))


def _feed(world: World, *msgs: EmailMessage) -> None:
    assert world.svc is not None
    assert set(world.svc.writer.handle_batch(world.fetched(*msgs)).values()) == {"processed"}


def test_a_relayed_post_is_kept_for_the_digest_reader_and_told_in_his_digest(
    tmp_path: Path,
) -> None:
    """LUP-004: day 1's debate is the list's; dave reads a digest: erin's post reaches the
    others at once, dave in his digest, after the dawn's post; its copy is released then."""
    world = World(tmp_path, engine=Table, list_mode="relay")
    roles = dict.fromkeys(PLAYERS, "villager") | {"alice": "werewolf", "bob": "werewolf"}
    roles["carol"] = "seer"
    setup = {
        "game": "lupus-in-tabula",
        "game_id": "g1",
        "lang": "en",
        "seed": 1,
        "players": [{"name": p, "email": f"{p}@example.test"} for p in PLAYERS],
        "roles": roles,
        "list": LIST,
    }
    create_game(world.cfg, setup, Table, world.now)
    svc = world.start()
    try:
        _feed(world, mail("dave@example.test", "DIGEST ON\n", to="moderator+g1@example.test"))
        night = svc.games["g1"].table.deadlines()["night"]
        world.now = night
        assert svc.deadlines.resolve("g1", "night", night)
        _feed(world, mail("erin@example.test", "I suspect alice, frankly.\n", to=LIST))
        (relayed,) = _rows(world, "relay")
        assert "dave@example.test" not in relayed["rcpts"]
        assert "frank@example.test" in relayed["rcpts"]
        store = GameStore(world.cfg.data_dir / "games" / "g1", readonly=True)
        assert [h["kind"] for h in store.held_entries()] == ["digest"]
        assert svc.digests.send("g1", world.now) == 1
        (digest,) = [r for r in _rows(world, "reply") if "Digest of" in _text(r)]
        assert digest["rcpts"] == ["dave@example.test"]
        told = _text(digest)
        assert "erin: " in told and "I suspect alice, frankly." in told
        assert told.index("Day 1: dawn") < told.index("I suspect alice")
        store = GameStore(world.cfg.data_dir / "games" / "g1", readonly=True)
        assert store.held_entries() == []
        assert svc.digests.send("g1", world.now) == 0  # once a day
    finally:
        world.close()
