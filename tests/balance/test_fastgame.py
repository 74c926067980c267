"""The rules-only fast path (pbem/balance/fastgame.py) against the mail pipeline: the same
seeds, played by the same bots through ``Table`` (mail parsed, rules, mail rendered) and
through the rules alone, end in the same state and the same rules' log, for all four games."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from pbem.balance.fastgame import RulesGame, _stamped, moves_of, play_rules
from pbem.core.commands import Command, Player
from pbem.core.errors import CommandError, PartlyRefused
from pbem.core.events import ActionSet, PhaseClosed, PlayerDied, VoteSet
from pbem.core.folded import recall
from pbem.core.game import Rules
from pbem.core.ids import PlayerId
from pbem.games.chasse.rules import ChasseAuxSorcieres
from pbem.games.loupgarou.rules import LoupGarou
from pbem.table import Table
from pbem.table.commands import stamp_votes
from pbem.tools.demo import USUAL_PLAYERS, demo_setup, play
from pbem.tools.simulate import EPOCH
from tests.support.closes import each_close

SEEDS = {"lupus-in-tabula": 4, "loup-garou": 3, "chasse-aux-sorcieres": 3, "dracula": 2}


@pytest.mark.parametrize("game", sorted(USUAL_PLAYERS))
def test_fast_path_ends_where_the_mail_path_ends(game: str) -> None:
    for seed in range(SEEDS[game]):
        table, step = Table.new(demo_setup(game, 0, seed, "fr"), EPOCH)
        table.apply(step)
        play(table, random.Random(seed))
        fast = play_rules(RulesGame.new(demo_setup(game, 0, seed, "fr")), random.Random(seed))
        assert table.finished and fast.finished
        assert fast.ruled == table.ruled, (game, seed)
        assert fast.state == table.state, (game, seed)


def test_idle_removals_are_played_on_the_fast_path() -> None:
    """With ``on_idle = "remove"`` the idle policy changes the game (a silent seat leaves):
    the fast path runs it too, and still ends where the mail path ends."""
    setup = demo_setup("lupus-in-tabula", 12, 7, "fr")
    setup["options"] = {"on_idle": "remove", "idle_act_after": 1, "idle_warn_after": 0}
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    play(table, random.Random(7))
    fast = play_rules(RulesGame.new(setup), random.Random(7))
    assert fast.idle_removes
    assert any(type(e).__name__ == "SeatRemoved" for e in fast.ruled)
    assert fast.ruled == table.ruled
    assert fast.state == table.state


EARLY = {
    "lupus-in-tabula": {"early_close": True, "early_close_day": True},  # LUP-D29
    "loup-garou": {"early_close": True, "early_close_day": True},
    "chasse-aux-sorcieres": {"early_close": True, "early_close_day": True},  # CAS-D31
    "dracula": {"early_close": True},  # AMB-001
}


@pytest.mark.parametrize("game", sorted(EARLY))
def test_early_closes_are_played_on_the_fast_path(game: str) -> None:
    """With the early-close options, a phase closes as soon as everyone has acted (LUP-D29,
    CAS-D31, AMB-001): the fast path asks ``ready_to_close`` again only when a move changed
    the state (a refused command leaves the verdict as it was), and still closes where the
    mail path closes."""
    setup = demo_setup(game, 0, 2, "fr")
    setup["options"] = EARLY[game]
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    play(table, random.Random(2))
    fast = play_rules(RulesGame.new(setup), random.Random(2))
    # a deadline's close logs no PhaseClosed on the fast path (no idle policy): an early one does
    assert any(isinstance(e, PhaseClosed) for e in fast.events), "no phase closed early"
    assert fast.ruled == table.ruled
    assert fast.state == table.state


def _answers(rules: Rules[Any], state: Any, actor: PlayerId, command: Command) -> bool:
    channel = (
        "list"
        if any(c.verb == command.verb and c.public for c in rules.all_commands)
        else "private"
    )
    decided = _decides(rules, state, actor, command, channel)
    assert rules.allows(state, actor, command, EPOCH, channel) == decided, (actor, command)
    return decided


def _decides(
    rules: Rules[Any], state: Any, actor: PlayerId, command: Command, channel: str
) -> bool:
    """Whether ``decide`` takes ``command``; ``Rules.decision`` (the fast path's, which need
    not raise) gives its events, or none where it refuses."""
    try:
        events = rules.decide(state, actor, command, EPOCH, channel)
    except PartlyRefused as exc:  # the taken part's events (Dracula, AMB-053)
        events, decided = list(exc.events), False
    except CommandError:
        events, decided = [], False
    else:
        decided = True
    assert rules.decision(state, actor, command, EPOCH, channel) == events, (actor, command)
    return decided


_TABLES = frozenset({"help", "status", "rules", "absence", "history", "address", "digest"})
"""The verbs the table answers, never the rules (pbem/table/commands.py, pbem/judge/)."""


@pytest.mark.parametrize("game", sorted(USUAL_PLAYERS))
def test_a_quiet_decision_is_decides(game: str) -> None:
    """``Rules.decision`` gives ``decide``'s events, none where ``decide`` refuses: every
    player's every command without arguments, on either channel, at every close of a whole
    game (LUP-620: an UNVOTE with no vote to withdraw, LUP-617: a vote sent privately)."""
    fast = RulesGame.new(demo_setup(game, 0, 2, "fr"))
    rng = random.Random(2)
    taken = refused = 0
    while not fast.finished and fast.deadlines():
        rules, state = fast.rules, fast.state
        for actor in rules.names(state):
            for spec in rules.all_commands:  # offered or not: RETIRER is offered with a vote
                if spec.args or spec.verb in _TABLES:  # the table answers those
                    continue
                for channel in ("list", "private"):
                    if _decides(rules, state, actor, Command(spec.verb), channel):
                        taken += 1
                    else:
                        refused += 1
        for move in list(moves_of(fast, rng)):
            fast.move(move, EPOCH)
        key, when = min(fast.deadlines().items(), key=lambda kv: kv[1])
        fast.close(key, when)
    assert taken and refused


@pytest.mark.parametrize("game", sorted(USUAL_PLAYERS))
def test_a_trial_answers_as_decide(game: str) -> None:
    """``Rules.allows`` (the bots' trial of a name, faster where a game answers without
    building the events) says yes exactly when ``decide`` takes the command: every player,
    every command naming one player, every name, at every close of a whole game."""
    fast = RulesGame.new(demo_setup(game, 0, 1, "fr"))
    rng = random.Random(1)
    taken = 0
    while not fast.finished and fast.deadlines():
        rules, state = fast.rules, fast.state
        for actor in rules.names(state):
            for spec in rules.available(state, actor):
                if [type(a) for a in spec.args] != [Player]:
                    continue
                for name in rules.names(state):
                    taken += _answers(rules, state, actor, Command(spec.verb, (name,)))
        for move in list(moves_of(fast, rng)):
            fast.move(move, EPOCH)
        key, when = min(fast.deadlines().items(), key=lambda kv: kv[1])
        fast.close(key, when)
    assert taken > 0


def _verbs_worked_out(rules: Rules[Any], state: Any, actor: PlayerId) -> frozenset[str]:
    """What a player may send, worked out afresh by the rules' own checks (not the verbs
    kept per key by ``available_verbs``)."""
    if isinstance(rules, LoupGarou):
        if state.outcome is not None:
            return frozenset({"help", "status"})
        verbs = {"help", "status"} | ({"sash"} if state.sash_holder == actor else set())
        if state.seats[actor].alive:
            verbs |= rules._allowed_alive(state, actor)
        return frozenset(verbs)
    assert isinstance(rules, ChasseAuxSorcieres)
    if state.outcome is not None:
        return frozenset({"help", "status"})
    return frozenset(rules._verbs(state, actor))


class _Checked(RulesGame):
    """A game that checks, after every move, each player's available verbs."""

    checked = 0

    def move(self, move: Any, now: Any) -> None:
        super().move(move, now)
        for actor in self.rules.names(self.state):
            kept = self.rules.available_verbs(self.state, actor)
            assert kept == _verbs_worked_out(self.rules, self.state, actor), actor
            self.checked += 1


@pytest.mark.parametrize("game", ["loup-garou", "chasse-aux-sorcieres"])
def test_the_verbs_kept_per_key_are_those_worked_out(game: str) -> None:
    """``available_verbs`` keeps each player's verbs per what decides them (LG-385, LG-350,
    LG-321, CAS-214, CAS-362: powers, potions, the thief's choices, the council, Léo's forced
    card): at every move of whole games, what it answers is what the rules work out afresh,
    so its key leaves nothing out that the verbs depend on (issue 23)."""
    checked = 0
    for seed in range(6):  # Loup-Garou's seed 4: a witch's death potion used
        fast = _Checked.new(demo_setup(game, 0, seed, "fr"))
        play_rules(fast, random.Random(seed))
        assert fast.finished
        checked += fast.checked
    assert checked > 1000


@pytest.mark.parametrize(
    ("game", "closes"), [("lupus-in-tabula", 10), ("loup-garou", 3)], ids=["lupus", "loupgarou"]
)
def test_a_recalled_close_is_the_fresh_fold(game: str, closes: int) -> None:
    """A Lupus setup's and close's events, and a Loup-Garou day's close (LG-250..LG-256:
    the lynch, then the night, LG-210), are folded once, as the rules build them
    (pbem.core.folded.Batch): the state the fast path recalls instead of folding
    them again is the state a fresh fold of the same events gives (LUP-114, LG-256: a close
    reads its deaths' state before the victory check)."""
    fast = RulesGame.new(demo_setup(game, 16, 3, "fr"))
    rules = fast.rules
    if game == "lupus-in-tabula":
        setup = recall(fast.ruled, rules.new_state())
        assert setup == rules.fold(fast.ruled) == fast.state
    recalled = 0
    for key, before, events in each_close(fast, 3):
        known = recall(events, before)
        if known is not None:
            recalled += 1
            assert known == rules.fold(events, before), key
    assert recalled >= closes


def test_the_fast_path_stamps_votes_as_the_table_does() -> None:
    """The fast path stamps a command's votes as :func:`pbem.table.commands.stamp_votes`
    does (the one-event list kept when it holds no vote), so both logs hold the same votes."""
    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    vote = VoteSet("day", PlayerId("a"), PlayerId("b"), 3)
    action = ActionSet(PlayerId("a"), "kill", (PlayerId("b"),))
    death = PlayerDied(PlayerId("b"), "wolves")
    for events in ([vote], [action], [action, vote], [vote, death, vote], [death, action]):
        got = _stamped(list(events), now)
        assert got == stamp_votes(events, now)
        assert [type(e) for e in got] == [type(e) for e in events]
    single = [action]
    assert _stamped(single, now) is single


@pytest.mark.parametrize("game", ["lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres"])
def test_a_vote_with_its_tally_is_folded_once(game: str) -> None:
    """A vote that posts the running tally (LUP-D18, LG-525, CAS-730: the tally reads the
    state after the vote) hands over the state the rules folded for it: the fast path
    recalls it instead of folding the vote again, and it is the state a fresh fold of the
    vote gives, stamped as the table stamps it or not (the rules never read ``at``)."""
    fast = RulesGame.new(demo_setup(game, 0, 2, "fr"))
    rng, now = random.Random(2), EPOCH
    recalled = 0
    while not fast.finished and fast.deadlines():
        rules, state = fast.rules, fast.state
        for actor in rules.names(state):
            for name in rules.names(state):
                try:
                    events = rules.decide(state, actor, Command("vote", (name,)), now, "list")
                except CommandError:
                    continue
                if not any(type(e) is VoteSet for e in events) or len(events) == 1:
                    continue
                known = recall(events, state)
                assert known is not None, (actor, name, events)
                assert known == rules.fold(events, state)
                assert known == rules.fold(stamp_votes(events, now), state)
                recalled += 1
        for move in list(moves_of(fast, rng)):
            fast.move(move, now)
        key, now = min(fast.deadlines().items(), key=lambda kv: kv[1])
        fast.close(key, now)
    assert recalled > 0


@pytest.mark.parametrize("game", sorted(USUAL_PLAYERS))
def test_a_phase_offering_nothing_offers_no_player_a_command(game: str) -> None:
    """``Rules.offers_nothing`` (the fast path then plays no bots' round) is said only where
    every player may send HELP or STATUS alone: at every event of a whole game (LUP-400,
    LUP-D19: the debate and the defence)."""
    fast = RulesGame.new(demo_setup(game, 0, 3, "fr"))
    play_rules(fast, random.Random(3))
    rules, quiet = fast.rules, 0
    state = rules.new_state()
    for event in fast.ruled:
        state = rules.evolve(state, event)
        if rules.offers_nothing(state):
            quiet += 1
            for actor in rules.names(state):
                offered = {c.verb for c in rules.available(state, actor)}
                assert offered <= {"help", "status"}, (actor, offered)
    assert quiet or game != "lupus-in-tabula"
