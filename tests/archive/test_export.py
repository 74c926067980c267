"""The open game record (issue 24 item 3): ``pbem export GAME`` writes one versioned JSON
document, valid against docs/record-schema.json (checked by the ``jsonschema`` library)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from pbem.adapters.store import GameStore
from pbem.cli.main import main
from pbem.core.events import PlayerDied, Substituted
from pbem.record.export import game_record
from pbem.record.seed import commitment
from pbem.table import Table
from tests.archive.bot_games import GAMES, whole_game

SCHEMA = json.loads(Path("docs/record-schema.json").read_text(encoding="utf-8"))


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("game", GAMES)
def test_the_record_of_a_whole_game_validates_against_its_schema(game: str) -> None:
    table = whole_game(game, "en")
    record = json.loads(json.dumps(game_record(table), ensure_ascii=False))
    jsonschema.Draft202012Validator(SCHEMA).validate(record)
    assert record["record_version"] == 1
    assert record["seed"]["commitment"] == commitment(int(record["seed"]["value"]))
    assert record["result"]["winners"] == table.summary()["winners"]
    died = [e for e in table.events if isinstance(e, PlayerDied)]
    assert [(d["player"], d["cause"]) for d in record["deaths"]] == [
        (e.player, e.cause) for e in died
    ]
    assert len(record["events"]) == len(table.events)
    assert [p["digest"] for p in record["phases"] if p["digest"]] == [
        link["digest"] for link in record["chain"]["links"]
    ]
    assert "@village" not in json.dumps(record)  # no address in an open record


def test_a_seat_handed_over_shows_both_tenures() -> None:
    """A substitute's tenure starts where the first holder's ends (his statistics are his)."""
    table = whole_game("lupus-in-tabula", "en")
    seat = table.setup.players[0].name
    swap = Substituted(seat, seat, "alice@village.example", "Zoé", "zoe@village.example", "fr")
    handed = Table(table.setup, table.rules, [*table.events[:60], swap, *table.events[60:]])
    record = game_record(handed)
    jsonschema.Draft202012Validator(SCHEMA).validate(record)
    holders = next(c["holders"] for c in record["cast"] if c["seat"] == seat)
    assert [h["name"] for h in holders] == [seat, "Zoé"]
    assert holders[0]["until_index"] == holders[1]["from_index"] == 60
    swapped = record["events"][60]
    assert swapped["email"].startswith("sha256:") and "zoe" not in json.dumps(record)


def test_pbem_export_writes_a_finished_game_and_refuses_a_running_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = whole_game("chasse-aux-sorcieres", "en")
    root = tmp_path / "data"
    events = [done.rules.codec.encode(e) for e in done.events]
    setup = {
        "game": done.setup.game,
        "seed": done.setup.seed,
        "deal_salt": done.setup.deal_salt,
        "players": [{"name": p.name, "email": p.email} for p in done.setup.players],
    }
    GameStore.create(root, "done", {**setup, "game_id": "done"}, events, [])
    GameStore.create(root, "running", {**setup, "game_id": "running"}, events[:40], [])
    out = tmp_path / "done.json"
    assert main(["export", "done", "--data-dir", str(root), "-o", str(out)]) == 0
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(out.read_text(encoding="utf-8")))
    capsys.readouterr()
    assert main(["export", "running", "--data-dir", str(root), "-o", str(out)]) == 2
    assert "not over" in capsys.readouterr().err
    assert main(["export", "nope", "--data-dir", str(root)]) == 2


def test_every_kernel_event_is_either_an_act_or_a_request_in_the_record() -> None:
    """A new kernel event must be placed: among the game master's and server's acts, or among
    a phase's orders (a player's request); none may fall in the acts by default (issue 24)."""
    from pbem.core.events import KERNEL_EVENTS
    from pbem.record.export import ACTS, REQUESTS

    kernel = {t.__name__ for t in KERNEL_EVENTS} - {"PhaseClosed"}
    assert kernel - ACTS - REQUESTS == set()
    assert set() == ACTS & REQUESTS
