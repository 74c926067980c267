"""A step's events are folded once (issue 23): the state a step folded for its prompts, or its
commands for the next command, is the one :meth:`Table.apply` takes, and it must be the state
the rules fold from the log, game after game."""

from __future__ import annotations

import random

import pytest

from pbem.table import Table
from pbem.table.step import Step
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH


@pytest.mark.parametrize(("game", "players"), [("lupus-in-tabula", 9)])
def test_the_state_a_table_keeps_is_the_fold_of_its_log(
    game: str, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = demo_setup(game, players, 5, "fr")
    table, step = Table.new(data, EPOCH)
    taken: list[Step] = []
    real = Table.apply

    def apply(self: Table, step: Step) -> None:
        if step.folded is not None and step.folded[0] is self.state:
            taken.append(step)
        real(self, step)

    monkeypatch.setattr(Table, "apply", apply)
    table.apply(step)
    play(table, random.Random(5))
    assert taken  # the kept fold was taken, and it is the log's own
    assert table.state == table.rules.fold(table.ruled)
    reloaded = Table.load(data, [table.rules.codec.encode(e) for e in table.events])
    assert reloaded.state == table.state
