"""A refused command leaves no reference cycle behind (issue 23): an error held in a local
of the frame it was raised through (frame -> error -> traceback -> frame) kept that frame's
states and events until the collector ran, a third of a simulated game's CPU."""

from __future__ import annotations

import gc

import pytest

from pbem.balance.fastgame import RulesGame
from pbem.core.commands import Command
from pbem.core.errors import CommandError
from pbem.core.ids import PlayerId
from pbem.games.lupus.roles import WOLF
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH


@pytest.mark.parametrize(
    ("command", "channel"),
    [
        (Command("vote", (PlayerId("x"),)), "private"),  # LUP-617: refused by vote_refusal
        (Command("kill", (PlayerId("x"),)), "private"),  # refused by _action_refusal
    ],
)
def test_a_refused_command_is_freed_without_the_collector(command: Command, channel: str) -> None:
    game = RulesGame.new(demo_setup("lupus-in-tabula", 12, 3, "fr"))
    actor = next(p for p in game.state.order if game.state.seats[p].role != WOLF)
    target = next(p for p in game.state.order if p != actor)
    command = Command(command.verb, (target,))
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            with pytest.raises(CommandError):
                game.rules.decide(game.state, actor, command, EPOCH, channel)
        assert gc.collect() == 0
    finally:
        gc.enable()
