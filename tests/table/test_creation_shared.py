"""What a game's creation shares with every other game of the process (issue 23: 1,000 games
created), each checked against what a fresh computation gives."""

from __future__ import annotations

import dataclasses
import random

from pbem.core.draws import deal_rng
from pbem.core.game import GameSpec, PlayerSpec
from pbem.core.ids import PlayerId
from pbem.core.roster import Roster
from pbem.games import GAME_IDS, game_class, rules_for
from pbem.table import Table
from pbem.table.setup import TableSetup
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH


def test_every_game_shares_one_rules_and_it_deals_as_fresh_rules_do_lup_010() -> None:
    for game in GAME_IDS:
        assert rules_for(game) is rules_for(game)
    # a game played to its end on the shared rules leaves nothing behind for the next: a
    # new game of 8 (LUP-010) sets up the events fresh rules set up, and plays the same
    played, step = Table.new(demo_setup("lupus-in-tabula", 8, 3, "fr"), EPOCH)
    played.apply(step)
    play(played, random.Random(3))
    assert played.finished and played.rules is rules_for("lupus-in-tabula")
    for game, players in (("lupus-in-tabula", 8), ("loup-garou", 0), ("dracula", 0)):
        setup = demo_setup(game, players, 4, "fr")
        shared, step = Table.new(setup, EPOCH)
        fresh = game_class(game)()
        assert shared.rules is rules_for(game) and fresh is not shared.rules
        s = shared.setup
        spec = GameSpec(s.players, s.options, s.lang, s.roles, s.leftover)
        dealt = fresh.setup(spec, EPOCH, deal_rng(s.seed, s.seed_scheme))
        assert dealt == list(step.facts)
        assert step.events == tuple(fresh.codec.encode(e) for e in dealt)


def test_a_setups_records_are_set_at_once_and_hold_what_their_fields_say() -> None:
    """A game's setup, its players, its spec and its roster are frozen records made for
    every game created or loaded: their fields are set in one go (quick_init), the same
    values."""
    setup = TableSetup.from_mapping(demo_setup("lupus-in-tabula", 8, 5, "fr"))
    spec = GameSpec(setup.players, setup.options, setup.lang)
    roster = Table(setup, rules_for(setup.game), []).roster
    for record in (setup, setup.players[0], spec, roster, roster.holders[0]):
        cls = type(record)
        assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
        assert cls.__init__.__code__.co_filename == "<string>"
        assert "_set" in cls.__init__.__code__.co_names  # one write of __dict__
        fields = [f.name for f in dataclasses.fields(cls)]
        assert list(vars(record)) == fields
        assert dataclasses.replace(record) == record
    assert setup.players[0] == PlayerSpec(PlayerId("Alice"), setup.players[0].email, "fr")
    assert roster.holders[0].spec == setup.players[0] and roster.former == {}
    assert Roster(roster.holders).former is not roster.former  # each its own default
