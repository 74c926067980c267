"""The event codec: what it decodes equals what was encoded, for every event of whole games of
the four rule sets (each type's decoding is worked out once per codec: issue 23, the logs of
10,000 games decoded at start-up)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.core import events as events_module
from pbem.tools.demo import demo_setup


@pytest.mark.parametrize(
    "game", ["lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres", "dracula"]
)
def test_every_event_of_a_whole_game_decodes_to_itself(game: str) -> None:
    played = play_rules(RulesGame.new(demo_setup(game, 0, 3, "fr")), random.Random(3))
    codec = played.rules.codec
    encoded = [codec.encode(e) for e in played.events]
    assert len({e["type"] for e in encoded}) > 5
    decoded = [codec.decode(e) for e in encoded]
    assert decoded == played.events
    # each class's written-out encoder gives what reading its fields one by one gives
    for data, event in zip(encoded, played.events, strict=True):
        names = [f.name for f in dataclasses.fields(event)]
        by_field = {n: events_module._to_json(getattr(event, n)) for n in names}
        assert data == {"type": type(event).__name__, **by_field}
        assert list(data) == ["type", *names]
    assert [type(e) for e in decoded] == [type(e) for e in played.events]
    # the same values as the type-by-type reading (:func:`events._from_json`)
    for data, event in zip(encoded, decoded, strict=True):
        hints = events_module._hints(type(event))
        for name, value in data.items():
            if name != "type":
                assert getattr(event, name) == events_module._from_json(value, hints[name])


@pytest.mark.parametrize("game", ["lupus-in-tabula", "loup-garou", "dracula"])
def test_a_games_options_are_written_as_they_are_and_read_back_alike_lup_d01(game: str) -> None:
    """The options of GameCreated (LUP-D01's deck mode among them) are already in their
    stored form: the codec writes that mapping itself (not a copy, issue 23), the same JSON as
    a plain mapping's, and reads back equal options."""
    import json

    from pbem.core.events import GameCreated, JsonObject

    played = RulesGame.new(demo_setup(game, 0, 3, "fr"))
    codec = played.rules.codec
    created = next(e for e in played.events if type(e) is GameCreated)
    assert type(created.options) is JsonObject
    encoded = codec.encode(created)
    assert encoded["options"] is created.options
    plain = codec.encode(GameCreated(**{**vars(created), "options": dict(created.options)}))
    assert type(plain["options"]) is dict and plain["options"] is not created.options
    assert json.dumps(encoded) == json.dumps(plain)
    assert codec.decode(json.loads(json.dumps(encoded))) == created
