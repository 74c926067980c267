"""What a Dracula player may send now (``Dracula.available_verbs``, asked of every player at
every bot round, issue 23): one set object for each set of verbs, kept in a bounded table,
and always what the rules' checks work out afresh (AMB-007: an order given is final; DRA-045,
DRA-223, DRA-465: a vote, a pair, a final choice once)."""

from __future__ import annotations

import random
from typing import Any

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.core.commands import Command, Player, Players, Text, Word
from pbem.core.ids import PlayerId
from pbem.games.dracula import rules as dracula_rules
from pbem.games.dracula.night import bite_status
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


def _trials(command: Any, names: tuple[str, ...]) -> list[Command]:
    """Every command of ``command``'s grammar with one argument each way: each name, each
    room, a short text."""
    trials = [Command(command.verb)]
    for arg in command.args:
        if isinstance(arg, Player | Players):
            trials = [Command(command.verb, (PlayerId(n),), text="x") for n in names]
        elif isinstance(arg, Word):
            trials = [Command(command.verb, (), word=w) for w in arg.choices]
        elif isinstance(arg, Text) and len(command.args) == 1:
            trials = [Command(command.verb, text="x")]
    return trials


class _Offered(RulesGame):
    """A game that checks, after every move, that a verb a player is not offered is one
    the rules refuse him with every argument."""

    refused = 0

    def close(self, key: str, now: Any) -> None:
        super().close(key, now)
        self.check(now)  # each step as it opens (every move too would cost ten times as much)

    def check(self, now: Any) -> None:
        rules, state = self.rules, self.state
        assert isinstance(rules, Dracula)
        for actor in state.order:
            offered = rules.available_verbs(state, actor)
            for command in rules.commands:
                if command.verb in offered:
                    continue
                for trial in _trials(command, state.order):
                    for channel in ("private", "list"):
                        if rules.allows(state, actor, trial, now, channel):
                            assert _moot(rules, state, actor, trial, now, channel), (
                                state.phase,
                                actor,
                                trial,
                            )
                        else:
                            self.refused += 1


def _moot(rules: Dracula, state: Any, actor: str, trial: Command, now: Any, channel: str) -> bool:
    """A command taken but rightly not offered: the room a cursed player declared already,
    declared again (a PIECE line of his post: nothing is recorded, DRA-377), or Dracula's
    abstention when he cannot bite anyone (DRA-112: alone, in the sanctuary, or nauseous)."""
    if trial.verb == "declare":
        return rules.decide(state, PlayerId(actor), trial, now, channel) == []
    return trial.verb == "abstain" and bite_status(state, PlayerId(actor)) not in ("must", "may")


def test_a_verb_not_offered_is_refused_with_every_argument() -> None:
    """Each phase's verbs (AMB-001, AMB-007, DRA-022, DRA-045, DRA-102, DRA-221, DRA-300,
    DRA-320, DRA-371, DRA-405, DRA-420, DRA-465, DRA-470): whatever a player may still
    send in a step is offered to him (his help, the bots' moves)."""
    game = _Offered.new(demo_setup("dracula", 0, 1, "fr"))
    play_rules(game, random.Random(1))
    assert game.finished
    assert game.refused > 10_000, game.refused
