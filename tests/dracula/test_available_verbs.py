"""What a Dracula player may send now (``Dracula.available_verbs``, asked of every player at
every bot round, issue 23): one set object for each set of verbs, kept in a bounded table,
and always what the rules' checks work out afresh (AMB-007: an order given is final; DRA-045,
DRA-223, DRA-465: a vote, a pair, a final choice once)."""

from __future__ import annotations

import random
from typing import Any

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.games.dracula import rules as dracula_rules
from pbem.games.dracula.rules import Dracula
from pbem.tools.demo import demo_setup


class _Checked(RulesGame):
    """A game that checks, after every move, each player's available verbs."""

    checked = 0
    seen: dict[frozenset[str], frozenset[str]]

    def move(self, move: Any, now: Any) -> None:
        super().move(move, now)
        rules, state = self.rules, self.state
        assert isinstance(rules, Dracula)
        for actor in state.order:
            verbs = rules.available_verbs(state, actor)
            seat = state.seats[actor]
            fresh = {"help", "status"}
            if state.outcome is None and seat.alive:
                fresh.update(rules._allowed(state, actor, seat))
            assert verbs == fresh, (actor, state.phase)
            assert verbs is self.seen.setdefault(verbs, verbs), verbs  # one object a set
            self.checked += 1


def test_available_verbs_are_one_set_object_each_and_the_checks_afresh() -> None:
    for seed in (0, 3):
        game = _Checked.new(demo_setup("dracula", 0, seed, "fr"))
        game.seen = {}
        if seed == 3:  # the bounded table emptied: the sets given again are equal
            dracula_rules._VERBS.clear()
            dracula_rules._SETS.clear()
        play_rules(game, random.Random(seed))
        assert game.finished
        assert game.checked > 2000
        assert any(len(verbs) > 3 for verbs in game.seen)
