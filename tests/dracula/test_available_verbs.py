"""What a Dracula player may send now (``Dracula.available_verbs``, asked of every player at
every bot round, issue 23): one set object for each set of verbs, kept in a bounded table,
and always what the rules' checks work out afresh (AMB-007: an order given is final; DRA-045,
DRA-223, DRA-465: a vote, a pair, a final choice once)."""

from __future__ import annotations

import random
from typing import Any

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.core.commands import Command
from pbem.core.game import Rules
from pbem.core.ids import PlayerId
from pbem.games.dracula import rules as dracula_rules
from pbem.games.dracula.night import bite_status
from pbem.games.dracula.rules import Dracula
from pbem.tools.demo import demo_setup
from tests.support.offered import check_game, described


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


def _moot(
    rules: Rules[Any], state: Any, actor: PlayerId, trial: Command, now: Any, channel: str
) -> bool:
    """A command taken but rightly not offered: the room a cursed player declared already,
    declared again (a PIECE line of his post: nothing is recorded, DRA-377), Dracula's
    abstention when he cannot bite anyone (DRA-112: alone, in the sanctuary, or nauseous),
    a PASSE from a player nobody awaits (CMD-16: it changes nothing, AMB-001)."""
    assert isinstance(rules, Dracula)
    if trial.verb == "declare":
        return rules.decide(state, actor, trial, now, channel) == []
    if trial.verb == "pass":
        return actor not in rules.awaiting(state) or not state.options.early_close
    return trial.verb == "abstain" and bite_status(state, actor) not in ("must", "may")


def test_a_verb_not_offered_is_refused_with_every_argument() -> None:
    """Each phase's verbs (AMB-001, AMB-007, CMD-16, DRA-022, DRA-045, DRA-102, DRA-221,
    DRA-300, DRA-311, DRA-320, DRA-371, DRA-405, DRA-420, DRA-465, DRA-470, AMB-041): at
    each step as it opens and as it closes, whatever a player may still send is offered to
    him (his help, the bots' moves), and what he is offered is taken with some argument
    (tests/support/offered.py; early_close on, so PASSE is offered to whom it concerns)."""
    counts = check_game("dracula", 2, {"early_close": True}, moot=_moot)
    assert not counts.mismatches, described(counts.mismatches)
    assert counts.steps > 80 and counts.offered > 500 and counts.refused > 300_000
