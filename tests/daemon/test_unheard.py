"""Forgiveness's causes as the daemon meets them (issue 25 item 2), in process with the real
engine: each writes an ``Unheard`` event in the game's log, committed and in the table; and an
absent seat gets no reminder."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.adapters.imap import Fetched
from pbem.adapters.store import GameStore
from pbem.cli.newgame import create_game
from pbem.core.events import AbsenceDeclared, Unheard
from pbem.core.ids import PlayerId
from pbem.daemon.config import AuthConfig
from pbem.daemon.service import Service
from pbem.table import Table
from tests.daemon.test_bounce import dsn
from tests.support.inproc_daemon import World, mail
from tests.support.mailstack import LIST, MODERATOR, PLAYERS

ALICE = "alice@example.test"


def lupus_setup() -> dict[str, Any]:
    names = [p.capitalize() for p in PLAYERS]
    roles = {n: "villager" for n in names} | {"Alice": "seer", "Bob": "werewolf"}
    roles["Carol"] = "werewolf"
    return {
        "game": "lupus-in-tabula",
        "game_id": "village1",
        "lang": "en",
        "players": [{"name": n, "email": f"{n.lower()}@example.test"} for n in names],
        "roles": roles,
        "list": LIST,
        "moderator": MODERATOR,
    }


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[World, Service]]:
    world = World(tmp_path, engine=Table)
    create_game(world.cfg, lupus_setup(), world.engine, world.now)
    svc = world.start()
    try:
        yield world, svc
    finally:
        world.close()


def unheard(svc: Service, world: World) -> list[tuple[str, str]]:
    """The causes noted, in the table and in the committed log alike."""
    table = [
        (e.seat, e.cause) for e in svc.games["village1"].table.events if isinstance(e, Unheard)
    ]
    stored = GameStore(world.cfg.data_dir / "games" / "village1", readonly=True)
    kept = [(e["seat"], e["cause"]) for e in stored.events() if e["type"] == "Unheard"]
    assert table == kept
    return table


def test_a_hard_bounce_to_a_player_is_noted(running: tuple[World, Service]) -> None:
    world, svc = running
    raw = dsn(1, to=svc.cfg.bounce, final=ALICE)
    assert svc.bounces.handle("bounce-1", raw, {"at": world.now.isoformat()}, world.now)
    assert unheard(svc, world) == [("Alice", "bounce")]


def test_a_held_mail_of_a_player_is_noted(running: tuple[World, Service]) -> None:
    world, svc = running
    raw = f"From: {ALICE}\r\nTo: {MODERATOR}\r\nSubject: VOTE Bob\r\n\r\nSCAN Bob\r\n".encode()
    rows, told = svc.crashloop.held_notice("held-1", raw, {"crashes": 1}, world.now)
    assert told and rows
    assert unheard(svc, world) == [("Alice", "held")]


def test_a_mail_too_large_to_read_is_noted(running: tuple[World, Service]) -> None:
    world, svc = running
    header = f"From: {ALICE}\r\nTo: {MODERATOR}\r\nSubject: orders\r\n\r\n".encode()
    big = Fetched(1, 1, 50_000_000, world.now, None, header)
    assert svc.intake.too_big_reply(big, world.now)
    assert unheard(svc, world) == [("Alice", "oversize")]


def test_an_outage_across_a_deadline_is_noted_for_every_seat(
    running: tuple[World, Service],
) -> None:
    world, svc = running
    (due,) = svc.games["village1"].table.deadlines().values()
    world.now = due + timedelta(hours=30)
    assert svc.deadlines.extend_for_outage(world.now, timedelta(hours=30)) == 1
    assert unheard(svc, world) == [("", "outage")]
    world.now += timedelta(hours=svc.cfg.outage_grace_hours + 1)  # past the extension too
    assert svc.deadlines.extend_for_outage(world.now, timedelta(hours=9), clock_jump=True) == 1
    assert unheard(svc, world) == [("", "outage")]  # a clock jump lost no mail


def test_an_absent_seat_gets_no_reminder(running: tuple[World, Service]) -> None:
    _world, svc = running
    game = svc.games["village1"]
    ((key, due),) = game.table.deadlines().items()
    start = due - timedelta(days=1)
    step = game.table.step([AbsenceDeclared(PlayerId("Alice"), start, due + timedelta(days=1), 2)])
    game.store.commit(events=step.events)
    game.table.apply(step)
    assert svc.deadlines.send_reminders("village1", key, 1.0) >= 1  # the wolves
    reminded = [r["rcpts"] for r in game.store.outbox() if r["kind"] == "reminder"]
    assert reminded and [ALICE] not in reminded


def test_a_players_mail_refused_for_its_dkim_signature_is_noted(tmp_path: Path) -> None:
    world = World(tmp_path, engine=Table, auth=AuthConfig(("dkim",), "mx.example.test"))
    create_game(world.cfg, lupus_setup(), world.engine, world.now)
    svc = world.start()
    try:
        msg = mail(ALICE, "SCAN Bob\n", to=MODERATOR)  # no Authentication-Results: unsigned
        assert svc.intake.handle_fetched(world.fetched(msg)[0]) == "processed"
        assert unheard(svc, world) == [("Alice", "dkim")]
    finally:
        world.close()


def test_a_list_vote_waiting_for_its_confirmation_is_noted(tmp_path: Path) -> None:
    world = World(tmp_path, engine=Table, auth=AuthConfig(list_votes="confirm"))
    create_game(world.cfg, lupus_setup(), world.engine, world.now)
    svc = world.start()
    try:
        post = mail(ALICE, "VOTE Bob\n", to=LIST)
        post["List-Id"] = f"<{world.cfg.list_id}>"
        assert svc.intake.handle_fetched(world.fetched(post)[0]) == "processed"
        assert unheard(svc, world) == [("Alice", "confirmation")]
    finally:
        world.close()
