"""The quick actions' check-only entry point (issue 23): ``Rules.allows`` answers as ``decide``
for every vote, withdrawal and night action of every player, on every channel, at every step of
a bot game, without making the events (the running tally, the relays): LUP-607,
LUP-617..LUP-620, LUP-408, LUP-D18, LUP-D22; LUP-380, LUP-610, LUP-611, LUP-616, LUP-D05."""

from __future__ import annotations

import random

import pytest

from pbem.core.commands import Command
from pbem.core.errors import CommandError
from pbem.core.ids import PlayerId
from pbem.games.lupus.roles import NIGHT_VERBS
from pbem.table import Step, Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH


@pytest.mark.parametrize("options", [{}, {"seer_result_timing": "immediate"}])
def test_allows_agrees_with_decide_on_every_vote_and_night_action_of_a_game(
    options: dict[str, str],
) -> None:
    """LUP-D04: with immediate probes, a probe once made is final (already_final) for both."""
    data = {**demo_setup("lupus-in-tabula", 8, 4, "fr"), "options": options}
    table, opening = Table.new(data, EPOCH)
    table.apply(opening)
    rules, checked, taken = table.rules, 0, 0
    names = [PlayerId(n) for n in rules.names(table.state)]

    original = table.apply

    def check(step: Step) -> None:
        nonlocal checked, taken
        original(step)
        state, now = table.state, max(table.deadlines().values(), default=EPOCH)
        for actor in names:
            verbs = ("vote", *NIGHT_VERBS)
            targeted = [Command(v, (t,)) for v in verbs for t in names]
            for command in [Command("unvote"), *targeted]:
                for channel in ("list", "private"):
                    try:
                        rules.decide(state, actor, command, now, channel)
                        expected = True
                    except CommandError:
                        expected = False
                    assert rules.allows(state, actor, command, now, channel) is expected
                    checked += 1
                    taken += expected

    table.apply = check  # type: ignore[method-assign]
    try:
        play(table, random.Random(4))
    finally:
        table.apply = original  # type: ignore[method-assign]
    assert taken and checked > taken  # both verdicts were met
