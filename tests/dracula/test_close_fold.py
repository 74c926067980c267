"""A Dracula close folds its events once, as it adds them (issue 23): the state the fast path
and the table recall instead of folding the close's events again is the state a fresh fold
of those events gives, at every close of whole games. The bites close takes the resolution's
own fold of the bites and stakes (DRA-117, DRA-144 conversions, DRA-324 a staked vampire
dies), and its messages are noted without a fold (ORD-14)."""

from __future__ import annotations

import copy
from collections import Counter

from pbem.balance.fastgame import RulesGame
from pbem.core.events import Notice
from pbem.core.folded import recall
from pbem.games.dracula.events import Converted
from pbem.games.dracula.state import DraculaState, evolve, evolve_all
from pbem.tools.demo import demo_setup
from tests.support.closes import each_close


def test_every_close_recalls_the_fresh_fold_of_its_events() -> None:
    recalled: Counter[str] = Counter()
    conversions = notices = 0
    for seed in (0, 1):
        game = RulesGame.new(demo_setup("dracula", 0, seed, "fr"))
        for key, before, events in each_close(game, seed):
            known = recall(events, before)
            assert known is not None, key  # the whole close was traced
            assert known == game.rules.fold(events, before), key
            recalled[key] += 1
            if key == "bites":
                conversions += sum(type(e) is Converted for e in events)
                notices += sum(type(e) is Notice for e in events)
        assert game.finished
    assert recalled["bites"] >= 20 and recalled["day"] >= 20 and recalled["rooms"] >= 20
    assert conversions > 0 and notices > 0


def test_a_close_folded_at_once_is_its_events_folded_one_by_one() -> None:
    """A close's events folded at once (``evolve_all``: one new state for them all, issue 23)
    give the state their fold one by one gives, and leave the state they start from as it
    was, at every close of whole games (the bites close's conversions, ORD-13, and dawn's
    objects, ORD-16, ORD-17, among them)."""
    closes = 0
    for seed in (0, 1):
        game = RulesGame.new(demo_setup("dracula", 0, seed, "fr"))
        for key, before, events in each_close(game, seed):
            as_it_was = copy.deepcopy(before)
            one_by_one = before
            for event in events:
                one_by_one = evolve(one_by_one, event)
            assert evolve_all(before, events) == one_by_one, key
            assert before == as_it_was, key
            closes += 1
    assert closes > 100


def test_the_setup_is_folded_once() -> None:
    """A game's setup (DRA-006, DRA-007: the opening and the first round's deal) is folded
    once, as the rules build it from the one state before any event: the fast path takes
    that state rather than folding the setup's events again, and it is their fresh fold."""
    game = RulesGame.new(demo_setup("dracula", 0, 0, "fr"))
    rules = game.rules
    assert rules.new_state() is rules.new_state()
    assert recall(game.ruled, rules.new_state()) is game.state
    assert game.state == rules.fold(game.ruled) == rules.fold(game.ruled, DraculaState())
